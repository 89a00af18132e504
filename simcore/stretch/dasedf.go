package stretch

import "math"

// dasedf is the state DASEDF keeps between invocations (saule2012 §3.2).
//
// One invocation at time t over the n pending tasks of a part with m
// processors binary-searches the smallest target stretch S that passes the
// feasibility property of the proof of Lemma 3.2, extended to the tasks
// already running (they are never moved):
//
//	∀i (in non-decreasing d_i order):  t + (R + Σ_{i' ≤ i} p_i') / m  ≤  d_i = r_i + S·p_i
//
// where R is the remaining work of the running tasks, together with the
// trivial bound d_i ≥ f_min + p_i (no task completes before the first
// processor is free plus its own size), which gives the lower end LB of the
// search. Passing the property is monotone in S (if S passes, every S' > S
// does: take k the task of largest d_k(S) among those with d_j(S') ≤ d_i(S');
// their work is at most that due by d_k(S) ≤ d_k(S') ≤ d_i(S')), so
// bisection applies. The upper end is the paper's UB = LB + Σp/p_min plus
// the running work, but the search starts from the previous invocation's S
// (warm start) and doubles from there, which is far tighter.
//
// Cost: a check inside the regions certify proved (from earlier failed
// checks of the same search) is free; otherwise the previous order is
// insertion-sorted with a budget of moves, and past it decide settles most
// checks far from the answer in O(n) from deadline buckets, without
// sorting; otherwise the sort is finished and the prefix sums scanned. The
// order of the previous check is kept and re-sorted by insertion sort, which
// costs O(n + inversions): consecutive checks of one search differ little
// in S, and consecutive invocations differ by a few tasks, so a check is
// O(n) in practice (O(n²) worst case) instead of O(n log n). One invocation
// is O(log(S_hi/(tol·S))) checks, most of them free, and O(n) for each one
// evaluated; measured in BenchmarkDASEDF_Queue.
type dasedf struct {
	tol    float64
	rule   checkRule // the feasibility property checked (Lemma 3.2's by default)
	order  []int     // pending tasks sorted by deadline at the last check
	keys   []float64 // their deadlines at the last check
	mark   []int32   // generation stamps, per task
	gen    int32
	prevS  float64 // S chosen by the previous invocation
	lastS  float64 // S of the last check (keys are for it)
	S      float64 // S chosen by the last invocation
	checks int     // feasibility checks of the last invocation
	// Buckets of decide (work, smallest and largest deadline per bucket).
	bw, bmin, bmax []float64
	dkeys          []float64 // deadlines in d.order at decide's S
	// lbOrder, lbKeys, lbLastS: a second order, kept for the checks at LB
	// (consecutive LBs are close, as are consecutive answers, while LB and
	// the answer can be far apart: one order for each keeps both re-sorts
	// short).
	lbOrder []int
	lbKeys  []float64
	lbLastS float64
	// Every S ≥ above passes the property and every S ≤ below fails it,
	// for certain (certify); ±Inf when unknown. Reset by each search.
	above, below float64
}

// search finds the smallest feasible S (to relative precision tol) for the
// pending tasks and leaves them in d.order sorted by d_i = r_i + S·p_i
// (ties by task index). f holds the processor free times (sorted), resid
// the remaining work of the running tasks.
func (d *dasedf) search(tasks []Task, pending []int, t, resid float64, f []float64) float64 {
	d.sync(tasks, pending)
	d.checks = 0
	d.above, d.below = math.Inf(1), math.Inf(-1)
	m := float64(len(f))
	lb := 0.0
	for _, i := range pending {
		if s := (f[0] + tasks[i].Size - tasks[i].Release) / tasks[i].Size; s > lb {
			lb = s
		}
	}
	// At LB, a feasible answer needs the sort: the order is the result.
	// The check runs on the LB order; on success it becomes the result.
	d.swapLB()
	ok := d.check(tasks, lb, t, resid, m, true)
	d.swapLB()
	if ok {
		d.order = append(d.order[:0], d.lbOrder...)
		d.keys = append(d.keys[:0], d.lbKeys...)
		d.lastS = d.lbLastS
		d.S, d.prevS = lb, lb
		return lb
	}
	// The paper's upper bound UB = LB + Σp/p_min (§3.2), with the running
	// work added: at UB every d_i ≥ t + R/m + Σp, so UB always passes.
	sum, pmin := 0.0, math.Inf(1)
	for _, i := range pending {
		sum += tasks[i].Size
		pmin = math.Min(pmin, tasks[i].Size)
	}
	ub := lb + (resid/m+sum)/pmin
	lo, hi := lb, math.Min(d.prevS, ub)
	if !(hi > lo) {
		hi = math.Min(2*lo, ub)
	}
	for hi < ub && !d.check(tasks, hi, t, resid, m, false) {
		lo, hi = hi, math.Min(2*hi, ub)
	}
	for hi-lo > d.tol*hi {
		mid := lo + (hi-lo)/2
		if d.check(tasks, mid, t, resid, m, false) {
			hi = mid
		} else {
			lo = mid
		}
	}
	if d.lastS != hi {
		d.feasible(tasks, hi, t, resid, m)
	}
	d.S, d.prevS = hi, hi
	return hi
}

