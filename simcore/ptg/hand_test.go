package ptg

import (
	"context"
	"math"
	"testing"

	"schedfarm/simcore/ptg/dag"
	"schedfarm/simcore/rng"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// fork is A → B, A → C with T(A,1) = 10 s, T(B,1) = 8 s, T(C,1) = 4 s and
// α = 0 on a 1 GFlop/s processor.
func fork() *dag.Graph {
	g := dag.New(3)
	g.Tasks[0] = dag.Task{Ops: 10e9}
	g.Tasks[1] = dag.Task{Ops: 8e9}
	g.Tasks[2] = dag.Task{Ops: 4e9}
	g.AddEdge(0, 1)
	g.AddEdge(0, 2)
	return g
}

// TestHCPAByHand follows the allocation loop on the fork with P = 4 (T_A =
// 22/4 = 5.5 throughout since α = 0):
//
//	step  bl(A)   path  gains (A, B|C)           pick
//	1     18      A→B   7.5, 6                   A=2
//	2     13      A→B   1.389, 6                 B=2
//	3     9       A→B   1.389, 1.111             A=3   (B and C tie at 4: first child)
//	4     7.333   A→B   0.486, 1.111             B=3   (level 1 now uses 4 processors)
//	5     7.333   A→C   0.486, C refused (cap)   A=4
//	6     6.5     A→C   A at P, C refused        stop
//
// Mapping by decreasing bl (A 6.5, C 4, B 2.667): A [0, 2.5) on 4, C [2.5, 6.5)
// on 1, B [2.5, 5.167) on 3; makespan 6.5.
func TestHCPAByHand(t *testing.T) {
	pb := newProblem(fork(), 1e9, 0)
	alloc := allocate(pb, 4, DefaultHCPA)
	if alloc[0] != 4 || alloc[1] != 3 || alloc[2] != 1 {
		t.Fatalf("allocations %v, want [4 3 1]", alloc)
	}
	a, err := scheduleAlone(pb, 4, DefaultHCPA, make([]float64, 3))
	if err != nil {
		t.Fatal(err)
	}
	want := [][2]float64{{0, 2.5}, {2.5, 2.5 + 8.0/3}, {2.5, 6.5}}
	for v, w := range want {
		if !near(a.pl.start[v], w[0]) || !near(a.pl.end[v], w[1]) {
			t.Errorf("task %d at [%v, %v), want [%v, %v)", v, a.pl.start[v], a.pl.end[v], w[0], w[1])
		}
	}
	if !near(a.makespan, 6.5) {
		t.Errorf("makespan %v, want 6.5", a.makespan)
	}
	// Without the level cap C also grows: step 5 picks C (gain 3 > 0.486).
	if alloc := allocate(pb, 4, HCPAOptions{}); alloc[2] < 2 {
		t.Errorf("no level cap: allocations %v, want C > 1", alloc)
	}
}

// twoTasks is two single-task PTGs on 2 processors at 1 GFlop/s: X with
// T(1) = 10 s and Y with T(1) = 2 s, both α = 0.5. Alone, HCPA gives each
// 2 processors (X: T_CP 10 > T_A 5, then 7.5 = 7.5 stops; Y likewise), so
// C*_X = 7.5 and C*_Y = 1.5.
func twoTasks() Instance {
	x, y := dag.New(1), dag.New(1)
	x.Tasks[0] = dag.Task{Ops: 10e9, Alpha: 0.5}
	y.Tasks[0] = dag.Task{Ops: 2e9, Alpha: 0.5}
	return Instance{Graphs: []*dag.Graph{x, y}, Cluster: Cluster{Name: "t", Procs: 2, GFlops: 1}}
}

func TestAlgorithmsByHand(t *testing.T) {
	for _, c := range []struct {
		alg                      string
		avg, max, makespan, util float64
	}{
		// X then Y (bl 7.5 > 1.5): C_X = 7.5, C_Y = 9.
		{Selfish, 16.5 / 9, 6, 9, 1},
		// Y first (shorter C*): C_Y = 1.5, C_X = 9.
		{SelfishOrder, 10.5 / 9, 1.2, 9, 1},
		// bl/C*²: X 7.5/56.25 = 0.133 < Y 1.5/2.25 = 0.667: Y first.
		{SelfishWeight, 10.5 / 9, 1.2, 9, 1},
		// one processor each, both start at 0: C_X = 10, C_Y = 2.
		{CRANdags, 12.0 / 9, 4.0 / 3, 10, 0.6},
	} {
		o := run(t, twoTasks(), c.alg)
		if err := validate(o, 2); err != nil {
			t.Fatalf("%s: %v", c.alg, err)
		}
		if !near(o.CStar[0], 7.5) || !near(o.CStar[1], 1.5) {
			t.Fatalf("C* = %v, want [7.5 1.5]", o.CStar)
		}
		m := o.Measure(2)
		if !near(m.AvgStretch, c.avg) || !near(m.MaxStretch, c.max) || !near(m.Makespan, c.makespan) || !near(m.Utilisation, c.util) {
			t.Errorf("%s: %+v, want avg %v max %v makespan %v util %v", c.alg, m, c.avg, c.max, c.makespan, c.util)
		}
	}
}

// TestMapperWindow: processors free at 0, 1, 3, 5; a 3-processor task
// ready at 2 takes those free by then, latest first (1, 0), then the one
// free soonest after (3): start 3. Then a 2-processor task ready at 6
// takes the one free at 5 and one free at 7: start 7.
func TestMapperWindow(t *testing.T) {
	m := &mapper{free: []float64{0, 1, 3, 5}}
	if s := m.place(3, 4, 2); s != 3 {
		t.Errorf("start %v, want 3", s)
	}
	if want := []float64{5, 7, 7, 7}; !equal(m.free, want) {
		t.Errorf("free %v, want %v", m.free, want)
	}
	if s := m.place(2, 1, 6); s != 7 {
		t.Errorf("start %v, want 7", s)
	}
	if want := []float64{7, 7, 8, 8}; !equal(m.free, want) {
		t.Errorf("free %v, want %v", m.free, want)
	}
}

func equal(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !near(a[i], b[i]) {
			return false
		}
	}
	return true
}

