package stretch

import (
	"context"
	"fmt"
	"math"
	"sort"

	"schedfarm/simcore/pq"
)

// Task is one sequential task (saule2012 §2.1): released at Release, it runs
// for Size time units on one processor.
type Task struct {
	Release, Size float64
}

// Sequential algorithm names (saule2012 §3).
const (
	FCFS   = "FCFS"
	DASEDF = "DASEDF"
)

// SeqConfig selects the algorithm and the reservation scheme of §4.
type SeqConfig struct {
	M         int    // processors
	Algorithm string // FCFS or DASEDF
	// X auxiliary machines and threshold T of the reservation scheme (§4);
	// X = 0 disables it.
	X int
	T float64
	// Tol is the relative precision of DASEDF's binary search on S.
	Tol float64
	// Check is DASEDF's feasibility property: "lemma" (or ""),
	// "strict_prefix" or "no_running" (checkRule).
	Check string
	// KeepMax: DASEDF orders the tasks by r_i + S·p_i with S at least the
	// largest stretch reached so far, "targeting to keep the current
	// maximum stretch below the global maximum stretch achieved so far",
	// the rule saule2012 §4.2 contrasts DASEDF with; false: the
	// instantaneous S of the search (§3.2).
	KeepMax bool
	// Side is what the reservation scheme compares with T and between the
	// parts (saule2012 §4: "the maximum stretch in the resulting schedule"):
	// SidePlan (or "") the plan of the waiting tasks and the new one,
	// SideWithRunning also the running tasks' stretches, SideWhole every
	// task the part has started so far.
	Side string
	// Abandon > 0 stops the run as soon as its maximum stretch is known to
	// be at least Abandon (SeqOutcome.Abandoned): reservation: best drops a
	// trial that can no longer beat the best one found so far. The bound is
	// the largest stretch of the started tasks (fixed once started) and,
	// checked every few hundred events, (t + p_i − r_i)/p_i of the pending
	// tasks; both are at most the final stretch, so a run that completes
	// would have had max stretch ≥ Abandon too. 0 never abandons.
	Abandon float64
}

// Readings of the reservation scheme's "maximum stretch in the resulting
// schedule" (saule2012 §4), SeqConfig.Side.
const (
	SidePlan        = "plan"
	SideWithRunning = "with_running"
	SideWhole       = "whole"
)

// SeqOutcome is the executed schedule of a sequential run.
type SeqOutcome struct {
	Start, End []float64
	Node       []int // processor the task ran on (0..M-1, auxiliary last)
	Part       []int // 0: main part, 1: auxiliary part
	Decisions  int   // DASEDF binary searches performed
	Checks     int   // Lemma 3.2 feasibility checks performed
	// MaxStretch is the largest stretch (C − r)/p of the started tasks:
	// the run's max stretch once it completes.
	MaxStretch float64
	// Abandoned: the run stopped early because its max stretch reached
	// SeqConfig.Abandon; the schedule covers only the tasks started by then.
	Abandoned bool
}

// part is one independently scheduled group of processors: the whole
// cluster, or the main or the auxiliary part of the reservation scheme.
type part struct {
	m       int
	base    int                // first node index
	free    []int              // idle node indices (a stack)
	running pq.Queue[runEntry] // running tasks by (end, task)
	ends    []float64          // end times of the running tasks, sorted
	pending []int              // task indices in release order
	dasedf  *dasedf            // DASEDF state (nil for FCFS)
	scratch []float64          // processor free times for plans
	list    lister             // the plan of the last planWith (DASEDF)
	chosen  []int              // tasks started by dispatch (reused)
	started []bool             // per task: started (DASEDF dispatch)
	fcfs    *fcfsPlan          // FCFS plan kept incrementally (reservation scheme)
	// startedMax is the largest stretch of the tasks started on the part
	// (fixed at their start): the past of its schedule (SideWhole).
	startedMax float64
}

// fcfsPlan is the FCFS schedule of a part, kept up to date as tasks are
// appended: FCFS executes exactly its plan (sizes are known on release and
// the queue order never changes), so the plan only grows at the back and
// shrinks at the front. free holds the planned free time of each processor
// after every pending task; best is a monotone deque of (task, planned
// stretch) giving the largest planned stretch of the pending tasks in O(1)
// amortised per task, instead of re-planning the queue at every release.
type fcfsPlan struct {
	free pq.Queue[struct{}] // planned free times (the keys), earliest first
	best []planned
}

