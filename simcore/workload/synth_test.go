package workload

import (
	"math"
	"slices"
	"testing"

	"schedfarm/simcore/rng"
)

// TestFitWeibullRecovers: the maximum-likelihood fit recovers the shape and
// scale of 20,000 Weibull samples within 3%, the probability-plot fit
// within 5%; both fall back to (0.6, 239 s) on one sample.
func TestFitWeibullRecovers(t *testing.T) {
	for _, f := range []struct {
		name string
		fit  func([]float64) (float64, float64)
		tol  float64
	}{{"mle", FitWeibull, 0.03}, {"plot", FitWeibullPlot, 0.05}} {
		for _, c := range []struct{ k, l float64 }{{0.5, 180}, {0.8, 300}, {1.5, 60}} {
			r := rng.New(7).Stream("w")
			x := make([]float64, 20000)
			for i := range x {
				x[i] = r.Weibull(c.k, c.l)
			}
			k, l := f.fit(x)
			if math.Abs(k/c.k-1) > f.tol || math.Abs(l/c.l-1) > f.tol {
				t.Errorf("%s: Weibull(%v, %v): fitted (%.4g, %.4g)", f.name, c.k, c.l, k, l)
			}
		}
		if k, l := f.fit([]float64{5}); k != 0.6 || l != 239 {
			t.Errorf("%s: fallback = (%v, %v), want (0.6, 239)", f.name, k, l)
		}
	}
}

// synthTrace is a small "log" with a strong size/length correlation: wide
// jobs are short, narrow jobs long; estimates 2× the run time.
func synthTrace(n int) []Job {
	r := rng.New(3).Stream("trace")
	jobs := make([]Job, n)
	t := 0.0
	for i := range jobs {
		t += math.Round(r.Weibull(0.6, 200)) + 1
		size, run := 1, 20000.0
		if r.IntN(2) == 0 {
			size, run = 128, 100
		}
		jobs[i] = Job{ID: int64(i + 1), Submit: t, Size: size, Run: run, Estimate: 2 * run, Request: 2 * run}
	}
	return jobs
}

// TestGenerateKeepsJointBins: jobs drawn from the joint bins keep the
// trace's size mix and its size/length correlation, runs never exceed
// requests, the arrivals follow the fitted Weibull mean, and a seed gives
// the same jobs twice.
func TestGenerateKeepsJointBins(t *testing.T) {
	trace := synthTrace(5000)
	m := Fit(trace)
	if m.Jobs != 5000 {
		t.Fatalf("Jobs = %d", m.Jobs)
	}
	gen := m.Generate(20000, 11)
	if !slices.Equal(gen, m.Generate(20000, 11)) {
		t.Fatal("same seed, different jobs")
	}
	wide, wideLong := 0, 0
	for i, j := range gen {
		if j.Run > j.Request || j.Run < 1 || j.Estimate != j.Request {
			t.Fatalf("job %d: run %v request %v estimate %v", i, j.Run, j.Request, j.Estimate)
		}
		if i > 0 && j.Submit < gen[i-1].Submit {
			t.Fatalf("job %d submitted before job %d", i, i-1)
		}
		if j.Size == 128 {
			wide++
			if j.Run >= 1000 {
				wideLong++
			}
		} else if j.Size != 1 {
			t.Fatalf("job %d has size %d, not in the trace", i, j.Size)
		}
	}
	if f := float64(wide) / float64(len(gen)); math.Abs(f-0.5) > 0.02 {
		t.Errorf("share of wide jobs %.3f, trace 0.5", f)
	}
	if wideLong != 0 {
		t.Errorf("%d wide jobs drawn long: the joint bins lost the correlation", wideLong)
	}
	mean := gen[len(gen)-1].Submit / float64(len(gen)-1)
	want := m.Scale * math.Gamma(1+1/m.Shape)
	if math.Abs(mean/want-1) > 0.1 {
		t.Errorf("mean inter-arrival %.1f, fitted Weibull mean %.1f", mean, want)
	}
}

