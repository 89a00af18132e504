package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"schedfarm/results/claims"
	"schedfarm/results/report"
)

// wideSuite writes the reports of a suite built to be wide: seven papers
// of two sweeps each, sweep names of 60 characters without a space, long
// claim numbers, a failed job whose parameters and error have no space.
// It returns the suite report's HTML file and one sweep's report.html.
func wideSuite(t *testing.T) (suite, sweepHTML string) {
	t.Helper()
	root := t.TempDir()
	var reps []*report.Report
	for p := range 7 {
		for s := range 2 {
			name := fmt.Sprintf("paper%d-table%d-", p, s) + strings.Repeat("x", 45)
			dir := filepath.Join(root, name, "run")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			r := &report.Report{Dir: dir, Sweep: name, Model: "m", SweepPath: filepath.Join(root, "configs", fmt.Sprintf("paper%d", p), name+".yaml"),
				Jobs: 1000, OK: 999, Failed: 1, Points: 40, ModelWall: 3 * time.Hour,
				FailedJobs: []report.FailedJob{{JobID: "0b6c7f2e-5d0a-4f58-9d53-6f1c3b8e2a11", Params: strings.Repeat("policy=SMART-FFIA,", 8), Error: strings.Repeat("panic:", 30)}},
				SweepFile:  "sweeps:\n  - name: " + name + "\n"}
			for c := range 4 {
				v := []claims.Verdict{claims.Pass, claims.Fail, claims.Inconclusive, claims.Fail}[c]
				r.Claims = append(r.Claims, claims.Result{ID: fmt.Sprintf("claim-%d-", c) + strings.Repeat("y", 40), Verdict: v,
					Source: "Section 5.3, Table 3", Text: strings.Repeat("the statement of the paper ", 6),
					Numbers: strings.Repeat("awrt 2.01e+11 ± 3.2e+09 against 1.98e+11; ", 6) + strings.Repeat("z", 50)})
			}
			reps = append(reps, r)
		}
	}
	report.Classify(reps)
	for _, r := range reps {
		if err := r.WriteFiles(); err != nil {
			t.Fatal(err)
		}
	}
	suite, err := report.WriteSuite(root, &report.Suite{Run: "r", File: "configs/all.yaml", Sweeps: reps})
	if err != nil {
		t.Fatal(err)
	}
	return suite, filepath.Join(reps[0].Dir, report.ReportHTML)
}

// TestReportsFitTheWindow: the suite report (its scoreboard of fifteen
// columns, tables of long sweep names and claims) and a sweep's
// report.html, in headless Chromium at 1280 × 900 (testdata/reportwidth.mjs):
// the page is no wider than the window, every table's box ends inside it
// and scrolls sideways (overflow-x auto) where its table is wider.
func TestReportsFitTheWindow(t *testing.T) {
	node, playwright, chromium := browserTools(t)
	suite, sweepHTML := wideSuite(t)
	script, err := filepath.Abs(filepath.Join("testdata", "reportwidth.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute) // Chromium's start on a busy machine
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script, suite, sweepHTML)
	cmd.Env = append(os.Environ(), "PLAYWRIGHT_CORE="+playwright, "CHROMIUM="+chromium)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", script, err, stderr.String())
	}
	type box struct {
		Right, Width, Content int
		OverflowX             string
		Board                 bool
	}
	var pages int
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var m struct {
			File         string
			Page, Window int
			Boxes        []box
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("%s: %v in %q", script, err, line)
		}
		pages++
		name := filepath.Base(m.File)
		if m.Page > m.Window {
			t.Errorf("%s: the page is %d px wide in a window of %d px", name, m.Page, m.Window)
		}
		scrolled := 0
		for i, b := range m.Boxes {
			if b.Right > m.Window || b.OverflowX != "auto" {
				t.Errorf("%s: box %d ends at %d px (window %d px), overflow-x %q", name, i, b.Right, m.Window, b.OverflowX)
			}
			if b.Content > b.Width {
				scrolled++
			}
			if b.Board {
				// Wrapping or scrolling are both right; say which (it
				// depends on the fonts at hand).
				t.Logf("%s: the scoreboard is %d px wide in a box of %d px", name, b.Content, b.Width)
			}
		}
		t.Logf("%s: page %d px in a window of %d px; %d table boxes, %d of them scroll sideways", name, m.Page, m.Window, len(m.Boxes), scrolled)
		if len(m.Boxes) == 0 {
			t.Errorf("%s: no table box", name)
		}
	}
	if pages != 2 {
		t.Fatalf("%s measured %d pages, want 2:\n%s", script, pages, out)
	}
}
