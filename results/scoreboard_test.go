package results

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"schedfarm/simcore"
)

// TestScoreboard: a calibrated claim is never counted as a reproduction,
// whatever its verdict; a failure is explained only when the named sweep
// file ran in the suite and its claim passed.
func TestScoreboard(t *testing.T) {
	root := t.TempDir()
	paper := filepath.Join(root, "configs", "p1")
	if err := os.MkdirAll(paper, 0o755); err != nil {
		t.Fatal(err)
	}
	reg := "- **R1** — §1: \"A.\"\n  → `main/ok`\n- **R2** — §2: \"B.\"\n  → cannot check: no trace\n- **R3** — §3: \"C.\"\n  → `absent/c*`, `main/nope`\n"
	if err := os.WriteFile(filepath.Join(paper, "CLAIMS.md"), []byte(reg), 0o644); err != nil {
		t.Fatal(err)
	}
	expl := func(file, claim string) *Claim {
		return &Claim{ExplainedBy: &Explanation{Sweep: file, Claim: claim, Reading: "r"}}
	}
	main := &Report{Sweep: "main", Model: "m", SweepPath: filepath.Join(paper, "main.yaml"),
		Calibrations: []*Calibration{{Param: "k", Against: []string{"cal-*"}, CheckedOn: []string{"main/ok", "q/x", "main/bad", "gone/y", "alt/holds"}, Why: "fitted"}},
		Claims: []ClaimResult{
			{ID: "ok", Verdict: Pass},
			{ID: "cal-pass", Verdict: Pass},
			{ID: "cal-fail", Verdict: Fail},
			{ID: "bad", Verdict: Fail},
			{ID: "bad-explained", Verdict: Fail, Claim: expl("alt.yaml", "holds")},
			{ID: "bad-alt-fails", Verdict: Fail, Claim: expl("alt.yaml", "fails")},
			{ID: "bad-not-run", Verdict: Fail, Claim: expl("other.yaml", "holds")},
			{ID: "bad-no-claim", Verdict: Fail, Claim: expl("alt.yaml", "nope")},
			{ID: "bad-by-calibration", Verdict: Fail, Claim: expl("main.yaml", "cal-pass")},
			{ID: "undecided", Verdict: Inconclusive},
		},
		Cells: []CellResult{{Claim: "ok", Within: true}, {Claim: "bad", Within: false}, {Claim: "cal-pass", Within: true}},
	}
	// The explanation is a sensitivity sweep: its claims are counted apart.
	alt := &Report{Sweep: "alt", Model: "m", SweepPath: filepath.Join(paper, "alt.yaml"), Sensitivity: "another reading",
		Claims: []ClaimResult{{ID: "holds", Verdict: Pass}, {ID: "fails", Verdict: Fail}}, Cells: []CellResult{{Claim: "holds", Within: true}}}
	other := &Report{Sweep: "q", Model: "m2", SweepPath: filepath.Join(root, "configs", "p2", "q.yaml"),
		Claims: []ClaimResult{{ID: "x", Verdict: Pass}}}
	sb := BuildScoreboard(&SuiteReport{File: "suite.yaml", Sweeps: []*Report{main, alt, other}})
	if len(sb.Papers) != 2 || sb.Papers[0].Paper != "p1" || sb.Papers[1].Paper != "p2" {
		t.Fatalf("papers %+v", sb.Papers)
	}
	p := sb.Papers[0]
	got := []int{p.Statements, p.Encoded, p.Uncheckable, p.CheckedHere, p.Claims, p.Pass, p.FailExplained, p.FailUnexpl, p.Inconclusive, p.Calibration, p.Sensitivity, p.Cells, p.CellsWithin, p.CalibrationCells}
	want := []int{3, 2, 1, 1, 12, 1, 1, 5, 1, 2, 2, 2, 1, 1}
	if !equalInts(got, want) {
		t.Errorf("p1 counts %v, want %v", got, want)
	}
	status := map[string]ScoreClaim{}
	for _, c := range p.ClaimList {
		status[c.Sweep+"/"+c.ID] = c
	}
	for id, w := range map[string]string{"main/cal-pass": ScoreCalibration, "main/cal-fail": ScoreCalibration, "main/ok": ScorePass,
		"main/bad": ScoreFailUnexpl, "main/bad-explained": ScoreFailExplained, "main/bad-alt-fails": ScoreFailUnexpl,
		"main/bad-not-run": ScoreFailUnexpl, "main/bad-no-claim": ScoreFailUnexpl, "alt/fails": ScoreSensitivity, "alt/holds": ScoreSensitivity} {
		if status[id].Status != w {
			t.Errorf("%s: %q, want %q", id, status[id].Status, w)
		}
	}
	if c := status["main/bad-explained"]; c.By != "alt/holds" {
		t.Errorf("explained by %q", c.By)
	}
	if c := status["main/bad-not-run"]; !strings.Contains(c.Note, "did not run in this suite") {
		t.Errorf("note %q", c.Note)
	}
	if c := status["main/bad-alt-fails"]; !strings.Contains(c.Note, "its claim is fail") {
		t.Errorf("note %q", c.Note)
	}
	if c := status["main/bad-by-calibration"]; c.Status != ScoreFailUnexpl || !strings.Contains(c.Note, "is itself calibration") {
		t.Errorf("explained by a calibrated claim: %+v", c)
	}
	if q := sb.Papers[1]; q.RegisterError == "" || q.Pass != 1 {
		t.Errorf("p2 %+v", q)
	}
	// The calibration's fitted claims and its held-out check: the held-out
	// claims keep their own status (main/ok stays a pass, counted above).
	if len(p.Calibrations) != 1 {
		t.Fatalf("calibrations %+v", p.Calibrations)
	}
	cs := p.Calibrations[0]
	var fitted, held []string
	for _, c := range cs.Fitted {
		fitted = append(fitted, c.ID+":"+string(c.Verdict))
	}
	for _, c := range cs.HeldOut {
		held = append(held, c.Sweep+"/"+c.ID+":"+string(c.Verdict))
	}
	if strings.Join(fitted, " ") != "cal-pass:pass cal-fail:fail" || strings.Join(held, " ") != "main/ok:pass q/x:pass main/bad:fail alt/holds:pass" ||
		strings.Join(cs.Missing, " ") != "gone/y" {
		t.Errorf("calibration: fitted %v, held out %v, missing %v", fitted, held, cs.Missing)
	}
	var md bytes.Buffer
	sb.markdown(&md)
	if !strings.Contains(md.String(), "fitted on 2 claim(s) (1 pass, 1 fail, 0 inconclusive); held-out check on 4 claim(s): 3 pass, 1 fail, 0 inconclusive (1 checked_on reference(s) did not run: gone/y)") {
		t.Errorf("markdown:\n%s", md.String())
	}
	// The same suite without the sensitivity sweep: the explanation no longer counts.
	sb = BuildScoreboard(&SuiteReport{Sweeps: []*Report{main}})
	if p := sb.Papers[0]; p.FailExplained != 0 || p.FailUnexpl != 6 || p.Pass != 1 || p.Calibration != 2 {
		t.Errorf("without alt.yaml: %+v", p)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestPublishedCells: one tolerance rule, 10% of the published value, or
// 10 points for a metric in %.
func TestPublishedCells(t *testing.T) {
	sum := claimSummary([]pt{{1, "a", 109, 50}, {2, "a", 111, 0}, {3, "a", 0, 0}})
	schema := &simcore.Schema{Params: []simcore.Param{{Name: "size", Kind: simcore.Int}, {Name: "variant", Kind: simcore.String}},
		Metrics: []simcore.Column{{Name: "value", Kind: simcore.Float}}}
	claims := []*Claim{
		{ID: "c", Kind: ClaimPublished, Metric: "value", Value: 100, Tol: 50},
		{ID: "bound", Kind: ClaimPublished, Metric: "value", Below: new(float64)},
	}
	cells := publishedCells(sum, schema, claims)
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
	cells = publishedCells(sum, schema, claims)
	if len(cells) != 3 || cells[0].Within || cells[1].Within || !cells[2].Within || cells[2].Tol != 10 {
		t.Fatalf("%% cells %+v", cells)
	}
	schema.Metrics[0].Unit = "share"
	claims[0].Value = 0.05 // ours is 0 at size 3: within 10 points (0.1) of 5%
	cells = publishedCells(sum, schema, claims)
	if len(cells) != 3 || cells[0].Within || cells[1].Within || !cells[2].Within || math.Abs(cells[2].Tol-0.1) > 1e-12 {
		t.Fatalf("share cells %+v", cells)
	}
	schema.Metrics[0].Unit = "%"
	// A statistic of a metric in % is in %.
	if u := Unit(schema, "value_median"); u != "%" {
		t.Errorf("unit of value_median %q, want %%", u)
	}
	// The paper's own precision replaces the rule.
	claims[0].Value, claims[0].Precision = 110, new(float64)
	*claims[0].Precision = 1.5
	cells = publishedCells(sum, schema, claims)
	if len(cells) != 3 || !cells[0].Within || !cells[1].Within || cells[2].Within || cells[0].Tol != 1.5 {
		t.Fatalf("precision cells %+v", cells)
	}
}
