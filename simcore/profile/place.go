package profile

import (
	"fmt"
	"math"
)

// Rebuild makes p the profile of a cluster of capacity processors from
// origin on, busy with n running tasks: the i-th (end(i) returns its end
// time and processors) holds its processors from origin until its end.
// The ends must not decrease with i and must lie after origin. It reuses
// p's storage (no allocation once grown), so a planner that recomputes
// its profile from the running tasks at every decision pays O(n), not
// n reservations. It returns ErrCapacity, leaving p empty of steps past
// the origin, if the tasks use more than the capacity. p may be a zero
// Profile.
func (p *Profile) Rebuild(capacity int, origin float64, n int, end func(i int) (t float64, k int)) error {
	p.capacity = capacity
	p.pads, p.clean, p.hint = 0, 0, 0
	if p.slackFrom == 0 {
		p.slackFrom = slackTail
	}
	used := 0
	for i := range n {
		_, k := end(i)
		used += k
	}
	p.times = append(p.times[:0], origin)
	p.free = append(p.free[:0], capacity-used)
	if used > capacity {
		p.free[0] = capacity
		return fmt.Errorf("%w: running tasks use %d of %d processors", ErrCapacity, used, capacity)
	}
	for i := 0; i < n; {
		e, k := end(i)
		used -= k
		for i++; i < n; i++ {
			t, k := end(i)
			if t != e {
				break
			}
			used -= k
		}
		p.times = append(p.times, e)
		p.free = append(p.free, capacity-used)
	}
	return nil
}

// CopyFrom makes p a copy of q, reusing p's storage. p may be a zero
// Profile.
func (p *Profile) CopyFrom(q *Profile) {
	p.capacity = q.capacity
	p.times = append(p.times[:0], q.times...)
	p.free = append(p.free[:0], q.free...)
	p.pads, p.slackFrom, p.hint, p.clean = q.pads, q.slackFrom, q.hint, 0
}

// Place is EarliestFit(k, d, after) followed by Reserve(t, t+d, k) on its
// answer t, which it returns: the search knows the steps holding the
// start and the end, so the reservation needs no search of its own. It
// returns ErrCapacity if there is no fit (k above the capacity, or the
// last step below k). O(log n + m + n), as EarliestFit then Reserve.
func (p *Profile) Place(k int, d, after float64) (float64, error) {
	if k < 1 || k > p.capacity || !(d > 0) {
		t, ok := p.EarliestFit(k, d, after)
		if !ok {
			return t, fmt.Errorf("%w: %d processors (capacity %d)", ErrCapacity, k, p.capacity)
		}
		return t, p.Reserve(t, t+d, k)
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
		return math.Inf(1), fmt.Errorf("%w: %d processors after %v: the last step has %d free", ErrCapacity, k, after, free[n-1])
	}
	p.place(ci, i, cand, cand+d, k)
	return cand, nil
}

// PlaceBy is Place for a caller that only wants a fit t with t+d <=
// deadline: it reserves the earliest fit and returns it and true if that
// holds, and returns false, changing nothing, otherwise (giving up as
// soon as the candidate start passes deadline-d: the candidate only grows
// during the search, and t+d does not decrease with t, also in floating
// point).
func (p *Profile) PlaceBy(k int, d, after, deadline float64) (float64, bool) {
	if k < 1 || k > p.capacity || !(d > 0) {
		t, ok := p.EarliestFit(k, d, after)
		if !ok || !(t+d <= deadline) {
			return t, false
		}
		if err := p.Reserve(t, t+d, k); err != nil {
			return t, false
		}
		return t, true
	}
	if after < p.times[0] {
		after = p.times[0]
	}
	times, free := p.times, p.free
	n := len(times)
	i := p.index(after)
	cand, ci := after, i
	if cand+d > deadline {
		return cand, false
	}
	low := false
	for ; i < n; i++ {
		if free[i] < k {
			low = true
			for i+1 < n && free[i+1] < k {
				i++
				if times[i]+d > deadline {
					return times[i], false
				}
			}
			continue
		}
		if low {
			cand, ci, low = times[i], i, false
			if cand+d > deadline {
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
// step), k processors free on every step of ci..ei: add(start, end, −k)
// without the searches.
func (p *Profile) place(ci, ei int, start, end float64, k int) {
	s := ci
	if p.times[ci] != start {
		p.insert(ci+1, start)
		s, ei = ci+1, ei+1
	}
	j := ei + 1
	if !(j < len(p.times) && p.times[j] == end) {
		p.insert(j, end)
	}
	p.dirty(s)
	free := p.free[s:j]
	for x := range free {
		free[x] -= k
	}
	p.merge(j)
	p.merge(s)
}
