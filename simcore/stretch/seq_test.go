package stretch

import (
	"context"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"schedfarm/simcore"
	"schedfarm/simcore/check"
	"schedfarm/simcore/modeltest"
)

func simSeq(t *testing.T, tasks []Task, cfg SeqConfig) *SeqOutcome {
	t.Helper()
	out, err := SimulateSeq(context.Background(), tasks, cfg)
	if err != nil {
		t.Fatal(err)
	}
	validateSeq(t, tasks, cfg.M, out)
	return out
}

// validateSeq runs the independent checker on a sequential schedule: one
// task at a time per processor, no start before release, C = σ + p.
func validateSeq(t *testing.T, tasks []Task, m int, out *SeqOutcome) {
	t.Helper()
	s := check.Schedule{Capacity: m}
	for i, tk := range tasks {
		if out.End[i] != out.Start[i]+tk.Size {
			t.Fatalf("task %d: end %v != start %v + size %v", i, out.End[i], out.Start[i], tk.Size)
		}
		if out.Node[i] < 0 || out.Node[i] >= m {
			t.Fatalf("task %d on node %d of %d", i, out.Node[i], m)
		}
		s.Entries = append(s.Entries, check.Entry{Task: int64(i), Node: out.Node[i], Procs: 1, Release: tk.Release,
			Start: out.Start[i], End: out.End[i], Deadline: check.NoDeadline})
	}
	if err := check.Validate(s, 1e-9); err != nil {
		t.Fatal(err)
	}
}

