package batch

import (
	"context"
	"fmt"
	"math"

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
	// re-fitted after an early end only, in order of their start
	// (docs/models/batch.md A9).
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
	// compress: the moves not yet folded into newMax, by the start of
	// the interval they raised (the key), with its end (the value)
	mvh      pq.Queue[float64]
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
