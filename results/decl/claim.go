package decl

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"schedfarm/results"
	"schedfarm/simcore"
	"schedfarm/sweep"
)

// Claim operators.
const (
	ClaimCompare   = "compare"   // A's metric lower/higher than B's (every point, on average, or a share of points)
	ClaimMonotone  = "monotone"  // a metric increases/decreases with a parameter
	ClaimConverge  = "converge"  // |A − B| falls below eps as a parameter grows
	ClaimPublished = "published" // a value lies within a tolerance of a published number
	ClaimArgBest   = "argbest"   // the value of a parameter that gives the best metric moves monotonically with another
)

var claimKinds = []string{ClaimCompare, ClaimMonotone, ClaimConverge, ClaimPublished, ClaimArgBest}

// Aggregations of a compare claim over the matched points.
const (
	OverEveryPoint = "every_point"
	OverMean       = "mean"
	OverShare      = "share"
)

// Claim is one validated claim declaration. Every claim reads the summary.
type Claim struct {
	ID string
	// Source is where the claim comes from ("Section 5.1, Fig. 3"); Text
	// is the paper's sentence.
	Source, Text string
	Kind         string
	// Metric is a bare metric name (its mean, with its ci95 as the
	// uncertainty) or any numeric summary column (no uncertainty).
	Metric string
	Where  Filter
	// Series, A and B: the column that tells the series apart and the two
	// values compared (compare, converge; Series also splits monotone).
	Series, A, B string
	// AWhere and BWhere (compare, a_where: and b_where:), when set, name
	// each side's own point: A's rows must also match AWhere, B's rows
	// BWhere, and the columns they name are left out of the point key, so
	// that two cells differing in more than the series are compared
	// ("Garey & Graham with list scheduling against PSRS with EASY
	// backfilling": series order, a_where executor=list, b_where
	// executor=easy). Nil when unset: both sides at the same point.
	AWhere, BWhere Filter
	// Op is "lower" or "higher" (compare).
	Op string
	// Over is every_point, mean or share; Share is the required fraction.
	Over  string
	Share float64
	// Paired (compare) decides each point on the paired differences A − B
	// of jobs.parquet, matched by replicate and seed: every algorithm at a
	// point runs the identical instance (common random numbers), so the
	// differences' CI is far tighter than the two means' CIs.
	Paired bool
	// PerInstance (with Paired) decides each point by dominance over the
	// paired instances instead of a confidence interval: A must be no worse
	// than B on every instance and better on at least one. It states "A is
	// always lower" literally: one instance where A is worse fails the point,
	// and a point where every instance ties is undecided.
	PerInstance bool
	// Ratio, when positive, compares A with Ratio × B instead of B ("A is
	// more than 25% lower than B": ratio 0.75, op lower). Unpaired, each
	// point compares A with Ratio × B; paired, the statistic of an instance
	// is the ratio A/B instead of the difference A − B, so over: mean is
	// the mean of the per-instance ratios (a paper's "relative to B,
	// averaged over the scenarios") and it is compared with Ratio.
	Ratio float64
	// Alpha and Margin (compare), when either is declared, decide each
	// point on an anytime-valid confidence sequence at level 1 − Alpha
	// (DefaultAlpha when only Margin is given) instead of the fixed 95%
	// interval, so the verdict stays valid however the replicates were
	// added (see package claims, sequential.go). Margin, in the compared quantity's units
	// (A − B, or A/B with a ratio), is the paper's practical equivalence
	// ("no difference larger than m"): a sequence within (−m, m) decides
	// the claim as failed, equivalent. It comes from the paper's wording or
	// precision, never from the data. 0 when undeclared.
	Alpha, Margin float64
	// Anytime is set on the claims of a sweep with adaptive replicates
	// (replicates: {min, max}) that read a model metric per point: every
	// interval they decide on is the anytime-valid confidence sequence at
	// level 1 − α instead of the fixed 95% interval (compare claims as with
	// alpha:; monotone, converge, argbest and published claims on each
	// point's mean), so that the coordinator adding replicates until they
	// are decided does not inflate their error rate. Over: mean and
	// per_instance claims keep their own tests and do not drive rounds.
	Anytime bool
	// In is the parameter (monotone, argbest) and Direction
	// increasing/decreasing; Strict requires every step to be significant.
	In, Direction string
	Strict        bool
	// As is the parameter that grows (converge), Eps the bound.
	As  string
	Eps float64
	// Value and Tol: the published number and the tolerance (published).
	Value, Tol float64
	// Above and Below, instead of Value and Tol, bound a published value
	// on one side or both ("maximum makespans under 1800"); nil when unset.
	Above, Below *float64
	// Precision (published, optional) is the paper's own precision for
	// Value (its stated bound or last printed digit): the scoreboard's
	// tolerance for the cell instead of the one rule (10%, 10 points).
	Precision *float64
	// Spread (published, optional) names a parameter: the value checked is
	// then not one row's but the mean absolute difference of the metric
	// between two values of Spread, over every pair of its values at each
	// point of the other parameters and over those points ("the difference
	// between median values for different populations for a single
	// algorithm is on average 0.40": spread over the population, the
	// points are the algorithms).
	Spread string
	// Of is the parameter whose best value is sought (argbest) and Goal
	// says whether best is the lowest ("min") or highest ("max") metric.
	Of, Goal string
	// PrecisionQuote (published, required with Precision) quotes or
	// describes exactly where the paper's own precision comes from: the
	// printed digits of a table, the resolution of the chart the value is
	// read from.
	PrecisionQuote string
	// ExplainedBy, when set, names the sensitivity sweep whose claim passes
	// under an alternative reading of the paper (explained_by:).
	ExplainedBy *Explanation
	// Loose (loose:), when set, says why the claim knowingly checks less
	// than its sentence: a tolerance wider than the one rule without the
	// paper's precision, a share or an average of points the paper's words
	// do not give, a subset of the sentence's points. A loose claim that
	// passes is "pass (loose)" on the scoreboard, never a pass.
	Loose string
	// ShareQuote (share_quote:) quotes the paper's words that give a
	// compare claim's share of points or its average ("in 55 of 60
	// cases", "on average"): required with over: share or over: mean
	// unless the claim is Loose.
	ShareQuote string
	// Invariant (invariant:), when set, says which theorem's bound or model
	// constraint the claim checks: not a number or statement the paper
	// prints as a result. The scoreboard counts invariants apart (held /
	// checked), neither in the pass and fail columns nor in the cells.
	Invariant string

	File      string
	Line, Col int
}

