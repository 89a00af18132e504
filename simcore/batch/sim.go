package batch

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"

	"schedfarm/simcore/engine"
	"schedfarm/simcore/pq"
	"schedfarm/simcore/profile"
	"schedfarm/simcore/workload"
)

// All is the reservation depth of conservative backfilling: every queued
// job holds a reservation.
const All = math.MaxInt

// Config is one scheduler: an order, an executor (reservation depth or
// Garey & Graham's greedy scan) and the event convention.
type Config struct {
	Nodes int
	// Order names the queue order: FCFS, PSRS, SMART-FFIA, SMART-NFIW or
	// GareyGraham (submission order with the greedy executor).
	Order string
	// Depth is the number of queued jobs (in queue order) that hold a
	// reservation: 0 = plain list scheduling, 1 = EASY, All = conservative.
	Depth int
	// Weighted makes SMART and PSRS use the weight m·p̂ instead of 1.
	Weighted bool
	// SmartWeight, in the weighted case, is the weight SMART's shelves use
	// (SmartWeightArea when empty; see order.go). PSRS keeps m·p̂.
	SmartWeight string
	// Recompute is the SMART/PSRS recomputation rule (see order.go).
	Recompute string
	// EachEvent handles one event at a time with a scheduling pass after
	// each: at one instant the overruns (jobs still running at their
	// estimate, then one pass), then the arrivals, then the completions;
	// a job whose estimate expires at the instant counts as free from the
	// instant's first pass on (its nodes, in the profile and for the
	// candidates alike). Otherwise all completions, then all arrivals of
	// an instant are applied and one pass follows.
	EachEvent bool
	// CompressArrival, with a reservation depth above 1, re-fits the
	// reservations after every job end (early or not), one at a time in
	// queue order, each at its earliest fit with its own reservation
	// released first (pyss's conservative scheduler); otherwise they are
	// re-fitted after an early end only, in order of their start (SPECS
	// §9.6).
	CompressArrival bool
	// Trace records, for every job, its first reservation (FirstResv).
	Trace bool
}

// Outcome is the schedule and what the scheduler did.
type Outcome struct {
	Start, End []float64 // per job, in the order of the input jobs
	// FirstResv is the first reservation a job received (NaN if it never
	// held one); filled when Config.Trace is set.
	FirstResv []float64
	Passes    int // scheduling passes
	Rebuilds  int // order recomputations (SMART, PSRS)
	Overruns  int // jobs that ran past their estimate
	Missed    int // reservations found in the past (an invariant; must stay 0)
	Cuts      int // tails of reservations moved in one cut of the profile (compress)
}

type evKind uint8

const (
	evEnd evKind = iota
	evOverrun
	// evExpired marks, in simulate's per-event loop only, an end at the
	// job's estimate whose nodes were already given back.
	evExpired
)

type event struct {
	job  int32
	kind evKind
}

