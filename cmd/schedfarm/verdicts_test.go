package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"schedfarm/results/report"
)

// The tests in this file run `schedfarm run` and `schedfarm report` as
// processes (this test binary in child mode, childEnv), with stdout and
// stderr read apart, as `schedfarm run x.yaml > log` or `2>/dev/null`
// would, on a paper folder of three bench sweeps: main.yaml, whose
// failures are explained by a reading (alt.yaml), shown why not
// (why.yaml) or unexplained, and the two sensitivity sweeps.

// verdictPaper writes the paper folder p/ (register, readings, three
// sweep files) and all.yaml, which includes them, into dir.
func verdictPaper(t *testing.T, dir string) {
	t.Helper()
	files := map[string]string{
		"p/CLAIMS.md": "- **R1** — §1: \"Value is 7 at size 1.\"\n  → `fx-main/wrong-explained`\n" +
			"- **R2** — §2: \"Value is 9 at size 2.\"\n  → `fx-main/wrong-shown`\n",
		"p/readings.yaml": "readings:\n  - {name: low-noise, params: {noise: 0.01}, quote: \"q\", source: \"s\", declared: before, explains: true, sweeps: [alt.yaml], defaults: [main.yaml]}\n",
		"p/main.yaml": `name: fx-main
model: bench
seed: 1
replicates: 3
params: {work_ms: 0, noise: 0.05}
axes: [{name: size, values: [1, 2]}]
claims:
  - {id: grows, monotone: {metric: value, in: size, direction: increasing}}
  - id: wrong-explained
    published: {metric: value, where: {size: 1}, value: 7, tol: 0.5}
    explained_by: {sweep: alt.yaml, claim: holds, reading: low-noise}
  - id: wrong-shown
    published: {metric: value, where: {size: 2}, value: 9, tol: 0.5}
    explained_by: {sweep: why.yaml, claim: bound, why_not: "value is size on average: never 9 at size 2"}
  - id: wrong
    published: {metric: value, where: {size: 1}, value: 3, tol: 0.3}
`,
		"p/alt.yaml": `name: fx-alt
model: bench
seed: 1
replicates: 3
sensitivity: "the reading low-noise (readings.yaml)"
params: {work_ms: 0, noise: 0.01}
axes: [{name: size, values: [1, 2]}]
claims:
  - {id: holds, published: {metric: value, where: {size: 1}, value: 1, tol: 0.1}}
`,
		"p/why.yaml": `name: fx-why
model: bench
seed: 1
replicates: 3
sensitivity: "why value cannot be 9 at size 2"
params: {work_ms: 0, noise: 0.01}
axes: [{name: size, values: [2]}]
claims:
  - {id: bound, published: {metric: value, where: {size: 2}, below: 3}}
`,
		"all.yaml": "include: [p/main.yaml, p/alt.yaml, p/why.yaml]\n",
	}
	for name, text := range files {
		writeFile(t, filepath.Join(dir, name), text)
	}
}

// processOutcome is what a schedfarm process printed, stream by stream.
type processOutcome struct {
	stdout, stderr string
	code           int
}

// runProcess runs schedfarm (this test binary in child mode) in dir with
// args, stdout and stderr captured apart.
func runProcess(t *testing.T, dir string, args ...string) processOutcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 2*childWait)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), childEnv+"=1")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	o := processOutcome{stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		o.code = ee.ExitCode()
	case err != nil:
		t.Fatalf("schedfarm %s: %v (%s waited for the process)\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, 2*childWait, o.stdout, o.stderr)
	}
	return o
}

// The lines stdout holds without --json (docs/commands.md, "Output").
var stdoutLines = []*regexp.Regexp{
	regexp.MustCompile(`^[a-z0-9-]+: \d+ ok, \d+ failed, \d+ missing( \(.*\))? → \S.*$`),
	regexp.MustCompile(`^[a-z0-9-]+: report → \S.*report\.html$`),
	regexp.MustCompile(`^claim [a-z0-9-]+/[A-Za-z0-9_.-]+: (PASS|FAIL|INCONCLUSIVE)(, [^—]+)? — .*$`),
	regexp.MustCompile(`^suite report → \S.*\.html$`),
}

