package batch

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"schedfarm/simcore/workload"
)

// refConv is a straightforward executor of FCFS with reservation depth k,
// written from the rules of the conventions alone (no profile package, no
// shared code with the executor), for the property test of event_order and
// compress_order: O(n) per profile query, O(n²) per earliest fit. Jobs
// must not run past their estimate.
type refConv struct {
	jobs     []workload.Job
	nodes    int
	depth    int
	each     bool // one event at a time
	arrival  bool // compression in queue order at every end
	queue    []int
	resv     map[int]float64 // reservation start of a waiting job
	running  map[int]float64 // start of a running job not yet ended (its end not handled)
	startSeq map[int]int     // order in which the jobs started (ties of ends)
	start    []float64
	dirty    bool
}

// busy returns the nodes the profile holds at t: running jobs until their
// estimate expires, reservations over [r, r+estimate), but job skip's
// reservation.
func (c *refConv) busy(t float64, skip int) int {
	b := 0
	for j, s := range c.running {
		if s <= t && t < s+c.jobs[j].Estimate {
			b += c.jobs[j].Size
		}
	}
	for j, r := range c.resv {
		if j != skip && r <= t && t < r+c.jobs[j].Estimate {
			b += c.jobs[j].Size
		}
	}
	return b
}

// fits reports whether k nodes stay free over [t, t+d) (skip's
// reservation released): checked at t and at every step inside.
func (c *refConv) fits(k int, d, t float64, skip int) bool {
	pts := []float64{t}
	for j, s := range c.running {
		pts = append(pts, s, s+c.jobs[j].Estimate)
	}
	for j, r := range c.resv {
		pts = append(pts, r, r+c.jobs[j].Estimate)
	}
	for _, p := range pts {
		if p >= t && p < t+d && c.nodes-c.busy(p, skip) < k {
			return false
		}
	}
	return true
}

// earliest is the earliest t >= from at which k nodes stay free for d:
// from itself or the end of something the profile holds.
func (c *refConv) earliest(k int, d, from float64, skip int) float64 {
	cands := []float64{from}
	for j, s := range c.running {
		cands = append(cands, s+c.jobs[j].Estimate)
	}
	for j, r := range c.resv {
		if j != skip {
			cands = append(cands, r+c.jobs[j].Estimate)
		}
	}
	slices.Sort(cands)
	for _, t := range cands {
		if t >= from && c.fits(k, d, t, skip) {
			return t
		}
	}
	panic("no fit")
}

// free is the nodes free now for a job that starts: running jobs hold
// theirs until their end is handled, or until now if their estimate
// expires now (event_order each: free at the instant; batch: handled
// already).
func (c *refConv) free(now float64) int {
	f := c.nodes
	for j, s := range c.running {
		if s+c.jobs[j].Estimate > now {
			f -= c.jobs[j].Size
		}
	}
	return f
}

func (c *refConv) begin(now float64, j int) {
	if c.free(now) < c.jobs[j].Size {
		panic(fmt.Sprintf("job %d starts at %v on %d free nodes", c.jobs[j].ID, now, c.free(now)))
	}
	c.running[j] = now
	c.startSeq[j] = len(c.startSeq)
	c.start[j] = now
}

