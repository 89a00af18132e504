package batch

import (
	"math"
	"slices"

	"schedfarm/simcore/pq"
	"schedfarm/simcore/profile"
	"schedfarm/simcore/workload"
)

type span struct{ a, b float64 }

// hjob is what compress looks up of a holder's job, in one place: its
// estimate and size, and where the release log stood when it was last
// known to have no fit before its reservation (log length ver in epoch
// vep, see sim.inc).
type hjob struct {
	d   float64
	k   int32
	ver int32
	vep uint64
}

type holder struct {
	r   float64
	seq uint32 // queue rank (the position in the queue orders alike)
	j   int32
}

func (s *sim) holder(r float64, seq uint32, j int) holder {
	return holder{r: r, seq: seq, j: int32(j)}
}

func cmpHolder(a, b holder) int {
	switch {
	case a.r < b.r:
		return -1
	case a.r > b.r:
		return 1
	case a.seq < b.seq:
		return -1
	case a.seq > b.seq:
		return 1
	}
	return 0
}

// holders returns the current holders with a reservation after now,
// sorted by (reservation start, queue rank), from the persistent list.
//
// Between two compressions an entry goes stale only when its job starts
// (its start is then no later than now: it goes with the holders at now)
// or loses its reservation (unreserve, which sets hlStale): only then are
// the entries checked one by one.
func (s *sim) holders(now float64) []holder {
	old, nw := s.hl, s.hnew
	if s.hlStale {
		s.hlStale = false
		valid := func(h holder) bool { return s.resv[h.j] == h.r && s.seq[h.j] == h.seq }
		old = s.hl[:0]
		for _, h := range s.hl {
			if valid(h) {
				old = append(old, h)
			}
		}
		nw = s.hnew[:0]
		for _, h := range s.hnew {
			if valid(h) {
				nw = append(nw, h)
			}
		}
	}
	if !slices.IsSortedFunc(nw, cmpHolder) {
		slices.SortFunc(nw, cmpHolder)
	}
	s.hnew = nw[:0]
	hs := old
	if s.hlOwn = len(nw) == 0; !s.hlOwn {
		hs = mergeHolders(s.hbuf[:0], old, nw)
		s.hl, s.hbuf = old, hs
	}
	// drop the holders at now (they start in this pass; startDue finds
	// them in hpre)
	i := 0
	for i < len(hs) && hs[i].r <= now {
		i++
	}
	s.hpre = append(s.hpre[:0], hs[:i]...)
	return hs[i:]
}

// mergeHolders appends the merge of two sorted lists to dst.
func mergeHolders(dst, a, b []holder) []holder {
	for len(a) > 0 && len(b) > 0 {
		if cmpHolder(b[0], a[0]) < 0 {
			dst = append(dst, b[0])
			b = b[1:]
		} else {
			dst = append(dst, a[0])
			a = a[1:]
		}
	}
	dst = append(dst, a...)
	return append(dst, b...)
}

