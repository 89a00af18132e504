// Package profile is a resource availability profile: the "skyline" of free
// processors over time on a cluster of identical processors. It answers
// earliest-fit queries (the earliest time at which k processors are free for
// d time units) and records reservations and releases. Conservative
// backfilling, MoldableEDF and PTG list scheduling build on it.
//
// The profile is a step function kept as two parallel slices: breakpoint
// times in increasing order and the free count on [t_i, t_i+1); the last step
// extends to +Inf. Adjacent steps with one count are merged, so the number of
// steps n stays at most twice the number of live reservations, except that
// Move and MoveAll may keep up to n/16 + 8 redundant steps (a step with the
// count of the one before) in long profiles, to spare shifting the tail of
// the slices at every edit; Step and Len show them, no query's answer
// depends on them. Queries find
// their first step by binary search (O(log n)) and then walk the m steps
// they span; Reserve and Release also shift the slices to insert at most two
// breakpoints (a memmove of n words, negligible next to a pointer-chasing
// tree at the sizes schedulers see). Advance drops the past, so a simulation
// that advances its clock keeps n bounded by the live reservations.
// EarliestFitBeforeStop also skips whole blocks of 32 steps that are all
// too low or all high enough (per-block least and largest counts, rebuilt
// lazily after edits), Move shifts a reservation editing only the steps
// whose count changes, and Cut removes an interval of the time axis (every
// later breakpoint moves earlier) in one shift of the slices. The
// moldable planners, which recompute their plan from the running tasks at
// every decision, use the fast paths of place.go: Rebuild (the staircase
// of the running tasks' ends in one pass), CopyFrom (checkpoints without
// allocation) and Place/PlaceBy (a fit and its reservation in one search).
package profile

import (
	"errors"
	"fmt"
	"math"
	"sort"
)

// ErrCapacity is returned by Reserve when a reservation would use more
// processors than are free, and by Release when it would free more than
// the capacity.
var ErrCapacity = errors.New("profile: capacity exceeded")

// Profile is the free-processor step function of one cluster. It is not
// safe for concurrent use, not even by queries only: they remember where
// they last looked.
type Profile struct {
	capacity int
	times    []float64 // times[0] is the origin; strictly increasing
	free     []int     // free[i] holds on [times[i], times[i+1])
	// Block summaries for the fit searches: bmin[b] and bmax[b] are the
	// least and largest free count of steps [b·blk, (b+1)·blk), valid for
	// the blocks before clean. An edit at step i invalidates the blocks
	// from i's on (inserted or removed steps shift the later ones); a
	// search recomputes them lazily, only as far as it walks.
	bmin, bmax []int
	clean      int
	seg        []step // scratch of applyAt and MoveAll
	ev         []bp   // scratch of MoveAll
	one        [1]Item
	hint       int    // the step indexNear last found (it starts there)
	byD        []Item // scratch of MoveAll
	pad        []step // scratch of padOld
	zs         []int  // scratch of absorb
	// pads bounds the number of redundant steps (adjacent steps with one
	// count) from above; only Move and MoveAll leave any (spliceSlack),
	// and only in edits followed by at least slackFrom steps (slackTail;
	// the tests lower it).
	pads, slackFrom int
}

// step is one step of a profile: its start and free count.
type step struct {
	t float64
	f int
}

// blk is the number of steps per summary block (a power of two).
const (
	blkShift = 5
	blk      = 1 << blkShift
)

// dirty invalidates the block summaries from step i on.
func (p *Profile) dirty(i int) {
	if b := i >> blkShift; b < p.clean {
		p.clean = b
	}
}

// summarise makes the summaries of the blocks up to b (inclusive) valid;
// b must be a block that exists.
func (p *Profile) summarise(b int) {
	if b < p.clean {
		return
	}
	nb := (len(p.free) + blk - 1) >> blkShift
	if len(p.bmin) < nb {
		p.bmin = append(p.bmin, make([]int, nb-len(p.bmin))...)
		p.bmax = append(p.bmax, make([]int, nb-len(p.bmax))...)
	}
	for c := p.clean; c <= b; c++ {
		lo := c << blkShift
		hi := min(lo+blk, len(p.free))
		mn, mx := p.free[lo], p.free[lo]
		for _, f := range p.free[lo+1 : hi] {
			mn = min(mn, f)
			mx = max(mx, f)
		}
		p.bmin[c], p.bmax[c] = mn, mx
	}
	p.clean = b + 1
}

