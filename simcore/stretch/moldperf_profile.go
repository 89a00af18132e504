package stretch

import (
	"fmt"
	"math"
	"sort"
)

// moldProfile is the availability profile of the moldable planners: the
// free-processor step function of simcore/profile (times[0] the origin,
// free[i] on [times[i], times[i+1]), the last step forever, adjacent equal
// steps merged), with the same answers bit for bit, specialised for the
// planners' use: it is rebuilt in place from the running tasks at every
// check (no allocation once grown), queries starting at the origin skip
// the binary search, and a reservation that cannot fit panics (every
// caller reserves only what a query said fits).
type moldProfile struct {
	capacity int
	times    []float64
	free     []int
}

// reset makes p the staircase of the running tasks ends (sorted by end,
// all ending after origin): free rises at each distinct end time.
func (p *moldProfile) reset(capacity int, origin float64, ends []runEntry) {
	p.capacity = capacity
	used := 0
	for _, r := range ends {
		used += r.node
	}
	p.times = append(p.times[:0], origin)
	p.free = append(p.free[:0], capacity-used)
	for k := 0; k < len(ends); {
		e := ends[k].end
		for k < len(ends) && ends[k].end == e {
			used -= ends[k].node
			k++
		}
		p.times = append(p.times, e)
		p.free = append(p.free, capacity-used)
	}
	if used != 0 || p.free[0] < 0 {
		panic(fmt.Sprintf("stretch: running tasks exceed the machine (%d of %d processors)", capacity-p.free[0], capacity))
	}
}

// copyFrom makes p a copy of q.
func (p *moldProfile) copyFrom(q *moldProfile) {
	p.capacity = q.capacity
	p.times = append(p.times[:0], q.times...)
	p.free = append(p.free[:0], q.free...)
}

// index is profile.index: the step containing t.
func (p *moldProfile) index(t float64) int {
	if t <= p.times[0] {
		return 0
	}
	i := sort.SearchFloat64s(p.times, t)
	if i < len(p.times) && p.times[i] == t {
		return i
	}
	return i - 1
}

// Free returns the number of processors free at t.
func (p *moldProfile) Free(t float64) int { return p.free[p.index(t)] }

// earliestFit is profile.EarliestFit for 0 <= k: the earliest time >=
// after (and the origin) at which k processors stay free for d.
func (p *moldProfile) earliestFit(k int, d, after float64) float64 {
	if k > p.capacity {
		return math.Inf(1)
	}
	if after < p.times[0] {
		after = p.times[0]
	}
	times, free := p.times, p.free
	n := len(times)
	i := p.index(after)
	cand := after
	for ; i < n; i++ {
		if free[i] < k {
			cand = math.Inf(1)
			// Skip the steps that are too low without re-testing cand.
			for i+1 < n && free[i+1] < k {
				i++
			}
			continue
		}
		if math.IsInf(cand, 1) {
			cand = times[i]
		}
		if i+1 == n {
			return cand
		}
		if nx := times[i+1]; nx >= cand+d && (d > 0 || nx > cand) {
			return cand
		}
	}
	return cand
}

