package claims

import (
	"math"
	"testing"

	"schedfarm/results/decl"
	"schedfarm/simcore"
)

// TestPublishedCells: one tolerance rule, 10% of the published value, or
// 10 points for a metric in %.
func TestPublishedCells(t *testing.T) {
	sum := claimSummary([]pt{{1, "a", 109, 50}, {2, "a", 111, 0}, {3, "a", 0, 0}})
	schema := &simcore.Schema{Params: []simcore.Param{{Name: "size", Kind: simcore.Int}, {Name: "variant", Kind: simcore.String}},
		Metrics: []simcore.Column{{Name: "value", Kind: simcore.Float}}}
	claims := []*decl.Claim{
		{ID: "c", Kind: decl.ClaimPublished, Metric: "value", Value: 100, Tol: 50},
		{ID: "bound", Kind: decl.ClaimPublished, Metric: "value", Below: new(float64)},
	}
	cells := PublishedCells(sum, schema, claims)
	var within []bool
	for _, c := range cells {
		within = append(within, c.Within)
		if c.Tol != 10 {
			t.Errorf("tol %g, want 10", c.Tol)
		}
	}
	if len(cells) != 3 || !within[0] || within[1] || within[2] {
		t.Fatalf("cells %+v", cells)
	}
	schema.Metrics[0].Unit = "%"
	claims[0].Value = 1
	cells = PublishedCells(sum, schema, claims)
	if len(cells) != 3 || cells[0].Within || cells[1].Within || !cells[2].Within || cells[2].Tol != 10 {
		t.Fatalf("%% cells %+v", cells)
	}
	schema.Metrics[0].Unit = "share"
	claims[0].Value = 0.05 // ours is 0 at size 3: within 10 points (0.1) of 5%
	cells = PublishedCells(sum, schema, claims)
	if len(cells) != 3 || cells[0].Within || cells[1].Within || !cells[2].Within || math.Abs(cells[2].Tol-0.1) > 1e-12 {
		t.Fatalf("share cells %+v", cells)
	}
	schema.Metrics[0].Unit = "%"
	// A statistic of a metric in % is in %.
	if u := decl.Unit(schema, "value_median"); u != "%" {
		t.Errorf("unit of value_median %q, want %%", u)
	}
	// The paper's own precision replaces the rule.
	claims[0].Value, claims[0].Precision = 110, new(float64)
	*claims[0].Precision = 1.5
	cells = PublishedCells(sum, schema, claims)
	if len(cells) != 3 || !cells[0].Within || !cells[1].Within || cells[2].Within || cells[0].Tol != 1.5 {
		t.Fatalf("precision cells %+v", cells)
	}
}
