package stretch

import (
	"context"
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
				for range b.N {
					out, err := SimulateMoldable(context.Background(), tasks, MoldConfig{P: 512, Algorithm: alg, Rho: 1.5})
					if err != nil {
						b.Fatal(err)
					}
					b.ReportMetric(float64(out.Decisions), "decisions")
				}
			})
		}
	}
}
