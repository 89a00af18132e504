package ptg

import (
	"math"
	"slices"
	"sort"

	"schedfarm/simcore/profile"
)

// alone is the schedule of one PTG by itself on p processors (improved
// HCPA allocation bounded by p, mapping, compaction): what CAFM calls the
// PTG's execution as a moldable job on p processors (casanova2010 §4.4), and
// for p = P the dedicated-cluster reference C*max of the stretch.
type alone struct {
	pl       *plan
	makespan float64
}

// scheduleAlone runs HCPA on one PTG with p processors.
func scheduleAlone(pb *problem, p int, opt HCPAOptions, tie []float64) (*alone, error) {
	return scheduleAllocated(pb, p, allocate(pb, p, opt), tie)
}

// scheduleAllocated maps a PTG with the given allocations on p processors
// (decreasing bottom level, docs/models/ptg.md A3) and compacts it (A4).
func scheduleAllocated(pb *problem, p int, alloc []int, tie []float64) (*alone, error) {
	var w workspace
	pl, err := w.schedule(pb, p, alloc, tie)
	if err != nil {
		return nil, err
	}
	return &alone{pl: pl, makespan: pl.makespan()}, nil
}

// workspace holds the buffers of scheduleAllocated so that CAFM, which
// schedules every PTG on p = 1..P processors and keeps only the makespans,
// allocates them once per PTG rather than once per p.
type workspace struct {
	bl    []float64
	key   []float64
	order []int
	free  []float64
	pl    *plan
}

// schedule is scheduleAllocated into the workspace's plan, which stays
// valid until the next call.
func (w *workspace) schedule(pb *problem, p int, alloc []int, tie []float64) (*plan, error) {
	n := pb.len()
	w.bl = pb.bottomLevels(alloc, w.bl)
	w.key = grow(w.key, n)
	for v := range n {
		w.key[v] = -w.bl[v]
	}
	w.order = sortTasks(pb, w.key, nil, tie, grow(w.order, n))
	if w.pl == nil || len(w.pl.start) != n {
		w.pl = newPlan(n)
	}
	w.pl.order = w.pl.order[:0]
	w.free = grow(w.free, p)
	for i := range w.free {
		w.free[i] = 0
	}
	mapStaticOn(&mapper{free: w.free}, pb, alloc, w.order, p, 0, w.pl)
	if _, err := compact(pb, p, 0, w.pl); err != nil {
		return nil, err
	}
	return w.pl, nil
}

// grow returns s resliced to length n, reallocated if too short.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// sortedTasks orders the tasks by key1, then key2 (ascending; nil keys
// are all zero), then by precedence level (so a parent precedes its
// children even between equal keys), then by the random tie-breaker
// (casanova2010 §4.1: "all ties are broken randomly"), then by index.
func sortedTasks(pb *problem, key1, key2 func(v int) float64, tie []float64) []int {
	n := pb.len()
	var k1, k2 []float64
	if key1 != nil {
		k1 = make([]float64, n)
		for v := range n {
			k1[v] = key1(v)
		}
	}
	if key2 != nil {
		k2 = make([]float64, n)
		for v := range n {
			k2[v] = key2(v)
		}
	}
	return sortTasks(pb, k1, k2, tie, make([]int, n))
}

// sortTasks is sortedTasks over precomputed keys (nil: all zero), into
// order (length pb.len()). The comparison is a total order (the index
// breaks the last ties), so the result does not depend on the sorting
// algorithm.
func sortTasks(pb *problem, k1, k2, tie []float64, order []int) []int {
	for v := range order {
		order[v] = v
	}
	key := func(k []float64, v int) float64 {
		if k == nil {
			return 0
		}
		return k[v]
	}
	slices.SortFunc(order, func(x, y int) int {
		if a, b := key(k1, x), key(k1, y); a != b {
			return cmpLess(a < b)
		}
		if a, b := key(k2, x), key(k2, y); a != b {
			return cmpLess(a < b)
		}
		if pb.depth[x] != pb.depth[y] {
			return cmpLess(pb.depth[x] < pb.depth[y])
		}
		if tie[x] != tie[y] {
			return cmpLess(tie[x] < tie[y])
		}
		return cmpLess(x < y)
	})
	return order
}

