package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"schedfarm/broker"
	"schedfarm/coordinator"
	"schedfarm/farmtest"
	"schedfarm/results/claims"
	"schedfarm/results/report"
	"schedfarm/simcore"
	"schedfarm/simcore/bench"
	"schedfarm/statuspage"
	"schedfarm/worker"
)

// pageError is the error of the status page test's failing jobs: markup
// that must show as text.
const pageError = `<b>x</b> & "quoted" <img src=x onerror="window.pwned=1"><script>window.pwned=1</script>`

// pageModel is a model for the status page test: a job succeeds, fails
// with pageError, or waits until gate is closed.
type pageModel struct{ gate <-chan struct{} }

func (pageModel) Name() string    { return "page" }
func (pageModel) Version() string { return "1" }
func (pageModel) Doc() string {
	return "succeeds, fails with markup in its error, or waits for the test"
}
func (pageModel) Schema() simcore.Schema {
	return simcore.Schema{
		Params: []simcore.Param{
			{Name: "mode", Kind: simcore.String, Enum: []string{"ok", "fail", "wait"}, Default: "ok", Doc: "what the job does"},
			{Name: "k", Kind: simcore.Int, Default: int64(0), Doc: "a free parameter, to make points"},
		},
		Metrics: []simcore.Column{{Name: "v", Kind: simcore.Int, Doc: "k"}},
	}
}

