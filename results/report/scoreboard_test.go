package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"schedfarm/results/claims"
	"schedfarm/results/decl"
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
	readings := "readings:\n  - {name: r, params: {k: 1}, quote: \"q\", source: \"s\", declared: before, explains: true, sweeps: [alt.yaml, other.yaml], defaults: [main.yaml]}\n"
	if err := os.WriteFile(filepath.Join(paper, "readings.yaml"), []byte(readings), 0o644); err != nil {
		t.Fatal(err)
	}
	expl := func(file, claim string) *decl.Claim {
		return &decl.Claim{ExplainedBy: &decl.Explanation{Sweep: file, Claim: claim, Reading: "r"}}
	}
	whyNot := func(file, claim string) *decl.Claim {
		return &decl.Claim{ExplainedBy: &decl.Explanation{Sweep: file, Claim: claim, WhyNot: "w"}}
	}
	main := &Report{Sweep: "main", Model: "m", SweepPath: filepath.Join(paper, "main.yaml"),
		Calibrations: []*decl.Calibration{{Param: "k", Against: []string{"cal-*"}, CheckedOn: []string{"main/ok", "q/x", "main/bad", "gone/y", "alt/holds"}, Why: "fitted"}},
		Claims: []claims.Result{
			{ID: "ok", Verdict: claims.Pass},
			{ID: "cal-pass", Verdict: claims.Pass},
			{ID: "cal-fail", Verdict: claims.Fail},
			{ID: "bad", Verdict: claims.Fail},
			{ID: "bad-explained", Verdict: claims.Fail, Claim: expl("alt.yaml", "holds")},
			{ID: "bad-alt-fails", Verdict: claims.Fail, Claim: expl("alt.yaml", "fails")},
			{ID: "bad-not-run", Verdict: claims.Fail, Claim: expl("other.yaml", "holds")},
			{ID: "bad-no-claim", Verdict: claims.Fail, Claim: expl("alt.yaml", "nope")},
			{ID: "bad-by-calibration", Verdict: claims.Fail, Claim: expl("main.yaml", "cal-pass")},
			{ID: "bad-shown", Verdict: claims.Fail, Claim: whyNot("alt.yaml", "holds")},
			{ID: "bad-shown-fails", Verdict: claims.Fail, Claim: whyNot("alt.yaml", "fails")},
			{ID: "undecided", Verdict: claims.Inconclusive},
		},
		Cells: []claims.CellResult{{Claim: "ok", Within: true}, {Claim: "bad", Within: false}, {Claim: "cal-pass", Within: true}},
	}
	// The explanation is a sensitivity sweep: its claims are counted apart.
	alt := &Report{Sweep: "alt", Model: "m", SweepPath: filepath.Join(paper, "alt.yaml"), Sensitivity: "another reading",
		Claims: []claims.Result{{ID: "holds", Verdict: claims.Pass}, {ID: "fails", Verdict: claims.Fail}}, Cells: []claims.CellResult{{Claim: "holds", Within: true}}}
	other := &Report{Sweep: "q", Model: "m2", SweepPath: filepath.Join(root, "configs", "p2", "q.yaml"),
		Claims: []claims.Result{{ID: "x", Verdict: claims.Pass}}}
	sb := BuildScoreboard(&Suite{File: "suite.yaml", Sweeps: []*Report{main, alt, other}})
	if len(sb.Papers) != 2 || sb.Papers[0].Paper != "p1" || sb.Papers[1].Paper != "p2" {
		t.Fatalf("papers %+v", sb.Papers)
	}
	p := sb.Papers[0]
	got := []int{p.Statements, p.Encoded, p.Uncheckable, p.CheckedHere, p.Claims, p.Pass, p.FailExplained, p.FailShown, p.FailUnexpl, p.Inconclusive, p.Calibration, p.Sensitivity, p.Cells, p.CellsWithin, p.CalibrationCells}
	want := []int{3, 2, 1, 1, 14, 1, 1, 1, 6, 1, 2, 2, 2, 1, 1}
	if !equalInts(got, want) {
		t.Errorf("p1 counts %v, want %v", got, want)
	}
	status := map[string]ScoreClaim{}
	for _, c := range p.ClaimList {
		status[c.Sweep+"/"+c.ID] = c
	}
	for id, w := range map[string]string{"main/cal-pass": ScoreCalibration, "main/cal-fail": ScoreCalibration, "main/ok": ScorePass,
		"main/bad": ScoreFailUnexpl, "main/bad-explained": ScoreFailExplained, "main/bad-alt-fails": ScoreFailUnexpl,
		"main/bad-not-run": ScoreFailUnexpl, "main/bad-no-claim": ScoreFailUnexpl,
		"main/bad-shown": ScoreFailShown, "main/bad-shown-fails": ScoreFailUnexpl, "alt/fails": ScoreSensitivity, "alt/holds": ScoreSensitivity} {
		if status[id].Status != w {
			t.Errorf("%s: %q, want %q", id, status[id].Status, w)
		}
	}
	if c := status["main/bad-explained"]; c.By != "alt/holds" {
		t.Errorf("explained by %q", c.By)
	}
	if c := status["main/bad-shown"]; c.By != "alt/holds" {
		t.Errorf("shown by %q", c.By)
	}
	// The explaining sweep is not in this run: unexplained, saying what
	// would explain it.
	if c := status["main/bad-not-run"]; c.Note != "explained by reading r if its sweep other.yaml passes (claim holds); other.yaml is not in this run" ||
		c.Awaits() != "p1/other.yaml:holds" || c.Reading() != "r" {
		t.Errorf("explanation not in the run: note %q, awaits %q, reading %q", c.Note, c.Awaits(), c.Reading())
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
	if !strings.Contains(md.String(), "- main/bad-shown: fail, shown why not by alt/holds") || !strings.Contains(md.String(), "| p1 | 3 | 2 / 1 | 1 | 14 | 1 | 0 | 1 | 1 | 6 |") {
		t.Errorf("markdown without the why-not failure:\n%s", md.String())
	}
	if !strings.Contains(md.String(), "fitted on 2 claim(s) (1 pass, 1 fail, 0 inconclusive); held-out check on 4 claim(s): 3 pass, 1 fail, 0 inconclusive (1 checked_on reference(s) did not run: gone/y)") {
		t.Errorf("markdown:\n%s", md.String())
	}
	// The same suite without the sensitivity sweep: the explanation no longer counts.
	sb = BuildScoreboard(&Suite{Sweeps: []*Report{main}})
	if p := sb.Papers[0]; p.FailExplained != 0 || p.FailShown != 0 || p.FailUnexpl != 8 || p.Pass != 1 || p.Calibration != 2 {
		t.Errorf("without alt.yaml: %+v", p)
	}
}

