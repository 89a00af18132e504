package claims

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"schedfarm/results"
	"schedfarm/results/decl"
	"schedfarm/results/internal/runtest"
	"schedfarm/simcore"
	"schedfarm/simcore/bench"
	"schedfarm/sweep"
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
			v, eq := seqRun(func() float64 { n++; return c.mu + r.NormFloat64() }, decl.DefaultAlpha, c.margin)
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
		w, tw := csHalfWidth(n, 1, 0.05), results.TQuantile975(n-1)/math.Sqrt(float64(n))
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

// seqJobs builds a jobs frame of one point with reps paired replicates in
// which B's value is A's plus delta plus a jitter of ±s alternating by
// replicate: the differences A − B have mean −delta (even reps) and
// standard deviation s·√(n/(n−1)), so the verdicts are known in advance.
func seqJobs(delta, s float64, reps int) *results.Frame {
	var size, rep []int64
	var seed []uint64
	var variant, status []string
	var value []float64
	for r := 0; r < reps; r++ {
		instance := float64((r*7)%13) * 5
		j := s
		if r%2 == 1 {
			j = -s
		}
		for _, v := range []struct {
			name string
			x    float64
		}{{"A", 100 + instance}, {"B", 100 + instance + delta + j}} {
			size, rep, seed = append(size, 1), append(rep, int64(r)), append(seed, uint64(r))
			variant, status, value = append(variant, v.name), append(status, results.StatusOK), append(value, v.x)
		}
	}
	return runtest.FrameOf(nil, "size", size, "variant", variant, "replicate", rep, "seed", seed, "status", status, "value", value)
}

