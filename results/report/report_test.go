package report_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"schedfarm/results"
	"schedfarm/results/claims"
	"schedfarm/results/internal/runtest"
	"schedfarm/results/report"
)

func TestWriteReport(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "big", "r1")
	runtest.CollectRun(t, dir, 200)
	r, err := report.Write(dir, runtest.Registry(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Figures) != 6 || len(r.FigureErrors) != 0 {
		t.Fatalf("%d figures, errors %v", len(r.Figures), r.FigureErrors)
	}
	verdicts := map[string]claims.Verdict{}
	for _, c := range r.Claims {
		verdicts[c.ID] = c.Verdict
	}
	want := map[string]claims.Verdict{"grows": claims.Pass, "a-not-lower": claims.Inconclusive, "pub": claims.Pass, "wrong": claims.Fail}
	for id, v := range want {
		if verdicts[id] != v {
			t.Errorf("claim %s: %s, want %s", id, verdicts[id], v)
		}
	}
	if r.FailedClaims() != 1 {
		t.Errorf("%d failed claims", r.FailedClaims())
	}
	if r.Jobs != 200 || r.Failed == 0 || r.OK+r.Failed != 200 || len(r.FailedJobs) != r.Failed {
		t.Errorf("jobs %d ok %d failed %d (%d listed)", r.Jobs, r.OK, r.Failed, len(r.FailedJobs))
	}
	if r.Wall != 90*time.Second || r.ModelWall <= 0 {
		t.Errorf("wall %v, model wall %v", r.Wall, r.ModelWall)
	}
	md, _ := os.ReadFile(filepath.Join(dir, report.ReportMarkdown))
	for _, s := range []string{"# Report: sweep big", "| schedfarm | v0.1.0-test, revision abc123", "| Go | go1.26.8 |",
		"| host | host1 (coordinator coord1) |", "| wall time | 1m30s |", "| start | 2026-11-21T10:00:00Z |",
		"| grows | Fig. 1 | value grows with size | pass |", "| wrong | Table 1 | value is 9 at size 1 | fail |",
		"![value-line](figures/value-line.png)", "## Failed jobs", `boom \| with a pipe |`, "size=1", "```yaml\nsweeps:"} {
		if !strings.Contains(string(md), s) {
			t.Errorf("report.md lacks %q", s)
		}
	}
	html, _ := os.ReadFile(filepath.Join(dir, report.ReportHTML))
	if n := strings.Count(string(html), `src="data:image/png;base64,`); n != 6 {
		t.Errorf("report.html embeds %d figures, want 6", n)
	}
	if m := regexp.MustCompile(`(?i)(src|href)="(https?:|//|figures/)`).FindString(string(html)); m != "" {
		t.Errorf("report.html is not self-contained: %s", m)
	}
	var cj []claims.Result
	b, _ := os.ReadFile(filepath.Join(dir, report.ClaimsJSON))
	if err := json.Unmarshal(b, &cj); err != nil || len(cj) != 4 {
		t.Errorf("claims.json: %v, %d claims", err, len(cj))
	}
}

func TestReportWithoutJobs(t *testing.T) {
	// A golden folder holds only summary.parquet: the report still works.
	dir := filepath.Join(t.TempDir(), "big", "r1")
	runtest.CollectRun(t, dir, 100)
	for _, f := range []string{"jobs.parquet", "samples.parquet", results.RunInfoFile} {
		os.Remove(filepath.Join(dir, f))
	}
	r, err := report.Write(dir, runtest.Registry(t))
	if err != nil {
		t.Fatal(err)
	}
	// Figures of the jobs and samples tables cannot be drawn; they are reported.
	if len(r.Figures) != 3 || len(r.FigureErrors) != 3 || len(r.Claims) != 4 {
		t.Errorf("%d figures, %d figure errors, %d claims", len(r.Figures), len(r.FigureErrors), len(r.Claims))
	}
}

// BenchmarkReport_10k: the report of a 10,000-job run (target < 5 s).
func BenchmarkReport_10k(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "big", "r1")
	runtest.CollectRun(b, dir, 10_000)
	reg := runtest.Registry(b)
	b.ResetTimer()
	for b.Loop() {
		if _, err := report.Write(dir, reg); err != nil {
			b.Fatal(err)
		}
	}
}

// TestReportMarkdownNeutralisesFileText: HTML in a sweep's doc: and a
// claim's source: reaches report.md as text, not as elements, and a fence
// in the sweep file does not close the report's code fence around it.
func TestReportMarkdownNeutralisesFileText(t *testing.T) {
	file := strings.ReplaceAll(runtest.Sweep, "\n  ", "\n")
	file = strings.Replace(file, "- name: big\n", "- name: big\n  doc: |\n   ```\n   <script>alert(1)</script> & more\n", 1)
	file = strings.Replace(file, `source: "Fig. 1"`, `source: "<iframe src=//evil.example>"`, 1)
	dir := filepath.Join(t.TempDir(), "big", "r1")
	runtest.CollectRunFile(t, dir, 60, file)
	if _, err := report.Write(dir, runtest.Registry(t)); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, report.ReportMarkdown))
	if err != nil {
		t.Fatal(err)
	}
	prose, section, ok := strings.Cut(string(b), "## Sweep file\n\n")
	if !ok {
		t.Fatal("report.md has no sweep file section")
	}
	if m := regexp.MustCompile(`(?i)<(script|iframe)`).FindString(prose); m != "" {
		t.Errorf("report.md passes %q through", m)
	}
	for _, s := range []string{"&lt;script>alert(1)&lt;/script> & more", "| grows | &lt;iframe src=//evil.example> |"} {
		if !strings.Contains(prose, s) {
			t.Errorf("report.md lacks %q", s)
		}
	}
	// The sweep file's fence: the opener's backticks close it only on the
	// last line, so every line of the file stays inside.
	lines := strings.Split(strings.TrimRight(section, "\n"), "\n")
	fence := strings.TrimSuffix(lines[0], "yaml")
	if len(fence) < 3 || strings.Trim(fence, "`") != "" {
		t.Fatalf("sweep file section opens with %q", lines[0])
	}
	closer := regexp.MustCompile("^ {0,3}`{" + strconv.Itoa(len(fence)) + ",}\\s*$")
	for i, l := range lines[1:] {
		if closer.MatchString(l) && i != len(lines)-2 {
			t.Errorf("line %d of the sweep file (%q) closes the fence %q", i+1, l, fence)
		}
	}
	if !strings.Contains(section, "<script") || !strings.Contains(section, file[:40]) {
		// Inside the fence the file is verbatim (a code block shows it as text).
		t.Errorf("the sweep file section does not hold the file verbatim")
	}
}