type sim struct {
	cfg           Config
	jobs          []workload.Job
	out           *Outcome
	queue         []int
	free          int
	prof          *profile.Profile
	resv          []float64 // reservation start of a waiting holder, -1 if none
	pend          []float64 // end of a started job's occupation in the profile
	order         orderer
	ev            engine.Sim[event]
	greedy, dirty bool
	arrival       bool      // Config.CompressArrival with a depth above 1
	evbuf         []event   // simulate, per-event passes: the events of an instant
	acert         []acert   // compressArrival: certificates, two per size
	acertUsed     []int32   // the sizes whose acert entries may be set
	amov          []float64 // compressArrival: where each move's release begins
	ref           bool      // tests: run backfillRef, the unoptimised executor
	hbuf          []holder
	easy          easyState // the last EASY pass (easyResume)
	wt            *waitTree // FCFS + EASY: the waiting jobs by size and estimate
	stbuf         []int
	// Compression bookkeeping: every release of nodes in the profile is
	// logged in inc, which each compression empties; hj[j].ver is the
	// length of inc when holder j was last known to have no fit before its
	// reservation (its placement), in the log of epoch hj[j].vep (0 if the
	// log was emptied since). A fit can appear only where nodes were
	// released since then.
	inc []span
	suf []float64
	ep  uint64 // the log's epoch: compressions so far
	// With more than one holder (Depth > 1), the holders are kept sorted
	// by (reservation start, queue rank) across compressions: hl is that
	// list (entries whose job no longer holds that reservation are stale
	// and dropped lazily), hnew the reservations made since the last
	// compression. seq[j] is the queue rank of holder j: holders form a
	// prefix of the queue and the queue is only appended to between two
	// recomputations of the order (which drop every reservation), so a
	// counter handed out as reservations are made is in queue order.
	mvh      []span // compress: the moves not yet folded into newMax (a heap by a)
	hl, hnew []holder
	seq      []uint32
	seqc     uint32
	// Conservative: queue[:held] hold reservations, none starting before
	// minR (a lower bound, lowered by every move; see backfill).
	held int
	minR float64
	// hlStale: some reservation was dropped since the last compression
	// (holders checks the list entry by entry)
	hlStale bool
	// hlOwn: the holders compress works on are hl itself (no new ones to
	// merge in), not a merged copy in hbuf
	hlOwn bool
	// Fit certificates of the current compression (see certBound):
	// cert[2k], cert[2k+1] are those of jobs of k nodes (noteCert).
	cert, cert0 []cert // cert0: the empty table
	// certUsed: the sizes whose certificates may differ from cert0's
	// (clearCerts resets only them: a table per node count is long on a
	// large machine)
	certUsed []int32
	// certBits has bit k set for the sizes in certUsed, certSum bit w
	// for the words of certBits that are not zero: extendStair visits
	// only the sizes that hold certificates
	certBits, certSum []uint64
	gm                []profile.Item // compress: the followers' moves not yet made
	due               []holder       // startDue: the holders that start
	hpre              []holder       // the holders at now when compress last ran
	moved             []int32        // compress: the positions of the moved holders
	duePos            []int          // startDue: their positions in the queue
	hj                []hjob         // per job: what compress looks up
	// The staircase of the certificates of bound stairB or more: no job
	// of k nodes and a duration of stair[k] or more has a fit before
	// stairB (noteCert keeps it, rebuildStair moves its bound; entries
	// from stairN on are not computed yet, see stairAt).
	stair      []stairPt // the steps of stair[:stairN] (stair.go)
	stairB     float64
	stairN     int
	stairFails int
	// Cutting the tail (see cutTail): tailOK when every time of the run
	// is a whole number (a shift is then exact) and no job outlives its
	// estimate; ends holds the started jobs by estimated end, latest
	// first (entries whose job ended, pend[j] no longer their end, are
	// dropped lazily); runPos is compress's scratch for the positions of
	// the last holders that all moved by one amount.
	tailOK bool
	ends   pq.Queue[int32]
	runPos []int
}

// cert records that no job of k nodes and duration d (reservation start
// r) had a fit starting before bound (bound <= r) in this compression. The
// empty certificate (d = +Inf) applies to nothing.
type cert struct {
	d, bound float64
}

// Simulate schedules jobs (sorted by submit time) on cfg.Nodes nodes. It is
// a pure function of its inputs. Complexity: O(n log n) events; a pass
// costs O(q) for a queue of q jobs plus the profile queries of the
// reservations (O(log s + steps spanned) each, s profile steps). EASY
// tests a candidate in O(1) against the head's shadow time and extra
// nodes, and with FCFS finds the candidates through a tree over the
// waiting jobs (O(log n) per candidate that may fit); a pass with the same
// head, shadow and free nodes as the last one tries only the new arrivals.
// Compression re-fits a reservation only if nodes were released, since it
// was last looked at, in an interval that begins before its start, and
// looks for the fit only up to the end of the latest such release
// (EarliestFitBeforeStop, its own reservation released virtually, so a
// reservation that stays costs no profile edit). Within one compression
// every reservation looked at leaves a certificate (no fit of m nodes for
// p̂ before t), which holds for the rest of the compression and answers,
// or shortens, the searches of the reservations of no fewer nodes and no
// shorter estimate after it (certBound; a staircase of the certificates
// answers most of them with one comparison); a move edits the profile
// only where the count changes (profile.Move), and the reservations of
// the same start that follow a move to the same new start are moved
// without a search, together (profile.MoveAll). When the moves reach the
// reservations that lie after everything else in the profile that did not
// move by the same amount (typically: all of them waited, directly or not,
// on the job that ended early), those are moved in one cut of the profile
// (profile.Cut, cutTail) and only checked for a fit before the cut.
func Simulate(ctx context.Context, jobs []workload.Job, cfg Config) (*Outcome, error) {
	return simulate(ctx, jobs, cfg, false)
}

