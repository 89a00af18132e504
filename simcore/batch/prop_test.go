package batch

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"schedfarm/simcore/workload"
)

// randomJobs is a seeded random workload on nodes nodes: integer submit
// times (so several events share an instant), sizes from powers of two and
// arbitrary widths, run times over three decades, estimates 1–5× the run
// time (or exact); with overrun, some jobs run past their estimate.
func randomJobs(seed uint64, n, nodes int, overrun bool) []workload.Job {
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	jobs := make([]workload.Job, n)
	t := 0.0
	for i := range jobs {
		t += math.Floor(rng.ExpFloat64() * 30)
		var size int
		switch rng.IntN(3) {
		case 0:
			size = 1 << rng.IntN(bitsLen(nodes))
		case 1:
			size = 1 + rng.IntN(nodes)
		default:
			size = 1 + rng.IntN(max(1, nodes/8))
		}
		run := math.Floor(math.Pow(10, 3*rng.Float64())) + float64(rng.IntN(2))
		est := run
		if rng.IntN(3) > 0 {
			est = math.Floor(run * (1 + 4*rng.Float64()))
		}
		if overrun && rng.IntN(10) == 0 {
			// at least 1 s: a job with a zero estimate that runs is not
			// represented in the profile at all (see the report)
			est = max(1, math.Floor(run/2))
		}
		jobs[i] = workload.Job{ID: int64(i + 1), Submit: t, Size: size, Run: run, Estimate: est, Request: max(run, est)}
	}
	return jobs
}

func bitsLen(n int) int {
	b := 0
	for 1<<b <= n {
		b++
	}
	return b
}

// propSeeds returns the seeds of the property tests: BATCH_PROP_SEED=s
// replays one, otherwise a fixed set (printed on failure).
func propSeeds(t *testing.T, k int) []uint64 {
	if v := os.Getenv("BATCH_PROP_SEED"); v != "" {
		s, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		return []uint64{s}
	}
	seeds := make([]uint64, k)
	for i := range seeds {
		seeds[i] = uint64(1000 + i)
	}
	return seeds
}

var propCases = []struct {
	order string
	depth int
}{
	{FCFS, 0}, {FCFS, 1}, {FCFS, 3}, {FCFS, All}, {GareyGraham, 0},
	{PSRS, 0}, {PSRS, 1}, {PSRS, All}, {SmartFFIA, 1}, {SmartFFIA, All}, {SmartNFIW, 2},
}

// TestPropertyRandomWorkloads: on seeded random workloads every schedule
// is valid, equals the unoptimised executor's, conservative backfilling
// never starts a job after its first reservation, EASY never delays the
// head's reservation, and FCFS without backfilling starts jobs in
// submission order. It logs the largest wait of the widest jobs under
// each backfilling mode next to plain FCFS (starvation).
func TestPropertyRandomWorkloads(t *testing.T) {
	t0 := time.Now()
	seeds := propSeeds(t, 12)
	worst := map[string]float64{}
	for _, seed := range seeds {
		nodes := []int{16, 64, 128}[seed%3]
		for _, overrun := range []bool{false, true} {
			jobs := randomJobs(seed, 400, nodes, overrun)
			for _, c := range propCases {
				for _, each := range []bool{false, true} {
					cfg := Config{Nodes: nodes, Order: c.order, Depth: c.depth, EachEvent: each,
						Weighted: seed%2 == 0, Recompute: RecomputeNew, Trace: true}
					fail := func(format string, a ...any) {
						t.Helper()
						t.Fatalf("seed %d (BATCH_PROP_SEED=%d) nodes=%d overrun=%v %s depth=%d each=%v: %s",
							seed, seed, nodes, overrun, c.order, c.depth, each, sprintf(format, a...))
					}
					out, err := safeSimulate(jobs, cfg, false)
					if err != nil {
						fail("%v", err)
					}
					validate(t, jobs, out, nodes)
					ref, err := safeSimulate(jobs, cfg, true)
					if err != nil {
						fail("%v", err)
					}
					for i := range jobs {
						if out.Start[i] != ref.Start[i] {
							fail("job %d starts at %v, the reference executor at %v", jobs[i].ID, out.Start[i], ref.Start[i])
						}
						if fr := out.FirstResv[i]; !(math.IsNaN(fr) && math.IsNaN(ref.FirstResv[i]) || fr == ref.FirstResv[i]) {
							fail("job %d first reservation %v, reference %v", jobs[i].ID, fr, ref.FirstResv[i])
						}
					}
					// Reservations are kept only while the order stands and
					// no job outlives its estimate (a recomputed order or an
					// overrun places them again): FCFS without overruns.
					if !overrun && c.order == FCFS && c.depth == 1 {
						// only the head holds a reservation, so every first
						// reservation is the head's: none is delayed
						for i, fr := range out.FirstResv {
							if out.Start[i] > fr {
								fail("EASY: head job %d reserved %v, starts %v", jobs[i].ID, fr, out.Start[i])
							}
						}
					}
					if !overrun && c.order == FCFS && c.depth == All {
						for i, fr := range out.FirstResv {
							if out.Start[i] > fr { // NaN: never waited
								fail("conservative: job %d reserved %v, starts %v", jobs[i].ID, fr, out.Start[i])
							}
						}
					}
					if c.order == FCFS && c.depth == 0 {
						for i := 1; i < len(jobs); i++ {
							if out.Start[i] < out.Start[i-1] {
								fail("FCFS: job %d starts at %v before job %d at %v", jobs[i].ID, out.Start[i], jobs[i-1].ID, out.Start[i-1])
							}
						}
					}
					if c.order == FCFS && !each && !overrun {
						name := map[int]string{0: "none", 1: "EASY", 3: "depth3", All: "conservative"}[c.depth]
						for i, j := range jobs {
							if 2*j.Size > nodes {
								worst[name] = max(worst[name], out.Start[i]-j.Submit)
							}
						}
					}
				}
			}
		}
	}
	t.Logf("starvation: largest wait of jobs wider than half the machine (FCFS order, %d seeds): none %.0f s, EASY %.0f s, conservative %.0f s, depth 3 %.0f s",
		len(seeds), worst["none"], worst["EASY"], worst["conservative"], worst["depth3"])
	t.Logf("%d seeds in %v", len(seeds), time.Since(t0))
}

func sprintf(format string, a ...any) string { return fmt.Sprintf(format, a...) }

// safeSimulate turns a panic of the executor into an error, so that the
// failure names the seed.
func safeSimulate(jobs []workload.Job, cfg Config, ref bool) (out *Outcome, err error) {
	defer func() {
		if e := recover(); e != nil {
			err = fmt.Errorf("panic (reference executor: %v): %v", ref, e)
		}
	}()
	return simulate(context.Background(), jobs, cfg, ref)
}
