package dssp

import (
	"fmt"
	"sort"

	"schedfarm/simcore/pq"
	"schedfarm/simcore/rng"
)

// Policy is a non-delay dispatcher policy (§3.2).
type Policy string

// The dispatcher policies of §3.2.
const (
	Random   Policy = "RANDOM"   // a runnable task chosen uniformly at random
	First    Policy = "FIRST"    // jobs in job-ID order
	Priority Policy = "PRIORITY" // the job of highest priority (lowest value)
	STCPU    Policy = "STCPU"    // the job of least T1
	LCPF     Policy = "LCPF"     // the job of greatest T∞
	CPA      Policy = "CPA"      // the task of greatest bottom level (HLFET)
)

// Policies lists the dispatcher policies in schema order.
var Policies = []string{string(Random), string(First), string(Priority), string(STCPU), string(LCPF), string(CPA)}

// ParsePolicy checks a dispatcher name.
func ParsePolicy(s string) (Policy, error) {
	for _, n := range Policies {
		if n == s {
			return Policy(s), nil
		}
	}
	return "", fmt.Errorf("dispatcher %q: want one of %v", s, Policies)
}

// JobKey is what a job-level policy sees of a job: its priority, ID and the
// T1 and T∞ it believes (actual or predicted).
type JobKey struct {
	ID       int
	Priority int
	T1, TInf float64
}

// TaskRun is one executed task of a dispatch.
type TaskRun struct {
	Job   int // index into the dispatched jobs
	Stage int // 0-based
	Task  int // 0-based within the stage
	Proc  int
	Start float64
	End   float64
}

// Dispatch is the outcome of one non-delay dispatch.
type Dispatch struct {
	// JobEnd is each dispatched job's completion time C_j.
	JobEnd []float64
	// ProcRelease is when each processor ceased work (0 if never used).
	ProcRelease []float64
	// Work is Σ L_i over the dispatched tasks (busy processor-hours).
	Work float64
	// Makespan is the last completion.
	Makespan float64
	// Runs holds every task run when recording was asked for.
	Runs []TaskRun
	// spans holds every task's [start, end), always.
	spans [][2]float64
}

// WorkBefore returns the processor-hours worked before time t.
func (d *Dispatch) WorkBefore(t float64) float64 {
	w := 0.0
	for _, s := range d.spans {
		if s[0] < t {
			w += min(s[1], t) - s[0]
		}
	}
	return w
}

// runTask is one task of a dispatch in flat form.
type runTask struct {
	job, stage, task int
	length, level    float64
}

