package stretch

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"schedfarm/simcore"
	"schedfarm/simcore/modeltest"
)

// seqPins are hashes of the executed schedules (start, end, part, node of
// every task, then best_x and best_t) of the sequential model on a
// mid-size instance (2,000 tasks, 50 processors, load 49.5 for three Δ, and a
// lighter load where grid trials tie), computed with
// the code before the reservation scheme was optimised. Every optimisation
// must keep them: decisions may not change.
var seqPins = map[string]uint64{
	"FCFS/delta=5/load=49.5/none":      0xbb5be548d9524894, // max stretch 3.9082800379091265, X 0, T 0
	"FCFS/delta=5/load=49.5/fixed":     0xc6eced798fc3a602, // max stretch 3.634800108482472, X 5, T 1.5
	"FCFS/delta=5/load=49.5/best":      0x6fdf813474cf91e8, // max stretch 3.051706326894489, X 20, T 1.2
	"DASEDF/delta=5/load=49.5/none":    0xd35118aaf30cfe97, // max stretch 2.2392766109172833, X 0, T 0
	"DASEDF/delta=5/load=49.5/fixed":   0x35fd2390647052fb, // max stretch 2.399043553022602, X 5, T 1.5
	"DASEDF/delta=5/load=49.5/best":    0x104c5d5b65906f8c, // max stretch 2.2159848024288245, X 30, T 1.2
	"FCFS/delta=30/load=49.5/none":     0x620002ebf9a278e3, // max stretch 14.758254410323659, X 0, T 0
	"FCFS/delta=30/load=49.5/fixed":    0x98dce4efe74b6b5a, // max stretch 10.620787312437633, X 5, T 1.5
	"FCFS/delta=30/load=49.5/best":     0x13697c49c7b7ded0, // max stretch 5.975137120238681, X 2, T 6
	"DASEDF/delta=30/load=49.5/none":   0xb9ad384b358602,   // max stretch 2.149828865702396, X 0, T 0
	"DASEDF/delta=30/load=49.5/fixed":  0xae3e2dd752cce0e1, // max stretch 2.359091374170184, X 5, T 1.5
	"DASEDF/delta=30/load=49.5/best":   0x4ac925a5e49132da, // max stretch 2.135675176103865, X 1, T 1.2
	"FCFS/delta=100/load=49.5/none":    0xa661efee0203966c, // max stretch 38.141380288976485, X 0, T 0
	"FCFS/delta=100/load=49.5/fixed":   0xae6d19d7371e7307, // max stretch 31.855598648413995, X 5, T 1.5
	"FCFS/delta=100/load=49.5/best":    0xeb8723cb13506403, // max stretch 6.402525603570278, X 2, T 6
	"DASEDF/delta=100/load=49.5/none":  0x967e1b2a59afb87f, // max stretch 2.3140463203561845, X 0, T 0
	"DASEDF/delta=100/load=49.5/fixed": 0x5734050204b17142, // max stretch 2.4349717990807638, X 5, T 1.5
	"DASEDF/delta=100/load=49.5/best":  0x86dd6a4450097c74, // max stretch 2.2666314021527305, X 20, T 1.2
	"FCFS/delta=20/load=46/none":       0x117035ddadf06174, // max stretch 3.126765463834937, X 0, T 0
	"FCFS/delta=20/load=46/fixed":      0x68ae9b6bb0d4532a, // max stretch 3.0701061641679406, X 5, T 1.5
	"FCFS/delta=20/load=46/best":       0x422d6e966b318590, // max stretch 2.4920952005730053, X 1, T 2.5
	"DASEDF/delta=20/load=46/none":     0xa0de7e965f624433, // max stretch 1.4881981183884212, X 0, T 0
	"DASEDF/delta=20/load=46/fixed":    0x4e1afec6e0c0273f, // max stretch 1.7071950050132543, X 5, T 1.5
	"DASEDF/delta=20/load=46/best":     0xdd774d85400f4db2, // max stretch 1.4902940239129052, X 30, T 1.2
}

// scheduleHash is FNV-1a over the bits of start, end, part and node of
// every task of the schedule table, then best_x and best_t.
func scheduleHash(t *testing.T, r *simcore.Result) uint64 {
	t.Helper()
	start, end := modeltest.Column[float64](t, r, "schedule", "start"), modeltest.Column[float64](t, r, "schedule", "end")
	part, node := modeltest.Column[int64](t, r, "schedule", "part"), modeltest.Column[int64](t, r, "schedule", "node")
	h := modeltest.NewHash()
	for i := range start {
		h.Float(start[i], end[i])
		h.Int(part[i], node[i])
	}
	h.Int(r.Metrics["best_x"].(int64))
	h.Float(r.Metrics["best_t"].(float64))
	return h.Sum()
}

