package results

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// Stats are the summary statistics of one metric at one point. Undefined
// values are NaN (written as null): all of them when N is 0, Std and CI95
// when N is 1.
type Stats struct {
	N int
	// Mean is the arithmetic mean, summed in job-index order.
	Mean float64
	// Std is the sample standard deviation (divisor n−1).
	Std float64
	// CI95 is the half-width of the 95% confidence interval of the mean:
	// t(0.975, n−1)·Std/√n, with Student's t quantile.
	CI95 float64
	// Median, Q1 and Q3 are the 0.5, 0.25 and 0.75 quantiles by linear
	// interpolation between order statistics (Hyndman–Fan type 7, the
	// default of numpy.quantile, pandas and R).
	Median, Q1, Q3 float64
	Min, Max       float64
}

// Describe computes the summary statistics of xs. It sorts xs in place.
func Describe(xs []float64) Stats { return DescribeWith(xs, TQuantile975) }

// DescribeWith is Describe with a given t-quantile function (the collector
// caches the quantiles by degrees of freedom).
func DescribeWith(xs []float64, t975 func(dof int) float64) Stats {
	n := len(xs)
	nan := math.NaN()
	s := Stats{N: n, Mean: nan, Std: nan, CI95: nan, Median: nan, Q1: nan, Q3: nan, Min: nan, Max: nan}
	if n == 0 {
		return s
	}
	var sum float64
	for _, x := range xs {
		sum += x
	}
	s.Mean = sum / float64(n)
	if math.IsInf(s.Mean, 0) {
		s.Mean = scaledMean(xs) // the sum overflowed, not the data
	}
	if n >= 2 {
		var ss float64
		for _, x := range xs {
			d := x - s.Mean
			ss += d * d
		}
		s.Std = math.Sqrt(ss / float64(n-1))
		if math.IsInf(s.Std, 0) && !math.IsInf(s.Mean, 0) && !math.IsNaN(s.Mean) {
			s.Std = scaledStd(xs, s.Mean) // the squares overflowed, not the spread
		}
		s.CI95 = t975(n-1) * s.Std / math.Sqrt(float64(n))
	}
	slices.Sort(xs)
	s.Min, s.Max = xs[0], xs[n-1]
	s.Q1, s.Median, s.Q3 = Quantile7(xs, 0.25), Quantile7(xs, 0.5), Quantile7(xs, 0.75)
	return s
}

// TQuantile975 returns the 0.975 quantile of Student's t distribution with
// dof degrees of freedom (gonum's distuv.StudentsT).
func TQuantile975(dof int) float64 {
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(dof)}.Quantile(0.975)
}

// Quantile7 returns the p-quantile of sorted (ascending, non-empty) xs by
// linear interpolation: h = (n−1)p, x[⌊h⌋] + (h−⌊h⌋)(x[⌊h⌋+1] − x[⌊h⌋]).
func Quantile7(sorted []float64, p float64) float64 {
	h := float64(len(sorted)-1) * p
	lo := math.Floor(h)
	i := int(lo)
	if i+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	q := sorted[i] + (h-lo)*(sorted[i+1]-sorted[i])
	if math.IsInf(q, 0) && !math.IsInf(sorted[i], 0) && !math.IsInf(sorted[i+1], 0) {
		// The difference of two finite values overflowed (±1e308): the
		// convex combination of the two cannot.
		f := h - lo
		q = sorted[i]*(1-f) + sorted[i+1]*f
	}
	return q
}

// scaledMean is the mean of finite values whose sum overflows: each value
// divided by n before it is added (only called then, so that every other
// mean is the plain sum / n, bit for bit).
func scaledMean(xs []float64) float64 {
	n := float64(len(xs))
	var m float64
	for _, x := range xs {
		m += x / n
	}
	return m
}

// scaledStd is the sample standard deviation of values whose squared
// deviations overflow: the deviations divided by the largest of them.
func scaledStd(xs []float64, mean float64) float64 {
	var big float64
	for _, x := range xs {
		big = max(big, math.Abs(x/2-mean/2))
	}
	if big == 0 || math.IsInf(big, 0) || math.IsNaN(big) {
		return math.Inf(1)
	}
	var ss float64
	for _, x := range xs {
		d := (x/2 - mean/2) / big
		ss += d * d
	}
	return 2 * big * math.Sqrt(ss/float64(len(xs)-1))
}

// Values returns the statistics in the order of the summary's columns
// (SummaryStats: mean, std, ci95, median, q1, q3, min, max).
func (s *Stats) Values() [8]float64 {
	return [8]float64{s.Mean, s.Std, s.CI95, s.Median, s.Q1, s.Q3, s.Min, s.Max}
}
