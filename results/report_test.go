package results

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"schedfarm/simcore"
	"schedfarm/simcore/bench"
)

// reportSweep is the sweep file of collectRun's runs: points size 0..n-1 ×
// variants a, b; the report's figures and claims.
const reportSweep = `sweeps:
  - name: big
    model: bench
    seed: 42
    replicates: 10
    params: {noise: 0.2}
    axes:
      - name: size
        values: [0, 1, 2]
      - name: variant
        values: [a, b]
    figures:
      - {id: value-line, kind: line, x: size, y: value, series: variant}
      - {id: value-scatter, kind: scatter, x: size, y: value, series: variant}
      - {id: value-box, kind: box, x: size, y: value, series: variant}
      - {id: value-cdf, kind: cdf, x: value, series: variant}
      - {id: u-hist, kind: hist, table: samples, x: u, series: variant, bins: 10}
      - {id: pareto, kind: pareto, x: value, y: iterations, series: variant, baseline: a}
    claims:
      - {id: grows, source: "Fig. 1", text: "value grows with size", monotone: {metric: value, in: size, series: variant}}
      - {id: a-not-lower, source: "Sec. 2", text: "a is lower than b", compare: {metric: value, series: variant, a: a, b: b}}
      - {id: pub, source: "Table 1", text: "value is 1 at size 1", published: {metric: value, where: {size: 1, variant: a}, value: 1, tol: 0.5}}
      - {id: wrong, source: "Table 1", text: "value is 9 at size 1", published: {metric: value, where: {size: 1, variant: a}, value: 9, tol: 0.5}}
`

// collectRun collects a run of n bench jobs (n/20 sizes × a, b × 10
// replicates; every 7th job of size 1 fails) into dir with a run.json.
func collectRun(tb testing.TB, dir string, n int) {
	tb.Helper()
	var pts []point
	for i := 0; i < n/20; i++ {
		for _, v := range []string{"a", "b"} {
			pts = append(pts, point{"size": i, "variant": v, "noise": 0.2, "rows": 2})
		}
	}
	jobs := benchJobs(tb, "big", 42, pts, 10)
	t0 := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	rows := runBench(tb, jobs, "w1", t0)
	fails := map[uuid.UUID]Failure{}
	for i := range rows {
		if i%7 == 3 && rows[i].Job.Params["size"] == int64(1) {
			rows[i].Status, rows[i].Error, rows[i].Result = StatusFailed, "boom | with a pipe\nand a second line", nil
			fails[rows[i].Job.ID] = Failure{Error: rows[i].Error, Attempts: 5}
		}
	}
	parts := filepath.Join(tb.TempDir(), "parts")
	schema := bench.New().Schema()
	for p := 0; p*5000 < len(rows); p++ {
		storePart(tb, parts, "p"+string(rune('a'+p)), schema, "r1", rows[p*5000:min(len(rows), (p+1)*5000)])
	}
	_, err := Collect(context.Background(), dirSource{dir: parts}, CollectInput{
		RunID: "r1", Model: schema, Jobs: jobs, Failures: fails, SweepFile: reportSweep, Provenance: testProv(),
	}, dir)
	if err != nil {
		tb.Fatal(err)
	}
	info := RunInfo{Run: "r1", Sweep: "big", File: "configs/big.yaml", Status: "complete", Created: t0, Finished: t0.Add(90 * time.Second),
		Total: n, Done: n, CollectedBy: "host1", Owner: "coord1"}
	b, _ := json.Marshal(info)
	if err := os.WriteFile(filepath.Join(dir, RunInfoFile), b, 0o644); err != nil {
		tb.Fatal(err)
	}
}

func testRegistry(tb testing.TB) *simcore.Registry {
	reg, err := simcore.NewRegistry(bench.New())
	if err != nil {
		tb.Fatal(err)
	}
	return reg
}

func TestWriteReport(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "big", "r1")
	collectRun(t, dir, 200)
	r, err := WriteReport(dir, testRegistry(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Figures) != 6 || len(r.FigureErrors) != 0 {
		t.Fatalf("%d figures, errors %v", len(r.Figures), r.FigureErrors)
	}
	verdicts := map[string]Verdict{}
	for _, c := range r.Claims {
		verdicts[c.ID] = c.Verdict
	}
	want := map[string]Verdict{"grows": Pass, "a-not-lower": Inconclusive, "pub": Pass, "wrong": Fail}
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
	md, _ := os.ReadFile(filepath.Join(dir, ReportMarkdown))
	for _, s := range []string{"# Report: sweep big", "| schedfarm | v0.1.0-test, revision abc123", "| Go | go1.26.8 |",
		"| host | host1 (coordinator coord1) |", "| wall time | 1m30s |", "| start | 2026-11-21T10:00:00Z |",
		"| grows | Fig. 1 | value grows with size | ✅ pass |", "| wrong | Table 1 | value is 9 at size 1 | ❌ fail |",
		"![value-line](figures/value-line.png)", "## Failed jobs", `boom \| with a pipe |`, "size=1", "```yaml\nsweeps:"} {
		if !strings.Contains(string(md), s) {
			t.Errorf("report.md lacks %q", s)
		}
	}
	html, _ := os.ReadFile(filepath.Join(dir, ReportHTML))
	if n := strings.Count(string(html), `src="data:image/png;base64,`); n != 6 {
		t.Errorf("report.html embeds %d figures, want 6", n)
	}
	if m := regexp.MustCompile(`(?i)(src|href)="(https?:|//|figures/)`).FindString(string(html)); m != "" {
		t.Errorf("report.html is not self-contained: %s", m)
	}
	var cj []ClaimResult
	b, _ := os.ReadFile(filepath.Join(dir, ClaimsJSON))
	if err := json.Unmarshal(b, &cj); err != nil || len(cj) != 4 {
		t.Errorf("claims.json: %v, %d claims", err, len(cj))
	}
}

func TestReportWithoutJobs(t *testing.T) {
	// A golden folder holds only summary.parquet: the report still works.
	dir := filepath.Join(t.TempDir(), "big", "r1")
	collectRun(t, dir, 100)
	for _, f := range []string{"jobs.parquet", "samples.parquet", RunInfoFile} {
		os.Remove(filepath.Join(dir, f))
	}
	r, err := WriteReport(dir, testRegistry(t))
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
	collectRun(b, dir, 10_000)
	reg := testRegistry(b)
	b.ResetTimer()
	for b.Loop() {
		if _, err := WriteReport(dir, reg); err != nil {
			b.Fatal(err)
		}
	}
}
