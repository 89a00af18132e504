package profile

import (
	"fmt"
	"math"
)

// Rebuild makes p the profile of a cluster of capacity processors of
// which used are busy from origin on, reusing p's storage (no allocation
// once grown); Rise then frees them as the running tasks end. A planner
// that recomputes its profile from the running tasks at every decision so
// pays O(r) for r distinct ends, not r reservations. It returns
// ErrCapacity, and makes every processor free, if used is not within [0,
// capacity]. p may be a zero Profile.
func (p *Profile) Rebuild(capacity int, origin float64, used int) error {
	p.capacity = capacity
	p.pads, p.clean, p.hint = 0, 0, 0
	if p.slackFrom == 0 {
		p.slackFrom = slackTail
	}
	p.times = append(p.times[:0], origin)
	p.free = append(p.free[:0], capacity-used)
	if used < 0 || used > capacity {
		p.free[0] = capacity
		return fmt.Errorf("%w: %d busy processors of %d", ErrCapacity, used, capacity)
	}
	return nil
}

// Rise makes k more processors free from t on, t after every breakpoint
// (the running tasks' ends, in increasing order, after Rebuild). It
// returns an error, changing nothing, if t is not after the last
// breakpoint or the count would exceed the capacity. O(1) amortised.
func (p *Profile) Rise(t float64, k int) error {
	n := len(p.times)
	if f := p.free[n-1] + k; t > p.times[n-1] && f <= p.capacity && k >= 0 {
		p.times = append(p.times, t)
		p.free = append(p.free, f)
		return nil
	}
	return p.riseErr(t, k)
}

// riseErr is the error of a Rise that cannot be.
func (p *Profile) riseErr(t float64, k int) error {
	n := len(p.times)
	if !(t > p.times[n-1]) {
		return fmt.Errorf("profile: rise at %v, not after the last breakpoint %v", t, p.times[n-1])
	}
	return fmt.Errorf("%w: %d processors freed at %v with %d free (capacity %d)", ErrCapacity, k, t, p.free[n-1], p.capacity)
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
	p.shift(ci, i, cand, cand+d, -k)
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
			p.shift(ci, i, cand, cand+d, -k)
			return cand, true
		}
	}
	return math.Inf(1), false
}