type planned struct {
	task    int
	stretch float64
}

// add plans task i at the back of the queue at time t, commits it if
// commit, and returns the new largest planned stretch of the queue.
func (f *fcfsPlan) add(tasks []Task, i int, t float64, commit bool) float64 {
	k, _, _ := f.free.Peek()
	start := math.Max(k.At, t)
	s := (start + tasks[i].Size - tasks[i].Release) / tasks[i].Size
	worst := s
	if len(f.best) > 0 {
		worst = math.Max(worst, f.best[0].stretch)
	}
	if commit {
		f.free.ReplaceTop(pq.Key{At: start + tasks[i].Size}, struct{}{})
		for len(f.best) > 0 && f.best[len(f.best)-1].stretch <= s {
			f.best = f.best[:len(f.best)-1]
		}
		f.best = append(f.best, planned{i, s})
	}
	return worst
}

// started drops the tasks before the first still pending one (first < 0:
// none pending).
func (f *fcfsPlan) started(first int) {
	for len(f.best) > 0 && (first < 0 || f.best[0].task < first) {
		f.best = f.best[1:]
	}
}

type runEntry struct {
	end  float64
	node int
	task int
}

func newPart(m, base int, alg string, tol float64, rule checkRule) *part {
	p := &part{m: m, base: base}
	for n := m - 1; n >= 0; n-- {
		p.free = append(p.free, base+n)
	}
	if alg == DASEDF {
		p.dasedf = &dasedf{tol: tol, rule: rule}
	} else {
		p.fcfs = &fcfsPlan{}
		for range m {
			p.fcfs.free.Push(pq.Key{}, struct{}{})
		}
	}
	return p
}

// freeTimes returns the remaining work of the running tasks at t and the
// processor free times (t for idle processors), sorted. The running tasks'
// end times are kept sorted (p.ends), so no sort is needed: they all lie
// after t once the completions at t are processed. resid is summed in the
// running heap's order, as it always was (floating-point sums depend on
// the order).
func (p *part) freeTimes(t float64) (resid float64, f []float64) {
	f = p.scratch[:0]
	for range p.free {
		f = append(f, t)
	}
	p.running.Each(func(k pq.Key, _ runEntry) { resid += k.At - t })
	f = append(f, p.ends...)
	if len(p.ends) > 0 && p.ends[0] < t {
		sort.Float64s(f) // not reached from SimulateSeq: completions ≤ t are processed first
	}
	p.scratch = f
	return resid, f
}

// start runs task i on the last idle node from t to t + size.
func (p *part) start(tasks []Task, i int, t float64, out *SeqOutcome) {
	node := p.free[len(p.free)-1]
	p.free = p.free[:len(p.free)-1]
	end := t + tasks[i].Size
	out.Start[i], out.End[i], out.Node[i] = t, end, node
	s := (end - tasks[i].Release) / tasks[i].Size
	out.MaxStretch = math.Max(out.MaxStretch, s)
	p.startedMax = math.Max(p.startedMax, s)
	p.running.Push(pq.Key{At: end, Sub: int64(i)}, runEntry{end: end, node: node, task: i})
	k := sort.SearchFloat64s(p.ends, end)
	p.ends = append(p.ends, 0)
	copy(p.ends[k+1:], p.ends[k:])
	p.ends[k] = end
}

// complete ends the running tasks that end at or before t and frees their
// nodes.
func (p *part) complete(t float64) {
	for p.running.Len() > 0 {
		if k, _, _ := p.running.Peek(); k.At > t {
			break
		}
		_, r, _ := p.running.Pop()
		p.free = append(p.free, r.node)
		// r.end is the smallest end: ends[0] holds the same value.
		p.ends = p.ends[:copy(p.ends, p.ends[1:])]
	}
}

