package stretch

import (
	"math"
	"testing"

	"schedfarm/simcore"
	"schedfarm/simcore/modeltest"
)

func TestFirstStep(t *testing.T) {
	cases := []struct {
		name  string
		times []float64
		want  int
	}{
		{"one processor", []float64{5}, 1},
		{"no gain from the second", []float64{10, 10, 4}, 1},
		{"step after two", []float64{10, 6, 6, 3}, 2},
		{"falls to the end", []float64{12, 6, 4, 3}, 4},
	}
	for _, c := range cases {
		if got := FirstStep(c.times); got != c.want {
			t.Errorf("%s: FirstStep(%v) = %d, want %d", c.name, c.times, got, c.want)
		}
	}
}

// Hand-computed: three tasks on 4 processors.
//
//	A 12, 6, 4, 3   best 3/12 = 0.25, step 4 (3/12), speedup 4
//	B 20, 10, 10, 1 best 1/20 = 0.05, step 2 (10/20), speedup 20
//	C 30, 30, 30, 30 best 1, step 1 (1), speedup 1
//
// Stretch (0.25 + 0.05 + 1)/3, StepStretch (0.25 + 0.5 + 1)/3, StepFlow
// max(3, 10, 30) = 30, steps {1, 2, 4}: median 2, all below 11; speedups
// below 10: A and C.
func TestFloor(t *testing.T) {
	tasks := []MoldTask{
		{Times: []float64{12, 6, 4, 3}},
		{Times: []float64{20, 10, 10, 1}},
		{Times: []float64{30, 30, 30, 30}},
	}
	got := Floor(tasks)
	want := SpeedupFloor{Stretch: 1.3 / 3, StepStretch: 1.75 / 3, StepFlow: 30, StepMedian: 2, StepBelow11: 1, SpeedupBelow10: 2.0 / 3}
	if math.Abs(got.Stretch-want.Stretch) > 1e-12 || math.Abs(got.StepStretch-want.StepStretch) > 1e-12 ||
		got.StepFlow != want.StepFlow || got.StepMedian != want.StepMedian || got.StepBelow11 != want.StepBelow11 || math.Abs(got.SpeedupBelow10-want.SpeedupBelow10) > 1e-12 {
		t.Errorf("Floor = %+v, want %+v", got, want)
	}
	if (Floor(nil) != SpeedupFloor{}) {
		t.Errorf("Floor(nil) = %+v, want zero", Floor(nil))
	}
	// A task that speeds up all the way to 16 processors: step 16, not
	// below 11, speedup 16 (not below 10).
	lin := make([]float64, 16)
	for j := range lin {
		lin[j] = 16 / float64(j+1)
	}
	if f := Floor([]MoldTask{{Times: lin}}); f.StepMedian != 16 || f.StepBelow11 != 0 || f.SpeedupBelow10 != 0 || f.Stretch != 1.0/16 || f.StepFlow != 1 {
		t.Errorf("linear task: Floor = %+v, want step 16, shares 0, stretch 1/16, step flow 1", f)
	}
}

func TestSSMScaled(t *testing.T) {
	if DefaultSSM.Scaled(1) != DefaultSSM {
		t.Errorf("Scaled(1) = %+v, want %+v", DefaultSSM.Scaled(1), DefaultSSM)
	}
	s := DefaultSSM.Scaled(0.1)
	want := SSM{A: DefaultSSM.A * 0.1, B: DefaultSSM.B * 0.1, C: DefaultSSM.C, D: DefaultSSM.D * 0.1, E: DefaultSSM.E * 0.1, K: DefaultSSM.K}
	if s != want {
		t.Errorf("Scaled(0.1) = %+v, want %+v", s, want)
	}
}

// No algorithm's average stretch is below the instance's stretch_floor, and
// Iterative's is not below step_stretch_floor nor its maximum flow time
// below step_flow_floor; sequential runs report 1 (the step flow floor:
// the longest task).
func TestFloorMetrics(t *testing.T) {
	m := New(nil)
	for _, scale := range []float64{1, 0.05} {
		for _, alg := range []string{FCFSSeq, DBOS, Iterative, ImprovedIter, SCOJOP} {
			r := modeltest.Run(t, m, simcore.Params{"problem": "moldable", "workload": "ssm", "algorithm": alg,
				"n_tasks": int64(150), "m": int64(32), "load": 10.0, "ssm_scale": scale}, 5)
			mean, floor, step := r.Metrics["mean_stretch"].(float64), r.Metrics["stretch_floor"].(float64), r.Metrics["step_stretch_floor"].(float64)
			if !(floor > 0 && floor <= step && step <= 1) {
				t.Errorf("scale %v %s: stretch_floor %v, step_stretch_floor %v: want 0 < floor ≤ step ≤ 1", scale, alg, floor, step)
			}
			if mean < floor*(1-1e-12) {
				t.Errorf("scale %v %s: mean_stretch %v below stretch_floor %v", scale, alg, mean, floor)
			}
			if alg == Iterative && mean < step*(1-1e-12) {
				t.Errorf("scale %v: Iterative's mean_stretch %v below step_stretch_floor %v", scale, mean, step)
			}
			maxFlow, stepFlow, bound := r.Metrics["max_flow"].(float64), r.Metrics["step_flow_floor"].(float64), r.Metrics["flow_bound"].(float64)
			if !(stepFlow >= bound) || r.Metrics["max_flow_to_step_floor"] != maxFlow/stepFlow {
				t.Errorf("scale %v %s: step_flow_floor %v below flow_bound %v, or max_flow_to_step_floor %v ≠ %v/%v", scale, alg, stepFlow, bound, r.Metrics["max_flow_to_step_floor"], maxFlow, stepFlow)
			}
			if alg == Iterative && maxFlow < stepFlow*(1-1e-12) {
				t.Errorf("scale %v: Iterative's max_flow %v below step_flow_floor %v", scale, maxFlow, stepFlow)
			}
		}
	}
	r := modeltest.Run(t, m, simcore.Params{"problem": "sequential", "algorithm": FCFS, "n_tasks": int64(100), "m": int64(4), "load": 3.0}, 1)
	if r.Metrics["stretch_floor"] != 1.0 || r.Metrics["first_step_median"] != int64(1) {
		t.Errorf("sequential: stretch_floor %v, first_step_median %v, want 1 and 1", r.Metrics["stretch_floor"], r.Metrics["first_step_median"])
	}
	if r.Metrics["step_flow_floor"] != r.Metrics["flow_bound"] || r.Metrics["max_flow_to_step_floor"] != r.Metrics["max_flow_to_bound"] {
		t.Errorf("sequential: step_flow_floor %v, max_flow_to_step_floor %v, want flow_bound %v and max_flow_to_bound %v",
			r.Metrics["step_flow_floor"], r.Metrics["max_flow_to_step_floor"], r.Metrics["flow_bound"], r.Metrics["max_flow_to_bound"])
	}
}
