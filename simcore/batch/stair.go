package batch

import (
	"math"
	"math/bits"
)

// The certificate staircase of a compression: stair[k] is the least
// duration of a certificate of at most k nodes with a bound of stairB or
// more (+Inf if none), computed for k < stairN (stairAt extends it). It
// is a non-increasing step function of k, kept as its steps (stairPt:
// from size k on, d), and extended by visiting only the sizes that hold a
// certificate (certBits), so its cost follows the sizes the queue holds,
// not the machine's node count.

// stairPt is a step of the staircase: stair[i] = d from size k on (up to
// the next step's size).
type stairPt struct {
	k int
	d float64
}

// stairRebuild is the number of holders whose search limit passed the
// staircase's bound after which compress rebuilds the staircase.
const stairRebuild = 8

// resetStair empties the staircase (at the start of a compression).
func (s *sim) resetStair() {
	s.stairB, s.stairN, s.stairFails = math.Inf(-1), 0, 0
	s.stair = s.stair[:0]
}

// rebuildStair makes the staircase that of bound b, computed from the
// certificate table as sizes are asked for (stairAt).
func (s *sim) rebuildStair(b float64) {
	s.stairB, s.stairN, s.stairFails = b, 0, 0
	s.stair = s.stair[:0]
}

// stairAt returns stair[k]. O(log steps), plus the sizes holding
// certificates between stairN and k when it extends the staircase.
func (s *sim) stairAt(k int) float64 {
	if k >= s.stairN {
		s.extendStair(k)
	}
	return s.stairKnown(k)
}

// stairKnown returns stair[k] for k < stairN: the d of the last step at
// or before k. O(log steps).
func (s *sim) stairKnown(k int) float64 {
	i := s.stairAfter(k)
	if i == 0 {
		return math.Inf(1)
	}
	return s.stair[i-1].d
}

// stairAfter returns the index of the first step after size k (len(stair)
// if none): a binary search.
func (s *sim) stairAfter(k int) int {
	st := s.stair
	lo, hi := 0, len(st)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if st[m].k > k {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return lo
}

// extendStair computes the staircase up to k from the certificate table.
func (s *sim) extendStair(k int) {
	d := math.Inf(1)
	if n := len(s.stair); n > 0 {
		d = s.stair[n-1].d
	}
	for i := s.nextCert(s.stairN, k); i <= k; i = s.nextCert(i+1, k) {
		e := d
		if c := s.cert[2*i]; c.bound >= s.stairB {
			e = min(e, c.d)
		}
		if c := s.cert[2*i+1]; c.bound >= s.stairB {
			e = min(e, c.d)
		}
		if e < d {
			s.stair = append(s.stair, stairPt{i, e})
			d = e
		}
	}
	s.stairN = k + 1
}

// nextCert returns the least size i in [from, to] that holds a
// certificate, or to+1 if none does: a scan of certSum, then of one word
// of certBits.
func (s *sim) nextCert(from, to int) int {
	if from > to {
		return to + 1
	}
	w := from >> 6
	if m := s.certBits[w] >> uint(from&63); m != 0 {
		return min(from+bits.TrailingZeros64(m), to+1)
	}
	// the next word of certBits that is not zero, after w
	for w++; w<<6 <= to; {
		sw := w >> 6
		if m := s.certSum[sw] >> uint(w&63); m != 0 {
			w += bits.TrailingZeros64(m)
			if w<<6 > to {
				break
			}
			return min(w<<6+bits.TrailingZeros64(s.certBits[w]), to+1)
		}
		w = (sw + 1) << 6
	}
	return to + 1
}

// noteCert records that a job of k nodes and duration d has no fit before
// bound. Two certificates are kept per size: the latest (the largest
// bound, as the reservation starts grow) and the one of the shortest
// duration (the most general).
func (s *sim) noteCert(k int, d, bound float64) {
	if bound >= s.stairB && k < s.stairN {
		s.lowerStair(k, d)
	}
	if s.certBits[k>>6]&(1<<uint(k&63)) == 0 {
		s.certBits[k>>6] |= 1 << uint(k&63)
		s.certSum[k>>12] |= 1 << uint((k>>6)&63)
		s.certUsed = append(s.certUsed, int32(k))
	}
	if c := &s.cert[2*k]; d < c.d || d == c.d && bound > c.bound {
		*c = cert{d: d, bound: bound}
	}
	if c := &s.cert[2*k+1]; bound >= c.bound || d <= c.d {
		*c = cert{d: d, bound: bound}
	}
}

// lowerStair makes stair[i] at most d for i from k (< stairN) on.
func (s *sim) lowerStair(k int, d float64) {
	st := s.stair
	i := s.stairAfter(k) // the steps after k
	if i > 0 && st[i-1].d <= d {
		return
	}
	// the steps after k that d lowers go
	j := i
	for j < len(st) && st[j].d >= d {
		j++
	}
	if i > 0 && st[i-1].k == k {
		st[i-1].d = d
		s.stair = append(st[:i], st[j:]...)
		return
	}
	if j > i {
		st[i] = stairPt{k, d}
		s.stair = append(st[:i+1], st[j:]...)
		return
	}
	s.stair = append(st, stairPt{})
	copy(s.stair[i+1:], s.stair[i:])
	s.stair[i] = stairPt{k, d}
}

// startCerts empties the certificate table and the staircase at the
// start of a compression (making the table at the first).
func (s *sim) startCerts() {
	if len(s.cert) == 0 {
		s.cert = make([]cert, 2*(s.cfg.Nodes+1))
		s.cert0 = make([]cert, len(s.cert))
		for i := range s.cert0 {
			s.cert0[i] = cert{d: math.Inf(1), bound: math.Inf(-1)}
		}
		copy(s.cert, s.cert0)
	}
	s.clearCerts()
	s.resetStair()
}

// clearCerts empties the certificate table: the entries of the sizes
// noted since the last clear go back to cert0's.
func (s *sim) clearCerts() {
	if s.certBits == nil {
		s.certBits = make([]uint64, (s.cfg.Nodes>>6)+1)
		s.certSum = make([]uint64, (s.cfg.Nodes>>12)+1)
	}
	for _, k := range s.certUsed {
		s.cert[2*k], s.cert[2*k+1] = s.cert0[2*k], s.cert0[2*k+1]
		s.certBits[k>>6] = 0
		s.certSum[k>>12] = 0
	}
	s.certUsed = s.certUsed[:0]
}
