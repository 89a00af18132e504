package stretch

// The moldable planners as they were before the performance work (commit
// "stretch: pin moldable schedules"), on simcore/profile and rebuilding
// every schedule from scratch: the reference the optimised planners must
// match decision for decision on random instances
// (TestMoldableMatchesReference).

import (
	"fmt"
	"math"
	"sort"

	"schedfarm/simcore/profile"
)

// refBaseProfile is the original baseProfile: a simcore/profile holding
// the tasks running at t, one reservation per distinct end.
func refBaseProfile(st *moldState, t float64) *profile.Profile {
	var ends []runEntry
	for _, r := range st.running {
		if r.end > t {
			ends = append(ends, r)
		}
	}
	sort.Slice(ends, func(a, b int) bool { return ends[a].end < ends[b].end })
	p := profile.New(st.P, t)
	used := 0
	for _, r := range ends {
		used += r.node
	}
	from := t
	for k := 0; k < len(ends); {
		e := ends[k].end
		if used > 0 {
			if err := p.Reserve(from, e, used); err != nil {
				panic(fmt.Sprintf("stretch: running tasks exceed the machine: %v", err))
			}
		}
		for k < len(ends) && ends[k].end == e {
			used -= ends[k].node
			k++
		}
		from = e
	}
	return p
}

// refConservative is the original conservative backfilling.
func refConservative(prof *profile.Profile, t float64, tasks []MoldTask, order []int, size []int, start []float64) float64 {
	sum := 0.0
	for _, i := range order {
		d := tasks[i].Times[size[i]-1]
		s, _ := prof.EarliestFit(size[i], d, t)
		if err := prof.Reserve(s, s+d, size[i]); err != nil {
			panic(fmt.Sprintf("stretch: conservative reservation failed: %v", err))
		}
		start[i] = s
		sum += s + d - tasks[i].Release
	}
	return sum
}

// refDBOS is Algorithm 2 of saule2012 (§6): DASEDF's binary search on the
// target stretch S with MoldableEDF as the deadline scheduler, then the
// schedule at ρ·S if MoldableEDF finds it feasible.
type refDBOS struct {
	rho, tol float64
	prevS    float64
	key      []float64 // deadline per task
	start    []float64 // planned start per task
	procs    []int     // planned processors per task
	order    []int
	inPend   []int32 // generation stamps per task (syncOrder)
	gen      int32
}

func (*refDBOS) arrive(int, float64, *moldState) {}

