package batch

import (
	"context"
	"os"
	"strconv"
	"syscall"
	"testing"
)

// benchTrace times FCFS with the given depth over a whole log of the data
// directory: BATCH_BENCH_TRACE (default CEA-Curie) on BATCH_BENCH_NODES
// nodes (default 93,312, Curie's processors), as the scale study's table
// was measured. Skipped when the log is not in the data directory.
func benchTrace(b *testing.B, depth int) {
	trace := os.Getenv("BATCH_BENCH_TRACE")
	if trace == "" {
		trace = "traces/CEA-Curie-2011-2.1-cln.swf.gz"
	}
	nodes := 93312
	if s := os.Getenv("BATCH_BENCH_NODES"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil {
			b.Fatalf("BATCH_BENCH_NODES=%q: %v", s, err)
		}
		nodes = n
	}
	jobs := traceJobsOn(b, trace, nodes)
	b.ResetTimer()
	cpu0 := processCPU()
	for b.Loop() {
		if _, err := Simulate(context.Background(), jobs, Config{Nodes: nodes, Order: FCFS, Depth: depth, Recompute: RecomputeNew}); err != nil {
			b.Fatal(err)
		}
	}
	// on a shared machine the CPU time is steadier than the wall clock
	b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
}

// processCPU returns the CPU time (user and system) the process has used,
// in nanoseconds (0 where getrusage fails).
func processCPU() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

func BenchmarkModel_BatchTrace_FCFS_EASY(b *testing.B)         { benchTrace(b, 1) }
func BenchmarkModel_BatchTrace_FCFS_Conservative(b *testing.B) { benchTrace(b, All) }