// cmpLess maps "a < b" to a comparison result for two values known to
// differ (or be unordered, which the keys never are).
func cmpLess(less bool) int {
	if less {
		return -1
	}
	return 1
}

// moldableJob is a PTG seen as a moldable job: t[p−1] is its execution time
// on p processors, made non-increasing (a job given p processors may use the
// schedule of fewer); best[p−1] is the processor count whose schedule
// realises t[p−1].
type moldableJob struct {
	t    []float64
	best []int
}

// gamma is the canonical allotment: the smallest p with t(p) <= lambda, or 0
// when even P processors are too slow. O(log P).
func (j *moldableJob) gamma(lambda float64) int {
	P := len(j.t)
	if j.t[P-1] > lambda {
		return 0
	}
	return 1 + sort.Search(P, func(i int) bool { return j.t[i] <= lambda })
}

func (j *moldableJob) time(p int) float64 { return j.t[p-1] }
func (j *moldableJob) work(p int) float64 { return float64(p) * j.t[p-1] }

// mrtTest is the test of a guess λ of the Mounié–Rapine–Trystram 3/2 dual
// approximation (docs/models/ptg.md A7). It returns the allotments and whether λ is
// accepted.
func mrtTest(jobs []*moldableJob, m int, lambda float64) ([]int, bool) {
	n := len(jobs)
	allot := make([]int, n)
	ws := 0.0
	forcedCap := 0
	type cand struct {
		j, w   int
		profit float64
	}
	var cands []cand
	inS1 := make([]bool, n)
	for i, j := range jobs {
		if j.time(1) <= lambda/2 {
			ws += j.time(1)
			allot[i] = 1
			continue
		}
		g := j.gamma(lambda)
		if g == 0 {
			return nil, false
		}
		h := j.gamma(lambda / 2)
		if h == 0 {
			inS1[i] = true
			forcedCap += g
			continue
		}
		cands = append(cands, cand{i, g, j.work(h) - j.work(g)})
	}
	if forcedCap > m {
		return nil, false
	}
	// 0/1 knapsack over the remaining capacity, exact DP over capacity.
	cap := m - forcedCap
	best := make([][]float64, len(cands)+1)
	for k := range best {
		best[k] = make([]float64, cap+1)
	}
	for k, c := range cands {
		for w := 0; w <= cap; w++ {
			best[k+1][w] = best[k][w]
			if c.w <= w && c.profit > 0 {
				if x := best[k][w-c.w] + c.profit; x > best[k+1][w] {
					best[k+1][w] = x
				}
			}
		}
	}
	for k, w := len(cands)-1, cap; k >= 0; k-- {
		if best[k+1][w] != best[k][w] {
			inS1[cands[k].j] = true
			w -= cands[k].w
		}
	}
	work := 0.0
	for i, j := range jobs {
		if j.time(1) <= lambda/2 {
			continue
		}
		if inS1[i] {
			allot[i] = j.gamma(lambda)
		} else {
			allot[i] = j.gamma(lambda / 2)
		}
		work += j.work(allot[i])
	}
	if work > float64(m)*lambda-ws {
		return nil, false
	}
	return allot, true
}

// mrt runs the dual approximation by bisection (ε = 0.01) and returns the
// estimate of C*max (the smallest accepted guess) and its allotments.
func mrt(jobs []*moldableJob, m int) (float64, []int) {
	lb, ub := 0.0, 0.0
	for _, j := range jobs {
		lb += j.time(1)
		ub += j.time(1)
	}
	lb /= float64(m)
	for _, j := range jobs {
		lb = max(lb, j.time(m))
	}
	allot, ok := mrtTest(jobs, m, ub)
	for !ok { // cannot happen with monotone times; guard against rounding
		ub *= 2
		allot, ok = mrtTest(jobs, m, ub)
	}
	for ub-lb > 0.01*lb {
		mid := (lb + ub) / 2
		if a, ok := mrtTest(jobs, m, mid); ok {
			ub, allot = mid, a
		} else {
			lb = mid
		}
	}
	return ub, allot
}

