package results

import (
	"math"
	"testing"
)

// TestDescribeHugeValues: finite data whose sums or differences overflow
// float64 (values of ±1e308) get finite statistics: no +Inf median, mean
// or standard deviation of finite values.
func TestDescribeHugeValues(t *testing.T) {
	for _, xs := range [][]float64{
		{1e308, 1.5e308, 1.7e308},
		{-1e308, 1e308, 1.5e308, -1.7e308},
		{1e308, 1e308},
	} {
		s := Describe(append([]float64(nil), xs...))
		for name, v := range map[string]float64{"mean": s.Mean, "std": s.Std, "median": s.Median, "q1": s.Q1, "q3": s.Q3} {
			if math.IsInf(v, 0) || math.IsNaN(v) {
				t.Errorf("%v: %s = %g, want finite", xs, name, v)
			}
		}
		if s.Median < s.Min || s.Median > s.Max || s.Q1 > s.Median || s.Median > s.Q3 {
			t.Errorf("%v: quantiles out of order: %+v", xs, s)
		}
	}
	s := Describe([]float64{1e308, 1.5e308, 1.7e308})
	if want := 1.4e308; math.Abs(s.Mean-want) > 1e294 {
		t.Errorf("mean %g, want %g", s.Mean, want)
	}
	if want := 3.605551275463989e307; math.Abs(s.Std-want) > 1e294 {
		t.Errorf("std %g, want %g", s.Std, want)
	}
	if math.IsInf(s.CI95, 0) {
		t.Errorf("ci95 %g, want finite (t·std/√n is below the largest float64)", s.CI95)
	}
	// Ordinary values keep the plain formulas, bit for bit.
	o := Describe([]float64{1, 2, 4, 8})
	if o.Mean != 15.0/4 || o.Median != 2+0.5*(4-2) || o.Q1 != 1+0.75*(2-1) {
		t.Errorf("ordinary values: %+v", o)
	}
}
