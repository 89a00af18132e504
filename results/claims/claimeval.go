package claims

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"schedfarm/results"
	"schedfarm/results/decl"
	"schedfarm/simcore"
)

// Result is the evaluation of one claim.
type Result struct {
	Claim   *decl.Claim `json:"-"`
	ID      string      `json:"id"`
	Verdict Verdict     `json:"verdict"`
	// Numbers is one line with the numbers that decided the verdict.
	Numbers string `json:"numbers"`
	// Counts of points (or groups) that passed, failed, were inconclusive.
	Passed    int    `json:"passed"`
	Failed    int    `json:"failed"`
	Undecided int    `json:"inconclusive"`
	Source    string `json:"source"`
	Text      string `json:"text"`
	// Points holds the per-point (or per-group) details, in summary order.
	Points []PointResult `json:"points,omitempty"`
}

// PointResult is the verdict at one point (or group of points).
type PointResult struct {
	Point   string  `json:"point"`
	Verdict Verdict `json:"verdict"`
	Detail  string  `json:"detail"`
}

// est is a value with the half-width of its 95% confidence interval.
// Means over replicates also carry their standard error se and the
// degrees of freedom of their variance (n − 1); both 0 when unknown.
type est struct {
	m, ci float64
	ok    bool
	se    float64
	dof   int
}

func (e est) String() string {
	if math.IsInf(e.ci, 1) {
		return g4(e.m) + " (one replicate of an instance drawn from the seed: no interval)"
	}
	if e.ci == 0 {
		return g4(e.m)
	}
	return g4(e.m) + " ± " + g4(e.ci)
}

func g4(x float64) string { return fmt.Sprintf("%.4g", x) }

// claimFrame gives claims access to the summary's values by point.
type claimFrame struct {
	f      *results.Frame
	params []string // parameter columns present in the summary
	pcol   []int
	jobs   *claimFrame // jobs.parquet, for paired comparisons; may be nil
	// seeded reports whether a row's point draws its instance from the
	// seed (Seeds); nil: every point does.
	seeded func(r int) bool
}

// Option configures Evaluate.
type Option func(*options)

type options struct {
	usesSeed func(simcore.Params) bool
}

// Seeds tells Evaluate which points draw their instance from the seed
// (sweep.Sweep.UsesSeed of the point's parameters). One replicate of such a
// point is one sample of its instances: it has no interval and decides
// nothing (inconclusive). A point whose jobs do not use their seed (a whole
// trace, fixed nights) is exact with one replicate. Without Seeds every
// point is taken to use its seed.
func Seeds(usesSeed func(simcore.Params) bool) Option {
	return func(o *options) { o.usesSeed = usesSeed }
}

// rowSeeded returns, for a frame of the schema's results, whether row r's
// point uses its seed, from the row's parameter values (a parameter the
// frame lacks takes its default).
func rowSeeded(f *results.Frame, schema *simcore.Schema, usesSeed func(simcore.Params) bool) func(int) bool {
	if usesSeed == nil {
		return nil
	}
	cache := map[int]bool{}
	return func(r int) bool {
		if v, ok := cache[r]; ok {
			return v
		}
		p := simcore.Params{}
		for _, prm := range schema.Params {
			if i := f.Index(prm.Name); i >= 0 {
				if v := f.Value(i, r); v != nil {
					p[prm.Name] = v
				}
			}
		}
		v := true
		if full, err := schema.Complete(p); err == nil {
			v = usesSeed(full)
		}
		cache[r] = v
		return v
	}
}

// oneSample reports whether row r of the claim frame is one replicate of a
// point whose instance is drawn from the seed: its value has no interval.
func (cf *claimFrame) oneSample(r int) bool {
	n, ok := cf.f.CellFloat(cf.f.Index(results.ColN), r)
	if !ok || n != 1 {
		return false
	}
	return cf.seeded == nil || cf.seeded(r)
}

func newClaimFrame(sum *results.Frame, schema *simcore.Schema) *claimFrame {
	cf := &claimFrame{f: sum}
	// Only the parameters that vary name a point: the others are the same
	// everywhere and would only clutter the numbers.
	for _, p := range schema.Params {
		i := sum.Index(p.Name)
		if i < 0 {
			continue
		}
		for r := 1; r < sum.Len(); r++ {
			if sum.CellLabel(i, r) != sum.CellLabel(i, 0) {
				cf.params = append(cf.params, p.Name)
				cf.pcol = append(cf.pcol, i)
				break
			}
		}
	}
	return cf
}

// key returns the row's point label over every parameter but the excluded.
func (cf *claimFrame) key(r int, exclude ...string) string {
	var b strings.Builder
	for i, name := range cf.params {
		if slices.Contains(exclude, name) {
			continue
		}
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		b.WriteString(name)
		b.WriteByte('=')
		b.WriteString(cf.f.CellLabel(cf.pcol[i], r))
	}
	return b.String()
}

