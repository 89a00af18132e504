package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// leaseWait is what a coordinator logs when it finds the farm's lease held
// and waits for it (up to one and a half TTL, 10 s for `run`).
const leaseWait = "waiting for the coordinator lease"

// TestRunAfterFailedRunTakesLease: after a run that failed in the same
// state dir, the next `run` takes the coordinator lease at its first try,
// with no wait for the failed run's lease to expire: whether the failed
// run refused its sweep once the farm was up (bad input found after the
// state was loaded) and released the lease on its way out, or was killed
// (kill -9) while it held the lease, leaving it behind. Events, not
// sleeps: the kill follows the line that says the run holds its
// coordinator (it lingers, serving its status page, once its jobs are
// done); the verdict is the log of the next run, not its duration.
func TestRunAfterFailedRunTakesLease(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	writeTinyTrace(t, data)
	typo := writeFile(t, filepath.Join(dir, "typo.yaml"), strings.Replace(tinyLogSweep("none, easy"), "tiny.swf", "tiny.swf.gz", 1))
	smoke, err := filepath.Abs(smokeFile)
	if err != nil {
		t.Fatal(err)
	}
	run := func(state string, args ...string) *child {
		return startChild(t, dir, append([]string{"run", "--workers", "2", "--state-dir", state, "--results-dir", "runs", "--data-dir", data}, args...)...)
	}
	// next runs the smoke sweep after the failed run and checks that it
	// took the lease without waiting; it returns its log.
	next := func(t *testing.T, state string) string {
		t.Helper()
		c := run(state, smoke)
		if code := c.exitCode(); code != 0 {
			t.Fatalf("the run after the failed one: exit status %d:\n%s", code, c.log())
		}
		log := c.log()
		if strings.Contains(log, leaseWait) {
			t.Errorf("the run after the failed one waited for the failed run's lease:\n%s", log)
		}
		if !strings.Contains(log, "coordinator ready") {
			t.Errorf("no coordinator started:\n%s", log)
		}
		return log
	}

	t.Run("refused", func(t *testing.T) {
		state := "state-refused"
		if c := run(state, smoke); c.exitCode() != 0 {
			t.Fatalf("first run: %v:\n%s", c.err, c.log())
		}
		// The state is kept: the farm starts to see which jobs are done,
		// then the trace their sweep names is found missing.
		c := run(state, typo)
		if code := c.exitCode(); code != exitUsage {
			t.Fatalf("a run of a sweep naming a missing trace: exit status %d, want %d:\n%s", code, exitUsage, c.log())
		}
		if log := c.log(); !strings.Contains(log, "coordinator ready") || !strings.Contains(log, `"traces/tiny.swf.gz" not found`) ||
			!strings.Contains(log, `did you mean "traces/tiny.swf"?`) {
			t.Fatalf("the refused run did not start its coordinator, or not say what is missing and what is there:\n%s", log)
		}
		if log := c.log(); strings.Contains(log, "sweep(s)") || strings.Contains(log, "published") {
			t.Errorf("the refused run said its job count or published:\n%s", log)
		}
		next(t, state)
	})

	t.Run("killed", func(t *testing.T) {
		state := "state-killed"
		c := run(state, "--serve", "127.0.0.1:0", "--serve-linger", "10m", smoke)
		c.waitLine("(--serve-linger)") // done, collected, reported; its coordinator still holds the lease
		if err := c.cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		select {
		case <-c.exited:
		case <-time.After(childWait):
			t.Fatalf("still running %s after kill -9", childWait)
		}
		if log := next(t, state); !strings.Contains(log, "took over the coordinator lease of a holder that died on this host") {
			t.Errorf("no line says the dead run's lease was taken over:\n%s", log)
		}
	})
}