// TestRunVerdictsOnStdout: `run` prints where the results are, the
// reports and every claim's verdict with its scoreboard status on stdout,
// nothing else; progress goes to stderr. The per-sweep report gives each
// failure the status the suite's scoreboard gives it.
func TestRunVerdictsOnStdout(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	verdictPaper(t, dir)
	o := runProcess(t, dir, "run", "--workers", "2", "--state-dir", "state", "--results-dir", "res", "all.yaml")
	if o.code != 0 {
		t.Fatalf("run: exit %d\nstdout:\n%s\nstderr:\n%s", o.code, o.stdout, o.stderr)
	}
	for _, l := range strings.Split(strings.TrimSuffix(o.stdout, "\n"), "\n") {
		ok := false
		for _, re := range stdoutLines {
			ok = ok || re.MatchString(l)
		}
		if !ok {
			t.Errorf("stdout line %q is none of the documented lines", l)
		}
	}
	for _, want := range []string{
		"fx-main: 6 ok, 0 failed, 0 missing → res/fx-main/",
		"claim fx-main/grows: PASS — ",
		"claim fx-main/wrong-explained: FAIL, explained by reading low-noise (fx-alt/holds passes) — ",
		"claim fx-main/wrong-shown: FAIL, shown why not by fx-why/bound — ",
		"claim fx-main/wrong: FAIL, unexplained — ",
		"claim fx-alt/holds: PASS, sensitivity (counted apart) — ",
		"suite report → res/report-",
	} {
		if !strings.Contains(o.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, o.stdout)
		}
	}
	if strings.Contains(o.stderr, "claim ") || strings.Contains(o.stderr, " → ") {
		t.Errorf("verdicts or result paths on stderr:\n%s", o.stderr)
	}
	if !strings.Contains(o.stderr, "12 published, 0 already done") || !strings.Contains(o.stderr, "finished in") {
		t.Errorf("stderr lacks the run's progress:\n%s", o.stderr)
	}

	m := regexp.MustCompile(`(?m)^suite report → res/report-([0-9a-f-]{36})\.html$`).FindStringSubmatch(o.stdout)
	if m == nil {
		t.Fatalf("no suite report on stdout:\n%s", o.stdout)
	}
	run := m[1]
	md, err := os.ReadFile(filepath.Join(dir, "res", "fx-main", run, report.ReportMarkdown))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"1 pass, 3 fail, 0 inconclusive. The failures as the suite scoreboard counts them: 1 explained by a reading, 1 shown why not, 1 unexplained.",
		"| wrong-explained |  |  | fail | fail, explained by reading low-noise (fx-alt/holds passes) |",
		"| wrong-shown |  |  | fail | fail, shown why not by fx-why/bound |",
		"| wrong |  |  | fail | fail, unexplained |",
	} {
		if !strings.Contains(string(md), want) {
			t.Errorf("fx-main's report.md lacks %q:\n%s", want, md)
		}
	}
	// The suite report gives each failing claim the same status, in words
	// (no emoji) in report-<run>.md and report-<run>.html.
	for _, ext := range []string{".md", ".html"} {
		b, err := os.ReadFile(filepath.Join(dir, "res", report.SuiteName(run)+ext))
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"fail, explained by reading low-noise (fx-alt/holds passes)", "fail, shown why not by fx-why/bound", "fail, unexplained"} {
			if ext == ".md" {
				want = " | fail | " + want + " | "
			} else {
				want = `<td class="verdict fail">fail</td><td>` + want + "</td>"
			}
			if !strings.Contains(string(b), want) {
				t.Errorf("the suite report %s lacks %q:\n%s", ext, want, b)
			}
		}
		if p := report.Pictographs(string(b)); p != "" {
			t.Errorf("the suite report %s holds pictographs %q", ext, p)
		}
	}

	// The sweeps' statuses (report --json) are the scoreboard's, claim by claim.
	var sb report.Scoreboard
	b, err := os.ReadFile(filepath.Join(dir, "res", report.ScoreboardName(run)))
	if err == nil {
		err = json.Unmarshal(b, &sb)
	}
	if err != nil {
		t.Fatalf("the run's scoreboard: %v", err)
	}
	board := map[string]report.ScoreClaim{}
	for _, p := range sb.Papers {
		for _, c := range p.ClaimList {
			board[c.Sweep+"/"+c.ID] = c
		}
	}
	r := runProcess(t, dir, "report", "--json", "--results-dir", "res", run)
	if r.code != 0 {
		t.Fatalf("report --json: exit %d\n%s", r.code, r.stderr)
	}
	sum := decodeSummary(t, r.stdout)
	if len(sum.Claims) != 6 || len(board) != 6 {
		t.Fatalf("%d claims in the summary, %d on the scoreboard, want 6", len(sum.Claims), len(board))
	}
	for _, c := range sum.Claims {
		sc := board[c.Sweep+"/"+c.ID]
		if c.Status != sc.Status || c.By != sc.By || c.Note != sc.Note || c.Verdict != sc.Verdict {
			t.Errorf("%s/%s: the report says %s %s (by %q, %q), the scoreboard %s %s (by %q, %q)", c.Sweep, c.ID, c.Verdict, c.Status, c.By, c.Note, sc.Verdict, sc.Status, sc.By, sc.Note)
		}
	}
}

