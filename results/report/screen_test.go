package report_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"schedfarm/results"
	"schedfarm/results/internal/runtest"
	"schedfarm/results/report"
)

// TestPictographs: emoji and other pictographs are found, words, dashes,
// arrows and the signs of numbers are not.
func TestPictographs(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"✅ pass, ❌ fail, ❔ inconclusive, ⚠ warning", "✅❌❔⚠"},
		{"✓ ok ★ 🎉 👍🏽 ❤️", "✓★🎉👍🏽❤️"},
		{"pass — 1.5 ± 0.2 h, 3 × 4 ≤ 12 → 25 °C, 10–20 % © ⌈k⌉", ""},
	} {
		if got := report.Pictographs(tc.in); got != tc.want {
			t.Errorf("Pictographs(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestReportsFitAScreen: the reports a run writes (a sweep's report.md,
// report.html and claims.json, the suite's report-<run>.md and .html)
// hold no pictograph (a verdict is a word, and in HTML a colour: a verdict
// cell's class); a figure error is a "warning:", not a sign; every table
// of the HTML reports sits in a box of its own that scrolls sideways
// (class scroll, overflow-x: auto), so a wide one (the scoreboard) never
// widens the page; and the suite report gives a failing claim its status.
func TestReportsFitAScreen(t *testing.T) {
	root := t.TempDir()
	full := filepath.Join(root, "big", "r1")
	runtest.CollectRun(t, full, 60)
	// Without jobs and samples three figures cannot be drawn: figure errors.
	bare := filepath.Join(root, "big", "r2")
	runtest.CollectRun(t, bare, 60)
	for _, f := range []string{"jobs.parquet", "samples.parquet", results.RunInfoFile} {
		os.Remove(filepath.Join(bare, f))
	}
	var reps []*report.Report
	for _, d := range []string{full, bare} {
		r, err := report.Write(d, runtest.Registry(t))
		if err != nil {
			t.Fatal(err)
		}
		reps = append(reps, r)
	}
	if len(reps[1].FigureErrors) == 0 {
		t.Fatal("the report without jobs has no figure errors")
	}
	html, err := report.WriteSuite(root, &report.Suite{Run: "r", File: "suite.yaml", Sweeps: reps})
	if err != nil {
		t.Fatal(err)
	}
	files := []string{html, strings.TrimSuffix(html, ".html") + ".md"}
	for _, d := range []string{full, bare} {
		for _, f := range []string{report.ReportMarkdown, report.ReportHTML, report.ClaimsJSON} {
			files = append(files, filepath.Join(d, f))
		}
	}
	read := func(f string) string {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for _, f := range files {
		text := read(f)
		if p := report.Pictographs(text); p != "" {
			t.Errorf("%s holds pictographs %q", filepath.Base(f), p)
		}
	}
	if md := read(filepath.Join(bare, report.ReportMarkdown)); !strings.Contains(md, "\n- warning: ") {
		t.Errorf("report.md of a sweep with figure errors lacks a warning line:\n%s", md)
	}

	// Every table of the HTML reports opens right inside a scrolling box.
	scrollCSS := regexp.MustCompile(`\.scroll\{overflow-x:auto;max-width:100%`)
	box := regexp.MustCompile(`<div class="scroll"><table[ >]`)
	for _, f := range []string{html, filepath.Join(full, report.ReportHTML)} {
		page := read(f)
		if !scrollCSS.MatchString(page) {
			t.Errorf("%s: no scrolling box in its CSS", filepath.Base(f))
		}
		tables, boxed := strings.Count(page, "<table"), len(box.FindAllString(page, -1))
		if tables == 0 || tables != boxed || strings.Count(page, "</table></div>") != tables {
			t.Errorf("%s: %d tables, %d of them in a scrolling box", filepath.Base(f), tables, boxed)
		}
	}
	suite := read(html)
	if !strings.Contains(suite, "<h2>Scoreboard</h2>") || !regexp.MustCompile(`<div class="scroll"><table class="board"><tr><th>paper</th>`).MatchString(suite) {
		t.Errorf("the suite report's scoreboard is not in a scrolling box:\n%s", suite)
	}

	// The failing claim with its status, in both suite files, with the
	// verdict's word in a verdict cell of its colour.
	for _, want := range []string{`<td class="verdict fail">fail</td><td>fail, unexplained</td>`, `<td class="verdict pass">pass</td><td>pass</td>`, `<th>status</th>`, "td.verdict.fail{background:"} {
		if !strings.Contains(suite, want) {
			t.Errorf("the suite report lacks %q", want)
		}
	}
	md := read(strings.TrimSuffix(html, ".html") + ".md")
	for _, want := range []string{"| sweep | claim | source | verdict | status | numbers |", "| big | wrong | Table 1 | fail | fail, unexplained | "} {
		if !strings.Contains(md, want) {
			t.Errorf("the suite report.md lacks %q:\n%s", want, md)
		}
	}
}
