package divisible

import (
	"context"
	"fmt"
	"math"
	"slices"

	"schedfarm/simcore/engine"
)

// Outcome is what happened to one task.
type Outcome struct {
	Accepted bool
	Nodes    int
	Est      float64 // estimated completion (planned at the last test)
	Act      float64 // actual completion on the homogeneous cluster
	// Start is r_n, the available time of the last of the task's nodes
	// (its reserved start): the task's start time of Eq. 7 of lin2007
	// (C(n) = r_n + Ê), from which the paper counts its execution time.
	// All nodes of an OPR task share it.
	Start float64
	// IIT: the task was dispatched with an inserted idle time, its nodes'
	// reserved starts differ (r_1 < r_n); never for OPR-MN and OPR-AN,
	// whose nodes start together.
	IIT bool
}

// Piece is one executed sub-task: the chunk of task Task sent to node Node.
type Piece struct {
	Task, Part, Node int
	Alpha            float64 // fraction of σ
	ReservedFrom     float64 // r_i: the node's planned availability
	Start            float64 // transmission start s_i
	TxEnd            float64 // transmission end
	End              float64 // computation end
	ReservedUntil    float64 // when the node was handed back to the scheduler
}

// Run is the result of one simulation.
type Run struct {
	Outcomes []Outcome // indexed by task ID
	Pieces   []Piece   // filled when asked for
	// DeadlineMisses counts accepted tasks that finished after their
	// deadline; Thm4Violations counts nodes of DLT tasks that finished
	// after the estimate. Both must be 0.
	DeadlineMisses, Thm4Violations int
	Work, Reserved                 float64 // node-time receiving+computing, and reserved
	LastFinish                     float64
}

const (
	evDispatch = 0 // at one instant, dispatch before a new arrival is tested
	evArrival  = 1
)

type event struct{ idx, gen int }

// tol absorbs floating-point rounding in deadline and Theorem 4 checks.
func tol(x float64) float64 { return 1e-9 * max(1, math.Abs(x)) }

// Simulate runs algorithm alg on the tasks (ordered by arrival) and returns
// every task's outcome. Execution follows the admitted plans on the
// homogeneous cluster with the real sequential transmission delays.
func Simulate(ctx context.Context, c Cluster, alg Algorithm, opt Options, tasks []Task, pieces bool) (*Run, error) {
	s := &simulator{c: c, alg: alg, opt: opt, tasks: tasks, rel: make([]float64, c.N),
		run: &Run{Outcomes: make([]Outcome, len(tasks))}, pieces: pieces, order: make([]int, c.N),
		start: make([]float64, c.N), txEnd: make([]float64, c.N), finish: make([]float64, c.N)}
	s.pl = planner{c: c, alg: alg, opt: opt, a: make([]float64, c.N), logBeta: math.Log(c.Beta())}
	var sim engine.Sim[event]
	if len(tasks) > 0 {
		sim.Schedule(tasks[0].A, evArrival, event{idx: 0})
	}
	steps := 0
	for ev, ok := sim.Next(); ok; ev, ok = sim.Next() {
		if steps++; steps%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		now := ev.Time
		switch ev.Class {
		case evArrival:
			i := ev.Payload.idx
			if i+1 < len(tasks) {
				sim.Schedule(tasks[i+1].A, evArrival, event{idx: i + 1})
			}
			if s.arrive(&tasks[i], now) {
				s.gen++
				sim.Schedule(s.queue[0].pl.first, evDispatch, event{gen: s.gen})
			}
		case evDispatch:
			if ev.Payload.gen != s.gen {
				continue // the plan it belonged to was replaced
			}
			for len(s.queue) > 0 && s.queue[0].pl.first <= now {
				if err := s.dispatch(s.queue[0]); err != nil {
					return nil, err
				}
				s.queue = s.queue[1:]
			}
			if len(s.queue) > 0 {
				s.gen++
				sim.Schedule(s.queue[0].pl.first, evDispatch, event{gen: s.gen})
			}
		}
	}
	return s.run, nil
}

type simulator struct {
	c      Cluster
	alg    Algorithm
	opt    Options
	tasks  []Task
	rel    []float64 // per node: free from this time on (dispatched work)
	head   float64   // head node free time (dispatched work)
	queue  []*job    // admitted, not dispatched, in plan order
	gen    int
	pl     planner
	run    *Run
	pieces bool
	order  []int
	// dispatch scratch, N long
	start, txEnd, finish []float64
}

