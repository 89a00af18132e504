package stretch

import (
	"math"
	"sort"

	"schedfarm/simcore/profile"
)

// dbos is Algorithm 2 of saule2012 (§6): DASEDF's binary search on the
// target stretch S with MoldableEDF as the deadline scheduler, then the
// schedule at ρ·S if MoldableEDF finds it feasible.
type dbos struct {
	rho, tol      float64
	relaxSchedule bool    // relax the schedule's max stretch, not the target (MoldConfig.RelaxSchedule)
	bisectEps     float64 // > 0: §3.2's bisection to this absolute precision (MoldConfig.BisectEps)
	prevS         float64
	key           []float64 // deadline per task
	start         []float64 // planned start per task
	procs         []int     // planned processors per task
	order         []int
	inPend        []int32 // generation stamps per task (syncOrder)
	gen           int32
	// next[i][j] is the first j' > j with T[j'] < T[j'-1] (len(T) if
	// none): the processor counts MoldableEDF tries after j. Built when
	// task i is first planned, dropped when it starts.
	next [][]int32
	// ref is the last feasible MoldableEDF check of the current
	// invocation (refOK), which later checks reuse; tmp is the running
	// check's record.
	ref, tmp edfRecord
	refOK    bool
}

// edfRecord is one MoldableEDF check: the order, each position's start,
// processors and deadline, and the profile before every ckEvery-th
// position.
type edfRecord struct {
	order []int
	x     []float64
	k     []int32
	D     []float64
	ck    []profile.Profile
}

// size makes room for n positions.
func (r *edfRecord) size(n int) {
	r.x, r.k, r.D = moldGrow(r.x, n), moldGrow(r.k, n), moldGrow(r.D, n)
	for len(r.ck) < (n+ckEvery-1)/ckEvery {
		r.ck = append(r.ck, profile.Profile{})
	}
}

func (*dbos) arrive(int, float64, *moldState) {}

// syncOrder keeps, of the previous order, the tasks still pending, in that
// order, then appends the new ones (pending is in release order).
func (d *dbos) syncOrder(pending []int) {
	if len(d.inPend) < len(d.key) {
		d.inPend = make([]int32, len(d.key))
	}
	if d.gen > math.MaxInt32-4 {
		clear(d.inPend)
		d.gen = 0
	}
	d.gen += 2
	in, seen := d.gen, d.gen+1
	for _, i := range pending {
		d.inPend[i] = in
	}
	kept := d.order[:0]
	for _, i := range d.order {
		if d.inPend[i] == in {
			d.inPend[i] = seen
			kept = append(kept, i)
		}
	}
	for _, i := range pending {
		if d.inPend[i] == in {
			kept = append(kept, i)
		}
	}
	d.order = kept
}

func (d *dbos) plan(t float64, st *moldState) []startNow {
	if len(d.key) < len(st.tasks) {
		d.key = make([]float64, len(st.tasks))
		d.start = make([]float64, len(st.tasks))
		d.procs = make([]int, len(st.tasks))
	}
	d.refOK = false // the running tasks and the queue changed
	var s float64
	if d.bisectEps > 0 {
		s = d.bisect(t, st)
	} else {
		s = d.boundSearch(t, st)
	}
	d.prevS = s
	relax := s
	if d.relaxSchedule && d.rho > 1 {
		d.moldableEDF(s, t, st)
		relax = d.planStretch(st)
	}
	// Lines 4–6 of Algorithm 2: relax S by ρ if that schedule is feasible.
	if !(d.rho > 1 && d.moldableEDF(d.rho*relax, t, st)) {
		d.moldableEDF(s, t, st)
	}
	starts := startsAt(t, d.order, d.start, d.procs)
	for _, x := range starts {
		d.next[x.task] = nil
	}
	return starts
}