// value reads the claim's metric at a row: the mean and ci95 of a bare
// metric (a null ci95 with n = 1 counts as 0: one replicate is taken as
// exact), or a summary column with no uncertainty.
func (cf *claimFrame) value(metric string, r int) est {
	if mi := cf.f.Index(metric + "_mean"); mi >= 0 && cf.f.Index(metric) < 0 {
		m, ok := cf.f.CellFloat(mi, r)
		if !ok {
			return est{}
		}
		ci, ok := cf.f.CellFloat(cf.f.Index(metric+"_ci95"), r)
		if !ok {
			ci = 0
			if cf.oneSample(r) {
				ci = math.Inf(1)
			}
		}
		return est{m, ci, true, 0, 0}
	}
	m, ok := cf.f.CellFloat(cf.f.Index(metric), r)
	if ok && cf.oneSample(r) && cf.statisticOfMetric(metric) {
		return est{m, math.Inf(1), true, 0, 0} // a median of one sampled instance
	}
	return est{m, 0, ok, 0, 0}
}

// statisticOfMetric reports whether col is a statistic of a metric over
// the instances (m_median, m_min, …), not a column of its own.
func (cf *claimFrame) statisticOfMetric(col string) bool {
	for _, st := range results.SummaryStats() {
		if base, ok := strings.CutSuffix(col, "_"+st); ok && cf.f.Index(base+"_mean") >= 0 {
			return true
		}
	}
	return false
}

// statistic reports whether metric is a statistic column of the summary
// (m_median, m_min, …: one exact value per point over its instances)
// rather than a metric with a mean and an interval.
func (cf *claimFrame) statistic(metric string) bool {
	return cf.f.Index(metric) >= 0 && cf.f.Index(metric+"_mean") < 0
}

// Evaluate evaluates claims on a summary (summary.parquet of the
// sweep the claims belong to). jobs (jobs.parquet, may be nil) serves the
// paired comparisons.
func Evaluate(sum, jobs *results.Frame, schema *simcore.Schema, claims []*decl.Claim, opts ...Option) []Result {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	cf := newClaimFrame(sum, schema)
	cf.seeded = rowSeeded(sum, schema, o.usesSeed)
	if jobs != nil {
		cf.jobs = newClaimFrame(jobs, schema)
		cf.jobs.seeded = rowSeeded(jobs, schema, o.usesSeed)
	}
	// An invariant holds on every instance: one that keeps it is all one
	// replicate can show, and it is exact for that instance, so the
	// one-sample rule does not apply to invariant claims.
	exact := func(int) bool { return false }
	inv := *cf
	inv.seeded = exact
	if cf.jobs != nil {
		j := *cf.jobs
		j.seeded = exact
		inv.jobs = &j
	}
	out := make([]Result, 0, len(claims))
	for _, c := range claims {
		cf := cf
		if c.Invariant != "" {
			cf = &inv
		}
		var r Result
		switch c.Kind {
		case decl.ClaimCompare:
			r = cf.compare(c)
		case decl.ClaimMonotone:
			r = cf.monotone(c)
		case decl.ClaimConverge:
			r = cf.converge(c)
		case decl.ClaimPublished:
			r = cf.published(c)
		case decl.ClaimArgBest:
			r = cf.argBest(c)
		}
		r.Claim, r.ID, r.Source, r.Text = c, c.ID, c.Source, c.Text
		for _, p := range r.Points {
			switch p.Verdict {
			case Pass:
				r.Passed++
			case Fail:
				r.Failed++
			default:
				r.Undecided++
			}
		}
		out = append(out, r)
	}
	return out
}

// pairs matches the rows of series values a and b on every other parameter.
func (cf *claimFrame) pairs(c *decl.Claim, exclude ...string) (keys []string, ra, rb map[string]int) {
	ra, rb = map[string]int{}, map[string]int{}
	si := cf.f.Index(c.Series)
	var order []string
	exclude = append(append(exclude, c.Series), c.SideCols()...)
	for _, r := range c.Where.Rows(cf.f) {
		k := cf.key(r, exclude...)
		switch side(c, cf.f, si, r) {
		case sideA:
			if _, seen := ra[k]; !seen {
				ra[k] = r
				if _, inB := rb[k]; !inB {
					order = append(order, k)
				}
			}
		case sideB:
			if _, seen := rb[k]; !seen {
				rb[k] = r
				if _, inA := ra[k]; !inA {
					order = append(order, k)
				}
			}
		}
	}
	for _, k := range order {
		_, okA := ra[k]
		_, okB := rb[k]
		if okA && okB {
			keys = append(keys, k)
		}
	}
	return keys, ra, rb
}

// Sides of a compare claim a row belongs to.
const (
	sideNone = iota
	sideA
	sideB
)

// side tells which side of compare claim c row r of f is on: its series
// value is c.A and it matches c.AWhere, or c.B and c.BWhere (si is the
// series' column). A row can be on one side only: when A and B are the
// same series value, the side filters tell them apart.
func side(c *decl.Claim, f *results.Frame, si, r int) int {
	v := f.CellLabel(si, r)
	switch {
	case v == c.A && c.AWhere.Match(f, r):
		return sideA
	case v == c.B && c.BWhere.Match(f, r):
		return sideB
	}
	return sideNone
}

