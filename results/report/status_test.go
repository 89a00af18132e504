package report

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"schedfarm/results/claims"
	"schedfarm/results/decl"
)

// TestClassifyIsTheScoreboard: the statuses Classify gives each sweep's
// report are the scoreboard's, claim by claim, with the run's sweeps and
// without the explaining ones; the scoreboard's counts stay what
// BuildScoreboard counts; a sweep's report and its printed verdicts name
// each failure's status, and say what would explain one whose
// explanation's sweep is not in the run.
func TestClassifyIsTheScoreboard(t *testing.T) {
	paper := filepath.Join(t.TempDir(), "configs", "p1")
	if err := os.MkdirAll(paper, 0o755); err != nil {
		t.Fatal(err)
	}
	readings := "readings:\n  - {name: r, params: {k: 1}, quote: \"q\", source: \"s\", declared: before, explains: true, sweeps: [alt.yaml], defaults: [main.yaml]}\n"
	if err := os.WriteFile(filepath.Join(paper, "readings.yaml"), []byte(readings), 0o644); err != nil {
		t.Fatal(err)
	}
	reports := func() (main, alt *Report) {
		main = &Report{Sweep: "main", SweepPath: filepath.Join(paper, "main.yaml"), Claims: []claims.Result{
			{ID: "ok", Verdict: claims.Pass, Numbers: "n1"},
			{ID: "explained", Verdict: claims.Fail, Numbers: "n2", Claim: &decl.Claim{ExplainedBy: &decl.Explanation{Sweep: "alt.yaml", Claim: "holds", Reading: "r"}}},
			{ID: "shown", Verdict: claims.Fail, Numbers: "n3", Claim: &decl.Claim{ExplainedBy: &decl.Explanation{Sweep: "alt.yaml", Claim: "holds", WhyNot: "w"}}},
			{ID: "bad", Verdict: claims.Fail, Numbers: "n4"},
			{ID: "open", Verdict: claims.Inconclusive, Numbers: "n5"},
		}}
		alt = &Report{Sweep: "alt", SweepPath: filepath.Join(paper, "alt.yaml"), Sensitivity: "reading r",
			Claims: []claims.Result{{ID: "holds", Verdict: claims.Pass}}}
		return main, alt
	}
	for _, tc := range []struct {
		name    string
		withAlt bool
		status  map[string]string // claim of main → its status cell
		lines   []string          // lines of main's printed verdicts
		counts  string
	}{
		{"with the explaining sweep", true, map[string]string{
			"ok": "pass", "explained": "fail, explained by reading r (alt/holds passes)", "shown": "fail, shown why not by alt/holds",
			"bad": "fail, unexplained", "open": "inconclusive"},
			[]string{"claim main/ok: PASS — n1", "claim main/explained: FAIL, explained by reading r (alt/holds passes) — n2",
				"claim main/shown: FAIL, shown why not by alt/holds — n3", "claim main/bad: FAIL, unexplained — n4", "claim main/open: INCONCLUSIVE — n5"},
			"1 explained by a reading, 1 shown why not, 1 unexplained"},
		{"without it", false, map[string]string{
			"explained": "fail, unexplained in this run: explained by reading r if its sweep alt.yaml passes (claim holds); alt.yaml is not in this run",
			"shown":     "fail, unexplained in this run: shown why not if its sweep alt.yaml passes (claim holds); alt.yaml is not in this run",
			"bad":       "fail, unexplained"},
			[]string{"claim main/explained: FAIL, unexplained in this run: explained by reading r if its sweep alt.yaml passes (claim holds); alt.yaml is not in this run — n2"},
			"3 unexplained (2 of them explained or shown why not if a sweep not in this run passes)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			main, alt := reports()
			run := []*Report{main}
			if tc.withAlt {
				run = append(run, alt)
			}
			sb := Classify(run)
			want := BuildScoreboard(&Suite{Sweeps: run})
			if len(sb.Papers) != 1 || len(want.Papers) != 1 {
				t.Fatalf("papers %d, %d", len(sb.Papers), len(want.Papers))
			}
			got, exp := sb.Papers[0], want.Papers[0]
			counts := func(p PaperScore) []int {
				return []int{p.Claims, p.Pass, p.PassLoose, p.FailExplained, p.FailShown, p.FailUnexpl, p.Inconclusive, p.Calibration, p.Sensitivity, p.Invariants}
			}
			if !equalInts(counts(got), counts(exp)) {
				t.Errorf("Classify's counts %v, BuildScoreboard's %v", counts(got), counts(exp))
			}
			k := 0
			for _, r := range run {
				if len(r.Statuses) != len(r.Claims) {
					t.Fatalf("%s: %d statuses for %d claims", r.Sweep, len(r.Statuses), len(r.Claims))
				}
				for i, sc := range r.Statuses {
					if b := exp.ClaimList[k]; sc.Sweep != b.Sweep || sc.ID != r.Claims[i].ID || sc.Status != b.Status || sc.By != b.By || sc.Note != b.Note {
						t.Errorf("%s/%s: report %+v, scoreboard %+v", r.Sweep, r.Claims[i].ID, sc, b)
					}
					k++
				}
			}
			var md bytes.Buffer
			main.markdown(&md)
			for id, cell := range tc.status {
				if !strings.Contains(md.String(), "| "+id+" |") || !strings.Contains(md.String(), " | "+cell+" | ") {
					t.Errorf("report.md: claim %s lacks its status %q:\n%s", id, cell, md.String())
				}
			}
			if !strings.Contains(md.String(), "The failures as the suite scoreboard counts them: "+tc.counts+".") {
				t.Errorf("report.md lacks the failures' counts %q:\n%s", tc.counts, md.String())
			}
			html, err := main.html()
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(html), tc.counts) || !strings.Contains(string(html), "<td>"+strings.ReplaceAll(tc.status["bad"], "'", "&#39;")+"</td>") {
				t.Errorf("report.html lacks the statuses:\n%s", html)
			}
			printed := main.FormatClaims()
			for _, l := range tc.lines {
				if !strings.Contains(printed, l+"\n") {
					t.Errorf("printed verdicts lack %q:\n%s", l, printed)
				}
			}
		})
	}
}

// TestSummarizeMissingValue: a published claim's point without a value
// (NaN) is null in the JSON summary, which still encodes.
func TestSummarizeMissingValue(t *testing.T) {
	pub := &decl.Claim{ID: "pub", Kind: decl.ClaimPublished, Metric: "m", Value: 3, Tol: 0.3}
	r := &Report{Sweep: "s", Dir: "res/s/r1", Claims: []claims.Result{{ID: "pub", Verdict: claims.Inconclusive, Claim: pub}},
		Cells: []claims.CellResult{{Claim: "pub", Point: "x=1", Published: 3, Ours: math.NaN(), Tol: 0.3}, {Claim: "pub", Point: "x=2", Published: 3, Ours: 2.9, Tol: 0.3, Within: true}}}
	Classify([]*Report{r})
	b, err := json.Marshal(Summarize([]*Report{r}, "", ""))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"values":[{"point":"x=1","value":null,"rule_tol":0.3,"within_rule":false},{"point":"x=2","value":2.9,"rule_tol":0.3,"within_rule":true}]`,
		`"expected":{"value":3,"tol":0.3}`, `"report":"res/s/r1/report.html"`, `"statuses":{"inconclusive":1}`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("summary lacks %s:\n%s", want, b)
		}
	}
}
