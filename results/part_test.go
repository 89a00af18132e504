package results_test

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"

	"schedfarm/results"
	"schedfarm/results/collect"
	"schedfarm/results/internal/runtest"
	"schedfarm/simcore"
	"schedfarm/simcore/bench"
)

func TestLayouts(t *testing.T) {
	schema := bench.New().Schema()
	params := "work_ms:float64 size:int64 noise:float64 rows:int64 variant:string fail:string"
	tests := []struct {
		name string
		get  func() (results.Layout, error)
		want string // name:type[?] …, ? for nullable
	}{
		{"jobs", func() (results.Layout, error) { return results.JobsLayout(schema) },
			"run_id:string job_id:string job_index:int64 sweep:string model:string model_version:string " +
				"replicate:int64 seed:uint64 worker:string started_at:timestamp[ms,UTC]? duration_ms:float64? " +
				"status:string error:string attempts:int64 cpu_ms:float64? " + params + " checksum:int64? iterations:int64? value:float64?"},
		{"samples", func() (results.Layout, error) { return results.TableLayout(schema, "samples") },
			"job_id:string job_index:int64 replicate:int64 seed:uint64 " + params + " i:int64 u:float64"},
		{"part samples", func() (results.Layout, error) { return results.PartTableLayout(schema, "samples") },
			"job_id:string job_index:int64 replicate:int64 seed:uint64 i:int64 u:float64"},
		{"summary", func() (results.Layout, error) { return results.SummaryLayout(schema) },
			params + " n:int64 n_failed:int64 n_missing:int64" + statCols("checksum") + statCols("iterations") + statCols("value")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := tt.get()
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range l.Columns {
				s := c.Name + ":" + c.Type.String()
				if c.Nullable {
					s += "?"
				}
				got = append(got, s)
			}
			if g := strings.Join(got, " "); g != tt.want {
				t.Errorf("layout\n%s\nwant\n%s", g, tt.want)
			}
			// The Parquet schema keeps the layout's order.
			var pq []string
			for _, f := range l.Schema().Fields() {
				pq = append(pq, f.Name())
			}
			if !slices.Equal(pq, l.Names()) {
				t.Errorf("parquet schema order %v", pq)
			}
		})
	}
}

func statCols(m string) string {
	var s string
	for _, st := range results.SummaryStats() {
		s += " " + m + "_" + st + ":float64?"
	}
	return s
}

func TestLayoutErrors(t *testing.T) {
	clash := simcore.Schema{
		Params:  []simcore.Param{{Name: "seed", Kind: simcore.Int}},
		Metrics: []simcore.Column{{Name: "x", Kind: simcore.Float}},
	}
	metricClash := simcore.Schema{
		Params:  []simcore.Param{{Name: "x", Kind: simcore.Int}},
		Metrics: []simcore.Column{{Name: "x", Kind: simcore.Float}},
	}
	tests := []struct {
		name string
		err  func() error
	}{
		{"param named like a fixed column", func() error { _, err := results.JobsLayout(clash); return err }},
		{"metric named like a param", func() error { _, err := results.JobsLayout(metricClash); return err }},
		{"undeclared table", func() error { _, err := results.TableLayout(clash, "nope"); return err }},
		{"summary clash", func() error {
			_, err := results.SummaryLayout(simcore.Schema{Params: []simcore.Param{{Name: "n", Kind: simcore.Int}}})
			return err
		}},
	}
	for _, tt := range tests {
		if tt.err() == nil {
			t.Errorf("%s: no error", tt.name)
		}
	}
}

