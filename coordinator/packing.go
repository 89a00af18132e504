package coordinator

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"schedfarm/broker"
)

// Packing is the coordinator's policy for sizing job messages. The farm
// pays a fixed cost per message (publish, fetch, ack, in-progress
// bookkeeping: about 100–250 µs on a 2-core machine), so jobs of a few
// milliseconds or less spend more than 3% of their time in the farm. Such
// jobs are sent k to a message (a pack); the worker runs them one after the
// other and stores one result row per job, so results do not depend on k.
//
// The zero value is Off. Auto, the policy of `schedfarm run` and
// `schedfarm coordinator`, measures each sweep before choosing k:
//
//  1. the first ProbeJobs jobs of each sweep are published alone, in turn
//     from every sweep (probeJobs);
//  2. the coordinator waits until their results are registered, or until
//     ProbeWait has passed without a new one (no worker running, or every
//     worker busy with long jobs), or until enough of them show that the
//     jobs are long (the mean model time of at least minProbe results
//     reaches Target). The wait is counted from the last result, not from
//     the start: a file of many sweeps queues hundreds of probe jobs, and
//     the last sweeps' probes run only after the first ones';
//  3. k = ⌈Target / mean model time⌉, capped at Max; k = 1 when the jobs are
//     long (mean ≥ Target/2) or nothing came back in time (long jobs, or
//     no worker running yet).
//
// The workers are busy with the probe while the coordinator waits, so long
// jobs lose nothing to it. The choice of every sweep and its reason are
// recorded in the run record, run.json and jobs.parquet's metadata.
type Packing struct {
	Mode PackMode
	// K is the pack size of PackFixed.
	K int
	// Target is the model time a pack aims at (default 30 ms).
	Target time.Duration
	// Max bounds k (default 256).
	Max int
	// ProbeJobs is how many jobs of each sweep are published alone to
	// measure it (default DefaultProbeJobs).
	ProbeJobs int
	// ProbeWait bounds the wait for the next of the probe's results
	// (default 1 s).
	ProbeWait time.Duration
}

// PackMode selects a packing policy.
type PackMode string

// Packing policies.
const (
	// PackOff sends every job in its own message.
	PackOff PackMode = ""
	// PackAuto measures each sweep and packs its jobs when they are tiny.
	PackAuto PackMode = "auto"
	// PackFixed sends K jobs per message.
	PackFixed PackMode = "fixed"
)

// DefaultProbeJobs is the default of Packing.ProbeJobs. Every probe job is
// a message of its own, and on a machine whose cores all run models each
// message costs the workers about half a millisecond of waiting: 16 jobs
// measure a sweep's mean well enough to choose k = ⌈Target ÷ mean⌉ at half
// the messages of 32, which took the quick suite's efficiency with 2
// workers up by about 0.01.
const DefaultProbeJobs = 16

// minProbe is how many probe results may show that a sweep's jobs are long.
const minProbe = 4

// ParsePacking reads a packing policy as written on the command line:
// "auto", "off", or a pack size N ≥ 1 ("1" is the same as "off").
func ParsePacking(s string) (Packing, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "auto":
		return Packing{Mode: PackAuto}, nil
	case "off", "", "1":
		return Packing{Mode: PackOff}, nil
	}
	k, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || k < 1 || k > broker.MaxPack {
		return Packing{}, fmt.Errorf("packing %q: want auto, off or a number of jobs per message from 1 to %d", s, broker.MaxPack)
	}
	return Packing{Mode: PackFixed, K: k}, nil
}

// String returns the policy as ParsePacking reads it.
func (p Packing) String() string {
	switch p.Mode {
	case PackAuto:
		return "auto"
	case PackFixed:
		return strconv.Itoa(p.K)
	}
	return "off"
}

func (p Packing) withDefaults() Packing {
	if p.Target <= 0 {
		p.Target = 30 * time.Millisecond
	}
	if p.Max <= 0 {
		p.Max = 256
	}
	p.Max = min(p.Max, broker.MaxPack)
	if p.ProbeJobs <= 0 {
		p.ProbeJobs = DefaultProbeJobs
	}
	if p.ProbeWait <= 0 {
		p.ProbeWait = time.Second
	}
	if p.Mode == PackFixed {
		p.K = max(1, min(p.K, broker.MaxPack))
	}
	return p
}

// probes says whether a sweep with n jobs to publish is probed first.
// A sweep no larger than two probes is not worth packing: it is sent
// unpacked without waiting.
func (p Packing) probes(n int) bool {
	return p.Mode == PackAuto && n > 2*p.ProbeJobs
}