// lowerAt decides "a is lower than b" from two estimates: pass when the
// CIs separate with a below, fail when they separate with a above,
// inconclusive when they overlap.
func lowerAt(a, b est) Verdict {
	switch {
	case a.m+a.ci < b.m-b.ci:
		return Pass
	case a.m-a.ci > b.m+b.ci:
		return Fail
	}
	return Inconclusive
}

// pairedDiffs returns, per point (every varying parameter but the series),
// the mean and 95% CI of the claimed paired differences over the
// replicates both series ran, matched by replicate and seed, from the ok
// jobs: A − B (B − A for "higher"), or with a ratio A/B − ratio (ratio −
// A/B for "higher"), so that a negative mean always supports the claim.
// Points are in jobs order.
func (jf *claimFrame) pairedDiffs(c *decl.Claim) (keys []string, diffs map[string]est, detail map[string]string, signs map[string]signCount) {
	f := jf.f
	si, mi, ri, sdi, sti := f.Index(c.Series), f.Index(c.Metric), f.Index(results.ColReplicate), f.Index(results.ColSeed), f.Index(results.ColStatus)
	if si < 0 || mi < 0 || ri < 0 {
		return nil, nil, nil, nil
	}
	type pairSides struct{ a, b map[string]float64 }
	points := map[string]*pairSides{}
	rowOf := map[string]int{} // a row of each point, to tell whether it uses its seed
	for _, r := range c.Where.Rows(f) {
		if sti >= 0 && f.CellLabel(sti, r) != results.StatusOK {
			continue
		}
		v, ok := f.CellFloat(mi, r)
		if !ok {
			continue
		}
		k := jf.key(r, append([]string{c.Series}, c.SideCols()...)...)
		if _, seen := rowOf[k]; !seen {
			rowOf[k] = r
		}
		rep := f.CellLabel(ri, r)
		if sdi >= 0 {
			rep += "/" + f.CellLabel(sdi, r)
		}
		p := points[k]
		if p == nil {
			p = &pairSides{map[string]float64{}, map[string]float64{}}
			points[k] = p
			keys = append(keys, k)
		}
		switch side(c, f, si, r) {
		case sideA:
			p.a[rep] = v
		case sideB:
			p.b[rep] = v
		}
	}
	sgn := claimSign(c)
	diffs, detail, signs = map[string]est{}, map[string]string{}, map[string]signCount{}
	kept := keys[:0]
	for _, k := range keys {
		p := points[k]
		var ds []float64
		for rep, a := range p.a {
			b, ok := p.b[rep]
			if !ok {
				continue
			}
			if c.Ratio > 0 {
				r := a / b
				if math.IsNaN(r) || math.IsInf(r, 0) {
					continue // B is 0 on this instance: no ratio
				}
				ds = append(ds, sgn*(r-c.Ratio))
			} else {
				ds = append(ds, sgn*(a-b))
			}
		}
		if len(ds) == 0 {
			continue
		}
		slices.Sort(ds) // map order must not reach the numbers
		var sc signCount
		for _, x := range ds {
			switch {
			case x < 0:
				sc.better++
			case x > 0:
				sc.worse++
			default:
				sc.equal++
			}
		}
		signs[k] = sc
		st := results.Describe(ds)
		ci := st.CI95
		if math.IsNaN(ci) {
			ci = 0
		}
		if c.Sequential() {
			ci = csHalfWidth(len(ds), st.Std, c.EffectiveAlpha())
		}
		if len(ds) == 1 && (jf.seeded == nil || jf.seeded(rowOf[k])) {
			ci = math.Inf(1) // one sampled instance: no interval
		}
		diffs[k] = est{st.Mean, ci, true, 0, 0}
		if len(ds) >= 2 && !math.IsNaN(st.Std) {
			diffs[k] = est{st.Mean, ci, true, st.Std / math.Sqrt(float64(len(ds))), len(ds) - 1}
		}
		if c.Ratio > 0 {
			detail[k] = fmt.Sprintf("paired ratio %s/%s over %d replicates %s", c.SideLabel(true), c.SideLabel(false), len(ds), ratioOf(c, diffs[k]))
		} else {
			detail[k] = fmt.Sprintf("paired difference over %d replicates %s", len(ds), diffs[k])
		}
		kept = append(kept, k)
	}
	return kept, diffs, detail, signs
}

// claimSign is +1 for a "lower" claim and −1 for a "higher" one: the sign
// that makes a claimed difference negative.
func claimSign(c *decl.Claim) float64 {
	if c.Op == "higher" {
		return -1
	}
	return 1
}

// ratioOf turns a claimed paired difference of a ratio claim back into the
// ratio A/B it stands for.
func ratioOf(c *decl.Claim, d est) est {
	return est{c.Ratio + claimSign(c)*d.m, d.ci, d.ok, 0, 0}
}

// signCount counts a point's paired instances by the sign of the claimed
// difference: A better than B (as the claim's op says), equal, or worse.
type signCount struct{ better, equal, worse int }