// boundSearch is the default search on S: the lower bound max_i (t +
// p_{i,m} − r_i)/p_{i,1} (every waiting task started now on its fastest
// size), returned when MoldableEDF finds it feasible; otherwise doubling
// from the previous invocation's S and bisection to the relative
// precision tol, the feasible end returned.
func (d *dbos) boundSearch(t float64, st *moldState) float64 {
	lo := 0.0
	for _, i := range st.pending {
		tk := &st.tasks[i]
		lo = math.Max(lo, (t+tk.Times[st.P-1]-tk.Release)/tk.Seq())
	}
	if d.moldableEDF(lo, t, st) {
		return lo
	}
	hi := d.prevS
	if !(hi > lo) {
		hi = 2 * lo
	}
	for !d.moldableEDF(hi, t, st) {
		lo, hi = hi, 2*hi
	}
	return d.halve(lo, hi, t, st, func(lo, hi float64) bool { return hi-lo > d.tol*hi })
}

// bisect is the search of §3.2 ("The binary search must be done between a
// lower bound and an upper bound"): from the trivial lower bound, every
// waiting task completing now (max_i (t − r_i)/p_{i,1}), and the trivial
// upper bound, the machine freed by its running tasks and then every
// waiting task run one after the other (LB + (R + Σ_i p_{i,1})/min_i
// p_{i,1}, R the latest end of a running task), it halves the bracket
// until it is at most bisectEps wide and returns its feasible upper end.
// The target is then above the smallest feasible one by anything up to
// bisectEps; boundSearch's is on it.
func (d *dbos) bisect(t float64, st *moldState) float64 {
	lo, work, minSeq := 0.0, 0.0, math.Inf(1)
	for _, i := range st.pending {
		tk := &st.tasks[i]
		lo = math.Max(lo, (t-tk.Release)/tk.Seq())
		work += tk.Seq()
		minSeq = math.Min(minSeq, tk.Seq())
	}
	if t != st.at {
		st.prepare(t)
	}
	busy := 0.0
	if n := len(st.ends); n > 0 {
		busy = math.Max(0, st.ends[n-1].end-t)
	}
	hi := lo + (busy+work)/minSeq
	// MoldableEDF is greedy; should it miss the trivial bound, widen.
	for !d.moldableEDF(hi, t, st) {
		lo, hi = hi, hi+2*(hi-lo)
	}
	return d.halve(lo, hi, t, st, func(lo, hi float64) bool { return hi-lo > d.bisectEps })
}