// New returns the profile of a cluster of capacity processors, all free from
// origin on.
func New(capacity int, origin float64) *Profile {
	return &Profile{capacity: capacity, times: []float64{origin}, free: []int{capacity}, slackFrom: slackTail}
}

// Origin returns the first time the profile describes.
func (p *Profile) Origin() float64 { return p.times[0] }

// Len returns the number of steps.
func (p *Profile) Len() int { return len(p.times) }

// Step returns the i-th step: its start time and free count (it lasts until
// the next step's start, the last one forever). After Move or MoveAll a step
// may have the count of the one before it.
func (p *Profile) Step(i int) (t float64, free int) { return p.times[i], p.free[i] }

// index returns the step containing t (t before the origin is clamped to the
// first step). O(log n).
func (p *Profile) index(t float64) int {
	// last i with times[i] <= t (0 if none)
	ts := p.times
	if len(ts) < 2 || t < ts[1] {
		return 0 // the first step: queries from the origin are common
	}
	return lastAtMost(ts, t, 1, len(ts))
}

// indexNear is index that gallops from the step it last found, for the
// queries and edits of a compression, which go forward in time near one
// another (O(log distance)).
func (p *Profile) indexNear(t float64) int {
	ts := p.times
	n := len(ts)
	if n < 2 || t < ts[1] {
		return 0
	}
	h := min(max(p.hint, 1), n-1)
	var i int
	if ts[h] <= t {
		i = p.indexFrom(t, h)
	} else {
		lo, hi, step := h-1, h, 1
		for lo > 1 && ts[lo] > t {
			hi = lo
			lo -= step
			step <<= 1
		}
		i = lastAtMost(ts, t, max(lo, 1), hi)
	}
	p.hint = i
	return i
}

// lastAtMost returns the last i in [lo, hi) with ts[i] <= t, given
// ts[lo] <= t < ts[hi] (ts[len(ts)] read as +Inf): a binary search.
func lastAtMost(ts []float64, t float64, lo, hi int) int {
	for hi-lo > 1 {
		m := int(uint(lo+hi) >> 1)
		if ts[m] <= t {
			lo = m
		} else {
			hi = m
		}
	}
	return lo
}

// Free returns the number of processors free at time t. O(log n).
func (p *Profile) Free(t float64) int { return p.free[p.index(t)] }

// EarliestFit returns the earliest time t >= after (and >= the origin) at
// which at least k processors stay free during [t, t+d), and ok = true. If
// k exceeds the capacity (or is negative) it returns +Inf and ok = false;
// otherwise a fit always exists because the last step has no reservation
// past it. A zero d asks only that k processors be free at t.
//
// Complexity: O(log n + m), n steps in the profile, m steps between after
// and the returned time plus d.
func (p *Profile) EarliestFit(k int, d, after float64) (t float64, ok bool) {
	if k > p.capacity || k < 0 {
		return math.Inf(1), false
	}
	if after < p.times[0] {
		after = p.times[0]
	}
	cand := after
	for i := p.index(after); i < len(p.times); i++ {
		if p.free[i] < k {
			cand = math.Inf(1)
			continue
		}
		if math.IsInf(cand, 1) {
			cand = p.times[i]
		}
		if i+1 == len(p.times) || p.times[i+1] >= cand+d && (d > 0 || p.times[i+1] > cand) {
			return cand, true
		}
	}
	return cand, true
}

// Reserve takes k processors during [start, end). It returns ErrCapacity
// (and changes nothing) if fewer than k are free at some instant of the
// interval. An empty interval is a no-op. Complexity: O(log n + m + n) for
// the memmove of at most two inserted breakpoints.
func (p *Profile) Reserve(start, end float64, k int) error {
	return p.add(start, end, -k)
}

// Release gives k processors back during [start, end): it cancels (part of)
// a reservation, for instance when a task ends before its reserved end. It
// returns ErrCapacity if the free count would exceed the capacity.
func (p *Profile) Release(start, end float64, k int) error {
	return p.add(start, end, k)
}

