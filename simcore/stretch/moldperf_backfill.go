package stretch

import "schedfarm/simcore/profile"

// incBackfill re-evaluates conservative backfilling in a fixed order when
// one task's size changes (the Iterative algorithms' trial step), without
// redoing the tasks before it: their reservations do not depend on the
// change. It keeps the accepted schedule (start per position and the
// prefix sums of C − r, accumulated in the same order as conservative, so
// the sums are the same floats) and copies of the profile every ckEvery
// positions; a trial starts from the checkpoint before the changed task,
// replays the accepted reservations up to it (the same reserve calls on
// the same profile, so the same profile), and plans the rest. A trial
// stops as soon as its partial sum reaches the acceptance threshold: the
// terms are non-negative (s >= t >= r), so the full sum would too.
type incBackfill struct {
	order []int
	start []float64 // accepted start per position
	psum  []float64 // psum[p]: Σ(C − r) of positions < p, accepted
	ck    []profile.Profile
	// The trial's results, adopted by accept.
	tStart []float64
	tPsum  []float64
	tCk    []profile.Profile
	tFrom  int // first position the trial planned
	prof   profile.Profile
	// pre is the accepted profile before position prePos (if preOK): the
	// same task is usually tried again right after an accepted step, at
	// the same position, so its trial starts from a copy without replay.
	pre    profile.Profile
	prePos int
	preOK  bool
}

const ckEvery = 8

// reset plans every task of order from the base profile and accepts the
// result; it returns Σ(C − r).
func (b *incBackfill) reset(base *profile.Profile, t float64, tasks []MoldTask, order []int, size []int) float64 {
	n := len(order)
	b.order = order
	b.start = moldGrow(b.start, n)
	b.psum = moldGrow(b.psum, n+1)
	b.tStart = moldGrow(b.tStart, n)
	b.tPsum = moldGrow(b.tPsum, n+1)
	nck := (n + ckEvery - 1) / ckEvery
	for len(b.ck) < nck {
		b.ck = append(b.ck, profile.Profile{})
		b.tCk = append(b.tCk, profile.Profile{})
	}
	b.prof.CopyFrom(base)
	b.preOK = false
	b.tPsum[0] = 0
	F, _ := b.run(0, t, tasks, size, 0, false)
	b.accept()
	return F
}

// run plans positions from..n-1 on b.prof (the accepted state before
// from), starting the sum at sum, saving the trial's starts, sums and
// checkpoints; with stop, it gives up (false) once the sum reaches thr.
func (b *incBackfill) run(from int, t float64, tasks []MoldTask, size []int, thr float64, stop bool) (float64, bool) {
	b.tFrom = from
	sum := b.tPsum[from]
	prof := &b.prof
	for p := from; p < len(b.order); p++ {
		if p%ckEvery == 0 {
			b.tCk[p/ckEvery].CopyFrom(prof)
		}
		i := b.order[p]
		d := tasks[i].Times[size[i]-1]
		s := mustPlace(prof, size[i], d, t)
		b.tStart[p] = s
		sum += s + d - tasks[i].Release
		b.tPsum[p+1] = sum
		if stop && sum >= thr {
			return sum, false
		}
	}
	return sum, true
}

// trial re-plans with task order[pos] at its new size (size holds it) and
// returns Σ(C − r) and true, or false as soon as the sum reaches thr.
func (b *incBackfill) trial(pos int, t float64, tasks []MoldTask, size []int, thr float64) (float64, bool) {
	if b.preOK && b.prePos == pos {
		b.prof.CopyFrom(&b.pre)
	} else {
		c := pos / ckEvery
		b.prof.CopyFrom(&b.ck[c])
		for p := c * ckEvery; p < pos; p++ {
			i := b.order[p]
			s := b.start[p]
			mustReserve(&b.prof, s, s+tasks[i].Times[size[i]-1], size[i])
		}
		b.pre.CopyFrom(&b.prof)
		b.prePos, b.preOK = pos, true
	}
	b.tPsum[pos] = b.psum[pos]
	return b.run(pos, t, tasks, size, thr, true)
}

// accept adopts the last trial (which must have run to the end).
func (b *incBackfill) accept() {
	from, n := b.tFrom, len(b.order)
	if from < b.prePos {
		b.preOK = false
	}
	copy(b.start[from:n], b.tStart[from:n])
	copy(b.psum[from+1:n+1], b.tPsum[from+1:n+1])
	// Checkpoints at positions after from changed; the one at from (if
	// any) is the state before the changed task, unchanged but equal.
	for c := (from + ckEvery) / ckEvery; c*ckEvery < n; c++ {
		b.ck[c], b.tCk[c] = b.tCk[c], b.ck[c]
	}
	if from%ckEvery == 0 && from < n {
		c := from / ckEvery
		b.ck[c], b.tCk[c] = b.tCk[c], b.ck[c]
	}
}

// moldGrow returns s with length n, reusing its storage when it can.
func moldGrow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}