// decodeSummary decodes stdout, which must hold one JSON document and
// nothing else.
func decodeSummary(t *testing.T, stdout string) *report.RunSummary {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(stdout))
	dec.DisallowUnknownFields()
	var s report.RunSummary
	if err := dec.Decode(&s); err != nil {
		t.Fatalf("stdout is not the JSON summary: %v\n%s", err, stdout)
	}
	if rest, _ := io.ReadAll(dec.Buffered()); strings.TrimSpace(string(rest)) != "" || dec.More() {
		t.Fatalf("stdout holds more than the JSON summary:\n%s", stdout)
	}
	return &s
}

// TestRunJSON: `run --json` prints one JSON document on stdout, the text
// lines on stderr; a failure whose explanation's sweep is not in the run
// is unexplained, saying what would explain it, in the summary and in the
// sweep's report alike.
func TestRunJSON(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	verdictPaper(t, dir)
	o := runProcess(t, dir, "run", "--json", "--workers", "2", "--state-dir", "state", "--results-dir", "res", "p/main.yaml")
	if o.code != 0 {
		t.Fatalf("run --json: exit %d\nstdout:\n%s\nstderr:\n%s", o.code, o.stdout, o.stderr)
	}
	s := decodeSummary(t, o.stdout)
	if s.Run == "" || s.File != "p/main.yaml" || len(s.Sweeps) != 1 || s.SuiteReport != "" || s.Scoreboard != "" {
		t.Fatalf("summary %+v", s)
	}
	sw := s.Sweeps[0]
	if sw.Sweep != "fx-main" || sw.Dir != filepath.Join("res", "fx-main", s.Run) || sw.Jobs != 6 || sw.OK != 6 || sw.Failed != 0 {
		t.Errorf("sweep %+v", sw)
	}
	for _, f := range []string{sw.Report, sw.ClaimsJSON} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("the summary names %s: %v", f, err)
		}
	}
	if s.Verdicts != (report.VerdictCounts{Pass: 1, Fail: 3}) || s.Statuses[report.ScoreFailUnexpl] != 3 || s.Statuses[report.ScorePass] != 1 {
		t.Errorf("verdicts %+v, statuses %v", s.Verdicts, s.Statuses)
	}
	claim := map[string]report.ClaimSummary{}
	for _, c := range s.Claims {
		claim[c.ID] = c
	}
	const pending = "explained by reading low-noise if its sweep alt.yaml passes (claim holds); alt.yaml is not in this run"
	if c := claim["wrong-explained"]; c.Sweep != "fx-main" || c.Verdict != "fail" || c.Status != report.ScoreFailUnexpl || c.Awaits != "p/alt.yaml:holds" ||
		c.Reading != "low-noise" || c.Note != pending || c.StatusText != "fail, unexplained in this run: "+pending {
		t.Errorf("wrong-explained %+v", c)
	}
	if c := claim["wrong-explained"]; c.Metric != "value" || c.Expected == nil || c.Expected.Value == nil || *c.Expected.Value != 7 || *c.Expected.Tol != 0.5 ||
		len(c.Values) != 1 || c.Values[0].Point != "size=1" || c.Values[0].Value == nil || c.Values[0].WithinRule || !strings.Contains(c.Reason, "published 7 ± 0.5") {
		t.Errorf("wrong-explained's numbers %+v", c)
	}
	if c := claim["wrong-shown"]; c.Status != report.ScoreFailUnexpl || c.Awaits != "p/why.yaml:bound" || !strings.Contains(c.Note, "why.yaml is not in this run") {
		t.Errorf("wrong-shown %+v", c)
	}
	if c := claim["wrong"]; c.Status != report.ScoreFailUnexpl || c.Awaits != "" || c.Note != "" || c.StatusText != "fail, unexplained" {
		t.Errorf("wrong %+v", c)
	}
	if c := claim["grows"]; c.Verdict != "pass" || c.Status != report.ScorePass || c.Expected != nil {
		t.Errorf("grows %+v", c)
	}
	for _, want := range []string{"fx-main: 6 ok, 0 failed, 0 missing → res/fx-main/", "fx-main: report → ",
		"claim fx-main/wrong-explained: FAIL, unexplained in this run: " + pending + " — "} {
		if !strings.Contains(o.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, o.stderr)
		}
	}
	md, err := os.ReadFile(filepath.Join(dir, sw.Dir, report.ReportMarkdown))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"The failures as the suite scoreboard counts them: 3 unexplained (2 of them explained or shown why not if a sweep not in this run passes).",
		"| fail | fail, unexplained in this run: " + pending + " |"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
}