// verdict decides per-instance dominance at one point: no instance where A
// is worse, and at least one where it is better. A point where every
// instance ties cannot tell the two apart.
func (s signCount) verdict() Verdict {
	switch {
	case s.worse > 0:
		return Fail
	case s.better > 0:
		return Pass
	}
	return Inconclusive
}

func (s signCount) String() string {
	return fmt.Sprintf("A better in %d of %d instances, equal in %d, worse in %d", s.better, s.better+s.equal+s.worse, s.equal, s.worse)
}

// comparePaired decides a compare claim on paired differences.
func (cf *claimFrame) comparePaired(c *decl.Claim) Result {
	var r Result
	if cf.jobs == nil {
		r.Verdict = Inconclusive
		r.Numbers = "a paired claim needs jobs.parquet, which this run folder lacks"
		return r
	}
	keys, d, detail, signs := cf.jobs.pairedDiffs(c)
	if len(keys) == 0 {
		r.Verdict = Inconclusive
		r.Numbers = fmt.Sprintf("no replicate ran both %s=%s and %s=%s", c.Series, c.SideLabel(true), c.Series, c.SideLabel(false))
		return r
	}
	zero := est{0, 0, true, 0, 0}
	var means []float64
	var total signCount
	for _, k := range keys {
		means = append(means, d[k].m)
		v := lowerAt(d[k], zero)
		if c.Sequential() {
			sp := seqPoint(c, d[k], signs[k].better+signs[k].equal+signs[k].worse, "paired "+seqSign(c))
			v, detail[k] = sp.Verdict, sp.Detail
		}
		if c.PerInstance {
			v = signs[k].verdict()
			detail[k] = strings.Replace(signs[k].String(), "A better", c.SideLabel(true)+" better", 1) + "; " + detail[k]
		}
		total.better += signs[k].better
		total.equal += signs[k].equal
		total.worse += signs[k].worse
		r.Points = append(r.Points, PointResult{k, v, detail[k]})
	}
	sign := c.SideLabel(true) + "−" + c.SideLabel(false)
	rel := "<"
	if c.Op == "higher" {
		sign, rel = c.SideLabel(false)+"−"+c.SideLabel(true), ">"
	}
	lhs, rhs, same := c.SideLabel(true), c.SideLabel(false), "paired, same instances"
	shown := d // what the numbers show of each point: the differences, or the ratios
	if c.Ratio > 0 {
		sign, lhs, rhs, same = c.SideLabel(true)+"/"+c.SideLabel(false), c.SideLabel(true)+"/"+c.SideLabel(false), g4(c.Ratio), "paired ratios, same instances"
		shown = map[string]est{}
		for _, k := range keys {
			shown[k] = ratioOf(c, d[k])
		}
	}
	if c.Sequential() {
		same += fmt.Sprintf(", anytime-valid %g%% CS", 100*(1-c.EffectiveAlpha()))
	}
	what := fmt.Sprintf("%s: %s %s %s (%s)", c.Metric, lhs, rel, rhs, same)
	if c.PerInstance {
		what = fmt.Sprintf("%s: %s %s %s on no instance and %s %s on some instance of every point (%s better on %d of %d instances, worse on %d)",
			c.Metric, lhs, map[string]string{"<": ">", ">": "<"}[rel], rhs, rel, rhs, c.SideLabel(true), total.better, total.better+total.equal+total.worse, total.worse)
	}
	switch c.Over {
	case decl.OverEveryPoint, decl.OverShare:
		overPoints(c, &r, what, "undecided")
		if c.Over == decl.OverEveryPoint {
			r.Numbers += "; " + pairedRange(sign, keys, shown)
		}
	case decl.OverMean:
		ests := make([]est, len(keys))
		for i, k := range keys {
			ests[i] = d[k]
		}
		m, how := averageOver(ests)
		r.Verdict = lowerAt(m, zero)
		if c.Ratio > 0 {
			r.Numbers = fmt.Sprintf("%s on average: mean over %d points of the paired ratio %s = %s (want %s %s; %s)", what, len(means), sign, ratioOf(c, m), rel, rhs, how)
		} else {
			r.Numbers = fmt.Sprintf("%s on average: mean over %d points of the paired difference %s = %s (want < 0; %s)", what, len(means), sign, m, how)
		}
	}
	return r
}

// pairedRange describes the smallest and largest paired differences.
func pairedRange(sign string, keys []string, d map[string]est) string {
	lo, hi := keys[0], keys[0]
	for _, k := range keys {
		if d[k].m < d[lo].m {
			lo = k
		}
		if d[k].m > d[hi].m {
			hi = k
		}
	}
	return fmt.Sprintf("%s from %s (%s) to %s (%s)", sign, d[lo], lo, d[hi], hi)
}