// halve bisects [lo, hi] (lo infeasible or a lower bound, hi feasible)
// while wide says the bracket is too wide, and returns its feasible end.
func (d *dbos) halve(lo, hi, t float64, st *moldState, wide func(lo, hi float64) bool) float64 {
	for wide(lo, hi) {
		mid := lo + (hi-lo)/2
		if d.moldableEDF(mid, t, st) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// planStretch is the largest stretch (C − r)/p_{i,1} of the waiting tasks
// in the last MoldableEDF plan.
func (d *dbos) planStretch(st *moldState) float64 {
	m := 0.0
	for _, i := range st.pending {
		tk := &st.tasks[i]
		m = math.Max(m, (d.start[i]+tk.Times[d.procs[i]-1]-tk.Release)/tk.Seq())
	}
	return m
}

// nextDrops returns next[i], building it on first use.
func (d *dbos) nextDrops(st *moldState, i int) []int32 {
	if len(d.next) < len(st.tasks) {
		d.next = append(d.next, make([][]int32, len(st.tasks)-len(d.next))...)
	}
	if nx := d.next[i]; nx != nil {
		return nx
	}
	T := st.tasks[i].Times[:st.P]
	nx := make([]int32, len(T))
	after := int32(len(T))
	for j := len(T) - 1; j >= 0; j-- {
		nx[j] = after
		if j > 0 && T[j] < T[j-1] {
			after = int32(j)
		}
	}
	d.next[i] = nx
	return nx
}

// moldableEDF is lines 9–19 of Algorithm 2: deadlines D_i = r_i + p_{i,1}·S,
// tasks in non-decreasing D_i order, each on the smallest number of
// processors j with which it can finish by D_i when started as soon as j
// processors are free for p_{i,j} (earlier tasks stay where they are). It
// reports whether every task meets its deadline (it stops at the first
// that cannot).
//
// Processor counts whose runtime is no better than j−1's are skipped (they
// start no earlier and end no earlier), and the scan starts at the first j
// with t + p_{i,j} ≤ D_i (binary search on the non-increasing runtimes).
func (d *dbos) moldableEDF(s, t float64, st *moldState) bool {
	d.syncOrder(st.pending)
	for _, i := range d.order {
		d.key[i] = st.tasks[i].Release + st.tasks[i].Seq()*s
	}
	// Insertion sort of the previous check's order: consecutive checks and
	// invocations differ little, so this is about linear (see dasedf.go).
	o := d.order
	for j := 1; j < len(o); j++ {
		x := o[j]
		h := j
		for h > 0 && (d.key[o[h-1]] > d.key[x] || (d.key[o[h-1]] == d.key[x] && o[h-1] > x)) {
			o[h] = o[h-1]
			h--
		}
		o[h] = x
	}
	// Reuse of the reference (the last feasible check of this invocation):
	// a task keeps its processors and start if it is at the same place in
	// the order, its deadline is no later (so the counts that missed the
	// reference deadline miss this one too) and its reserved end still
	// meets the deadline (its earliest fit is the same on the same
	// profile); then so does the profile after it.
	n := len(d.order)
	L := 0
	if d.refOK {
		for L < n && d.order[L] == d.ref.order[L] {
			i := d.order[L]
			D := d.key[i] + 1e-9*math.Max(1, math.Abs(d.key[i]))
			if D > d.ref.D[L] {
				break
			}
			x, k := d.ref.x[L], int(d.ref.k[L])
			if !(x+st.tasks[i].Times[k-1] <= D) {
				break
			}
			d.start[i], d.procs[i] = x, k
			L++
		}
	}
	d.tmp.size(n)
	var prof *profile.Profile
	if L == 0 {
		prof = st.baseProfile(t)
	} else if L < n {
		prof = &st.prof // baseProfile's scratch, not in use here
		c := L / ckEvery
		prof.CopyFrom(&d.ref.ck[c])
		for p := c * ckEvery; p < L; p++ {
			i := d.order[p]
			x, k := d.ref.x[p], int(d.ref.k[p])
			mustReserve(prof, x, x+st.tasks[i].Times[k-1], k)
		}
	}
	for p := L; p < n; p++ {
		if p%ckEvery == 0 {
			d.tmp.ck[p/ckEvery].CopyFrom(prof)
		}
		i := d.order[p]
		T := st.tasks[i].Times[:st.P]
		D := d.key[i] + 1e-9*math.Max(1, math.Abs(d.key[i]))
		j0 := sort.Search(len(T), func(j int) bool { return t+T[j] <= D })
		ok := false
		nx := d.nextDrops(st, i)
		for j := j0; j < len(T); j = int(nx[j]) {
			// Quick reject, as PlaceBy would: fewer than j+1
			// processors free now, so no start before the next step.
			if _, f0 := prof.Step(0); j+1 > f0 && prof.Len() > 1 {
				if t1, _ := prof.Step(1); t1+T[j] > D {
					continue
				}
			}
			if x, fits := prof.PlaceBy(j+1, T[j], t, D); fits {
				d.start[i], d.procs[i] = x, j+1
				d.tmp.x[p], d.tmp.k[p], d.tmp.D[p] = x, int32(j+1), D
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	// Feasible: this check becomes the reference. Positions before L and
	// their checkpoints are the old reference's.
	d.ref.size(n)
	d.ref.order = append(d.ref.order[:0], d.order...)
	copy(d.ref.x[L:n], d.tmp.x[L:n])
	copy(d.ref.k[L:n], d.tmp.k[L:n])
	copy(d.ref.D[L:n], d.tmp.D[L:n])
	for c := (L + ckEvery - 1) / ckEvery; c*ckEvery < n; c++ {
		d.ref.ck[c], d.tmp.ck[c] = d.tmp.ck[c], d.ref.ck[c]
	}
	d.refOK = true
	return true
}
