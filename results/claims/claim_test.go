package claims

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"schedfarm/results"
	"schedfarm/results/internal/runtest"
	"schedfarm/simcore"
	"schedfarm/simcore/bench"
)

// pt is one summary point of a claim test: size, variant, mean, ci95.
type pt struct {
	size    int64
	variant string
	m, ci   float64
}

func claimSummary(pts []pt) *results.Frame {
	var size []int64
	var variant []string
	var mean, ci, median []float64
	for _, p := range pts {
		size, variant = append(size, p.size), append(variant, p.variant)
		mean, ci, median = append(mean, p.m), append(ci, p.ci), append(median, p.m)
	}
	return runtest.FrameOf(nil, "size", size, "variant", variant, "value_mean", mean, "value_ci95", ci, "value_median", median)
}

// series returns points size 1..len(ms) of one variant with a common ci.
func series(variant string, ci float64, ms ...float64) []pt {
	out := make([]pt, len(ms))
	for i, m := range ms {
		out[i] = pt{int64(i + 1), variant, m, ci}
	}
	return out
}

func cat(ps ...[]pt) []pt {
	var out []pt
	for _, p := range ps {
		out = append(out, p...)
	}
	return out
}

func TestEvaluateClaims(t *testing.T) {
	const cmpLower = `compare: {metric: value, series: variant, a: A, b: B}`
	cases := []struct {
		name  string
		claim string
		pts   []pt
		want  Verdict
		nums  string // a substring of the numbers
	}{
		// compare, every point
		{"lower/every/pass", cmpLower, cat(series("A", 0.1, 1, 2, 3), series("B", 0.1, 2, 3, 4)), Pass, "at 3/3 points"},
		{"lower/every/fail", cmpLower, cat(series("A", 0.1, 1, 5, 3), series("B", 0.1, 2, 3, 4)), Fail, "1 fail"},
		{"lower/every/inconclusive-overlap", cmpLower, cat(series("A", 0.6, 1, 2, 3), series("B", 0.6, 2, 3, 4)), Inconclusive, "3 overlapping CIs"},
		{"lower/every/one-overlap", cmpLower, cat(series("A", 0.1, 1, 2, 3.9), series("B", 0.1, 2, 3, 4)), Inconclusive, "at 2/3 points"},
		{"higher/every/pass", `compare: {metric: value, series: variant, a: B, b: A, op: higher}`, cat(series("A", 0.1, 1, 2, 3), series("B", 0.1, 2, 3, 4)), Pass, "B > A"},
		{"lower/no-ci-one-replicate", cmpLower, cat(series("A", math.NaN(), 1, 2), series("B", math.NaN(), 1.5, 2.5)), Pass, "2/2"},
		{"lower/unmatched", `compare: {metric: value, series: variant, a: A, b: C}`, cat(series("A", 0.1, 1), series("B", 0.1, 2)), Inconclusive, "no point has both"},
		{"lower/median-column", `compare: {metric: value_median, series: variant, a: A, b: B}`, cat(series("A", 5, 1, 2), series("B", 5, 1.5, 2.5)), Pass, "2/2"},
		// Equal statistics are exact: "strictly lower" fails; equal means
		// of one replicate (no interval) stay undecided.
		{"lower/median-column-tie", `compare: {metric: value_median, series: variant, a: A, b: B}`, cat(series("A", 5, 1, 2), series("B", 5, 1.5, 2)), Fail, "equal statistics"},
		{"lower/no-ci-one-replicate-tie", cmpLower, cat(series("A", math.NaN(), 1, 2), series("B", math.NaN(), 1.5, 2)), Inconclusive, "1 overlapping"},
		// compare, share
		{"share/pass", `compare: {metric: value, series: variant, a: A, b: B, over: "share >= 0.6"}`, cat(series("A", 0.1, 1, 2, 5, 4, 1), series("B", 0.1, 2, 3, 4, 5, 2)), Pass, "4/5 points"},
		{"share/fail", `compare: {metric: value, series: variant, a: A, b: B, over: "share >= 90%"}`, cat(series("A", 0.1, 1, 2, 5, 4, 1), series("B", 0.1, 2, 3, 4, 5, 2)), Fail, "5 needed"},
		{"share/inconclusive", `compare: {metric: value, series: variant, a: A, b: B, over: "share >= 0.8"}`, cat(series("A", 0.1, 1, 2, 2.95, 6, 1), series("B", 0.1, 2, 3, 3, 5, 2)), Inconclusive, "3/5 points"},
		// compare, mean (paired over points)
		{"mean/pass", `compare: {metric: value, series: variant, a: A, b: B, over: mean}`, cat(series("A", 1, 1, 2, 3, 4), series("B", 1, 2, 3.1, 3.9, 5)), Pass, "mean difference over 4 points A−B = -1 ± 0.1299 (95% CI over 4 points"},
		{"mean/fail", `compare: {metric: value, series: variant, a: A, b: B, over: mean}`, cat(series("A", 1, 3, 4, 5, 6), series("B", 1, 2, 3.1, 3.9, 5)), Fail, "mean difference over 4 points"},
		{"mean/inconclusive", `compare: {metric: value, series: variant, a: A, b: B, over: mean}`, cat(series("A", 1, 1, 4, 2, 6), series("B", 1, 2, 3, 4, 5)), Inconclusive, "want < 0"},
		// monotone
		{"monotone/pass", `monotone: {metric: value, in: size, series: variant}`, cat(series("A", 0.3, 1, 1.2, 2, 5), series("B", 0.1, 2, 3, 4, 5)), Pass, "2/2 series pass"},
		{"monotone/fail", `monotone: {metric: value, in: size}`, cat(series("A", 0.1, 1, 2, 1, 5)), Fail, "1 significantly the other way"},
		{"monotone/inconclusive-dip", `monotone: {metric: value, in: size}`, cat(series("A", 0.5, 1, 2, 1.8, 5)), Inconclusive, "2/3 steps"},
		{"monotone/inconclusive-flat", `monotone: {metric: value, in: size}`, cat(series("A", 1, 1, 1.1, 1.2)), Inconclusive, "0 significantly"},
		{"monotone/decreasing", `monotone: {metric: value, in: size, direction: decreasing}`, cat(series("A", 0.1, 5, 4, 4, 1)), Pass, "1/1 series pass"},
		{"monotone/strict-inconclusive", `monotone: {metric: value, in: size, strict: true}`, cat(series("A", 0.3, 1, 1.2, 2, 5)), Inconclusive, ""},
		{"monotone/strict-pass", `monotone: {metric: value, in: size, strict: true}`, cat(series("A", 0.1, 1, 2, 3)), Pass, ""},
		// converge
		{"converge/pass", `converge: {metric: value, series: variant, a: A, b: B, as: size, eps: 0.1}`, cat(series("A", 0.01, 1, 2, 3), series("B", 0.01, 2, 2.5, 3.02)), Pass, "at size=3 (largest)"},
		{"converge/fail", `converge: {metric: value, series: variant, a: A, b: B, as: size, eps: 0.1}`, cat(series("A", 0.01, 1, 2, 3), series("B", 0.01, 2, 2.5, 3.5)), Fail, "1 fail"},
		{"converge/inconclusive", `converge: {metric: value, series: variant, a: A, b: B, as: size, eps: 0.1}`, cat(series("A", 0.1, 1, 2, 3), series("B", 0.1, 2, 2.5, 3.05)), Inconclusive, "1 inconclusive"},
		// argbest: the best variant (A < B < C) by lowest value, per size
		{"argbest/pass", `argbest: {metric: value, of: variant, in: size}`,
			cat(series("A", 0.1, 1, 3, 5), series("B", 0.1, 2, 2, 4), series("C", 0.1, 3, 4, 3)), Pass, "best variant by min value: A (size=1), B (size=2), C (size=3)"},
		{"argbest/fail", `argbest: {metric: value, of: variant, in: size}`,
			cat(series("A", 0.1, 3, 1), series("B", 0.1, 1, 3)), Fail, "no choice of plausible bests"},
		{"argbest/decreasing-pass", `argbest: {metric: value, of: variant, in: size, direction: decreasing}`,
			cat(series("A", 0.1, 3, 1), series("B", 0.1, 1, 3)), Pass, "B (size=1), A (size=2)"},
		{"argbest/inconclusive-overlap", `argbest: {metric: value, of: variant, in: size}`,
			cat(series("A", 1, 1, 1.5), series("B", 1, 1.2, 1)), Inconclusive, "the ends' plausible bests overlap"},
		{"argbest/inconclusive-dip", `argbest: {metric: value, of: variant, in: size}`,
			// best A, C, B, C: C→B goes the wrong way, but B and C overlap at size 3
			cat(series("A", 0.1, 1, 5, 5, 5), series("B", 0.3, 2, 3, 2, 3), series("C", 0.3, 3, 2, 2.2, 1)), Inconclusive, "do not move increasingly"},
		{"argbest/max", `argbest: {metric: value, of: variant, in: size, goal: max}`,
			cat(series("A", 0.1, 5, 1), series("B", 0.1, 1, 5)), Pass, "best variant by max value: A (size=1), B (size=2)"},
		{"argbest/one-value", `argbest: {metric: value, of: variant, in: size}`, series("A", 0.1, 1, 2), Inconclusive, "0/1 groups"},
		// published
		{"published/pass", `published: {metric: value, where: {size: 2}, value: 2.0, tol: 0.5}`, series("A", 0.1, 1, 2.1, 3), Pass, "1/1 points within tolerance"},
		{"published/fail", `published: {metric: value, where: {size: 2}, value: 3.0, tol: 0.5}`, series("A", 0.1, 1, 2.1, 3), Fail, "deviation 0.9"},
		{"published/inconclusive", `published: {metric: value, where: {size: 2}, value: 2.5, tol: 0.5}`, series("A", 0.3, 1, 2.1, 3), Inconclusive, "0/1"},
		{"published/no-row", `published: {metric: value, where: {size: 9}, value: 2.5, tol: 0.5}`, series("A", 0.3, 1, 2.1, 3), Fail, "no summary row matches"},
		// published spread: the mean |A − B| over the sizes (1, 1, 2), or
		// over the pairs of sizes of each variant ((1, 2, 1) and (1, 3, 2))
		{"published/spread-pass", `published: {metric: value, spread: variant, value: 1.3, tol: 0.3}`, cat(series("A", 0.1, 1, 2, 3), series("B", 0.1, 2, 3, 5)), Pass, "mean |Δ value| between two values of variant over 3 points and 3 pairs = 1.333 ± 0.2, published 1.3 ± 0.3"},
		{"published/spread-fail", `published: {metric: value, spread: variant, value: 2, tol: 0.2}`, cat(series("A", 0.1, 1, 2, 3), series("B", 0.1, 2, 3, 5)), Fail, "deviation 0.6667"},
		{"published/spread-size", `published: {metric: value_median, spread: size, value: 1.667, tol: 0.01}`, cat(series("A", 0.1, 1, 2, 3), series("B", 0.1, 2, 3, 5)), Pass, "over 2 points and 6 pairs = 1.667"},
		{"published/spread-where", `published: {metric: value_median, spread: size, where: {size: [1, 2]}, value: 1, tol: 0}`, cat(series("A", 0.1, 1, 2, 3), series("B", 0.1, 2, 3, 5)), Pass, "over 2 points and 2 pairs = 1"},
		{"published/spread-one-value", `published: {metric: value, spread: variant, value: 1, tol: 0.1}`, series("A", 0.1, 1, 2), Inconclusive, "no point has two values of variant"},
		// published bounds
		{"published/above-pass", `published: {metric: value, where: {size: 2}, above: 1.5}`, series("A", 0.1, 1, 2.1, 3), Pass, "1/1 points above 1.5"},
		{"published/above-fail", `published: {metric: value, where: {size: 2}, above: 2.5}`, series("A", 0.1, 1, 2.1, 3), Fail, "value = 2.1 ± 0.1, published above 2.5"},
		{"published/above-straddles", `published: {metric: value, where: {size: 2}, above: 2.05}`, series("A", 0.1, 1, 2.1, 3), Inconclusive, "0/1 points above 2.05"},
		{"published/below-one-fails", `published: {metric: value, below: 2.5}`, series("A", 0.1, 1, 2.1, 3), Fail, "2/3 points below 2.5"},
		{"published/between", `published: {metric: value, above: 0.5, below: 4}`, series("A", 0.1, 1, 2.1, 3), Pass, "3/3 points in (0.5, 4)"},
		// compare with a ratio: A against ratio × B
		{"ratio/lower/pass", `compare: {metric: value, series: variant, a: A, b: B, ratio: 0.5}`, cat(series("A", 0.1, 1, 2), series("B", 0.1, 3, 5)), Pass, "value: A < 0.5 × B at 2/2 points"},
		{"ratio/lower/fail", `compare: {metric: value, series: variant, a: A, b: B, ratio: 0.5}`, cat(series("A", 0.1, 1, 2), series("B", 0.1, 3, 3)), Fail, "B 1.5 ± 0.05"},
		{"ratio/unmatched", `compare: {metric: value, series: variant, a: A, b: B, op: higher, ratio: 10}`, cat(series("A", 0, 50)), Inconclusive, "no point has both"},
		{"ratio/higher/mean", `compare: {metric: value, series: variant, a: A, b: B, op: higher, ratio: 10, over: mean}`, cat(series("A", 0, 50, 70), series("B", 0, 4, 6)), Pass, "mean difference over 2 points 10 × B−A"},
	}
	schema := bench.New().Schema()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, err := runtest.Decls(t, "claims:\n  - {id: c, source: s, text: t, loose: \"a test fixture\", share_quote: \"a test fixture\", "+c.claim+"}\n")
			if err != nil {
				t.Fatal(err)
			}
			rs := Evaluate(claimSummary(c.pts), nil, &schema, d.Claims)
			if len(rs) != 1 {
				t.Fatalf("%d results", len(rs))
			}
			r := rs[0]
			if r.Verdict != c.want || !strings.Contains(r.Numbers, c.nums) {
				t.Errorf("verdict %s (%s), want %s with %q", r.Verdict, r.Numbers, c.want, c.nums)
				for _, p := range r.Points {
					t.Logf("  %s: %s %s", p.Point, p.Verdict, p.Detail)
				}
			}
			if r.ID != "c" || r.Source != "s" || r.Text != "t" {
				t.Errorf("claim identity lost: %+v", r)
			}
		})
	}
}

