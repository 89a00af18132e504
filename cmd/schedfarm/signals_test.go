package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/cobra"
)

// The tests in this file send signals to real schedfarm processes: this
// test binary, started again in child mode (childEnv), runs main's own
// runMain on the command line it is given. Each waits for the phase it
// interrupts to start (the debug line app.phase logs), sends the signal,
// and judges by what the process did (its exit status, the files it wrote
// or did not write), never by how long it took; childWait bounds each
// process only so that a broken build fails instead of hanging.

// childEnv set to 1 makes this test binary a schedfarm process.
const childEnv = "SCHEDFARM_TEST_CHILD"

// childWait bounds a child's every wait: a test timeout, not a verdict.
const childWait = 3 * time.Minute

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		a := newApp()
		a.root.AddCommand(stuckCmd(a))
		os.Exit(runMain(a, os.Args[1:], os.Stderr, os.Exit))
	}
	os.Exit(m.Run())
}

// stuckCmd is a command of the child processes only: its one phase never
// looks at its context, as a phase stuck in a library call would (a figure
// whose axis ticks never come back). Only the second signal ends it.
func stuckCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:    "test-stuck",
		Hidden: true,
		RunE: func(*cobra.Command, []string) error {
			a.phase("stuck")
			for {
				time.Sleep(time.Hour)
			}
		},
	}
}

// child is a schedfarm process whose stderr the test reads line by line.
type child struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdout bytes.Buffer
	mu     sync.Mutex
	stderr []string      // lines so far
	more   chan struct{} // signalled on every line
	exited chan struct{} // closed once the process has exited
	err    error         // of Wait, once exited
}

// startChild starts schedfarm args (with --log-level debug) in dir.
func startChild(t *testing.T, dir string, args ...string) *child {
	t.Helper()
	c := &child{t: t, more: make(chan struct{}, 1), exited: make(chan struct{})}
	c.cmd = exec.Command(os.Args[0], append(args, "--log-level", "debug")...)
	c.cmd.Dir = dir
	c.cmd.Env = append(os.Environ(), childEnv+"=1")
	c.cmd.Stdout = &c.stdout
	pipe, err := c.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	read := make(chan struct{})
	go func() {
		defer close(read)
		sc := bufio.NewScanner(pipe)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			c.mu.Lock()
			c.stderr = append(c.stderr, sc.Text())
			c.mu.Unlock()
			select {
			case c.more <- struct{}{}:
			default:
			}
		}
		_, _ = io.Copy(io.Discard, pipe)
	}()
	go func() {
		<-read
		c.err = c.cmd.Wait()
		close(c.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-c.exited:
		default:
			_ = c.cmd.Process.Kill()
			<-c.exited
		}
	})
	return c
}

// log returns the stderr lines so far.
func (c *child) log() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return strings.Join(c.stderr, "\n")
}

// waitLine waits for a line of stderr that holds every one of parts.
func (c *child) waitLine(parts ...string) {
	c.t.Helper()
	deadline := time.After(childWait)
	for seen := 0; ; {
		c.mu.Lock()
		lines := c.stderr[seen:]
		seen = len(c.stderr)
		c.mu.Unlock()
		for _, l := range lines {
			all := true
			for _, p := range parts {
				all = all && strings.Contains(l, p)
			}
			if all {
				return
			}
		}
		select {
		case <-c.more:
		case <-c.exited:
			c.mu.Lock()
			done := seen == len(c.stderr)
			c.mu.Unlock()
			if done {
				c.t.Fatalf("exited (%v) without a line holding %q:\n%s", c.err, parts, c.log())
			}
		case <-deadline:
			c.t.Fatalf("no line holding %q within %s:\n%s", parts, childWait, c.log())
		}
	}
}

// phaseStarted waits for the debug line of the start of phase.
func (c *child) phaseStarted(phase string) {
	c.t.Helper()
	c.waitLine(`msg="phase started"`, "phase="+phase)
}

// signal sends sig to the process.
func (c *child) signal(sig syscall.Signal) {
	c.t.Helper()
	if err := c.cmd.Process.Signal(sig); err != nil {
		c.t.Fatalf("signal %v: %v", sig, err)
	}
}

// exitCode waits for the process to exit and returns its exit status.
func (c *child) exitCode() int {
	c.t.Helper()
	select {
	case <-c.exited:
	case <-time.After(childWait):
		c.t.Fatalf("still running %s after the signal (killed):\n%s", childWait, c.log())
	}
	var ee *exec.ExitError
	switch {
	case c.err == nil:
		return 0
	case errors.As(c.err, &ee) && ee.ExitCode() >= 0:
		return ee.ExitCode()
	default:
		c.t.Fatalf("wait: %v\n%s", c.err, c.log())
		return -1
	}
}

// stopIn waits for phase to start, sends sig and checks that the process
// exits with code, saying on stderr that it stops phase and each of says.
func (c *child) stopIn(phase string, sig syscall.Signal, code int, says ...string) {
	c.t.Helper()
	c.phaseStarted(phase)
	c.signal(sig)
	if got := c.exitCode(); got != code {
		c.t.Fatalf("exit status %d, want %d\n--- stdout:\n%s--- stderr:\n%s", got, code, c.stdout.String(), c.log())
	}
	log := c.log()
	for _, want := range append(says, "stopping the "+phase+" phase") {
		if !strings.Contains(log, want) {
			c.t.Errorf("stderr does not say %q:\n%s", want, log)
		}
	}
}