// syncOrder keeps, of the previous order, the tasks still pending, in that
// order, then appends the new ones (pending is in release order).
func (d *refDBOS) syncOrder(pending []int) {
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

func (d *refDBOS) plan(t float64, st *moldState) []startNow {
	if len(d.key) < len(st.tasks) {
		d.key = make([]float64, len(st.tasks))
		d.start = make([]float64, len(st.tasks))
		d.procs = make([]int, len(st.tasks))
	}
	lo := 0.0
	for _, i := range st.pending {
		tk := &st.tasks[i]
		lo = math.Max(lo, (t+tk.Times[st.P-1]-tk.Release)/tk.Seq())
	}
	s := lo
	if !d.moldableEDF(s, t, st) {
		hi := d.prevS
		if !(hi > lo) {
			hi = 2 * lo
		}
		for !d.moldableEDF(hi, t, st) {
			lo, hi = hi, 2*hi
		}
		for hi-lo > d.tol*hi {
			mid := lo + (hi-lo)/2
			if d.moldableEDF(mid, t, st) {
				hi = mid
			} else {
				lo = mid
			}
		}
		s = hi
	}
	d.prevS = s
	// Lines 4–6 of Algorithm 2: relax S by ρ if that schedule is feasible.
	if !(d.rho > 1 && d.moldableEDF(d.rho*s, t, st)) {
		d.moldableEDF(s, t, st)
	}
	return startsAt(t, d.order, d.start, d.procs)
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
func (d *refDBOS) moldableEDF(s, t float64, st *moldState) bool {
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
	prof := refBaseProfile(st, t)
	for _, i := range d.order {
		T := st.tasks[i].Times[:st.P]
		D := d.key[i] + 1e-9*math.Max(1, math.Abs(d.key[i]))
		j0 := sort.Search(len(T), func(j int) bool { return t+T[j] <= D })
		ok := false
		for j := j0; j < len(T); j++ {
			if j > j0 && T[j] >= T[j-1] {
				continue
			}
			x, _ := prof.EarliestFit(j+1, T[j], t)
			if x+T[j] <= D {
				if err := prof.Reserve(x, x+T[j], j+1); err != nil {
					panic("stretch: MoldableEDF reservation failed: " + err.Error())
				}
				d.start[i], d.procs[i] = x, j+1
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// refIterative is the refIterative moldable scheduler of Sabin et al. (saule2012
// §5.4, docs/models/stretch.md A5), and with improved set Saule's improved variant.
// At each invocation every waiting task starts on one processor; the
// schedule is conservative backfilling in FCFS order. Repeatedly, the
// unfrozen task whose runtime drops most with more processors (one more,
// or for the improved variant the k ≥ 1 more maximising (p_x − p_{x+k})/k)
// gets them; the change is kept if the average flow time of the waiting
// tasks decreases, otherwise reverted and the task frozen.
type refIterative struct {
	improved bool
	size     []int
	start    []float64
	frozen   []bool
	gain     []float64
	step     []int
}

func (*refIterative) arrive(int, float64, *moldState) {}

// bestStep returns the gain and the step k of task i at its current size.
func (it *refIterative) bestStep(st *moldState, i int) (float64, int) {
	T := st.tasks[i].Times
	x := it.size[i]
	if x >= st.P {
		return 0, 0
	}
	if !it.improved {
		return T[x-1] - T[x], 1
	}
	best, bk := 0.0, 0
	for k := 1; x+k <= st.P; k++ {
		if g := (T[x-1] - T[x+k-1]) / float64(k); g > best {
			best, bk = g, k
		}
	}
	return best, bk
}

func (it *refIterative) plan(t float64, st *moldState) []startNow {
	if len(it.size) < len(st.tasks) {
		n := len(st.tasks)
		it.size, it.start, it.frozen = make([]int, n), make([]float64, n), make([]bool, n)
		it.gain, it.step = make([]float64, n), make([]int, n)
	}
	W := st.pending
	for _, i := range W {
		it.size[i], it.frozen[i] = 1, false
		it.gain[i], it.step[i] = it.bestStep(st, i)
	}
	F := refConservative(refBaseProfile(st, t), t, st.tasks, W, it.size, it.start)
	for {
		j, g := -1, 0.0
		for _, i := range W {
			if !it.frozen[i] && (j < 0 || it.gain[i] > g) {
				j, g = i, it.gain[i]
			}
		}
		if j < 0 {
			break
		}
		if g <= 0 {
			it.frozen[j] = true
			continue
		}
		k := it.step[j]
		it.size[j] += k
		F2 := refConservative(refBaseProfile(st, t), t, st.tasks, W, it.size, it.start)
		if F2 < F*(1-1e-12) {
			F = F2
			it.gain[j], it.step[j] = it.bestStep(st, j)
		} else {
			it.size[j] -= k
			it.frozen[j] = true
		}
	}
	refConservative(refBaseProfile(st, t), t, st.tasks, W, it.size, it.start)
	return startsAt(t, W, it.start, it.size)
}

// refScojo approximates SCOJO-P (Barsanti & Sodan 2006) from its published
// description (saule2012 §5.5, docs/models/stretch.md A6; the original is a Java program
// that was never published): on arrival a task gets its "optimal" size n*
// (minimum n/S(n)², i.e. runtime over efficiency), scaled so that about
// U* = 95% of the processors are predicted busy during its run; the
// prediction adds running work, queued work and the work expected to
// arrive (rate and mean work of the last 100 arrivals). The task starts at
// once if it fits, or at once on fewer processors (down to half) if that
// ends it earlier than waiting; otherwise it keeps its size and is placed
// by conservative backfilling. Sizes are fixed from then on.
type refScojo struct {
	size   []int
	start  []float64
	window []int // last arrivals (task indices), oldest first
}

func newRefScojo(n int) *refScojo {
	return &refScojo{size: make([]int, n), start: make([]float64, n)}
}

func (sc *refScojo) arrive(i int, t float64, st *moldState) {
	T := st.tasks[i].Times[:st.P]
	nstar, nmax := optimalSize(T)
	span := T[nstar-1]
	// Predicted busy processor-time over [t, t+span).
	busy := 0.0
	for _, r := range st.running {
		busy += float64(r.node) * math.Min(math.Max(r.end-t, 0), span)
	}
	others := st.pending[:len(st.pending)-1] // i was appended last
	for _, k := range others {
		busy += float64(sc.size[k]) * st.tasks[k].Times[sc.size[k]-1]
	}
	if len(sc.window) >= 2 {
		first, last := st.tasks[sc.window[0]].Release, st.tasks[sc.window[len(sc.window)-1]].Release
		if last > first {
			rate := float64(len(sc.window)-1) / (last - first)
			w := 0.0
			for _, k := range sc.window {
				w += st.tasks[k].Seq()
			}
			busy += rate * w / float64(len(sc.window)) * span
		}
	}
	u := busy / (float64(st.P) * span)
	n := int(math.Round(float64(nstar) * scojoTarget / math.Max(u, 0.05)))
	n = max(1, min(n, st.P, nmax))
	prof := refBaseProfile(st, t)
	refConservative(prof, t, st.tasks, others, sc.size, sc.start)
	if !prof.FitsAt(n, T[n-1], t) {
		wait, _ := prof.EarliestFit(n, T[n-1], t)
		bestEnd, bestN := wait+T[n-1], n
		for k := max(1, n/2); k < n; k++ {
			if prof.FitsAt(k, T[k-1], t) && t+T[k-1] < bestEnd {
				bestEnd, bestN = t+T[k-1], k
			}
		}
		n = bestN
	}
	sc.size[i] = n
	sc.window = append(sc.window, i)
	if len(sc.window) > scojoWindow {
		sc.window = sc.window[1:]
	}
}

func (sc *refScojo) plan(t float64, st *moldState) []startNow {
	refConservative(refBaseProfile(st, t), t, st.tasks, st.pending, sc.size, sc.start)
	return startsAt(t, st.pending, sc.start, sc.size)
}