func (cf *claimFrame) compare(c *decl.Claim) Result {
	if c.Paired {
		return cf.comparePaired(c)
	}
	var r Result
	keys, ra, rb := cf.pairs(c)
	if len(keys) == 0 {
		r.Verdict = Inconclusive
		r.Numbers = fmt.Sprintf("no point has both %s=%s and %s=%s", c.Series, c.SideLabel(true), c.Series, c.SideLabel(false))
		return r
	}
	rel := "<"
	if c.Op == "higher" {
		rel = ">"
	}
	bName := c.SideLabel(false) // B, or ratio × B
	if c.Ratio > 0 {
		bName = g4(c.Ratio) + " × " + c.SideLabel(false)
	}
	var diffs []float64
	var ciAB []float64
	var diffEsts []est // the differences with their standard errors, for over: mean
	for _, k := range keys {
		a, b := cf.valueFor(c, ra[k]), cf.valueFor(c, rb[k])
		if c.Ratio > 0 {
			b.m, b.ci = c.Ratio*b.m, c.Ratio*b.ci
		}
		if !a.ok || !b.ok {
			r.Points = append(r.Points, PointResult{k, Inconclusive, "no value"})
			continue
		}
		var v Verdict
		if c.Op == "higher" {
			v = lowerAt(b, a)
			diffs = append(diffs, b.m-a.m)
		} else {
			v = lowerAt(a, b)
			diffs = append(diffs, a.m-b.m)
		}
		ciAB = append(ciAB, math.Hypot(a.ci, b.ci))
		diffEsts = append(diffEsts, cf.diffSE(c, ra[k], rb[k], diffs[len(diffs)-1], ciAB[len(ciAB)-1]))
		detail := fmt.Sprintf("%s %s vs %s %s", c.SideLabel(true), a, bName, b)
		if v == Inconclusive && cf.statistic(c.Metric) && a.m == b.m && c.Ratio == 0 && !math.IsInf(a.ci, 1) && !math.IsInf(b.ci, 1) {
			// Two equal statistics of the instances (a median, a
			// minimum): exact values with no sampling interval, so
			// "strictly lower" (or higher) is decided: it does not hold.
			v = Fail
			detail += " (equal statistics)"
		}
		if c.Sequential() {
			v, detail = cf.seqUnpairedPoint(c, ra[k], rb[k], detail)
		}
		r.Points = append(r.Points, PointResult{k, v, detail})
	}
	what := fmt.Sprintf("%s: %s %s %s", c.Metric, c.SideLabel(true), rel, bName)
	switch c.Over {
	case decl.OverEveryPoint, decl.OverShare:
		overPoints(c, &r, what, "overlapping CIs")
	case decl.OverMean:
		if len(diffs) == 0 {
			r.Verdict = Inconclusive
			r.Numbers = "no paired values"
			break
		}
		d, how := averageOver(diffEsts)
		r.Verdict = lowerAt(d, est{0, 0, true, 0, 0})
		sign := c.SideLabel(true) + "−" + bName
		if c.Op == "higher" {
			sign = bName + "−" + c.SideLabel(true)
		}
		r.Numbers = fmt.Sprintf("%s on average: mean difference over %d points %s = %s (%s; want < 0)",
			what, len(diffs), sign, d, how)
	}
	return r
}

// averageOver is the mean of per-point estimates, each point weighted
// equally, with a 95% confidence interval and how it was made. When every
// point has a standard error, the interval comes from the points' own
// replicates: the points are the sweep's fixed design (the paper's grid of
// loads, clusters, sizes), not a sample of points, so the uncertainty of
// their average is that of each point's mean, se = sqrt(Σ se_k²)/K, with
// Σ(n_k − 1) degrees of freedom. Otherwise (a single replicate, a summary
// column) the points' own scatter is all there is: one point keeps its
// interval, several take the interval over the points.
func averageOver(ps []est) (est, string) {
	k := float64(len(ps))
	var sum, v float64
	dof, design := 0, true
	for _, p := range ps {
		sum += p.m
		v += p.se * p.se
		dof += p.dof
		design = design && p.dof > 0
	}
	sampled := 0
	for _, p := range ps {
		if math.IsInf(p.ci, 1) {
			sampled++
		}
	}
	switch {
	case sampled > 0:
		// The points' scatter is the design's, not sampling noise: one
		// sampled instance at a point leaves the average without interval.
		return est{sum / k, math.Inf(1), true, 0, 0}, fmt.Sprintf("%d of %d points have one replicate of an instance drawn from the seed: no interval", sampled, len(ps))
	case design:
		se := math.Sqrt(v) / k
		return est{sum / k, results.TQuantile975(max(dof, 1)) * se, true, se, dof}, "95% CI from the points' replicates"
	case len(ps) == 1:
		return est{ps[0].m, ps[0].ci, true, 0, 0}, "95% CI of the one point"
	}
	means := make([]float64, len(ps))
	for i, p := range ps {
		means[i] = p.m
	}
	st := results.Describe(means)
	ci := st.CI95
	if math.IsNaN(ci) {
		ci = 0
	}
	return est{st.Mean, ci, true, 0, 0}, fmt.Sprintf("95%% CI over %d points", len(ps))
}