// A parameter zipped with the claim's axis (here rows = 10·size, as a load
// range's upper end follows its lower end) must not split the series.
func TestClaimsAlongZippedAxis(t *testing.T) {
	var size, rows []int64
	var variant []string
	var mean, ci []float64
	add := func(sz int64, v string, m float64) {
		size, rows, variant = append(size, sz), append(rows, 10*sz), append(variant, v)
		mean, ci = append(mean, m), append(ci, 0.1)
	}
	for i, ms := range [][2]float64{{1, 2}, {3, 2.5}, {5, 3}} { // best A, B, B
		add(int64(i+1), "A", ms[0])
		add(int64(i+1), "B", ms[1])
	}
	sum := runtest.FrameOf(nil, "size", size, "rows", rows, "variant", variant, "value_mean", mean, "value_ci95", ci)
	schema := bench.New().Schema()
	for _, c := range []struct {
		claim string
		want  Verdict
		nums  string
	}{
		{`argbest: {metric: value, of: variant, in: size}`, Pass, "1/1 groups pass"},
		{`monotone: {metric: value, in: size, series: variant}`, Pass, "2/2 series pass"},
	} {
		d, err := runtest.Decls(t, "claims:\n  - {id: c, "+c.claim+"}\n")
		if err != nil {
			t.Fatal(err)
		}
		r := Evaluate(sum, nil, &schema, d.Claims)[0]
		if r.Verdict != c.want || !strings.Contains(r.Numbers, c.nums) {
			t.Errorf("%s: %s (%s), want %s with %q", c.claim, r.Verdict, r.Numbers, c.want, c.nums)
		}
	}
}

