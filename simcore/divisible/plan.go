package divisible

import (
	"math"
	"slices"
)

// Options are the readings of the paper and spec that are open; each is a
// documented model parameter.
type Options struct {
	// PerTask plans each task of the list at its own earliest point, the
	// literal reading of Figure 2; false scans availability points and
	// tries every waiting task at each (the authors' code, docs/models/divisible.md A7).
	PerTask bool
	// SplitCode uses the authors' code for User-Split: N_min with
	// denominator D − σCms − Cps and n in [N_min, N−1] (N when N_min >= N)
	// instead of the paper's [N_min, N] (docs/models/divisible.md A10).
	SplitCode bool
	// ReleaseActual frees a node at its actual finish instead of the
	// estimated completion the plan reserved (docs/models/divisible.md A9).
	ReleaseActual bool
	// ReleaseRtgrid reproduces the node bookkeeping of the authors'
	// simulator for DLT tasks planned with an IIT (r_1 < r_n): rtgrid's
	// SchMN_IIT.recalculateTask stores the heterogeneous cost Ê (a
	// duration) as the sub-tasks' completion time, and Machine.assignTask
	// makes it the node's end time, so after dispatch the nodes count as
	// free (here: from r_n on) although they compute until r_n + Ê. Not a
	// reading of the paper (Fig. 2 and Theorem 4 hold the nodes until the
	// completion); it exists to measure how much of the published gap the
	// code's bookkeeping explains. Executions in this mode overlap on nodes.
	ReleaseRtgrid bool
	// IntegerTime rounds as the authors' simulator does (all its times are
	// int): arrivals, σ and D are integers, and every computed duration
	// (E, Ê, the heterogeneous Cps_i, User-Split piece costs) is rounded up
	// (docs/models/divisible.md A12; DivHomoSingle/DivHeteroSingle).
	IntegerTime bool
}

// plan is where and when one admitted task runs.
type plan struct {
	n       int
	r       []float64 // availability of the i-th node (ascending): its reserved start
	alpha   []float64 // data fractions; nil for User-Split (equal pieces)
	first   float64   // first use of a resource (dispatch time)
	est     float64   // estimated completion
	nodeEnd []float64 // reserved end of the i-th node
	dd      float64   // head node free again (end of the last transmission)
}

// job is an admitted, not yet dispatched task with its current plan.
type job struct {
	t      *Task
	splitN int
	pl     plan
}

type status int

const (
	fit status = iota
	notYet
	impossible
)

// planner runs the schedulability test of Figure 2 (lin2007 §4.2) on a
// snapshot of the availability of the nodes.
type planner struct {
	c       Cluster
	alg     Algorithm
	opt     Options
	a       []float64 // node availabilities, ascending
	head    float64   // head node free time
	logBeta float64   // ln β of c, for NMin; set by the simulator
	buf     []float64 // scratch
	buf2    []float64
	// merge is commit's scratch; start and txEnd are dltPlan's (N each).
	merge, start, txEnd []float64
}

func (p *planner) avail(k int) float64 { return max(p.a[k], p.head) }

// count returns AN(τ): how many nodes are available by τ.
func (p *planner) count(tau float64) int {
	if tau < p.head {
		return 0
	}
	n := 0
	for n < len(p.a) && p.a[n] <= tau {
		n++
	}
	return n
}

// next returns the first availability time after τ (+Inf if none).
func (p *planner) next(tau float64) float64 {
	for k := range p.a {
		if v := p.avail(k); v > tau {
			return v
		}
	}
	return math.Inf(1)
}

// test plans list (in policy order) and returns the jobs in plan order, or
// ok = false when some task cannot be planned (the new task is rejected).
func (p *planner) test(list []*job) (planned []*job, ok bool) {
	planned = make([]*job, 0, len(list))
	if p.opt.PerTask {
		for _, j := range list {
			tau := p.avail(0)
			for {
				an := p.count(tau)
				pl, st := p.place(j, tau, an)
				if st == impossible || st == notYet && an >= p.c.N {
					return nil, false
				}
				if st == fit {
					p.commit(j, pl)
					planned = append(planned, j)
					break
				}
				tau = p.next(tau)
			}
		}
		return planned, true
	}
	list = slices.Clone(list)
	tau := p.avail(0)
	for len(list) > 0 {
		an := p.count(tau)
		for i := 0; i < len(list) && an > 0; {
			pl, st := p.place(list[i], tau, an)
			switch st {
			case impossible:
				return nil, false
			case notYet:
				i++
				continue
			}
			p.commit(list[i], pl)
			planned = append(planned, list[i])
			list = slices.Delete(list, i, i+1)
			an = p.count(tau)
		}
		if len(list) == 0 {
			break
		}
		if an >= p.c.N {
			return nil, false // every node free, yet a task does not fit
		}
		tau = p.next(tau)
	}
	return planned, true
}

