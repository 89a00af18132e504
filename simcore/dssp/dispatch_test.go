package dssp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"schedfarm/simcore/check"
	"schedfarm/simcore/rng"
)

// keysOf returns the actual keys of jobs.
func keysOf(jobs []Job) []JobKey {
	k := make([]JobKey, len(jobs))
	for i := range jobs {
		k[i] = JobKey{ID: jobs[i].ID, Priority: jobs[i].Priority, T1: jobs[i].T1(), TInf: jobs[i].TInf()}
	}
	return k
}

// scheduleOf turns a recorded dispatch into the checker's record: one entry
// per task on its processor, and an edge from every task of a stage to
// every task of the next.
func scheduleOf(jobs []Job, d *Dispatch, p int) check.Schedule {
	id := map[[3]int]int64{}
	var edges []check.Edge
	n := int64(0)
	for j := range jobs {
		for g, st := range jobs[j].Stages {
			for i := range st {
				id[[3]int{j, g, i}] = n
				n++
			}
		}
	}
	for j := range jobs {
		for g := 0; g+1 < len(jobs[j].Stages); g++ {
			for a := range jobs[j].Stages[g] {
				for b := range jobs[j].Stages[g+1] {
					edges = append(edges, check.Edge{Before: id[[3]int{j, g, a}], After: id[[3]int{j, g + 1, b}]})
				}
			}
		}
	}
	s := check.Schedule{Capacity: p, Edges: edges}
	for _, r := range d.Runs {
		s.Entries = append(s.Entries, check.Entry{Task: id[[3]int{r.Job, r.Stage, r.Task}], Node: r.Proc, Procs: 1,
			Start: r.Start, End: r.End, Deadline: check.NoDeadline})
	}
	return s
}

// figure1 is a two-job instance in the spirit of Figure 1: job 1 has the
// longer critical path.
func figure1() []Job {
	return []Job{
		{ID: 1, Priority: 10, Stages: [][]float64{{2, 2}, {2, 2}}},         // T∞ 4, T1 8
		{ID: 2, Priority: 10, Stages: [][]float64{{1.5, 1.5}, {1.5, 1.5}}}, // T∞ 3, T1 6
	}
}