// Move moves a reservation of k processors and duration d (> 0) from
// start from to an earlier start to: the profile becomes the step function
// Release(from, from+d, k) then Reserve(to, to+d, k) make (perhaps with
// redundant steps, see the package doc), but only the steps where the count
// changes are edited (not the overlap of the two intervals). It returns
// ErrCapacity, changing nothing, if k processors are not free during
// [to, min(to+d, from)) or if giving back [max(from, to+d), from+d) would
// exceed the capacity. Other arguments
// (to >= from, d <= 0, to before the origin, an interval that rounds to
// nothing such as one at +Inf) fall back to the Release and Reserve calls.
func (p *Profile) Move(from, to, d float64, k int) error {
	if !(to < from) || !(d > 0) || k == 0 || to < p.times[0] || !(from+d > from) || !(to+d > to) {
		if err := p.Release(from, from+d, k); err != nil {
			return err
		}
		return p.Reserve(to, to+d, k)
	}
	te, fe := to+d, from+d
	if te >= from && k > 0 {
		// the intervals overlap: one pass over [to, fe), one splice
		p.one[0] = Item{D: d, K: k}
		return p.moveAll(from, to, p.one[:])
	}
	a, b := max(from, te), min(te, from) // to < b <= a < fe
	ts, fr, n := p.times, p.free, len(p.times)
	i0 := p.indexNear(to)
	i := i0
	for ; i < n && ts[i] < b; i++ {
		if fr[i] < k {
			return fmt.Errorf("%w: %d processors during [%v, %v) with %d free at %v (capacity %d)",
				ErrCapacity, k, to, te, fr[i], max(ts[i], to), p.capacity)
		}
	}
	ia := p.indexFrom(a, max(i-1, i0)) // ts[i-1] < b <= a
	for x := ia; x < n && ts[x] < fe; x++ {
		if fr[x]+k > p.capacity {
			return fmt.Errorf("%w: releasing %d processors during [%v, %v) with %d free at %v (capacity %d)",
				ErrCapacity, k, from, fe, fr[x], max(ts[x], a), p.capacity)
		}
	}
	// the later edit first (it may shift the steps before it, into the
	// places of redundant ones: look the earlier one up again)
	p.applyAt(ia, a, fe, k)
	p.applyAt(p.indexNear(to), to, b, -k)
	return nil
}

// Item is one reservation of a MoveAll: its duration and processors.
type Item struct {
	D float64
	K int
}

// MoveAll moves reservations that all start at from to the earlier start
// to: the profile becomes what Move(from, to, it.D, it.K) for every item,
// in order, makes it, in one pass over the steps the moves change
// (O(log n + g log g + m + n) for g items spanning m steps, against g
// splices for g calls of Move). It returns ErrCapacity, changing nothing,
// if the moves do not fit. Items shorter than from-to (whose new and old
// intervals do not overlap) and other arguments Move does not take
// directly fall back to Move, item by item (an error then leaves the
// items before the one that does not fit moved).
func (p *Profile) MoveAll(from, to float64, items []Item) error {
	direct := len(items) > 1 && to < from && to >= p.times[0] && !math.IsInf(from, 0)
	for _, it := range items {
		if !direct {
			break
		}
		direct = it.D >= from-to && it.K > 0 && from+it.D > from && to+it.D > to && !math.IsInf(it.D, 0)
	}
	if !direct {
		for _, it := range items {
			if err := p.Move(from, to, it.D, it.K); err != nil {
				return err
			}
		}
		return nil
	}
	return p.moveAll(from, to, items)
}