// commit reserves the plan's nodes and the head node.
func (p *planner) commit(j *job, pl plan) {
	j.pl = pl
	// p.a is sorted; its first n entries become the plan's node ends. Sort
	// those few (usually already in order) and merge them with the sorted
	// rest: the sorted multiset, as sorting all of p.a would give.
	n := pl.n
	if len(p.merge) < len(p.a) {
		p.merge = make([]float64, len(p.a))
	}
	ends, rest := p.merge[:n], p.merge[n:len(p.a)]
	copy(ends, pl.nodeEnd[:n])
	copy(rest, p.a[n:])
	for i := 1; i < n; i++ {
		for k := i; k > 0 && ends[k] < ends[k-1]; k-- {
			ends[k], ends[k-1] = ends[k-1], ends[k]
		}
	}
	i, k := 0, 0
	for o := range p.a {
		if k == len(rest) || i < n && ends[i] <= rest[k] {
			p.a[o] = ends[i]
			i++
		} else {
			p.a[o] = rest[k]
			k++
		}
	}
	p.head = pl.dd
}

// place tries to plan job j at scan point τ with an nodes available by τ.
func (p *planner) place(j *job, tau float64, an int) (plan, status) {
	c := p.c
	t := j.t
	dl := t.Deadline()
	if cap(p.buf) < c.N {
		p.buf = make([]float64, c.N)
		p.buf2 = make([]float64, c.N)
		p.start = make([]float64, c.N)
		p.txEnd = make([]float64, c.N)
	}
	switch p.alg.Part {
	case OPRAN:
		if an < c.N {
			return plan{}, notYet
		}
		s := p.avail(c.N - 1)
		if s+p.cost(t.Sigma, c.N) > dl {
			return plan{}, impossible
		}
		return p.oprPlan(t, c.N, s), fit
	case OPRMN:
		n, ok := c.nMin(t.Sigma, dl, tau, p.logBeta)
		if !ok {
			return plan{}, impossible
		}
		// When the deadline is still missed, add nodes one by one
		// (docs/models/divisible.md A8).
		for ; n <= an; n++ {
			s := p.avail(n - 1)
			if s+p.cost(t.Sigma, n) <= dl {
				return p.oprPlan(t, n, s), fit
			}
		}
		return plan{}, notYet
	case DLT:
		n, ok := c.nMin(t.Sigma, dl, tau, p.logBeta) // ñ_min with r_n = τ, Eq. 14
		if !ok {
			return plan{}, impossible
		}
		for ; n <= an; n++ {
			r := p.buf[:n]
			for k := range r {
				r[k] = p.avail(k)
			}
			alpha := p.buf2[:n]
			est := r[n-1] + c.dltPartition(t.Sigma, r, alpha, p.opt.IntegerTime)
			if est <= dl {
				return p.dltPlan(t, r, alpha, est), fit
			}
		}
		return plan{}, notYet
	default: // UserSplit
		n := j.splitN
		if n > an {
			return plan{}, notYet
		}
		pl := plan{n: n, r: make([]float64, n), nodeEnd: make([]float64, n)}
		for k := range pl.r {
			pl.r[k] = p.avail(k)
		}
		starts := p.buf[:n]
		pl.est = c.splitSchedule(t.Sigma, pl.r, starts, pl.nodeEnd, p.opt.IntegerTime) // Eq. 15
		if pl.est > dl {
			// The n earliest nodes never get earlier: later points cannot help.
			return plan{}, impossible
		}
		pl.first = starts[0]
		tx := t.Sigma * c.Cms / float64(n)
		if p.opt.IntegerTime {
			tx = math.Ceil(tx - 1e-9)
		}
		pl.dd = starts[n-1] + tx
		return pl, fit
	}
}

// cost is E(σ, n), rounded up with IntegerTime (DivHomoSingle.computeCost).
func (p *planner) cost(sigma float64, n int) float64 {
	e := p.c.E(sigma, n)
	if p.opt.IntegerTime {
		e = math.Ceil(e - 1e-9)
	}
	return e
}

// oprPlan: n nodes start together at s, OPR fractions; every node finishes
// at s + E(σ, n) and the head node is busy until s + σCms (docs/models/divisible.md A4).
func (p *planner) oprPlan(t *Task, n int, s float64) plan {
	pl := plan{n: n, r: make([]float64, n), alpha: p.c.OPRFractions(n), nodeEnd: make([]float64, n),
		first: s, est: s + p.cost(t.Sigma, n), dd: s + t.Sigma*p.c.Cms}
	for k := range pl.r {
		pl.r[k] = s
		pl.nodeEnd[k] = pl.est
	}
	return pl
}

// dltPlan: every node is reserved from its availability until the estimate
// r_n + Ê; the head node is busy until the last actual transmission ends.
func (p *planner) dltPlan(t *Task, r, alpha []float64, est float64) plan {
	n := len(r)
	pl := plan{n: n, r: slices.Clone(r), alpha: slices.Clone(alpha), nodeEnd: make([]float64, n), est: est, first: r[0]}
	start, txEnd := p.start[:n], p.txEnd[:n]
	p.c.DLTExecute(t.Sigma, pl.r, pl.alpha, start, txEnd, pl.nodeEnd)
	pl.dd = txEnd[n-1]
	for k := range pl.nodeEnd {
		pl.nodeEnd[k] = est
	}
	return pl
}
