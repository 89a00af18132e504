package stretch

import (
	"context"
	"fmt"
	"math"
	"sort"

	"schedfarm/simcore/pq"
	"schedfarm/simcore/profile"
)

// MoldTask is a moldable task (saule2012 §5): released at Release, it runs
// for Times[j-1] = p_{i,j} on j processors, j = 1..P. Times is
// non-increasing (more processors never hurt: a task may leave some idle).
type MoldTask struct {
	Release float64
	Times   []float64
}

// Seq is p_{i,1}, the reference of the moldable stretch (C − r)/p_{i,1}.
func (t *MoldTask) Seq() float64 { return t.Times[0] }

// Moldable algorithm names (saule2012 §5–7).
const (
	DBOS         = "DBOS"
	Iterative    = "Iterative"
	ImprovedIter = "ImprovedIterative"
	SCOJOP       = "SCOJO-P"
	FCFSSeq      = "FCFS" // every task on one processor, FCFS order (§7.2)
)

// MoldConfig configures a moldable run.
type MoldConfig struct {
	P         int
	Algorithm string
	Rho       float64 // DBOS online factor ρ (1 disables it)
	Tol       float64 // relative precision of DBOS's search on S
	// RelaxSchedule: DBOS relaxes the maximum stretch of the schedule
	// DASEDF(MoldableEDF) returns (Algorithm 2 line 3, "Let S be the
	// maximum stretch of (π*, σ*)") instead of the target S its search
	// found; the first is at most the second.
	RelaxSchedule bool
	// BisectEps > 0: DBOS searches S as §3.2 describes its binary search,
	// between the trivial lower bound (every waiting task completing now)
	// and the trivial upper bound until the bracket is at most BisectEps
	// wide (absolute, in units of stretch), and takes the bracket's
	// feasible upper end. 0: from the tighter lower bound (every waiting
	// task started now on its fastest size), returned when feasible, to
	// the relative precision Tol.
	BisectEps float64
	// ScojoShrinkAny: SCOJO-P may start a task now on any smaller size
	// (down to one processor) that ends it earlier than waiting, instead of
	// down to half its size (§5.5: "it is considered for scheduling using
	// fewer processors if it improves its flow-time").
	ScojoShrinkAny bool
	// ScojoLoadBusy: SCOJO-P's prediction Û is "the percentage of
	// processors that will be busy during the span of the task's
	// execution" (§5.5), at most 100 %, instead of the demand over the span
	// (running, queued and expected work per processor-second), which can
	// exceed 1. Capped, a task is never scaled below 0.95·n*.
	ScojoLoadBusy bool
	// ScojoSizeAtStart: SCOJO-P decides a task's size when it starts
	// (Barsanti & Sodan 2006, the source of §5.5: it "decides resource
	// allocation, i.e. the number of processors, at job start time"): at
	// every event each waiting task is sized again from the prediction at
	// that time and placed by conservative backfilling, instead of being
	// sized and placed once at its arrival.
	ScojoSizeAtStart bool
	// ImprovedSelectTotal: Improved Iterative grows the task whose best
	// step k cuts its runtime most (p_x − p_{x+k}) rather than the one with
	// the largest cut per processor ((p_x − p_{x+k})/k, the quantity §5.4
	// maximises over k; which task goes first §5.4 leaves to the original
	// rule, "the most reduction in its processing time").
	ImprovedSelectTotal bool
}

// MoldOutcome is the executed schedule of a moldable run.
type MoldOutcome struct {
	Start, End []float64
	Procs      []int
	Decisions  int // scheduler invocations that had to plan
}

// planner decides, at time t with the running tasks in prof, which
// pending tasks start now and on how many processors.
type planner interface {
	// arrive is called once per task at its release, before plan.
	arrive(i int, t float64, st *moldState)
	// plan returns the tasks to start at t with their sizes; it must
	// not change st except through its own fields.
	plan(t float64, st *moldState) []startNow
}

type startNow struct{ task, procs int }

