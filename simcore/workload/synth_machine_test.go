package workload

import (
	"math"
	"slices"
	"strings"
	"testing"

	"schedfarm/simcore/rng"
)

// machineTrace is a small log of a 128-node machine: sizes 1, 16, 64 and
// 128 nodes (40, 30, 20 and 10 %), run times log-uniform over 10 s–1 day,
// requests up to 4× the run time, Weibull gaps.
func machineTrace(n int) []Job {
	r := rng.New(5).Stream("machine trace")
	sizes := []int{1, 1, 1, 1, 16, 16, 16, 64, 64, 128}
	jobs := make([]Job, n)
	t := 0.0
	for i := range jobs {
		t += math.Round(r.Weibull(0.7, 300))
		run := math.Round(r.LogUniform(10, 86400))
		req := math.Round(run * r.Uniform(1, 4))
		jobs[i] = Job{ID: int64(i + 1), Submit: t, Size: sizes[r.IntN(len(sizes))], Run: run, Estimate: req, Request: req}
	}
	return jobs
}

// TestGenerateSyntheticStatistics: a synthetic log for a machine 8 times
// larger keeps the source's statistics: the share of each size as a
// fraction of the machine (within 0.015), the share of each power-of-two
// run-time class (within 0.015), the fitted Weibull mean gap when drawn as
// is (within 5 %), and, scaled to a load, that offered load (within
// 0.5 %) with the gaps' coefficient of variation unchanged (within 2 %).
// Every job is valid: 1 <= size <= M, run <= estimate, sorted submits.
func TestGenerateSyntheticStatistics(t *testing.T) {
	const src, dst, n = 128, 1024, 40000
	log := machineTrace(8000)
	m := Fit(log)
	frac := func(jobs []Job, nodes int) map[float64]float64 {
		h := map[float64]float64{}
		for _, j := range jobs {
			h[float64(j.Size)/float64(nodes)] += 1 / float64(len(jobs))
		}
		return h
	}
	runClass := func(jobs []Job) map[int]float64 {
		h := map[int]float64{}
		for _, j := range jobs {
			h[class(j.Run)] += 1 / float64(len(jobs))
		}
		return h
	}
	asDrawn, err := m.GenerateSynthetic(n, 9, Synthetic{Gen: GenOptions{Values: BinValuesLogUniform}, SourceNodes: src, Nodes: dst, Sizes: SizesFraction})
	if err != nil {
		t.Fatal(err)
	}
	const load = 0.8
	scaled, err := m.GenerateSynthetic(n, 9, Synthetic{Gen: GenOptions{Values: BinValuesLogUniform}, SourceNodes: src, Nodes: dst, Sizes: SizesFraction, Load: load})
	if err != nil {
		t.Fatal(err)
	}
	for name, gen := range map[string][]Job{"as drawn": asDrawn, "scaled": scaled} {
		for i, j := range gen {
			if j.Size < 1 || j.Size > dst || j.Run > j.Estimate || j.Run < 1 || (i > 0 && j.Submit < gen[i-1].Submit) {
				t.Fatalf("%s: job %d invalid: %+v", name, i, j)
			}
		}
		want, got := frac(log, src), frac(gen, dst)
		for f, w := range want {
			if math.Abs(got[f]-w) > 0.015 {
				t.Errorf("%s: share of jobs of %.4g of the machine %.3f, source %.3f", name, f, got[f], w)
			}
		}
		if len(got) != len(want) {
			t.Errorf("%s: fractions %v, source %v", name, got, want)
		}
		wantRun, gotRun := runClass(log), runClass(gen)
		for c, w := range wantRun {
			if math.Abs(gotRun[c]-w) > 0.015 {
				t.Errorf("%s: share of run times in [2^%d, 2^%d) s %.3f, source %.3f", name, c, c+1, gotRun[c], w)
			}
		}
	}
	mean := Span(asDrawn) / float64(n-1)
	if want := m.Scale * math.Gamma(1+1/m.Shape); math.Abs(mean/want-1) > 0.05 {
		t.Errorf("as drawn: mean inter-arrival %.1f s, fitted Weibull mean %.1f s", mean, want)
	}
	if l := OfferedLoad(scaled, dst); math.Abs(l/load-1) > 0.005 {
		t.Errorf("scaled: offered load %.4f, want %v", l, load)
	}
	cv := func(jobs []Job) float64 {
		var s, s2 float64
		for i := 1; i < len(jobs); i++ {
			g := jobs[i].Submit - jobs[i-1].Submit
			s += g
			s2 += g * g
		}
		k := float64(len(jobs) - 1)
		mu := s / k
		return math.Sqrt(s2/k-mu*mu) / mu
	}
	if a, b := cv(asDrawn), cv(scaled); math.Abs(b/a-1) > 0.02 {
		t.Errorf("coefficient of variation of the gaps %.3f scaled, %.3f as drawn", b, a)
	}
}