// compress re-fits the reservations after now: arrival, one at a time in
// queue order, each with its own released; start, all removed and
// re-inserted in order of their start (ties: queue order).
func (c *refConv) compress(now float64) {
	var hs []int
	for _, j := range c.queue {
		if r, ok := c.resv[j]; ok && r > now {
			hs = append(hs, j)
		}
	}
	if c.arrival {
		for _, j := range hs {
			c.resv[j] = c.earliest(c.jobs[j].Size, c.jobs[j].Estimate, now, j)
		}
		return
	}
	slices.SortStableFunc(hs, func(a, b int) int {
		return cmpFloat(c.resv[a], c.resv[b])
	})
	old := map[int]float64{}
	for _, j := range hs {
		old[j] = c.resv[j]
		delete(c.resv, j)
	}
	for _, j := range hs {
		t := c.earliest(c.jobs[j].Size, c.jobs[j].Estimate, now, -1)
		if t > old[j] {
			panic("compression moved a reservation later")
		}
		c.resv[j] = t
	}
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// pass starts what can start now: without backfilling (depth 0) the
// jobs in queue order while the first fits; otherwise the first depth
// waiting jobs hold
// reservations (placed at their earliest fit) and start when it is now;
// any other job starts if it fits now for its estimate.
func (c *refConv) pass(now float64) {
	if c.dirty {
		c.compress(now)
		c.dirty = false
	}
	if c.depth == 0 {
		// list scheduling: start in queue order while the head fits
		for len(c.queue) > 0 && c.jobs[c.queue[0]].Size <= c.free(now) {
			c.begin(now, c.queue[0])
			c.queue = c.queue[1:]
		}
		return
	}
	ahead := 0
	var kept []int
	for _, j := range c.queue {
		job := c.jobs[j]
		if ahead < c.depth {
			r, ok := c.resv[j]
			if !ok {
				r = c.earliest(job.Size, job.Estimate, now, -1)
				c.resv[j] = r
			}
			if r < now {
				panic("reservation in the past")
			}
			if r == now {
				delete(c.resv, j)
				c.begin(now, j)
				continue
			}
			ahead++
			kept = append(kept, j)
			continue
		}
		if job.Size <= c.free(now) && c.fits(job.Size, job.Estimate, now, -1) {
			c.begin(now, j)
			continue
		}
		kept = append(kept, j)
	}
	c.queue = kept
}

// end handles the end of job j at now: its nodes are free and the rest of
// its estimate is given back.
func (c *refConv) end(now float64, j int) {
	if now < c.running[j]+c.jobs[j].Estimate {
		c.dirty = c.depth > 0 // ended early: compress
	}
	if c.arrival && c.depth > 1 {
		c.dirty = true
	}
	delete(c.running, j)
}

func refConvSchedule(jobs []workload.Job, nodes, depth int, each, arrival bool) []float64 {
	c := &refConv{jobs: jobs, nodes: nodes, depth: depth, each: each, arrival: arrival,
		resv: map[int]float64{}, running: map[int]float64{}, startSeq: map[int]int{}, start: make([]float64, len(jobs))}
	next := 0
	for next < len(jobs) || len(c.running) > 0 {
		now := math.Inf(1)
		if next < len(jobs) {
			now = jobs[next].Submit
		}
		for j, s := range c.running {
			now = min(now, s+jobs[j].Run)
		}
		// the ends of the instant, in the order the jobs started
		var ends []int
		for j, s := range c.running {
			if s+jobs[j].Run == now {
				ends = append(ends, j)
			}
		}
		slices.SortFunc(ends, func(a, b int) int { return c.startSeq[a] - c.startSeq[b] })
		if each {
			for next < len(jobs) && jobs[next].Submit == now {
				c.queue = append(c.queue, next)
				next++
				c.pass(now)
			}
			for _, j := range ends {
				c.end(now, j)
				c.pass(now)
			}
			continue
		}
		for _, j := range ends {
			c.end(now, j)
		}
		for next < len(jobs) && jobs[next].Submit == now {
			c.queue = append(c.queue, next)
			next++
		}
		c.pass(now)
	}
	return c.start
}

// TestPropertyConventionsReference: on seeded random workloads (no job
// outlives its estimate), FCFS with every reservation depth, both event
// orders and both compression orders gives the starts of refConv, the
// straightforward executor of the written rules (12 seeds, half of them
// overloaded; 4 with -short).
func TestPropertyConventionsReference(t *testing.T) {
	n := 12
	if testing.Short() {
		n = 4
	}
	for _, seed := range propSeeds(t, n) {
		nodes := []int{16, 64, 128}[seed%3]
		jobs := randomJobs(seed, 150, nodes, false)
		if seed%2 == 1 {
			// overloaded: arrivals four times as dense, long queues
			for i := range jobs {
				jobs[i].Submit = math.Floor(jobs[i].Submit / 4)
			}
		}
		for _, depth := range []int{0, 1, 3, All} {
			for _, each := range []bool{false, true} {
				for _, arrival := range []bool{false, true} {
					if arrival && depth < 2 {
						continue
					}
					cfg := Config{Nodes: nodes, Order: FCFS, Depth: depth, EachEvent: each, CompressArrival: arrival, Recompute: RecomputeNew}
					out, err := safeSimulate(jobs, cfg, false)
					if err != nil {
						t.Fatalf("seed %d: %v", seed, err)
					}
					validate(t, jobs, out, nodes)
					want := refConvSchedule(jobs, nodes, depth, each, arrival)
					for i := range jobs {
						if out.Start[i] != want[i] {
							t.Fatalf("seed %d (BATCH_PROP_SEED=%d) nodes=%d depth=%d each=%v arrival=%v: job %d starts at %v, the reference at %v",
								seed, seed, nodes, depth, each, arrival, jobs[i].ID, out.Start[i], want[i])
						}
					}
				}
			}
		}
	}
}
