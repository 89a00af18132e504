package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"schedfarm/coordinator"
	"schedfarm/farmtest"
	"schedfarm/results"
	"schedfarm/results/collect"
	"schedfarm/simcore"
	"schedfarm/simcore/bench"
	"schedfarm/sweep"
)

const smokeFile = "../../configs/smoke.yaml"

// outcome is what one in-process invocation of the command tree produced.
type outcome struct {
	args   []string
	stdout string
	stderr string
	err    error
}

// code returns the process exit status main would use.
func (o outcome) code() int {
	if o.err == nil {
		return 0
	}
	return exitCode(o.err)
}

func (o outcome) String() string {
	return "schedfarm " + strings.Join(o.args, " ") + "\n--- error: " + errString(o.err) +
		"\n--- stdout:\n" + o.stdout + "--- stderr:\n" + o.stderr
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// execute runs the real command tree in-process.
func execute(t *testing.T, args ...string) outcome {
	t.Helper()
	a := newApp()
	var out, errb farmtest.SyncBuffer // the command's logs are written from its goroutines
	a.root.SetArgs(args)
	a.root.SetOut(&out)
	a.root.SetErr(&errb)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	err := a.root.ExecuteContext(ctx)
	return outcome{args: args, stdout: out.String(), stderr: errb.String(), err: err}
}

// mustSucceed fails the test unless the invocation exited 0.
func mustSucceed(t *testing.T, o outcome) {
	t.Helper()
	if o.err != nil {
		t.Fatalf("unexpected failure (exit %d):\n%s", o.code(), o)
	}
}

// wantExit fails the test unless the invocation failed with the given status.
func wantExit(t *testing.T, o outcome, code int) {
	t.Helper()
	if o.err == nil {
		t.Fatalf("succeeded, want exit status %d:\n%s", code, o)
	}
	if o.code() != code {
		t.Fatalf("exit status %d, want %d:\n%s", o.code(), code, o)
	}
}

func writeFile(t *testing.T, path, text string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

var collectedLine = regexp.MustCompile(`(?m)^(\S+): (\d+) ok, (\d+) failed, (\d+) missing → (.+)$`)

// collected is one "SWEEP: N ok, N failed, N missing → DIR" line of run/collect.
type collected struct {
	sweep               string
	ok, failed, missing string
	dir                 string
}

func parseCollected(t *testing.T, o outcome) []collected {
	t.Helper()
	var out []collected
	for _, m := range collectedLine.FindAllStringSubmatch(o.stdout, -1) {
		out = append(out, collected{sweep: m[1], ok: m[2], failed: m[3], missing: m[4], dir: m[5]})
	}
	if len(out) == 0 {
		t.Fatalf("no results folder printed:\n%s", o)
	}
	return out
}

// onlyCollected returns the single sweep a run collected, checking its
// folder is <resultsDir>/<sweep>/<run>.
func onlyCollected(t *testing.T, o outcome, resultsDir, sweepName string) collected {
	t.Helper()
	cs := parseCollected(t, o)
	if len(cs) != 1 {
		t.Fatalf("%d sweeps collected, want 1:\n%s", len(cs), o)
	}
	c := cs[0]
	if c.sweep != sweepName {
		t.Errorf("collected sweep %q, want %q", c.sweep, sweepName)
	}
	if filepath.Dir(filepath.Dir(c.dir)) != filepath.Clean(resultsDir) || filepath.Base(filepath.Dir(c.dir)) != sweepName {
		t.Errorf("results folder %s is not %s/%s/<run>", c.dir, resultsDir, sweepName)
	}
	if st, err := os.Stat(c.dir); err != nil || !st.IsDir() {
		t.Fatalf("results folder %s: %v", c.dir, err)
	}
	return c
}

func readTable(t *testing.T, path string) *results.Frame {
	t.Helper()
	f, err := results.ReadTable(path)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func strCol(t *testing.T, f *results.Frame, name string) []string {
	t.Helper()
	c, ok := f.Col(name).([]string)
	if !ok {
		t.Fatalf("column %q is %T, want []string (columns %v)", name, f.Col(name), f.Names)
	}
	return c
}

func intCol(t *testing.T, f *results.Frame, name string) []int64 {
	t.Helper()
	c, ok := f.Col(name).([]int64)
	if !ok {
		t.Fatalf("column %q is %T, want []int64 (columns %v)", name, f.Col(name), f.Names)
	}
	return c
}

// checkSmokeFolder checks a collected smoke run and returns its sorted job IDs.
func checkSmokeFolder(t *testing.T, dir string) []string {
	t.Helper()
	for _, name := range []string{"jobs.parquet", "samples.parquet", "summary.parquet", "summary.csv"} {
		if st, err := os.Stat(filepath.Join(dir, name)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", name, err)
		}
	}
	jobs := readTable(t, filepath.Join(dir, "jobs.parquet"))
	if jobs.Len() != 100 {
		t.Fatalf("jobs.parquet has %d rows, want 100", jobs.Len())
	}
	ids := append([]string(nil), strCol(t, jobs, "job_id")...)
	seen := map[string]bool{}
	for _, id := range ids {
		seen[id] = true
	}
	if len(seen) != 100 {
		t.Errorf("%d distinct job IDs, want 100", len(seen))
	}
	for i, idx := range intCol(t, jobs, "job_index") {
		if idx != int64(i) {
			t.Errorf("row %d has job_index %d (rows must be in job-index order)", i, idx)
			break
		}
	}
	for i, s := range strCol(t, jobs, "status") {
		if s != results.StatusOK {
			t.Errorf("row %d: status %q", i, s)
		}
	}
	for i, s := range strCol(t, jobs, "sweep") {
		if s != "smoke" {
			t.Errorf("row %d: sweep %q", i, s)
		}
	}
	// work_ms and rows come from the file's fixed params.
	for i, r := range intCol(t, jobs, "rows") {
		if r != 3 {
			t.Errorf("row %d: rows = %d, want 3", i, r)
			break
		}
	}
	if samples := readTable(t, filepath.Join(dir, "samples.parquet")); samples.Len() != 300 {
		t.Errorf("samples.parquet has %d rows, want 100 jobs × 3", samples.Len())
	}
	// 10 sizes × 2 variants, 5 replicates each.
	summary := readTable(t, filepath.Join(dir, "summary.parquet"))
	if summary.Len() != 20 {
		t.Errorf("summary.parquet has %d rows, want 20 points", summary.Len())
	} else if ns := intCol(t, summary, "n"); ns[0] != 5 {
		t.Errorf("summary n = %d, want 5 replicates", ns[0])
	}
	csv, err := os.ReadFile(filepath.Join(dir, "summary.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Count(strings.TrimSpace(string(csv)), "\n") + 1; lines != 21 {
		t.Errorf("summary.csv has %d lines, want a header and 20 points", lines)
	}
	sort.Strings(ids)
	return ids
}

// TestRunSmoke runs configs/smoke.yaml three times in one state dir: a fresh
// run, a resubmission that finds every job done, and a forced rerun.
func TestRunSmoke(t *testing.T) {
	t.Parallel()
	state, res := t.TempDir(), t.TempDir()
	args := []string{"run", "--workers", "2", "--state-dir", state, "--results-dir", res, smokeFile}

	first := execute(t, args...)
	mustSucceed(t, first)
	if !strings.Contains(first.stderr, "1 sweep(s), 100 jobs, 2 workers") {
		t.Errorf("no job count on stderr:\n%s", first)
	}
	if !strings.Contains(first.stderr, ": 100 published, 0 already done") {
		t.Errorf("first run did not publish 100 jobs:\n%s", first)
	}
	c1 := onlyCollected(t, first, res, "smoke")
	if c1.ok != "100" || c1.failed != "0" || c1.missing != "0" {
		t.Errorf("collected %+v", c1)
	}
	ids1 := checkSmokeFolder(t, c1.dir)
	jobs := readTable(t, filepath.Join(c1.dir, "jobs.parquet"))
	if jobs.Meta == nil {
		t.Error("jobs.parquet has no key-value metadata")
	}
	// The efficiency line adds up the jobs' own duration_ms.
	var eff, model, wall float64
	var done, workers int
	if i := strings.Index(first.stderr, "farm efficiency "); i < 0 {
		t.Errorf("no efficiency line:\n%s", first)
	} else if _, err := fmt.Sscanf(first.stderr[i:], "farm efficiency %g: %d jobs, model time %g s ÷ (%g s from submission to last result × %d workers)",
		&eff, &done, &model, &wall, &workers); err != nil {
		t.Errorf("efficiency line: %v\n%s", err, first)
	} else {
		sum := 0.0
		for _, d := range jobs.Col("duration_ms").([]float64) {
			sum += d
		}
		if done != 100 || workers != 2 || math.Abs(model-sum/1000) > 0.002 || wall <= 0 || math.Abs(eff-model/(wall*2)) > 0.002 {
			t.Errorf("efficiency %g of %d jobs, model %g s (jobs.parquet: %g s), wall %g s, %d workers", eff, done, model, sum/1000, wall, workers)
		}
	}

	second := execute(t, args...)
	mustSucceed(t, second)
	if !strings.Contains(second.stderr, ": 0 published, 100 already done") {
		t.Errorf("second run published jobs:\n%s", second)
	}
	if strings.Contains(second.stderr, "farm efficiency") {
		t.Errorf("a run that ran nothing reports an efficiency:\n%s", second)
	}
	c2 := onlyCollected(t, second, res, "smoke")
	if c2.dir == c1.dir {
		t.Errorf("second run collected into the first run's folder %s", c2.dir)
	}
	if c2.ok != "100" {
		t.Errorf("second run collected %+v", c2)
	}
	if ids2 := checkSmokeFolder(t, c2.dir); strings.Join(ids2, ",") != strings.Join(ids1, ",") {
		t.Error("second run collected other job IDs than the first")
	}

	forced := execute(t, append(args, "--force")...)
	mustSucceed(t, forced)
	if !strings.Contains(forced.stderr, ": 100 published, 0 already done") {
		t.Errorf("--force did not rerun every job:\n%s", forced)
	}
	c3 := onlyCollected(t, forced, res, "smoke")
	if ids3 := checkSmokeFolder(t, c3.dir); strings.Join(ids3, ",") != strings.Join(ids1, ",") {
		t.Error("forced run collected other job IDs than the first")
	}
	entries, err := os.ReadDir(filepath.Join(res, "smoke"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if len(names) != 3 {
		t.Errorf("results/smoke holds %v, want the three runs' folders and nothing else", names)
	}
}

const failingSweep = `sweeps:
  - name: failing
    model: bench
    seed: 7
    params:
      rows: 1
    axes:
      - name: size
        values: [1, 2, 3]
      - name: fail
        values: [never, error]
`

func TestRunWithFailures(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := writeFile(t, filepath.Join(dir, "failing.yaml"), failingSweep)
	res := filepath.Join(dir, "results")
	o := execute(t, "run", "--workers", "2", "--max-deliver", "2", "--state-dir", filepath.Join(dir, "state"), "--results-dir", res, file)
	wantExit(t, o, exitFailures)
	var ee *exitError
	if !errors.As(o.err, &ee) {
		t.Fatalf("error is %T, want *exitError", o.err)
	}
	if !strings.Contains(o.err.Error(), "3 job(s) failed") {
		t.Errorf("error %q does not count the failed jobs", o.err)
	}
	if n := strings.Count(o.stderr, "failed: job "); n != 3 {
		t.Errorf("%d failed jobs listed on stderr, want 3:\n%s", n, o)
	}
	if !strings.Contains(o.stderr, "after 2 attempts") {
		t.Errorf("failures do not report --max-deliver 2 attempts:\n%s", o)
	}
	// Each failed attempt is a warning on the command's stderr (2 of each
	// of the 3 failing jobs), none an error.
	if n := strings.Count(o.stderr, `level=WARN msg="job attempt failed"`); n != 6 || strings.Contains(o.stderr, "level=ERROR") {
		t.Errorf("%d warnings of failed attempts on stderr, want 6 and no error:\n%s", n, o)
	}
	// The results are collected even though jobs failed.
	c := onlyCollected(t, o, res, "failing")
	if c.ok != "3" || c.failed != "3" || c.missing != "0" {
		t.Errorf("collected %+v, want 3 ok, 3 failed", c)
	}
	jobs := readTable(t, filepath.Join(c.dir, "jobs.parquet"))
	if jobs.Len() != 6 {
		t.Fatalf("jobs.parquet has %d rows, want 6", jobs.Len())
	}
	fail, status, errs := strCol(t, jobs, "fail"), strCol(t, jobs, "status"), strCol(t, jobs, "error")
	attempts := intCol(t, jobs, "attempts")
	checksum := jobs.Index("checksum")
	if checksum < 0 {
		t.Fatalf("no checksum column in %v", jobs.Names)
	}
	for i := range fail {
		switch fail[i] {
		case "error":
			if status[i] != results.StatusFailed {
				t.Errorf("row %d (fail=error): status %q", i, status[i])
			}
			if !strings.Contains(errs[i], "failure requested by parameter fail=error") {
				t.Errorf("row %d: error text %q", i, errs[i])
			}
			if attempts[i] != 2 {
				t.Errorf("row %d: %d attempts, want 2", i, attempts[i])
			}
			if !jobs.IsNull(checksum, i) {
				t.Errorf("row %d: a failed job has a checksum", i)
			}
		case "never":
			if status[i] != results.StatusOK || errs[i] != "" || jobs.IsNull(checksum, i) {
				t.Errorf("row %d (fail=never): status %q, error %q", i, status[i], errs[i])
			}
		default:
			t.Errorf("row %d: fail = %q", i, fail[i])
		}
	}
}

// TestValidateBadFiles runs `validate` on each file of sweep/testdata/bad
// that fails when parsed (the x_* files parse and fail only when expanded,
// some of them only with the sweep package's test models).
func TestValidateBadFiles(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("../../sweep/testdata/bad/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, path := range files {
		name := filepath.Base(path)
		if strings.HasPrefix(name, "x_") {
			continue
		}
		n++
		t.Run(strings.TrimSuffix(name, ".yaml"), func(t *testing.T) {
			o := execute(t, "validate", path)
			wantExit(t, o, exitUsage)
			pos := regexp.MustCompile(regexp.QuoteMeta(path) + `:\d+:`)
			if !pos.MatchString(o.stderr) {
				t.Errorf("output does not name %s:LINE:\n%s", path, o)
			}
			if !strings.Contains(o.err.Error(), "1 of 1 file(s) invalid") {
				t.Errorf("error %q", o.err)
			}
			if strings.Contains(o.stdout, "ok") {
				t.Errorf("a bad file reported ok:\n%s", o)
			}
		})
	}
	if n < 30 {
		t.Errorf("only %d bad files found", n)
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout []string
		stderr []string
	}{
		{
			name:   "smoke ok",
			args:   []string{"validate", smokeFile},
			stdout: []string{smokeFile + ": ok, 1 sweep(s), 100 jobs"},
		},
		{
			name:   "one good one bad",
			args:   []string{"validate", smokeFile, "../../sweep/testdata/bad/unknown_top_key.yaml"},
			code:   exitUsage,
			stdout: []string{smokeFile + ": ok, 1 sweep(s), 100 jobs"},
			stderr: []string{"unknown_top_key.yaml:4:1: replicatse: unknown key", `did you mean "replicates"?`},
		},
		{
			name:   "too many jobs",
			args:   []string{"validate", "--max-jobs", "99999", "../../sweep/testdata/bad/x_too_many_jobs.yaml"},
			code:   exitUsage,
			stderr: []string{"x_too_many_jobs.yaml:1:1:", "over the limit of 99999", "--max-jobs 100000"},
		},
		{
			name:   "too many jobs within the default limit",
			args:   []string{"validate", "../../sweep/testdata/bad/x_too_many_jobs.yaml"},
			stdout: []string{"ok, 1 sweep(s), 100000 jobs"},
		},
		{
			name:   "data files missing",
			args:   []string{"validate", "--data", "--data-dir", "testdata-none", smokeFile, "../../configs/krallmann1999/quick.yaml"},
			code:   exitUsage,
			stdout: []string{smokeFile + ": ok, 1 sweep(s), 100 jobs"},
			stderr: []string{`quick.yaml:11: krallmann1999-quick: parameter trace: data file "traces/CTC-SP2-1996-3.1-cln.swf.gz" not found in testdata-none`},
		},
		{
			name:   "data files not checked without --data",
			args:   []string{"validate", "--data-dir", "testdata-none", "../../configs/krallmann1999/quick.yaml"},
			stdout: []string{"quick.yaml: ok, 1 sweep(s), 26 jobs"},
		},
		{
			name:   "missing file",
			args:   []string{"validate", "no-such-file.yaml"},
			code:   exitUsage,
			stderr: []string{"no-such-file.yaml"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := execute(t, tt.args...)
			if tt.code == 0 {
				mustSucceed(t, o)
			} else {
				wantExit(t, o, tt.code)
			}
			for _, w := range tt.stdout {
				if !strings.Contains(o.stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, o)
				}
			}
			for _, w := range tt.stderr {
				if !strings.Contains(o.stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, o)
				}
			}
		})
	}
}

func TestExpand(t *testing.T) {
	t.Parallel()
	t.Run("count", func(t *testing.T) {
		o := execute(t, "expand", "--count", smokeFile)
		mustSucceed(t, o)
		if strings.TrimSpace(o.stdout) != "100" {
			t.Errorf("expand --count printed %q, want 100", o.stdout)
		}
	})
	t.Run("json", func(t *testing.T) {
		o := execute(t, "expand", "--json", smokeFile)
		mustSucceed(t, o)
		// JSON Lines: one object per job.
		sc := bufio.NewScanner(strings.NewReader(o.stdout))
		n := 0
		ids := map[string]bool{}
		for sc.Scan() {
			var j struct {
				ID         string         `json:"id"`
				Index      int            `json:"index"`
				Sweep      string         `json:"sweep"`
				Model      string         `json:"model"`
				Params     map[string]any `json:"params"`
				Replicate  int            `json:"replicate"`
				SeedString string         `json:"seed_string"`
			}
			if err := json.Unmarshal(sc.Bytes(), &j); err != nil {
				t.Fatalf("line %d is not a JSON object: %v\n%s", n+1, err, sc.Text())
			}
			if j.Sweep != "smoke" || j.Model != "bench" || j.ID == "" || j.SeedString == "" {
				t.Errorf("line %d: %+v", n+1, j)
			}
			if j.Params["work_ms"] != 5.0 || j.Params["rows"] != 3.0 || len(j.Params) != 6 {
				t.Errorf("line %d: params %v", n+1, j.Params)
			}
			ids[j.ID] = true
			n++
		}
		if n != 100 || len(ids) != 100 {
			t.Errorf("%d lines, %d distinct IDs; want 100", n, len(ids))
		}
	})
	t.Run("table", func(t *testing.T) {
		o := execute(t, "expand", smokeFile)
		mustSucceed(t, o)
		for _, w := range []string{"# sweep smoke: model bench, 100 jobs", "# total: 100 jobs", "size", "variant"} {
			if !strings.Contains(o.stdout, w) {
				t.Errorf("expand output lacks %q:\n%s", w, o.stdout)
			}
		}
	})
	t.Run("too many jobs", func(t *testing.T) {
		o := execute(t, "expand", "--max-jobs", "99", smokeFile)
		wantExit(t, o, exitUsage)
		if !strings.Contains(o.err.Error(), "--max-jobs 100") {
			t.Errorf("error lacks the --max-jobs hint: %v", o.err)
		}
	})
}

var benchParams = []string{"work_ms", "size", "noise", "rows", "variant", "fail"}

func TestModels(t *testing.T) {
	t.Parallel()
	t.Run("table", func(t *testing.T) {
		o := execute(t, "models")
		mustSucceed(t, o)
		for _, w := range append([]string{"bench (version 1):", "PARAMETER", "METRIC", "checksum", "TABLE samples", "never|error|panic", "(required)"}, benchParams...) {
			if w == "(required)" {
				continue // bench has no required parameter
			}
			if !strings.Contains(o.stdout, w) {
				t.Errorf("models output lacks %q:\n%s", w, o.stdout)
			}
		}
	})
	t.Run("wrapped", func(t *testing.T) {
		// Every line fits the width asked for, and nothing is lost: each
		// model, parameter and metric is named and each description's
		// words are all there, in order.
		for _, width := range []int{60, 100} {
			o := execute(t, "models", "--width", strconv.Itoa(width))
			mustSucceed(t, o)
			for i, l := range strings.Split(strings.TrimRight(o.stdout, "\n"), "\n") {
				if n := utf8.RuneCountInString(l); n > width {
					t.Errorf("width %d: line %d has %d columns: %q", width, i+1, n, l)
				}
			}
			words := strings.Fields(o.stdout)
			text := " " + strings.Join(words, " ") + " "
			for _, m := range newApp().registry().Models() {
				s := m.Schema()
				for _, p := range s.Params {
					if !strings.Contains(text, " "+p.Name+" ") || !strings.Contains(text, strings.Join(strings.Fields(p.Doc), " ")) {
						t.Errorf("width %d: model %s parameter %s or its description is missing", width, m.Name(), p.Name)
					}
				}
				for _, c := range s.Metrics {
					if !strings.Contains(text, " "+c.Name+" ") || !strings.Contains(text, strings.Join(strings.Fields(c.Doc), " ")) {
						t.Errorf("width %d: model %s metric %s or its description is missing", width, m.Name(), c.Name)
					}
				}
			}
		}
	})
	t.Run("named", func(t *testing.T) {
		o := execute(t, "models", "divisible")
		mustSucceed(t, o)
		if !strings.HasPrefix(o.stdout, "divisible (version") || strings.Contains(o.stdout, "bench (version") {
			t.Errorf("models divisible printed:\n%s", o.stdout)
		}
		o = execute(t, "models", "nope<b>")
		if o.code() != exitUsage || !strings.Contains(errString(o.err), `no model "nope<b>" (models: batch, bench,`) {
			t.Errorf("an unknown model: %s", o)
		}
	})
	t.Run("json", func(t *testing.T) {
		o := execute(t, "models", "--json")
		mustSucceed(t, o)
		var models []struct {
			Name    string `json:"name"`
			Version string `json:"version"`
			Params  []struct {
				Name      string   `json:"name"`
				Type      string   `json:"type"`
				Min       *float64 `json:"min"`
				Enum      []string `json:"enum"`
				Default   any      `json:"default"`
				Algorithm bool     `json:"algorithm"`
			} `json:"params"`
			Metrics []struct {
				Name string `json:"Name"`
			} `json:"metrics"`
		}
		if err := json.Unmarshal([]byte(o.stdout), &models); err != nil {
			t.Fatalf("models --json: %v\n%s", err, o.stdout)
		}
		bi := -1
		for i, m := range models {
			if m.Name == "bench" {
				bi = i
			}
			if i > 0 && models[i-1].Name >= m.Name {
				t.Errorf("models not sorted by name: %s before %s", models[i-1].Name, m.Name)
			}
		}
		if bi < 0 || models[bi].Version != "1" {
			t.Fatalf("models: %+v", models)
		}
		models = models[bi:]
		var names []string
		types := map[string]string{}
		for _, p := range models[0].Params {
			names = append(names, p.Name)
			types[p.Name] = p.Type
		}
		if strings.Join(names, ",") != strings.Join(benchParams, ",") {
			t.Errorf("params %v, want %v", names, benchParams)
		}
		if types["size"] != "int" || types["work_ms"] != "float" || types["variant"] != "string" {
			t.Errorf("param types %v", types)
		}
		for _, p := range models[0].Params {
			if p.Name == "fail" && strings.Join(p.Enum, ",") != "never,error,panic,crash" {
				t.Errorf("fail enum %v", p.Enum)
			}
			if p.Name == "variant" && !p.Algorithm {
				t.Error("variant is not marked as an algorithm parameter")
			}
		}
		if len(models[0].Metrics) != 3 {
			t.Errorf("metrics %+v", models[0].Metrics)
		}
	})
}

const tinySweep = `sweeps:
  - name: tiny
    model: bench
    seed: 1
    axes:
      - name: size
        values: [1, 2]
`

// TestConfigPrecedence checks where `run` puts its results: a flag beats the
// SCHEDFARM_* environment, which beats the config file.
func TestConfigPrecedence(t *testing.T) {
	// Not parallel: t.Setenv.
	dir := t.TempDir()
	sweepFile := writeFile(t, filepath.Join(dir, "tiny.yaml"), tinySweep)
	envDir := filepath.Join(dir, "from-env")
	cfgDir := filepath.Join(dir, "from-config")
	flagDir := filepath.Join(dir, "from-flag")
	config := writeFile(t, filepath.Join(dir, "schedfarm.yaml"), "results-dir: "+cfgDir+"\nmax-deliver: 3\n")
	tests := []struct {
		name   string
		env    bool
		config bool
		flag   bool
		want   string
	}{
		{name: "env", env: true, want: envDir},
		{name: "config", config: true, want: cfgDir},
		{name: "env beats config", env: true, config: true, want: envDir},
		{name: "flag beats config", config: true, flag: true, want: flagDir},
		{name: "flag beats env and config", env: true, config: true, flag: true, want: flagDir},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.env {
				t.Setenv("SCHEDFARM_RESULTS_DIR", envDir)
			} else {
				t.Setenv("SCHEDFARM_RESULTS_DIR", "")
				os.Unsetenv("SCHEDFARM_RESULTS_DIR")
			}
			args := []string{"run", "--workers", "1", "--state-dir", filepath.Join(dir, "state", string(rune('a'+i)))}
			if tt.config {
				args = append(args, "--config", config)
			}
			if tt.flag {
				args = append(args, "--results-dir", flagDir)
			}
			o := execute(t, append(args, sweepFile)...)
			mustSucceed(t, o)
			c := onlyCollected(t, o, tt.want, "tiny")
			if c.ok != "2" {
				t.Errorf("collected %+v", c)
			}
		})
	}
	// Every run landed where its case wanted it, and nowhere else.
	count := func(root string) int {
		entries, _ := os.ReadDir(filepath.Join(root, "tiny"))
		return len(entries)
	}
	if e, c, f := count(envDir), count(cfgDir), count(flagDir); e != 2 || c != 1 || f != 2 {
		t.Errorf("runs per results dir: env %d, config %d, flag %d; want 2, 1, 2", e, c, f)
	}
	if _, err := os.Stat("runs"); err == nil {
		t.Error("a run used the default results dir ./runs")
	}
}

func TestRunRefusesTooManyJobs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	state, res := filepath.Join(dir, "state"), filepath.Join(dir, "results")
	o := execute(t, "run", "--workers", "2", "--max-jobs", "50", "--state-dir", state, "--results-dir", res, smokeFile)
	wantExit(t, o, exitUsage)
	for _, w := range []string{"100 jobs", "over the limit of 50", "--max-jobs"} {
		if !strings.Contains(o.err.Error(), w) {
			t.Errorf("error lacks %q: %v", w, o.err)
		}
	}
	// Nothing ran: no NATS state, no results, no progress.
	for _, p := range []string{state, res} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s exists after a refused run (%v)", p, err)
		}
	}
	if strings.Contains(o.stderr, "published") || o.stdout != "" {
		t.Errorf("a refused run published or collected:\n%s", o)
	}
}

func TestUsageErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"bad log level", []string{"--log-level", "loud", "models"}, "--log-level"},
		{"missing config file", []string{"--config", filepath.Join(dir, "nope.yaml"), "models"}, "config file"},
		{"no workers", []string{"run", "--workers", "0", "--state-dir", filepath.Join(dir, "s"), smokeFile}, "--workers must be at least 1"},
		{"bad sweep", []string{"run", "--state-dir", filepath.Join(dir, "s2"), "../../sweep/testdata/bad/unknown_model.yaml"}, "unknown_model.yaml:2:8:"},
		{"missing sweep", []string{"expand", filepath.Join(dir, "missing.yaml")}, "missing.yaml"},
		{"run needs a file", []string{"run"}, "run needs one sweep file, e.g. `schedfarm run configs/smoke.yaml`"},
		{"unknown command", []string{"frobnicate"}, "unknown command"},
		{"unknown flag", []string{"models", "--bogus"}, "unknown flag"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := execute(t, tt.args...)
			wantExit(t, o, exitUsage)
			if !strings.Contains(o.err.Error(), tt.want) {
				t.Errorf("error %q lacks %q", o.err, tt.want)
			}
		})
	}
	for _, p := range []string{"s", "s2"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err == nil {
			t.Errorf("state dir %s created by a refused run", p)
		}
	}
}

