package stretch

import (
	"fmt"
	"math"

	"schedfarm/simcore/rng"
)

// SeqWorkload parameterises the sequential instances of saule2012 §4.1:
// N tasks with sizes uniform on [A, A·Delta] and exponential inter-arrival
// times whose mean makes the expected load equal Load.
type SeqWorkload struct {
	N     int
	A     float64 // smallest possible size a
	Delta float64 // b/a
	Load  float64 // target load (expected Σp / (max r − min r))
	// LoadHi > Load draws the target load of each instance uniformly in
	// [Load, LoadHi] (a band of instances, like the paper's "load > 270").
	LoadHi float64
	// LoadMid in (Load, LoadHi) splits the band in two: the target is drawn
	// uniformly in [LoadMid, LoadHi] with probability ShareHi, else in
	// [Load, LoadMid] (saule2012 §4.2 counts its instances above 270 and
	// above 290; 0 keeps one uniform band).
	LoadMid, ShareHi float64
	// Exact rescales the release times so that the instance's realised load
	// Σp/(max r − min r) equals its target exactly: the gaps stay
	// exponential, with the rate scaled by the realised ratio. The paper
	// selects instances by their load (Table 1(b): "load > 270"); with
	// Exact a band of target loads is that selection.
	Exact bool
}

// Generate draws one instance. The expected load is E[p]/E[gap] with
// E[p] = (a+b)/2, so the mean gap is (a+b)/(2·load); the load the instance
// actually has is Load(tasks), which the paper plots (§4, Fig. 1).
func (w SeqWorkload) Generate(seed uint64) ([]Task, float64, error) {
	if w.N < 2 {
		return nil, 0, fmt.Errorf("stretch: n_tasks = %d; need at least 2 to define a load", w.N)
	}
	if !(w.A > 0) || !(w.Delta >= 1) || !(w.Load > 0) {
		return nil, 0, fmt.Errorf("stretch: size_min %v, delta %v, load %v: need size_min > 0, delta >= 1, load > 0", w.A, w.Delta, w.Load)
	}
	st := rng.New(seed)
	load := w.Load
	switch {
	case w.LoadHi > w.Load && w.LoadMid > w.Load && w.LoadMid < w.LoadHi:
		if !(w.ShareHi >= 0 && w.ShareHi <= 1) {
			return nil, 0, fmt.Errorf("stretch: load_share_hi %v: want a share in [0, 1]", w.ShareHi)
		}
		lo, hi := w.Load, w.LoadMid
		if st.Stream("load-band").Float64() < w.ShareHi {
			lo, hi = w.LoadMid, w.LoadHi
		}
		load = st.Stream("load").Uniform(lo, hi)
	case w.LoadMid != 0 && w.LoadHi > w.Load:
		return nil, 0, fmt.Errorf("stretch: load_mid %v outside (load, load_hi) = (%v, %v); 0 for one band", w.LoadMid, w.Load, w.LoadHi)
	case w.LoadHi > w.Load:
		load = st.Stream("load").Uniform(w.Load, w.LoadHi)
	}
	sizes, gaps := st.Stream("sizes"), st.Stream("arrivals")
	b := w.A * w.Delta
	meanGap := (w.A + b) / (2 * load)
	tasks := make([]Task, w.N)
	r := 0.0
	for i := range tasks {
		if i > 0 {
			r += gaps.Exp(meanGap)
		}
		tasks[i] = Task{Release: r, Size: sizes.Uniform(w.A, b)}
	}
	if w.Exact {
		sum := 0.0
		for _, t := range tasks {
			sum += t.Size
		}
		c := sum / (load * r) // r = max r − min r
		for i := range tasks {
			tasks[i].Release *= c
		}
	}
	return tasks, load, nil
}

// Load is the load of §4: Σ p_i / (max r_i − min r_i).
func Load(tasks []Task) float64 {
	if len(tasks) < 2 {
		return math.NaN()
	}
	lo, hi, sum := math.Inf(1), math.Inf(-1), 0.0
	for _, t := range tasks {
		lo, hi, sum = math.Min(lo, t.Release), math.Max(hi, t.Release), sum+t.Size
	}
	return sum / (hi - lo)
}

// Stats are the objectives of a schedule (§2.1): stretch (C − r)/p_ref and
// flow time C − r.
type Stats struct {
	MaxStretch, MeanStretch, MaxFlow, MeanFlow float64
}

// Measure computes Stats from releases, reference sizes (p_i for
// sequential tasks, p_{i,1} for moldable ones) and completions.
func Measure(release, ref, end []float64) Stats {
	var s Stats
	for i := range release {
		f := end[i] - release[i]
		st := f / ref[i]
		s.MaxStretch = math.Max(s.MaxStretch, st)
		s.MaxFlow = math.Max(s.MaxFlow, f)
		s.MeanStretch += st
		s.MeanFlow += f
	}
	if n := float64(len(release)); n > 0 {
		s.MeanStretch /= n
		s.MeanFlow /= n
	}
	return s
}

// SizeClasses are the bins of the fairness study (saule2012 Fig. 3(e)):
// sequential times in seconds, minutes, hours, days and weeks.
var SizeClasses = []struct {
	Metric string
	Upper  float64 // exclusive upper bound (s)
}{
	{"stretched_seconds", 60}, {"stretched_minutes", 3600}, {"stretched_hours", 86400},
	{"stretched_days", 7 * 86400}, {"stretched_weeks", math.Inf(1)},
}

// Fairness returns, per size class, the percentage of its tasks whose
// stretch exceeds 1 (0 for an empty class), keyed by metric name.
func Fairness(release, ref, end []float64) map[string]float64 {
	over := make([]int, len(SizeClasses))
	all := make([]int, len(SizeClasses))
	for i := range release {
		c := 0
		for ref[i] >= SizeClasses[c].Upper {
			c++
		}
		all[c]++
		if (end[i]-release[i])/ref[i] > 1+1e-9 {
			over[c]++
		}
	}
	out := make(map[string]float64, len(SizeClasses))
	for c, sc := range SizeClasses {
		out[sc.Metric] = 0
		if all[c] > 0 {
			out[sc.Metric] = 100 * float64(over[c]) / float64(all[c])
		}
	}
	return out
}