var (
	claimKeys     = []string{"id", "source", "text", "explained_by", "loose", "share_quote", "invariant", ClaimCompare, ClaimMonotone, ClaimConverge, ClaimPublished, ClaimArgBest}
	compareKeys   = []string{"metric", "series", "a", "b", "a_where", "b_where", "op", "over", "paired", "per_instance", "ratio", "alpha", "margin", "where"}
	monotoneKeys  = []string{"metric", "in", "direction", "series", "strict", "where"}
	convergeKeys  = []string{"metric", "series", "a", "b", "as", "eps", "where"}
	publishedKeys = []string{"metric", "where", "value", "tol", "above", "below", "precision", "precision_quote", "spread"}
	argBestKeys   = []string{"metric", "of", "in", "goal", "direction", "where"}
	shareRE       = regexp.MustCompile(`^share\s*>=\s*([0-9]*\.?[0-9]+)(%?)$`)
)

func (p *declParser) claims(n *yaml.Node, key string) []*Claim {
	items, ok := p.Sequence(n, key)
	if !ok {
		return nil
	}
	cs, err := columns(p.schema, results.SummaryTable)
	if err != nil {
		p.Errf(n, key, "", "%v", err)
		return nil
	}
	var out []*Claim
	ids := map[string]bool{}
	for i, it := range items {
		k := sweep.Index(key, i)
		c := p.claim(it, k, cs, i)
		if c == nil {
			continue
		}
		if ids[c.ID] {
			p.Errf(it, k, "", "claim id %q used twice", c.ID)
			continue
		}
		ids[c.ID] = true
		out = append(out, c)
	}
	return out
}