// TestSeqSchedulesPinned runs FCFS and DASEDF without reservation, with a
// fixed (X, T) and with the best (X, T) of the paper's grids, for four
// (Δ, load), and compares the schedules with the pinned hashes.
func TestSeqSchedulesPinned(t *testing.T) {
	m := New(nil)
	got := map[string]uint64{}
	for _, c := range []struct{ delta, load float64 }{{5, 49.5}, {30, 49.5}, {100, 49.5}, {20, 46}} {
		for _, alg := range []string{FCFS, DASEDF} {
			for _, res := range []string{"none", "fixed", "best"} {
				name := fmt.Sprintf("%s/delta=%v/load=%v/%s", alg, c.delta, c.load, res)
				p := seqParams(map[string]any{"n_tasks": int64(2000), "m": int64(50), "load": c.load, "delta": c.delta,
					"algorithm": alg, "reservation": res, "reservation_x": int64(5), "reservation_t": 1.5,
					"schedule_table": true})
				r, err := m.Run(context.Background(), p, 7)
				if err != nil {
					t.Fatal(err)
				}
				got[name] = scheduleHash(t, r)
			}
		}
	}
	modeltest.Pins(t, seqPins, got)
}

// bestTrial (which abandons trials that can no longer win, in any order of
// evaluation) picks the same
// trial as simulating every trial of the grid to the end and keeping the
// first with the lowest max stretch (the grid is listed twice, so every
// trial ties with its twin), and returns that trial's full
// outcome; an abandoned trial's final max stretch really is at least the
// bound it was abandoned at.
func TestBestTrialMatchesExhaustive(t *testing.T) {
	grids := map[string][]float64{FCFS: GridTFCFS, DASEDF: GridTEDF}
	for seed, c := range []struct{ delta, load float64 }{{3, 19.6}, {10, 19.6}, {30, 19.6}, {100, 19.6}, {10, 17}, {30, 18}, {10, 6}, {30, 15}, {5, 16}, {10, 12}, {30, 13}, {3, 14}} {
		tasks, _, err := SeqWorkload{N: 600, A: 1, Delta: c.delta, Load: c.load}.Generate(uint64(seed))
		if err != nil {
			t.Fatal(err)
		}
		for _, alg := range []string{FCFS, DASEDF} {
			var trials []Trial
			for _, x := range []int{10, 1, 5, 2} { // not ascending: the first trial is not the best at light loads
				for _, tt := range grids[alg] {
					trials = append(trials, Trial{x, tt})
				}
			}
			// Ties: the grid again, reversed; each winner has a twin later.
			for j := len(trials) - 1; j >= 0; j-- {
				trials = append(trials, trials[j])
			}
			cfg := SeqConfig{M: 20, Algorithm: alg}
			all := make([]*SeqOutcome, len(trials))
			want := 0
			for j, tr := range trials {
				c := cfg
				c.X, c.T = tr.X, tr.T
				all[j] = simSeq(t, tasks, c)
				if all[j].MaxStretch < all[want].MaxStretch {
					want = j
				}
				// The same run with a bound it never reaches is identical.
				c.Abandon = all[j].MaxStretch + 1
				if again := simSeq(t, tasks, c); !reflect.DeepEqual(again, all[j]) {
					t.Fatalf("%s case %d trial %v: a bound not reached changes the run", alg, seed, tr)
				}
				// With the bound at its own max stretch, it is abandoned.
				c.Abandon = all[j].MaxStretch
				if out, err := SimulateSeq(context.Background(), tasks, c); err != nil || !out.Abandoned {
					t.Fatalf("%s case %d trial %v: not abandoned at its own max stretch (%v)", alg, seed, tr, err)
				}
			}
			// In the default order, in reverse grid order (ties are then met
			// after their winner) and in a random one.
			rev := make([]int, len(trials))
			for j := range rev {
				rev[j] = len(trials) - 1 - j
			}
			rnd := rand.New(rand.NewPCG(uint64(seed), 5)).Perm(len(trials))
			for _, order := range [][]int{evalOrder(trials), rev, rnd} {
				got, gi, err := bestTrialIn(context.Background(), tasks, cfg, trials, order)
				if err != nil {
					t.Fatal(err)
				}
				if gi != want || !reflect.DeepEqual(got, all[want]) {
					t.Errorf("%s case %d, order %v: bestTrial chose %v (max stretch %v), exhaustive %v (%v)", alg, seed, order[:4],
						trials[gi], got.MaxStretch, trials[want], all[want].MaxStretch)
				}
			}
		}
	}
}