func TestVersion(t *testing.T) {
	t.Parallel()
	o := execute(t, "version")
	mustSucceed(t, o)
	if !strings.HasPrefix(o.stdout, "schedfarm ") || !strings.Contains(o.stdout, "go1.") {
		t.Errorf("version: %q", o.stdout)
	}
}

// TestLocalFlagsFromConfig checks that the flags of a subcommand (here
// run's --state-dir and --workers) are read from the SCHEDFARM_*
// environment and the config file too, not only the global ones.
func TestLocalFlagsFromConfig(t *testing.T) {
	// Not parallel: t.Setenv.
	dir := t.TempDir()
	sweepFile := writeFile(t, filepath.Join(dir, "tiny.yaml"), tinySweep)
	res := filepath.Join(dir, "results")

	t.Run("env", func(t *testing.T) {
		state := filepath.Join(dir, "env-state")
		t.Setenv("SCHEDFARM_STATE_DIR", state)
		t.Setenv("SCHEDFARM_WORKERS", "1")
		o := execute(t, "run", "--results-dir", res, sweepFile)
		mustSucceed(t, o)
		if !strings.Contains(o.stderr, "2 jobs, 1 workers") {
			t.Errorf("SCHEDFARM_WORKERS=1 ignored:\n%s", o)
		}
		if _, err := os.Stat(filepath.Join(state, "nats")); err != nil {
			t.Errorf("SCHEDFARM_STATE_DIR ignored: %v", err)
		}
	})
	t.Run("bad env value", func(t *testing.T) {
		t.Setenv("SCHEDFARM_WORKERS", "many")
		o := execute(t, "run", "--results-dir", res, "--state-dir", filepath.Join(dir, "bad-state"), sweepFile)
		wantExit(t, o, exitUsage)
		if !strings.Contains(o.err.Error(), "--workers") {
			t.Errorf("error %q does not name the flag", o.err)
		}
	})
	t.Run("config", func(t *testing.T) {
		state := filepath.Join(dir, "cfg-state")
		config := writeFile(t, filepath.Join(dir, "local.yaml"), "state-dir: "+state+"\nworkers: 1\nresults-dir: "+res+"\n")
		o := execute(t, "run", "--config", config, sweepFile)
		mustSucceed(t, o)
		if !strings.Contains(o.stderr, "2 jobs, 1 workers") {
			t.Errorf("workers: 1 in the config file ignored:\n%s", o)
		}
		if _, err := os.Stat(filepath.Join(state, "nats")); err != nil {
			t.Errorf("state-dir in the config file ignored: %v", err)
		}
		// A flag still wins.
		o = execute(t, "run", "--config", config, "--workers", "2", sweepFile)
		mustSucceed(t, o)
		if !strings.Contains(o.stderr, "2 jobs, 2 workers") {
			t.Errorf("--workers 2 lost to the config file:\n%s", o)
		}
	})
	if _, err := os.Stat(".schedfarm"); err == nil {
		t.Error("a run used the default state dir ./.schedfarm")
		os.RemoveAll(".schedfarm")
	}
}

