package batch

import (
	"math"
	"slices"
)

// compressArrival re-fits every reservation (queue[:Depth]'s holders) in
// queue order: each at its earliest fit with its own reservation released
// first, so none moves later (pyss's conservative scheduler at every job
// end).
//
// A holder had no fit before its start r when it was last looked at (its
// placement or the last compression), and the profile has since lost
// nodes except where they were released: a fit now overlaps such a
// release, which begins before r. The releases are logged in sim.inc (in
// this mode, entry i has the absolute position ep+i; hj[q].vep is the
// position when holder q was last looked at): a holder with no release
// since then that begins before r is skipped in O(1), and otherwise its
// fit is looked for only from the earliest release's start minus its
// estimate up to the latest release's end.
//
// Every holder looked at also leaves a certificate: no job of k nodes and
// duration d, whose reservation starts at b, has a fit before b (its
// start, or where it moved to). For a later holder of k' >= k nodes, d' >=
// d and start r' it rules out fits that begin before b, if b <= r', or
// before min(b, r'-d) (a fit of it there is a fit of the smaller job,
// whose window lies in its own), as long as the counts the smaller job's
// windows see have not grown: a move releasing nodes from a on caps the
// bound at a-d (acert).
func (s *sim) compressArrival(now float64) {
	base, n0 := s.ep, len(s.inc)
	// suffix minimum of starts and maximum of ends of the log so far
	suf := slices.Grow(s.suf[:0], 2*n0+2)[:2*n0+2]
	suf[2*n0], suf[2*n0+1] = math.Inf(1), math.Inf(-1)
	for i := n0 - 1; i >= 0; i-- {
		suf[2*i] = min(suf[2*i+2], s.inc[i].a)
		suf[2*i+1] = max(suf[2*i+3], s.inc[i].b)
	}
	s.suf = suf
	if len(s.acert) == 0 {
		s.acert = make([]acert, 2*(s.cfg.Nodes+1))
		for i := range s.acert {
			s.acert[i] = emptyAcert()
		}
	}
	// only the sizes noted since the last compression differ from the
	// empty table
	for _, k := range s.acertUsed {
		s.acert[2*k], s.acert[2*k+1] = emptyAcert(), emptyAcert()
	}
	s.acertUsed = s.acertUsed[:0]
	s.amov = s.amov[:0]
	// the releases of this compression's moves: after every holder's look
	runA, runB := math.Inf(1), math.Inf(-1)
	for _, q := range s.queue {
		r := s.resv[q]
		if r <= now {
			continue // holds none, or starts in this pass
		}
		hj := &s.hj[q]
		v := int(min(max(int64(hj.vep)-int64(base), 0), int64(n0)))
		lo, stop := min(suf[2*v], runA), max(suf[2*v+1], runB)
		hj.vep = base + uint64(len(s.inc))
		if lo >= r {
			continue
		}
		k, d := int(hj.k), hj.d
		from := max(now, lo-d, s.arrivalBound(k, d, r))
		if from >= min(stop, r) {
			s.noteArrivalCert(k, d, r)
			continue
		}
		t, ok := s.prof.EarliestFitBeforeStop(k, d, from, r, stop)
		if !ok {
			s.noteArrivalCert(k, d, r)
			continue
		}
		if err := s.prof.Move(r, t, d, k); err != nil {
			panic(err)
		}
		if a, b := max(r, t+d), r+d; b > a {
			s.inc = append(s.inc, span{a, b})
			runA, runB = min(runA, a), max(runB, b)
			s.amov = append(s.amov, a)
		}
		s.noteArrivalCert(k, d, t)
		hj.vep = base + uint64(len(s.inc))
		s.resv[q] = t
		s.minR = min(s.minR, t)
	}
	// every holder was looked at after the releases logged before this
	// compression: drop them
	s.inc = s.inc[:copy(s.inc, s.inc[n0:])]
	s.ep = base + uint64(n0)
}

// emptyAcert is an acert entry that excludes nothing.
func emptyAcert() acert { return acert{d: math.Inf(1), b: math.Inf(-1), rx: math.Inf(1)} }

// acert is a certificate of compressArrival: no job of its size and
// duration d, reserved at rx, has a fit before b, given the moves up to
// amov[:m].
type acert struct {
	d, b, rx float64
	m        int
}

// capped returns c's bound capped by the moves made since it was noted
// (each released nodes from amov[i] on).
func (s *sim) capped(c *acert) float64 {
	for ; c.m < len(s.amov); c.m++ {
		c.b = min(c.b, s.amov[c.m]-c.d)
	}
	return c.b
}

// arrivalBound returns a time before which a holder of k nodes, duration
// d and start r has no fit, from the certificates of sizes k and the
// powers of two below it (-Inf if none applies).
func (s *sim) arrivalBound(k int, d, r float64) float64 {
	b := math.Inf(-1)
	use := func(c *acert) {
		if c.d > d {
			return
		}
		cb := s.capped(c)
		if c.rx > r {
			// only fits that end by r are excluded
			cb = min(cb, r-c.d)
		}
		b = max(b, cb)
	}
	use(&s.acert[2*k])
	use(&s.acert[2*k+1])
	for k1 := 1; k1 < k; k1 <<= 1 {
		use(&s.acert[2*k1])
		use(&s.acert[2*k1+1])
	}
	return b
}

// noteArrivalCert records that a job of k nodes and duration d has no fit
// before b: two per size, the shortest duration and the latest bound.
func (s *sim) noteArrivalCert(k int, d, b float64) {
	s.acertUsed = append(s.acertUsed, int32(k))
	c := acert{d: d, b: b, rx: b, m: len(s.amov)}
	if x := &s.acert[2*k]; d < x.d || d == x.d && b > s.capped(x) {
		*x = c
	}
	if x := &s.acert[2*k+1]; b >= s.capped(x) || d <= x.d {
		*x = c
	}
}