func TestEncodeDecodePart(t *testing.T) {
	schema := bench.New().Schema()
	jobs := runtest.BenchJobs(t, "s", 5, []runtest.Point{{"size": 4, "rows": 3}, {"size": 1, "rows": 0}, {"fail": "error"}}, 2)
	rows := runtest.RunBench(t, jobs, "worker-1", time.Date(2025, 1, 2, 3, 4, 5, 6e6, time.UTC))
	rows[1].Attempts = 3
	objs, err := results.EncodePart(schema, results.PartInfo{RunID: "r1", Provenance: runtest.Prov()}, rows)
	if err != nil {
		t.Fatal(err)
	}
	if got := runtest.SortedKeys(objs); !slices.Equal(got, []string{"jobs", "samples"}) {
		t.Fatalf("objects %v", got)
	}
	fr, err := results.ReadFrame(bytes.NewReader(objs["jobs"]), int64(len(objs["jobs"])))
	if err != nil {
		t.Fatal(err)
	}
	if fr.Meta[results.MetaPartTables] != "samples" || fr.Meta[results.MetaRunID] != "r1" || fr.Meta[results.MetaModel] != "bench" {
		t.Errorf("part metadata %v", fr.Meta)
	}
	if _, ok := fr.Meta[results.MetaSweepFile]; ok {
		t.Errorf("part has %s", results.MetaSweepFile)
	}
	checkDecodes(t, schema, objs, rows)
	sf, err := results.ReadFrame(bytes.NewReader(objs["samples"]), int64(len(objs["samples"])))
	if err != nil {
		t.Fatal(err)
	}
	if pl, _ := results.PartTableLayout(schema, "samples"); !slices.Equal(sf.Names, pl.Names()) || slices.Contains(sf.Names, "size") {
		t.Errorf("part table columns %v, want %v (no parameters)", sf.Names, pl.Names())
	}

	bad := []struct {
		name string
		mod  func(r []results.JobResult)
	}{
		{"bad status", func(r []results.JobResult) { r[0].Status = "done" }},
		{"ok without result", func(r []results.JobResult) { r[0].Result = nil }},
		{"missing metric", func(r []results.JobResult) { delete(r[0].Result.Metrics, "value") }},
		{"wrong param type", func(r []results.JobResult) { r[0].Job.Params = simcore.Params{"size": 1.5} }},
		{"two models", func(r []results.JobResult) { r[1].Job.ModelVersion = "2" }},
	}
	for _, b := range bad {
		rs := runtest.RunBench(t, jobs[:2], "w", time.Unix(0, 0))
		b.mod(rs)
		if _, err := results.EncodePart(schema, results.PartInfo{}, rs); err == nil {
			t.Errorf("%s: no error", b.name)
		}
	}
	if _, err := results.EncodePart(schema, results.PartInfo{}, nil); err == nil {
		t.Errorf("empty part: no error")
	}
}

// TestEncodePartLargeValues: a part's page buffers are sized from its row
// count; values far larger than that estimate (long error texts, a large
// extra table) spill over several pages and still read back exactly.
func TestEncodePartLargeValues(t *testing.T) {
	schema := bench.New().Schema()
	jobs := runtest.BenchJobs(t, "s", 5, []runtest.Point{{"size": 2, "rows": 5000}, {"fail": "error"}}, 3)
	rows := runtest.RunBench(t, jobs, "worker-1", time.Date(2025, 1, 2, 3, 4, 5, 6e6, time.UTC))
	for i := range rows {
		if rows[i].Status != results.StatusOK {
			rows[i].Error = strings.Repeat(fmt.Sprintf("line %d of a long traceback\n", i), 2000)
		}
	}
	objs, err := results.EncodePart(schema, results.PartInfo{RunID: "r1"}, rows)
	if err != nil {
		t.Fatal(err)
	}
	checkDecodes(t, schema, objs, rows)
}

// checkDecodes fails unless the part objs decodes back to rows.
func checkDecodes(t *testing.T, schema simcore.Schema, objs map[string][]byte, rows []results.JobResult) {
	t.Helper()
	back, err := results.DecodePart(schema, objs)
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != len(rows) {
		t.Fatalf("%d rows back, want %d", len(back), len(rows))
	}
	for i := range rows {
		if !reflect.DeepEqual(back[i], rows[i]) {
			t.Errorf("row %d:\n got %+v\nwant %+v", i, back[i], rows[i])
		}
	}
}

func TestPartObjectName(t *testing.T) {
	tests := []struct {
		name, part, table string
		ok                bool
	}{
		{"p1/jobs.parquet", "p1", "jobs", true},
		{"a/b/samples.parquet", "a/b", "samples", true},
		{"jobs.parquet", "", "", false},
		{"p1/jobs.csv", "", "", false},
		{"p1/.parquet", "", "", false},
	}
	for _, tt := range tests {
		p, tb, ok := results.ParsePartObjectName(tt.name)
		if p != tt.part || tb != tt.table || ok != tt.ok {
			t.Errorf("ParsePartObjectName(%q) = %q %q %v", tt.name, p, tb, ok)
		}
		if ok && results.PartObjectName(p, tb) != tt.name {
			t.Errorf("PartObjectName(%q, %q) = %q", p, tb, results.PartObjectName(p, tb))
		}
	}
}