// diffSE is an unpaired point's difference A − B (or B − A, d; ci its
// interval from the two means' intervals) with its standard error from the two means' standard deviations and replicate
// counts, when the summary has them (a model metric), else none.
func (cf *claimFrame) diffSE(c *decl.Claim, ra, rb int, d, ci float64) est {
	f := cf.f
	si, ni := f.Index(c.Metric+"_std"), f.Index(results.ColN)
	sa, okA := f.CellFloat(si, ra)
	sb, okB := f.CellFloat(si, rb)
	na, okNA := f.CellFloat(ni, ra)
	nb, okNB := f.CellFloat(ni, rb)
	if !okA || !okB || !okNA || !okNB || na < 2 || nb < 2 {
		return est{d, ci, true, 0, 0}
	}
	if c.Ratio > 0 {
		sb *= c.Ratio
	}
	return est{d, ci, true, math.Sqrt(sa*sa/na + sb*sb/nb), int(na+nb) - 2}
}

// overPoints aggregates a compare claim's per-point verdicts over every
// point (all pass → pass, any fail → fail) or over a share of them (enough
// passes → pass; too few even counting the undecided → fail), and writes
// the numbers; undecided names the undecided points ("overlapping CIs").
func overPoints(c *decl.Claim, r *Result, what, undecided string) {
	pass, fail, inc := count(r.Points)
	n := len(r.Points)
	if c.Over == decl.OverEveryPoint {
		r.Verdict = aggregate(pass, fail, inc)
		r.Numbers = fmt.Sprintf("%s at %d/%d points (%d fail, %d %s)", what, pass, n, fail, inc, undecided)
		if p := firstWith(r.Points, r.Verdict); p != nil && r.Verdict != Pass {
			r.Numbers += "; e.g. " + pointLabel(p.Point) + ": " + p.Detail
		}
		return
	}
	need := int(math.Ceil(c.Share*float64(n) - 1e-9))
	switch {
	case pass >= need:
		r.Verdict = Pass
	case pass+inc < need:
		r.Verdict = Fail
	default:
		r.Verdict = Inconclusive
	}
	r.Numbers = fmt.Sprintf("%s at %d/%d points (%.0f%%), %d needed for share ≥ %g; %d fail, %d %s",
		what, pass, n, 100*float64(pass)/float64(n), need, c.Share, fail, inc, undecided)
}

// pointLabel names a point or group in the numbers; a claim whose points
// differ in no other parameter has one group, "all points".
func pointLabel(p string) string {
	if p == "" {
		return "all points"
	}
	return p
}

func firstWith(ps []PointResult, v Verdict) *PointResult {
	for i := range ps {
		if ps[i].Verdict == v {
			return &ps[i]
		}
	}
	return nil
}

// groups splits the filtered rows by every parameter but the excluded
// ones, in order of first appearance.
func (cf *claimFrame) groups(c *decl.Claim, exclude ...string) (keys []string, rows map[string][]int) {
	rows = map[string][]int{}
	for _, r := range c.Where.Rows(cf.f) {
		k := cf.key(r, exclude...)
		if _, ok := rows[k]; !ok {
			keys = append(keys, k)
		}
		rows[k] = append(rows[k], r)
	}
	return keys, rows
}

// tiedTo returns the varying parameters whose value is a function of
// param's (zipped axes, such as a load range's lower and upper ends): a
// claim along param must not split its groups by them.
func (cf *claimFrame) tiedTo(param string) []string {
	pi := cf.f.Index(param)
	if pi < 0 {
		return nil
	}
	var out []string
	for i, name := range cf.params {
		if name == param {
			continue
		}
		seen := map[string]string{}
		tied := true
		for r := 0; r < cf.f.Len() && tied; r++ {
			k, v := cf.f.CellLabel(pi, r), cf.f.CellLabel(cf.pcol[i], r)
			if w, ok := seen[k]; ok && w != v {
				tied = false
			}
			seen[k] = v
		}
		if tied {
			out = append(out, name)
		}
	}
	return out
}

// sortByParam orders rows by the numeric value of a parameter.
func (cf *claimFrame) sortByParam(rows []int, param string) {
	pi := cf.f.Index(param)
	slices.SortStableFunc(rows, func(a, b int) int {
		return results.CompareLabels(cf.f.CellLabel(pi, a), cf.f.CellLabel(pi, b))
	})
}

