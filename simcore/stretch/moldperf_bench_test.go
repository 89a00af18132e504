package stretch

import (
	"context"
	"syscall"
	"testing"

	"schedfarm/simcore/workload"
)

// moldBenchInstance builds one paper-scale moldable instance (8,000 tasks,
// 512 processors) as BenchmarkMoldable_Paper does, alone, so a profile of
// one algorithm holds only its own run.
func moldBenchInstance(b *testing.B, wl string) []MoldTask {
	b.Helper()
	if wl == "ssm" {
		tasks, err := SSMInstance(8000, 512, 400, DefaultSSM, 1)
		if err != nil {
			b.Fatal(err)
		}
		return tasks
	}
	m := New(testData)
	var jobs []workload.Job
	jobs, err := m.trace(traceFiles[wl], 512)
	if err != nil {
		b.Skipf("skipping %s: %v", wl, err)
	}
	tasks, err := DowneyInstance(jobs, 8000, 512, 1)
	if err != nil {
		b.Fatal(err)
	}
	return tasks
}

// BenchmarkMoldPerf is BenchmarkMoldable_Paper with the instance built per
// sub-benchmark (outside the timer): run one case with
// -bench 'MoldPerf/ssm/ImprovedIterative$' -cpuprofile to profile it.
func BenchmarkMoldPerf(b *testing.B) {
	for _, wl := range []string{"sdsc", "osc", "ssm"} {
		for _, alg := range []string{DBOS, Iterative, ImprovedIter, SCOJOP, FCFSSeq} {
			b.Run(wl+"/"+alg, func(b *testing.B) {
				tasks := moldBenchInstance(b, wl)
				b.ResetTimer()
				cpu0 := cpuTime()
				for range b.N {
					out, err := SimulateMoldable(context.Background(), tasks, MoldConfig{P: 512, Algorithm: alg, Rho: 1.5})
					if err != nil {
						b.Fatal(err)
					}
					b.ReportMetric(float64(out.Decisions), "decisions")
				}
				// The machine is shared: CPU time of this process is the
				// steadier number when other jobs compete for the cores.
				b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
			})
		}
	}
}

// cpuTime returns the user+system CPU time of the process in nanoseconds.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