// TestRunLocksStateDir: a second `run` on a state dir another run holds is
// refused (exit 2, naming the dir) instead of sharing its JetStream store;
// the lock goes with the first run.
func TestRunLocksStateDir(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	unlock, err := lockStateDir(state)
	if err != nil {
		t.Fatal(err)
	}
	second := execute(t, "run", "--workers", "1", "--state-dir", state, "--results-dir", t.TempDir(), smokeFile)
	if second.code() != exitUsage || !strings.Contains(second.String(), "is in use by another `schedfarm run`") {
		t.Errorf("second run on a held state dir:\n%s", second)
	}
	unlock()
	if again, err := lockStateDir(state); err != nil {
		t.Errorf("the lock outlived its holder: %v", err)
	} else {
		again()
	}
}

// TestDataDirFromEnv: SCHEDFARM_DATA_DIR takes a comma-separated list, like
// the flag; viper hands it over as one string, which used to be one
// (nonexistent) directory. A file only in the second directory is found
// (and hashed: it is not the real log, so it does not match).
func TestDataDirFromEnv(t *testing.T) {
	// Not parallel: t.Setenv.
	second := t.TempDir()
	writeFile(t, filepath.Join(second, "traces", "CTC-SP2-1996-3.1-cln.swf.gz"), "not the log")
	t.Setenv("SCHEDFARM_DATA_DIR", filepath.Join(t.TempDir(), "nonexistent")+", "+second)
	out := execute(t, "traces")
	mustSucceed(t, out)
	if !regexp.MustCompile(`CTC-SP2-1996-3.1-cln.swf.gz\s+\d+\s+MISMATCH`).MatchString(out.stdout) {
		t.Errorf("the second directory of SCHEDFARM_DATA_DIR was not searched:\n%s", out.stdout)
	}
}