func (d *dasedf) swapLB() {
	d.order, d.lbOrder = d.lbOrder, d.order
	d.keys, d.lbKeys = d.lbKeys, d.keys
	d.lastS, d.lbLastS = d.lbLastS, d.lastS
}

// sync makes d.order hold exactly the pending tasks: those of the previous
// order that are still pending, in that order, then the new ones.
func (d *dasedf) sync(tasks []Task, pending []int) {
	if len(d.mark) < len(tasks) {
		d.mark = make([]int32, len(tasks))
		d.gen = 0
	}
	if d.gen > math.MaxInt32-8 {
		clear(d.mark)
		d.gen = 0
	}
	d.order, d.keys = d.syncOrder(pending, d.order, d.keys, d.gen+1, d.gen+2)
	d.lbOrder, d.lbKeys = d.syncOrder(pending, d.lbOrder, d.lbKeys, d.gen+3, d.gen+4)
	d.gen += 4
	d.lastS, d.lbLastS = math.NaN(), math.NaN()
}

// syncOrder keeps the tasks of order that are still pending, in that
// order, then appends the new ones; inPending and seen are fresh stamps.
func (d *dasedf) syncOrder(pending, order []int, keys []float64, inPending, seen int32) ([]int, []float64) {
	for _, i := range pending {
		d.mark[i] = inPending
	}
	kept := order[:0]
	for _, i := range order {
		if d.mark[i] == inPending {
			d.mark[i] = seen
			kept = append(kept, i)
		}
	}
	for _, i := range pending {
		if d.mark[i] == inPending {
			kept = append(kept, i)
		}
	}
	if cap(keys) < len(kept) {
		keys = make([]float64, len(kept), 2*len(kept))
	}
	return kept, keys[:len(kept)]
}

// check is feasible, cheaper: the previous order is first insertion-sorted
// with a budget of moves (enough when S moved little, the common case near
// the answer); past it, decide tries to settle the check from deadline
// buckets without sorting (it does far from the answer, where sorting
// costs O(n²)); otherwise the sort is finished. Every path gives
// feasible's answer. sorted: a feasible answer must leave d.order sorted
// at s.
func (d *dasedf) check(tasks []Task, s, t, resid, m float64, sorted bool) bool {
	if d.rule != ruleLemma {
		d.checks++
		d.sortAt(tasks, s, -1)
		return d.scanRule(tasks, t, resid, m)
	}
	if !sorted && s >= d.above {
		d.checks++
		return true
	}
	if s <= d.below {
		d.checks++
		return false
	}
	if d.sortAt(tasks, s, 2*len(d.order)+64) {
		d.checks++
		if d.scan(tasks, t, resid, m) {
			return true
		}
		d.certify(tasks, s, t, resid, m)
		return false
	}
	if ok, sure := d.decide(tasks, s, t, resid, m); sure && !(ok && sorted) {
		d.checks++
		return ok
	}
	return d.feasible(tasks, s, t, resid, m)
}