// moldState is what a planner sees: the tasks, the pending queue in
// release order, the running tasks, and a scratch profile.
type moldState struct {
	tasks   []MoldTask
	P       int
	pending []int
	running []runEntry // end, procs (in node), task
	ends    []runEntry // running at `at`, by end time (prepare)
	at      float64
	prof    profile.Profile // scratch of baseProfile
}

// prepare sorts the running tasks that are still running at t by end
// time; baseProfile builds on it. SimulateMoldable keeps ends sorted
// itself (insertEnd, dropEnds) and sets at, so this runs only when a
// caller sets running directly.
func (st *moldState) prepare(t float64) {
	ends := st.ends[:0]
	for _, r := range st.running {
		if r.end > t {
			ends = append(ends, r)
		}
	}
	sort.Slice(ends, func(a, b int) bool { return ends[a].end < ends[b].end })
	st.ends, st.at = ends, t
}

// insertEnd adds a task started now to ends, keeping them sorted by end
// (ties in any order: the staircase only sums the processors per end).
func (st *moldState) insertEnd(r runEntry) {
	k := sort.Search(len(st.ends), func(x int) bool { return st.ends[x].end > r.end })
	st.ends = append(st.ends, runEntry{})
	copy(st.ends[k+1:], st.ends[k:])
	st.ends[k] = r
}

// dropEnds removes the tasks ending by t from ends and records t as the
// time ends describes.
func (st *moldState) dropEnds(t float64) {
	k := 0
	for k < len(st.ends) && st.ends[k].end <= t {
		k++
	}
	if k > 0 {
		st.ends = st.ends[:copy(st.ends, st.ends[k:])]
	}
	st.at = t
}

// baseProfile returns the scratch profile at t holding the running tasks
// (valid until the next call). It is built as a staircase, one step per
// distinct end time in increasing order: O(r) for r running tasks, kept
// sorted by end across events, instead of O(r²) for one reservation per
// task.
func (st *moldState) baseProfile(t float64) *profile.Profile {
	if t != st.at {
		st.prepare(t)
	}
	resetProfile(&st.prof, st.P, t, st.ends)
	return &st.prof
}

// SimulateMoldable runs an online moldable scheduler over the tasks
// (sorted by release); the scheduler is invoked at every release and
// completion and may re-plan every pending task (§2.1, §5).
func SimulateMoldable(ctx context.Context, tasks []MoldTask, cfg MoldConfig) (*MoldOutcome, error) {
	if cfg.P < 1 {
		return nil, fmt.Errorf("stretch: m = %d processors; need at least 1", cfg.P)
	}
	for i := range tasks {
		if len(tasks[i].Times) < cfg.P {
			return nil, fmt.Errorf("stretch: task %d has %d runtimes for %d processors", i, len(tasks[i].Times), cfg.P)
		}
		if i > 0 && tasks[i].Release < tasks[i-1].Release {
			return nil, fmt.Errorf("stretch: tasks not sorted by release (task %d)", i)
		}
		if !(tasks[i].Times[0] > 0) {
			return nil, fmt.Errorf("stretch: task %d has sequential time %v; must be positive", i, tasks[i].Times[0])
		}
	}
	if cfg.Tol <= 0 {
		cfg.Tol = 1e-4
	}
	var pl planner
	switch cfg.Algorithm {
	case DBOS:
		if cfg.Rho < 1 {
			return nil, fmt.Errorf("stretch: rho = %v; the online factor must be >= 1 (1 disables it)", cfg.Rho)
		}
		if cfg.BisectEps < 0 || math.IsNaN(cfg.BisectEps) {
			return nil, fmt.Errorf("stretch: DBOS bisection precision %v; must be >= 0 (0: the bound search)", cfg.BisectEps)
		}
		pl = &dbos{rho: cfg.Rho, tol: cfg.Tol, relaxSchedule: cfg.RelaxSchedule, bisectEps: cfg.BisectEps}
	case Iterative, ImprovedIter:
		pl = &iterative{improved: cfg.Algorithm == ImprovedIter, selectTotal: cfg.Algorithm == ImprovedIter && cfg.ImprovedSelectTotal}
	case SCOJOP:
		sc := newScojo(len(tasks))
		sc.shrinkAny = cfg.ScojoShrinkAny
		sc.busyCap = cfg.ScojoLoadBusy
		sc.atStart = cfg.ScojoSizeAtStart
		pl = sc
	case FCFSSeq:
		pl = fcfsSeq{}
	default:
		return nil, fmt.Errorf("stretch: moldable algorithm %q; want one of %s, %s, %s, %s, %s", cfg.Algorithm, DBOS, Iterative, ImprovedIter, SCOJOP, FCFSSeq)
	}
	return simulateMold(ctx, tasks, cfg, pl)
}