// TestGenerateSyntheticDeterministic: a seed gives the same jobs twice,
// another seed other jobs; the arrivals and bins are GenerateWith's, the
// sizes mapped (identity when the machines are equal).
func TestGenerateSyntheticDeterministic(t *testing.T) {
	m := Fit(machineTrace(3000))
	o := Synthetic{Gen: GenOptions{Values: BinValuesTrace}, SourceNodes: 128, Nodes: 100000, Sizes: SizesFraction, Load: 0.7}
	a, err := m.GenerateSynthetic(5000, 3, o)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := m.GenerateSynthetic(5000, 3, o)
	c, _ := m.GenerateSynthetic(5000, 4, o)
	if !slices.Equal(a, b) {
		t.Fatal("same seed, different jobs")
	}
	if slices.Equal(a, c) {
		t.Fatal("different seeds, same jobs")
	}
	same, err := m.GenerateSynthetic(5000, 3, Synthetic{Gen: o.Gen, SourceNodes: 128, Nodes: 128, Sizes: SizesFraction})
	if err != nil {
		t.Fatal(err)
	}
	ref, _ := m.GenerateWith(5000, 3, o.Gen)
	if !slices.Equal(same, ref) {
		t.Fatal("same machine, no load: not GenerateWith's jobs")
	}
	for i := range a {
		if a[i].Run != ref[i].Run || a[i].Estimate != ref[i].Estimate || a[i].Size != (2*ref[i].Size*100000+128)/256 {
			t.Fatalf("job %d: %+v, from %+v", i, a[i], ref[i])
		}
	}
}

// TestGenerateSyntheticSizes: sizes nodes keeps the log's node counts
// (and refuses a machine narrower than its widest bin); fraction never
// maps a job below one node on a smaller machine; run_past_request keeps
// runs past the request; bad options are errors that say what to use.
func TestGenerateSyntheticSizes(t *testing.T) {
	m := Fit(machineTrace(3000))
	g := GenOptions{Values: BinValuesLogUniform}
	nodes, err := m.GenerateSynthetic(2000, 1, Synthetic{Gen: g, SourceNodes: 128, Nodes: 4096, Sizes: SizesNodes, Load: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	ref, _ := m.GenerateWith(2000, 1, g)
	for i := range nodes {
		if nodes[i].Size != ref[i].Size {
			t.Fatalf("sizes nodes: job %d of %d nodes, drawn %d", i, nodes[i].Size, ref[i].Size)
		}
	}
	if l := OfferedLoad(nodes, 4096); math.Abs(l/0.5-1) > 0.005 {
		t.Errorf("sizes nodes: offered load %.4f, want 0.5", l)
	}
	small, err := m.GenerateSynthetic(2000, 1, Synthetic{Gen: g, SourceNodes: 128, Nodes: 8, Sizes: SizesFraction})
	if err != nil {
		t.Fatal(err)
	}
	for i, j := range small {
		if want := max(1, (2*ref[i].Size*8+128)/256); j.Size != want {
			t.Fatalf("8 nodes: job %d of %d nodes, want %d", i, j.Size, want)
		}
	}
	past, err := m.GenerateSynthetic(2000, 1, Synthetic{Gen: GenOptions{Values: BinValuesLogUniform, RunPastRequest: true}, SourceNodes: 128, Nodes: 256, Sizes: SizesFraction})
	if err != nil {
		t.Fatal(err)
	}
	over := 0
	for _, j := range past {
		if j.Run > j.Estimate {
			over++
		}
	}
	if over == 0 {
		t.Error("run_past_request: no run past its request")
	}
	for _, c := range []struct {
		o    Synthetic
		want string
	}{
		{Synthetic{Gen: g, SourceNodes: 128, Nodes: 64, Sizes: SizesNodes}, "wider than the target"},
		{Synthetic{Gen: g, SourceNodes: 128, Nodes: 64, Sizes: "cores"}, "unknown sizes"},
		{Synthetic{Gen: g, SourceNodes: 0, Nodes: 64, Sizes: SizesFraction}, "want both > 0"},
		{Synthetic{Gen: g, SourceNodes: 128, Nodes: 64, Sizes: SizesFraction, Load: -1}, "want >= 0"},
		{Synthetic{Gen: GenOptions{Values: "normal"}, SourceNodes: 128, Nodes: 64, Sizes: SizesFraction}, "unknown bin values"},
	} {
		if _, err := m.GenerateSynthetic(10, 1, c.o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one containing %q", c.o, err, c.want)
		}
	}
}

// TestMachineSize: MaxProcs, else MaxNodes, else unknown.
func TestMachineSize(t *testing.T) {
	for _, c := range []struct {
		h    Header
		want int
	}{{Header{MaxProcs: 93312, MaxNodes: 5544}, 93312}, {Header{MaxNodes: 338}, 338}, {Header{}, 0}} {
		if got := MachineSize(c.h); got != c.want {
			t.Errorf("MachineSize(%+v) = %d, want %d", c.h, got, c.want)
		}
	}
}