// compress moves every reservation as early as it can go, one at a time in
// the order of the current reservation starts (ties: queue order); each
// move releases the job's own reservation first, so it never moves later.
func (s *sim) compress(now float64) {
	var hs []holder
	if s.seq != nil {
		hs = s.holders(now)
		defer s.keepHolders(hs)
	} else {
		hs = s.hbuf[:0]
		held := 0 // the holders are the first Depth waiting jobs
		for i, q := range s.queue {
			if held == s.cfg.Depth {
				break
			}
			if r := s.resv[q]; r >= 0 {
				held++
				if r > now {
					hs = append(hs, s.holder(r, uint32(i), q))
				}
			}
		}
		slices.SortFunc(hs, cmpHolder)
		s.hbuf = hs
	}
	if len(hs) == 1 {
		// one holder (EASY): no bookkeeping, the exact test
		q, r := int(hs[0].j), hs[0].r
		job := &s.jobs[q]
		s.inc = s.inc[:0]
		s.ep++
		if t, ok := s.prof.EarliestFitBefore(job.Size, job.Estimate, now, r); ok {
			hs[0].r = t
			if err := s.prof.Release(r, r+job.Estimate, job.Size); err != nil {
				panic(err)
			}
			if err := s.prof.Reserve(t, t+job.Estimate, job.Size); err != nil {
				panic(err)
			}
			s.resv[q] = t
			s.minR = min(s.minR, t)
		}
		return
	}
	// The release log holds what was released since the last compression
	// (see the end of this function): a holder's releases since it was
	// last looked at end by suf[ver] (ver: the log length when it was
	// placed, 0 for the holders of the last compression) or come from a
	// move of this compression (newMax, over the moves that matter to it).
	suf := s.suf[:0]
	suf = slices.Grow(suf, len(s.inc)+1)[:len(s.inc)+1]
	suf[len(s.inc)] = math.Inf(-1)
	for i := len(s.inc) - 1; i >= 0; i-- {
		suf[i] = max(suf[i+1], s.inc[i].b)
	}
	s.suf = suf
	// A fit of a job is a window before its reservation start r (its own
	// reservation released, the counts from r on do not matter), so only
	// releases that begin before r can give it one. The moves of this
	// compression are kept in pend by the start of the interval they
	// raised, and folded into newMax once the holders reach it.
	newMax := math.Inf(-1)
	pend := &s.mvh
	pend.Reset()
	defer func() {
		// Every holder was looked at, and every move after that is a
		// later holder's, which raised counts only from its old start on,
		// no earlier than the holder's: none of the log matters to any
		// holder any more. Start it afresh.
		s.inc = s.inc[:0]
		s.ep++
	}()
	s.startCerts()
	// The group of the last move: its holder moved from gr to gt, and gmf
	// nodes stay free throughout [gt, gr) (-1: not computed yet). The
	// moves of its followers wait in gm until the profile is read again.
	gr, gt, gmf := math.Inf(-1), 0.0, -1
	gm := s.gm[:0]
	flush := func() {
		if len(gm) > 0 {
			if err := s.prof.MoveAll(gr, gt, gm); err != nil {
				panic(err)
			}
			gm = gm[:0]
		}
	}
	defer func() {
		flush()
		s.gm = gm
	}()
	// Cutting the tail (cutTail): tr follows the run, the last holders
	// that all moved by one amount; busy is the latest end of a started
	// job or a holder at now; rel the end of the latest release since the
	// profile the holders were last placed in (the compression's start,
	// then the last cut: -Inf). After a cut at t, suf holds t throughout:
	// a holder's fit begins before t or overlaps what a later move
	// releases (newMax).
	track, rel := s.tailOK, suf[0]
	tr := tailRun{pos: s.runPos[:0], last: -2, moved: math.Inf(-1), oldEnd: math.Inf(-1), scanEnd: math.Inf(-1)}
	busy := math.NaN()
	defer func() { s.runPos = tr.pos }()
	for x := 0; x < len(hs); x++ {
		if track && x == tr.last+1 && tr.d > 0 {
			// the holder before moved as the run did: cut here?
			if math.IsNaN(busy) {
				busy = s.busyUntil()
			}
			if t := max(tr.before(s, hs), busy, rel-tr.d, now); hs[x].r-tr.d >= t {
				flush()
				s.cutTail(hs, x, tr.pos, t, tr.d)
				rel = math.Inf(-1)
				s.out.Cuts++
				s.minR = min(s.minR, hs[x].r)
				tr.cut(s, hs, x)
				// Start afresh: the cut changed the counts from t on.
				// A tail holder has no fit from t on unless it
				// overlaps what a later move releases (pend), nor
				// any in [now, t) unless it is found there.
				pend.Reset()
				newMax = math.Inf(-1)
				for i := range suf {
					suf[i] = t // what a holder's stop starts from
				}
				s.clearCerts()
				s.resetStair()
				gr, gmf = math.Inf(-1), -1
			}
		}
		if max(suf[0], newMax) <= s.stairB {
			// The staircase's test below, in a tight loop. A holder's
			// search limit is at most max(suf[0], newMax) (suf[0] bounds
			// every log version; newMax grows only when a pending move
			// that begins before the holder's start is folded in), so
			// while that is within the staircase's bound, the holders up
			// to the next such move are settled by one comparison each,
			// without the bookkeeping below. Followers and sizes past
			// the part of the staircase computed so far take the path
			// below.
			pa := math.Inf(1)
			if k, _, ok := pend.Peek(); ok {
				pa = k.At
			}
			for ; x < len(hs); x++ {
				h := &hs[x]
				if h.r > pa || h.r == gr {
					break
				}
				hj := &s.hj[h.j]
				if k := int(hj.k); k >= s.stairN || hj.d < s.stairKnown(k) {
					break
				}
			}
			if x == len(hs) {
				break
			}
		}
		if hs[x].r == gr {
			// A follower: a holder of the same start as the last move.
			// If it fits at gt (no shorter than the move, it needs its
			// nodes throughout [gt, gr); its own reservation covers the
			// rest of its window) and no fit of it begins before gt (a
			// certificate, or else a search up to gt in the profile
			// without the followers' moves, which only take nodes
			// before gr), its earliest fit is gt.
			h := &hs[x]
			q := int(h.j)
			k, d := int(s.hj[q].k), s.hj[q].d
			if d >= gr-gt {
				if gmf < 0 {
					gmf = s.prof.MinFree(gt, gr)
				}
				ok := false
				if k <= gmf {
					b := s.certBound(k, d, gt)
					ok = b >= gt
					if !ok {
						_, found := s.prof.EarliestFitBeforeStopStep(k, d, max(b, now), gr, gt)
						ok = !found
					}
				}
				if ok {
					gmf -= k
					s.noteCert(k, d, gt)
					gm = append(gm, profile.Item{D: d, K: k})
					pend.Push(pq.Key{At: max(gr, gt+d)}, gr+d)
					if track {
						tr.moved1(x, gr, gt, d)
					}
					s.resv[q] = gt
					s.minR = min(s.minR, gt)
					h.r = gt // keepHolders restores the order
					s.moved = append(s.moved, int32(x))
					continue
				}
			}
		}
		h := hs[x]
		q := int(h.j)
		r := h.r
		for {
			k, b, ok := pend.Peek()
			if !ok || k.At >= r {
				break
			}
			newMax = max(newMax, b)
			pend.Pop()
		}
		// it had no fit before r when last looked at: a fit now overlaps
		// some interval released since that begins before r, and starts
		// before its end
		hj := &s.hj[q]
		v := int32(0)
		if hj.vep == s.ep {
			v = hj.ver
		}
		stop := max(suf[v], newMax)
		lim := min(stop, r)
		size, est := int(hj.k), hj.d
		if lim <= s.stairB && est >= s.stairAt(size) {
			// a certificate of no more nodes and no longer duration
			// rules out a fit before lim
			continue
		}
		if lim < r && lim > s.stairB {
			s.stairFails++
			if s.stairFails >= stairRebuild {
				s.rebuildStair(lim)
				if est >= s.stairAt(size) {
					continue
				}
			}
		}
		// Whatever happens below, the job ends with no fit before its
		// (new) start: a certificate for the ones after it.
		if stop <= now {
			s.noteCert(size, est, r)
			continue
		}
		// no fit before b either: start the search there, or give up
		b := s.certBound(size, est, lim)
		if b < s.stairB && est >= s.stairAt(size) {
			b = s.stairB
		}
		if b >= lim {
			s.noteCert(size, est, r)
			continue
		}
		flush()
		t, ok := s.prof.EarliestFitBeforeStopStep(size, est, max(b, now), r, stop)
		if !ok {
			s.noteCert(size, est, r)
			continue
		}
		s.noteCert(size, est, t)
		if err := s.prof.Move(r, t, est, size); err != nil {
			panic(err)
		}
		// the move raised the free count on its old interval minus the
		// overlap with the new one: that matters to the holders from
		// its start on
		pend.Push(pq.Key{At: max(r, t+est)}, r+est)
		if track {
			tr.moved1(x, r, t, est)
		}
		s.resv[q] = t
		s.minR = min(s.minR, t)
		hs[x].r = t // keepHolders restores the order
		s.moved = append(s.moved, int32(x))
		gr, gt, gmf = r, t, -1
	}
}

