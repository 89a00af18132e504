package results_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"schedfarm/results"
	"schedfarm/results/collect"
	"schedfarm/results/internal/runtest"
	"schedfarm/results/verify"
	"schedfarm/simcore/bench"
)

// rewriteTimestamps rewrites the results file src into dst as another tool
// would: every TIMESTAMP column in unit (DuckDB and Arrow write MICROS,
// pandas NANOS), with adjusted telling whether it is zoned, the rest
// unchanged.
func rewriteTimestamps(tb testing.TB, src, dst string, unit parquet.TimeUnit, adjusted bool) {
	tb.Helper()
	fr, err := results.ReadTable(src)
	if err != nil {
		tb.Fatal(err)
	}
	g := parquet.Group{}
	cols := make([]results.Column, len(fr.Names))
	for i, name := range fr.Names {
		cols[i] = results.Column{Name: name, Type: fr.Types[i], Nullable: fr.Nulls[i] != nil || fr.Types[i] == results.TimestampMs}
		n := results.ColumnNode(cols[i])
		if fr.Types[i] == results.TimestampMs {
			var ts parquet.Node = parquet.Timestamp(unit)
			if !adjusted {
				ts = parquet.TimestampAdjusted(unit, false)
			}
			n = parquet.Optional(ts)
		}
		g[name] = n
	}
	byName := map[string]parquet.Field{}
	for _, f := range g.Fields() {
		byName[f.Name()] = f
	}
	fields := make([]parquet.Field, len(cols))
	for i, c := range cols {
		fields[i] = byName[c.Name]
	}
	opts := []parquet.WriterOption{results.OrderedSchema("rewritten", g, fields)}
	for k, v := range fr.Meta {
		opts = append(opts, parquet.KeyValueMetadata(k, v))
	}
	out, err := os.Create(dst)
	if err != nil {
		tb.Fatal(err)
	}
	defer out.Close()
	w := parquet.NewWriter(out, opts...)
	for r := range fr.Len() {
		row := make(parquet.Row, len(cols))
		for i, c := range cols {
			def := 0
			if c.Nullable {
				def = 1
			}
			if fr.IsNull(i, r) {
				row[i] = parquet.NullValue().Level(0, 0, i)
				continue
			}
			var v parquet.Value
			switch x := fr.Cols[i].(type) {
			case []int64:
				v = parquet.Int64Value(x[r])
			case []uint64:
				v = parquet.Int64Value(int64(x[r]))
			case []float64:
				v = parquet.DoubleValue(x[r])
			case []string:
				v = parquet.ByteArrayValue([]byte(x[r]))
			case []bool:
				v = parquet.BooleanValue(x[r])
			case []time.Time:
				v = parquet.Int64Value(x[r].UnixNano() / unit.Duration().Nanoseconds())
			}
			row[i] = v.Level(0, def, i)
		}
		if _, err := w.WriteRows([]parquet.Row{row}); err != nil {
			tb.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
}

// copyDir copies the regular files of src into a new folder dst.
func copyDir(tb testing.TB, src, dst string) {
	tb.Helper()
	if err := os.MkdirAll(dst, 0o755); err != nil {
		tb.Fatal(err)
	}
	for name, b := range runtest.ReadDir(tb, src) {
		if err := os.WriteFile(filepath.Join(dst, name), b, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

// TestReadForeignTimestamps: a jobs.parquet whose started_at another tool
// rewrote in microseconds (DuckDB's COPY ... TO), nanoseconds (pandas) or
// as a zone-less timestamp reads back to the same instants, and verify
// accepts the folder against the original.
func TestReadForeignTimestamps(t *testing.T) {
	schema := bench.New().Schema()
	jobs := runtest.BenchJobs(t, "s", 1, []runtest.Point{{"size": 1}, {"size": 2}}, 2)
	dir := t.TempDir()
	parts := filepath.Join(dir, "parts")
	t0 := time.Date(2026, 11, 26, 13, 4, 5, 678_000_000, time.UTC)
	runtest.StorePart(t, parts, "p", schema, "r", runtest.RunBench(t, jobs, "w", t0))
	golden := filepath.Join(dir, "golden")
	if _, err := collect.Collect(context.Background(), runtest.DirSource{Dir: parts}, collect.Input{RunID: "r", Model: schema, Jobs: jobs}, golden); err != nil {
		t.Fatal(err)
	}
	want, err := results.ReadTable(filepath.Join(golden, results.JobsTable+".parquet"))
	if err != nil {
		t.Fatal(err)
	}
	wantStarted := want.Col(results.ColStartedAt).([]time.Time)
	tests := []struct {
		name     string
		unit     parquet.TimeUnit
		adjusted bool
	}{
		{"micros, UTC (DuckDB)", parquet.Microsecond, true},
		{"millis, UTC", parquet.Millisecond, true},
		{"nanos, UTC (pandas)", parquet.Nanosecond, true},
		{"micros, local", parquet.Microsecond, false},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := filepath.Join(dir, "got", strings.Repeat("x", i+1))
			copyDir(t, golden, got)
			path := filepath.Join(got, results.JobsTable+".parquet")
			rewriteTimestamps(t, filepath.Join(golden, results.JobsTable+".parquet"), path, tc.unit, tc.adjusted)
			fr, err := results.ReadTable(path)
			if err != nil {
				t.Fatalf("read the rewritten file: %v", err)
			}
			if i := fr.Index(results.ColStartedAt); i < 0 || fr.Types[i] != results.TimestampMs {
				t.Fatalf("started_at: types %v", fr.Types)
			}
			for r, ts := range fr.Col(results.ColStartedAt).([]time.Time) {
				if !ts.Equal(wantStarted[r]) || ts.Location() != time.UTC {
					t.Errorf("row %d: started_at %v, want %v", r, ts, wantStarted[r])
				}
			}
			v, err := verify.Dirs(got, golden, nil)
			if err != nil {
				t.Fatalf("verify: %v", err)
			}
			if !v.OK() {
				t.Errorf("verify: %d diffs, %d missing, %d extra", v.NDiffs, len(v.Missing), len(v.Extra))
			}
		})
	}
}