// moveAll is MoveAll for items that all last at least from-to, with
// to < from, to at or after the origin and finite times.
func (p *Profile) moveAll(from, to float64, items []Item) error {
	// Every item's new interval [to, to+D) overlaps its old [from,
	// from+D): the moves take K during [to, from) and give K back during
	// [to+D, from+D). The count changes, in time order: ev.
	ev := p.ev[:0]
	if len(items) == 1 {
		it := items[0] // to < from <= to+D < from+D
		ev = append(ev, bp{to, -it.K}, bp{from, it.K}, bp{to + it.D, it.K}, bp{from + it.D, -it.K})
	} else {
		// the items by duration (insertion: groups are small and
		// share durations), then the gains at to+D and the losses at
		// from+D merged, both in that order
		byD := append(p.byD[:0], items...)
		k := 0
		for x := range byD {
			k += byD[x].K
			for y := x; y > 0 && byD[y].D < byD[y-1].D; y-- {
				byD[y], byD[y-1] = byD[y-1], byD[y]
			}
		}
		p.byD = byD[:0]
		ev = append(ev, bp{to, -k}, bp{from, k})
		g, l := 0, 0
		for l < len(byD) {
			if g < len(byD) && to+byD[g].D <= from+byD[l].D {
				ev = append(ev, bp{to + byD[g].D, byD[g].K})
				g++
			} else {
				ev = append(ev, bp{from + byD[l].D, -byD[l].K})
				l++
			}
		}
	}
	p.ev = ev[:0]
	ts, fr, n := p.times, p.free, len(p.times)
	i0 := p.indexNear(to)
	nb := p.seg[:0]
	last := -1 // the count of the last step kept (before i0: step i0-1's)
	if i0 > 0 {
		last = fr[i0-1]
	}
	if ts[i0] < to {
		nb = append(nb, step{ts[i0], fr[i0]})
		last = fr[i0]
	}
	c, i := 0, i0 // c: the change on [ev[e-1].t, ev[e].t); i: the step there
	for e := 0; e < len(ev); {
		t := ev[e].t
		for i+1 < n && ts[i+1] < t {
			i++
			if f := fr[i] + c; f != last {
				if f < 0 || f > p.capacity {
					return p.moveAllErr(from, to, ts[i], fr[i], c)
				}
				nb = append(nb, step{ts[i], f})
				last = f
			}
		}
		if i+1 < n && ts[i+1] == t {
			i++
		}
		for e < len(ev) && ev[e].t == t {
			c += ev[e].d
			e++
		}
		if f := fr[i] + c; f != last {
			if f < 0 || f > p.capacity {
				return p.moveAllErr(from, to, t, fr[i], c)
			}
			nb = append(nb, step{t, f})
			last = f
		}
	}
	// c is 0 again: the steps from i+1 on keep their counts, and the
	// last step kept ends with step i's
	p.seg = nb[:0]
	p.spliceSlack(i0, i+1, nb)
	return nil
}

// spliceSlack is splice for the edits of a move, which come in pairs
// that add and remove breakpoints near one another: rather than shift
// the rest of the profile each time, an edit that drops m breakpoints
// keeps m of the old ones as redundant steps (each with the count of the
// step before it), and one that adds m breakpoints takes the places of
// the nearest m redundant steps within slackReach steps before it, or
// else after it (a compression edits forward in time, and leaves them
// behind). Tails shorter than slackFrom steps are shifted. At most
// slackMax(n) redundant steps are kept: pads counts them from above, and
// when it reaches the bound a recount, or else a compaction, follows.
func (p *Profile) spliceSlack(lo, x int, nb []step) {
	n := len(p.times)
	switch m := len(nb) - (x - lo); {
	case n-x < p.slackFrom:
		p.splice(lo, x, nb)
	case m < 0:
		if p.pads-m > slackMax(n) && p.recount()-m > slackMax(n) {
			p.splice(lo, x, nb)
			p.compact()
			return
		}
		p.splice(lo, x, p.padOld(lo, x, nb, -m))
		p.pads -= m
	case m > 0:
		if p.absorbBefore(lo, m) {
			lo -= m // the steps before moved down
		} else if !p.absorb(x, m) {
			p.splice(lo, x, nb)
			return
		}
		p.dirty(lo)
		for k, st := range nb {
			p.times[lo+k], p.free[lo+k] = st.t, st.f
		}
		p.pads = max(p.pads-m, 0)
	default:
		p.splice(lo, x, nb)
	}
}

// slackTail is the shortest tail (steps after an edit) worth sparing a
// shift: below it, a memmove costs less than finding redundant steps
// (the whole CTC trace under FCFS + conservative, 437 steps on average,
// runs as fast either way; Table 2's randomized workload of 16,000 jobs
// runs in 37 % less time with it).
const slackTail = 512

// slackReach is how far before or after an edit spliceSlack looks for
// redundant steps to take the places of new breakpoints.
const slackReach = 64

