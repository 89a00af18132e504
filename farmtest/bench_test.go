package farmtest

import (
	"context"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"testing"
	"time"

	"schedfarm/coordinator"
	"schedfarm/worker"
)

// runBench runs a sweep of n bench jobs of workMs each on 2 workers and
// reports the end-to-end rate and the farm's overhead over the pure model
// time (the time the workers measured inside Model.Run).
func runBench(b *testing.B, text string, n int, workMs float64) {
	runBenchPacked(b, text, n, workMs, coordinator.Packing{})
}

// runBenchPacked is runBench with the coordinator's packing policy.
func runBenchPacked(b *testing.B, text string, n int, workMs float64, pol coordinator.Packing) {
	// The collector as in a worker process (unless GOGC is set).
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(worker.GCPercent))
	}
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		f := New(b, Settings())
		// As `schedfarm run` connects to its embedded server (in-memory
		// pipes); SCHEDFARM_BENCH_TCP=1 measures loopback TCP instead.
		f.InProcess = os.Getenv("SCHEDFARM_BENCH_TCP") == ""
		c := f.StartCoordinatorWith("coord", coordinator.Config{Packing: pol})
		ws := f.StartWorkers(2, "w", worker.Config{})
		b.StartTimer()
		start := time.Now()
		rep, err := c.Submit(context.Background(), coordinator.SubmitRequest{File: "overhead.yaml", Text: text})
		if err != nil {
			b.Fatal(err)
		}
		p := WaitRun(b, c.Coordinator, rep.Run, 10*time.Minute)
		b.StopTimer()
		// From submission to the last result, as the run records them
		// (the same span as `schedfarm run`'s efficiency line), not to
		// the poll that saw the run end.
		wall := p.Ended.Sub(p.Created)
		if p.Ended.IsZero() || wall <= 0 {
			wall = time.Since(start)
		}
		ws.Stop()
		// Pure model time, as measured by the workers around Model.Run.
		var model time.Duration
		for _, w := range ws.List {
			model += w.Stats().ModelTime
		}
		b.ReportMetric(float64(n)/wall.Seconds(), "jobs/s")
		if workMs > 0 {
			// Efficiency against two workers each busy for model/2.
			b.ReportMetric(100*(wall.Seconds()*2/model.Seconds()-1), "%overhead")
			b.ReportMetric(model.Seconds()/float64(n)*1000, "model-ms/job")
		}
		c.Stop()
	}
}

// BenchmarkFarm_ZeroMsJobs: end-to-end rate of 0-ms bench jobs with 2
// workers on an embedded server (target ≥ 1,000 jobs/s).
// It runs configs/bench/overhead.yaml (10,000 jobs).
func BenchmarkFarm_ZeroMsJobs(b *testing.B) {
	text, err := os.ReadFile("../configs/bench/overhead.yaml")
	if err != nil {
		b.Fatal(err)
	}
	runBench(b, string(text), 10_000, 0)
}

// BenchmarkFarm_ZeroMsJobsPacked: BenchmarkFarm_ZeroMsJobs with automatic
// packing (a probe of 32 single jobs, then packs of up to 256).
func BenchmarkFarm_ZeroMsJobsPacked(b *testing.B) {
	text, err := os.ReadFile("../configs/bench/overhead.yaml")
	if err != nil {
		b.Fatal(err)
	}
	runBenchPacked(b, string(text), 10_000, 0, coordinator.Packing{Mode: coordinator.PackAuto})
}

const oneMsJobs = `sweeps:
  - name: overhead1
    model: bench
    seed: 1
    replicates: 3000
    params:
      work_ms: 1
`

// BenchmarkFarm_1msJobs: the farm's overhead over 3,000 jobs of 1 ms with
// 2 workers, one job per message: the per-message cost is a large share
// of such a job.
func BenchmarkFarm_1msJobs(b *testing.B) {
	runBench(b, oneMsJobs, 3000, 1)
}

// BenchmarkFarm_1msJobsPacked: BenchmarkFarm_1msJobs with automatic
// packing (target ≤ 3 %).
func BenchmarkFarm_1msJobsPacked(b *testing.B) {
	runBenchPacked(b, oneMsJobs, 3000, 1, coordinator.Packing{Mode: coordinator.PackAuto})
}

// BenchmarkFarm_20msJobs: the farm's overhead over the pure compute time of
// 20-ms jobs with 2 workers (target ≤ 3 %).
func BenchmarkFarm_20msJobs(b *testing.B) {
	runBench(b, `sweeps:
  - name: overhead20
    model: bench
    seed: 1
    replicates: 1000
    params:
      work_ms: 20
`, 1000, 20)
}

// BenchmarkSubmit_100k: submitting 100,000 jobs (target < 10 s) and the
// coordinator's memory for them (target < 200 MB).
func BenchmarkSubmit_100k(b *testing.B) {
	text := `sweeps:
  - name: big
    model: bench
    seed: 1
    replicates: 100
    axes:
      - name: size
        range: {from: 1, to: 1000, step: 1}
`
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		f := New(b, Settings())
		c := f.StartCoordinator("coord")
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		b.StartTimer()
		rep, err := c.Submit(context.Background(), coordinator.SubmitRequest{File: "big.yaml", Text: text})
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		runtime.GC()
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		if rep.Published != 100_000 {
			b.Fatalf("published %d", rep.Published)
		}
		if path := os.Getenv("SCHEDFARM_HEAPPROFILE"); path != "" {
			// Where the held memory is: go tool pprof -sample_index=inuse_space PATH
			out, err := os.Create(path)
			if err != nil {
				b.Fatal(err)
			}
			_ = pprof.WriteHeapProfile(out)
			out.Close()
		}
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/1e6, "MB-held")
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/100_000, "B/job-held")
		c.Stop()
	}
}