// tailRun follows, in one compression, the run (the last holders looked
// at, all moved earlier by d > 0) and the latest end of the holders
// looked at before it, at their old starts and their new ones: what
// cutTail needs.
type tailRun struct {
	d       float64 // the run's move; 0: no run
	x0      int     // the run's first holder
	last    int     // the holder moved last
	pos     []int   // the run's holders
	oldEnd  float64 // the latest old end of the run's holders
	moved   float64 // the latest old end of the other holders moved
	scanned int     // the holders before scanned are in scanEnd
	scanEnd float64 // the latest end, where they are now, of those holders
}

// moved1 records that holder x (of estimate est) moved from r to t.
func (tr *tailRun) moved1(x int, r, t, est float64) {
	if d := r - t; x != tr.last+1 || d != tr.d {
		// a new run: the old one's holders are now before it
		tr.moved = max(tr.moved, tr.oldEnd)
		tr.d, tr.x0, tr.pos, tr.oldEnd = d, x, tr.pos[:0], math.Inf(-1)
	}
	tr.pos = append(tr.pos, x)
	tr.oldEnd = max(tr.oldEnd, r+est)
	tr.last = x
}

// before returns the latest end of the holders before the run, at their
// old starts and their new ones (moved holders are where they moved to,
// and their old ends are in moved), scanning the ones not seen yet.
func (tr *tailRun) before(s *sim, hs []holder) float64 {
	for ; tr.scanned < tr.x0; tr.scanned++ {
		h := hs[tr.scanned]
		tr.scanEnd = max(tr.scanEnd, h.r+s.hj[h.j].d)
	}
	return max(tr.scanEnd, tr.moved)
}

