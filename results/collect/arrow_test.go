package collect_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"schedfarm/results"
	"schedfarm/results/collect"
	"schedfarm/results/internal/runtest"
	"schedfarm/simcore/bench"
)

// arrowRead reads a Parquet file with Apache Arrow's reader, independent of
// parquet-go: its schema, a table and its key-value metadata.
func arrowRead(t *testing.T, path string) (arrow.Table, map[string]string) {
	t.Helper()
	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatalf("arrow open %s: %v", path, err)
	}
	t.Cleanup(func() { pf.Close() })
	meta := map[string]string{}
	kv := pf.MetaData().KeyValueMetadata()
	for i, k := range kv.Keys() {
		meta[k] = kv.Values()[i]
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 1 << 16}, memory.DefaultAllocator)
	if err != nil {
		t.Fatalf("arrow reader %s: %v", path, err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		t.Fatalf("arrow read %s: %v", path, err)
	}
	t.Cleanup(tbl.Release)
	return tbl, meta
}

// arrowCol concatenates a column's chunks into one Go slice.
func arrowCol[T any](t *testing.T, tbl arrow.Table, name string) ([]T, []bool) {
	t.Helper()
	idx := tbl.Schema().FieldIndices(name)
	if len(idx) != 1 {
		t.Fatalf("column %q: %d matches", name, len(idx))
	}
	var vals []T
	var nulls []bool
	for _, ch := range tbl.Column(idx[0]).Data().Chunks() {
		for i := 0; i < ch.Len(); i++ {
			nulls = append(nulls, ch.IsNull(i))
			var v any
			switch a := ch.(type) {
			case *array.Int64:
				v = a.Value(i)
			case *array.Uint64:
				v = a.Value(i)
			case *array.Float64:
				v = a.Value(i)
			case *array.String:
				v = a.Value(i)
			case *array.Boolean:
				v = a.Value(i)
			case *array.Timestamp:
				v = a.Value(i).ToTime(arrow.Millisecond)
			default:
				t.Fatalf("column %q: unexpected array %T", name, ch)
			}
			vals = append(vals, v.(T))
		}
	}
	return vals, nulls
}