// slackMax is the most redundant steps spliceSlack keeps in a profile of
// n steps.
func slackMax(n int) int { return n/16 + 8 }

// padOld returns nb, the new steps of [lo, x), with m of the old
// breakpoints of [lo, x) that nb lacks merged in as redundant steps, so
// that it has x-lo steps (nb lacks at least m of them: it is m shorter).
func (p *Profile) padOld(lo, x int, nb []step, m int) []step {
	if len(nb) > 0 && p.times[x-m] > nb[len(nb)-1].t {
		// the last m old breakpoints all follow the new ones (as when
		// the moves drop the old ends): they extend the last step
		f := nb[len(nb)-1].f
		for _, t := range p.times[x-m : x] {
			nb = append(nb, step{t, f})
		}
		p.seg = nb[:0]
		return nb
	}
	out := p.pad[:0]
	last := -1 // the count before the next old breakpoint
	if lo > 0 {
		last = p.free[lo-1]
	}
	j := 0
	for _, t := range p.times[lo:x] {
		for j < len(nb) && nb[j].t < t {
			out = append(out, nb[j])
			last = nb[j].f
			j++
		}
		if j == len(nb) || nb[j].t > t {
			out = append(out, step{t, last})
			if m--; m == 0 {
				break
			}
		}
	}
	out = append(out, nb[j:]...)
	p.pad = out[:0]
	return out
}

// absorb makes room for m more steps at x, in place of the first m
// redundant steps from x on (a step whose count is that of the step
// before it: step x's is judged against step x-1's, which the caller's
// edit keeps): the steps between shift up. It reports false, changing
// nothing, if fewer than m lie within slackReach steps of x.
func (p *Profile) absorb(x, m int) bool {
	ts, fr := p.times, p.free
	zs := p.zs[:0]
	for z, end := max(x, 1), min(len(fr), x+slackReach); z < end && len(zs) < m; z++ {
		if fr[z] == fr[z-1] {
			zs = append(zs, z)
		}
	}
	p.zs = zs[:0]
	if len(zs) < m {
		return false
	}
	// the steps between the j-th redundant step and the one before it
	// (x for the first) shift up by m-j, the last ones first
	for j := m - 1; j >= 0; j-- {
		a := x
		if j > 0 {
			a = zs[j-1] + 1
		}
		copy(ts[a+m-j:zs[j]+m-j], ts[a:zs[j]])
		copy(fr[a+m-j:zs[j]+m-j], fr[a:zs[j]])
	}
	return true
}

// absorbBefore makes room for m more steps before lo, in place of the
// last m redundant steps before lo (within slackReach steps): the steps
// between shift down. It reports false, changing nothing, if there are
// fewer.
func (p *Profile) absorbBefore(lo, m int) bool {
	ts, fr := p.times, p.free
	zs := p.zs[:0]
	for z := lo - 1; z >= max(1, lo-slackReach) && len(zs) < m; z-- {
		if fr[z] == fr[z-1] {
			zs = append(zs, z)
		}
	}
	p.zs = zs[:0]
	if len(zs) < m {
		return false
	}
	p.dirty(zs[m-1])
	// zs decreases: the steps between the j-th redundant step and the
	// one after it (lo for the first) shift down by m-j, the first ones
	// first
	for j := m - 1; j >= 0; j-- {
		b := lo
		if j > 0 {
			b = zs[j-1]
		}
		copy(ts[zs[j]+1-(m-j):b-(m-j)], ts[zs[j]+1:b])
		copy(fr[zs[j]+1-(m-j):b-(m-j)], fr[zs[j]+1:b])
	}
	return true
}

// recount sets pads to the number of redundant steps and returns it.
func (p *Profile) recount() int {
	c := 0
	for i := 1; i < len(p.free); i++ {
		if p.free[i] == p.free[i-1] {
			c++
		}
	}
	p.pads = c
	return c
}

// compact removes every redundant step.
func (p *Profile) compact() {
	k := 1
	for i := 1; i < len(p.free); i++ {
		if p.free[i] != p.free[k-1] {
			p.times[k], p.free[k] = p.times[i], p.free[i]
			k++
		} else if k == i {
			p.dirty(k) // the steps from here on move down
		}
	}
	p.times, p.free = p.times[:k], p.free[:k]
	p.pads = 0
}