// certify narrows the certain regions after a failed check at s (d.order
// and d.keys sorted at s), with viol_i(S) = t + (R + W_≤i)/m minus i's
// widened deadline, W_≤i the work up to i in the order at S:
//
//   - above: for S' > s, each task i has some task k with viol_i(S') ≤
//     viol_k(s) − (S' − s)·p_k (k is the last, in the order at s, of the
//     tasks up to i in the order at S'; k's prefix at s holds them all, and
//     its deadline at S', at most i's, is its deadline at s plus at least
//     (S' − s)·p_k). So every S' > s + max_k viol_k(s)/p_k passes.
//   - below: symmetrically, each task i of the order at s has some k (the
//     last, in the order at S', of the tasks up to i at s) with
//     viol_k(S') ≥ viol_i(s) − (S' − s)·p_k·(1 + 10⁻⁹) (the widening adds
//     10⁻⁹ of the slope), p_k at most the largest size up to i. So every
//     S' < s + max_i viol_i(s)/(that size) fails.
//
// Later checks of the search inside those regions are settled without
// sorting: a bisection climbing from LB to the previous S fails most of
// its checks, and this settles three in four of them. The margins cover
// the rounding of the deadlines and of the prefix sums in either order;
// the deadlines must be ≥ 0 (the widening is then monotone), else nothing
// is certified.
func (d *dasedf) certify(tasks []Task, s, t, resid, m float64) {
	total := resid
	for _, i := range d.order {
		total += tasks[i].Size
	}
	ulps := float64(16*len(d.order)+64) * 0x1p-53
	base := math.Abs(t) + total/m + 1
	w, g, l, pmax := resid, 0.0, 0.0, 0.0
	for j, i := range d.order {
		p := tasks[i].Size
		w += p
		pmax = math.Max(pmax, p)
		kj := d.keys[j]
		if !(kj >= 0) {
			return
		}
		a := kj
		if a < 1 {
			a = 1
		}
		viol, margin := t+w/m-(kj+1e-9*a), ulps*(base+kj)
		if v := (viol + margin) / p; v > g {
			g = v
		}
		if v := (viol - margin) / (pmax * (1 + 4e-9)); v > l {
			l = v
		}
	}
	if above := (s + g) * (1 + 1e-12); above < d.above {
		d.above = above
	}
	if below := (s + l) * (1 - 1e-12); below > d.below {
		d.below = below
	}
}

// decide tries to answer feasible(s) in O(n + G) without sorting: the
// deadlines d_i are split into G buckets by value (a monotone map, so
// bucket order is deadline order) holding their work and their smallest
// and largest deadline. With W_g the running work through bucket g, the
// property fails for certain if t + W_g/m exceeds the tolerance-widened
// largest deadline of bucket g (the last task of the bucket in EDF order
// has exactly W_g before and including it), and holds for certain if
// t + W_g/m stays below the widened smallest deadline of every bucket
// (every task of bucket g has at most W_g). Both are tested with a margin
// δ covering the rounding of summing the same works in another order than
// feasible does, so a sure answer is always feasible's answer; otherwise
// sure is false.
func (d *dasedf) decide(tasks []Task, s, t, resid, m float64) (ok, sure bool) {
	o := d.order
	n := len(o)
	if cap(d.dkeys) < n {
		d.dkeys = make([]float64, n, 2*n)
	}
	k := d.dkeys[:n]
	if n < 64 {
		return false, false // sorting a short queue is as cheap
	}
	kmin, kmax := math.Inf(1), math.Inf(-1)
	for j, i := range o {
		kj := tasks[i].Release + s*tasks[i].Size
		k[j] = kj
		if kj < kmin {
			kmin = kj
		}
		if kj > kmax {
			kmax = kj
		}
	}
	if !(kmin >= 0) || math.IsInf(kmax, 0) {
		return false, false // the widening below is monotone only for d ≥ 0
	}
	g := min(max(n/4, 16), 512)
	if cap(d.bw) < g {
		d.bw, d.bmin, d.bmax = make([]float64, g), make([]float64, g), make([]float64, g)
	}
	bw, bmin, bmax := d.bw[:g], d.bmin[:g], d.bmax[:g]
	for b := range bw {
		bw[b], bmin[b], bmax[b] = 0, math.Inf(1), math.Inf(-1)
	}
	scale := float64(g) / (kmax - kmin)
	if !(scale < math.MaxFloat64) {
		scale = 0 // all deadlines (nearly) equal: one bucket
	}
	for j, i := range o {
		kj := k[j]
		b := int((kj - kmin) * scale)
		if b >= g {
			b = g - 1
		}
		bw[b] += tasks[i].Size
		if kj < bmin[b] {
			bmin[b] = kj
		}
		if kj > bmax[b] {
			bmax[b] = kj
		}
	}
	// feasible sums resid and the n works in EDF order, here they are summed
	// per bucket then across buckets: each sum of positive terms is within
	// (n+g+1)·u·W of the exact one (u = 2⁻⁵³), and t + w/m adds two more
	// roundings; δ is four times what that needs.
	ulps := float64(8*(n+g) + 64)
	w := resid
	ok = true
	for b := range bw {
		if bmin[b] > bmax[b] {
			continue // empty
		}
		w += bw[b]
		lhs := t + w/m
		delta := ulps * 0x1p-53 * (math.Abs(t) + w/m)
		if lhs-delta > bmax[b]+1e-9*math.Max(1, math.Abs(bmax[b])) {
			return false, true
		}
		if lhs+delta > bmin[b]+1e-9*math.Max(1, math.Abs(bmin[b])) {
			ok = false
		}
	}
	return true, ok
}