// SimulateSeq runs the online scheduler over the tasks (sorted by release)
// and returns the executed schedule. The scheduler is invoked at every
// release and completion (§2.1); the reservation scheme assigns each
// released task to the main or the auxiliary part (§4).
func SimulateSeq(ctx context.Context, tasks []Task, cfg SeqConfig) (*SeqOutcome, error) {
	if cfg.M < 1 {
		return nil, fmt.Errorf("stretch: m = %d processors; need at least 1", cfg.M)
	}
	if cfg.Algorithm != FCFS && cfg.Algorithm != DASEDF {
		return nil, fmt.Errorf("stretch: algorithm %q; want %s or %s", cfg.Algorithm, FCFS, DASEDF)
	}
	if cfg.Side != "" && cfg.Side != SidePlan && cfg.Side != SideWithRunning && cfg.Side != SideWhole {
		return nil, fmt.Errorf("stretch: reservation side %q; want %s, %s or %s", cfg.Side, SidePlan, SideWithRunning, SideWhole)
	}
	if cfg.X < 0 || cfg.X >= cfg.M {
		return nil, fmt.Errorf("stretch: reservation X = %d must be in [0, m-1] = [0, %d]", cfg.X, cfg.M-1)
	}
	if cfg.Tol <= 0 {
		cfg.Tol = 1e-4
	}
	rule, ok := checkRules[cfg.Check]
	if cfg.Check == "" {
		rule, ok = ruleLemma, true
	}
	if !ok {
		return nil, fmt.Errorf("stretch: dasedf_check %q; want lemma, strict_prefix or no_running", cfg.Check)
	}
	for i := 1; i < len(tasks); i++ {
		if tasks[i].Release < tasks[i-1].Release {
			return nil, fmt.Errorf("stretch: tasks not sorted by release (task %d at %v after %v)", i, tasks[i].Release, tasks[i-1].Release)
		}
	}
	for i, tk := range tasks {
		if !(tk.Size > 0) || math.IsInf(tk.Size, 0) || math.IsNaN(tk.Release) {
			return nil, fmt.Errorf("stretch: task %d has size %v, release %v; sizes must be positive and finite", i, tk.Size, tk.Release)
		}
	}
	n := len(tasks)
	out := &SeqOutcome{Start: make([]float64, n), End: make([]float64, n), Node: make([]int, n), Part: make([]int, n)}
	parts := []*part{newPart(cfg.M-cfg.X, 0, cfg.Algorithm, cfg.Tol, rule)}
	if cfg.X > 0 {
		parts = append(parts, newPart(cfg.X, cfg.M-cfg.X, cfg.Algorithm, cfg.Tol, rule))
	}
	next := 0
	for step := 0; ; step++ {
		if step&1023 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		// Next event time: the earliest completion or release.
		t := math.Inf(1)
		if next < n {
			t = tasks[next].Release
		}
		for _, p := range parts {
			if k, _, ok := p.running.Peek(); ok && k.At < t {
				t = k.At
			}
		}
		if math.IsInf(t, 1) {
			break
		}
		for _, p := range parts {
			p.complete(t)
		}
		for next < n && tasks[next].Release <= t {
			k := 0
			if len(parts) == 2 {
				k = chooseSide(parts, tasks, next, t, cfg, out)
			}
			if f := parts[k].fcfs; f != nil {
				f.add(tasks, next, t, true)
			}
			parts[k].pending = append(parts[k].pending, next)
			out.Part[next] = k
			next++
		}
		for _, p := range parts {
			p.dispatch(tasks, t, cfg, out)
		}
		if cfg.Abandon > 0 && (out.MaxStretch >= cfg.Abandon || step&255 == 0 && pendingBound(parts, tasks, t) >= cfg.Abandon) {
			out.Abandoned = true
			return out, nil
		}
	}
	return out, nil
}

// pendingBound is the largest (t + p_i − r_i)/p_i over the pending tasks:
// a task still waiting at t completes at C_i ≥ t + p_i, so its final
// stretch is at least that (rounding is monotone, so also in floating
// point).
func pendingBound(parts []*part, tasks []Task, t float64) float64 {
	lb := 0.0
	for _, p := range parts {
		for _, i := range p.pending {
			if s := (t + tasks[i].Size - tasks[i].Release) / tasks[i].Size; s > lb {
				lb = s
			}
		}
	}
	return lb
}

