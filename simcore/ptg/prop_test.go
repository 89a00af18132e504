package ptg

import (
	"math"
	"testing"
)

// TestPropertiesRandomSets: for random PTG sets of every class on every
// cluster, every algorithm's schedule passes the independent checker
// (capacity, one task per processor at a time, non-preemption, PTG
// precedence), its makespan is at least the largest critical path with the
// best allocations (every task on all P processors) and the total minimal
// area over P, and the number of PTGs finishing before their
// dedicated-cluster C* is counted (casanova2010 §5.2.1's HCPA-bound case).
func TestPropertiesRandomSets(t *testing.T) {
	seeds := uint64(6)
	if testing.Short() {
		seeds = 2
	}
	faster, ptgs := map[string]int{}, map[string]int{}
	for seed := range seeds {
		for ci, cl := range Clusters {
			class := []string{"random", "fft", "strassen"}[(int(seed)+ci)%3]
			n := 2 + 2*int((seed+uint64(ci))%5)
			if testing.Short() && cl.Procs > 100 {
				n = min(n, 4)
			}
			inst := randomInstance(seed*10+uint64(ci), class, n, cl)
			lbCP, lbArea := 0.0, 0.0
			speed := cl.GFlops * 1e9
			for i, g := range inst.Graphs {
				pb := newProblem(g, speed, i)
				full := make([]int, pb.len())
				for v := range full {
					full[v] = cl.Procs
				}
				lbCP = math.Max(lbCP, criticalPath(pb, full))
				for _, s := range pb.seq {
					lbArea += s
				}
			}
			lbArea /= float64(cl.Procs)
			for _, alg := range Algorithms {
				o := run(t, inst, alg)
				if err := validate(o, cl.Procs); err != nil {
					t.Fatalf("seed %d %s %s N=%d %s: %v", seed, cl.Name, class, n, alg, err)
				}
				m := o.Measure(cl.Procs)
				if m.Makespan < lbCP*(1-1e-9) || m.Makespan < lbArea*(1-1e-9) {
					t.Errorf("seed %d %s %s: makespan %v below the bounds CP %v, area %v", seed, cl.Name, alg, m.Makespan, lbCP, lbArea)
				}
				if m.Utilisation > 1+1e-9 || m.AvgStretch <= 0 || m.MaxStretch < m.AvgStretch*(1-1e-9) && m.Faster == 0 {
					t.Errorf("seed %d %s %s: %+v", seed, cl.Name, alg, m)
				}
				faster[alg] += m.Faster
				ptgs[alg] += n
			}
		}
	}
	for _, alg := range Algorithms {
		if faster[alg] > 0 {
			t.Logf("%-16s %3d of %d PTGs finished before their dedicated-cluster C*", alg, faster[alg], ptgs[alg])
		}
	}
}

// TestBackfillingNeverDelays: on SELFISH-style shared schedules of random
// sets, the compaction moves tasks only earlier, and the result is valid.
func TestBackfillingNeverDelays(t *testing.T) {
	for seed := range uint64(20) {
		cl := Clusters[seed%4]
		inst := randomInstance(seed+100, []string{"random", "fft", "strassen"}[seed%3], 2+int(seed%9), cl)
		var parts []*problem
		for i, g := range inst.Graphs {
			parts = append(parts, newProblem(g, cl.GFlops*1e9, i))
		}
		u, _ := union(parts)
		alloc := allocate(u, cl.Procs, DefaultHCPA)
		bl := u.bottomLevels(alloc, nil)
		order := sortedTasks(u, func(v int) float64 { return -bl[v] }, nil, make([]float64, u.len()))
		pl := newPlan(u.len())
		mapStatic(u, alloc, order, cl.Procs, 0, pl)
		before := append([]float64(nil), pl.start...)
		if _, err := compact(u, cl.Procs, 0, pl); err != nil {
			t.Fatal(err)
		}
		for v := range before {
			if pl.start[v] > before[v]+1e-12 {
				t.Fatalf("seed %d: task %d delayed from %v to %v", seed, v, before[v], pl.start[v])
			}
		}
		procs, err := assignProcessors(pl, cl.Procs)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		o := &Outcome{Alloc: pl.alloc, Start: pl.start, End: pl.end, Procs: procs}
		for v := range u.len() {
			for _, w := range u.succ[v] {
				o.Edges = append(o.Edges, [2]int{v, w})
			}
		}
		if err := validate(o, cl.Procs); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
	}
}

// TestOrderBeatsSelfishOnFairness is the paper's main fairness finding on
// a small population (§5.2.3): SELFISH_ORDER's mean maximum stretch is
// below SELFISH's.
func TestOrderBeatsSelfishOnFairness(t *testing.T) {
	var self, order float64
	for seed := range uint64(8) {
		cl := Clusters[seed%4]
		inst := randomInstance(seed+500, "random", 6, cl)
		self += run(t, inst, Selfish).Measure(cl.Procs).MaxStretch
		order += run(t, inst, SelfishOrder).Measure(cl.Procs).MaxStretch
	}
	if !(order < self) {
		t.Errorf("mean max stretch: SELFISH_ORDER %v, SELFISH %v", order/8, self/8)
	}
}