// feasible sorts the pending tasks by d_i = r_i + S·p_i and checks the
// Lemma 3.2 property (see the type's comment).
func (d *dasedf) feasible(tasks []Task, s, t, resid, m float64) bool {
	d.checks++
	d.sortAt(tasks, s, -1)
	return d.scan(tasks, t, resid, m)
}

// sortAt sorts d.order by (d_i, i) at S = s by insertion sort from its
// current order, giving up (false, d.order still a permutation of the
// pending tasks) after budget moves; budget < 0: no limit.
func (d *dasedf) sortAt(tasks []Task, s float64, budget int) bool {
	if d.lastS == s {
		return true
	}
	d.lastS = math.NaN()
	o, k := d.order, d.keys
	moves := 0
	for j := 0; j < len(o); j++ {
		ii := o[j]
		ki := tasks[ii].Release + s*tasks[ii].Size
		h := j
		for h > 0 && (k[h-1] > ki || (k[h-1] == ki && o[h-1] > ii)) {
			k[h], o[h] = k[h-1], o[h-1]
			h--
		}
		k[h], o[h] = ki, ii
		if moves += j - h; budget >= 0 && moves > budget && j+1 < len(o) {
			return false
		}
	}
	d.lastS = s
	return true
}

// scan checks the Lemma 3.2 property on d.order, sorted (keys in d.keys).
func (d *dasedf) scan(tasks []Task, t, resid, m float64) bool {
	w := resid
	for j, i := range d.order {
		w += tasks[i].Size
		kj := d.keys[j]
		a := math.Abs(kj) // math.Max(1, |d_j|), inlined
		if a < 1 {
			a = 1
		}
		if t+w/m > kj+1e-9*a {
			return false
		}
	}
	return true
}

// checkRule is the feasibility property DASEDF's binary search checks.
// The proof of Lemma 3.2 (saule2012 §3.2) bounds every task by the work up
// to and including it, d_i ≥ Σ_{i' ≤ i} p_i'/m, and remarks that "the proof
// does not take the tasks currently running on the cluster into account.
// This can be corrected by adding terms"; the paragraph on the algorithm's
// cost states the check as "∀i, d_i ≥ Σ_{i' < i} p_i'/m". The readings:
type checkRule int

const (
	// ruleLemma: Σ_{i' ≤ i}, the running work added (the default).
	ruleLemma checkRule = iota
	// ruleStrictPrefix: Σ_{i' < i}, as the cost paragraph writes it, the
	// running work added.
	ruleStrictPrefix
	// ruleNoRunning: Σ_{i' ≤ i} from t, the running tasks left out, as in
	// the proof.
	ruleNoRunning
)

// Names of the check rules (parameter dasedf_check).
var checkRules = map[string]checkRule{"lemma": ruleLemma, "strict_prefix": ruleStrictPrefix, "no_running": ruleNoRunning}

// scanRule checks d.rule's property on d.order, sorted (keys in d.keys);
// the other rules than ruleLemma take this plain path (sort and scan at
// every check: slower, for sensitivity sweeps).
func (d *dasedf) scanRule(tasks []Task, t, resid, m float64) bool {
	w := resid
	if d.rule == ruleNoRunning {
		w = 0
	}
	for j, i := range d.order {
		if d.rule != ruleStrictPrefix {
			w += tasks[i].Size
		}
		kj := d.keys[j]
		if t+w/m > kj+1e-9*math.Max(1, math.Abs(kj)) {
			return false
		}
		if d.rule == ruleStrictPrefix {
			w += tasks[i].Size
		}
	}
	return true
}