func TestSequentialClaims(t *testing.T) {
	const paired = `compare: {metric: value, series: variant, a: A, b: B, paired: true`
	schema := bench.New().Schema()
	sum := claimSummary(cat(series("A", 3, 10), series("B", 3, 10.5)))
	cases := []struct {
		name, claim string
		jobs        *results.Frame
		want        Verdict
		detail      string
	}{
		// The fixed 95% interval passes at 40 replicates (half-width 0.32);
		// the confidence sequence (0.50) does not: the price of being valid
		// at every round.
		{"fixed/pass", paired + `}`, seqJobs(0.4, 1, 40), Pass, "paired difference over 40 replicates -0.4 ± 0.32"},
		{"seq/undecided", paired + `, alpha: 0.05}`, seqJobs(0.4, 1, 40), Inconclusive, "paired A−B over 40 replicates -0.4 ± 0.50"},
		{"seq/pass", paired + `, alpha: 0.05}`, seqJobs(0.6, 1, 40), Pass, "(anytime-valid 95% CS)"},
		{"seq/fail", paired + `, alpha: 0.05}`, seqJobs(-0.6, 1, 40), Fail, "paired A−B over 40 replicates 0.6 ± 0.50"},
		{"seq/alpha-0.05", paired + `, alpha: 0.05}`, seqJobs(0.55, 1, 40), Pass, "(anytime-valid 95% CS)"},
		{"seq/alpha-0.01", paired + `, alpha: 0.01}`, seqJobs(0.55, 1, 40), Inconclusive, "-0.55 ± 0.585 (anytime-valid 99% CS)"},
		{"seq/too-few", paired + `, alpha: 0.05}`, seqJobs(5, 1, 10), Inconclusive, "too few for a sequential decision (need 20)"},
		// A true 0: undecided forever without a margin, equivalent with one.
		{"seq/zero", paired + `, alpha: 0.05}`, seqJobs(0, 1, 400), Inconclusive, "400 replicates 0 ± 0.17"},
		{"seq/equivalent", paired + `, margin: 0.3}`, seqJobs(0, 1, 400), Fail, "equivalent: within ±0.3"},
		{"seq/pass-within-margin", paired + `, margin: 0.3}`, seqJobs(0.2, 1, 400), Pass, "-0.2 ± 0.17"},
		{"seq/higher", `compare: {metric: value, series: variant, a: B, b: A, op: higher, paired: true, alpha: 0.05}`, seqJobs(0.6, 1, 40), Pass, "paired A−B over 40"},
		{"seq/ratio", paired + `, ratio: 1.01, margin: 0.001}`, seqJobs(0.6, 1, 40), Pass, "paired A/B−1.01 over 40"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, err := runtest.Decls(t, "claims:\n  - {id: c, "+c.claim+"}\n")
			if err != nil {
				t.Fatal(err)
			}
			r := Evaluate(sum, c.jobs, &schema, d.Claims)[0]
			if r.Verdict != c.want || len(r.Points) != 1 || !strings.Contains(r.Points[0].Detail, c.detail) {
				t.Errorf("verdict %s (%s), want %s with detail %q", r.Verdict, r.Numbers, c.want, c.detail)
				for _, p := range r.Points {
					t.Logf("  %s: %s %s", p.Point, p.Verdict, p.Detail)
				}
			}
		})
	}

	// The claim's numbers say how it was decided.
	if d, err := runtest.Decls(t, "claims:\n  - {id: c, "+paired+", alpha: 0.01}}\n"); err != nil {
		t.Fatal(err)
	} else if r := Evaluate(sum, seqJobs(0.6, 1, 40), &schema, d.Claims)[0]; !strings.Contains(r.Numbers, "(paired, same instances, anytime-valid 99% CS) at 1/1 points") {
		t.Errorf("numbers %q do not name the sequence", r.Numbers)
	}

	// Unpaired: the means, standard deviations and replicate counts of the
	// summary; the difference of independent means has variance sA² + sB².
	unpaired := func(mb, sb float64, n int64) *results.Frame {
		return runtest.FrameOf(nil, "size", []int64{1, 1}, "variant", []string{"A", "B"}, "value_mean", []float64{10, mb},
			"value_ci95", []float64{0.1, 0.1}, "value_std", []float64{1, sb}, "n", []int64{n, n})
	}
	const cmp = `compare: {metric: value, series: variant, a: A, b: B`
	for _, c := range []struct {
		name, claim string
		sum         *results.Frame
		want        Verdict
		detail      string
	}{
		{"unpaired/fixed", cmp + `}`, unpaired(10.4, 1, 100), Pass, "A 10 ± 0.1 vs B 10.4 ± 0.1"},
		{"unpaired/undecided", cmp + `, alpha: 0.05}`, unpaired(10.4, 1, 100), Inconclusive, "A−B over 100 replicates -0.4 ± 0.458"},
		{"unpaired/pass", cmp + `, alpha: 0.05}`, unpaired(11, 1, 100), Pass, "(anytime-valid 95% CS)"},
		{"unpaired/equivalent", cmp + `, margin: 0.8}`, unpaired(10.05, 1, 100), Fail, "equivalent: within ±0.8"},
		{"unpaired/no-std", cmp + `, alpha: 0.05}`, unpaired(11, math.NaN(), 100), Inconclusive, "too few for a sequential decision"},
		{"unpaired/ratio-higher", cmp + `, op: higher, ratio: 0.5, alpha: 0.05}`, unpaired(10, 2, 100), Pass, "0.5×B−A over 100 replicates -5 ± 0.458"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, err := runtest.Decls(t, "claims:\n  - {id: c, "+c.claim+"}\n")
			if err != nil {
				t.Fatal(err)
			}
			r := Evaluate(c.sum, nil, &schema, d.Claims)[0]
			if r.Verdict != c.want || len(r.Points) != 1 || !strings.Contains(r.Points[0].Detail, c.detail) {
				t.Errorf("verdict %s (%s), want %s with detail %q", r.Verdict, r.Numbers, c.want, c.detail)
				for _, p := range r.Points {
					t.Logf("  %s: %s %s", p.Point, p.Verdict, p.Detail)
				}
			}
		})
	}

	for _, bad := range []struct{ claim, want string }{
		{paired + `, alpha: 0.7}`, "alpha must be in (0, 0.5)"},
		{paired + `, alpha: 0}`, "alpha must be in (0, 0.5)"},
		{paired + `, margin: -1}`, "margin must be a positive number"},
		{paired + `, margin: wide}`, "want a finite number"},
		{paired + `, over: mean, alpha: 0.05}`, "over: mean is not supported"},
		{paired + `, per_instance: true, margin: 1}`, "per_instance decides by dominance"},
		{`compare: {metric: value_median, series: variant, a: A, b: B, alpha: 0.05}`, "needs a metric of the model"},
	} {
		if _, err := runtest.Decls(t, "claims:\n  - {id: c, "+bad.claim+"}\n"); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: err = %v, want %q", bad.claim, err, bad.want)
		}
	}
}