// Simulate dispatches every task of jobs onto p identical processors
// with the non-delay policy pol (§3.2): whenever a processor is idle and a
// task is runnable, a task starts; the processor is the idle one of lowest
// index; within a chosen job, its runnable tasks go in task-ID order
// (docs/models/dssp.md A8). keys holds what the job-level policies see of each job; rnd
// serves RANDOM only. Every job runs to completion, however late. Time
// O(N log N) for N tasks.
func Simulate(jobs []Job, keys []JobKey, p int, pol Policy, rnd *rng.Rand, record bool) (*Dispatch, error) {
	if p < 1 {
		return nil, fmt.Errorf("dispatch: %d processors", p)
	}
	if len(keys) != len(jobs) {
		return nil, fmt.Errorf("dispatch: %d keys for %d jobs", len(keys), len(jobs))
	}
	if pol == Random && rnd == nil {
		return nil, fmt.Errorf("dispatch: RANDOM needs a random stream")
	}
	// Flat task table: stageStart[j][g] indexes the first task of stage g.
	nt := 0
	for j := range jobs {
		nt += jobs[j].NTasks()
	}
	tasks := make([]runTask, 0, nt)
	stageStart := make([][]int, len(jobs))
	for j := range jobs {
		st := jobs[j].Stages
		tail := make([]float64, len(st)+1) // Σ of stage maxima after g
		for g := len(st) - 1; g >= 0; g-- {
			m := 0.0
			for _, l := range st[g] {
				m = max(m, l)
			}
			tail[g] = tail[g+1] + m
		}
		stageStart[j] = make([]int, len(st)+1)
		for g, s := range st {
			stageStart[j][g] = len(tasks)
			for i, l := range s {
				tasks = append(tasks, runTask{job: j, stage: g, task: i, length: l, level: l + tail[g+1]})
			}
		}
		stageStart[j][len(st)] = len(tasks)
	}
	d := &Dispatch{JobEnd: make([]float64, len(jobs)), ProcRelease: make([]float64, p), spans: make([][2]float64, 0, len(tasks))}
	if record {
		d.Runs = make([]TaskRun, 0, len(tasks))
	}
	stage := make([]int, len(jobs))   // current stage
	next := make([]int, len(jobs))    // next unstarted task (flat index)
	pending := make([]int, len(jobs)) // unfinished tasks of the current stage

	// The runnable set, by policy.
	rank := jobRank(keys, pol)
	var jobQ pq.Queue[int]  // runnable jobs by rank (a permutation: no ties)
	var taskQ pq.Queue[int] // CPA's runnable tasks by level, highest first, then index
	var pool []int          // RANDOM's runnable tasks
	ready := func(j int) {
		g := stage[j]
		lo, hi := stageStart[j][g], stageStart[j][g+1]
		next[j], pending[j] = lo, hi-lo
		switch pol {
		case CPA:
			for t := lo; t < hi; t++ {
				taskQ.Push(pq.Key{At: -tasks[t].level, Sub: int64(t)}, t)
			}
		case Random:
			for t := lo; t < hi; t++ {
				pool = append(pool, t)
			}
		default:
			jobQ.Push(pq.Key{Sub: int64(rank[j])}, j)
		}
	}
	pick := func() (int, bool) {
		switch pol {
		case CPA:
			_, t, ok := taskQ.Pop()
			return t, ok
		case Random:
			if len(pool) == 0 {
				return 0, false
			}
			k := rnd.IntN(len(pool))
			t := pool[k]
			pool[k] = pool[len(pool)-1]
			pool = pool[:len(pool)-1]
			return t, true
		}
		_, j, ok := jobQ.Peek()
		if !ok {
			return 0, false
		}
		t := next[j]
		next[j]++
		if next[j] == stageStart[j][stage[j]+1] {
			jobQ.Pop()
		}
		return t, true
	}

	idle := pq.New[int](p) // idle processors, lowest first
	for i := 0; i < p; i++ {
		idle.Push(pq.Key{Sub: int64(i)}, i)
	}
	run := pq.New[running](p) // running tasks by (end, processor): unique
	for j := range jobs {
		ready(j)
	}
	now := 0.0
	startAll := func() {
		for idle.Len() > 0 {
			t, ok := pick()
			if !ok {
				return
			}
			_, pr, _ := idle.Pop()
			end := now + tasks[t].length
			run.Push(pq.Key{At: end, Sub: int64(pr)}, running{end, pr, t})
			d.Work += tasks[t].length
			d.spans = append(d.spans, [2]float64{now, end})
			if record {
				tk := tasks[t]
				d.Runs = append(d.Runs, TaskRun{Job: tk.job, Stage: tk.stage, Task: tk.task, Proc: pr, Start: now, End: end})
			}
		}
	}
	startAll()
	for run.Len() > 0 {
		k, _, _ := run.Peek()
		now = k.At
		for run.Len() > 0 {
			if k, _, _ := run.Peek(); k.At != now {
				break
			}
			_, r, _ := run.Pop()
			idle.Push(pq.Key{Sub: int64(r.proc)}, r.proc)
			d.ProcRelease[r.proc] = now
			j := tasks[r.task].job
			pending[j]--
			if pending[j] == 0 {
				stage[j]++
				if stage[j] < len(jobs[j].Stages) {
					ready(j)
				} else {
					d.JobEnd[j] = now
				}
			}
		}
		startAll()
	}
	d.Makespan = now
	return d, nil
}

// jobRank orders the jobs for a job-level policy: rank[j] < rank[k] means j
// is served first (tie-breaks: docs/models/dssp.md A8).
func jobRank(keys []JobKey, pol Policy) []int {
	idx := make([]int, len(keys))
	for i := range idx {
		idx[i] = i
	}
	less := func(a, b JobKey) bool { return a.ID < b.ID }
	switch pol {
	case Priority:
		less = func(a, b JobKey) bool {
			if a.Priority != b.Priority {
				return a.Priority < b.Priority
			}
			if a.TInf != b.TInf {
				return a.TInf < b.TInf
			}
			return a.ID < b.ID
		}
	case STCPU:
		less = func(a, b JobKey) bool {
			if a.T1 != b.T1 {
				return a.T1 < b.T1
			}
			return a.ID < b.ID
		}
	case LCPF:
		less = func(a, b JobKey) bool {
			if a.TInf != b.TInf {
				return a.TInf > b.TInf
			}
			return a.ID < b.ID
		}
	}
	sort.SliceStable(idx, func(a, b int) bool { return less(keys[idx[a]], keys[idx[b]]) })
	rank := make([]int, len(keys))
	for r, i := range idx {
		rank[i] = r
	}
	return rank
}

// running is a task in progress on a processor.
type running struct {
	end  float64
	proc int
	task int
}
