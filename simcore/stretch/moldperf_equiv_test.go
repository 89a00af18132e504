package stretch

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// randomMoldInstance draws n tasks on P processors with a table kind:
// "downey" (Downey's model), "steps" (random non-increasing runtimes with
// plateaus and integer values, so ties in ends and gains are common) or
// "ssm" (the short-sequence-mapping model); releases come in bursts (many
// tasks released at one instant) at about the given load.
func randomMoldInstance(r *rand.Rand, kind string, n, P int, load float64) []MoldTask {
	if kind == "ssm" {
		tasks, err := SSMInstance(n, P, load, DefaultSSM, r.Uint64())
		if err != nil {
			panic(err)
		}
		return tasks
	}
	tasks := make([]MoldTask, n)
	sum := 0.0
	for i := range tasks {
		T := make([]float64, P)
		switch kind {
		case "downey":
			p := 1 + r.IntN(P)
			A := float64(p) + r.Float64()*float64(P-p)
			DowneyTimes(T, A, 2*r.Float64(), p, 1+math.Floor(1000*r.Float64()))
		default:
			T[0] = float64(1 + r.IntN(500))
			for j := 1; j < P; j++ {
				T[j] = T[j-1]
				if r.IntN(3) == 0 {
					T[j] = math.Max(1, T[j-1]-float64(r.IntN(int(T[j-1])/2+1)))
				}
			}
		}
		tasks[i].Times = T
		sum += T[0]
	}
	gap := sum / float64(n) / load
	rel := 0.0
	for i := range tasks {
		if r.IntN(4) != 0 { // a quarter of the tasks arrive with the previous one
			rel += math.Round(r.ExpFloat64() * gap)
		}
		tasks[i].Release = rel
	}
	return tasks
}

// The optimised planners against the originals (moldperf_ref_test.go) on
// random instances of every table kind, at light and heavy loads: the
// same start, end and size for every task, bit for bit.
func TestMoldableMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 10))
	trials := 24
	if testing.Short() {
		trials = 4
	}
	type alg struct {
		name string
		cfg  MoldConfig
		ref  func(n int) planner
	}
	algs := []alg{
		{"DBOS/1", MoldConfig{Algorithm: DBOS, Rho: 1}, func(int) planner { return &refDBOS{rho: 1, tol: 1e-4} }},
		{"DBOS/1.5", MoldConfig{Algorithm: DBOS, Rho: 1.5}, func(int) planner { return &refDBOS{rho: 1.5, tol: 1e-4} }},
		{"DBOS/3", MoldConfig{Algorithm: DBOS, Rho: 3}, func(int) planner { return &refDBOS{rho: 3, tol: 1e-4} }},
		{Iterative, MoldConfig{Algorithm: Iterative}, func(int) planner { return &refIterative{} }},
		{ImprovedIter, MoldConfig{Algorithm: ImprovedIter}, func(int) planner { return &refIterative{improved: true} }},
		{SCOJOP, MoldConfig{Algorithm: SCOJOP}, func(n int) planner { return newRefScojo(n) }},
	}
	for trial := range trials {
		kind := []string{"downey", "steps", "ssm"}[trial%3]
		P := []int{8, 16, 32, 64}[r.IntN(4)]
		load := float64(P) * (0.3 + 1.2*r.Float64())
		tasks := randomMoldInstance(r, kind, 60+r.IntN(140), P, load)
		for _, a := range algs {
			cfg := a.cfg
			cfg.P = P
			name := fmt.Sprintf("trial %d (%s, P=%d, load %.0f, %d tasks) %s", trial, kind, P, load, len(tasks), a.name)
			got := simMold(t, tasks, cfg)
			cfg.Tol = 1e-4
			want, err := simulateMold(context.Background(), tasks, cfg, a.ref(len(tasks)))
			if err != nil {
				t.Fatalf("%s: reference: %v", name, err)
			}
			for i := range tasks {
				if math.Float64bits(got.Start[i]) != math.Float64bits(want.Start[i]) ||
					math.Float64bits(got.End[i]) != math.Float64bits(want.End[i]) || got.Procs[i] != want.Procs[i] {
					t.Fatalf("%s: task %d: start %v end %v on %d, reference %v %v on %d", name, i,
						got.Start[i], got.End[i], got.Procs[i], want.Start[i], want.End[i], want.Procs[i])
				}
			}
			if got.Decisions != want.Decisions {
				t.Fatalf("%s: %d decisions, reference %d", name, got.Decisions, want.Decisions)
			}
		}
	}
}
