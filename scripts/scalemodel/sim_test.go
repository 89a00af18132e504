package main

import (
	"math"
	"math/rand/v2"
	"testing"
)

func jobsOf(n int, d float64) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = d
	}
	return s
}

func TestSimulate_OneWorkerIsSerial(t *testing.T) {
	c := Costs{Worker: 0.001, NATS: 0.0005, Coord: 0.0001}
	got := Simulate(jobsOf(100, 0.01), 1, c)
	want := 100*(0.01+0.001+0.0005) + 0.0001 // the coordinator records the last job after it ends
	if math.Abs(got-want) > 1e-9 {
		t.Fatalf("makespan %v, want %v", got, want)
	}
}

func TestSimulate_LinearUntilTheCeiling(t *testing.T) {
	c := Costs{Worker: 0.001, NATS: 0.0005, Coord: 0.0001}
	const n = 200000
	for _, w := range []int{1, 4, 16} {
		x := n / Simulate(jobsOf(n, 0.01), w, c)
		if ideal := c.Ideal(w, 0.01); math.Abs(x-ideal)/ideal > 0.01 {
			t.Errorf("w=%d: %.0f jobs/s, want the ideal %.0f", w, x, ideal)
		}
	}
	for _, w := range []int{64, 256} {
		x := n / Simulate(jobsOf(n, 0.01), w, c)
		if ceil := c.Ceiling(); x > ceil*1.0001 || x < 0.99*ceil {
			t.Errorf("w=%d: %.0f jobs/s, want the NATS ceiling %.0f", w, x, ceil)
		}
	}
}

func TestSimulate_NeverAboveEitherBound(t *testing.T) {
	seed := uint64(42)
	rng := rand.New(rand.NewPCG(seed, 0))
	for range 200 {
		c := Costs{Worker: rng.Float64() * 0.01, NATS: rng.Float64() * 0.002, Coord: rng.Float64() * 0.002}
		jobs := make([]float64, 1+rng.IntN(500))
		var mean float64
		for i := range jobs {
			jobs[i] = rng.ExpFloat64() * 0.02
			mean += jobs[i] / float64(len(jobs))
		}
		w := 1 + rng.IntN(300)
		x := float64(len(jobs)) / Simulate(jobs, w, c)
		if x > c.Ceiling()*(1+1e-9) || x > c.Ideal(w, mean)*(1+1e-9) {
			t.Fatalf("seed %d: w=%d costs %+v: %.1f jobs/s above min(ideal %.1f, ceiling %.1f)",
				seed, w, c, x, c.Ideal(w, mean), c.Ceiling())
		}
	}
}

func TestCosts_Knee(t *testing.T) {
	c := Costs{Worker: 0.001, NATS: 0.0005, Coord: 0.0001}
	// (10 + 1 + 0.5) ms per job per worker against 0.5 ms at NATS: 23 workers.
	if k := c.Knee(0.01); math.Abs(k-23) > 1e-9 {
		t.Fatalf("knee %v, want 23", k)
	}
	if c.Bottleneck() != "NATS" {
		t.Fatalf("bottleneck %s, want NATS", c.Bottleneck())
	}
}