// probeResult is what came back of a sweep's probe.
type probeResult struct {
	// Sent is the number of probe jobs published, N the number with a
	// registered result and ModelMs their summed model time.
	Sent, N int
	ModelMs float64
	// TimedOut is set when ProbeWait passed before the probe was complete.
	TimedOut bool
}

// decide chooses the pack size of a sweep of n jobs to publish, given its
// probe (nil when the sweep was not probed). p has its defaults.
func (p Packing) decide(sweepName string, n int, pr *probeResult) broker.PackChoice {
	c := broker.PackChoice{Sweep: sweepName, Policy: p.String(), K: 1}
	target := float64(p.Target) / float64(time.Millisecond)
	switch {
	case p.Mode == PackOff:
		c.Reason = "packing off: one job per message"
	case p.Mode == PackFixed:
		c.K = p.K
		c.Reason = fmt.Sprintf("fixed by configuration: %d jobs per message", p.K)
	case pr == nil:
		c.Reason = fmt.Sprintf("%d jobs to publish: too few to be worth packing, sent one per message", n)
	default:
		c.Probed = pr.N
		if pr.N == 0 {
			c.Reason = fmt.Sprintf("no result of the %d probe jobs when the probe ended (%v without a new result): long jobs (or no worker running yet), one per message",
				pr.Sent, p.ProbeWait)
			break
		}
		mean := pr.ModelMs / float64(pr.N)
		c.ProbeMeanMs = mean
		if mean >= target/2 {
			c.Reason = fmt.Sprintf("jobs of %.3g ms (mean of %d probed) reach half the %g-ms target alone: one per message",
				mean, pr.N, target)
			break
		}
		k := float64(p.Max)
		if mean > 0 {
			k = min(k, math.Ceil(target/mean))
		}
		c.K = max(1, int(k))
		c.Reason = fmt.Sprintf("jobs of %.3g ms (mean of %d probed): %d per message ≈ %.3g ms of work (target %g ms, at most %d)",
			mean, pr.N, c.K, mean*float64(c.K), target, p.Max)
	}
	return c
}

// probe follows the probe jobs of a run's sweeps until their results are
// registered. Its fields are guarded by the coordinator's mu.
type probe struct {
	want    map[uuid.UUID]string // probe job → sweep
	results map[string]*probeResult
	left    int
	done    chan struct{} // closed when every probe job came back or all sweeps are known long
	// progress receives (without blocking) each time a probe job comes
	// back: the wait for the probe ends after ProbeWait without one.
	progress chan struct{}
	target   float64 // ms
}

func newProbe(target time.Duration) *probe {
	return &probe{want: map[uuid.UUID]string{}, results: map[string]*probeResult{}, done: make(chan struct{}),
		progress: make(chan struct{}, 1), target: float64(target) / float64(time.Millisecond)}
}

func (pr *probe) add(sweepName string, id uuid.UUID) {
	if _, ok := pr.want[id]; ok {
		return
	}
	pr.want[id] = sweepName
	if pr.results[sweepName] == nil {
		pr.results[sweepName] = &probeResult{}
	}
	pr.results[sweepName].Sent++
	pr.left++
}

// registered counts a part's probe jobs; modelMs is the part's summed
// model time over its jobs. failed jobs come back without a time.
func (pr *probe) registered(jobs []uuid.UUID, modelMs float64, failed bool) {
	hit := 0
	for _, id := range jobs {
		s, ok := pr.want[id]
		if !ok {
			continue
		}
		delete(pr.want, id)
		pr.left--
		hit++
		if !failed {
			r := pr.results[s]
			r.N++
			// Parts hold the jobs of one sweep: during the probe, only
			// probe jobs, so the part's mean is theirs.
			r.ModelMs += modelMs / float64(len(jobs))
		}
	}
	if hit == 0 {
		return
	}
	select {
	case pr.progress <- struct{}{}:
	default:
	}
	if pr.left == 0 || pr.allLong() {
		select {
		case <-pr.done:
		default:
			close(pr.done)
		}
	}
}

// allLong reports whether every sweep still waiting for its probe has
// shown long jobs already: their k is 1 whatever the rest says.
func (pr *probe) allLong() bool {
	waiting := map[string]bool{}
	for _, s := range pr.want {
		waiting[s] = true
	}
	for s := range waiting {
		r := pr.results[s]
		if r.N < minProbe || r.ModelMs/float64(r.N) < pr.target {
			return false
		}
	}
	return true
}