func TestFigure1LCPFvsCPA(t *testing.T) {
	jobs := figure1()
	// One processor (§3.2): LCPF runs job 1 to the end before job 2.
	d, err := Simulate(jobs, keysOf(jobs), 1, LCPF, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	if d.JobEnd[0] != 8 || d.JobEnd[1] != 14 {
		t.Fatalf("LCPF: ends %v, want [8 14]", d.JobEnd)
	}
	for k, r := range d.Runs {
		if want := k / 4; r.Job != want {
			t.Fatalf("LCPF run %d from job %d, want %d", k, r.Job, want)
		}
	}
	// CPA alternates between the jobs stage by stage (bottom levels 4, 3,
	// 2, 1.5) and both jobs finish near the end: 11 and 14.
	d, err = Simulate(jobs, keysOf(jobs), 1, CPA, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	if d.JobEnd[0] != 11 || d.JobEnd[1] != 14 {
		t.Fatalf("CPA: ends %v, want [11 14]", d.JobEnd)
	}
	var seq []int
	for _, r := range d.Runs {
		seq = append(seq, r.Job)
	}
	if fmt.Sprint(seq) != "[0 0 1 1 0 0 1 1]" {
		t.Fatalf("CPA job sequence %v, want alternation [0 0 1 1 0 0 1 1]", seq)
	}
}

func TestDispatchHand(t *testing.T) {
	// Two processors. STCPU: job B (T1 3) first: B's tasks 1 and 2 at 0 on
	// P0, P1; B stage 2 (len 1) at 1 on P0 (lowest idle index), A's first
	// task at 1 on P1 (len 4)... A: stages {4}, {1}; B: {1, 2}, {1}.
	jobs := []Job{
		{ID: 0, Stages: [][]float64{{4}, {1}}},
		{ID: 1, Stages: [][]float64{{1, 2}, {1}}},
	}
	d, err := Simulate(jobs, keysOf(jobs), 2, STCPU, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	// t=0: B1(1) on P0, B2(2) on P1. t=1: P0 idle, B stage 1 not done (B2
	// runs) -> A1(4) on P0 until 5. t=2: B2 done -> B3 on P1 until 3.
	// t=5: A2 on P0 until 6.
	if d.JobEnd[0] != 6 || d.JobEnd[1] != 3 || d.Makespan != 6 {
		t.Fatalf("ends %v makespan %v, want [6 3] 6", d.JobEnd, d.Makespan)
	}
	if d.ProcRelease[0] != 6 || d.ProcRelease[1] != 3 || d.Work != 9 {
		t.Fatalf("release %v work %v, want [6 3] 9", d.ProcRelease, d.Work)
	}
	if err := check.Validate(scheduleOf(jobs, d, 2), 1e-9); err != nil {
		t.Fatal(err)
	}
}

// randomJobs draws a small random instance.
func randomJobs(r *rand.Rand, n int, maxLen float64) []Job {
	jobs := make([]Job, n)
	for j := range jobs {
		g := 1 + r.IntN(4)
		st := make([][]float64, g)
		for k := range st {
			st[k] = make([]float64, 1+r.IntN(6))
			for i := range st[k] {
				st[k][i] = 0.05 + maxLen*r.Float64()
			}
		}
		jobs[j] = Job{ID: j, Priority: r.IntN(500), Stages: st}
	}
	return jobs
}

func TestDispatchValidAndNonDelay(t *testing.T) {
	seed := uint64(42)
	r := rand.New(rand.NewPCG(seed, 2))
	for trial := 0; trial < 200; trial++ {
		jobs := randomJobs(r, 1+r.IntN(10), 3)
		p := 1 + r.IntN(6)
		for _, name := range Policies {
			pol := Policy(name)
			d, err := Simulate(jobs, keysOf(jobs), p, pol, rng.New(uint64(trial)).Stream("dispatch"), true)
			if err != nil {
				t.Fatal(err)
			}
			if err := check.Validate(scheduleOf(jobs, d, p), 1e-9); err != nil {
				t.Fatalf("seed %d trial %d %s: %v", seed, trial, pol, err)
			}
			total := 0.0
			for j := range jobs {
				total += jobs[j].T1()
			}
			if math.Abs(d.Work-total) > 1e-9 || len(d.Runs) != countTasks(jobs) {
				t.Fatalf("seed %d trial %d %s: work %v of %v", seed, trial, pol, d.Work, total)
			}
			// Non-delay: at each start time s, either every processor is busy
			// just after s or no other task was runnable and unstarted at s.
			assertNonDelay(t, jobs, d, p, fmt.Sprintf("seed %d trial %d %s", seed, trial, pol))
		}
	}
}

func countTasks(jobs []Job) int {
	n := 0
	for j := range jobs {
		n += jobs[j].NTasks()
	}
	return n
}

// assertNonDelay checks that no processor idles while a task is runnable:
// at every event time (a start or an end), if fewer than p tasks run, every
// task not yet started has an unfinished predecessor stage.
func assertNonDelay(t *testing.T, jobs []Job, d *Dispatch, p int, what string) {
	t.Helper()
	stageEnd := map[[2]int]float64{}
	for _, r := range d.Runs {
		k := [2]int{r.Job, r.Stage}
		stageEnd[k] = math.Max(stageEnd[k], r.End)
	}
	for _, ev := range d.Runs {
		for _, now := range []float64{ev.Start, ev.End} {
			busy := 0
			for _, r := range d.Runs {
				if r.Start <= now && now < r.End {
					busy++
				}
			}
			if busy >= p {
				continue
			}
			for _, r := range d.Runs {
				if r.Start <= now {
					continue
				}
				readyAt := 0.0
				if r.Stage > 0 {
					readyAt = stageEnd[[2]int{r.Job, r.Stage - 1}]
				}
				if readyAt <= now {
					t.Fatalf("%s: at %v only %d of %d processors busy, yet job %d stage %d task %d (ready at %v) waits until %v",
						what, now, busy, p, r.Job, r.Stage, r.Task, readyAt, r.Start)
				}
			}
		}
	}
}

// TestTheorem4 is Theorem 4 as a property: with unit rewards, greedy
// selection with r = 1 − (1 − 1/P)·T∞max/D and any non-delay dispatcher,
// every selected job completes by D.
func TestTheorem4(t *testing.T) {
	seed := uint64(2005)
	r := rand.New(rand.NewPCG(seed, 4))
	const deadline = 10.0
	for trial := 0; trial < 400; trial++ {
		p := 1 + r.IntN(8)
		all := randomJobs(r, 2+r.IntN(25), 2.5)
		var jobs []Job
		tmax := 0.0
		for _, j := range all {
			if j.TInf() <= deadline {
				jobs = append(jobs, j)
				tmax = math.Max(tmax, j.TInf())
			}
		}
		rr := 1 - (1-1/float64(p))*tmax/deadline
		items := make([]Item, len(jobs))
		for i := range jobs {
			items[i] = Item{Reward: Unit.Value(jobs[i].Priority, jobs[i].T1()), Weight: jobs[i].T1()}
		}
		sel := Greedy(items, rr*float64(p)*deadline, TiesSmall)
		var chosen []Job
		for i, s := range sel {
			if s {
				chosen = append(chosen, jobs[i])
			}
		}
		for _, name := range Policies {
			d, err := Simulate(chosen, keysOf(chosen), p, Policy(name), rng.New(uint64(trial)).Stream("dispatch"), false)
			if err != nil {
				t.Fatal(err)
			}
			for j, end := range d.JobEnd {
				if end > deadline+1e-9 {
					t.Fatalf("seed %d trial %d %s: P=%d r=%.4f, job %d ends at %v after D=%v", seed, trial, name, p, rr, chosen[j].ID, end, deadline)
				}
			}
		}
	}
}

func TestMaxK(t *testing.T) {
	seed := uint64(11)
	r := rand.New(rand.NewPCG(seed, 5))
	for trial := 0; trial < 100; trial++ {
		jobs := randomJobs(r, 2+r.IntN(12), 2)
		p := 1 + r.IntN(4)
		items := make([]Item, len(jobs))
		for i := range jobs {
			items[i] = Item{Reward: 1, Weight: jobs[i].T1()}
		}
		for _, name := range Policies {
			pol := Policy(name)
			stream := func() *rng.Rand { return rng.New(uint64(trial)).Stream("dispatch") }
			sel, err := MaxK(jobs, keysOf(jobs), items, p, 6, pol, stream)
			if err != nil {
				t.Fatal(err)
			}
			var chosen []Job
			for i, s := range sel {
				if s {
					chosen = append(chosen, jobs[i])
				}
			}
			d, err := Simulate(chosen, keysOf(chosen), p, pol, stream(), false)
			if err != nil {
				t.Fatal(err)
			}
			if d.Makespan > 6+1e-9 {
				t.Fatalf("seed %d trial %d %s: MAXK set of %d jobs ends at %v > 6", seed, trial, pol, len(chosen), d.Makespan)
			}
			// Maximality against the next job in R/T1 order.
			order := ratioOrder(items)
			if len(chosen) < len(jobs) {
				next := order[len(chosen)]
				if sel[next] {
					t.Fatalf("seed %d trial %d: MAXK set is not a prefix of the ratio order", seed, trial)
				}
			}
		}
	}
}
