package verify

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"schedfarm/results"
	"schedfarm/results/decl"
	"schedfarm/results/internal/runtest"
)

// bigJobs is a jobs-like frame of n rows; worker and duration differ with
// the seed argument (as between two runs), the rest does not.
func bigJobs(n int, workerSeed int, version string) *results.Frame {
	ids := make([]string, n)
	idx := make([]int64, n)
	worker := make([]string, n)
	dur := make([]float64, n)
	status := make([]string, n)
	size := make([]int64, n)
	value := make([]float64, n)
	checksum := make([]int64, n)
	for i := range n {
		ids[i] = fmt.Sprintf("00000000-0000-5000-8000-%012d", i)
		idx[i] = int64(i)
		worker[i] = fmt.Sprintf("w%d", (i+workerSeed)%7)
		dur[i] = float64((i*workerSeed)%13) + 0.5
		status[i] = results.StatusOK
		size[i] = int64(i % 100)
		value[i] = math.Sqrt(float64(i)) / 3
		checksum[i] = int64(i) * 7919
	}
	value[17] = math.NaN() // a null: null equals null
	return runtest.FrameOf(map[string]string{results.MetaSweep: "big", results.MetaModelVersion: version},
		results.ColJobID, ids, results.ColJobIndex, idx, results.ColWorker, worker, results.ColDurationMs, dur, results.ColStatus, status,
		"size", size, "value", value, "checksum", checksum)
}

func TestVerifyJobs100k(t *testing.T) {
	const n = 100_000
	golden := bigJobs(n, 1, "1")
	// Same sweep, other workers and timings.
	same := bigJobs(n, 3, "1")
	if v := Frames(same, golden, ModeJobs, nil); !v.OK() {
		var b bytes.Buffer
		v.WriteText(&b, 10)
		t.Fatalf("identical runs differ:\n%s", b.String())
	}
	got := bigJobs(n, 2, "1")
	got.Cols[got.Index("value")].([]float64)[54321] = math.Nextafter(math.Sqrt(54321)/3, 1) // one ulp
	v := Frames(got, golden, ModeJobs, nil)
	if v.OK() || v.NDiffs != 1 || len(v.Missing)+len(v.Extra) != 0 {
		t.Fatalf("want exactly one difference, got %d diffs, %d missing, %d extra", v.NDiffs, len(v.Missing), len(v.Extra))
	}
	d := v.Diffs[0]
	if d.Key != "00000000-0000-5000-8000-000000054321" || d.Column != "value" {
		t.Errorf("diff reported at %s/%s", d.Key, d.Column)
	}
	var b bytes.Buffer
	v.WriteText(&b, 50)
	out := b.String()
	if !strings.Contains(out, "DRIFT") || !strings.Contains(out, "00000000-0000-5000-8000-000000054321  value") ||
		!strings.Contains(out, "JOB") {
		t.Errorf("diff table:\n%s", out)
	}
	// Within a declared tolerance, but only across model versions.
	tol := map[string]decl.Tol{"value": {Abs: 1e-12}}
	if v := Frames(got, golden, ModeJobs, tol); v.OK() {
		t.Error("same model version: tolerances must not apply")
	}
	got.Meta[results.MetaModelVersion] = "2"
	if v := Frames(got, golden, ModeJobs, tol); !v.OK() {
		t.Errorf("model version changed, diff within tolerance: %d diffs", v.NDiffs)
	}
	got.Cols[got.Index("checksum")].([]int64)[3] = 1
	if v := Frames(got, golden, ModeJobs, tol); v.NDiffs != 1 || v.Diffs[0].Column != "checksum" {
		t.Errorf("a metric without tolerance must match exactly: %+v", v.Diffs)
	}
}

func TestVerifyJobSets(t *testing.T) {
	golden := bigJobs(100, 1, "1")
	got := bigJobs(101, 1, "1")
	got.Cols[0].([]string)[5] = "other"
	v := Frames(got, golden, ModeJobs, nil)
	if !slices.Equal(v.Missing, []string{"00000000-0000-5000-8000-000000000005"}) || len(v.Extra) != 2 {
		t.Errorf("missing %v, extra %v", v.Missing, v.Extra)
	}
	// A column missing from the run.
	got = bigJobs(100, 1, "1")
	got.Names[got.Index("checksum")] = "checksum2"
	v = Frames(got, golden, ModeJobs, nil)
	if v.OK() || v.Diffs[0].Key != "*" {
		t.Errorf("column change not reported: %+v", v.Diffs)
	}
}