func (cf *claimFrame) monotone(c *decl.Claim) Result {
	var r Result
	keys, groups := cf.groups(c, append(cf.tiedTo(c.In), c.In)...)
	pi := cf.f.Index(c.In)
	up := c.Direction == "increasing"
	for _, k := range keys {
		rows := groups[k]
		cf.sortByParam(rows, c.In)
		var vals []est
		var at []string
		for _, row := range rows {
			if v := cf.valueFor(c, row); v.ok {
				vals = append(vals, v)
				at = append(at, cf.f.CellLabel(pi, row))
			}
		}
		if len(vals) < 2 {
			r.Points = append(r.Points, PointResult{k, Inconclusive, fmt.Sprintf("%d value(s) of %s", len(vals), c.In)})
			continue
		}
		// later-than: a step "goes the claimed way" when next is above
		// prev (increasing) or below it (decreasing).
		step := func(prev, next est) Verdict {
			if up {
				return lowerAt(prev, next)
			}
			return lowerAt(next, prev)
		}
		var wrong, sig, meanOK int
		var worst string
		for i := 1; i < len(vals); i++ {
			switch step(vals[i-1], vals[i]) {
			case Fail:
				wrong++
				if worst == "" {
					worst = fmt.Sprintf("%s=%s: %s → %s=%s: %s", c.In, at[i-1], vals[i-1], c.In, at[i], vals[i])
				}
			case Pass:
				sig++
			}
			if (up && vals[i].m >= vals[i-1].m) || (!up && vals[i].m <= vals[i-1].m) {
				meanOK++
			}
		}
		steps := len(vals) - 1
		overall := step(vals[0], vals[len(vals)-1])
		v := Inconclusive
		switch {
		case wrong > 0:
			v = Fail
		case c.Strict && sig == steps:
			v = Pass
		case !c.Strict && meanOK == steps && overall == Pass:
			v = Pass
		}
		d := fmt.Sprintf("%s from %s (%s=%s) to %s (%s=%s); %d/%d steps of the mean go the claimed way, %d significantly, %d significantly the other way",
			c.Metric, vals[0], c.In, at[0], vals[len(vals)-1], c.In, at[len(at)-1], meanOK, steps, sig, wrong)
		if worst != "" {
			d += " (first: " + worst + ")"
		}
		r.Points = append(r.Points, PointResult{k, v, d})
	}
	pass, fail, inc := count(r.Points)
	r.Verdict = aggregate(pass, fail, inc)
	r.Numbers = fmt.Sprintf("%s %s in %s: %d/%d series pass, %d fail, %d inconclusive", c.Metric, c.Direction, c.In, pass, len(r.Points), fail, inc)
	if p := firstWith(r.Points, r.Verdict); p != nil {
		r.Numbers += "; e.g. " + pointLabel(p.Point) + ": " + p.Detail
	}
	if len(r.Points) == 0 {
		r.Numbers = "no points"
	}
	return r
}

func (cf *claimFrame) converge(c *decl.Claim) Result {
	var r Result
	keys, groups := cf.groups(c, c.As, c.Series)
	si, ai := cf.f.Index(c.Series), cf.f.Index(c.As)
	for _, k := range keys {
		rows := groups[k]
		cf.sortByParam(rows, c.As)
		// Difference A − B at each value of the growing parameter.
		type diff struct {
			at string
			d  est
		}
		var ds []diff
		byAt := map[string][2]int{}
		var ats []string
		for _, row := range rows {
			at := cf.f.CellLabel(ai, row)
			e, seen := byAt[at]
			if !seen {
				e = [2]int{-1, -1}
				ats = append(ats, at)
			}
			switch cf.f.CellLabel(si, row) {
			case c.A:
				e[0] = row
			case c.B:
				e[1] = row
			}
			byAt[at] = e
		}
		for _, at := range ats {
			e := byAt[at]
			if e[0] < 0 || e[1] < 0 {
				continue
			}
			a, b := cf.valueFor(c, e[0]), cf.valueFor(c, e[1])
			if a.ok && b.ok {
				ds = append(ds, diff{at, est{a.m - b.m, math.Hypot(a.ci, b.ci), true, 0, 0}})
			}
		}
		if len(ds) == 0 {
			r.Points = append(r.Points, PointResult{k, Inconclusive, "no matched values"})
			continue
		}
		last := ds[len(ds)-1]
		ad := math.Abs(last.d.m)
		v := Inconclusive
		switch {
		case ad+last.d.ci < c.Eps:
			v = Pass
		case ad-last.d.ci > c.Eps:
			v = Fail
		}
		r.Points = append(r.Points, PointResult{k, v, fmt.Sprintf("%s−%s = %s at %s=%s (largest), %s at %s=%s; eps %g",
			c.A, c.B, last.d, c.As, last.at, ds[0].d, c.As, ds[0].at, c.Eps)})
	}
	pass, fail, inc := count(r.Points)
	r.Verdict = aggregate(pass, fail, inc)
	r.Numbers = fmt.Sprintf("|%s(%s) − %s(%s)| < %g at the largest %s: %d/%d groups pass, %d fail, %d inconclusive",
		c.Metric, c.A, c.Metric, c.B, c.Eps, c.As, pass, len(r.Points), fail, inc)
	if p := firstWith(r.Points, r.Verdict); p != nil {
		r.Numbers += "; e.g. " + pointLabel(p.Point) + ": " + p.Detail
	}
	return r
}