// simulateMold is the event loop of SimulateMoldable with a given planner
// (tasks and cfg already checked).
func simulateMold(ctx context.Context, tasks []MoldTask, cfg MoldConfig, pl planner) (*MoldOutcome, error) {
	n := len(tasks)
	out := &MoldOutcome{Start: make([]float64, n), End: make([]float64, n), Procs: make([]int, n)}
	st := &moldState{tasks: tasks, P: cfg.P, at: math.NaN()}
	var running pq.Queue[runEntry] // by (end, task), in container/heap's layout
	var started []bool             // tasks started by the current decision
	freeProcs := cfg.P
	next := 0
	for step := 0; ; step++ {
		if step&255 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		t := math.Inf(1)
		if next < n {
			t = tasks[next].Release
		}
		if k, _, ok := running.Peek(); ok && k.At < t {
			t = k.At
		}
		if math.IsInf(t, 1) {
			break
		}
		for running.Len() > 0 {
			if k, _, _ := running.Peek(); k.At > t {
				break
			}
			_, r, _ := running.Pop()
			freeProcs += r.node
		}
		// The planners read the running tasks in the heap's order (SCOJO-P
		// sums over them).
		st.running = running.Values(st.running[:0])
		st.dropEnds(t)
		for next < n && tasks[next].Release <= t {
			st.pending = append(st.pending, next)
			pl.arrive(next, t, st)
			next++
		}
		if len(st.pending) == 0 || freeProcs == 0 {
			continue
		}
		out.Decisions++
		starts := pl.plan(t, st)
		if len(starts) == 0 {
			continue
		}
		if len(started) < n {
			started = make([]bool, n)
		}
		for _, s := range starts {
			if s.procs < 1 || s.procs > freeProcs {
				return nil, fmt.Errorf("stretch: %s started task %d on %d processors with %d free at %v", cfg.Algorithm, s.task, s.procs, freeProcs, t)
			}
			freeProcs -= s.procs
			d := tasks[s.task].Times[s.procs-1]
			out.Start[s.task], out.End[s.task], out.Procs[s.task] = t, t+d, s.procs
			running.Push(pq.Key{At: t + d, Sub: int64(s.task)}, runEntry{end: t + d, node: s.procs, task: s.task})
			st.insertEnd(runEntry{end: t + d, node: s.procs, task: s.task})
			started[s.task] = true
		}
		kept := st.pending[:0]
		for _, i := range st.pending {
			if !started[i] {
				kept = append(kept, i)
			} else {
				started[i] = false
			}
		}
		st.pending = kept
	}
	if len(st.pending) > 0 {
		return nil, fmt.Errorf("stretch: %s left %d tasks unscheduled", cfg.Algorithm, len(st.pending))
	}
	return out, nil
}

// startsAt returns the tasks whose planned start is t. Profiles return
// the query time itself when a fit starts now, so the test is exact: a
// tolerance would start a task a rounding error before its processors free.
func startsAt(t float64, order []int, start []float64, procs []int) []startNow {
	var out []startNow
	for _, i := range order {
		if start[i] <= t {
			out = append(out, startNow{i, procs[i]})
		}
	}
	return out
}

// fcfsSeq runs every task on one processor in release order (§7.2).
type fcfsSeq struct{}

func (fcfsSeq) arrive(int, float64, *moldState) {}

func (fcfsSeq) plan(t float64, st *moldState) []startNow {
	free := st.P
	for _, r := range st.running {
		if r.end > t {
			free -= r.node
		}
	}
	var out []startNow
	for _, i := range st.pending {
		if free == 0 {
			break
		}
		out = append(out, startNow{i, 1})
		free--
	}
	return out
}
