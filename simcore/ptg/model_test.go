package ptg

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"schedfarm/simcore"
	"schedfarm/simcore/modeltest"
)

func TestModelRunTablesAndDeterminism(t *testing.T) {
	m := New(simcore.Dirs{"testdata"})
	for _, alg := range []string{Selfish, CRAWorkWeight, CAFMKShelves, F2, C4} {
		p := simcore.Params{"algorithm": alg, "n_ptgs": 4, "cluster": "chti", "ptg_class": "random",
			"schedule_table": true, "ptg_table": true}
		a := modeltest.RoundTrip(t, m, p, 42)
		sched := a.Tables["schedule"]
		if sched.Len() != int(a.Metrics["tasks"].(int64)) {
			t.Errorf("%s: %d schedule rows for %d tasks", alg, sched.Len(), a.Metrics["tasks"])
		}
		ptgs := a.Tables["ptgs"]
		if ptgs.Len() != 4 {
			t.Errorf("%s: %d PTG rows", alg, ptgs.Len())
		}
		// The table agrees with the metrics: max stretch, makespan.
		mx, mk := 0.0, 0.0
		for i, s := range ptgs.Columns["stretch"].([]float64) {
			mx = max(mx, s)
			mk = max(mk, ptgs.Columns["completion"].([]float64)[i])
		}
		if mx != a.Metrics["max_stretch"].(float64) || mk != a.Metrics["makespan"].(float64) {
			t.Errorf("%s: table max stretch %v / makespan %v, metrics %v / %v", alg, mx, mk, a.Metrics["max_stretch"], a.Metrics["makespan"])
		}
		// The schedule table alone passes the checker.
		modeltest.Schedule(t, a, 20, scheduleLayout, 1e-9)
	}
	// Algorithms see one instance (common random numbers): same Σ C*.
	x := modeltest.Run(t, m, simcore.Params{"algorithm": Selfish, "n_ptgs": 3}, 9)
	y := modeltest.Run(t, m, simcore.Params{"algorithm": CAFMSAF, "n_ptgs": 3}, 9)
	if x.Metrics["sum_cstar"] != y.Metrics["sum_cstar"] {
		t.Errorf("Σ C* differs across algorithms: %v vs %v", x.Metrics["sum_cstar"], y.Metrics["sum_cstar"])
	}
}

func TestModelFiles(t *testing.T) {
	m := New(simcore.Dirs{"testdata"})
	res := modeltest.Run(t, m, simcore.Params{"ptg_class": "files", "ptg_files": "small.dot, small.dag", "n_ptgs": 3,
		"algorithm": SelfishOrder, "ptg_table": true}, 1)
	if got := res.Tables["ptgs"].Columns["ptg_tasks"].([]int64); !reflect.DeepEqual(got, []int64{10, 10, 10}) {
		t.Errorf("tasks per PTG %v", got)
	}
}

func TestModelBadParams(t *testing.T) {
	m := New(simcore.Dirs{"testdata"})
	s := m.Schema()
	for _, c := range []struct {
		p    simcore.Params
		want string
	}{
		{simcore.Params{"ptg_class": "files"}, "ptg_files"},
		{simcore.Params{"ptg_files": "small.dot"}, "set ptg_class: files"},
		{simcore.Params{"fft_points": 6, "ptg_class": "fft"}, "power of two"},
		{simcore.Params{"hcpa_max_inflation": 0.5}, "hcpa_max_inflation"},
		{simcore.Params{"ptg_class": "files", "ptg_files": "nope.dot"}, "nope.dot"},
		{simcore.Params{"ptg_class": "files", "ptg_files": "small.txt"}, "extension"},
	} {
		full, err := s.Complete(c.p)
		if err != nil {
			t.Fatal(err)
		}
		_, err = m.Run(context.Background(), full, 1)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want it to mention %q", c.p, err, c.want)
		}
	}
	if _, err := s.Complete(simcore.Params{"algorithm": "SELFISH_FAST"}); err == nil {
		t.Error("unknown algorithm accepted")
	}
}

func TestModelMixedScenarios(t *testing.T) {
	m := New(nil)
	ns, classes, clusters := map[int64]int{}, map[string]int{}, map[string]int{}
	for seed := range uint64(60) {
		res := modeltest.Run(t, m, simcore.Params{"n_ptgs": 0, "ptg_class": "mixed", "cluster": "mixed", "algorithm": CRAWork, "ptg_table": true}, seed)
		clusters[res.Metrics["scenario_cluster"].(string)]++
		n := res.Metrics["scenario_n"].(int64)
		ns[n]++
		classes[res.Metrics["scenario_class"].(string)]++
		if int64(res.Tables["ptgs"].Len()) != n {
			t.Fatalf("seed %d: %d PTGs for scenario_n %d", seed, res.Tables["ptgs"].Len(), n)
		}
	}
	if len(ns) != 5 || len(classes) != 3 || len(clusters) != 4 {
		t.Errorf("drawn N %v, classes %v, clusters %v: want all of {2..10}, the three classes and the four clusters", ns, classes, clusters)
	}
}