// TestGenerateMarginalIndependent: the marginal reading keeps each
// attribute's distribution but not their correlation: a wide job is drawn
// long when its run-time class and its requested-time class are both long
// (else the run is clamped to the short request), a quarter of them.
func TestGenerateMarginalIndependent(t *testing.T) {
	m := Fit(synthTrace(5000))
	gen := m.GenerateMarginal(20000, 11)
	arr := m.Generate(20000, 11)
	wide, wideLong := 0, 0
	for i, j := range gen {
		if j.Submit != arr[i].Submit {
			t.Fatalf("job %d: arrivals differ from Generate's (%v, %v)", i, j.Submit, arr[i].Submit)
		}
		if j.Run > j.Request || j.Run < 1 {
			t.Fatalf("job %d: run %v request %v", i, j.Run, j.Request)
		}
		if j.Size == 128 {
			wide++
			if j.Run >= 1000 {
				wideLong++
			}
		}
	}
	if f := float64(wide) / float64(len(gen)); math.Abs(f-0.5) > 0.02 {
		t.Errorf("share of wide jobs %.3f, trace 0.5", f)
	}
	if f := float64(wideLong) / float64(wide); math.Abs(f-0.25) > 0.03 {
		t.Errorf("share of wide jobs drawn long %.3f, want about 0.25 (independent)", f)
	}
}

// TestRandomizedTable2: every parameter within the ranges of krallmann1999
// Table 2 and uniform (means within 2% of the midpoints).
func TestRandomizedTable2(t *testing.T) {
	const n, nodes = 50000, 256
	jobs := Randomized(n, nodes, 5)
	if !slices.Equal(jobs, Randomized(n, nodes, 5)) {
		t.Fatal("same seed, different jobs")
	}
	var gap, size, req, run float64
	for i, j := range jobs {
		if j.Size < 1 || j.Size > nodes || j.Request < 300 || j.Request > 86400 || j.Run < 1 || j.Run > j.Request {
			t.Fatalf("job %d out of Table 2's ranges: %+v", i, j)
		}
		if i > 0 {
			g := j.Submit - jobs[i-1].Submit
			if g <= 0 || g > 3600 {
				t.Fatalf("job %d: inter-arrival %v outside (0, 3600]", i, g)
			}
			gap += g
		}
		size += float64(j.Size)
		req += j.Request
		run += j.Run / j.Request
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"inter-arrival", gap / (n - 1), 1800.5},
		{"nodes", size / n, 128.5},
		{"requested", req / n, (300 + 86400) / 2.0},
		{"run/requested", run / n, 0.5},
	} {
		if math.Abs(c.got/c.want-1) > 0.02 {
			t.Errorf("mean %s %.4g, want about %.4g", c.name, c.got, c.want)
		}
	}
}

// TestGenerateValues: every reading of the values inside a bin keeps the
// arrivals and the bins of Generate (the same streams) and runs within the
// requests. trace draws only (size, requested, run) triples of the log, and
// keeps the log's mean run time exactly on this two-valued log, where the
// class readings do not. An unknown reading is refused.
func TestGenerateValues(t *testing.T) {
	trace := synthTrace(5000)
	// a run time spread inside its class, so the readings differ
	for i := range trace {
		if trace[i].Size == 1 {
			trace[i].Run, trace[i].Request, trace[i].Estimate = 30000, 60000, 60000
		}
	}
	logged := map[[3]float64]bool{}
	for _, j := range trace {
		logged[[3]float64{float64(j.Size), j.Request, j.Run}] = true
	}
	m := Fit(trace)
	base := m.Generate(5000, 5)
	for _, c := range []struct {
		values     string
		onlyLogged bool
	}{
		{BinValuesLogUniform, false}, {BinValuesUniform, false}, {BinValuesTrace, true},
	} {
		gen, err := m.GenerateValues(5000, 5, c.values)
		if err != nil {
			t.Fatalf("%s: %v", c.values, err)
		}
		for i, j := range gen {
			if j.Submit != base[i].Submit || j.Size != base[i].Size {
				t.Fatalf("%s job %d: arrival or size differs from Generate's", c.values, i)
			}
			// the same class as Generate's run, up to rounding to whole seconds
			if r := j.Run / base[i].Run; (r < 0.5 || r > 2) && c.values != BinValuesTrace {
				t.Fatalf("%s job %d: run %v outside the class of %v", c.values, i, j.Run, base[i].Run)
			}
			if j.Run > j.Request || j.Run < 1 {
				t.Fatalf("%s job %d: run %v, request %v", c.values, i, j.Run, j.Request)
			}
			if c.onlyLogged && !logged[[3]float64{float64(j.Size), j.Request, j.Run}] {
				t.Fatalf("%s job %d: (%d, %v, %v) is not a job of the log", c.values, i, j.Size, j.Request, j.Run)
			}
		}
		if c.values == BinValuesLogUniform && !slices.Equal(gen, base) {
			t.Errorf("loguniform differs from Generate")
		}
	}
	if _, err := m.GenerateValues(10, 5, "normal"); err == nil {
		t.Error("unknown bin values accepted")
	}
}
