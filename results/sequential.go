package results

import "math"

// Sequential decisions.
//
// A claim decided sequentially is
// decided on an anytime-valid confidence sequence instead of a fixed-n 95%
// interval: a sequence of intervals CS_n for the mean difference such that,
// whatever the true mean μ, P(μ ∉ CS_n for some n ≥ 1) ≤ α. A verdict read
// from it stays valid however the number of replicates was chosen, by a
// person raising replicates: until a claim is decided, or by a coordinator
// adding rounds: optional stopping does not inflate the error rate as it
// does for repeated t-tests.
//
// The sequence is the two-sided normal-mixture boundary of Robbins, in the
// form of Howard, Ramdas, McAuliffe and Sekhon, "Time-uniform, nonparametric,
// nonasymptotic confidence sequences" (Ann. Statist. 2021, eq. 14), with
// the variance estimated from the data as in Waudby-Smith, Arnold, Wu and
// Ramdas, "Time-uniform central limit theory and asymptotic confidence
// sequences" (2021, Thm 2.2):
//
//	mean ± s · sqrt( 2(nρ²+1)/(n²ρ²) · log( sqrt(nρ²+1)/α ) )
//
// where s is the sample standard deviation. ρ is fixed in advance, never
// from the data: it makes the sequence tightest at n = seqTuneN replicates
// (Waudby-Smith et al., eq. 2.5). The guarantee is exact for Gaussian
// differences with a known variance and asymptotic otherwise; the test
// TestSequentialFalsePassRate measures the error rate by simulation
// (10,000 null comparisons looked at after rounds of 10, 20, 40, … 400
// replicates, stopped at the first decision). Skewed differences need
// enough replicates for the variance estimate: decisions start at
// seqMinN = 20 (with 5, a skewness of 2 gave a false-pass rate of 0.08 at
// α = 0.05). Measured false-pass rates at α = 0.05: Gaussian 0.007,
// skewness 1 0.019, skewness 2 0.042; at α = 0.01: 0.002, 0.006, and 0.022
// for skewness 2, the one case above its α: a claim on strongly skewed
// differences should not declare an α below 0.05.

// seqTuneN is the replicate count at which the confidence sequence is
// tightest. It is a constant of the method, declared before any data.
const seqTuneN = 10

// seqMinN is the fewest replicates a sequential decision uses: below it
// the variance estimate is too rough for the asymptotic sequence, and the
// claim stays undecided.
const seqMinN = 20

// DefaultAlpha is a claim's error rate when it declares none: today's 95%
// intervals.
const DefaultAlpha = 0.05

// csHalfWidth returns the half-width of the two-sided (1−α) anytime-valid
// confidence sequence for a mean at n observations with sample standard
// deviation s; +Inf when n < seqMinN or s is undefined.
func csHalfWidth(n int, s, alpha float64) float64 {
	if n < seqMinN || math.IsNaN(s) || math.IsInf(s, 0) {
		return math.Inf(1)
	}
	la := -2 * math.Log(alpha)
	rho2 := (la + math.Log(la+1)) / seqTuneN
	nf := float64(n)
	v := nf*rho2 + 1
	return s * math.Sqrt(2*v/(nf*nf*rho2)*math.Log(math.Sqrt(v)/alpha))
}

// seqDiff is a sequential estimate of a claimed difference (negative
// supports the claim): its mean, the confidence sequence's half-width, and
// the number of replicates.
type seqDiff struct {
	mean, half float64
	n          int
}

// seqOf builds the sequential estimate of n differences of mean m and
// sample standard deviation s at level α.
func seqOf(m, s float64, n int, alpha float64) seqDiff {
	return seqDiff{m, csHalfWidth(n, s, alpha), n}
}

// decide reads a verdict from the confidence sequence: pass when it lies
// below 0, fail when it lies above 0, and, with a margin m > 0, fail as
// equivalent when it lies within (−m, m) (no difference as large as the
// paper's precision: the claimed difference is not there). Otherwise the
// claim is undecided. equiv reports the equivalence case.
func (d seqDiff) decide(margin float64) (v Verdict, equiv bool) {
	lo, hi := d.mean-d.half, d.mean+d.half
	switch {
	case hi < 0:
		return Pass, false
	case lo > 0:
		return Fail, false
	case margin > 0 && lo > -margin && hi < margin:
		return Fail, true
	}
	return Inconclusive, false
}

// est is the sequence as a value with its half-width, for the numbers.
func (d seqDiff) est() est { return est{d.mean, d.half, true} }
