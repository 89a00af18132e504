package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReportAndVerify: two runs of smoke with different worker counts get
// reports, verify each other and the committed golden summary.
func TestReportAndVerify(t *testing.T) {
	t.Parallel()
	res := t.TempDir()
	var runs []collected
	for _, w := range []string{"1", "2"} {
		o := execute(t, "run", "--strict", "--workers", w, "--state-dir", t.TempDir(), "--results-dir", res, smokeFile)
		mustSucceed(t, o)
		c := onlyCollected(t, o, res, "smoke")
		for _, f := range []string{"report.md", "report.html", "claims.json", "figures/value-by-size.png", "figures/value-by-size.svg"} {
			if _, err := os.Stat(filepath.Join(c.dir, f)); err != nil {
				t.Errorf("run: %v", err)
			}
		}
		if !strings.Contains(o.stdout, "claim smoke/value-grows-with-size: PASS") {
			t.Errorf("claim verdicts not on stdout:\n%s", o)
		}
		runs = append(runs, c)
	}
	run1, run2 := filepath.Base(runs[0].dir), filepath.Base(runs[1].dir)

	v := execute(t, "verify", run2, "--against", run1, "--results-dir", res)
	mustSucceed(t, v)
	if !strings.Contains(v.stdout, "verify smoke: ok, 100 jobs compared by jobs, bit-identical") {
		t.Errorf("verify output:\n%s", v)
	}
	g := execute(t, "verify", runs[1].dir, "--against", "../../configs/golden")
	mustSucceed(t, g)
	if !strings.Contains(g.stdout, "verify smoke: ok, 20 points compared by summary") {
		t.Errorf("verify against golden:\n%s", g)
	}
	// A results folder as the golden.
	mustSucceed(t, execute(t, "verify", run1, "--against", runs[0].dir, "--results-dir", res))
	wantExit(t, execute(t, "verify", run1, "--results-dir", res), exitUsage)
	wantExit(t, execute(t, "verify", "no-such-run", "--against", run1, "--results-dir", res), exitUsage)

	// report RUN rewrites the reports; report FOLDER too.
	r := execute(t, "report", run1, "--results-dir", res)
	mustSucceed(t, r)
	if !strings.Contains(r.stdout, "smoke: report → ") {
		t.Errorf("report output:\n%s", r)
	}
	mustSucceed(t, execute(t, "report", runs[1].dir))
	wantExit(t, execute(t, "report", "no-such-run", "--results-dir", res), exitUsage)
}

const failingClaims = `sweeps:
  - name: claims
    model: bench
    seed: 1
    replicates: 3
    params: {noise: 0.1}
    axes:
      - name: size
        values: [1, 2]
    claims:
      - id: wrong
        source: "Table 9"
        text: "value is 7 at size 1"
        published: {metric: value, where: {size: 1}, value: 7, tol: 0.5}
`

func TestStrictClaims(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := writeFile(t, filepath.Join(dir, "claims.yaml"), failingClaims)
	res := filepath.Join(dir, "results")
	// Without --strict a failing claim is reported, not fatal.
	o := execute(t, "run", "--state-dir", filepath.Join(dir, "s1"), "--results-dir", res, file)
	mustSucceed(t, o)
	if !strings.Contains(o.stdout, "claim claims/wrong: FAIL, unexplained") {
		t.Errorf("no failing verdict on stdout:\n%s", o)
	}
	c := onlyCollected(t, o, res, "claims")
	wantExit(t, execute(t, "report", "--strict", c.dir), exitFailures)
	wantExit(t, execute(t, "run", "--strict", "--force", "--state-dir", filepath.Join(dir, "s2"), "--results-dir", res, file), exitFailures)
}

func TestValidateDeclarations(t *testing.T) {
	t.Parallel()
	bad := failingClaims + `    figures:
      - {id: f, kind: line, x: sise, y: value}
`
	bad = strings.Replace(bad, "metric: value, where", "metric: valeu, where", 1)
	file := writeFile(t, filepath.Join(t.TempDir(), "bad.yaml"), bad)
	o := execute(t, "validate", file)
	wantExit(t, o, exitUsage)
	for _, s := range []string{`bad.yaml:14:29: claims.claims[0].published.metric: table "summary" has no column "valeu"; did you mean "value"?`,
		`bad.yaml:16:32: claims.figures[0].x: table "summary" has no column "sise"; did you mean "size"?`} {
		if !strings.Contains(o.stderr, s) {
			t.Errorf("validate output lacks %q:\n%s", s, o)
		}
	}
	// run refuses it before publishing anything.
	r := execute(t, "run", "--state-dir", t.TempDir(), "--results-dir", t.TempDir(), file)
	wantExit(t, r, exitUsage)
	if strings.Contains(r.stderr, "published") {
		t.Errorf("run published a sweep with bad declarations:\n%s", r)
	}
}

// TestVerifyDrift: the smoke sweep with another master seed drifts from the
// committed golden; verify says where and exits 1.
func TestVerifyDrift(t *testing.T) {
	t.Parallel()
	text, err := os.ReadFile(smokeFile)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := writeFile(t, filepath.Join(dir, "smoke.yaml"), strings.Replace(string(text), "seed: 20261121", "seed: 7", 1))
	res := filepath.Join(dir, "results")
	o := execute(t, "run", "--state-dir", filepath.Join(dir, "s"), "--results-dir", res, file)
	mustSucceed(t, o)
	c := onlyCollected(t, o, res, "smoke")
	v := execute(t, "verify", filepath.Base(c.dir), "--results-dir", res, "--against", "../../configs/golden", "--limit", "3")
	wantExit(t, v, exitFailures)
	for _, s := range []string{"verify smoke: DRIFT, 20 points compared by summary", "POINT", "COLUMN", "GOLDEN", "GOT",
		"work_ms=5, size=1, noise=0.3, rows=3, variant=a, fail=never  checksum_mean", "... 317 more"} {
		if !strings.Contains(v.stdout, s) {
			t.Errorf("verify output lacks %q:\n%s", s, v)
		}
	}
}

