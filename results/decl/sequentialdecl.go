package decl

import (
	"math"

	"go.yaml.in/yaml/v3"

	"schedfarm/simcore"
	"schedfarm/sweep"
)

// DefaultAlpha is a claim's error rate when it declares none: today's 95%
// intervals.
const DefaultAlpha = 0.05

// Sequential reports whether the claim is decided sequentially (it
// declares alpha or margin).
func (c *Claim) Sequential() bool {
	return c.Alpha > 0 || c.Margin > 0 || c.Anytime && c.Kind == ClaimCompare
}

// anytimeFor reports whether a claim of a sweep with adaptive replicates
// is decided on confidence sequences (Claim.Anytime): it reads a model
// metric point by point.
func anytimeFor(schema *simcore.Schema, c *Claim) bool {
	if c.Kind == ClaimCompare && (c.Over == OverMean || c.PerInstance) {
		return false
	}
	m, isMetric := metricOf(schema, c.Metric)
	// A measured metric (a scheduler's wall time) is not a function of the
	// instance: a round decided on it would make the run's jobs depend on
	// the machine.
	return isMetric && !m.Measured
}

// EffectiveAlpha returns the claim's declared α, or DefaultAlpha.
func (c *Claim) EffectiveAlpha() float64 {
	if c.Alpha > 0 {
		return c.Alpha
	}
	return DefaultAlpha
}

// sequential reads a compare claim's alpha and margin and checks that the
// claim can be decided sequentially: point by point (not over: mean, whose
// interval is over points, not replicates), on intervals (not
// per_instance), and unpaired only on a metric of the model (a summary
// column has no standard deviation).
func (p *declParser) sequential(c *Claim, b map[string]sweep.Pair, bk string) {
	if e, ok := b["alpha"]; ok {
		if x, ok := p.Number(e.V, sweep.Join(bk, "alpha")); ok {
			if x <= 0 || x >= 0.5 {
				p.Errf(sweep.Resolve(e.V), sweep.Join(bk, "alpha"), "e.g. 0.05 (95% intervals) or 0.01", "alpha must be in (0, 0.5), got %g", x)
			}
			c.Alpha = x
		}
	}
	if e, ok := b["margin"]; ok {
		if x, ok := p.Number(e.V, sweep.Join(bk, "margin")); ok {
			if x <= 0 || math.IsInf(x, 0) {
				p.Errf(sweep.Resolve(e.V), sweep.Join(bk, "margin"), "", "margin must be a positive number (no difference larger than margin counts as equivalent)")
			}
			c.Margin = x
		}
	}
	if !c.Sequential() {
		return
	}
	var at *yaml.Node
	for _, k := range []string{"alpha", "margin"} {
		if e, ok := b[k]; ok {
			at = e.K
			break
		}
	}
	switch {
	case c.Over == OverMean:
		p.Errf(at, bk, "use over: every_point or over: share >= P", "alpha and margin decide each point sequentially; over: mean is not supported")
	case c.PerInstance:
		p.Errf(at, bk, "drop per_instance", "alpha and margin decide on a confidence sequence; per_instance decides by dominance")
	case !c.Paired && c.Metric != "":
		if _, isMetric := metricOf(p.schema, c.Metric); !isMetric {
			p.Errf(at, bk, "", "a sequential compare needs a metric of the model (its mean and standard deviation), not %q", c.Metric)
		}
	}
}
