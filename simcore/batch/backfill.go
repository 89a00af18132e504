package batch

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// Depth returns the reservation depth of a backfill mode (the model's
// backfill parameter): none 0, easy 1, conservative All, depth k.
func Depth(mode string, k int) (int, error) {
	switch mode {
	case "none":
		return 0, nil
	case "easy":
		return 1, nil
	case "conservative":
		return All, nil
	case "depth":
		return k, nil
	}
	return 0, fmt.Errorf("batch: backfill %q: want none, easy, conservative or depth", mode)
}

// backfill is one pass of reservation-depth backfilling on the profile.
func (s *sim) backfill(now float64) {
	s.prof.Advance(now)
	if s.dirty {
		if s.arrival {
			s.compressArrival(now)
		} else {
			s.compress(now)
		}
		s.dirty = false
	}
	if s.cfg.Depth == 1 && s.easyResume(now) {
		return
	}
	// Conservative: every job of queue[:held] holds a reservation, none
	// before minR; if that is after now, this pass has nothing to do for
	// them (none starts, none is missed) and looks only at the others.
	start := 0
	if s.cfg.Depth == All && (s.minR > now || s.startDue(now)) {
		start = min(s.held, len(s.queue))
	}
	mr := math.Inf(1) // the earliest reservation kept
	ahead := start
	kept := s.queue[:start]
	// EASY (depth 1): the profile holds the running jobs, whose free count
	// never decreases after now, and the head's reservation [shadow,
	// shadow+p̂) of m nodes. A job fits now for d iff it fits the free
	// nodes now and, if it still runs at the shadow time, the free count
	// there (the extra nodes). Same answer as EarliestFit == now, in O(1).
	easy := s.cfg.Depth == 1
	shadow, extra, fnow := math.Inf(1), 0, 0
	for i := start; i < len(s.queue); i++ {
		j := s.queue[i]
		job := &s.jobs[j]
		if ahead < s.cfg.Depth {
			missed := false
			if r := s.resv[j]; r >= 0 && r < now {
				s.out.Missed++
				s.unreserve(j)
				missed = true // keeps its queue rank
			}
			r := s.resv[j]
			if r < 0 {
				t, _ := s.prof.EarliestFit(job.Size, job.Estimate, now)
				if err := s.prof.Reserve(t, t+job.Estimate, job.Size); err != nil {
					panic(err)
				}
				r, s.resv[j] = t, t
				s.hj[j].ver, s.hj[j].vep = int32(len(s.inc)), s.ep
				if s.arrival {
					s.hj[j].vep = s.ep + uint64(len(s.inc)) // see compressArrival
				}
				if s.seq != nil {
					if !missed {
						s.seqc++
						s.seq[j] = s.seqc
					}
					s.hnew = append(s.hnew, s.holder(t, s.seq[j], j))
				}
				if s.out.FirstResv != nil && math.IsNaN(s.out.FirstResv[j]) {
					s.out.FirstResv[j] = t
				}
			}
			if r == now {
				s.resv[j] = -1
				s.start(now, j)
				continue
			}
			ahead++
			kept = append(kept, j)
			mr = min(mr, r)
			if easy {
				shadow, extra, fnow = r, s.prof.Free(r), s.prof.Free(now)
				if s.wt != nil {
					if len(kept) == i+1 {
						kept = s.queue // nothing started ahead: already in place
					} else {
						kept = append(kept, s.queue[i+1:]...)
					}
					s.queue = kept
					s.easyTree(now, j, shadow, &extra, &fnow)
					kept = s.queue
					break
				}
			}
			continue
		}
		if job.Size <= s.free {
			var fits bool
			if easy {
				fits = job.Size <= fnow && (now+job.Estimate <= shadow || job.Size <= extra)
			} else {
				fits = s.prof.FitsAt(job.Size, job.Estimate, now)
			}
			if fits {
				if err := s.prof.Reserve(now, now+job.Estimate, job.Size); err != nil {
					panic(err)
				}
				s.start(now, j)
				if easy {
					fnow -= job.Size
					if now+job.Estimate > shadow {
						extra -= job.Size
					}
				}
				continue
			}
		}
		kept = append(kept, j)
		if s.free == 0 && ahead >= s.cfg.Depth {
			kept = append(kept, s.queue[i+1:]...)
			break
		}
	}
	s.queue = kept
	if s.cfg.Depth == All {
		s.held = len(kept)
		if start == 0 {
			s.minR = mr
		} else {
			s.minR = min(s.minR, mr)
		}
	}
	s.easy.valid = false
	if easy && ahead == 1 {
		s.easy = easyState{valid: true, head: s.queue[0], shadow: shadow, extra: extra, fnow: fnow, free: s.free, n: len(s.queue)}
	}
}