func simulate(ctx context.Context, jobs []workload.Job, cfg Config, ref bool) (*Outcome, error) {
	n := len(jobs)
	for i, j := range jobs {
		if j.Size < 1 || j.Size > cfg.Nodes {
			return nil, fmt.Errorf("batch: job %d needs %d nodes of %d", j.ID, j.Size, cfg.Nodes)
		}
		if i > 0 && j.Submit < jobs[i-1].Submit {
			return nil, fmt.Errorf("batch: jobs not sorted by submit time at job %d", j.ID)
		}
		if !(j.Estimate > 0) {
			// A zero estimate never occupies the profile, so a job running
			// past it would collide with reservations.
			return nil, fmt.Errorf("batch: job %d has estimate %v; estimates must be positive", j.ID, j.Estimate)
		}
	}
	s := &sim{cfg: cfg, jobs: jobs, free: cfg.Nodes,
		out: &Outcome{Start: make([]float64, n), End: make([]float64, n)}}
	ord, greedy, err := newOrderer(cfg, jobs)
	if err != nil {
		return nil, err
	}
	if greedy && cfg.Depth != 0 {
		return nil, fmt.Errorf("batch: order %s takes no backfilling: it already starts every job that fits", cfg.Order)
	}
	s.order, s.greedy, s.ref = ord, greedy, ref
	if cfg.Depth != 0 {
		s.prof = profile.New(cfg.Nodes, 0)
		s.resv = make([]float64, n)
		s.pend = make([]float64, n)
		s.hj = make([]hjob, n)
		for i, j := range jobs {
			s.hj[i] = hjob{d: j.Estimate, k: int32(j.Size)}
		}
		s.arrival = cfg.CompressArrival && cfg.Depth > 1
		if cfg.Depth > 1 && !s.arrival {
			s.seq = make([]uint32, n)
		}
		s.tailOK = cfg.Depth == All && !ref && !s.arrival && wholeTimes(jobs)
		for i := range s.resv {
			s.resv[i] = -1
		}
	}
	if cfg.Order == FCFS && cfg.Depth == 1 && !ref {
		s.wt = newWaitTree(n)
	}
	if cfg.Trace {
		s.out.FirstResv = make([]float64, n)
		for i := range s.out.FirstResv {
			s.out.FirstResv[i] = math.NaN()
		}
	}
	next := 0 // next arrival
	for next < n || s.ev.Len() > 0 {
		if s.out.Passes&1023 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		now := math.Inf(1)
		if next < n {
			now = jobs[next].Submit
		}
		if e, ok := s.ev.Peek(); ok && e.Time <= now {
			now = e.Time
		}
		if cfg.EachEvent {
			// Jobs still running at their estimate are noticed first, all
			// of them, then one pass: no pass at this instant may see their
			// nodes as free from now on. Without overruns this changes
			// nothing.
			evs := s.evbuf[:0]
			for {
				e, ok := s.ev.Peek()
				if !ok || e.Time != now {
					break
				}
				s.ev.Next()
				evs = append(evs, e.Payload)
			}
			// The jobs whose estimate expires now are free from the first
			// pass on: their nodes are given back before the arrivals.
			for i, e := range evs {
				if e.kind == evEnd && s.expires(now, int(e.job)) {
					s.free += s.jobs[e.job].Size
					if s.prof != nil {
						s.pend[e.job] = math.Inf(-1)
					}
					evs[i].kind = evExpired
				}
			}
			// Jobs still running at their estimate are noticed next, all
			// of them, then one pass: no pass at this instant may see their
			// nodes as free from now on. Without overruns this changes
			// nothing.
			over := false
			for _, e := range evs {
				if e.kind == evOverrun {
					s.handle(now, e)
					over = true
				}
			}
			if over {
				s.pass(now)
			}
			// then arrivals, each followed by its own pass
			for next < n && jobs[next].Submit == now {
				s.arrive(next)
				next++
				s.pass(now)
			}
			// then completions, each followed by its own pass (a pass
			// after one that expired finds nothing new, but compression
			// in queue order runs again)
			for _, e := range evs {
				switch e.kind {
				case evOverrun:
					continue // handled above
				case evExpired:
					s.dirty = s.dirty || s.arrival
				default:
					s.handle(now, e)
				}
				s.pass(now)
			}
			s.evbuf = evs[:0]
			continue
		}
		for {
			e, ok := s.ev.Peek()
			if !ok || e.Time != now {
				break
			}
			s.ev.Next()
			s.handle(now, e.Payload)
		}
		for next < n && jobs[next].Submit == now {
			s.arrive(next)
			next++
		}
		s.pass(now)
	}
	return s.out, nil
}

