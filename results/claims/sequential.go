package claims

import (
	"fmt"
	"math"

	"schedfarm/results"
	"schedfarm/results/decl"
)

// Sequential decisions.
//
// A claim that declares alpha or margin (see Claim.Alpha, Claim.Margin) is
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
func (d seqDiff) est() est { return est{d.mean, d.half, true, 0, 0} }

// describeSeq renders a sequential decision's numbers for a point.
func describeSeq(what string, d seqDiff, alpha, margin float64, equiv bool) string {
	s := fmt.Sprintf("%s over %d replicates %s (anytime-valid %g%% CS)", what, d.n, d.est(), 100*(1-alpha))
	if math.IsInf(d.half, 1) {
		s = fmt.Sprintf("%s over %d replicates: mean %s, too few for a sequential decision (need %d)", what, d.n, g4(d.mean), seqMinN)
	}
	if equiv {
		s += fmt.Sprintf("; equivalent: within ±%g", margin)
	}
	return s
}

// valueFor is value for a claim: with Anytime, the interval is the
// anytime-valid confidence sequence of the point's mean at the claim's α
// (infinite below seqMinN replicates or without a standard deviation).
func (cf *claimFrame) valueFor(c *decl.Claim, r int) est {
	e := cf.value(c.Metric, r)
	if !e.ok || !c.Anytime {
		return e
	}
	n, okN := cf.f.CellFloat(cf.f.Index(results.ColN), r)
	s, okS := cf.f.CellFloat(cf.f.Index(c.Metric+"_std"), r)
	if !okN || !okS {
		e.ci = math.Inf(1)
		return e
	}
	e.ci = csHalfWidth(int(n), s, c.EffectiveAlpha())
	return e
}

// seqPoint decides one point of a sequential claim from its differences'
// estimate (the mean and the sequence's half-width) and writes its detail.
func seqPoint(c *decl.Claim, d est, n int, what string) PointResult {
	sd := seqDiff{d.m, d.ci, n}
	v, equiv := sd.decide(c.Margin)
	return PointResult{Verdict: v, Detail: describeSeq(what, sd, c.EffectiveAlpha(), c.Margin, equiv)}
}

// seqUnpaired returns the sequential estimate of the claimed difference
// between two summary rows (A − B, or B − A for "higher"; B scaled by the
// ratio): the difference of the means, with the confidence sequence of a
// difference of independent means, of variance s_A² + s_B², at the fewer
// of the two replicate counts.
func (cf *claimFrame) seqUnpaired(c *decl.Claim, ra, rb int) (seqDiff, bool) {
	f := cf.f
	mi, si, ni := f.Index(c.Metric+"_mean"), f.Index(c.Metric+"_std"), f.Index(results.ColN)
	ma, okA := f.CellFloat(mi, ra)
	mb, okB := f.CellFloat(mi, rb)
	na, okNA := f.CellFloat(ni, ra)
	nb, okNB := f.CellFloat(ni, rb)
	if !okA || !okB || !okNA || !okNB {
		return seqDiff{}, false
	}
	sa, ok := f.CellFloat(si, ra)
	if !ok {
		sa = math.NaN()
	}
	sb, ok := f.CellFloat(si, rb)
	if !ok {
		sb = math.NaN()
	}
	if c.Ratio > 0 {
		mb, sb = c.Ratio*mb, c.Ratio*sb
	}
	n := int(min(na, nb))
	return seqOf(claimSign(c)*(ma-mb), math.Hypot(sa, sb), n, c.EffectiveAlpha()), true
}

// seqSign names the claimed difference of a sequential claim: A−B (B−A for
// "higher"), or with a ratio A/B−ratio (ratio−A/B).
func seqSign(c *decl.Claim) string {
	a, b := c.SideLabel(true), c.SideLabel(false)
	if c.Ratio > 0 {
		a, b = c.SideLabel(true)+"/"+c.SideLabel(false), g4(c.Ratio)
	}
	if c.Op == "higher" {
		a, b = b, a
	}
	return a + "−" + b
}

// seqUnpairedPoint decides one unpaired point of a sequential claim; the
// detail is the means' and the sequence's.
func (cf *claimFrame) seqUnpairedPoint(c *decl.Claim, ra, rb int, means string) (Verdict, string) {
	sd, ok := cf.seqUnpaired(c, ra, rb)
	if !ok {
		return Inconclusive, means + "; no replicate count or mean for a sequential decision"
	}
	what := seqSign(c)
	if c.Ratio > 0 {
		what = c.SideLabel(true) + "−" + g4(c.Ratio) + "×" + c.SideLabel(false)
		if c.Op == "higher" {
			what = g4(c.Ratio) + "×" + c.SideLabel(false) + "−" + c.SideLabel(true)
		}
	}
	v, equiv := sd.decide(c.Margin)
	return v, means + "; " + describeSeq(what, sd, c.EffectiveAlpha(), c.Margin, equiv)
}