// TestExitCodes: each kind of failure has its documented exit status; a
// stored part that cannot be read (lost or damaged in the object store,
// its read timing out) is not "the farm did not answer", nor bad input.
func TestExitCodes(t *testing.T) {
	m := bench.New()
	schema := m.Schema()
	params, err := schema.Complete(simcore.Params{})
	if err != nil {
		t.Fatal(err)
	}
	jobs := []sweep.Job{{ID: uuid.New(), Sweep: "s", Model: m.Name(), ModelVersion: m.Version(), Params: params, Seed: 1}}
	lost := func(err error) error {
		_, cerr := collect.Collect(context.Background(), failingSource{err},
			collect.Input{RunID: "r", Model: schema, Jobs: jobs}, filepath.Join(t.TempDir(), "out"))
		return cerr
	}
	for _, c := range []struct {
		name string
		err  error
		want int
	}{
		{"bad input", errors.New("sweep file: no sweeps"), exitUsage},
		{"failures", &exitError{exitFailures, errors.New("3 jobs failed")}, exitFailures},
		{"no answer", &coordinator.NoAnswerError{Verb: "status", Subject: "x", Waited: time.Second, Deadline: time.Second}, exitNoAnswer},
		{"request timeout", fmt.Errorf("status: %w", nats.ErrTimeout), exitNoAnswer},
		{"part read times out", lost(nats.ErrTimeout), exitPartLost},
		{"part not found", lost(jetstream.ErrObjectNotFound), exitPartLost},
	} {
		if c.err == nil {
			t.Fatalf("%s: no error", c.name)
		}
		if got := exitCode(c.err); got != c.want {
			t.Errorf("%s (%v): exit %d, want %d", c.name, c.err, got, c.want)
		}
	}
}

// failingSource is a PartSource of one part whose objects fail to open
// with err.
type failingSource struct{ err error }

func (f failingSource) List(context.Context) ([]string, error) {
	return []string{results.PartObjectName("a", results.JobsTable)}, nil
}

func (f failingSource) Open(context.Context, string) (io.ReadCloser, error) { return nil, f.err }