// decide's sure answers are feasible's answers, on random queues and at
// target stretches from far below to far above S* and within a few
// tolerances of it (where the bucket bounds are tight).
func TestDecideAgreesWithFeasible(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 11))
	sure, unsure := 0, 0
	for trial := range 60 {
		m := 1 + r.IntN(300)
		n := 64 + r.IntN(1500)
		now := 1000.0
		tasks := make([]Task, n)
		pending := make([]int, n)
		for i := range tasks {
			tasks[i] = Task{Release: now * r.Float64(), Size: 1 + 99*r.Float64()}
			if trial%3 == 0 {
				tasks[i].Size = float64(1 + r.IntN(3)) // many equal deadlines
			}
			pending[i] = i
		}
		f := make([]float64, m)
		resid := 0.0
		for j := range f {
			f[j] = now + 100*r.Float64()*float64(r.IntN(2))
			resid += f[j] - now
		}
		sortFloats(f)
		d := &dasedf{tol: 1e-6}
		star := d.search(tasks, pending, now, resid, f)
		for _, s := range []float64{star / 4, star / 2, star * (1 - 1e-3), star * (1 - 1e-6), star * (1 - 1e-9),
			star, star * (1 + 1e-9), star * (1 + 1e-6), star * (1 + 1e-3), star * 2, star * 8, star * r.Float64() * 2} {
			ok, isSure := d.decide(tasks, s, now, resid, float64(m))
			want := d.feasible(tasks, s, now, resid, float64(m))
			if isSure {
				sure++
				if ok != want {
					t.Fatalf("trial %d (m=%d, n=%d), S = %v (S* = %v): decide says %v, feasible %v", trial, m, n, s, star, ok, want)
				}
			} else {
				unsure++
			}
		}
	}
	if sure == 0 || unsure == 0 {
		t.Errorf("decide sure %d times, unsure %d: the test does not exercise both", sure, unsure)
	}
	t.Logf("decide: %d sure, %d unsure", sure, unsure)
}

// lister.below answers true only when every stretch of the list schedule
// is below the bound, also after part of the list is built; and it does
// answer true for a bound above the average-start bound.
func TestListerBelow(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 13))
	yes := 0
	for trial := range 300 {
		m := 1 + r.IntN(40)
		n := 1 + r.IntN(300)
		now := 500 * r.Float64()
		tasks := make([]Task, n)
		order := r.Perm(n)
		for i := range tasks {
			tasks[i] = Task{Release: now * r.Float64(), Size: 0.5 + 50*r.Float64()}
		}
		f := make([]float64, m)
		resid := 0.0
		for j := range f {
			f[j] = now + 30*r.Float64()*float64(r.IntN(2))
			resid += f[j] - now
		}
		sortFloats(f)
		exact := listStretch(tasks, order, append([]float64(nil), f...))
		var l lister
		l.reset(order, append([]float64(nil), f...))
		l.t, l.resid = now, resid
		if trial%2 == 1 {
			l.reaches(tasks, exact) // part of the list built
		}
		for _, bound := range []float64{exact, exact * (1 + 1e-12), exact * 1.01, exact * 1.5, exact * 3, exact + 100} {
			if l.below(tasks, bound) {
				yes++
				if !(exact < bound) {
					t.Fatalf("trial %d: below(%v) but the list's max stretch is %v", trial, bound, exact)
				}
			}
		}
	}
	if yes == 0 {
		t.Error("below never certain")
	}
}

// certify's regions are right: after a failed check at s, every S at or
// above d.above passes and every S at or below d.below fails, tested at
// the region edges and in them, on random queues (some with many equal
// sizes, hence equal deadlines).
func TestCertifyRegions(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 17))
	hits := 0
	for trial := range 80 {
		m := 1 + r.IntN(300)
		n := 2 + r.IntN(800)
		now := 1000.0
		tasks := make([]Task, n)
		pending := make([]int, n)
		for i := range tasks {
			tasks[i] = Task{Release: now * r.Float64(), Size: 1 + 99*r.Float64()}
			if trial%3 == 0 {
				tasks[i].Size = float64(1 + r.IntN(3))
			}
			pending[i] = i
		}
		f := make([]float64, m)
		resid := 0.0
		for j := range f {
			f[j] = now + 100*r.Float64()*float64(r.IntN(2))
			resid += f[j] - now
		}
		sortFloats(f)
		d := &dasedf{tol: 1e-6}
		star := d.search(tasks, pending, now, resid, f)
		for _, frac := range []float64{0.3, 0.9, 0.999, 1 - 1e-6} {
			s := star * frac
			if d.feasible(tasks, s, now, resid, float64(m)) {
				continue
			}
			d.above, d.below = math.Inf(1), math.Inf(-1)
			d.certify(tasks, s, now, resid, float64(m))
			above, below := d.above, d.below
			if !(below < above) {
				t.Fatalf("trial %d: below %v ≥ above %v", trial, below, above)
			}
			if !math.IsInf(above, 1) {
				hits++
				for _, sp := range []float64{above, math.Nextafter(above, math.Inf(1)), above * (1 + 1e-9), above * 1.1} {
					if !d.feasible(tasks, sp, now, resid, float64(m)) {
						t.Fatalf("trial %d: S = %v ≥ above = %v (from s = %v, S* = %v) fails", trial, sp, above, s, star)
					}
				}
			}
			if below > s {
				hits++
				for _, sp := range []float64{below, math.Nextafter(below, math.Inf(-1)), s + (below-s)/2} {
					if d.feasible(tasks, sp, now, resid, float64(m)) {
						t.Fatalf("trial %d: S = %v ≤ below = %v (from s = %v, S* = %v) passes", trial, sp, below, s, star)
					}
				}
			}
		}
	}
	if hits < 50 {
		t.Errorf("certify gave only %d regions", hits)
	}
}