// box is a PTG's rectangle in a coarse-grain schedule.
type box struct {
	procs int
	start float64
}

// listBoxes places the boxes by priority (indices in order), each at the
// earliest time its processors are free for its duration (conservative
// list scheduling of rectangles, docs/models/ptg.md A9).
func listBoxes(jobs []*moldableJob, allot []int, order []int, m int) []box {
	prof := profile.New(m, 0)
	boxes := make([]box, len(jobs))
	for _, i := range order {
		d := jobs[i].time(allot[i])
		t, _ := prof.EarliestFit(allot[i], d, 0)
		prof.Reserve(t, t+d, allot[i])
		boxes[i] = box{allot[i], t}
	}
	return boxes
}

// kShelves is the K-shelf schedule of Dutot et al. as reused by
// CAFM_K_SHELVES (docs/models/ptg.md A8): shelves of length ω/2^(K−k), k = 1..K,
// back to back from time 0; each shelf, from the shortest, takes the most
// unplaced jobs whose canonical allotments fit in m processors (unit
// weights, 0/1 knapsack; ties: less work); leftovers are list-scheduled
// after the last shelf, longest first, with their MRT allotments.
func kShelves(jobs []*moldableJob, m int, omega float64, mrtAllot []int) []box {
	n := len(jobs)
	tmin := math.Inf(1)
	for _, j := range jobs {
		tmin = min(tmin, j.time(m))
	}
	K := 1
	if omega > tmin && tmin > 0 {
		K = max(1, int(math.Ceil(math.Log2(omega/tmin))))
	}
	boxes := make([]box, n)
	placed := make([]bool, n)
	start := 0.0
	for k := 1; k <= K; k++ {
		l := omega / math.Pow(2, float64(K-k))
		var idx, w []int
		var work []float64
		for i, j := range jobs {
			if placed[i] {
				continue
			}
			if g := j.gamma(l); g > 0 {
				idx = append(idx, i)
				w = append(w, g)
				work = append(work, j.work(g))
			}
		}
		for _, c := range knapsackCount(w, work, m) {
			i := idx[c]
			placed[i] = true
			boxes[i] = box{w[c], start}
		}
		start += l
	}
	var rest []int
	for i := range jobs {
		if !placed[i] {
			rest = append(rest, i)
		}
	}
	if len(rest) > 0 {
		sort.SliceStable(rest, func(a, b int) bool {
			return jobs[rest[a]].time(mrtAllot[rest[a]]) > jobs[rest[b]].time(mrtAllot[rest[b]])
		})
		prof := profile.New(m, 0)
		for i := range jobs {
			if placed[i] {
				prof.Reserve(boxes[i].start, boxes[i].start+jobs[i].time(boxes[i].procs), boxes[i].procs)
			}
		}
		for _, i := range rest {
			d := jobs[i].time(mrtAllot[i])
			t, _ := prof.EarliestFit(mrtAllot[i], d, start)
			prof.Reserve(t, t+d, mrtAllot[i])
			boxes[i] = box{mrtAllot[i], t}
		}
	}
	return boxes
}

// knapsackCount chooses items of weights w (capacity m) maximising their
// number, then minimising their total work; it returns the chosen indices
// in increasing order. Exact DP over capacity, O(len(w)·m).
func knapsackCount(w []int, work []float64, m int) []int {
	type val struct {
		n    int
		work float64
	}
	better := func(a, b val) bool { return a.n > b.n || a.n == b.n && a.work < b.work }
	k := len(w)
	dp := make([][]val, k+1)
	for i := range dp {
		dp[i] = make([]val, m+1)
	}
	for i := range k {
		for c := 0; c <= m; c++ {
			dp[i+1][c] = dp[i][c]
			if w[i] <= c {
				if x := (val{dp[i][c-w[i]].n + 1, dp[i][c-w[i]].work + work[i]}); better(x, dp[i+1][c]) {
					dp[i+1][c] = x
				}
			}
		}
	}
	var out []int
	for i, c := k-1, m; i >= 0; i-- {
		if dp[i+1][c] != dp[i][c] {
			out = append(out, i)
			c -= w[i]
		}
	}
	sort.Ints(out)
	return out
}