// pairedJobs builds a jobs frame of sizes 1..len(deltas) × 6 replicates in
// which B's value is A's plus deltas[size-1] plus a little per-replicate
// jitter, and both share a large per-replicate instance effect (as two
// algorithms on the same instances do).
func pairedJobs(deltas []float64, jitter float64) *results.Frame {
	var size, rep []int64
	var seed []uint64
	var variant, status []string
	var value []float64
	for i, d := range deltas {
		for r := 0; r < 6; r++ {
			instance := float64((r*7)%6) * 3 // large, shared by A and B
			j := jitter * float64(r%3-1)     // small, B only
			for _, v := range []struct {
				name string
				x    float64
			}{{"A", 10 + instance}, {"B", 10 + instance + d + j}} {
				size, rep, seed = append(size, int64(i+1)), append(rep, int64(r)), append(seed, uint64(100*r+i))
				variant, status, value = append(variant, v.name), append(status, results.StatusOK), append(value, v.x)
			}
		}
	}
	return runtest.FrameOf(nil, "size", size, "variant", variant, "replicate", rep, "seed", seed, "status", status, "value", value)
}

func TestEvaluatePairedClaims(t *testing.T) {
	const paired = `compare: {metric: value, series: variant, a: A, b: B, paired: true`
	cases := []struct {
		name  string
		claim string
		jobs  *results.Frame
		want  Verdict
		nums  string
	}{
		{"every/pass", paired + `}`, pairedJobs([]float64{0.5, 0.4, 0.6}, 0.05), Pass, "at 3/3 points"},
		{"every/fail", paired + `}`, pairedJobs([]float64{0.5, -0.4, 0.6}, 0.05), Fail, "1 fail"},
		{"every/undecided", paired + `}`, pairedJobs([]float64{0.5, 0.01, 0.6}, 0.3), Inconclusive, "1 undecided"},
		{"higher", `compare: {metric: value, series: variant, a: B, b: A, op: higher, paired: true}`, pairedJobs([]float64{0.5, 0.4}, 0.05), Pass, "B > A"},
		{"share", paired + `, over: "share >= 0.6"}`, pairedJobs([]float64{0.5, -0.4, 0.6}, 0.05), Pass, "2/3 points"},
		{"mean", paired + `, over: mean}`, pairedJobs([]float64{0.5, 0.4, 0.6}, 0.05), Pass, "mean over 3 points"},
		// The points are the design, not a sample: their mean's interval
		// comes from their replicates, however much the points differ
		// (across the three points alone it would be ±4.2, undecided).
		{"mean/design", paired + `, over: mean}`, pairedJobs([]float64{0.05, 3, 0.2}, 0.01), Pass, "A−B = -1.083 ± 0.00"},
		{"unmatched", `compare: {metric: value, series: variant, a: A, b: C, paired: true}`, pairedJobs([]float64{0.5}, 0.05), Inconclusive, "no replicate ran both"},
		{"no-jobs", paired + `}`, nil, Inconclusive, "needs jobs.parquet"},
		// per_instance: dominance over the instances, not a CI.
		{"instances/pass", paired + `, per_instance: true}`, pairedJobs([]float64{0.5, 0.4, 0.6}, 0.05), Pass, "A better on 18 of 18 instances, worse on 0"},
		{"instances/fail", paired + `, per_instance: true}`, pairedJobs([]float64{0.5, 0.01, 0.6}, 0.3), Fail, "worse on 2)"},
		{"instances/ties", paired + `, per_instance: true}`, pairedJobs([]float64{0.5, 0, 0.6}, 0), Inconclusive, "1 undecided"},
		{"instances/share", paired + `, per_instance: true, over: "share >= 0.6"}`, pairedJobs([]float64{0.5, 0.01, 0.6}, 0.3), Pass, "2/3 points"},
		// ratio: the per-instance ratios A/B (0.94 to 0.99 here) against the bound.
		{"ratio/mean/pass", paired + `, over: mean, ratio: 0.99}`, pairedJobs([]float64{0.5, 0.4, 0.6}, 0.05), Pass, "mean over 3 points of the paired ratio A/B = 0.9"},
		{"ratio/mean/fail", paired + `, over: mean, ratio: 0.9}`, pairedJobs([]float64{0.5, 0.4, 0.6}, 0.05), Fail, "(want < 0.9; 95% CI from the points' replicates)"},
		{"ratio/every/higher", `compare: {metric: value, series: variant, a: B, b: A, op: higher, paired: true, ratio: 1.01}`, pairedJobs([]float64{0.5, 0.4}, 0.05), Pass, "B/A > 1.01 (paired ratios, same instances) at 2/2 points"},
		{"ratio/instances", paired + `, per_instance: true, ratio: 0.99}`, pairedJobs([]float64{0.5, 0.4, 0.6}, 0.05), Pass, "A/B > 0.99 on no instance"},
		{"ratio/instances/fail", paired + `, per_instance: true, ratio: 0.95}`, pairedJobs([]float64{0.5, 0.4, 0.6}, 0.05), Fail, "worse on 17)"},
	}
	schema := bench.New().Schema()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, err := runtest.Decls(t, "claims:\n  - {id: c, share_quote: \"a test fixture\", "+c.claim+"}\n")
			if err != nil {
				t.Fatal(err)
			}
			// The summary alone would not decide: the instance effect makes
			// every mean's CI overlap.
			sum := claimSummary(cat(series("A", 3, 10, 10, 10), series("B", 3, 10.5, 10.4, 10.6)))
			rs := Evaluate(sum, c.jobs, &schema, d.Claims)
			if r := rs[0]; r.Verdict != c.want || !strings.Contains(r.Numbers, c.nums) {
				t.Errorf("verdict %s (%s), want %s with %q", r.Verdict, r.Numbers, c.want, c.nums)
			}
		})
	}
	if _, err := runtest.Decls(t, "claims:\n  - {id: c, compare: {metric: value_median, series: variant, a: A, b: B, paired: true}}\n"); err == nil ||
		!strings.Contains(err.Error(), "paired compares need a metric of the model") {
		t.Errorf("paired on a summary column: err = %v", err)
	}
	for _, bad := range []struct{ claim, want string }{
		{`compare: {metric: value, series: variant, a: A, b: B, per_instance: true}`, "needs paired: true"},
		{paired + `, per_instance: true, over: mean}`, "cannot be averaged"},
		{paired + `, ratio: 0}`, "ratio must be a positive number"},
		{paired + `, ratio: -2}`, "ratio must be a positive number"},
		{paired + `, ratio: much}`, "want a finite number"},
		{`published: {metric: value, value: 1, tol: 0.1, above: 0}`, "value and tol or bounds (above, below), not both"},
		{`published: {metric: value, above: 2, below: 1}`, "above (2) must be less than below (1)"},
		{`published: {metric: value, above: high}`, "want a finite number"},
		{`published: {metric: value}`, "missing required key \"value\""},
		{`published: {metric: value, spread: variant, where: {variant: A}, value: 1, tol: 0.1}`, "where: keeps one value of it"},
		{`published: {metric: value, spread: values, value: 1, tol: 0.1}`, "\"values\" is not a parameter of the model"},
	} {
		if _, err := runtest.Decls(t, "claims:\n  - {id: c, "+bad.claim+"}\n"); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: err = %v, want %q", bad.claim, err, bad.want)
		}
	}
}

