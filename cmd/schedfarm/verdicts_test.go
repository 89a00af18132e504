package main

import (
	"bytes"
	"context"
	"errors"
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
		"| wrong-explained |  |  | ❌ fail | fail, explained by reading low-noise (fx-alt/holds passes) |",
		"| wrong-shown |  |  | ❌ fail | fail, shown why not by fx-why/bound |",
		"| wrong |  |  | ❌ fail | fail, unexplained |",
	} {
		if !strings.Contains(string(md), want) {
			t.Errorf("fx-main's report.md lacks %q:\n%s", want, md)
		}
	}
}