func (m pageModel) Run(ctx context.Context, p simcore.Params, _ uint64) (*simcore.Result, error) {
	switch p.String("mode") {
	case "fail":
		return nil, errors.New(pageError)
	case "wait":
		select {
		case <-m.gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return &simcore.Result{Metrics: map[string]any{"v": p.Int("k")}}, nil
}

const pageSweep = `sweeps:
  - name: page
    model: page
    seed: 1
    axes:
      - name: mode
        values: [ok, fail, wait]
      - name: k
        values: [1, 2]
`

// browserTools returns node, the playwright-core package and Chromium, or
// skips the test naming what is missing (fails in CI: .ci/run installs
// them and sets SCHEDFARM_PLAYWRIGHT_CORE).
func browserTools(t *testing.T) (node, playwright, chromium string) {
	t.Helper()
	var missing []string
	node, err := exec.LookPath("node")
	if err != nil {
		missing = append(missing, "node (Debian package nodejs)")
	}
	playwright = os.Getenv("SCHEDFARM_PLAYWRIGHT_CORE")
	if playwright == "" {
		missing = append(missing, "SCHEDFARM_PLAYWRIGHT_CORE (npm install --prefix DIR playwright-core@1.64.1, then SCHEDFARM_PLAYWRIGHT_CORE=DIR/node_modules/playwright-core)")
	} else if _, err := os.Stat(filepath.Join(playwright, "index.mjs")); err != nil {
		missing = append(missing, fmt.Sprintf("playwright-core in SCHEDFARM_PLAYWRIGHT_CORE=%s (%v)", playwright, err))
	}
	chromium = os.Getenv("SCHEDFARM_CHROMIUM")
	if chromium == "" {
		chromium, err = exec.LookPath("chromium")
		if err != nil {
			missing = append(missing, "chromium (Debian package chromium, or SCHEDFARM_CHROMIUM=PATH of a Chromium binary)")
		}
	}
	if len(missing) > 0 {
		msg := "status page browser test: missing " + strings.Join(missing, ", ") + "; .ci/run installs them"
		if os.Getenv("CI") == "true" || os.Getenv("SCHEDFARM_REQUIRE_BROWSER") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return node, playwright, chromium
}

var pageURL = regexp.MustCompile(`status page: (http://\S+/)`)

// historyRuns is the farm's history in TestStatusPageInBrowser: finished
// runs of historyJobs panicking jobs each (6 with -short, the race
// detector's pass), each job failed at its first delivery (MaxDeliver 1).
const historyRuns = 60

func historyJobs() int {
	if testing.Short() {
		return 6
	}
	return 300
}

// TestStatusPageInBrowser: `schedfarm status --serve` against a real farm,
// watched in headless Chromium (testdata/statuspage.mjs). The farm has
// history: 60 finished runs of 300 panicking jobs each (MaxDeliver 1; 6 with
// -short) on a server with nats-server's default max_payload of 1 MiB, then
// a run of 2 jobs with a report and no claims and its rerun with nothing to
// do, so the page lists the newest 50 runs and says what it leaves out
// (older runs, failed jobs beyond 5 per run). Mid-run the page shows the
// running run first, then the workers, both within the first 1280 × 900
// viewport, then each finished run folded to one line (progress, verdict
// counts, report): the run with a report says "no claims" and no note that
// claims will come, the rerun "nothing to do" with no rate; the failed
// jobs' error shows as text (markup from the wire creates no element) and a
// worker's current job by its sweep and parameters; when the coordinator is
// stopped the page says it is unreachable and keeps the runs; when another
// coordinator takes over it shows the failover; at the end the run is
// folded at 100 % with "1 pass" and its report's path, and unfolded (it
// stays so across polls) shows its claim verdicts; when `status --serve`
// itself stops, the page says so and keeps the runs, and it is live again
// once a new one serves the same address. Screenshots mid-run and at the
// end; SCHEDFARM_STATUS_PNG=FILE copies the mid-run one there
// (scripts/status-screenshot.sh makes docs/status.png so).
func TestStatusPageInBrowser(t *testing.T) {
	node, playwright, chromium := browserTools(t)
	conf := filepath.Join(t.TempDir(), "nats.conf")
	writeFile(t, conf, "max_payload: 1048576\n") // nats-server's default
	settings := farmtest.Settings()
	settings.MaxDeliver = 1
	settings.AckWait = 10 * time.Second // a waiting job is never redelivered
	f := farmtest.NewWithServer(t, settings, broker.ServerConfig{ConfigFile: conf})
	gate := make(chan struct{})
	var err error
	if f.Registry, err = simcore.NewRegistry(pageModel{gate: gate}, bench.New()); err != nil {
		t.Fatal(err)
	}
	noPacking := coordinator.Config{Packing: coordinator.Packing{Mode: coordinator.PackOff}}
	c1 := f.StartCoordinatorWith("coord-one", noPacking)
	f.StartWorkers(3, "pw", worker.Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var history []string
	for i := range historyRuns {
		h, err := c1.Submit(ctx, coordinator.SubmitRequest{File: "history.yaml", Text: fmt.Sprintf(historySweep, i+1, historyJobs())})
		if err != nil {
			t.Fatal(err)
		}
		history = append(history, h.Run)
	}
	for _, id := range history {
		if p := farmtest.WaitRun(t, c1.Coordinator, id, 4*time.Minute); p.Failed != historyJobs() {
			t.Fatalf("history run %s: %+v", id, *p)
		}
	}
	// A run of 2 jobs done, then its rerun with nothing to do.
	var again []string
	for range 2 {
		a, err := c1.Submit(ctx, coordinator.SubmitRequest{File: "again.yaml", Text: againSweep})
		if err != nil {
			t.Fatal(err)
		}
		if p := farmtest.WaitRun(t, c1.Coordinator, a.Run, 4*time.Minute); p.Done+p.Skipped != 2 {
			t.Fatalf("run %s of again.yaml: %+v", a.Run, *p)
		}
		again = append(again, a.Run)
	}
	rep, err := c1.Submit(ctx, coordinator.SubmitRequest{File: "page.yaml", Text: pageSweep})
	if err != nil {
		t.Fatal(err)
	}

	// The real command, as a user runs it. The first run of again.yaml
	// has a report without claims.
	resultsDir := t.TempDir()
	writeFile(t, filepath.Join(resultsDir, "again", again[0], report.ReportMarkdown), "# again\n")
	url, stopServe := startServe(t, ctx, "127.0.0.1:0", f.Server.ClientURL(), resultsDir)
	defer func() { stopServe() }()

	out := t.TempDir()
	script, err := filepath.Abs(filepath.Join("testdata", "statuspage.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, node, script, url, out, pageError, rep.Run, strconv.Itoa(historyJobs()), again[0], again[1])
	cmd.Env = append(os.Environ(), "PLAYWRIGHT_CORE="+playwright, "CHROMIUM="+chromium)
	var nodeErr farmtest.SyncBuffer
	cmd.Stderr = &nodeErr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	steps := make(chan string)
	go func() {
		defer close(steps)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			steps <- strings.TrimSpace(sc.Text())
		}
	}()
	// Each step the page reaches lets the test change the farm.
	actions := []struct {
		step string
		do   func()
	}{
		{"mid", c1.Stop},
		{"down", func() { f.StartCoordinatorWith("coord-two", noPacking) }},
		{"up", func() {
			writeClaims(t, filepath.Join(resultsDir, "page", rep.Run))
			writeFile(t, filepath.Join(resultsDir, "page", rep.Run, report.ReportHTML), "<!DOCTYPE html><title>page</title>")
			close(gate)
		}},
		{"end", func() { stopServe() }},
		{"server-down", func() {
			_, stopServe = startServe(t, ctx, strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/"), f.Server.ClientURL(), resultsDir)
		}},
		{"ok", nil},
	}
	for _, act := range actions {
		got, open := <-steps
		if !open || got != act.step {
			_ = cmd.Wait()
			t.Fatalf("the page did not reach step %q (got %q):\n%s", act.step, got, nodeErr.String())
		}
		t.Logf("page: %s", got)
		if act.do != nil {
			act.do()
			if _, err := io.WriteString(stdin, "next\n"); err != nil {
				t.Fatal(err)
			}
		}
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%s: %v\n%s", script, err, nodeErr.String())
	}
	for _, name := range []string{"mid.png", "end.png"} {
		b, err := os.ReadFile(filepath.Join(out, name))
		if err != nil || !bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")) {
			t.Errorf("screenshot %s: not a PNG (%v)", name, err)
		}
	}
	if dst := os.Getenv("SCHEDFARM_STATUS_PNG"); dst != "" {
		b, err := os.ReadFile(filepath.Join(out, "mid.png"))
		if err == nil {
			err = os.WriteFile(dst, b, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	// The page's document is what `status --json` prints.
	var doc statuspage.Document
	o := execute(t, "status", "--json", "--nats", f.Server.ClientURL(), "--results-dir", resultsDir, rep.Run)
	mustSucceed(t, o)
	if err := json.Unmarshal([]byte(o.stdout), &doc); err != nil {
		t.Fatalf("status --json: %v\n%s", err, o.stdout)
	}
	if len(doc.Runs) != 1 || doc.Runs[0].Percent != 100 || doc.Runs[0].Failed != 2 || len(doc.Runs[0].Claims) != 1 || doc.Coordinator != "coord-two" {
		t.Errorf("status --json: %s", o.stdout)
	}
	// And of every run: the newest 50, saying what it leaves out.
	doc = statuspage.Document{}
	o = execute(t, "status", "--json", "--nats", f.Server.ClientURL())
	mustSucceed(t, o)
	if err := json.Unmarshal([]byte(o.stdout), &doc); err != nil {
		t.Fatalf("status --json: %v\n%.2000s", err, o.stdout)
	}
	if n := len(doc.Runs); n != coordinator.DefaultStatusRuns || doc.TotalRuns != historyRuns+3 || doc.Runs[n-1].ID != rep.Run ||
		doc.Older != doc.Runs[0].ID || doc.Cut == nil || doc.Cut.Runs != historyRuns+3-n || doc.Cut.Failures != (n-3)*(historyJobs()-5) {
		t.Errorf("status --json of every run: %d runs of %d, older %q, cut %+v", len(doc.Runs), doc.TotalRuns, doc.Older, doc.Cut)
	}
}

// historySweep is a run of TestStatusPageInBrowser's history: jobs that
// panic, with a seed per run (the first %d) so that each run has jobs of
// its own, as many as the second %d.
const historySweep = `sweeps:
  - name: history
    model: bench
    seed: %d
    params:
      fail: panic
    axes:
      - name: size
        range: {from: 1, to: %d, step: 1}
`

// againSweep is run twice by TestStatusPageInBrowser: 2 jobs done, then
// a rerun whose jobs were all done.
const againSweep = `sweeps:
  - name: again
    model: bench
    seed: 1000
    axes:
      - name: size
        range: {from: 1, to: 2, step: 1}
`

// startServe runs `schedfarm status --serve addr` against the NATS server
// at natsURL until stop is called (or ctx ends), and returns the page's URL.
// stop waits for the command and fails the test if it failed; calling it
// again does nothing.
func startServe(t *testing.T, ctx context.Context, addr, natsURL, resultsDir string) (url string, stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(ctx)
	a := newApp()
	var stderr farmtest.SyncBuffer
	a.root.SetArgs([]string{"status", "--serve", addr, "--nats", natsURL, "--results-dir", resultsDir})
	a.root.SetOut(io.Discard)
	a.root.SetErr(&stderr)
	served := make(chan error, 1)
	go func() { served <- a.root.ExecuteContext(ctx) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			if err := <-served; err != nil {
				t.Errorf("status --serve %s: %v\n%s", addr, err, stderr.String())
			}
		})
	}
	for {
		if m := pageURL.FindStringSubmatch(stderr.String()); m != nil {
			return m[1], stop
		}
		select {
		case err := <-served:
			cancel()
			t.Fatalf("status --serve %s stopped: %v\n%s", addr, err, stderr.String())
		case <-ctx.Done():
			t.Fatalf("status --serve %s printed no address:\n%s", addr, stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// writeClaims writes the claims.json a report of the page sweep would
// write into dir, one claim with markup in its text.
func writeClaims(t *testing.T, dir string) {
	t.Helper()
	claims := []claims.Result{{ID: "v-is-k", Verdict: claims.Pass, Numbers: "v = k at 4/4 points",
		Text: `v <i>equals</i> k <img src=x onerror="window.pwned=1">`}}
	b, err := json.Marshal(claims)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, report.ClaimsJSON), string(b))
}

// TestRunServe: `run --serve` serves the page while the run goes and, once
// its report is written, for --serve-linger more, the document with the
// run at 100 % and its claim verdicts.
func TestRunServe(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	a := newApp()
	var stderr farmtest.SyncBuffer
	a.root.SetArgs([]string{"run", "--serve", "127.0.0.1:0", "--serve-linger", "10m", "--workers", "2",
		"--state-dir", filepath.Join(dir, "state"), "--results-dir", filepath.Join(dir, "results"), smokeFile})
	a.root.SetOut(io.Discard)
	a.root.SetErr(&stderr)
	ran := make(chan error, 1)
	go func() { ran <- a.root.ExecuteContext(ctx) }()
	var url string
	var doc statuspage.Document
	for {
		if m := pageURL.FindStringSubmatch(stderr.String()); m != nil && url == "" {
			url = m[1]
		}
		if url != "" {
			doc = statuspage.Document{}
			if err := farmtest.GetJSON(url+"status.json", &doc); err != nil {
				t.Fatal(err)
			}
			if len(doc.Runs) == 1 && len(doc.Runs[0].Claims) > 0 {
				break
			}
		}
		select {
		case err := <-ran:
			t.Fatalf("run ended before its page showed the claims: %v\n%s", err, stderr.String())
		case <-ctx.Done():
			t.Fatalf("no claims on the page: %+v\n%s", doc, stderr.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
	r := doc.Runs[0]
	if r.Percent != 100 || r.Status != "complete" || r.Done != 100 || len(r.Claims) != 2 {
		t.Errorf("the run on the page: %+v", r)
	}
	for _, c := range r.Claims {
		if c.Sweep != "smoke" || c.Verdict != claims.Pass {
			t.Errorf("claim %+v: want smoke's claims passing", c)
		}
	}
	if !strings.Contains(stderr.String(), "--serve-linger") {
		t.Errorf("run does not say it keeps serving:\n%s", stderr.String())
	}
	cancel() // ends the linger
	if err := <-ran; err != nil {
		t.Errorf("run --serve: %v\n%s", err, stderr.String())
	}
}

// TestServeRefusals: --serve off loopback is refused unless
// --serve-any-address, before anything starts; --serve and --json are
// exclusive.
func TestServeRefusals(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, args := range [][]string{
		{"status", "--serve", "0.0.0.0:0"},
		{"run", "--serve", "0.0.0.0:0", "--state-dir", filepath.Join(dir, "state"), smokeFile},
	} {
		o := execute(t, args...)
		wantExit(t, o, exitUsage)
		if !strings.Contains(o.err.Error(), "--serve-any-address") {
			t.Errorf("%s: the error does not name --serve-any-address", o)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "state")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("run --serve on a refused address started anyway: %v", err)
	}
	o := execute(t, "status", "--json", "--serve", "127.0.0.1:0")
	wantExit(t, o, exitUsage)
}

// TestListenLocal: a server without authentication binds to loopback when
// no host is given, and off loopback only when allowed.
func TestListenLocal(t *testing.T) {
	tests := []struct {
		addr, allowedBy string
		allowed         bool
		want            string // an error containing this, or "" for a listener
		loopback        bool
	}{
		{":0", "serve-any-address", false, "", true},
		{"127.0.0.1:0", "serve-any-address", false, "", true},
		{"0.0.0.0:0", "serve-any-address", false, "add --serve-any-address", false},
		{"0.0.0.0:0", "serve-any-address", true, "", false},
		{"0.0.0.0:0", "pprof-any-address", false, "add --pprof-any-address", false}, // --pprof: the same rule
		{"8080", "serve-any-address", false, "want HOST:PORT, e.g. 127.0.0.1:8080", false},
	}
	for _, tc := range tests {
		var logs farmtest.SyncBuffer
		ln, err := listenLocal("serve", tc.addr, "127.0.0.1:8080", tc.allowedBy, tc.allowed, slog.New(slog.NewTextHandler(&logs, nil)))
		if tc.want != "" {
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s (allowed by %q: %v): %v, want an error with %q", tc.addr, tc.allowedBy, tc.allowed, err, tc.want)
			}
			if err == nil {
				ln.Close()
			}
			continue
		}
		if err != nil {
			t.Errorf("%s (allowed by %q: %v): %v", tc.addr, tc.allowedBy, tc.allowed, err)
			continue
		}
		if got := ln.Addr().(*net.TCPAddr).IP.IsLoopback(); got != tc.loopback {
			t.Errorf("%s bound %v, loopback %v, want %v", tc.addr, ln.Addr(), got, tc.loopback)
		}
		if warned := strings.Contains(logs.String(), `level=WARN msg="serving without authentication on a non-loopback address" flag=--serve`); warned == tc.loopback {
			t.Errorf("%s bound %v: warned %v, want a warning exactly when off loopback:\n%s", tc.addr, ln.Addr(), warned, logs.String())
		}
		ln.Close()
	}
}
