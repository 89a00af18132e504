package stretch

import (
	"context"
	"fmt"
	"testing"
)

func paperInstance(b *testing.B, delta, load float64) []Task {
	b.Helper()
	tasks, _, err := SeqWorkload{N: 20000, A: 1, Delta: delta, Load: load}.Generate(3)
	if err != nil {
		b.Fatal(err)
	}
	return tasks
}

// One paper-scale instance (20,000 tasks, 300 processors, load 300): the
// issue's targets are < 0.5 s for DASEDF and < 100 ms for FCFS; the paper
// reports 40 s (DASEDF) and 15 s (FCFS) on average per instance (§4.2).
func BenchmarkSeq_Paper(b *testing.B) {
	for _, alg := range []string{FCFS, DASEDF} {
		for _, delta := range []float64{20, 100} {
			b.Run(fmt.Sprintf("%s/delta=%v", alg, delta), func(b *testing.B) {
				tasks := paperInstance(b, delta, 300)
				b.ResetTimer()
				for range b.N {
					out, err := SimulateSeq(context.Background(), tasks, SeqConfig{M: 300, Algorithm: alg})
					if err != nil {
						b.Fatal(err)
					}
					b.ReportMetric(float64(out.Decisions), "decisions")
					b.ReportMetric(float64(out.Checks)/float64(max(1, out.Decisions)), "checks/decision")
				}
			})
		}
	}
}
