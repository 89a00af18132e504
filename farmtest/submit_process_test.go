package farmtest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"schedfarm/coordinator"
)

// The tests in this file attack the client commands of a farm of separate
// processes (a `schedfarm server` with a token, coordinators, workers):
// coordinator failovers during `submit --wait` and during a submission,
// coordinators that never answer, none at all.

const testToken = "tok-5b9e0c1d"

var runIDRE = regexp.MustCompile(`(?m)^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// result is how a short command of the binary ended.
type result struct {
	stdout, stderr string
	code           int
	took           time.Duration
}

func (r result) String() string {
	return fmt.Sprintf("exit %d after %v\n--- stdout:\n%s--- stderr:\n%s", r.code, r.took.Round(time.Millisecond), r.stdout, r.stderr)
}

// runResult runs a command of the binary with extra environment variables and
// returns how it ended; the test fails if it outlives timeout.
func (c *cluster) runResult(timeout time.Duration, env []string, args ...string) result {
	c.t.Helper()
	start := time.Now()
	stdout, stderr, timedOut, err := c.execute(timeout, env, args...)
	r := result{stdout: stdout, stderr: stderr, took: time.Since(start)}
	var ee *exec.ExitError
	switch {
	case timedOut:
		c.t.Fatalf("schedfarm %s did not end within %v:\n%s", strings.Join(args, " "), timeout, r)
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		c.t.Fatal(err)
	}
	return r
}

// waitExit waits for a named process to exit and returns its status.
func (c *cluster) waitExit(name string, timeout time.Duration) *os.ProcessState {
	c.t.Helper()
	c.mu.Lock()
	p := c.procs[name]
	c.mu.Unlock()
	done := make(chan struct{})
	go func() { _ = p.Wait(); close(done) }()
	select {
	case <-done:
		return p.ProcessState
	case <-time.After(timeout):
		c.t.Fatalf("%s did not exit within %v; its log:\n%s", name, timeout, c.log(name))
	}
	return nil
}

// waitCoordinator waits until a coordinator answers.
func (c *cluster) waitCoordinator(timeout time.Duration) {
	c.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		_, err := c.run(time.Minute, "status")
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("no coordinator answers: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// noToken fails the test if the token appears in any process's output.
func (c *cluster) noToken(extra ...string) {
	c.t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	for name, l := range c.logs {
		if strings.Contains(l.String(), testToken) {
			c.t.Errorf("the token appears in the log of %s", name)
		}
	}
	for i, s := range extra {
		if strings.Contains(s, testToken) {
			c.t.Errorf("the token appears in output %d", i)
		}
	}
}

// TestSubmitWaitThroughFailover: `submit --wait` follows its run through a
// coordinator's failover (kill -9, a new coordinator 5 s later, which takes
// over once the dead one's lease expires): it says once that it waits for
// a coordinator, and exits 0 when the run completes; every job is in the
// results exactly once. The coordinator is killed while every worker
// holds a job (held in flight until the new coordinator is started), and
// the new one starts once submit has said that it waits.
func TestSubmitWaitThroughFailover(t *testing.T) {
	t.Parallel()
	c := newClusterEnv(t, "5s", []string{"SCHEDFARM_TOKEN=" + testToken})
	c.start("coordinator", "coordinator")
	for i := 0; i < 3; i++ {
		c.start(fmt.Sprintf("worker%d", i), "worker", "--workers", "1", "--name", fmt.Sprintf("w%d", i))
	}
	c.waitCoordinator(eventWait)
	g := newFileGate(t)
	path := c.writeSweep("failover.yaml", fmt.Sprintf(holdSweep, g.Variant(), 10)) // 40 jobs
	c.start("submit", "submit", "--wait", path)
	waitFor(t, "submit to print its run ID", func() bool { return runIDRE.MatchString(c.log("submit")) })
	run := runIDRE.FindString(c.log("submit"))
	c.waitWorkers("every worker to hold a job", holding("w0-w0", "w1-w0", "w2-w0"))
	c.kill("coordinator", syscall.SIGKILL, eventWait)
	killed := time.Now()
	waitFor(t, "submit --wait to say that it waits for a coordinator", func() bool {
		return strings.Contains(c.log("submit"), "waiting for a coordinator")
	})
	c.start("coordinator2", "coordinator")
	g.Open()
	st := c.waitExit("submit", eventWait)
	log := c.log("submit")
	t.Logf("submit --wait exited %d, %v after the kill; its output:\n%s", st.ExitCode(), time.Since(killed).Round(time.Millisecond), log)
	if st.ExitCode() != 0 {
		t.Fatalf("submit --wait exited %d through a failover, want 0", st.ExitCode())
	}
	if n := strings.Count(log, "waiting for a coordinator"); n != 1 {
		t.Errorf("submit --wait said %d times that it waits for a coordinator, want once", n)
	}
	c.expectDone(run, 40, eventWait)
	fr, _ := c.collectJobs(run, "procs")
	checkOnce(t, fr, 40)
	c.noToken()
}

// TestSubmitCoordinatorKilledMidSubmission: the coordinator is killed
// (kill -9) while it publishes a submission's 150,000 jobs; `submit` does
// not hang: it sees the coordinator gone, waits for the next one and sends
// the same submission again, which gives the same run. A second `submit`
// of the file gives that run too. One run exists.
func TestSubmitCoordinatorKilledMidSubmission(t *testing.T) {
	t.Parallel()
	c := newClusterEnv(t, "5s", []string{"SCHEDFARM_TOKEN=" + testToken})
	c.start("coordinator", "coordinator", "--packing", "off")
	c.waitCoordinator(eventWait)
	path := c.writeSweep("big.yaml", `name: big
model: bench
seed: 5
replicates: 1500
params: {work_ms: 0}
axes:
  - name: size
    range: {from: 1, to: 100, step: 1}
`)
	c.start("submit", "submit", path)
	var out string
	waitFor(t, "status to show the run publishing", func() bool {
		out, _ = c.run(eventWait, "status")
		return strings.Contains(out, "publishing")
	})
	c.kill("coordinator", syscall.SIGKILL, eventWait)
	killed := time.Now()
	c.start("coordinator2", "coordinator", "--packing", "off")
	st := c.waitExit("submit", eventWait)
	log := c.log("submit")
	t.Logf("submit exited %d, %v after the kill; its output:\n%s", st.ExitCode(), time.Since(killed).Round(time.Millisecond), log)
	if st.ExitCode() != 0 {
		t.Fatalf("submit exited %d after the coordinator was killed, want 0", st.ExitCode())
	}
	run := runIDRE.FindString(log)
	if run == "" || !strings.Contains(log, "stopped before answering") {
		t.Fatalf("submit printed no run ID, or did not say the coordinator stopped")
	}
	again := c.runResult(eventWait, nil, "submit", path)
	if again.code != 0 || strings.TrimSpace(again.stdout) != run || !strings.Contains(again.stderr, "already submitted") {
		t.Fatalf("a second submit of the same file: %s\nwant run %s again", again, run)
	}
	out, err := c.run(eventWait, "status", "--json")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out, `"file":`); n != 1 || !strings.Contains(out, `"id": "`+run+`"`) || !strings.Contains(out, `"total": 150000`) {
		t.Fatalf("status lists %d runs, want only %s of 150000 jobs:\n%.2000s", n, run, out)
	}
	if _, err := c.run(eventWait, "cancel", run); err != nil {
		t.Fatal(err)
	}
	c.noToken(again.stdout, again.stderr, out)
}

// TestRequestDeadlines: with no coordinator at all, `status` waits
// --coordinator-timeout, saying once that it waits, then exits 3; with a
// "coordinator" that takes every request and never answers, `status`,
// `cancel` and `submit` each exit 3 within their bounds, naming the
// request, its subject and how long they waited. Each command is judged by
// its exit status and words, and by having waited at least its bound: how
// much longer a loaded machine takes is no verdict.
func TestRequestDeadlines(t *testing.T) {
	t.Parallel()
	c := newClusterEnv(t, "5s", []string{"SCHEDFARM_TOKEN=" + testToken})
	// A farm whose coordinator died: its streams exist, nobody answers.
	c.start("coordinator", "coordinator")
	c.waitCoordinator(eventWait)
	c.kill("coordinator", syscall.SIGKILL, eventWait)
	// The bounds come from the environment, as a config would give them.
	env := []string{"SCHEDFARM_REQUEST_TIMEOUT=1s", "SCHEDFARM_COORDINATOR_TIMEOUT=2s"}
	r := c.runResult(eventWait, env, "status")
	t.Logf("status without a coordinator: %s", r)
	if r.code != 3 || strings.Count(r.stderr, "waiting for a coordinator") != 1 ||
		!strings.Contains(r.stderr, "no coordinator answered on schedfarm.api.status") || r.took < 2*time.Second {
		t.Fatalf("status without a coordinator: want exit 3 after its 2-s coordinator timeout, having said once that it waits")
	}
	// A subscriber that swallows every API request.
	nc, err := nats.Connect(fmt.Sprintf("nats://127.0.0.1:%d", c.port), nats.Token(testToken))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	if _, err := nc.Subscribe("schedfarm.api.>", func(*nats.Msg) {}); err != nil {
		t.Fatal(err)
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	run := coordinator.NewRunID()
	path := c.writeSweep("deadline.yaml", fmt.Sprintf(procSweep, 1, 2))
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"status"}, []string{"status: the farm did not answer in time", "schedfarm.api.status", "deadline of 1s"}},
		{[]string{"cancel", run}, []string{"cancel: the farm did not answer in time", "schedfarm.api.cancel", "deadline of 1s"}},
		{[]string{"submit", path}, []string{"submit: the farm did not answer in time", "schedfarm.api.ping", "deadline of 1s", "nothing was submitted"}},
	} {
		r := c.runResult(eventWait, env, tc.args...)
		t.Logf("%s against a silent coordinator: %s", tc.args[0], r)
		if r.code != 3 || r.took < time.Second {
			t.Fatalf("%s: want exit 3 after its 1-s request deadline", tc.args[0])
		}
		for _, w := range tc.want {
			if !strings.Contains(r.stderr, w) {
				t.Errorf("%s: stderr does not say %q", tc.args[0], w)
			}
		}
		c.noToken(r.stdout, r.stderr)
	}
}