// expires reports whether started job j ends now, at its estimate.
func (s *sim) expires(now float64, j int) bool {
	return s.out.End[j] == now && s.out.Start[j]+s.jobs[j].Estimate == now
}

func (s *sim) arrive(j int) {
	s.queue = append(s.queue, j)
	if s.wt != nil {
		s.wt.set(j, int32(s.jobs[j].Size), s.jobs[j].Estimate)
	}
}

func (s *sim) handle(now float64, e event) {
	j := int(e.job)
	m := s.jobs[j].Size
	switch e.kind {
	case evEnd:
		s.free += m
		if s.prof != nil {
			if s.pend[j] > now {
				// ended before its estimate: give the rest back, compress
				s.release(now, s.pend[j], m)
				s.dirty = true
			}
			s.dirty = s.dirty || s.arrival // compression at every end
			s.pend[j] = math.Inf(-1)       // holds nothing in the profile any more
		}
	case evOverrun:
		s.out.Overruns++
		if s.prof == nil {
			return
		}
		// The job outlived its estimate: it holds its nodes until it ends,
		// so every reservation is placed again (in queue order, next pass).
		for _, q := range s.queue {
			if r := s.resv[q]; r >= 0 {
				s.unreserve(q)
			}
		}
		if err := s.prof.Reserve(now, math.Inf(1), m); err != nil {
			panic(err)
		}
		s.pend[j] = math.Inf(1)
	}
}

func (s *sim) unreserve(q int) {
	s.held, s.hlStale = 0, true
	r := s.resv[q]
	s.release(r, r+s.jobs[q].Estimate, s.jobs[q].Size)
	s.resv[q] = -1
}

// release gives nodes back in the profile and logs the interval.
func (s *sim) release(a, b float64, m int) {
	if err := s.prof.Release(a, b, m); err != nil {
		panic(err)
	}
	if b > a {
		s.inc = append(s.inc, span{a, b})
	}
}

func (s *sim) start(now float64, j int) {
	job := &s.jobs[j]
	s.free -= job.Size
	s.out.Start[j] = now
	s.out.End[j] = now + job.Run
	s.ev.Schedule(now+job.Run, 0, event{int32(j), evEnd})
	if s.prof != nil {
		s.pend[j] = now + job.Estimate
		if s.tailOK {
			s.ends.Push(pq.Key{At: -(now + job.Estimate)}, int32(j)) // latest first
		}
		if job.Run > job.Estimate {
			s.ev.Schedule(now+job.Estimate, 0, event{int32(j), evOverrun})
		}
	}
	s.order.started(j)
	if s.wt != nil {
		s.wt.set(j, math.MaxInt32, math.Inf(1))
	}
}