func (p *Profile) moveAllErr(from, to, t float64, free, delta int) error {
	return fmt.Errorf("%w: moving reservations from %v to %v changes the %d processors free at %v by %d (capacity %d)",
		ErrCapacity, from, to, free, t, delta, p.capacity)
}

// bp is a change of the count by d from t on.
type bp struct {
	t float64
	d int
}

// indexFrom is index(t) for a t at or after the start of step lo: a
// galloping search from lo, O(log distance).
func (p *Profile) indexFrom(t float64, lo int) int {
	ts := p.times
	hi, step := lo+1, 1
	for hi < len(ts) && ts[hi] <= t {
		lo = hi
		hi += step
		step <<= 1
	}
	return lastAtMost(ts, t, lo, min(hi, len(ts)))
}

// applyAt is apply for a start at or after the origin in step lo, for
// Move. It rebuilds the steps of [start, end] in a scratch buffer and
// splices them back (spliceSlack), so that a breakpoint inserted and one
// merged away cost one move of the steps in between, not two of the whole
// tail.
func (p *Profile) applyAt(lo int, start, end float64, delta int) {
	ts, fr, n := p.times, p.free, len(p.times)
	nb := p.seg[:0]
	s0 := 0 // the index of the start breakpoint in nb
	if ts[lo] != start {
		nb = append(nb, step{ts[lo], fr[lo]}) // step lo up to start
		s0 = 1
	}
	nb = append(nb, step{start, fr[lo] + delta})
	x := lo + 1
	for ; x < n && ts[x] < end; x++ {
		nb = append(nb, step{ts[x], fr[x] + delta})
	}
	// x is the first step at or after end; the end breakpoint keeps (or
	// gets) the count from end on
	if x < n && ts[x] == end {
		nb = append(nb, step{end, fr[x]})
		x++
	} else if !math.IsInf(end, 1) {
		nb = append(nb, step{end, fr[x-1]})
	}
	p.seg = nb[:0]
	// merge at end, then at start, as apply does
	if !math.IsInf(end, 1) && nb[len(nb)-1].f == nb[len(nb)-2].f {
		nb = nb[:len(nb)-1]
	}
	if s0 == 0 && lo > 0 && nb[0].f == fr[lo-1] {
		nb = nb[1:]
	}
	p.spliceSlack(lo, x, nb)
}

// splice replaces steps [lo, x) by nb.
func (p *Profile) splice(lo, x int, nb []step) {
	n := len(p.times)
	p.dirty(lo)
	if d := len(nb) - (x - lo); d > 0 {
		for range d {
			p.times = append(p.times, 0)
			p.free = append(p.free, 0)
		}
		copy(p.times[x+d:], p.times[x:n])
		copy(p.free[x+d:], p.free[x:n])
	} else if d < 0 {
		copy(p.times[x+d:], p.times[x:])
		copy(p.free[x+d:], p.free[x:])
		p.times = p.times[:n+d]
		p.free = p.free[:n+d]
	}
	for k, st := range nb {
		p.times[lo+k], p.free[lo+k] = st.t, st.f
	}
}

// add adds delta during [start, end) if every count stays within [0,
// capacity], else returns ErrCapacity changing nothing: one search for
// start, one walk over the steps the interval spans (checking them), and
// shift on the steps it found.
func (p *Profile) add(start, end float64, delta int) error {
	if start < p.times[0] {
		start = p.times[0]
	}
	if !(end > start) || delta == 0 {
		return nil
	}
	i := p.index(start)
	x := i
	for ; x < len(p.times) && p.times[x] < end; x++ {
		if f := p.free[x] + delta; f < 0 || f > p.capacity {
			return fmt.Errorf("%w: %d processors during [%v, %v) with %d free at %v (capacity %d)",
				ErrCapacity, -delta, start, end, p.free[x], p.times[x], p.capacity)
		}
	}
	p.shift(i, x-1, start, end, delta)
	return nil
}