// TestCompareSidesWhere: a_where: and b_where: compare two cells that
// differ in more than the series (A at noise 0 against B at noise 1), point
// by point over the remaining parameters; the sides' rows elsewhere (A at
// noise 1, B at noise 0) are not read.
func TestCompareSidesWhere(t *testing.T) {
	var size []int64
	var variant []string
	var noise, mean, ci []float64
	add := func(sz int64, v string, nz, m float64) {
		size, variant, noise = append(size, sz), append(variant, v), append(noise, nz)
		mean, ci = append(mean, m), append(ci, 0.1)
	}
	for sz := int64(1); sz <= 3; sz++ {
		add(sz, "A", 0, float64(sz))     // A's own cell: lowest
		add(sz, "A", 1, float64(sz)+5)   // not read: above every B
		add(sz, "B", 0, float64(sz)-0.5) // not read: below A's cell
		add(sz, "B", 1, float64(sz)+1)   // B's own cell
	}
	sum := runtest.FrameOf(nil, "size", size, "variant", variant, "noise", noise, "value_mean", mean, "value_ci95", ci)
	// The same instances for the paired form: A at noise 0 is 1 below B at noise 1.
	var jsize, jrep []int64
	var jseed []uint64
	var jvar, jstat []string
	var jnoise, jval []float64
	for sz := int64(1); sz <= 2; sz++ {
		for r := int64(0); r < 4; r++ {
			for _, c := range []struct {
				v  string
				nz float64
				x  float64
			}{{"A", 0, 0}, {"A", 1, 9}, {"B", 0, -9}, {"B", 1, 1}} {
				jsize, jrep, jseed = append(jsize, sz), append(jrep, r), append(jseed, uint64(10*r))
				jvar, jstat, jnoise = append(jvar, c.v), append(jstat, results.StatusOK), append(jnoise, c.nz)
				jval = append(jval, float64(sz)+float64(r)*3+c.x+0.01*float64(r%2))
			}
		}
	}
	jobs := runtest.FrameOf(nil, "size", jsize, "variant", jvar, "noise", jnoise, "replicate", jrep, "seed", jseed, "status", jstat, "value", jval)
	schema := bench.New().Schema()
	for _, c := range []struct {
		claim string
		want  Verdict
		nums  string
	}{
		{`compare: {metric: value, series: variant, a: A, b: B, a_where: {noise: 0}, b_where: {noise: 1}}`, Pass, "value: A (noise=0) < B (noise=1) at 3/3 points"},
		{`compare: {metric: value, series: variant, a: A, b: B, a_where: {noise: 1}, b_where: {noise: 0}}`, Fail, "3 fail"},
		{`compare: {metric: value, series: variant, a: A, b: A, a_where: {noise: 0}, b_where: {noise: 1}}`, Pass, "A (noise=0) < A (noise=1)"},
		{`compare: {metric: value, series: variant, a: A, b: B, a_where: {noise: 0}, b_where: {noise: 1}, where: {size: [1, 2]}}`, Pass, "at 2/2 points"},
		{`compare: {metric: value, series: variant, a: A, b: B, a_where: {noise: 0}, b_where: {noise: 7}}`, Inconclusive, "no point has both variant=A (noise=0) and variant=B (noise=7)"},
		{`compare: {metric: value, series: variant, a: A, b: B, a_where: {noise: 0}, b_where: {noise: 1}, paired: true}`, Pass, "at 2/2 points"},
		{`compare: {metric: value, series: variant, a: A, b: B, a_where: {noise: 0}, b_where: {noise: 1}, paired: true, per_instance: true}`, Pass, "A (noise=0) better on 8 of 8 instances"},
	} {
		d, err := runtest.Decls(t, "claims:\n  - {id: c, "+c.claim+"}\n")
		if err != nil {
			t.Fatalf("%s: %v", c.claim, err)
		}
		r := Evaluate(sum, jobs, &schema, d.Claims)[0]
		if r.Verdict != c.want || !strings.Contains(r.Numbers, c.nums) {
			t.Errorf("%s: %s (%s), want %s with %q", c.claim, r.Verdict, r.Numbers, c.want, c.nums)
			for _, p := range r.Points {
				t.Logf("  %s: %s %s", p.Point, p.Verdict, p.Detail)
			}
		}
		for _, p := range r.Points {
			if strings.Contains(p.Point, "noise") {
				t.Errorf("%s: point %q names a side's parameter", c.claim, p.Point)
			}
		}
	}
	for _, bad := range []struct{ claim, want string }{
		{`compare: {metric: value, series: variant, a: A, b: B, a_where: {noise: 0}}`, "only one side names its own point"},
		{`compare: {metric: value, series: variant, a: A, b: B, a_where: {noise: 0}, b_where: {size: 1}}`, "a_where names noise but b_where names size"},
		{`compare: {metric: value, series: variant, a: A, b: B, a_where: {variant: A}, b_where: {variant: B}}`, "must not name the series"},
		{`compare: {metric: value, series: variant, a: A, b: B, a_where: {noise: [0, 1]}, b_where: {noise: 1}}`, "a_where gives 2 values of \"noise\""},
		{`compare: {metric: value, series: variant, a: A, b: B, a_where: {noise: 0}, b_where: {noise: 1}, where: {noise: 0}}`, "\"noise\" is in where: and in a_where"},
		{`compare: {metric: value, series: variant, a: A, b: B, a_where: {value_mean: 0}, b_where: {value_mean: 1}}`, "\"value_mean\" is not a parameter of the model"},
		{`compare: {metric: value, series: variant, a: A, b: A, a_where: {noise: 1}, b_where: {noise: 1}}`, "a and b are the same series value"},
		{`compare: {metric: value, series: variant, a: A, b: B, a_where: {}, b_where: {}}`, "a_where is empty"},
	} {
		if _, err := runtest.Decls(t, "claims:\n  - {id: c, "+bad.claim+"}\n"); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: err = %v, want %q", bad.claim, err, bad.want)
		}
	}
}

