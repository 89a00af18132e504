package claims

import (
	"math"

	"schedfarm/results"
	"schedfarm/results/decl"
	"schedfarm/simcore"
)

// The one tolerance rule for published table cells: a cell is within
// tolerance when |ours − published| ≤ 10% of |published|, or ≤ 10 points
// when the metric's unit is % (0.1 when it is "share", a fraction of 1),
// unless the claim gives (and quotes) the paper's own precision
// (published: {..., precision: p, precision_quote: "..."}), then ≤ p.
// Invariant claims (a theorem's bound, a constraint) are no cells.
const (
	CellRelTol    = decl.RuleRelTol
	CellPointsTol = decl.RulePointsTol
)

// CellResult is one published number (a published claim with value, at
// one summary row) under the one tolerance rule.
type CellResult struct {
	Claim     string  `json:"claim"`
	Point     string  `json:"point,omitempty"`
	Published float64 `json:"published"`
	Ours      float64 `json:"ours"`
	Tol       float64 `json:"tol"`
	Within    bool    `json:"within"`
}

// PublishedCells evaluates every published claim with a value (not bounds)
// under the one tolerance rule, point estimate against published number.
func PublishedCells(sum *results.Frame, schema *simcore.Schema, claims []*decl.Claim) []CellResult {
	cf := newClaimFrame(sum, schema)
	var out []CellResult
	for _, c := range claims {
		if c.Kind != decl.ClaimPublished || c.Above != nil || c.Below != nil || c.Invariant != "" {
			continue // bounds, and invariants, are no printed numbers
		}
		tol := decl.RuleTolerance(c.Value, decl.Unit(schema, c.Metric))
		if c.Precision != nil {
			tol = *c.Precision // the paper's own (validate requires its quote)
		}
		if c.Spread != "" {
			e, _, pairs, _ := cf.spread(c)
			cell := CellResult{Claim: c.ID, Point: SpreadPoint(c), Published: c.Value, Ours: e.m, Tol: tol}
			if pairs == 0 {
				cell.Ours = math.NaN()
			}
			cell.Within = pairs > 0 && math.Abs(e.m-c.Value) <= tol
			out = append(out, cell)
			continue
		}
		for _, row := range c.Where.Rows(cf.f) {
			e := cf.value(c.Metric, row)
			cell := CellResult{Claim: c.ID, Point: cf.key(row), Published: c.Value, Ours: e.m, Tol: tol}
			if !e.ok {
				cell.Ours = math.NaN()
			}
			cell.Within = e.ok && math.Abs(e.m-c.Value) <= tol
			out = append(out, cell)
		}
	}
	return out
}