func stretches(tasks []Task, out *SeqOutcome) []float64 {
	s := make([]float64, len(tasks))
	for i, tk := range tasks {
		s[i] = (out.End[i] - tk.Release) / tk.Size
	}
	return s
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// One processor: A (p=1) runs at 0; B (p=10) arrives at 0.2 and C (p=1) at
// 0.5. At t=1 FCFS starts B (C ends at 12, stretch 11.5); DASEDF finds
// S* = 1.5 (C's own bound: it cannot end before 2), puts C's deadline 2 before
// B's 15.2 and starts C: stretches 1, 1.18, 1.5.
func TestDASEDFReordersShortBeforeLong(t *testing.T) {
	tasks := []Task{{0, 1}, {0.2, 10}, {0.5, 1}}
	f := stretches(tasks, simSeq(t, tasks, SeqConfig{M: 1, Algorithm: FCFS}))
	d := stretches(tasks, simSeq(t, tasks, SeqConfig{M: 1, Algorithm: DASEDF, Tol: 1e-9}))
	for i, w := range []float64{1, 1.08, 11.5} {
		if !near(f[i], w) {
			t.Errorf("FCFS stretches %v, want [1 1.08 11.5]", f)
		}
	}
	for i, w := range []float64{1, 1.18, 1.5} {
		if !near(d[i], w) {
			t.Errorf("DASEDF stretches %v, want [1 1.18 1.5]", d)
		}
	}
}

// Two processors, both busy until 4 and 6 with long tasks; then a long task
// (p=20, r=1) and two short ones (p=1, r=2 and r=3). FCFS runs the long
// one first at 4; DASEDF runs the two short ones at 4 and 5 and the long
// one at 6.
func TestDASEDFTwoProcessors(t *testing.T) {
	tasks := []Task{{0, 4}, {0, 6}, {1, 20}, {2, 1}, {3, 1}}
	f := simSeq(t, tasks, SeqConfig{M: 2, Algorithm: FCFS})
	if want := []float64{0, 0, 4, 6, 7}; !reflect.DeepEqual(f.Start, want) {
		t.Errorf("FCFS starts %v, want %v", f.Start, want)
	}
	d := simSeq(t, tasks, SeqConfig{M: 2, Algorithm: DASEDF})
	if want := []float64{0, 0, 6, 4, 5}; !reflect.DeepEqual(d.Start, want) {
		t.Errorf("DASEDF starts %v, want %v", d.Start, want)
	}
}

// Reservation with m = 2, X = 1, T = 1.2: the long task takes the main
// processor; the short one would wait until 10 there (stretch 10 ≥ T), so
// it goes to the auxiliary processor and starts at once.
func TestReservationSendsToAuxiliary(t *testing.T) {
	tasks := []Task{{0, 10}, {1, 1}, {12, 1}}
	for _, alg := range []string{FCFS, DASEDF} {
		out := simSeq(t, tasks, SeqConfig{M: 2, Algorithm: alg, X: 1, T: 1.2})
		if want := []int{0, 1, 0}; !reflect.DeepEqual(out.Part, want) {
			t.Errorf("%s: parts %v, want %v", alg, out.Part, want)
		}
		if want := []float64{0, 1, 12}; !reflect.DeepEqual(out.Start, want) {
			t.Errorf("%s: starts %v, want %v", alg, out.Start, want)
		}
		if out.Node[1] != 1 {
			t.Errorf("%s: auxiliary task on node %d, want 1", alg, out.Node[1])
		}
	}
}

// Lemma 3.2 / Theorem 3.3 (saule2012 §3.2): with running tasks and a random
// queue, the S* DASEDF finds passes the property, and the EDF schedule at S*
// completes every task before d_i + (1 − 1/m)·p_i, i.e. its stretch is at
// most S* + 1 − 1/m. S* is also minimal: S*·(1 − 2 tol) fails (or S* is the
// trivial lower bound).
func TestLemma32Property(t *testing.T) {
	seed := uint64(20100601)
	r := rand.New(rand.NewPCG(seed, 7))
	for trial := range 400 {
		m := 1 + r.IntN(8)
		n := 1 + r.IntN(40)
		now := 50.0
		var tasks []Task
		var pending []int
		for i := range n {
			tasks = append(tasks, Task{Release: now * r.Float64(), Size: 0.1 + 20*r.Float64()})
			pending = append(pending, i)
		}
		f := make([]float64, m)
		resid := 0.0
		for j := range f {
			if r.IntN(3) > 0 {
				f[j] = now + 15*r.Float64()
			} else {
				f[j] = now
			}
			resid += f[j] - now
		}
		sortFloats(f)
		d := &dasedf{tol: 1e-6}
		s := d.search(tasks, pending, now, resid, f)
		if !d.feasible(tasks, s, now, resid, float64(m)) {
			t.Fatalf("seed %d trial %d: S* = %v fails the property", seed, trial, s)
		}
		lb := 0.0
		for _, i := range pending {
			lb = math.Max(lb, (f[0]+tasks[i].Size-tasks[i].Release)/tasks[i].Size)
		}
		if s > lb*(1+1e-9) && d.feasible(tasks, s*(1-2e-6), now, resid, float64(m)) {
			t.Fatalf("seed %d trial %d: S* = %v is not minimal", seed, trial, s)
		}
		d.feasible(tasks, s, now, resid, float64(m))
		got := listStretch(tasks, d.order, append([]float64(nil), f...))
		if bound := s + 1 - 1/float64(m); got > bound*(1+1e-9) {
			t.Fatalf("seed %d trial %d (m=%d, n=%d): EDF stretch %v > S*+1−1/m = %v", seed, trial, m, n, got, bound)
		}
	}
}

func sortFloats(f []float64) {
	for i := 1; i < len(f); i++ {
		for j := i; j > 0 && f[j-1] > f[j]; j-- {
			f[j-1], f[j] = f[j], f[j-1]
		}
	}
}

// optLowerBound is a lower bound on the optimal max stretch: 1, and the
// smallest S passing the Lemma 3.2 property for all tasks at once from the
// first release (any schedule of stretch S meets deadlines r_i + S·p_i, so
// the work due by each deadline fits in m·(d − r_min)).
func optLowerBound(tasks []Task, m int) float64 {
	pending := make([]int, len(tasks))
	for i := range pending {
		pending[i] = i
	}
	d := &dasedf{tol: 1e-9}
	f := make([]float64, m)
	for j := range f {
		f[j] = tasks[0].Release
	}
	// search also applies the bound σ ≥ r_min, weaker than σ ≥ r_i: valid.
	return math.Max(1, d.search(tasks, pending, tasks[0].Release, 0, f))
}

// Theorem 3.1: FCFS is a (Δ + (1 − 1/m)(Δ + 1))-approximation; checked
// against a lower bound on the optimum on random overloaded instances.
// Every stretch is at least 1 for every algorithm.
func TestTheorem31AndStretchAtLeastOne(t *testing.T) {
	for seed := uint64(1); seed <= 12; seed++ {
		m := 1 + int(seed%4)
		delta := []float64{2, 5, 20}[seed%3]
		tasks, _, err := SeqWorkload{N: 300, A: 1, Delta: delta, Load: 1.1 * float64(m)}.Generate(seed)
		if err != nil {
			t.Fatal(err)
		}
		lb := optLowerBound(tasks, m)
		lo, hi := math.Inf(1), 0.0
		for _, tk := range tasks {
			lo, hi = math.Min(lo, tk.Size), math.Max(hi, tk.Size)
		}
		dr := hi / lo
		ratio := dr + (1-1/float64(m))*(dr+1)
		for _, alg := range []string{FCFS, DASEDF} {
			out := simSeq(t, tasks, SeqConfig{M: m, Algorithm: alg})
			worst := 0.0
			for i, s := range stretches(tasks, out) {
				if s < 1-1e-12 {
					t.Fatalf("seed %d %s: task %d stretch %v < 1", seed, alg, i, s)
				}
				worst = math.Max(worst, s)
			}
			if alg == FCFS && worst > ratio*lb*(1+1e-9) {
				t.Fatalf("seed %d: FCFS max stretch %v > (Δ+(1−1/m)(Δ+1))·LB = %v·%v", seed, worst, ratio, lb)
			}
		}
	}
}

// Every algorithm and the reservation scheme produce valid schedules.
func TestSeqSchedulesValid(t *testing.T) {
	tasks, _, err := SeqWorkload{N: 2000, A: 1, Delta: 40, Load: 29.5}.Generate(11)
	if err != nil {
		t.Fatal(err)
	}
	for _, alg := range []string{FCFS, DASEDF} {
		for _, x := range []int{0, 1, 5} {
			out := simSeq(t, tasks, SeqConfig{M: 30, Algorithm: alg, X: x, T: 1.5})
			if x == 0 {
				for i, k := range out.Part {
					if k != 0 {
						t.Fatalf("%s: task %d in part %d without reservation", alg, i, k)
					}
				}
			}
		}
	}
}

func TestSeqErrors(t *testing.T) {
	good := []Task{{0, 1}, {1, 1}}
	for _, c := range []struct {
		tasks []Task
		cfg   SeqConfig
	}{
		{good, SeqConfig{M: 0, Algorithm: FCFS}},
		{good, SeqConfig{M: 2, Algorithm: "EDF"}},
		{good, SeqConfig{M: 2, Algorithm: FCFS, X: 2}},
		{[]Task{{1, 1}, {0, 1}}, SeqConfig{M: 2, Algorithm: FCFS}},
		{[]Task{{0, 0}}, SeqConfig{M: 2, Algorithm: FCFS}},
	} {
		if _, err := SimulateSeq(context.Background(), c.tasks, c.cfg); err == nil {
			t.Errorf("%+v: no error", c.cfg)
		}
	}
}

// The generator: sizes in [a, b], mean size (a+b)/2, exponential gaps
// (coefficient of variation 1), realised load near the target.
func TestSeqWorkloadFit(t *testing.T) {
	w := SeqWorkload{N: 20000, A: 2, Delta: 10, Load: 250}
	tasks, target, err := w.Generate(5)
	if err != nil {
		t.Fatal(err)
	}
	if target != 250 {
		t.Fatalf("target %v", target)
	}
	var sum, g1, g2 float64
	for i, tk := range tasks {
		if tk.Size < 2 || tk.Size > 20 {
			t.Fatalf("size %v outside [2, 20]", tk.Size)
		}
		sum += tk.Size
		if i > 0 {
			g := tk.Release - tasks[i-1].Release
			g1 += g
			g2 += g * g
		}
	}
	n := float64(len(tasks))
	if mean := sum / n; math.Abs(mean-11) > 0.1 {
		t.Errorf("mean size %v, want 11", mean)
	}
	mg := g1 / (n - 1)
	cv := math.Sqrt(g2/(n-1)-mg*mg) / mg
	if math.Abs(mg-11.0/250) > 0.02*11/250 || math.Abs(cv-1) > 0.03 {
		t.Errorf("gaps: mean %v (want %v), cv %v (want 1)", mg, 11.0/250, cv)
	}
	if l := Load(tasks); math.Abs(l-250)/250 > 0.03 {
		t.Errorf("realised load %v, want about 250", l)
	}
	band, _, _ := SeqWorkload{N: 100, A: 1, Delta: 5, Load: 270, LoadHi: 310}.Generate(9)
	_, tl, _ := SeqWorkload{N: 100, A: 1, Delta: 5, Load: 270, LoadHi: 310}.Generate(9)
	if tl < 270 || tl > 310 || len(band) != 100 {
		t.Errorf("band target %v", tl)
	}
}

func seqParams(over map[string]any) simcore.Params {
	p := simcore.Params{}
	for _, d := range schema.Params {
		p[d.Name] = d.Default
	}
	for k, v := range over {
		p[k] = v
	}
	return p
}

// scheduleLayout reads the model's schedule table: a sequential task on
// its processor, a moldable one (node −1) on its processors of the pool.
// Column part is the reservation scheme's part, not a part of the task.
var scheduleLayout = modeltest.Layout{Task: "task", Node: "node", Procs: "processors", Release: "release", Start: "start", End: "end"}

func TestModelDeterministicAndSchema(t *testing.T) {
	m := New(nil)
	for _, p := range []simcore.Params{
		{"n_tasks": int64(800), "m": int64(12), "load": 12.0, "algorithm": DASEDF, "schedule_table": true, "task_table": true},
		{"n_tasks": int64(800), "m": int64(12), "load": 12.0, "algorithm": FCFS, "reservation": "best", "schedule_table": true},
		{"n_tasks": int64(800), "m": int64(12), "load": 12.0, "algorithm": DASEDF, "reservation": "fixed", "reservation_x": int64(2)},
	} {
		a := modeltest.RoundTrip(t, m, p, 42)
		if p["schedule_table"] == true {
			modeltest.Schedule(t, a, 12, scheduleLayout, 1e-9)
		}
		if p["reservation"] == "best" && a.Metrics["best_x"].(int64) == 0 {
			t.Errorf("best reservation reports X = 0")
		}
	}
}

func TestModelBadParams(t *testing.T) {
	m := New(nil)
	for _, over := range []map[string]any{
		{"reservation": "fixed", "reservation_x": int64(0), "n_tasks": int64(10)},
		{"reservation": "fixed", "reservation_x": int64(300), "n_tasks": int64(10)},
		{"n_tasks": int64(1)},
	} {
		if _, err := m.Run(context.Background(), seqParams(over), 1); err == nil {
			t.Errorf("%v: no error", over)
		}
	}
}

// The incremental FCFS plan of the reservation scheme equals re-planning
// the queue from scratch (listStretch over the processor free times) at
// every release of a random overloaded run.
func TestFCFSPlanIncrementalMatchesReplan(t *testing.T) {
	tasks, _, err := SeqWorkload{N: 3000, A: 1, Delta: 30, Load: 8.4}.Generate(17)
	if err != nil {
		t.Fatal(err)
	}
	p := newPart(8, 0, FCFS, 0, ruleLemma)
	out := &SeqOutcome{Start: make([]float64, len(tasks)), End: make([]float64, len(tasks)), Node: make([]int, len(tasks)), Part: make([]int, len(tasks))}
	for i, tk := range tasks {
		now := tk.Release
		for {
			k, _, ok := p.running.Peek()
			if !ok || k.At > now {
				break
			}
			// complete and dispatch at each completion time, as SimulateSeq does
			e := k.At
			p.complete(e)
			p.dispatch(tasks, e, SeqConfig{}, out)
		}
		got := p.fcfs.add(tasks, i, now, false)
		_, f := p.freeTimes(now)
		want := listStretch(tasks, append(append([]int(nil), p.pending...), i), f)
		if !near(got, want) {
			t.Fatalf("task %d: incremental plan %v, re-plan %v", i, got, want)
		}
		p.fcfs.add(tasks, i, now, true)
		p.pending = append(p.pending, i)
		p.dispatch(tasks, now, SeqConfig{}, out)
	}
}