// hugeSweepFile writes a sweep of 10^9 points that exclusions reduce to
// 1,000 jobs: expanding, counting or validating it walks every point in
// constant memory, for many minutes.
func hugeSweepFile(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("name: huge\nmodel: bench\nseed: 1\naxes:\n")
	for _, p := range []string{"size", "rows", "work_ms"} {
		fmt.Fprintf(&b, "  - {name: %s, range: {from: 0, to: 999, step: 1}}\n", p)
	}
	b.WriteString("exclude:\n")
	for v := 1; v <= 999; v++ {
		fmt.Fprintf(&b, "  - {rows: %d}\n  - {work_ms: %d}\n", v, v)
	}
	return writeFile(t, filepath.Join(dir, "huge.yaml"), b.String())
}

// TestSignalStopsExpansion checks signals for expand, expand
// --count and validate: each walks 10^9 points (minutes); a signal once
// the walk has started ends the process, with 128 + the signal's number
// and no listing, long before the walk could have finished.
func TestSignalStopsExpansion(t *testing.T) {
	dir := t.TempDir()
	huge := hugeSweepFile(t, dir)
	for _, tt := range []struct {
		name  string
		args  []string
		phase string
		sig   syscall.Signal
		code  int
	}{
		{"expand/INT", []string{"expand", "--max-jobs", "100000000", huge}, "expand", syscall.SIGINT, 130},
		{"expand/TERM", []string{"expand", "--json", "--max-jobs", "100000000", huge}, "expand", syscall.SIGTERM, 143},
		{"count/TERM", []string{"expand", "--count", "--max-jobs", "100000000", huge}, "count", syscall.SIGTERM, 143},
		{"validate/INT", []string{"validate", "--max-jobs", "100000000", huge}, "count", syscall.SIGINT, 130},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := startChild(t, dir, tt.args...)
			c.stopIn(tt.phase, tt.sig, tt.code, "schedfarm: stopped by "+tt.sig.String(), "context canceled")
			if out := c.stdout.String(); out != "" {
				t.Errorf("printed a result of the unfinished walk:\n%s", out)
			}
		})
	}
}

// TestSecondSignalExitsAtOnce: a phase that never looks at its context
// survives the first signal (which says what it stops); the second ends
// the process at once with 128 + its number. With signal.NotifyContext,
// the second was swallowed and only SIGKILL ended the process.
func TestSecondSignalExitsAtOnce(t *testing.T) {
	for _, tt := range []struct {
		first, second syscall.Signal
		code          int
	}{
		{syscall.SIGINT, syscall.SIGINT, 130},
		{syscall.SIGINT, syscall.SIGTERM, 143},
		{syscall.SIGTERM, syscall.SIGINT, 130},
	} {
		t.Run(fmt.Sprintf("%v,%v", tt.first, tt.second), func(t *testing.T) {
			c := startChild(t, t.TempDir(), "test-stuck")
			c.phaseStarted("stuck")
			c.signal(tt.first)
			c.waitLine("stopping the stuck phase", "a second signal exits at once")
			c.signal(tt.second)
			if code := c.exitCode(); code != tt.code {
				t.Fatalf("exit status %d, want %d:\n%s", code, tt.code, c.log())
			}
			if !strings.Contains(c.log(), "again: exiting at once") {
				t.Errorf("stderr does not say the second signal ended it:\n%s", c.log())
			}
		})
	}
}

// TestSignalStopsRun: `run` stops on SIGTERM in its report phase (300
// figures, one after the other) and on SIGINT while its jobs run. The
// report phase stops before it would have finished (no report.html, not
// every figure), and the collected results stay.
func TestSignalStopsRun(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString(`sweeps:
  - name: figs
    model: bench
    seed: 1
    replicates: 2
    axes:
      - {name: size, range: {from: 1, to: 5, step: 1}}
      - {name: variant, values: [a, b]}
    figures:
`)
	const figures = 300
	for i := range figures {
		fmt.Fprintf(&b, "      - {id: f%d, title: \"f%d\", kind: box, x: size, y: value, series: variant}\n", i, i)
	}
	figs := writeFile(t, filepath.Join(dir, "figs.yaml"), b.String())

	t.Run("report/TERM", func(t *testing.T) {
		c := startChild(t, dir, "run", "--workers", "2", "--state-dir", "state-report", "--results-dir", "res", figs)
		c.stopIn("report", syscall.SIGTERM, 143, "report interrupted")
		sums, _ := filepath.Glob(filepath.Join(dir, "res", "figs", "*", "summary.parquet"))
		if len(sums) != 1 {
			t.Fatalf("collected results: %v, want one summary.parquet", sums)
		}
		folder := filepath.Dir(sums[0])
		if _, err := os.Stat(filepath.Join(folder, "report.html")); err == nil {
			t.Errorf("report.html written: the report phase was not stopped")
		}
		if svgs, _ := filepath.Glob(filepath.Join(folder, "figures", "*.svg")); len(svgs) >= figures {
			t.Errorf("%d figures of %d rendered: the report phase was not stopped", len(svgs), figures)
		}
	})

	t.Run("jobs/INT", func(t *testing.T) {
		slow := writeFile(t, filepath.Join(dir, "slow.yaml"), "name: slow\nmodel: bench\nseed: 1\nparams: {variant: \"wait:never-created\"}\naxes:\n  - {name: size, range: {from: 1, to: 4, step: 1}}\n")
		c := startChild(t, dir, "run", "--workers", "2", "--state-dir", "state-slow", "--results-dir", "res", slow)
		c.stopIn("run", syscall.SIGINT, 130, "its finished jobs are kept")
	})
}