// cut records a cut before holder x: every holder before x is done, the
// run's at their new places, and no run is under way.
func (tr *tailRun) cut(s *sim, hs []holder, x int) {
	e := tr.before(s, hs)
	for _, y := range tr.pos {
		e = max(e, hs[y].r+s.hj[hs[y].j].d)
	}
	tr.scanEnd, tr.scanned = e, x
	tr.moved, tr.oldEnd = math.Inf(-1), math.Inf(-1)
	tr.d, tr.pos, tr.last = 0, tr.pos[:0], -2
}

// cutTail moves the tail of the holders, hs[x:], d earlier in one edit of
// the profile (profile.Cut of [t, t+d)) instead of one move each. runPos
// are the positions of the holders just before the tail, which all moved
// d earlier (the run). It is exact when
//
//   - the times are whole numbers (sim.tailOK: shifts are exact),
//   - every other holder looked at ends by t, at its old start and at its
//     new one, and so does every started job and holder at now,
//   - every interval released since the holders were last placed (when
//     the compression began, or at the last cut: the early ends among
//     them) ends by t+d,
//   - and the tail starts at t+d or later.
//
// Then the profile from t+d on is what it was when the holders were last
// placed, but for the run's moves; with those undone from t on (the
// latest first, so that the counts never exceed what they were before
// that move), the counts from t on become those from t+d on, shifted d
// earlier: every tail holder is moved d earlier. That is its earliest fit from t on: it
// had none before its start when last looked at, in a profile that, from
// t+d on, has since changed only by the run's moves, now shifted with it.
// A fit before t, or one that overlaps what a later move releases, is for
// compress to find (it looks for those only).
func (s *sim) cutTail(hs []holder, x int, runPos []int, t, d float64) {
	for i := len(runPos) - 1; i >= 0; i-- {
		h := hs[runPos[i]]
		k, a, e := int(s.hj[h.j].k), max(h.r, t), h.r+s.hj[h.j].d
		if e > a {
			if err := s.prof.Release(a, e, k); err != nil {
				panic(err)
			}
			if err := s.prof.Reserve(a+d, e+d, k); err != nil {
				panic(err)
			}
		}
	}
	if err := s.prof.Cut(t, d); err != nil {
		panic(err)
	}
	for y := x; y < len(hs); y++ {
		hs[y].r -= d
		s.resv[hs[y].j] = hs[y].r
	}
}