func TestVerifySummary(t *testing.T) {
	golden := runtest.FixedSummary()
	golden.Meta[results.MetaModelVersion] = "1"
	ins := func(f *results.Frame) *results.Frame { // add n after the parameters
		g := runtest.FrameOf(f.Meta, "size", f.Cols[0], "variant", f.Cols[1], results.ColN, make([]int64, f.Len()))
		g.Names, g.Types = append(g.Names, f.Names[2:]...), append(g.Types, f.Types[2:]...)
		g.Cols, g.Nulls = append(g.Cols, f.Cols[2:]...), append(g.Nulls, f.Nulls[2:]...)
		return g
	}
	golden = ins(golden)
	got := ins(runtest.FixedSummary())
	got.Meta[results.MetaModelVersion] = "1"
	if v := Frames(got, golden, ModeSummary, nil); !v.OK() || v.Rows != 9 {
		t.Fatalf("identical summaries: %+v", v)
	}
	got.Cols[got.Index("value_q3")].([]float64)[4] += 1e-9
	v := Frames(got, golden, ModeSummary, nil)
	if v.NDiffs != 1 || v.Diffs[0].Key != "size=2, variant=FIFO-DLT" || v.Diffs[0].Column != "value_q3" {
		t.Fatalf("diffs %+v", v.Diffs)
	}
	got.Meta[results.MetaModelVersion] = "2"
	if v := Frames(got, golden, ModeSummary, map[string]decl.Tol{"value": {Rel: 1e-6}}); !v.OK() {
		t.Errorf("value_q3 within value's relative tolerance: %+v", v.Diffs)
	}
}

// BenchmarkVerify_100k compares two 100,000-row jobs tables with one
// differing value.
func BenchmarkVerify_100k(b *testing.B) {
	golden, got := bigJobs(100_000, 1, "1"), bigJobs(100_000, 2, "1")
	got.Cols[got.Index("value")].([]float64)[99_999] = -1
	for b.Loop() {
		if v := Frames(got, golden, ModeJobs, nil); v.NDiffs != 1 {
			b.Fatal(v.NDiffs)
		}
	}
}

// TestVerifyIgnoresMeasured: a metric declared Measured (machine-dependent,
// like a scheduler's wall-clock time) differs between runs by nature and
// is not compared, in jobs or in the summary; other columns still are.
func TestVerifyIgnoresMeasured(t *testing.T) {
	meta := func() map[string]string {
		return map[string]string{results.MetaSweep: "m", results.MetaModelVersion: "1", results.MetaMeasured: "sched_wall_ms"}
	}
	ids := []string{"00000000-0000-5000-8000-000000000001", "00000000-0000-5000-8000-000000000002"}
	golden := runtest.FrameOf(meta(), results.ColJobID, ids, "value", []float64{1, 2}, "sched_wall_ms", []float64{3.1, 4.2})
	got := runtest.FrameOf(meta(), results.ColJobID, ids, "value", []float64{1, 2}, "sched_wall_ms", []float64{2.9, 5.0})
	if v := Frames(got, golden, ModeJobs, nil); !v.OK() {
		t.Fatalf("a measured metric's difference counted: %d diffs", v.NDiffs)
	}
	got = runtest.FrameOf(meta(), results.ColJobID, ids, "value", []float64{1, 2.5}, "sched_wall_ms", []float64{2.9, 5.0})
	if v := Frames(got, golden, ModeJobs, nil); v.OK() || v.NDiffs != 1 {
		t.Fatalf("a real difference next to a measured one: %d diffs, want 1", v.NDiffs)
	}
	gs := runtest.FrameOf(meta(), "size", []int64{1}, results.ColN, []int64{2}, "value_mean", []float64{1.5}, "sched_wall_ms_mean", []float64{3.6})
	rs := runtest.FrameOf(meta(), "size", []int64{1}, results.ColN, []int64{2}, "value_mean", []float64{1.5}, "sched_wall_ms_mean", []float64{3.9})
	if v := Frames(rs, gs, ModeSummary, nil); !v.OK() {
		t.Fatalf("a measured metric's summary statistic counted: %d diffs", v.NDiffs)
	}
}