func (p *declParser) claim(n *yaml.Node, key string, cs *columnSet, i int) *Claim {
	m, ok := p.Fields(n, key, claimKeys)
	if !ok {
		return nil
	}
	before := len(p.Errs)
	c := &Claim{ID: fmt.Sprintf("claim-%d", i+1), File: p.File, Line: n.Line, Col: n.Column}
	if e, ok := m["id"]; ok {
		if c.ID, ok = p.Text(e.V, sweep.Join(key, "id")); ok && !idRE.MatchString(c.ID) {
			p.Errf(e.V, sweep.Join(key, "id"), "use letters, digits, '_', '-' and '.'", "bad claim id %q", c.ID)
		}
	}
	if e, ok := m["source"]; ok {
		c.Source, _ = p.Text(e.V, sweep.Join(key, "source"))
	}
	if e, ok := m["text"]; ok {
		c.Text, _ = p.Text(e.V, sweep.Join(key, "text"))
	}
	if e, ok := m["explained_by"]; ok {
		c.ExplainedBy = p.explanation(e.V, sweep.Join(key, "explained_by"))
	}
	nonEmpty := func(name, hint string) string {
		e, ok := m[name]
		if !ok {
			return ""
		}
		s, ok := p.Text(e.V, sweep.Join(key, name))
		if ok && strings.TrimSpace(s) == "" {
			p.Errf(sweep.Resolve(e.V), sweep.Join(key, name), hint, "%s must not be empty", name)
		}
		return s
	}
	c.Loose = nonEmpty("loose", "say what the claim checks less than its sentence, and why")
	c.ShareQuote = nonEmpty("share_quote", "quote the paper's words that give the share or the average")
	c.Invariant = nonEmpty("invariant", "name the theorem or the constraint the claim checks")
	var body sweep.Pair
	for _, k := range claimKinds {
		if e, ok := m[k]; ok {
			if c.Kind != "" {
				p.Errf(e.K, sweep.Join(key, k), "split it into two claims", "a claim has one of %s, not both %s and %s", strings.Join(claimKinds, ", "), c.Kind, k)
				continue
			}
			c.Kind, body = k, e
		}
	}
	if c.Kind == "" {
		p.Errf(n, key, "", "a claim needs one of: %s", strings.Join(claimKinds, ", "))
		return nil
	}
	bk := sweep.Join(key, c.Kind)
	allowed := map[string][]string{ClaimCompare: compareKeys, ClaimMonotone: monotoneKeys, ClaimConverge: convergeKeys, ClaimPublished: publishedKeys, ClaimArgBest: argBestKeys}[c.Kind]
	b, ok := p.Fields(body.V, bk, allowed)
	if !ok {
		return nil
	}
	at := sweep.Resolve(body.V)
	need := func(name string) (sweep.Pair, bool) {
		e, ok := b[name]
		if !ok {
			p.Errf(at, bk, "", "missing required key %q", name)
		}
		return e, ok
	}
	metric := func() {
		if e, ok := need("metric"); ok {
			if name, ok := p.column(e.V, sweep.Join(bk, "metric"), cs); ok {
				if i := cs.layout.Index(name); i >= 0 && cs.layout.Columns[i].Type == results.String {
					p.Errf(sweep.Resolve(e.V), sweep.Join(bk, "metric"), "", "column %q is not numeric", name)
				}
				c.Metric = name
			}
		}
	}
	param := func(name string, required bool) string {
		e, ok := b[name]
		if !ok {
			if required {
				p.Errf(at, bk, "", "missing required key %q", name)
			}
			return ""
		}
		s, ok := p.Text(e.V, sweep.Join(bk, name))
		if !ok {
			return ""
		}
		if _, isParam := p.schema.Param(s); !isParam {
			var names []string
			for _, pr := range p.schema.Params {
				names = append(names, pr.Name)
			}
			p.Errf(sweep.Resolve(e.V), sweep.Join(bk, name), didYouMeanOr(s, names), "%q is not a parameter of the model", s)
			return ""
		}
		return s
	}
	seriesValue := func(name string) string {
		e, ok := need(name)
		if !ok {
			return ""
		}
		v := sweep.Resolve(e.V)
		if v.Kind != yaml.ScalarNode {
			p.Errf(v, sweep.Join(bk, name), "", "want a value of %s, got %s", c.Series, sweep.Describe(v))
			return ""
		}
		val := sweep.ScalarValue(v)
		if prm, ok := p.schema.Param(c.Series); ok {
			checked, err := prm.Check(val)
			if err != nil {
				p.Errf(v, sweep.Join(bk, name), "", "%v", err)
				return ""
			}
			val = checked
		}
		return results.Label(val)
	}
	number := func(name string) float64 {
		if e, ok := need(name); ok {
			x, _ := p.Number(e.V, sweep.Join(bk, name))
			return x
		}
		return 0
	}
	metric()
	if e, ok := b["where"]; ok {
		c.Where = p.where(e.V, sweep.Join(bk, "where"), cs)
	}
	switch c.Kind {
	case ClaimCompare:
		c.Series = param("series", true)
		c.A, c.B = seriesValue("a"), seriesValue("b")
		p.sides(c, b, bk, cs, at)
		c.Op = "lower"
		if e, ok := b["op"]; ok {
			c.Op, _ = p.OneOf(e.V, sweep.Join(bk, "op"), "lower", "higher")
		}
		c.Over = OverEveryPoint
		if e, ok := b["over"]; ok {
			if s, ok := p.Text(e.V, sweep.Join(bk, "over")); ok {
				switch {
				case s == OverEveryPoint || s == OverMean:
					c.Over = s
				case shareRE.MatchString(s):
					g := shareRE.FindStringSubmatch(s)
					x, _ := strconv.ParseFloat(g[1], 64)
					if g[2] == "%" {
						x /= 100
					}
					if x <= 0 || x > 1 {
						p.Errf(sweep.Resolve(e.V), sweep.Join(bk, "over"), "", "share must be in (0, 1] (or (0%%, 100%%])")
					}
					c.Over, c.Share = OverShare, x
				default:
					p.Errf(sweep.Resolve(e.V), sweep.Join(bk, "over"), didYouMeanOr(s, []string{OverEveryPoint, OverMean, "share >= 0.9"}),
						"%q: want every_point, mean or share >= P (a fraction, or a percentage with %%)", s)
				}
			}
		}
		if e, ok := b["paired"]; ok {
			c.Paired, _ = p.Bool(e.V, sweep.Join(bk, "paired"))
			if _, isMetric := metricOf(p.schema, c.Metric); c.Paired && c.Metric != "" && !isMetric {
				p.Errf(sweep.Resolve(e.V), sweep.Join(bk, "paired"), "", "paired compares need a metric of the model (a jobs.parquet column), not %q", c.Metric)
			}
		}
		if e, ok := b["per_instance"]; ok {
			c.PerInstance, _ = p.Bool(e.V, sweep.Join(bk, "per_instance"))
			switch {
			case c.PerInstance && !c.Paired:
				p.Errf(sweep.Resolve(e.V), sweep.Join(bk, "per_instance"), "add paired: true", "per_instance compares instances, so it needs paired: true")
			case c.PerInstance && c.Over == OverMean:
				p.Errf(sweep.Resolve(e.V), sweep.Join(bk, "per_instance"), "use over: every_point or over: share >= P", "per_instance decides each point; it cannot be averaged (over: mean)")
			}
		}
		if e, ok := b["ratio"]; ok {
			if x, ok := p.Number(e.V, sweep.Join(bk, "ratio")); ok {
				if x <= 0 || math.IsInf(x, 0) {
					p.Errf(sweep.Resolve(e.V), sweep.Join(bk, "ratio"), "", "ratio must be a positive number (A is compared with ratio × B)")
				}
				c.Ratio = x
			}
		}
		p.sequential(c, b, bk)
	case ClaimMonotone:
		c.In = param("in", true)
		c.Series = param("series", false)
		c.Direction = "increasing"
		if e, ok := b["direction"]; ok {
			c.Direction, _ = p.OneOf(e.V, sweep.Join(bk, "direction"), "increasing", "decreasing")
		}
		if e, ok := b["strict"]; ok {
			c.Strict, _ = p.Bool(e.V, sweep.Join(bk, "strict"))
		}
	case ClaimConverge:
		c.Series = param("series", true)
		c.A, c.B = seriesValue("a"), seriesValue("b")
		c.As = param("as", true)
		c.Eps = number("eps")
		if c.Eps <= 0 {
			p.Errf(at, sweep.Join(bk, "eps"), "", "eps must be positive")
		}
	case ClaimArgBest:
		c.Of = param("of", true)
		c.In = param("in", true)
		if c.Of != "" && c.Of == c.In {
			p.Errf(at, sweep.Join(bk, "in"), "name two different parameters", "of and in are both %q", c.Of)
		}
		c.Goal = "min"
		if e, ok := b["goal"]; ok {
			c.Goal, _ = p.OneOf(e.V, sweep.Join(bk, "goal"), "min", "max")
		}
		c.Direction = "increasing"
		if e, ok := b["direction"]; ok {
			c.Direction, _ = p.OneOf(e.V, sweep.Join(bk, "direction"), "increasing", "decreasing")
		}
	case ClaimPublished:
		if c.Spread = param("spread", false); c.Spread != "" {
			for _, cond := range c.Where {
				if cond.Col == c.Spread && len(cond.Values) < 2 {
					p.Errf(at, sweep.Join(bk, "spread"), "keep two or more of its values in where:, or drop spread", "spread over %q, but where: keeps one value of it", c.Spread)
				}
			}
		}
		bound := func(name string) *float64 {
			if e, ok := b[name]; ok {
				if x, ok := p.Number(e.V, sweep.Join(bk, name)); ok {
					return &x
				}
			}
			return nil
		}
		c.Above, c.Below = bound("above"), bound("below")
		_, hasValue := b["value"]
		_, hasTol := b["tol"]
		_, hasAbove := b["above"]
		_, hasBelow := b["below"]
		if _, ok := b["precision"]; ok && (hasAbove || hasBelow) {
			p.Errf(at, sweep.Join(bk, "precision"), "", "precision goes with value, not with bounds (above, below)")
		}
		switch {
		case (hasAbove || hasBelow) && (hasValue || hasTol):
			p.Errf(at, bk, "keep value and tol, or above and/or below", "a published claim gives value and tol or bounds (above, below), not both")
		case hasAbove || hasBelow:
			if c.Above != nil && c.Below != nil && *c.Above >= *c.Below {
				p.Errf(at, bk, "", "above (%g) must be less than below (%g)", *c.Above, *c.Below)
			}
		default:
			c.Value = number("value")
			c.Tol = number("tol")
			if c.Tol < 0 {
				p.Errf(at, sweep.Join(bk, "tol"), "", "tol must not be negative")
			}
			if c.Precision = bound("precision"); c.Precision != nil && *c.Precision <= 0 {
				p.Errf(at, sweep.Join(bk, "precision"), "", "precision must be positive")
			}
			if e, ok := b["precision_quote"]; ok {
				if c.PrecisionQuote, _ = p.Text(e.V, sweep.Join(bk, "precision_quote")); strings.TrimSpace(c.PrecisionQuote) == "" {
					p.Errf(sweep.Resolve(e.V), sweep.Join(bk, "precision_quote"), "", "precision_quote must not be empty")
				}
			}
			switch {
			case c.Precision != nil && c.PrecisionQuote == "":
				p.Errf(at, sweep.Join(bk, "precision"), "quote the paper's own precision (the printed digits of a table, the resolution of the chart the value is read from) as precision_quote:", "precision without precision_quote")
			case c.Precision == nil && c.PrecisionQuote != "":
				p.Errf(at, sweep.Join(bk, "precision_quote"), "give the precision it quotes as precision:", "precision_quote without precision")
			}
			if c.Metric != "" && c.Loose == "" {
				rule := RuleTolerance(c.Value, Unit(p.schema, c.Metric))
				allowed := rule
				if c.Precision != nil && c.PrecisionQuote != "" {
					allowed = *c.Precision // the paper's own precision replaces the rule
				}
				if c.Tol > allowed*(1+1e-9) {
					hint := fmt.Sprintf("tighten tol to at most %g (the rule: %s), give the paper's own precision (precision: and precision_quote:), or declare the claim loose: with a reason (a loose pass is never counted as a pass)", allowed, RuleText(Unit(p.schema, c.Metric)))
					p.Errf(at, sweep.Join(bk, "tol"), hint, "tol %g is looser than the one tolerance rule allows for %g", c.Tol, c.Value)
				}
			}
		}
	}
	if c.Kind == ClaimCompare && (c.Over == OverShare || c.Over == OverMean) && c.ShareQuote == "" && c.Loose == "" {
		what := "an average of the points"
		if c.Over == OverShare {
			what = fmt.Sprintf("a share (%g) of the points", c.Share)
		}
		p.Errf(at, sweep.Join(bk, "over"), `quote the paper's words that give it as share_quote: ("most", "in 55 of 60 cases", "on average"), use over: every_point (a claim covers every point its sentence covers), or declare the claim loose: with a reason`,
			"the claim holds on %s, which its sentence's words must give", what)
	}
	if c.Kind == ClaimCompare || c.Kind == ClaimConverge {
		if c.A != "" && c.A == c.B && c.AWhere.String() == c.BWhere.String() {
			p.Errf(at, bk, "", "a and b are the same series value %q", c.A)
		}
	}
	if len(p.Errs) > before {
		return nil
	}
	return c
}