// arrive runs the schedulability test for t at time now and reports
// whether t was accepted.
func (s *simulator) arrive(t *Task, now float64) bool {
	c := s.c
	j := &job{t: t}
	if s.alg.Part == UserSplit {
		extra := 0.0
		if s.opt.SplitCode {
			extra = c.Cps
		}
		nmin, ok := c.SplitNMin(t.Sigma, t.D, extra)
		if !ok {
			return false
		}
		hi := c.N
		if s.opt.SplitCode && nmin < c.N {
			hi = c.N - 1
		}
		if nmin >= hi {
			j.splitN = hi // the user asks for the whole range's top (reading: N)
		} else {
			j.splitN = nmin + int(t.SplitU*float64(hi-nmin+1))
		}
	}
	list := make([]*job, 0, len(s.queue)+1)
	for _, q := range s.queue {
		list = append(list, &job{t: q.t, splitN: q.splitN})
	}
	list = append(list, j)
	key := func(x *job) float64 {
		if s.alg.Policy == EDF {
			return x.t.Deadline()
		}
		return x.t.A
	}
	slices.SortStableFunc(list, func(x, y *job) int {
		if kx, ky := key(x), key(y); kx != ky {
			if kx < ky {
				return -1
			}
			return 1
		}
		return x.t.ID - y.t.ID
	})
	p := &s.pl
	for k, r := range s.rel {
		p.a[k] = max(r, now)
	}
	slices.Sort(p.a)
	p.head = max(s.head, now)
	planned, ok := p.test(list)
	if !ok {
		return false
	}
	s.queue = planned
	return true
}

// dispatch starts job j: its chunks go to the n nodes free earliest (in
// chunk order) and run with the real sequential transmissions.
func (s *simulator) dispatch(j *job) error {
	c, t, pl := s.c, j.t, &j.pl
	s.sortNodes()
	n := pl.n
	start, txEnd, finish := s.start[:n], s.txEnd[:n], s.finish[:n]
	switch {
	case pl.alpha == nil: // User-Split, Eq. 15
		c.SplitSchedule(t.Sigma, pl.r, start, finish)
		tx := t.Sigma * c.Cms / float64(n)
		for k := range txEnd {
			txEnd[k] = start[k] + tx
		}
	default: // DLT and OPR: chunk i after chunk i−1, from the node's r_i
		c.DLTExecute(t.Sigma, pl.r, pl.alpha, start, txEnd, finish)
	}
	out := &s.run.Outcomes[t.ID]
	out.Accepted, out.Nodes, out.Est, out.IIT = true, n, pl.est, pl.r[0] < pl.r[n-1]
	out.Start = pl.r[n-1]
	dl := t.Deadline()
	for k := 0; k < n; k++ {
		node := s.order[k]
		if s.rel[node] > pl.r[k]+tol(pl.r[k]) || s.head > start[0]+tol(start[0]) {
			return fmt.Errorf("divisible: task %d: node %d free at %v, head at %v, but planned from %v (internal error)",
				t.ID, node, s.rel[node], s.head, pl.r[k])
		}
		out.Act = max(out.Act, finish[k])
		if s.alg.Part == DLT && finish[k] > pl.est+tol(pl.est) {
			s.run.Thm4Violations++
		}
		until := pl.nodeEnd[k]
		switch {
		case s.opt.ReleaseActual:
			until = finish[k]
		case s.opt.ReleaseRtgrid && s.alg.Part == DLT && pl.r[0] < pl.r[n-1]:
			until = pl.r[n-1] // rtgrid: end time = Ê, a duration (see Options)
		}
		s.run.Work += finish[k] - start[k]
		s.run.Reserved += until - pl.r[k]
		s.rel[node] = until
		if s.pieces {
			s.run.Pieces = append(s.run.Pieces, Piece{Task: t.ID, Part: k, Node: node, Alpha: alphaOf(pl, k),
				ReservedFrom: pl.r[k], Start: start[k], TxEnd: txEnd[k], End: finish[k], ReservedUntil: until})
		}
	}
	s.head = txEnd[n-1]
	if out.Act > dl+tol(dl) {
		s.run.DeadlineMisses++
	}
	s.run.LastFinish = max(s.run.LastFinish, out.Act)
	return nil
}

// sortNodes puts the node IDs in s.order by release time, ties by ID: an
// insertion sort (N is small) with no comparison closure; the key is a
// total order, so the result is that of any sort.
func (s *simulator) sortNodes() {
	o, rel := s.order, s.rel
	for k := range o {
		o[k] = k
	}
	for i := 1; i < len(o); i++ {
		x := o[i]
		j := i
		for ; j > 0; j-- {
			y := o[j-1]
			if rel[y] < rel[x] || rel[y] == rel[x] && y < x {
				break
			}
			o[j] = y
		}
		o[j] = x
	}
}

func alphaOf(pl *plan, k int) float64 {
	if pl.alpha == nil {
		return 1 / float64(pl.n)
	}
	return pl.alpha[k]
}
