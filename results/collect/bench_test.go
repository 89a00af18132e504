package collect_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	"schedfarm/results"
	"schedfarm/results/collect"
	"schedfarm/results/internal/runtest"
	"schedfarm/simcore/bench"
	"schedfarm/sweep"
)

// benchSweep returns n bench jobs: n/10 points × 10 replicates, one point
// in ten with 5 rows of the samples table.
func benchSweep(b *testing.B, n int) []sweep.Job {
	pts := make([]runtest.Point, n/10)
	for i := range pts {
		rows := 0
		if i%10 == 0 {
			rows = 5
		}
		pts[i] = runtest.Point{"size": i, "rows": rows, "variant": []string{"a", "b"}[i%2]}
	}
	return runtest.BenchJobs(b, "big", 42, pts, 10)
}

// peakHeap samples the live heap while fn runs and returns its peak above
// the level before fn.
func peakHeap(fn func()) uint64 {
	runtime.GC()
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	base := sample[0].Value.Uint64()
	var peak uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		for {
			metrics.Read(s)
			peak = max(peak, s[0].Value.Uint64())
			select {
			case <-done:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	fn()
	close(done)
	wg.Wait()
	if peak < base {
		return 0
	}
	return peak - base
}

// BenchmarkCollect_100k collects 100,000 bench jobs (10,000 points, 50,000
// samples rows) from 200 parts of 500 shuffled jobs plus 5 parts of
// redeliveries.
func BenchmarkCollect_100k(b *testing.B) {
	schema := bench.New().Schema()
	jobs := benchSweep(b, 100_000)
	rows := runtest.RunBench(b, jobs, "w", time.Unix(1.7e9, 0))
	dir := b.TempDir()
	parts := filepath.Join(dir, "parts")
	rng := rand.New(rand.NewPCG(3, 4))
	perm := rng.Perm(len(rows))
	for p := 0; p < 200; p++ {
		part := make([]results.JobResult, 500)
		for i := range part {
			part[i] = rows[perm[p*500+i]]
		}
		runtest.StorePart(b, parts, fmt.Sprintf("part-%04d", p), schema, "run", part)
	}
	for p := 0; p < 5; p++ {
		runtest.StorePart(b, parts, fmt.Sprintf("redo-%d", p), schema, "run", rows[p*200:p*200+200])
	}
	in := collect.Input{RunID: "run", Model: schema, Jobs: jobs, Replace: true}
	out := filepath.Join(dir, "out")
	b.ReportAllocs()
	b.ResetTimer()
	var peak uint64
	for i := 0; i < b.N; i++ {
		var res *collect.Collected
		var err error
		p := peakHeap(func() { res, err = collect.Collect(context.Background(), runtest.DirSource{Dir: parts}, in, out) })
		if err != nil {
			b.Fatal(err)
		}
		if res.OK != 100_000 || res.TableRows["samples"] != 50_000 {
			b.Fatalf("collected %+v", res)
		}
		peak = max(peak, p)
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
}

// BenchmarkEncodePart_500 encodes a part of 500 bench results.
func BenchmarkEncodePart_500(b *testing.B) { benchEncodePart(b, 500) }

// BenchmarkEncodePart_10 encodes a part of 10 bench results (one with 5
// samples rows): the size a worker stores every FlushEvery when short
// jobs of several sweeps interleave.
func BenchmarkEncodePart_10(b *testing.B) { benchEncodePart(b, 10) }

func benchEncodePart(b *testing.B, n int) {
	schema := bench.New().Schema()
	rows := runtest.RunBench(b, benchSweep(b, n), "w", time.Unix(1.7e9, 0))
	b.ReportAllocs()
	b.ResetTimer()
	var size int
	for i := 0; i < b.N; i++ {
		objs, err := results.EncodePart(schema, results.PartInfo{RunID: "run"}, rows)
		if err != nil {
			b.Fatal(err)
		}
		size = len(objs["jobs"]) + len(objs["samples"])
	}
	b.ReportMetric(float64(size), "part-bytes")
}