// startDue starts, in queue order, the holders of conservative
// backfilling whose reservation is now, found in the sorted holder list
// instead of a scan of the queue, takes them out of queue[:held] and
// sets minR to the earliest reservation left. It reports false, changing
// nothing, when the list cannot tell (a reservation dropped since the last
// compression, a holder of queue[:held] not in the list, or one whose
// reservation was missed): the pass then looks at every job.
func (s *sim) startDue(now float64) bool {
	if s.hlStale || s.seq == nil || s.held > len(s.queue) {
		return false
	}
	valid := func(h holder) bool { return s.resv[h.j] == h.r && s.seq[h.j] == h.seq }
	due := s.due[:0]
	mr := math.Inf(1)
	for _, h := range s.hl {
		if h.r > now {
			if valid(h) {
				mr = h.r
				break
			}
			continue
		}
		if valid(h) {
			if h.r < now {
				return false // missed
			}
			due = append(due, h)
		}
	}
	for _, l := range [2][]holder{s.hnew, s.hpre} {
		for _, h := range l {
			if !valid(h) {
				continue
			}
			switch {
			case h.r < now:
				return false
			case h.r == now:
				due = append(due, h)
			default:
				mr = min(mr, h.r)
			}
		}
	}
	slices.SortFunc(due, func(a, b holder) int { return cmp.Compare(a.seq, b.seq) })
	// queue[:held] is in queue rank order: find the due jobs by rank
	q := s.queue[:s.held]
	pos := s.duePos[:0]
	for _, h := range due {
		i, ok := slices.BinarySearchFunc(q, h.seq, func(j int, v uint32) int { return cmp.Compare(s.seq[j], v) })
		if !ok {
			return false
		}
		pos = append(pos, i)
	}
	s.due, s.duePos = due[:0], pos[:0]
	for _, h := range due {
		s.resv[h.j] = -1
		s.start(now, int(h.j))
	}
	if len(pos) > 0 {
		// cut the started jobs out by position
		w := pos[0]
		for k, r := range pos {
			end := s.held
			if k+1 < len(pos) {
				end = pos[k+1]
			}
			w += copy(s.queue[w:], s.queue[r+1:end])
		}
		n := copy(s.queue[w:], s.queue[s.held:])
		s.queue = s.queue[:w+n]
		s.held = w
	}
	s.minR = mr
	return true
}

// easyTree is the EASY backfilling of the jobs after the head h in FCFS
// order, found through the wait tree instead of a scan of the queue.
func (s *sim) easyTree(now float64, h int, shadow float64, extra, fnow *int) {
	st := s.stbuf[:0]
	// bounds for pruning only, loose enough never to skip a job that fits
	// (the job itself is tested with the exact expression)
	d := (shadow-now)*(1+1e-12) + 1e-9
	for j := h; ; {
		f := min(s.free, *fnow)
		if f <= 0 {
			break
		}
		j = s.wt.next(j+1, int32(f), d, int32(max(*extra, 0)))
		if j < 0 {
			break
		}
		job := &s.jobs[j]
		if job.Size <= s.free && job.Size <= *fnow && (now+job.Estimate <= shadow || job.Size <= *extra) {
			if err := s.prof.Reserve(now, now+job.Estimate, job.Size); err != nil {
				panic(err)
			}
			s.start(now, j)
			st = append(st, j)
			*fnow -= job.Size
			if now+job.Estimate > shadow {
				*extra -= job.Size
			}
		}
	}
	if len(st) > 0 {
		// the queue is in job order: cut the started jobs out by position
		q := s.queue
		w, _ := slices.BinarySearch(q, st[0])
		for k, j := range st {
			r, _ := slices.BinarySearch(q, j)
			end := len(q)
			if k+1 < len(st) {
				end, _ = slices.BinarySearch(q, st[k+1])
			}
			w += copy(q[w:], q[r+1:end])
		}
		s.queue = q[:w]
	}
	s.stbuf = st[:0]
}

// easyState is what an EASY pass decided every waiting job on: the head,
// its shadow time, the extra nodes there, the free nodes now (profile and
// machine), and the queue length after the pass.
type easyState struct {
	valid                bool
	head                 int
	shadow               float64
	extra, fnow, free, n int
}

// easyResume finishes an EASY pass in which nothing the last pass decided
// on changed (same head and shadow time, same free and extra nodes, no
// recomputed order): a job that did not fit then does not fit now (the
// test only gets harder as now grows), so only the jobs that arrived since
// are tried. It reports false, changing nothing, if the pass must be done
// in full.
func (s *sim) easyResume(now float64) bool {
	e := &s.easy
	if !e.valid || len(s.queue) < e.n || s.queue[0] != e.head || s.resv[e.head] != e.shadow ||
		e.shadow <= now || s.free != e.free || s.prof.Free(now) != e.fnow || s.prof.Free(e.shadow) != e.extra {
		return false
	}
	kept := s.queue[:e.n]
	for _, j := range s.queue[e.n:] {
		job := &s.jobs[j]
		if job.Size <= s.free && job.Size <= e.fnow && (now+job.Estimate <= e.shadow || job.Size <= e.extra) {
			if err := s.prof.Reserve(now, now+job.Estimate, job.Size); err != nil {
				panic(err)
			}
			s.start(now, j)
			e.fnow -= job.Size
			if now+job.Estimate > e.shadow {
				e.extra -= job.Size
			}
			continue
		}
		kept = append(kept, j)
	}
	s.queue = kept
	e.free, e.n = s.free, len(s.queue)
	return true
}

// backfillRef is set by the tests to the executor before the optimisation,
// the reference the optimised one must reproduce exactly.
var backfillRef func(*sim, float64)