// chooseSide is the reservation scheme of §4: the new task goes to the main
// part when the main part's new schedule has a maximum stretch below T;
// otherwise to the part whose new schedule has the smaller maximum stretch
// (the main part on a tie).
//
// The main part's plan is list-scheduled only as far as the decision
// needs: up to the first task reaching T (then sMain ≥ T), and after the
// auxiliary part's plan, up to the first task exceeding sAux.
func chooseSide(parts []*part, tasks []Task, i int, t float64, cfg SeqConfig, out *SeqOutcome) int {
	switch cfg.Side {
	case SideWithRunning:
		return chooseSidePast(parts, tasks, i, t, cfg, out, (*part).runningMax)
	case SideWhole:
		return chooseSidePast(parts, tasks, i, t, cfg, out, func(p *part, _ []Task) float64 { return p.startedMax })
	}
	main := parts[0]
	if main.fcfs != nil {
		sMain := main.fcfs.add(tasks, i, t, false)
		if sMain < cfg.T {
			return 0
		}
		if parts[1].planWith(tasks, i, t, out) < sMain {
			return 1
		}
		return 0
	}
	main.plan(tasks, i, t, out)
	if main.list.below(tasks, cfg.T) || !main.list.reaches(tasks, cfg.T) {
		return 0 // the whole plan is below T
	}
	sAux := parts[1].planWith(tasks, i, t, out)
	if !main.list.below(tasks, sAux) && main.list.exceeds(tasks, sAux) {
		return 1 // sMain > sAux
	}
	return 0
}

// chooseSidePast is chooseSide with each part's schedule read as its plan
// and part of its past, the stretches (C − r)/p of started tasks, fixed
// once started: past gives their maximum, over the running tasks
// (SideWithRunning) or over every task the part started (SideWhole). The
// maximum stretch of a part's new schedule is the larger of the two.
func chooseSidePast(parts []*part, tasks []Task, i int, t float64, cfg SeqConfig, out *SeqOutcome, past func(*part, []Task) float64) int {
	sMain := math.Max(past(parts[0], tasks), parts[0].planWith(tasks, i, t, out))
	if sMain < cfg.T {
		return 0
	}
	if math.Max(past(parts[1], tasks), parts[1].planWith(tasks, i, t, out)) < sMain {
		return 1
	}
	return 0
}

// runningMax is the largest stretch (C − r)/p of the part's running tasks.
func (p *part) runningMax(tasks []Task) float64 {
	s := 0.0
	p.running.Each(func(_ pq.Key, r runEntry) {
		s = math.Max(s, (r.end-tasks[r.task].Release)/tasks[r.task].Size)
	})
	return s
}

// planWith returns the maximum stretch of the part's schedule of its pending
// tasks plus task i, as the part's algorithm would build it at t.
func (p *part) planWith(tasks []Task, i int, t float64, out *SeqOutcome) float64 {
	if p.fcfs != nil {
		return p.fcfs.add(tasks, i, t, false)
	}
	p.plan(tasks, i, t, out)
	p.list.exceeds(tasks, math.Inf(1))
	return p.list.worst
}

// plan runs DASEDF's search on the pending tasks plus task i at t and
// prepares p.list to list-schedule them in EDF order.
func (p *part) plan(tasks []Task, i int, t float64, out *SeqOutcome) {
	p.pending = append(p.pending, i)
	resid, f := p.freeTimes(t)
	p.dasedf.search(tasks, p.pending, t, resid, f)
	p.pending = p.pending[:len(p.pending)-1]
	out.Decisions++
	out.Checks += p.dasedf.checks
	p.list.reset(p.dasedf.order, f)
	p.list.t, p.list.resid = t, resid
}

// dispatch starts pending tasks on idle processors: in release order for
// FCFS, in EDF order at DASEDF's best target stretch otherwise.
func (p *part) dispatch(tasks []Task, t float64, cfg SeqConfig, out *SeqOutcome) {
	k := len(p.free)
	if k == 0 || len(p.pending) == 0 {
		return
	}
	chosen := p.chosen[:0]
	if p.dasedf != nil && len(p.pending) > k {
		resid, f := p.freeTimes(t)
		s := p.dasedf.search(tasks, p.pending, t, resid, f)
		out.Decisions++
		out.Checks += p.dasedf.checks
		if cfg.KeepMax && out.MaxStretch > s {
			// Order at the largest stretch reached so far instead.
			p.dasedf.sortAt(tasks, out.MaxStretch, -1)
		}
		chosen = append(chosen, p.dasedf.order[:k]...)
	} else {
		if k > len(p.pending) {
			k = len(p.pending)
		}
		chosen = append(chosen, p.pending[:k]...)
	}
	p.chosen = chosen
	for _, i := range chosen {
		p.start(tasks, i, t, out)
	}
	if p.dasedf != nil && len(chosen) < len(p.pending) {
		if len(p.started) < len(tasks) {
			p.started = make([]bool, len(tasks))
		}
		for _, i := range chosen {
			p.started[i] = true
		}
		kept := p.pending[:0]
		for _, i := range p.pending {
			if !p.started[i] {
				kept = append(kept, i)
			}
		}
		p.pending = kept
	} else {
		p.pending = append(p.pending[:0], p.pending[len(chosen):]...)
	}
	if p.fcfs != nil {
		first := -1
		if len(p.pending) > 0 {
			first = p.pending[0]
		}
		p.fcfs.started(first)
	}
}

