package dssp

import (
	"fmt"
	"sort"
)

// TraceStats are the published facts of a trace (§1, §5; docs/models/dssp.md A1) as
// realised by a set of nights.
type TraceStats struct {
	Nights, Jobs, Tasks int
	// MedianTInf is the median critical path over all jobs, hours.
	MedianTInf float64
	// NightsLongJob counts nights with a job of T∞ > deadline.
	NightsLongJob int
	// NightsOver counts nights with Σ T1 ≥ P·D; NightsOver110 with ≥ 1.1·P·D.
	NightsOver, NightsOver110 int
	// MeanT1 is the mean job demand, CPU-hours; MedianDemand the median
	// nightly Σ T1.
	MeanT1, MedianDemand float64
}

// Stats computes the published facts of nights for p processors and a
// deadline in hours.
func Stats(nights []Night, p int, deadline float64) TraceStats {
	s := TraceStats{Nights: len(nights)}
	var tinf, demand []float64
	t1 := 0.0
	pd := float64(p) * deadline
	for n := range nights {
		long := false
		d := 0.0
		for j := range nights[n].Jobs {
			job := &nights[n].Jobs[j]
			s.Jobs++
			s.Tasks += job.NTasks()
			ti := job.TInf()
			tinf = append(tinf, ti)
			long = long || ti > deadline
			d += job.T1()
		}
		t1 += d
		demand = append(demand, d)
		if long {
			s.NightsLongJob++
		}
		if d >= pd {
			s.NightsOver++
		}
		if d >= 1.1*pd {
			s.NightsOver110++
		}
	}
	s.MedianTInf = median(tinf)
	s.MedianDemand = median(demand)
	if s.Jobs > 0 {
		s.MeanT1 = t1 / float64(s.Jobs)
	}
	return s
}

func median(x []float64) float64 {
	if len(x) == 0 {
		return 0
	}
	y := append([]float64(nil), x...)
	sort.Float64s(y)
	m := len(y) / 2
	if len(y)%2 == 1 {
		return y[m]
	}
	return (y[m-1] + y[m]) / 2
}

// String renders the stats beside the published values.
func (s TraceStats) String() string {
	return fmt.Sprintf("nights %d (paper 56), jobs %d (2,388), tasks %d (280,011), median T∞ %.2f h (3.4), "+
		"nights with a job T∞ > D %d (42 = 75%%), nights Σ T1 ≥ PD %d (32), ≥ 1.1·PD %d (18), mean T1 %.0f CPU-h, median nightly demand %.0f CPU-h",
		s.Nights, s.Jobs, s.Tasks, s.MedianTInf, s.NightsLongJob, s.NightsOver, s.NightsOver110, s.MeanT1, s.MedianDemand)
}