func (s *sim) pass(now float64) {
	s.out.Passes++
	if len(s.queue) == 0 {
		return
	}
	if s.order.arrange(s.queue) {
		s.out.Rebuilds++
		s.easy.valid = false
		if s.prof != nil {
			for _, q := range s.queue {
				if s.resv[q] >= 0 {
					s.unreserve(q)
				}
			}
		}
	}
	switch {
	case s.greedy:
		kept := s.queue[:0]
		for _, j := range s.queue {
			if s.jobs[j].Size <= s.free {
				s.start(now, j)
			} else {
				kept = append(kept, j)
			}
		}
		s.queue = kept
	case s.prof == nil:
		h := 0
		for h < len(s.queue) && s.jobs[s.queue[h]].Size <= s.free {
			s.start(now, s.queue[h])
			h++
		}
		s.queue = s.queue[h:]
	case s.ref:
		backfillRef(s, now)
	default:
		s.backfill(now)
	}
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
	pend := s.mvh[:0]
	defer func() {
		// Every holder was looked at, and every move after that is a
		// later holder's, which raised counts only from its old start on,
		// no earlier than the holder's: none of the log matters to any
		// holder any more. Start it afresh.
		s.inc = s.inc[:0]
		s.ep++
		s.mvh = pend[:0]
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
				pend, newMax = pend[:0], math.Inf(-1)
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
			if len(pend) > 0 {
				pa = pend[0].a
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
					pend = pushSpan(pend, span{max(gr, gt+d), gr + d})
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
		for len(pend) > 0 && pend[0].a < r {
			newMax = max(newMax, pend[0].b)
			pend = popSpan(pend)
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
		pend = pushSpan(pend, span{max(r, t+est), r + est})
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

// waitTree indexes the waiting jobs of an FCFS queue (queue order = job
// index) by minimum size and estimate, so that an EASY pass finds the next
// job that may fit without looking at the others.
type waitTree struct {
	n    int
	node []wtNode
}

// wtNode is a node's bounds: the least size and the least estimate of the
// jobs below it (side by side: a test reads both).
type wtNode struct {
	size int32
	est  float64
}

func newWaitTree(n int) *waitTree {
	m := 1
	for m < n {
		m <<= 1
	}
	t := &waitTree{n: m, node: make([]wtNode, 2*m)}
	for i := range t.node {
		t.node[i] = wtNode{math.MaxInt32, math.Inf(1)}
	}
	return t
}

func (t *waitTree) set(j int, size int32, est float64) {
	i := j + t.n
	t.node[i] = wtNode{size, est}
	for i >>= 1; i > 0; i >>= 1 {
		l, r := &t.node[2*i], &t.node[2*i+1]
		v := wtNode{min(l.size, r.size), min(l.est, r.est)}
		if v == t.node[i] {
			break // the ancestors' bounds do not change either
		}
		t.node[i] = v
	}
}

// ok reports whether node i's bounds allow size <= f and (est <= d or
// size <= e): for a leaf, whether its job passes that test; for an inner
// node, whether one of its leaves may (a leaf that passes has ancestors
// that pass).
func (t *waitTree) ok(i int, f int32, d float64, e int32) bool {
	nd := &t.node[i]
	return nd.size <= f && (nd.size <= e || nd.est <= d)
}

// next returns the first waiting job j >= lo whose bounds allow size <= f
// and (est <= d or size <= e), -1 if none; the caller tests the job
// itself with the exact expression. It climbs from leaf lo to the first
// subtree on its right that may hold one and descends into it, leftmost
// child first, climbing on when both children of a node fail: O(log
// distance) nodes for a job found near lo.
func (t *waitTree) next(lo int, f int32, d float64, e int32) int {
	if lo >= t.n {
		return -1
	}
	i := lo + t.n
	for {
		// climb: the next subtree to the right that may hold one
		for !t.ok(i, f, d, e) {
			for i&1 == 1 {
				i >>= 1
			}
			if i == 0 {
				return -1 // climbed past the root: none on the right
			}
			i++
		}
		// descend, leftmost first
		for i < t.n {
			i <<= 1
			if !t.ok(i, f, d, e) {
				i++
				if !t.ok(i, f, d, e) {
					break
				}
			}
		}
		if i >= t.n && t.ok(i, f, d, e) {
			return i - t.n
		}
	}
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

// pushSpan adds v to the min-heap h (ordered by a).
func pushSpan(h []span, v span) []span {
	h = append(h, v)
	for i := len(h) - 1; i > 0; {
		p := (i - 1) / 2
		if h[p].a <= h[i].a {
			break
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
	return h
}

// popSpan removes the least element of the min-heap h.
func popSpan(h []span) []span {
	n := len(h) - 1
	h[0] = h[n]
	h = h[:n]
	for i := 0; ; {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && h[c+1].a < h[c].a {
			c++
		}
		if h[i].a <= h[c].a {
			break
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
	return h
}

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