func (cf *claimFrame) published(c *decl.Claim) Result {
	if c.Spread != "" {
		return cf.publishedSpread(c)
	}
	var r Result
	for _, row := range c.Where.Rows(cf.f) {
		e := cf.valueFor(c, row)
		k := cf.key(row)
		if !e.ok {
			r.Points = append(r.Points, PointResult{k, Inconclusive, "no value"})
			continue
		}
		if c.Above != nil || c.Below != nil {
			r.Points = append(r.Points, PointResult{k, withinBounds(e, c.Above, c.Below), fmt.Sprintf("%s = %s, published %s", c.Metric, e, boundsText(c.Above, c.Below))})
			continue
		}
		dev := math.Abs(e.m - c.Value)
		v := Inconclusive
		switch {
		case dev+e.ci <= c.Tol:
			v = Pass
		case dev-e.ci > c.Tol:
			v = Fail
		}
		r.Points = append(r.Points, PointResult{k, v, fmt.Sprintf("%s = %s, published %g ± %g (deviation %s)", c.Metric, e, c.Value, c.Tol, g4(dev))})
	}
	if len(r.Points) == 0 {
		r.Verdict = Fail
		r.Numbers = "no summary row matches where: " + c.Where.String()
		return r
	}
	pass, fail, inc := count(r.Points)
	r.Verdict = aggregate(pass, fail, inc)
	r.Numbers = fmt.Sprintf("%d/%d points within tolerance", pass, len(r.Points))
	if c.Above != nil || c.Below != nil {
		r.Numbers = fmt.Sprintf("%d/%d points %s", pass, len(r.Points), boundsText(c.Above, c.Below))
	}
	if p := firstWith(r.Points, r.Verdict); p != nil {
		r.Numbers += "; " + p.Point + ": " + p.Detail
	}
	return r
}

// withinBounds decides a value against published bounds: pass when its CI
// lies strictly inside them, fail when it lies wholly outside one of them,
// inconclusive when it straddles a bound.
// publishedSpread decides a published claim with spread: P on one value:
// the mean, over the points of the other parameters and over every pair of
// P's values at each point, of |metric(P = u) − metric(P = v)|. Its
// interval is the mean of the pairs' bounds ci_u + ci_v, which holds
// however the values are correlated (a statistic column, exact, has none).
func (cf *claimFrame) publishedSpread(c *decl.Claim) Result {
	var r Result
	e, groups, pairs, missing := cf.spread(c)
	what := fmt.Sprintf("mean |Δ %s| between two values of %s", c.Metric, c.Spread)
	if pairs == 0 {
		r.Verdict = Inconclusive
		r.Numbers = fmt.Sprintf("%s: no point has two values of %s with a value", what, c.Spread)
		return r
	}
	detail := fmt.Sprintf("%s over %d points and %d pairs = %s", what, groups, pairs, e)
	if missing > 0 {
		detail += fmt.Sprintf(" (%d rows without a value)", missing)
	}
	var v Verdict
	if c.Above != nil || c.Below != nil {
		v = withinBounds(e, c.Above, c.Below)
		detail += ", published " + boundsText(c.Above, c.Below)
	} else {
		dev := math.Abs(e.m - c.Value)
		v = Inconclusive
		switch {
		case dev+e.ci <= c.Tol:
			v = Pass
		case dev-e.ci > c.Tol:
			v = Fail
		}
		detail += fmt.Sprintf(", published %g ± %g (deviation %s)", c.Value, c.Tol, g4(dev))
	}
	r.Points = []PointResult{{SpreadPoint(c), v, detail}}
	r.Verdict = v
	r.Numbers = detail
	return r
}

// SpreadPoint is the point label of a spread claim's one value.
func SpreadPoint(c *decl.Claim) string { return "spread over " + c.Spread }

// spread computes a spread claim's value (see publishedSpread): the
// estimate, the points with two or more values, the pairs, and the rows
// without a value.
func (cf *claimFrame) spread(c *decl.Claim) (e est, groups, pairs, missing int) {
	keys, rows := cf.groups(c, c.Spread)
	var sum, ciSum float64
	for _, k := range keys {
		var es []est
		for _, row := range rows[k] {
			if e := cf.valueFor(c, row); e.ok {
				es = append(es, e)
			} else {
				missing++
			}
		}
		if len(es) < 2 {
			continue
		}
		groups++
		for i := range es {
			for j := i + 1; j < len(es); j++ {
				sum += math.Abs(es[i].m - es[j].m)
				ciSum += es[i].ci + es[j].ci
				pairs++
			}
		}
	}
	if pairs > 0 {
		e = est{sum / float64(pairs), ciSum / float64(pairs), true, 0, 0}
	}
	return e, groups, pairs, missing
}

func withinBounds(e est, above, below *float64) Verdict {
	v := Pass
	if above != nil {
		v = worse(v, lowerAt(est{*above, 0, true, 0, 0}, e))
	}
	if below != nil {
		v = worse(v, lowerAt(e, est{*below, 0, true, 0, 0}))
	}
	return v
}

// boundsText renders published bounds: "above 100", "below 1800", "in (a, b)".
func boundsText(above, below *float64) string {
	switch {
	case above != nil && below != nil:
		return fmt.Sprintf("in (%g, %g)", *above, *below)
	case above != nil:
		return fmt.Sprintf("above %g", *above)
	}
	return fmt.Sprintf("below %g", *below)
}