// sides reads a compare claim's a_where: and b_where:. Their columns must
// be parameters, differ from the series and from where:'s columns, and each
// must be named by both sides (a column only one side names would leave
// the other side's value free, matching it to several points).
func (p *declParser) sides(c *Claim, b map[string]sweep.Pair, bk string, cs *columnSet, at *yaml.Node) {
	for _, side := range []struct {
		name string
		f    *Filter
	}{{"a_where", &c.AWhere}, {"b_where", &c.BWhere}} {
		e, ok := b[side.name]
		if !ok {
			continue
		}
		k := sweep.Join(bk, side.name)
		*side.f = p.where(e.V, k, cs)
		if v := sweep.Resolve(e.V); v.Kind == yaml.MappingNode && len(v.Content) == 0 {
			p.Errf(sweep.Resolve(e.V), k, "name the parameters that tell this side's point apart, or drop "+side.name, "%s is empty", side.name)
		}
		for _, cond := range *side.f {
			switch {
			case !slices.Contains(cs.paramNames(), cond.Col):
				p.Errf(sweep.Resolve(e.V), sweep.Join(k, cond.Col), "", "%s names points by parameters; %q is not a parameter of the model", side.name, cond.Col)
			case cond.Col == c.Series:
				p.Errf(sweep.Resolve(e.V), sweep.Join(k, cond.Col), "set the series' value with a: and b:", "%s must not name the series %q", side.name, c.Series)
			case c.Where.Has(cond.Col):
				p.Errf(sweep.Resolve(e.V), sweep.Join(k, cond.Col), "keep it in where: (both sides) or in a_where: and b_where:, not both", "%q is in where: and in %s", cond.Col, side.name)
			case len(cond.Values) != 1:
				p.Errf(sweep.Resolve(e.V), sweep.Join(k, cond.Col), "give one value: a side is one point", "%s gives %d values of %q", side.name, len(cond.Values), cond.Col)
			}
		}
	}
	if (c.AWhere == nil) != (c.BWhere == nil) {
		p.Errf(at, bk, "give both a_where: and b_where:, or neither", "only one side names its own point")
		return
	}
	if !slices.Equal(c.AWhere.Cols(), c.BWhere.Cols()) {
		p.Errf(at, sweep.Join(bk, "a_where"), "name the same parameters in both, each with that side's value",
			"a_where names %s but b_where names %s", strings.Join(c.AWhere.Cols(), ", "), strings.Join(c.BWhere.Cols(), ", "))
	}
}