// busyUntil returns the latest end of what the profile holds for a
// started job or a holder at now (-Inf if nothing).
func (s *sim) busyUntil() float64 {
	b := math.Inf(-1)
	for s.ends.Len() > 0 {
		k, j, _ := s.ends.Peek()
		if s.pend[j] == -k.At { // not stale: the job's current end
			b = -k.At
			break
		}
		s.ends.Pop()
	}
	for _, h := range s.hpre {
		b = max(b, h.r+s.hj[h.j].d)
	}
	return b
}

// wholeTimes reports whether every submit time, run time and estimate is
// a whole number, no run time exceeds its estimate, and the last submit
// time plus every estimate (no reservation ends later) is below 2^52: then
// every time of the run, and every difference of two, is a whole number
// computed exactly.
func wholeTimes(jobs []workload.Job) bool {
	last, sum := 0.0, 0.0
	for _, j := range jobs {
		for _, v := range [...]float64{j.Submit, j.Run, j.Estimate} {
			if v != math.Trunc(v) || math.Abs(v) >= 1<<52 {
				return false
			}
		}
		if j.Run > j.Estimate {
			return false
		}
		last, sum = max(last, math.Abs(j.Submit)), sum+j.Estimate
	}
	return last+sum < 1<<52
}

// keepHolders stores the holders after a compression as the persistent
// sorted list. compress wrote the new starts of the moved ones in place
// and their positions in moved (increasing): the others are still in
// order and a move only makes a start earlier, so an insertion of each
// moved one, in that order, puts the list back in order, in time O(m)
// plus the number of holders they pass for m moves (moves are short: a
// run moving by the same amount keeps its order), or a full sort if that
// grows past a few times the list's length.
func (s *sim) keepHolders(hs []holder) {
	budget := 4*len(hs) + 64
	for _, x := range s.moved {
		h := hs[x]
		y := int(x)
		for y > 0 && cmpHolder(h, hs[y-1]) < 0 {
			hs[y] = hs[y-1]
			y--
		}
		hs[y] = h
		if budget -= int(x) - y; budget < 0 {
			slices.SortFunc(hs, cmpHolder)
			break
		}
	}
	s.moved = s.moved[:0]
	if s.hlOwn {
		s.hl = hs // compress worked on the list itself
	} else {
		s.hl, s.hbuf = hs, s.hl[:0]
	}
}

// certBound returns a time before which no job of k nodes and duration d
// can have a fit, from the certificates of this compression (-Inf if none
// applies); it stops looking once the bound reaches lim. Every job looked
// at earlier in the compression has a reservation start r1 no later than
// the current one's, so a certificate of k1 <= k nodes and d1 <= d
// carries over: a fit of the larger job is a fit of the smaller one (its
// window before its own start is no longer). A certificate stays true for
// the whole compression: a fit of the smaller job is a window before r1,
// where the counts have only gone down since (every move released since
// is a later holder's, and raises counts only from its start >= r1 on).
// The certificates looked at are those of k nodes and of the powers of two
// below k.
func (s *sim) certBound(k int, d, lim float64) float64 {
	b := s.certOf(k, d)
	for k1 := 1; k1 < k && b < lim; k1 <<= 1 {
		b = max(b, s.certOf(k1, d))
	}
	return b
}

// certOf is the bound of the certificates of k nodes for a job of
// duration d (-Inf if none applies).
func (s *sim) certOf(k int, d float64) float64 {
	b := math.Inf(-1)
	if c := &s.cert[2*k]; c.d <= d {
		b = c.bound
	}
	if c := &s.cert[2*k+1]; c.d <= d {
		b = max(b, c.bound)
	}
	return b
}

// cert records that no job of k nodes and duration d (reservation start
// r) had a fit starting before bound (bound <= r) in this compression. The
// empty certificate (d = +Inf) applies to nothing.
type cert struct {
	d, bound float64
}