// listStretch list-schedules the tasks in the given order, each on the
// processor free earliest (free times f, sorted ascending; f is consumed),
// and returns the largest stretch (C − r)/p. O(n log m).
func listStretch(tasks []Task, order []int, f []float64) float64 {
	var l lister
	l.reset(order, f)
	l.exceeds(tasks, math.Inf(1))
	return l.worst
}

// lister list-schedules tasks in a given order, each on the processor free
// earliest, resumably: it stops at the first task whose stretch reaches (or
// exceeds) a bound and continues from there on the next call. free is a
// min-heap of processor free times (a sorted slice is one).
type lister struct {
	order []int
	free  []float64
	next  int     // first task not yet scheduled
	worst float64 // largest stretch of the scheduled tasks
	// t and resid (the remaining work of the running tasks, Σ(f − t)) for
	// below; resid < 0: unknown, below never answers.
	t, resid float64
}

// reset starts a list schedule of order on the processors free at f
// (sorted ascending; f is consumed).
func (l *lister) reset(order []int, f []float64) {
	l.order, l.free, l.next, l.worst, l.resid = order, f, 0, 0, -1
}

// below reports whether every task's stretch in the list schedule is
// certainly below bound, without building it: list scheduling starts task
// k at the earliest free time, at most the average t + (R + W_k)/m (W_k the
// work before k in the order) and, for k < m, at most the k-th earliest
// initial free time, so its stretch is at most
// (t + (R + W_k)/m + p_k − r_k)/p_k. The margin covers the rounding of the
// list schedule's sums (at most n + m terms each) and of this one. False
// means "not certain": the list must decide.
func (l *lister) below(tasks []Task, bound float64) bool {
	if l.resid < 0 || l.worst >= bound {
		return false
	}
	m := float64(len(l.free))
	ulps := float64(16*(len(l.order)+len(l.free))+64) * 0x1p-53
	at := math.Abs(l.t)
	w := l.resid
	for j, i := range l.order {
		p, r := tasks[i].Size, tasks[i].Release
		if j >= l.next {
			avg := l.t + w/m
			if l.next == 0 && j < len(l.free) && l.free[j] < avg {
				// Before any task is placed l.free is the sorted free times:
				// j tasks touch at most j processors, so one of the j+1
				// earliest is untouched.
				avg = l.free[j]
			}
			u := (avg + p - r) / p
			if u+ulps*(at+w/m+p+math.Abs(r))/p >= bound {
				return false
			}
		}
		w += p
	}
	return true
}

// reaches schedules tasks until one has stretch ≥ bound and reports
// whether one did (false: the whole schedule is below bound).
func (l *lister) reaches(tasks []Task, bound float64) bool {
	return l.run(tasks, bound, true)
}

// exceeds schedules tasks until one has stretch > bound and reports
// whether one did (false: the whole schedule's max stretch, l.worst, is at
// most bound).
func (l *lister) exceeds(tasks []Task, bound float64) bool {
	return l.run(tasks, bound, false)
}

func (l *lister) run(tasks []Task, bound float64, orEqual bool) bool {
	if l.worst > bound || orEqual && l.worst >= bound {
		return true
	}
	h := l.free
	n := len(h)
	for l.next < len(l.order) {
		i := l.order[l.next]
		l.next++
		c := h[0] + tasks[i].Size
		// Replace the minimum by c and sift it down.
		j := 0
		for {
			k := 2*j + 1
			if k >= n {
				break
			}
			if k+1 < n && h[k+1] < h[k] {
				k++
			}
			if !(h[k] < c) {
				break
			}
			h[j] = h[k]
			j = k
		}
		h[j] = c
		if st := (c - tasks[i].Release) / tasks[i].Size; st > l.worst {
			l.worst = st
			if st > bound || orEqual && st >= bound {
				return true
			}
		}
	}
	return false
}