// TestRoundPoints: the points a round of adaptive replicates extends are
// those the undecided claims read at their undecided points (groups), a
// compare claim's two series only; decided claims and over: mean claims
// extend nothing.
func TestRoundPoints(t *testing.T) {
	reg, err := simcore.NewRegistry(bench.New())
	if err != nil {
		t.Fatal(err)
	}
	text := "name: t\nmodel: bench\nseed: 1\nreplicates: {min: 20, max: 80}\naxes:\n  - name: size\n    values: [1, 2, 4]\n  - name: variant\n    values: [EDF-DLT, FIFO-DLT, OPR-MN]\n" +
		"claims:\n" +
		"  - {id: grows, monotone: {metric: value, in: size, direction: increasing, series: variant}}\n" +
		"  - {id: edf-below-fifo, compare: {metric: value, series: variant, a: EDF-DLT, b: FIFO-DLT, op: lower, over: every_point}}\n" +
		"  - {id: fifo-below-opr-at-4, compare: {metric: value, series: variant, a: FIFO-DLT, b: OPR-MN, op: lower, over: every_point, where: {size: [4]}}}\n" +
		"  - {id: opr-at-4, published: {metric: value, where: {size: 4, variant: OPR-MN}, value: 12, tol: 1}}\n" +
		"  - {id: mean-claim, share_quote: \"on average\", compare: {metric: value, series: variant, a: FIFO-DLT, b: OPR-MN, op: lower, over: mean}}\n"
	f, err := sweep.Parse("t.yaml", []byte(text), reg)
	if err != nil {
		t.Fatal(err)
	}
	d, err := decl.Parse(f.Sweeps[0])
	if err != nil {
		t.Fatal(err)
	}
	// The summary: every point at 20 replicates but (4, OPR-MN) at 10,
	// below the fewest a sequence decides on.
	sum := runtest.FixedSummary()
	var n []int64
	sizes, variants := sum.Col("size").([]int64), sum.Col("variant").([]string)
	for r := range sizes {
		if sizes[r] == 4 && variants[r] == "OPR-MN" {
			n = append(n, 10)
		} else {
			n = append(n, 20)
		}
	}
	sum.Names, sum.Types = append(sum.Names, results.ColN), append(sum.Types, results.Int64)
	sum.Cols, sum.Nulls = append(sum.Cols, n), append(sum.Nulls, nil)
	jobs := runtest.FixedJobs()
	var ids []string
	js, jv, jr := jobs.Col("size").([]int64), jobs.Col("variant").([]string), jobs.Col("replicate").([]int64)
	for r := range js {
		ids = append(ids, fmt.Sprintf("%d/%s/%d", js[r], jv[r], jr[r]))
	}
	jobs.Names, jobs.Types = append(jobs.Names, results.ColJobID), append(jobs.Types, results.String)
	jobs.Cols, jobs.Nulls = append(jobs.Cols, ids), append(jobs.Nulls, nil)

	res := Evaluate(sum, jobs, f.Sweeps[0].Schema(), d.Claims)
	verdicts := map[string]Verdict{}
	for _, r := range res {
		verdicts[r.ID] = r.Verdict
	}
	want := map[string]Verdict{"grows": Inconclusive, "edf-below-fifo": Pass, "fifo-below-opr-at-4": Inconclusive, "opr-at-4": Inconclusive}
	for id, v := range want {
		if verdicts[id] != v {
			t.Errorf("%s: %s, want %s", id, verdicts[id], v)
		}
	}
	got := map[string]int{}
	for _, id := range RoundPoints(sum, jobs, f.Sweeps[0].Schema(), res) {
		size, rest, _ := strings.Cut(id, "/")
		variant, _, _ := strings.Cut(rest, "/")
		got[size+"/"+variant]++
	}
	// OPR-MN's monotone group at every size, and FIFO-DLT at size 4 (the
	// compare at size 4); all 20 replicates of each.
	wantPts := map[string]int{"1/OPR-MN": 20, "2/OPR-MN": 20, "4/OPR-MN": 20, "4/FIFO-DLT": 20}
	if fmt.Sprint(got) != fmt.Sprint(wantPts) {
		t.Errorf("round points %v, want %v", got, wantPts)
	}
}

// TestAverageOver: the design interval when every point has replicates;
// the interval over the points when one has none; a single point keeps
// its own.
func TestAverageOver(t *testing.T) {
	with := []est{{-1, 0, true, 0.1, 9}, {-3, 0, true, 0.1, 9}}
	m, how := averageOver(with)
	if want := results.TQuantile975(18) * math.Sqrt(0.02) / 2; m.m != -2 || math.Abs(m.ci-want) > 1e-12 || !strings.Contains(how, "replicates") {
		t.Errorf("design: %v %s, want -2 ± %g", m, how, want)
	}
	without := []est{{-1, 0, true, 0.1, 9}, {-3, 0, true, 0, 0}}
	m, how = averageOver(without)
	if m.m != -2 || m.ci <= 1 || how != "95% CI over 2 points" {
		t.Errorf("a point without replicates: %v %s, want the interval over the points", m, how)
	}
	m, _ = averageOver([]est{{-1, 0.3, true, 0, 0}})
	if m.m != -1 || m.ci != 0.3 {
		t.Errorf("one point: %v", m)
	}
}