func TestCollectArrowRoundTrip(t *testing.T) {
	dir := t.TempDir()
	parts := filepath.Join(dir, "parts")
	jobs := runtest.BenchJobs(t, "s1", 7, []runtest.Point{
		{"size": 1, "rows": 3, "variant": "a"},
		{"size": 1, "rows": 3, "variant": "b"},
		{"size": 2, "rows": 0},
		{"size": 3, "fail": "error"},
	}, 3)
	t0 := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	rows := runtest.RunBench(t, jobs, "w1", t0)
	runtest.StorePart(t, parts, "p1", bench.New().Schema(), "run-1", rows[:5])
	runtest.StorePart(t, parts, "p2", bench.New().Schema(), "run-1", rows[5:])
	out := filepath.Join(dir, "results", "s1", "run-1")
	in := collect.Input{RunID: "run-1", Model: bench.New().Schema(), Jobs: jobs, SweepFile: "name: s1\n", Provenance: runtest.Prov()}
	res, err := collect.Collect(context.Background(), runtest.DirSource{Dir: parts}, in, out)
	if err != nil {
		t.Fatal(err)
	}
	if res.OK != 9 || res.Failed != 3 || res.Missing != 0 || res.Jobs != 12 || res.Points != 4 {
		t.Errorf("collected %+v", res)
	}
	if got := res.TableRows["samples"]; got != 18 {
		t.Errorf("samples rows = %d, want 18", got)
	}

	// jobs.parquet
	checkChunks(t, filepath.Join(out, "jobs.parquet"), map[string]bool{"status": true, "variant": true, "job_id": false})
	tbl, meta := arrowRead(t, filepath.Join(out, "jobs.parquet"))
	wantSchema := []struct {
		name     string
		typ      string
		nullable bool
	}{
		{"run_id", "utf8", false}, {"job_id", "utf8", false}, {"job_index", "int64", false},
		{"sweep", "utf8", false}, {"model", "utf8", false}, {"model_version", "utf8", false},
		{"replicate", "int64", false}, {"seed", "uint64", false}, {"worker", "utf8", false},
		{"started_at", "timestamp[ms, tz=UTC]", true}, {"duration_ms", "float64", true},
		{"status", "utf8", false}, {"error", "utf8", false}, {"attempts", "int64", false},
		{"cpu_ms", "float64", true},
		{"work_ms", "float64", false}, {"size", "int64", false}, {"noise", "float64", false},
		{"rows", "int64", false}, {"variant", "utf8", false}, {"fail", "utf8", false},
		{"checksum", "int64", true}, {"iterations", "int64", true}, {"value", "float64", true},
	}
	fields := tbl.Schema().Fields()
	if len(fields) != len(wantSchema) {
		t.Fatalf("jobs has %d columns, want %d: %v", len(fields), len(wantSchema), tbl.Schema())
	}
	for i, w := range wantSchema {
		f := fields[i]
		if f.Name != w.name || f.Type.String() != w.typ || f.Nullable != w.nullable {
			t.Errorf("jobs column %d = %s %s nullable=%v, want %s %s nullable=%v", i, f.Name, f.Type, f.Nullable, w.name, w.typ, w.nullable)
		}
	}
	if tbl.NumRows() != 12 {
		t.Fatalf("jobs rows = %d", tbl.NumRows())
	}
	ids, _ := arrowCol[string](t, tbl, "job_id")
	idx, _ := arrowCol[int64](t, tbl, "job_index")
	seeds, _ := arrowCol[uint64](t, tbl, "seed")
	status, _ := arrowCol[string](t, tbl, "status")
	errs, _ := arrowCol[string](t, tbl, "error")
	started, startedNull := arrowCol[time.Time](t, tbl, "started_at")
	values, valueNull := arrowCol[float64](t, tbl, "value")
	checks, _ := arrowCol[int64](t, tbl, "checksum")
	variants, _ := arrowCol[string](t, tbl, "variant")
	runIDs, _ := arrowCol[string](t, tbl, "run_id")
	for i, j := range jobs {
		r := rows[i]
		if ids[i] != j.ID.String() || idx[i] != int64(j.Index) || seeds[i] != j.Seed || runIDs[i] != "run-1" {
			t.Errorf("row %d: id/index/seed/run = %s %d %d %s", i, ids[i], idx[i], seeds[i], runIDs[i])
		}
		if variants[i] != j.Params.String("variant") {
			t.Errorf("row %d: variant %q", i, variants[i])
		}
		if startedNull[i] || !started[i].Equal(r.StartedAt) {
			t.Errorf("row %d: started_at %v, want %v", i, started[i], r.StartedAt)
		}
		if r.Status != status[i] || r.Error != errs[i] {
			t.Errorf("row %d: status %q error %q, want %q %q", i, status[i], errs[i], r.Status, r.Error)
		}
		if r.Status == results.StatusOK {
			if valueNull[i] || values[i] != r.Result.Metrics["value"].(float64) || checks[i] != r.Result.Metrics["checksum"].(int64) {
				t.Errorf("row %d: value %v checksum %v", i, values[i], checks[i])
			}
		} else if !valueNull[i] {
			t.Errorf("row %d: failed job has non-null value", i)
		}
	}
	wantMeta := map[string]string{
		results.MetaSweepFile: "name: s1\n", results.MetaSweep: "s1", results.MetaRunID: "run-1", results.MetaVersion: "v0.1.0-test",
		results.MetaVCSRevision: "abc123", results.MetaVCSModified: "false", results.MetaGoVersion: "go1.26.8",
		results.MetaModel: "bench", results.MetaModelVersion: "1",
	}
	for k, v := range wantMeta {
		if meta[k] != v {
			t.Errorf("jobs metadata %s = %q, want %q", k, meta[k], v)
		}
	}

	// samples.parquet
	tbl, meta = arrowRead(t, filepath.Join(out, "samples.parquet"))
	var names []string
	for _, f := range tbl.Schema().Fields() {
		names = append(names, f.Name+":"+f.Type.String())
	}
	wantNames := []string{"job_id:utf8", "job_index:int64", "replicate:int64", "seed:uint64",
		"work_ms:float64", "size:int64", "noise:float64", "rows:int64", "variant:utf8", "fail:utf8",
		"i:int64", "u:float64"}
	if !slices.Equal(names, wantNames) {
		t.Errorf("samples columns %v, want %v", names, wantNames)
	}
	if _, ok := meta[results.MetaRunID]; ok {
		t.Errorf("samples.parquet has %s", results.MetaRunID)
	}
	if meta[results.MetaSweepFile] != "name: s1\n" || meta[results.MetaModel] != "bench" {
		t.Errorf("samples metadata %v", meta)
	}
	sIdx, _ := arrowCol[int64](t, tbl, "job_index")
	sI, _ := arrowCol[int64](t, tbl, "i")
	sU, _ := arrowCol[float64](t, tbl, "u")
	k := 0
	for i, r := range rows {
		if r.Result == nil || r.Result.Tables["samples"] == nil {
			continue
		}
		cols := r.Result.Tables["samples"].Columns
		for n := range cols["i"].([]int64) {
			if sIdx[k] != int64(i) || sI[k] != cols["i"].([]int64)[n] || sU[k] != cols["u"].([]float64)[n] {
				t.Errorf("samples row %d = (%d, %d, %v)", k, sIdx[k], sI[k], sU[k])
			}
			k++
		}
	}
	if k != int(tbl.NumRows()) {
		t.Errorf("samples rows %d, want %d", tbl.NumRows(), k)
	}

	// summary.parquet
	tbl, meta = arrowRead(t, filepath.Join(out, "summary.parquet"))
	if _, ok := meta[results.MetaRunID]; ok {
		t.Errorf("summary.parquet has %s", results.MetaRunID)
	}
	if tbl.NumRows() != 4 {
		t.Errorf("summary rows = %d", tbl.NumRows())
	}
	n, _ := arrowCol[int64](t, tbl, "n")
	nf, _ := arrowCol[int64](t, tbl, "n_failed")
	if !slices.Equal(n, []int64{3, 3, 3, 0}) || !slices.Equal(nf, []int64{0, 0, 0, 3}) {
		t.Errorf("summary n %v n_failed %v", n, nf)
	}
	f := tbl.Schema().Field(tbl.Schema().FieldIndices("value_ci95")[0])
	if f.Type.ID() != arrow.FLOAT64 || !f.Nullable {
		t.Errorf("value_ci95 is %v", f)
	}
	means, meanNull := arrowCol[float64](t, tbl, "value_mean")
	if !meanNull[3] || meanNull[0] {
		t.Errorf("value_mean nulls %v", meanNull)
	}
	want := (values[0] + values[1] + values[2]) / 3
	if means[0] != want {
		t.Errorf("value_mean[0] = %v, want %v", means[0], want)
	}
}

// checkChunks checks with Arrow's reader that every column chunk is zstd
// compressed and that the given columns are (or are not) dictionary encoded.
func checkChunks(t *testing.T, path string, dict map[string]bool) {
	t.Helper()
	pf, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatal(err)
	}
	defer pf.Close()
	md := pf.MetaData()
	for g := 0; g < md.NumRowGroups(); g++ {
		rg := md.RowGroup(g)
		for c := 0; c < rg.NumColumns(); c++ {
			cc, err := rg.ColumnChunk(c)
			if err != nil {
				t.Fatal(err)
			}
			name := cc.PathInSchema().String()
			if cc.Compression() != compress.Codecs.Zstd {
				t.Errorf("%s: column %s compressed with %v", path, name, cc.Compression())
			}
			want, ok := dict[name]
			if ok && !want && !slices.Equal(cc.Encodings(), []parquet.Encoding{parquet.Encodings.Plain}) {
				t.Errorf("%s: column %s encodings %v, want PLAIN", path, name, cc.Encodings())
			}
			if ok && slices.Contains(cc.Encodings(), parquet.Encodings.RLEDict) != want {
				t.Errorf("%s: column %s encodings %v, dictionary want %v", path, name, cc.Encodings(), want)
			}
		}
	}
}