// shift adds delta during [start, end), start in step ci (at or after its
// start) and end in (times[ei], times[ei+1]] (ei the last step for an
// infinite end), the counts checked by the caller: it makes start and end
// breakpoints, changes the steps between and merges at both ends.
func (p *Profile) shift(ci, ei int, start, end float64, delta int) {
	s := ci
	if p.times[ci] != start {
		p.insert(ci+1, start)
		s, ei = ci+1, ei+1
	}
	j := ei + 1
	if !math.IsInf(end, 1) && !(j < len(p.times) && p.times[j] == end) {
		p.insert(j, end)
	}
	p.dirty(s)
	free := p.free[s:j]
	for x := range free {
		free[x] += delta
	}
	p.merge(j)
	p.merge(s)
}

// insert makes t (strictly between times[i-1] and times[i]) a breakpoint
// at index i, with the count of the step it splits, and returns i.
func (p *Profile) insert(i int, t float64) int {
	p.dirty(i)
	p.times = append(p.times, 0)
	p.free = append(p.free, 0)
	copy(p.times[i+1:], p.times[i:])
	copy(p.free[i+1:], p.free[i:])
	p.times[i] = t
	p.free[i] = p.free[i-1]
	return i
}

// merge removes breakpoint i if it does not change the count.
func (p *Profile) merge(i int) {
	if i <= 0 || i >= len(p.times) || p.free[i] != p.free[i-1] {
		return
	}
	p.dirty(i)
	p.times = append(p.times[:i], p.times[i+1:]...)
	p.free = append(p.free[:i], p.free[i+1:]...)
}

// Cut removes the interval [t, t+d) from the time axis: the profile
// becomes the step function equal to the old one before t and to the old
// one d later from t on (every breakpoint after t+d moves d earlier). It
// is what shifting every reservation that lies after t+d by d earlier
// makes of a profile that is constant on [t, t+d) apart from them; the
// caller sees to that. The breakpoints are moved by subtracting d, so the
// times stay exact only as far as that subtraction is (whole numbers
// below 2^53 are). It returns an error, changing nothing, unless d > 0
// and t is a finite time at or after the origin. O(log n + n): one shift
// of the steps after t+d.
func (p *Profile) Cut(t, d float64) error {
	if !(d > 0) || !(t >= p.times[0]) || math.IsInf(t, 0) || !(t+d > t) || math.IsInf(t+d, 0) {
		return fmt.Errorf("profile: cannot cut [%v, %v+%v) from a profile starting at %v", t, t, d, p.times[0])
	}
	i := p.index(t)
	j := p.indexFrom(t+d, i) // the step holding t+d: its count is the one at t
	f := p.free[j]
	lo := i + 1
	if p.times[i] == t {
		lo = i
	}
	nb := append(p.seg[:0], step{t, f})
	if lo > 0 && p.free[lo-1] == f {
		nb = nb[:0] // the count at t is that of the step before: no breakpoint
	}
	p.seg = nb[:0]
	p.splice(lo, j+1, nb)
	for x := lo + len(nb); x < len(p.times); x++ {
		p.times[x] -= d
	}
	return nil
}

// Advance moves the origin to t, forgetting the steps that ended before it.
// Queries never look before the origin. Amortised O(1) per dropped step.
func (p *Profile) Advance(t float64) {
	if t <= p.times[0] {
		return
	}
	i := p.index(t)
	if i > 0 {
		p.clean = 0
		n := copy(p.times, p.times[i:])
		copy(p.free, p.free[i:])
		p.times = p.times[:n]
		p.free = p.free[:n]
	}
	p.times[0] = t
}

// FitsAt reports whether at least k processors stay free during [t, t+d)
// (at t alone for a zero d): EarliestFit(k, d, t) == t, but it stops at
// the first step that is too low. O(log n + m), m steps spanned.
func (p *Profile) FitsAt(k int, d, t float64) bool {
	if k > p.capacity || k < 0 {
		return false
	}
	if t < p.times[0] {
		t = p.times[0]
	}
	i := p.index(t)
	if p.free[i] < k {
		return false
	}
	end := t + d
	for i++; i < len(p.times) && p.times[i] < end; i++ {
		if p.free[i] < k {
			return false
		}
	}
	return true
}