// TestOneReplicateOfASeededInstance: one replicate of a point that draws
// its instance from the seed decides nothing (no interval), at every kind
// of claim that reads an interval; a point that does not use its seed (the
// model says so through Seeds) stays exact with one replicate.
func TestOneReplicateOfASeededInstance(t *testing.T) {
	var size, n []int64
	var variant []string
	var noise, mean, ci, median []float64
	for _, nz := range []float64{0, 1} { // here, a point uses its seed when noise > 0
		for sz := int64(1); sz <= 3; sz++ {
			for _, v := range []struct {
				name string
				m    float64
			}{{"A", float64(sz)}, {"B", float64(sz) + 0.5}} {
				size, variant, noise, n = append(size, sz), append(variant, v.name), append(noise, nz), append(n, 1)
				mean, ci, median = append(mean, v.m), append(ci, math.NaN()), append(median, v.m) // one replicate: a null ci95
			}
		}
	}
	sum := runtest.FrameOf(nil, "size", size, "variant", variant, "noise", noise, "n", n,
		"value_mean", mean, "value_ci95", ci, "value_median", median)
	schema := bench.New().Schema()
	seeds := Seeds(func(p simcore.Params) bool { return p.Float("noise") > 0 })
	for _, claim := range []string{
		`compare: {metric: value, series: variant, a: A, b: B, where: {noise: %s}}`,
		`compare: {metric: value_median, series: variant, a: A, b: B, where: {noise: %s}}`,
		`compare: {metric: value, series: variant, a: A, b: B, over: mean, where: {noise: %s}}`,
		`monotone: {metric: value, in: size, series: variant, where: {noise: %s}}`,
		`published: {metric: value, where: {size: 2, variant: A, noise: %s}, value: 2, tol: 0.1}`,
	} {
		for _, nz := range []struct {
			noise string
			want  Verdict
		}{{"0", Pass}, {"1", Inconclusive}} {
			d, err := runtest.Decls(t, "claims:\n  - {id: c, share_quote: \"a test fixture\", "+fmt.Sprintf(claim, nz.noise)+"}\n")
			if err != nil {
				t.Fatalf("%s: %v", claim, err)
			}
			r := Evaluate(sum, nil, &schema, d.Claims, seeds)[0]
			if r.Verdict != nz.want {
				t.Errorf("%s at noise %s: %s (%s), want %s", claim, nz.noise, r.Verdict, r.Numbers, nz.want)
			}
			// An invariant is exact on the instance it was checked on.
			if strings.HasPrefix(claim, "published") {
				di, err := runtest.Decls(t, "claims:\n  - {id: c, invariant: \"a test constraint\", "+fmt.Sprintf(claim, nz.noise)+"}\n")
				if err != nil {
					t.Fatal(err)
				}
				if r := Evaluate(sum, nil, &schema, di.Claims, seeds)[0]; r.Verdict != Pass {
					t.Errorf("invariant %s at noise %s: %s (%s), want pass", claim, nz.noise, r.Verdict, r.Numbers)
				}
			}
			// Without Seeds, every point is taken to use its seed.
			if r := Evaluate(sum, nil, &schema, d.Claims)[0]; r.Verdict != Inconclusive {
				t.Errorf("%s at noise %s without Seeds: %s (%s), want inconclusive", claim, nz.noise, r.Verdict, r.Numbers)
			}
		}
	}
}
