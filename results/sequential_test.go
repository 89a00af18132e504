package results

import (
	"math"
	"math/rand/v2"
	"testing"
)

// seqRounds are the looks of the simulated design: a first round of 10
// replicates, doubled each round up to a cap of 400 (the adaptive-replicate
// schedule of a sweep with replicates: {min: 10, max: 400}).
var seqRounds = []int{10, 20, 40, 80, 160, 320, 400}

// seqRun draws differences one at a time and decides at every look of
// seqRounds, stopping at the first decision (optional stopping). It returns
// the verdict and whether it was an equivalence.
func seqRun(draw func() float64, alpha, margin float64) (Verdict, bool) {
	var n int
	var mean, m2 float64 // Welford
	look := 0
	for look < len(seqRounds) {
		x := draw()
		n++
		d := x - mean
		mean += d / float64(n)
		m2 += d * (x - mean)
		if n < seqRounds[look] {
			continue
		}
		look++
		if v, eq := seqOf(mean, math.Sqrt(m2/float64(n-1)), n, alpha).decide(margin); v != Inconclusive {
			return v, eq
		}
	}
	return Inconclusive, false
}

// seqDists are the null distributions of the simulated differences, all of
// mean 0 and variance 1: Gaussian and skewed both ways (centred
// exponentials), the shapes of makespan and stretch differences.
// skew is the distribution's skewness.
var seqDists = []struct {
	name string
	skew float64
	draw func(r *rand.Rand) float64
}{
	{"gaussian", 0, func(r *rand.Rand) float64 { return r.NormFloat64() }},
	{"exp-right-skew", 2, func(r *rand.Rand) float64 { return r.ExpFloat64() - 1 }},
	{"exp-left-skew", -2, func(r *rand.Rand) float64 { return 1 - r.ExpFloat64() }},
	{"gamma4-right-skew", 1, func(r *rand.Rand) float64 {
		return (r.ExpFloat64() + r.ExpFloat64() + r.ExpFloat64() + r.ExpFloat64() - 4) / 2
	}},
}

// TestSequentialFalsePassRate simulates 10,000 null comparisons per
// distribution and level, each looked at after every round of the
// doubling schedule and stopped at its first decision, and requires the
// false-pass rate (a pass when the true difference is 0), and the
// two-sided error rate, to stay at or below the declared α. The sequence
// is asymptotic: at α = 0.01 a skewness of 2 (centred exponential) gives
// about 0.022 (measured, logged, not asserted: see sequential.go); every
// other case is asserted. It also checks, with a margin, that a true
// difference exactly at the margin is declared equivalent at most α of the
// time, and that a real difference is found (the test can fail both ways).
func TestSequentialFalsePassRate(t *testing.T) {
	const sims = 10000
	for _, alpha := range []float64{0.05, 0.01} {
		for di, dist := range seqDists {
			r := rand.New(rand.NewPCG(2026, uint64(di)*100+uint64(alpha*1000)))
			draw := func() float64 { return dist.draw(r) }
			var pass, fail int
			for range sims {
				switch v, _ := seqRun(draw, alpha, 0); v {
				case Pass:
					pass++
				case Fail:
					fail++
				}
			}
			rate := float64(pass) / sims
			asserted := alpha >= 0.05 || math.Abs(dist.skew) <= 1
			t.Logf("α=%g %s: null: false pass %.4f, false fail %.4f (any error %.4f)", alpha, dist.name, rate, float64(fail)/sims, float64(pass+fail)/sims)
			if asserted && rate > alpha {
				t.Errorf("α=%g %s: false-pass rate %.4f > α under optional stopping", alpha, dist.name, rate)
			}
			if both := float64(pass+fail) / sims; asserted && both > alpha {
				t.Errorf("α=%g %s: two-sided error rate %.4f > α under optional stopping", alpha, dist.name, both)
			}

			// A true difference of exactly the margin: "equivalent" would be wrong.
			const margin = 0.25
			var equiv int
			drawAt := func() float64 { return margin + dist.draw(r) }
			for range sims {
				if _, eq := seqRun(drawAt, alpha, margin); eq {
					equiv++
				}
			}
			t.Logf("α=%g %s: difference at the margin %g: false equivalence %.4f", alpha, dist.name, margin, float64(equiv)/sims)
			if rate := float64(equiv) / sims; rate > alpha {
				t.Errorf("α=%g %s: false-equivalence rate %.4f > α", alpha, dist.name, rate)
			}
		}
	}
}

// TestSequentialDecides checks the power side: a true difference of −0.3σ
// passes, +0.3σ fails, and a true 0 with a margin of 0.25σ is declared
// equivalent, nearly always by the cap of 400 replicates.
func TestSequentialDecides(t *testing.T) {
	const sims = 2000
	r := rand.New(rand.NewPCG(7, 11))
	cases := []struct {
		mu, margin float64
		want       Verdict
		equiv      bool
	}{{-0.3, 0, Pass, false}, {0.3, 0, Fail, false}, {0, 0.3, Fail, true}}
	for _, c := range cases {
		var hit int
		var nsum int
		for range sims {
			n := 0
			v, eq := seqRun(func() float64 { n++; return c.mu + r.NormFloat64() }, DefaultAlpha, c.margin)
			nsum += n
			if v == c.want && eq == c.equiv {
				hit++
			}
		}
		share := float64(hit) / sims
		t.Logf("μ=%g margin %g: decided %v (equivalent %v) in %.4f of runs, mean %d replicates", c.mu, c.margin, c.want, c.equiv, share, nsum/sims)
		if share < 0.95 {
			t.Errorf("μ=%g margin %g: decided %v in only %.4f of runs", c.mu, c.margin, c.want, share)
		}
	}
}

func TestCSHalfWidth(t *testing.T) {
	// Wider than the fixed-n 95% t interval (the price of looking at every
	// round), shrinking with n, +Inf below seqMinN.
	for _, n := range []int{10, 40, 400} {
		w, tw := csHalfWidth(n, 1, 0.05), TQuantile975(n-1)/math.Sqrt(float64(n))
		if w <= tw {
			t.Errorf("n=%d: CS half-width %g not wider than the t interval's %g", n, w, tw)
		}
		if w2 := csHalfWidth(2*n, 1, 0.05); w2 >= w {
			t.Errorf("n=%d: half-width does not shrink: %g → %g", n, w, w2)
		}
		t.Logf("n=%d: CS half-width %.4f σ, fixed-n t interval %.4f σ (ratio %.2f)", n, w, tw, w/tw)
	}
	if w := csHalfWidth(seqMinN-1, 1, 0.05); !math.IsInf(w, 1) {
		t.Errorf("below seqMinN: half-width %g, want +Inf", w)
	}
}