// MinFree returns the least number of processors free at an instant of
// [start, end) (the count at start for an empty interval). O(log n + m),
// m steps spanned.
func (p *Profile) MinFree(start, end float64) int {
	if start < p.times[0] {
		start = p.times[0]
	}
	i := p.indexNear(start)
	f := p.free[i]
	for i++; i < len(p.times) && p.times[i] < end; i++ {
		f = min(f, p.free[i])
	}
	return f
}

// Search returns the index of the first step starting at or after t
// (Len() if none). O(log n).
func (p *Profile) Search(t float64) int { return sort.SearchFloat64s(p.times, t) }

// EarliestFitBefore answers EarliestFit(k, d, after) as if k processors
// were released during [limit, limit+d) first (the caller's own
// reservation there), without changing the profile, but only if that
// earliest fit lies before limit: it returns the fit and true, or false if
// the earliest fit is limit or later. O(log n + m), m steps between after
// and the fit plus d (at most up to limit).
func (p *Profile) EarliestFitBefore(k int, d, after, limit float64) (float64, bool) {
	return p.EarliestFitBeforeStop(k, d, after, limit, limit)
}

// EarliestFitBeforeStop is EarliestFitBefore that also gives up (false)
// once the earliest fit is known to be at stop or later (stop <= limit).
func (p *Profile) EarliestFitBeforeStop(k int, d, after, limit, stop float64) (float64, bool) {
	if after < p.times[0] {
		after = p.times[0]
	}
	return p.efbs(p.indexNear(after), k, d, after, limit, stop)
}

// EarliestFitBeforeStopStep is EarliestFitBeforeStop with after the start
// of the step containing t (the origin for t before it): the search for a
// caller that knows no fit starts before t. (That step may begin after the
// count last changed, at a redundant step; when no fit starts before t,
// the answer is the same from either start.)
func (p *Profile) EarliestFitBeforeStopStep(k int, d, t, limit, stop float64) (float64, bool) {
	i := p.indexNear(t)
	return p.efbs(i, k, d, p.times[i], limit, stop)
}

// efbs is EarliestFitBeforeStop for an after (not before the origin) in
// step i.
func (p *Profile) efbs(i, k int, d, after, limit, stop float64) (float64, bool) {
	if k > p.capacity || k < 0 {
		return math.Inf(1), false
	}
	stop = min(stop, limit)
	if after >= stop {
		return math.Inf(1), false
	}
	// A window that begins before limit needs k free only up to limit:
	// from there until limit+d, past its end, the k released processors
	// are free. So the walk goes over the steps that begin before limit:
	// cand is the start of the current run of steps with at least k
	// free, the window closes at a step end >= cand+d.
	cand := after
	ts, fr := p.times, p.free[:len(p.times)]
	n := len(ts)
	end := cand + d // the window from cand closes at a step start >= end
fast:
	for i+1 < n {
		if i&(blk-1) == 0 {
			// At a block start: skip the whole block if every step in it
			// is blocked (then the candidate moves to its end) or every
			// one fits and the window does not close inside it. Both need
			// the block to end before the last step and by limit.
			if e := i + blk; e < n && ts[e] <= limit {
				b := i >> blkShift
				p.summarise(b)
				if p.bmax[b] < k {
					cand = ts[e]
					if cand >= stop {
						return math.Inf(1), false
					}
					end = cand + d
					i = e
					continue
				}
				if p.bmin[b] >= k && ts[e] < end {
					i = e
					continue
				}
			}
		}
		// the steps up to the next block start (or the last step)
		for e := min(i|(blk-1)+1, n-1); i < e; i++ {
			next := ts[i+1]
			if next > limit {
				break fast
			}
			if fr[i] < k {
				// a run of steps that are too low: the candidate moves to
				// its end (once the run reaches limit, the candidate is
				// already at or past stop and the search fails either way)
				for i+1 < e && fr[i+1] < k {
					i++
				}
				if cand = ts[i+1]; cand >= stop {
					return math.Inf(1), false
				}
				end = cand + d
			} else if next >= end {
				return cand, true
			}
		}
	}
	// Step i is the last one or reaches past limit, and every step from
	// cand's to the one before step i has k free: the window fits unless
	// step i begins before limit without k free (the next start, its
	// end, is then past limit).
	if ts[i] < limit && fr[i] < k {
		return math.Inf(1), false
	}
	return cand, true
}