func TestProvenance(t *testing.T) {
	tests := []struct {
		name string
		bi   *debug.BuildInfo
		want results.Provenance
	}{
		{"nil", nil, results.Provenance{results.Unknown, results.Unknown, results.Unknown, results.Unknown}},
		{"no vcs", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}},
			results.Provenance{results.Unknown, results.Unknown, results.Unknown, "go1.26.8"}},
		{"vcs", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.3"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "deadbeef"}, {Key: "vcs.modified", Value: "true"}}},
			results.Provenance{"v1.2.3", "deadbeef", "true", "go1.26.8"}},
	}
	for _, tt := range tests {
		if got := results.ProvenanceFrom(tt.bi); got != tt.want {
			t.Errorf("%s: %+v, want %+v", tt.name, got, tt.want)
		}
	}
	if p := results.BuildProvenance(); p.GoVersion == "" || p.VCSRevision == "" {
		t.Errorf("BuildProvenance() = %+v", p)
	}
	if got := (results.Provenance{Version: "x"}).WithDefaults(); got != (results.Provenance{"x", results.Unknown, results.Unknown, results.Unknown}) {
		t.Errorf("withDefaults = %+v", got)
	}
}

// TestLegacyPartTable: a part stored before PartTableLayout, whose table
// repeats the parameters on every row, still decodes and collects to the
// same table as a current part.
func TestLegacyPartTable(t *testing.T) {
	schema := bench.New().Schema()
	jobs := runtest.BenchJobs(t, "s", 5, []runtest.Point{{"size": 4, "rows": 3}, {"size": 2, "rows": 2}}, 2)
	rows := runtest.RunBench(t, jobs, "w", time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC))
	objs, err := results.EncodePart(schema, results.PartInfo{RunID: "r"}, rows)
	if err != nil {
		t.Fatal(err)
	}
	legacy := maps.Clone(objs)
	legacy["samples"] = legacyTable(t, schema, "samples", rows)
	checkDecodes(t, schema, legacy, rows)

	collected := func(objs map[string][]byte) []byte {
		dir := t.TempDir()
		for table, data := range objs {
			path := filepath.Join(dir, "parts", filepath.FromSlash(results.PartObjectName("p", table)))
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		out := filepath.Join(dir, "out")
		if _, err := collect.Collect(context.Background(), runtest.DirSource{Dir: filepath.Join(dir, "parts")},
			collect.Input{RunID: "r", Model: schema, Jobs: jobs}, out); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(filepath.Join(out, "samples.parquet"))
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	if !bytes.Equal(collected(objs), collected(legacy)) {
		t.Errorf("a legacy part collects to a different samples.parquet")
	}
}

// legacyTable encodes a part's table the way parts were before
// PartTableLayout: TableLayout, parameters included.
func legacyTable(t *testing.T, schema simcore.Schema, table string, rows []results.JobResult) []byte {
	t.Helper()
	l, err := results.TableLayout(schema, table)
	if err != nil {
		t.Fatal(err)
	}
	st, _ := schema.Table(table)
	var buf bytes.Buffer
	tw := results.NewTableWriter(&buf, l, nil, 0)
	for _, r := range rows {
		if !results.HasTableRows(&r, table) {
			continue
		}
		data := r.Result.Tables[table]
		for k := 0; k < data.Len(); k++ {
			tw.SetString(0, r.Job.ID.String())
			tw.SetInt(1, int64(r.Job.Index))
			tw.SetInt(2, int64(r.Job.Replicate))
			tw.SetInt(3, int64(r.Job.Seed))
			c := results.FixedTableColumns
			for _, p := range schema.Params {
				if err := tw.SetAny(c, r.Job.Params[p.Name]); err != nil {
					t.Fatal(err)
				}
				c++
			}
			for _, col := range st.Columns {
				results.SetSliceElem(tw, c, data.Columns[col.Name], k)
				c++
			}
			if err := tw.EndRow(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
