package collect_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"schedfarm/results"
	"schedfarm/results/internal/runtest"
)

// The columns and metadata keys scripts/notebook_example.py uses, by file,
// with the Arrow types pandas and DuckDB see. CI has no Python packages:
// this test opens the same files with the Arrow Go reader instead, and
// checks that the example still names exactly these columns.
var notebookColumns = map[string]map[string]arrow.Type{
	"summary.parquet": {
		"size": arrow.INT64, "variant": arrow.STRING, "n": arrow.INT64, "n_failed": arrow.INT64,
		"value_mean": arrow.FLOAT64, "value_ci95": arrow.FLOAT64, "value_median": arrow.FLOAT64,
		"value_q1": arrow.FLOAT64, "value_q3": arrow.FLOAT64, "value_min": arrow.FLOAT64, "value_max": arrow.FLOAT64,
	},
	"jobs.parquet": {
		"status": arrow.STRING, "variant": arrow.STRING, "size": arrow.INT64, "value": arrow.FLOAT64,
		"duration_ms": arrow.FLOAT64, "cpu_ms": arrow.FLOAT64, "job_id": arrow.STRING, "job_index": arrow.INT64, "attempts": arrow.INT64,
		"error": arrow.STRING,
	},
	"samples.parquet": {
		"job_id": arrow.STRING, "replicate": arrow.INT64, "size": arrow.INT64, "variant": arrow.STRING,
		"i": arrow.INT64, "u": arrow.FLOAT64,
	},
}

var notebookMeta = []string{results.MetaSweep, results.MetaModel, results.MetaModelVersion, results.MetaVersion, results.MetaVCSRevision, results.MetaGoVersion, results.MetaSweepFile}

func TestNotebookExample(t *testing.T) {
	src, err := os.ReadFile("../../scripts/notebook_example.py")
	if err != nil {
		t.Fatal(err)
	}
	py := string(src)
	for file, cols := range notebookColumns {
		if !strings.Contains(py, file) {
			t.Errorf("the example does not read %s", file)
		}
		for c := range cols {
			if !strings.Contains(py, `"`+c+`"`) && !strings.Contains(py, " "+c+",") && !strings.Contains(py, " "+c+"\n") {
				t.Errorf("the example does not use column %s of %s", c, file)
			}
		}
	}
	for _, k := range notebookMeta {
		if !strings.Contains(py, `b"`+k+`"`) {
			t.Errorf("the example does not read metadata key %s", k)
		}
	}
	// A collected run, and the committed golden (summary only).
	run := filepath.Join(t.TempDir(), "big", "r1")
	runtest.CollectRun(t, run, 40)
	check := func(dir, file string) {
		tbl, meta := arrowRead(t, filepath.Join(dir, file))
		for c, typ := range notebookColumns[file] {
			idx := tbl.Schema().FieldIndices(c)
			if len(idx) != 1 {
				t.Errorf("%s/%s: no column %s", dir, file, c)
				continue
			}
			if got := tbl.Schema().Field(idx[0]).Type.ID(); got != typ {
				t.Errorf("%s/%s: column %s is %s, want %s", dir, file, c, got, typ)
			}
		}
		for _, k := range notebookMeta {
			if meta[k] == "" {
				t.Errorf("%s/%s: no metadata %s", dir, file, k)
			}
		}
	}
	for file := range notebookColumns {
		check(run, file)
	}
	check("../../configs/golden/smoke", "summary.parquet")
}
