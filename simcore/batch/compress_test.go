package batch

import (
	"math"
	"math/rand/v2"
	"testing"

	"schedfarm/simcore/workload"
)

// fracJobs is randomJobs with fractional times: submit times, run times
// and estimates scaled by irrational factors, so that sums round and
// reservations meet at times that are not exact (the compression's
// certificates and moves must still give the reference executor's
// schedule bit for bit). Some jobs share a submit time.
func fracJobs(seed uint64, n, nodes int) []workload.Job {
	jobs := randomJobs(seed, n, nodes, false)
	rng := rand.New(rand.NewPCG(seed, 0xf4ac))
	for i := range jobs {
		j := &jobs[i]
		j.Submit *= math.Sqrt2
		j.Run = j.Run*math.Pi/3 + rng.Float64()
		j.Estimate = max(j.Run, j.Estimate*math.Pi/3+rng.Float64()*j.Run)
		j.Request = j.Estimate
	}
	return jobs
}

// TestCompressMatchesReferenceFractional compares the optimised executor
// with the reference one (backfillRef) on workloads with fractional times,
// for every order with conservative backfilling and a depth of 3, under
// both event conventions.
func TestCompressMatchesReferenceFractional(t *testing.T) {
	seeds := propSeeds(t, 16)
	for _, seed := range seeds {
		nodes := []int{16, 64, 128, 256}[seed%4]
		jobs := fracJobs(seed, 500, nodes)
		for _, c := range []struct {
			order string
			depth int
		}{{FCFS, All}, {FCFS, 3}, {PSRS, All}, {SmartFFIA, All}, {SmartNFIW, All}} {
			for _, each := range []bool{false, true} {
				cfg := Config{Nodes: nodes, Order: c.order, Depth: c.depth, EachEvent: each,
					Weighted: seed%2 == 0, Recompute: RecomputeNew, Trace: true}
				out, err := safeSimulate(jobs, cfg, false)
				if err != nil {
					t.Fatalf("seed %d %s depth %d each %v: %v", seed, c.order, c.depth, each, err)
				}
				validate(t, jobs, out, nodes)
				if out.Cuts != 0 {
					// a shift by a fractional amount may round
					t.Fatalf("seed %d %s depth %d each %v: %d tails cut with fractional times", seed, c.order, c.depth, each, out.Cuts)
				}
				ref, err := safeSimulate(jobs, cfg, true)
				if err != nil {
					t.Fatalf("seed %d %s depth %d each %v (reference): %v", seed, c.order, c.depth, each, err)
				}
				for i := range jobs {
					if out.Start[i] != ref.Start[i] {
						t.Fatalf("seed %d (BATCH_PROP_SEED=%d) %s depth %d each %v: job %d starts at %v, the reference executor at %v",
							seed, seed, c.order, c.depth, each, jobs[i].ID, out.Start[i], ref.Start[i])
					}
				}
			}
		}
	}
}

// TestCompressMatchesReferenceOverloaded compares the optimised executor
// with the reference one on Table 2's randomized workload, six times what
// the machine can run: the queue only grows and most reservations move at
// every compression, most of them in tails cut out of the profile at once
// (the times are whole seconds), which it checks happened.
func TestCompressMatchesReferenceOverloaded(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped by -short: a randomized workload six times the machine (run without -short)")
	}
	cuts := 0
	defer func() {
		if !t.Failed() && cuts == 0 {
			t.Error("no tail was cut")
		}
	}()
	for _, seed := range propSeeds(t, 2) {
		jobs := workload.Randomized(700, 256, seed)
		for _, c := range []struct {
			order    string
			weighted bool
		}{{FCFS, false}, {PSRS, true}, {SmartNFIW, false}} {
			for _, each := range []bool{false, true} {
				cfg := Config{Nodes: 256, Order: c.order, Depth: All, EachEvent: each, Weighted: c.weighted, Recompute: RecomputeNew}
				out, err := safeSimulate(jobs, cfg, false)
				if err != nil {
					t.Fatalf("seed %d %s each %v: %v", seed, c.order, each, err)
				}
				cuts += out.Cuts
				t.Logf("seed %d %s each %v: %d cuts", seed, c.order, each, out.Cuts)
				ref, err := safeSimulate(jobs, cfg, true)
				if err != nil {
					t.Fatalf("seed %d %s each %v (reference): %v", seed, c.order, each, err)
				}
				for i := range jobs {
					if out.Start[i] != ref.Start[i] {
						t.Fatalf("seed %d (BATCH_PROP_SEED=%d) %s each %v: job %d starts at %v, the reference executor at %v",
							seed, seed, c.order, each, jobs[i].ID, out.Start[i], ref.Start[i])
					}
				}
			}
		}
	}
}

// TestWholeTimes pins when compress may cut tails: whole times that stay
// exact, and no job outliving its estimate.
func TestWholeTimes(t *testing.T) {
	ok := workload.Job{Submit: 10, Run: 5, Estimate: 8}
	for _, c := range []struct {
		name string
		edit func(*workload.Job)
		want bool
	}{
		{"whole", func(*workload.Job) {}, true},
		{"fractional submit", func(j *workload.Job) { j.Submit = 10.5 }, false},
		{"fractional run", func(j *workload.Job) { j.Run = 4.25 }, false},
		{"fractional estimate", func(j *workload.Job) { j.Estimate = 7.5 }, false},
		{"run past the estimate", func(j *workload.Job) { j.Run = 9 }, false},
		{"sum too large to stay exact", func(j *workload.Job) { j.Estimate, j.Run = 1<<51, 1 }, false},
		{"infinite", func(j *workload.Job) { j.Estimate = math.Inf(1) }, false},
	} {
		j := ok
		c.edit(&j)
		if got := wholeTimes([]workload.Job{ok, j, j}); got != c.want {
			t.Errorf("%s: wholeTimes = %v, want %v", c.name, got, c.want)
		}
	}
}