// TestScoreboardRules: a loose pass is never a pass, an invariant is
// counted apart (and is no cell), a reading declared after its result is a
// calibration, an explanation by a reading that is not an explaining one
// leaves the failure unexplained, and each reading is judged as a whole
// model beside its defaults.
func TestScoreboardRules(t *testing.T) {
	root := t.TempDir()
	paper := filepath.Join(root, "configs", "p1")
	if err := os.MkdirAll(paper, 0o755); err != nil {
		t.Fatal(err)
	}
	readings := "readings:\n" +
		"  - {name: good, params: {k: 1}, quote: \"q\", source: \"s\", declared: before, explains: true, sweeps: [alt.yaml], defaults: [main.yaml]}\n" +
		"  - {name: quiet, params: {k: 2}, quote: \"q\", source: \"s\", declared: before, sweeps: [quiet.yaml]}\n" +
		"  - {name: fitted, params: {k: 3}, quote: \"q\", source: \"s\", declared: after, sweeps: [fitted.yaml], defaults: [main.yaml]}\n"
	if err := os.WriteFile(filepath.Join(paper, "readings.yaml"), []byte(readings), 0o644); err != nil {
		t.Fatal(err)
	}
	by := func(file, claim, reading string) *decl.Claim {
		return &decl.Claim{ExplainedBy: &decl.Explanation{Sweep: file, Claim: claim, Reading: reading}}
	}
	main := &Report{Sweep: "main", SweepPath: filepath.Join(paper, "main.yaml"), Claims: []claims.Result{
		{ID: "a", Verdict: claims.Pass},
		{ID: "b", Verdict: claims.Fail, Claim: by("alt.yaml", "b", "good")},
		{ID: "c", Verdict: claims.Fail, Claim: by("quiet.yaml", "c", "quiet")},
		{ID: "d", Verdict: claims.Pass, Claim: &decl.Claim{Loose: "a subset of the points"}},
		{ID: "e", Verdict: claims.Fail, Claim: &decl.Claim{Loose: "a subset of the points"}},
		{ID: "inv", Verdict: claims.Pass, Claim: &decl.Claim{Invariant: "Theorem 4"}},
		{ID: "inv-broken", Verdict: claims.Fail, Claim: &decl.Claim{Invariant: "Theorem 5"}},
	}, Cells: []claims.CellResult{{Claim: "a", Within: true}}}
	alt := &Report{Sweep: "alt", SweepPath: filepath.Join(paper, "alt.yaml"), Sensitivity: "good", Claims: []claims.Result{
		{ID: "a", Verdict: claims.Fail}, {ID: "b", Verdict: claims.Pass}, {ID: "c", Verdict: claims.Inconclusive}, {ID: "own", Verdict: claims.Pass}}}
	quiet := &Report{Sweep: "quiet", SweepPath: filepath.Join(paper, "quiet.yaml"), Sensitivity: "quiet", Claims: []claims.Result{{ID: "c", Verdict: claims.Pass}}}
	fitted := &Report{Sweep: "fitted", SweepPath: filepath.Join(paper, "fitted.yaml"), Sensitivity: "fitted", Claims: []claims.Result{
		{ID: "a", Verdict: claims.Pass}, {ID: "b", Verdict: claims.Pass}}, Cells: []claims.CellResult{{Claim: "b", Within: true}}}
	sb := BuildScoreboard(&Suite{File: "suite.yaml", Sweeps: []*Report{main, alt, quiet, fitted}})
	p := sb.Papers[0]
	got := []int{p.Claims, p.Pass, p.PassLoose, p.FailExplained, p.FailUnexpl, p.Inconclusive, p.Calibration, p.Sensitivity, p.Invariants, p.InvariantsHeld, p.Cells, p.CalibrationCells}
	want := []int{14, 1, 1, 1, 2, 0, 2, 5, 2, 1, 1, 1}
	if !equalInts(got, want) {
		t.Errorf("counts %v, want %v", got, want)
	}
	status := map[string]ScoreClaim{}
	for _, c := range p.ClaimList {
		status[c.Sweep+"/"+c.ID] = c
	}
	for id, w := range map[string]string{"main/a": ScorePass, "main/b": ScoreFailExplained, "main/c": ScoreFailUnexpl, "main/d": ScorePassLoose,
		"main/e": ScoreFailUnexpl, "main/inv": ScoreInvariant, "main/inv-broken": ScoreInvariant, "fitted/a": ScoreCalibration, "alt/own": ScoreSensitivity} {
		if status[id].Status != w {
			t.Errorf("%s: %q, want %q", id, status[id].Status, w)
		}
	}
	if n := status["main/c"].Note; !strings.Contains(n, "reading quiet is not one of the paper's explaining readings") {
		t.Errorf("main/c note %q", n)
	}
	if len(p.Readings) != 3 {
		t.Fatalf("readings %+v", p.Readings)
	}
	g := p.Readings[0]
	// alt's a, b, c match main's: a pass → fail (broken), b fail → pass
	// (rescued), c fail → inconclusive; own has no default.
	if g.Name != "good" || !g.Ran || g.Claims != 4 || g.Pass != 2 || g.Fail != 1 || g.Inconclusive != 1 || g.Matched != 3 ||
		g.DefaultsPass != 1 || g.DefaultsFail != 2 || g.Broken != 1 || g.Rescued != 1 || g.Explained != 1 {
		t.Errorf("reading good %+v", g)
	}
	if q := p.Readings[1]; q.Matched != 0 || q.Pass != 1 || q.Explained != 0 {
		t.Errorf("reading quiet %+v", q)
	}
	var md bytes.Buffer
	sb.markdown(&md)
	for _, w := range []string{"| p1 | no register: CLAIMS.md not found beside the sweep files | 0 / 0 | 0 | 14 | 1 | 1 | 1 | 0 | 2 | 0 | 2 | 5 | 1 / 1 (+1 calibration) | 1 / 2 |",
		"| good | before | yes | 2 / 1 / 1 | 3 | 1 / 2 / 0 | 1 | 1 | 1 |", "| fitted | after | no | 2 / 0 / 0 | 2 | 1 / 1 / 0 | 0 | 1 | 0 |",
		"- main/d: pass, loose (a subset of the points)", "- main/inv-broken: invariant fail (Theorem 5)", "- fitted/a: calibration (reading fitted (declared after its result was seen)), verdict pass"} {
		if !strings.Contains(md.String(), w) {
			t.Errorf("markdown lacks %q:\n%s", w, md.String())
		}
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

// A study's sweeps (configs/studies/<name>/) make a line of their own,
// named studies/<name>, counted against the study's register, whose
// entries name a source and quote no paper.
func TestScoreboardStudy(t *testing.T) {
	study := filepath.Join(t.TempDir(), "configs", "studies", "s1")
	if err := os.MkdirAll(study, 0o755); err != nil {
		t.Fatal(err)
	}
	reg := "- **S1** — A beats B.\n  source: p1 §5, on another log\n  → `main/ok`\n- **S2** — B is flat.\n  source: a question\n  → cannot check: no metric of flatness\n"
	if err := os.WriteFile(filepath.Join(study, "CLAIMS.md"), []byte(reg), 0o644); err != nil {
		t.Fatal(err)
	}
	main := &Report{Sweep: "main", Model: "m", SweepPath: filepath.Join(study, "main.yaml"), Claims: []claims.Result{{ID: "ok", Verdict: claims.Pass}}}
	sb := BuildScoreboard(&Suite{File: "suite.yaml", Sweeps: []*Report{main}})
	if len(sb.Papers) != 1 {
		t.Fatalf("papers %+v", sb.Papers)
	}
	p := sb.Papers[0]
	if p.Paper != "studies/s1" || p.RegisterError != "" || p.Statements != 2 || p.Encoded != 1 || p.Uncheckable != 1 || p.CheckedHere != 1 || p.Pass != 1 {
		t.Errorf("study's line %+v, want studies/s1 with 2 statements, 1 encoded and checked here, 1 pass", p)
	}
}