// TestCompactionFillsHole: on 2 processors, A (2 procs, 1 s) then B (1
// proc, 4 s) then C (2 procs, 1 s), then D (1 proc, 2 s, no predecessor)
// mapped last by the free-time mapper at 5 — compaction moves D into the
// hole next to B at 1 without delaying anyone.
func TestCompactionFillsHole(t *testing.T) {
	pb := &problem{seq: []float64{2, 4, 2, 2}, alpha: []float64{0, 0, 0, 0},
		succ: [][]int{{1}, {2}, nil, nil}, pred: [][]int{nil, {0}, {1}, nil}}
	pb.finish()
	pl := newPlan(4)
	mapStatic(pb, []int{2, 1, 2, 1}, []int{0, 1, 2, 3}, 2, 0, pl)
	if pl.start[3] != 6 {
		t.Fatalf("D mapped at %v, want 6 (after C)", pl.start[3])
	}
	before := append([]float64(nil), pl.start...)
	moved, err := compact(pb, 2, 0, pl)
	if err != nil {
		t.Fatal(err)
	}
	if moved != 1 || pl.start[3] != 1 || pl.end[3] != 3 {
		t.Errorf("moved %d, D at [%v, %v), want 1 task, [1, 3)", moved, pl.start[3], pl.end[3])
	}
	for v := range before {
		if pl.start[v] > before[v] {
			t.Errorf("task %d delayed from %v to %v", v, before[v], pl.start[v])
		}
	}
}

func TestMRTAndShelves(t *testing.T) {
	// Two identical perfectly parallel jobs of work 8 on m = 4: t(p) = 8/p.
	// Optimum 4 (both on 2 processors, or side by side); the dual
	// approximation accepts a λ within 1% of a value <= 4·(3/2).
	mk := func(work float64, m int) *moldableJob {
		j := &moldableJob{t: make([]float64, m), best: make([]int, m)}
		for p := 1; p <= m; p++ {
			j.t[p-1], j.best[p-1] = work/float64(p), p
		}
		return j
	}
	jobs := []*moldableJob{mk(8, 4), mk(8, 4)}
	lambda, allot := mrt(jobs, 4)
	if lambda < 4-1e-9 || lambda > 6*1.01 || allot[0]+allot[1] > 8 {
		t.Errorf("λ = %v allot %v", lambda, allot)
	}
	if _, ok := mrtTest(jobs, 4, 1.9); ok {
		t.Error("λ = 1.9 accepted: below the work bound 16/4 = 4 ... and t(4) = 2")
	}
	if g := jobs[0].gamma(3); g != 3 {
		t.Errorf("γ(3) = %d, want 3 (8/3 <= 3)", g)
	}
	// Unit-weight knapsack: weights 3, 2, 2, capacity 4 → the two 2s.
	if got := knapsackCount([]int{3, 2, 2}, []float64{1, 1, 1}, 4); len(got) != 2 || got[0] != 1 || got[1] != 2 {
		t.Errorf("knapsack %v, want [1 2]", got)
	}
	// K-shelves: a short job and a long one; the short one goes in an
	// earlier shelf than the long one.
	jobs = []*moldableJob{mk(16, 4), mk(1, 4)}
	omega, allot := mrt(jobs, 4)
	boxes := kShelves(jobs, 4, omega, allot)
	if !(boxes[1].start < boxes[0].start) {
		t.Errorf("boxes %+v: the short job should start first (ω = %v)", boxes, omega)
	}
}

// TestAllocateAllMatchesDirectRuns: the replayed allocations for every
// bound equal separate runs.
func TestAllocateAllMatchesDirectRuns(t *testing.T) {
	for seed := range uint64(12) {
		inst := randomInstance(seed, []string{"random", "fft", "strassen"}[seed%3], 1, Cluster{"t", 24 + int(seed), 3})
		pb := newProblem(inst.Graphs[0], 3e9, 0)
		for _, opt := range []HCPAOptions{DefaultHCPA, {}, {LevelCap: true, MaxInflation: 1.5}, {SeedRule: true, LevelCap: true}} {
			all := allocateAll(pb, inst.Cluster.Procs, opt)
			for p := 1; p <= inst.Cluster.Procs; p++ {
				want := allocate(pb, p, opt)
				for v := range want {
					if all[p-1][v] != want[v] {
						t.Fatalf("seed %d %+v p %d: replay %v, direct %v", seed, opt, p, all[p-1], want)
					}
				}
			}
		}
	}
	_ = context.Background
	_ = rng.New
}