// TestRunSuite runs a suite (a file that includes two sweep files) as one
// run: every included sweep is collected into its own folder, and the run
// gets one combined report beside them. The sweep file recorded with the
// results is the bundle, so `report` can redo everything from the folders.
func TestRunSuite(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("p1/a.yaml", `name: suite-a
model: bench
seed: 1
replicates: 3 # one replicate of a seeded instance decides nothing
params: {work_ms: 0, noise: 0.01}
axes: [{name: size, values: [1, 2, 3]}]
claims:
  - {id: grows, monotone: {metric: value, in: size, direction: increasing}}
`)
	write("p2/b.yaml", `sweeps:
  - {name: suite-b, model: bench, seed: 2, replicates: 2, params: {work_ms: 0}}
`)
	// b first: the reports follow the file's order, not the folders' names
	write("all.yaml", "include: [p2/b.yaml, p1/a.yaml]\n")
	res := t.TempDir()
	out := execute(t, "run", "--workers", "2", "--state-dir", t.TempDir(), "--results-dir", res, filepath.Join(dir, "all.yaml"))
	mustSucceed(t, out)
	if !strings.Contains(out.stderr, "2 sweep(s), 11 jobs") {
		t.Errorf("no job count:\n%s", out)
	}
	md, err := filepath.Glob(filepath.Join(res, "report-*.md"))
	if err != nil || len(md) != 1 {
		t.Fatalf("suite reports %v (%v), want one", md, err)
	}
	text, err := os.ReadFile(md[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"2 sweeps, 11 jobs (11 ok, 0 failed)", "| bench | 2 | 11 | 0 |", "| suite-a | bench | 9 | 0 | 3 |",
		"(suite-b/", "| suite-a | grows |", "Claims: 1 pass, 0 fail, 0 inconclusive"} {
		if !strings.Contains(string(text), want) {
			t.Errorf("suite report lacks %q:\n%s", want, text)
		}
	}
	if a, b := strings.Index(string(text), "| suite-a | bench"), strings.Index(string(text), "| suite-b | bench"); a < 0 || b < 0 || b > a {
		t.Errorf("suite report does not list suite-b (first in the file) before suite-a:\n%s", text)
	}
	// The scoreboard: one line per paper (the sweep files' folders), in the
	// report and as scoreboard-<run>.json beside it.
	if !strings.Contains(string(text), "## Scoreboard") || !strings.Contains(string(text), "| p1 | no register: CLAIMS.md not found beside the sweep files | 0 / 0 | 0 | 1 | 1 | 0 | 0 | 0 | 0 | 0 | 0 | 0 | – | – |") {
		t.Errorf("suite report lacks the scoreboard:\n%s", text)
	}
	sbFile := filepath.Join(res, "scoreboard-"+strings.TrimSuffix(strings.TrimPrefix(filepath.Base(md[0]), "report-"), ".md")+".json")
	if sb, err := os.ReadFile(sbFile); err != nil || !strings.Contains(string(sb), `"paper": "p2"`) || strings.Index(string(sb), `"paper": "p2"`) > strings.Index(string(sb), `"paper": "p1"`) {
		t.Errorf("scoreboard.json (%v):\n%s", err, sb)
	}
	// Re-reporting the run from its folders (no sweep files at hand) works,
	// and gives the same suite report.
	run := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(md[0]), "report-"), ".md")
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	again := execute(t, "report", "--results-dir", res, run)
	mustSucceed(t, again)
	if !strings.Contains(again.stdout, "suite report → ") {
		t.Errorf("report of the run wrote no suite report:\n%s", again)
	}
	// the same but for the time it was generated
	generated := regexp.MustCompile(`(?m)^Generated .*$`)
	if text2, err := os.ReadFile(md[0]); err != nil || generated.ReplaceAllString(string(text2), "") != generated.ReplaceAllString(string(text), "") {
		t.Errorf("the suite report changed when re-reported (%v):\n%s\nwas:\n%s", err, text2, text)
	}
}

// TestBench times the bench model's representative jobs and runs the farm
// measurements at a small size; the numbers vary, the shape must not.
func TestBench(t *testing.T) {
	t.Parallel()
	out := execute(t, "bench", "--models", "bench", "--runs", "2", "--workers", "2", "--farm-jobs", "40", "--markdown")
	mustSucceed(t, out)
	for _, want := range []string{"machine: ", "| model | representative job | best | median | jobs/s (2 workers) |",
		"| bench | 0 ms of work |", "| bench | 20 ms of work |", "farm: 40 × 0 ms jobs, 2 workers:", "farm: 4 × 20 ms jobs, 2 workers: efficiency "} {
		if !strings.Contains(out.stdout, want) {
			t.Errorf("bench output lacks %q:\n%s", want, out.stdout)
		}
	}
	if bad := execute(t, "bench", "--models", "nope"); bad.code() != exitUsage || !strings.Contains(bad.String(), `unknown model "nope"`) {
		t.Errorf("bench --models nope: %s", bad)
	}
}
