package stretch

import (
	"math"
	"testing"

	"schedfarm/simcore"
	"schedfarm/simcore/modeltest"
)

func TestWorkRatioAndMeanProcs(t *testing.T) {
	cases := []struct {
		name       string
		size       []float64
		out        MoldOutcome
		ratio, avg float64
	}{
		{"sequential", []float64{10, 20}, MoldOutcome{Start: []float64{0, 5}, End: []float64{10, 25}, Procs: []int{1, 1}}, 1, 1},
		// 1·10 + 2·12 = 34 processor-seconds for 30 s of sequential work.
		{"one on two processors", []float64{10, 20}, MoldOutcome{Start: []float64{0, 0}, End: []float64{10, 12}, Procs: []int{1, 2}}, 34.0 / 30, 1.5},
		{"perfect speedup", []float64{40}, MoldOutcome{Start: []float64{3}, End: []float64{13}, Procs: []int{4}}, 1, 4},
	}
	for _, c := range cases {
		if got := WorkRatio(c.size, &c.out); math.Abs(got-c.ratio) > 1e-12 {
			t.Errorf("%s: WorkRatio = %v, want %v", c.name, got, c.ratio)
		}
		if got := MeanProcs(c.out.Procs); got != c.avg {
			t.Errorf("%s: MeanProcs = %v, want %v", c.name, got, c.avg)
		}
	}
}

// The moldable model reports the processor time its schedule uses: FCFS (one
// processor each) uses exactly the sequential work, so its used_load is the
// realised load; the parallel algorithms use at least as much.
func TestMoldableUsedLoad(t *testing.T) {
	m := New(nil)
	for _, alg := range []string{FCFSSeq, DBOS, ImprovedIter} {
		r := modeltest.Run(t, m, simcore.Params{"problem": "moldable", "workload": "ssm", "algorithm": alg,
			"n_tasks": int64(150), "m": int64(32), "load": 20.0}, 5)
		wr, used, load := r.Metrics["work_ratio"].(float64), r.Metrics["used_load"].(float64), r.Metrics["realised_load"].(float64)
		procs := r.Metrics["mean_procs"].(float64)
		if math.Abs(used-load*wr) > 1e-9*used {
			t.Errorf("%s: used_load %v != realised_load %v × work_ratio %v", alg, used, load, wr)
		}
		if alg == FCFSSeq && (math.Abs(wr-1) > 1e-12 || procs != 1) {
			t.Errorf("FCFS: work_ratio %v, mean_procs %v, want 1 and 1", wr, procs)
		}
		if wr < 1-1e-9 || procs < 1 {
			t.Errorf("%s: work_ratio %v, mean_procs %v below 1", alg, wr, procs)
		}
	}
}