// SideCols returns the parameters a compare claim's sides name with
// a_where: and b_where: (nil when the sides share their points).
func (c *Claim) SideCols() []string { return c.AWhere.Cols() }

// SideLabel returns the name of a compare claim's side a (or b) in
// results: its series value, with its own point when a_where:/b_where:
// name one ("gareygraham (executor=list)").
func (c *Claim) SideLabel(a bool) string {
	v, f := c.A, c.AWhere
	if !a {
		v, f = c.B, c.BWhere
	}
	if len(f) == 0 {
		return v
	}
	return v + " (" + f.String() + ")"
}

// The one tolerance rule for published values, shared by validate and the
// scoreboard's cells: 10 % of the value, 10 points for a metric in % (0.1
// for a metric in unit share, a fraction the paper gives in %).
const (
	RuleRelTol    = 0.10
	RulePointsTol = 10.0
)

// RuleTolerance returns the one rule's tolerance for a published value of
// a metric in unit: 10 % of |value| (so 0 for a value of 0: it must match
// exactly), 10 for unit %, 0.1 for unit share.
func RuleTolerance(value float64, unit string) float64 {
	switch unit {
	case "%":
		return RulePointsTol
	case "share":
		return RulePointsTol / 100
	}
	return math.Abs(value) / (1 / RuleRelTol) // divided, so 10 % of 3 prints as 0.3
}

// RuleText says the rule's tolerance for a metric in unit, in words.
func RuleText(unit string) string {
	switch unit {
	case "%":
		return "10 points on a metric in %"
	case "share":
		return "0.1 on a metric in unit share"
	}
	return "10 % of the value"
}

func didYouMeanOr(s string, names []string) string {
	if h := sweep.DidYouMean(s, names); h != "" {
		return h
	}
	return "one of: " + strings.Join(names, ", ")
}

// metricOf returns the model's metric of that name.
func metricOf(schema *simcore.Schema, name string) (simcore.Column, bool) {
	for _, m := range schema.Metrics {
		if m.Name == name {
			return m, true
		}
	}
	return simcore.Column{}, false
}
