package stretch

import (
	"context"
	"fmt"
	"syscall"
	"testing"

	"schedfarm/internal/datatest"
	"schedfarm/simcore"
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
	m := New(datatest.Data(b))
	var jobs []workload.Job
	jobs, err := m.trace(traceFiles[wl], 512, 1)
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

// moldParams is the model's defaults overridden by over.
func moldParams(over map[string]any) simcore.Params {
	p := simcore.Params{}
	for _, d := range schema.Params {
		p[d.Name] = d.Default
	}
	for k, v := range over {
		p[k] = v
	}
	return p
}

// BenchmarkMoldFig5 times whole jobs of configs/saule2012/fig5.yaml (instance
// generation included) per load range and algorithm, one instance seed
// per iteration: with -benchtime=Nx, N instances of the 20 the sweep runs.
// The per-job CPU times, times the sweep's job counts, estimate its CPU
// time at paper scale (the moldperf report). Besides the main sweep's five
// algorithms (DBOS at ρ = 1.5), DBOS runs at every ρ of Fig. 5(f)'s sweep.
func BenchmarkMoldFig5(b *testing.B) {
	m := New(datatest.Data(b))
	ranges := [][2]float64{{153, 165}, {203, 220}, {256, 280}, {332, 359}, {386, 410}, {410, 450}, {470, 509}}
	type run struct {
		alg string
		rho float64
	}
	runs := []run{{SCOJOP, 1.5}, {Iterative, 1.5}, {ImprovedIter, 1.5}, {DBOS, 1.5}, {FCFSSeq, 1.5}}
	for _, rho := range []float64{1, 1.2, 1.4, 1.6, 1.8, 2, 2.5, 3, 3.5, 4} {
		runs = append(runs, run{DBOS, rho})
	}
	for _, lr := range ranges {
		for _, r := range runs {
			b.Run(fmt.Sprintf("load=%v/%s/rho=%v", lr[0], r.alg, r.rho), func(b *testing.B) {
				p := moldParams(map[string]any{"problem": "moldable", "workload": "ssm", "n_tasks": int64(8000), "m": int64(512),
					"load": lr[0], "load_hi": lr[1], "algorithm": r.alg, "rho": r.rho})
				cpu0 := cpuTime()
				for i := range b.N {
					if _, err := m.Run(context.Background(), p, uint64(20100605+i)); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
			})
		}
	}
}