// fitsAt is profile.FitsAt: at least k processors free during [t, t+d).
func (p *moldProfile) fitsAt(k int, d, t float64) bool {
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

// reserve is profile.Reserve(start, end, k) for k >= 1; it panics if k
// processors are not free during the whole interval.
func (p *moldProfile) reserve(start, end float64, k int) {
	if start < p.times[0] {
		start = p.times[0]
	}
	if !(end > start) || k == 0 {
		return
	}
	i := p.split(start)
	j := len(p.times)
	if !math.IsInf(end, 1) {
		j = p.split(end)
	}
	free := p.free[i:j]
	for x := range free {
		free[x] -= k
		if free[x] < 0 {
			panic(fmt.Sprintf("stretch: reservation of %d processors during [%v, %v) exceeds the free ones at %v", k, start, end, p.times[i+x]))
		}
	}
	p.merge(j)
	p.merge(i)
}

// split makes t a breakpoint and returns its index.
func (p *moldProfile) split(t float64) int {
	i := p.index(t)
	if p.times[i] == t {
		return i
	}
	i++
	p.times = append(p.times, 0)
	p.free = append(p.free, 0)
	copy(p.times[i+1:], p.times[i:])
	copy(p.free[i+1:], p.free[i:])
	p.times[i] = t
	p.free[i] = p.free[i-1]
	return i
}

// merge removes breakpoint i if it does not change the count.
func (p *moldProfile) merge(i int) {
	if i <= 0 || i >= len(p.times) || p.free[i] != p.free[i-1] {
		return
	}
	p.times = append(p.times[:i], p.times[i+1:]...)
	p.free = append(p.free[:i], p.free[i+1:]...)
}

// earliestFitBy is earliestFit(k, d, after) for a caller that only wants
// a fit x with x + d <= D: it returns x and true if that holds, and false
// (possibly without finishing the scan) otherwise. The candidate start
// only grows during the scan and x + d is non-decreasing in x (also in
// floating point), so once a candidate misses D every later one does.
func (p *moldProfile) earliestFitBy(k int, d, after, D float64) (float64, bool) {
	if k > p.capacity {
		return math.Inf(1), false
	}
	if after < p.times[0] {
		after = p.times[0]
	}
	times, free := p.times, p.free
	n := len(times)
	i := p.index(after)
	cand := after
	if cand+d > D {
		return cand, false
	}
	low := false
	for ; i < n; i++ {
		if free[i] < k {
			// The next candidate is a later step start: give up as soon
			// as the step starts are past D − d.
			low = true
			for i+1 < n && free[i+1] < k {
				i++
				if times[i]+d > D {
					return times[i], false
				}
			}
			continue
		}
		if low {
			cand, low = times[i], false
			if cand+d > D {
				return cand, false
			}
		}
		if i+1 == n {
			return cand, true
		}
		if nx := times[i+1]; nx >= cand+d && (d > 0 || nx > cand) {
			return cand, true
		}
	}
	// Only reached when the last step is too low (k above the capacity's
	// free count forever): earliestFit answers +Inf there.
	return math.Inf(1), false
}

// advance is profile.Advance: it moves the origin to t, dropping the
// steps that end by t.
func (p *moldProfile) advance(t float64) {
	if t <= p.times[0] {
		return
	}
	i := p.index(t)
	if i > 0 {
		n := copy(p.times, p.times[i:])
		copy(p.free, p.free[i:])
		p.times = p.times[:n]
		p.free = p.free[:n]
	}
	p.times[0] = t
}

// fitPlace is earliestFit(k, d, after) followed by reserve(x, x+d, k) on
// its answer x, which it returns: the scan knows the steps holding the
// start and the end, so the reservation needs no search.
func (p *moldProfile) fitPlace(k int, d, after float64) float64 {
	if k < 1 || k > p.capacity || !(d > 0) {
		x := p.earliestFit(k, d, after)
		p.reserve(x, x+d, k)
		return x
	}
	if after < p.times[0] {
		after = p.times[0]
	}
	times, free := p.times, p.free
	n := len(times)
	i := p.index(after)
	cand, ci, low := after, i, false
	for ; i < n; i++ {
		if free[i] < k {
			low = true
			for i+1 < n && free[i+1] < k {
				i++
			}
			continue
		}
		if low {
			cand, ci, low = times[i], i, false
		}
		if i+1 == n || times[i+1] >= cand+d {
			break
		}
	}
	if i == n || low {
		panic("stretch: profile ends below its capacity")
	}
	p.place(ci, i, cand, cand+d, k)
	return cand
}

// fitByPlace is earliestFitBy(k, d, after, D) followed, on success, by the
// reservation of [x, x+d) on k processors.
func (p *moldProfile) fitByPlace(k int, d, after, D float64) (float64, bool) {
	if k < 1 || k > p.capacity || !(d > 0) {
		x, ok := p.earliestFitBy(k, d, after, D)
		if ok {
			p.reserve(x, x+d, k)
		}
		return x, ok
	}
	if after < p.times[0] {
		after = p.times[0]
	}
	times, free := p.times, p.free
	n := len(times)
	i := p.index(after)
	cand, ci := after, i
	if cand+d > D {
		return cand, false
	}
	low := false
	for ; i < n; i++ {
		if free[i] < k {
			low = true
			for i+1 < n && free[i+1] < k {
				i++
				if times[i]+d > D {
					return times[i], false
				}
			}
			continue
		}
		if low {
			cand, ci, low = times[i], i, false
			if cand+d > D {
				return cand, false
			}
		}
		if i+1 == n || times[i+1] >= cand+d {
			p.place(ci, i, cand, cand+d, k)
			return cand, true
		}
	}
	return math.Inf(1), false
}

// place reserves k processors on [start, end), start in step ci (at or
// after its start) and end in (times[ei], times[ei+1]] (or ei the last
// step): add(start, end, −k) without the searches.
func (p *moldProfile) place(ci, ei int, start, end float64, k int) {
	s := ci
	if p.times[ci] != start {
		p.insert(ci+1, start, p.free[ci])
		s, ei = ci+1, ei+1
	}
	j := ei + 1
	if !(j < len(p.times) && p.times[j] == end) {
		p.insert(j, end, p.free[ei])
	}
	free := p.free[s:j]
	for x := range free {
		free[x] -= k
		if free[x] < 0 {
			panic(fmt.Sprintf("stretch: reservation of %d processors during [%v, %v) exceeds the free ones at %v", k, start, end, p.times[s+x]))
		}
	}
	p.merge(j)
	p.merge(s)
}

// insert adds the breakpoint t with free count f at index i.
func (p *moldProfile) insert(i int, t float64, f int) {
	p.times = append(p.times, 0)
	p.free = append(p.free, 0)
	copy(p.times[i+1:], p.times[i:])
	copy(p.free[i+1:], p.free[i:])
	p.times[i], p.free[i] = t, f
}
