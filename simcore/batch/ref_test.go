package batch

import (
	"fmt"
	"math"
	"sort"

	"schedfarm/simcore/profile"
)

func init() { backfillRef = (*sim).backfillRef }

// backfillRef is the executor before the optimisation (commit 70cc8ab):
// one EarliestFit per candidate, compression by release and re-fit.
func (s *sim) backfillRef(now float64) {
	s.prof.Advance(now)
	if s.dirty && s.arrival {
		s.compressArrival(now)
		s.dirty = false
	}
	if s.dirty {
		s.compressRef(now)
		s.dirty = false
	}
	ahead := 0
	kept := s.queue[:0]
	for i, j := range s.queue {
		job := &s.jobs[j]
		if ahead < s.cfg.Depth {
			if r := s.resv[j]; r >= 0 && r < now {
				s.out.Missed++
				s.unreserve(j)
			}
			r := s.resv[j]
			if r < 0 {
				t, _ := s.prof.EarliestFit(job.Size, job.Estimate, now)
				if err := s.prof.Reserve(t, t+job.Estimate, job.Size); err != nil {
					panic(err)
				}
				r, s.resv[j] = t, t
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
			continue
		}
		if job.Size <= s.free {
			if t, _ := s.prof.EarliestFit(job.Size, job.Estimate, now); t == now {
				if err := s.prof.Reserve(now, now+job.Estimate, job.Size); err != nil {
					panic(err)
				}
				s.start(now, j)
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
}

// compressRef moves every reservation as early as it can go, one at a time in
// the order of the current reservation starts (ties: queue order); each
// move releases the job's own reservation first, so it never moves later.
func (s *sim) compressRef(now float64) {
	var hs []int
	for _, q := range s.queue {
		if s.resv[q] >= 0 {
			hs = append(hs, q)
		}
	}
	sort.SliceStable(hs, func(a, b int) bool { return s.resv[hs[a]] < s.resv[hs[b]] })
	spec := s.compressSpec(now, hs)
	// A job can move before r only if some instant in [now, r) has m free
	// nodes; its own reservation does not touch that range. runMax is the
	// largest free count over the steps starting before r, kept while the
	// reservations come in increasing r and rebuilt after every move.
	si, runMax := 0, 0
	for _, q := range hs {
		job := &s.jobs[q]
		r := s.resv[q]
		if r <= now {
			continue
		}
		for si < s.prof.Len() {
			t, f := s.prof.Step(si)
			if t >= r {
				break
			}
			runMax = max(runMax, f)
			si++
		}
		if runMax < job.Size {
			continue
		}
		if err := s.prof.Release(r, r+job.Estimate, job.Size); err != nil {
			panic(err)
		}
		t, _ := s.prof.EarliestFit(job.Size, job.Estimate, now)
		if err := s.prof.Reserve(t, t+job.Estimate, job.Size); err != nil {
			panic(err)
		}
		if t < r {
			s.resv[q] = t
			si, runMax = 0, 0
		}
	}
	for x, q := range hs {
		if s.resv[q] != spec[x] {
			panic(fmt.Sprintf("compression at %v: job %d moves to %v one at a time, to %v when every reservation is re-inserted (docs/models/batch.md A9)",
				now, s.jobs[q].ID, s.resv[q], spec[x]))
		}
	}
}

// compressSpec is the compression of docs/models/batch.md A9 read literally: remove
// every reservation, then re-insert them one by one in the order of their
// starts (hs, ties in queue order), each at its earliest fit from now. It
// works on a copy of the profile and returns the new starts, hs's order.
//
// It gives the same starts as compressRef, which keeps the later
// reservations in the profile while it re-fits each one: a job that moves
// from r to t < r needs nodes in [t, r), where no later reservation (they
// start at r or after) holds any, and in [r, t+d), inside its own old
// reservation, where the nodes it had were free beside the later ones and
// the earlier ones moved only earlier. The property tests check this at
// every compression of every comparison with the reference executor.
func (s *sim) compressSpec(now float64, hs []int) []float64 {
	p := profile.New(s.cfg.Nodes, s.prof.Origin())
	for i := 0; i < s.prof.Len(); i++ {
		t, f := s.prof.Step(i)
		if f == s.cfg.Nodes {
			continue
		}
		end := math.Inf(1) // a job running past its estimate
		if i+1 < s.prof.Len() {
			end, _ = s.prof.Step(i + 1)
		}
		if err := p.Reserve(t, end, s.cfg.Nodes-f); err != nil {
			panic(err)
		}
	}
	starts := make([]float64, len(hs))
	for x, q := range hs {
		starts[x] = s.resv[q]
		if r := starts[x]; r > now {
			if err := p.Release(r, r+s.jobs[q].Estimate, s.jobs[q].Size); err != nil {
				panic(err)
			}
		}
	}
	for x, q := range hs {
		r := starts[x]
		if r <= now {
			continue
		}
		job := &s.jobs[q]
		t, _ := p.EarliestFit(job.Size, job.Estimate, now)
		if t > r {
			panic(fmt.Sprintf("compression at %v: job %d re-inserted at %v, after its reservation at %v", now, job.ID, t, r))
		}
		if err := p.Reserve(t, t+job.Estimate, job.Size); err != nil {
			panic(err)
		}
		starts[x] = t
	}
	return starts
}
