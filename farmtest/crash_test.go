package farmtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"schedfarm/worker"
)

// supervisor keeps a worker process of a cluster running: it starts it
// again each time it exits, as a service manager does, and keeps each
// exit's state. Its processes are the cluster's (their logs are shown
// when the test fails).
type supervisor struct {
	c    *cluster
	name string
	args []string
	done chan struct{}

	mu      sync.Mutex
	cur     *exec.Cmd
	stopped bool
	exits   []*os.ProcessState
	err     error
}

// supervise starts the worker process args (a command of the binary) and
// restarts it after each exit until stop.
func (c *cluster) supervise(name string, args ...string) *supervisor {
	s := &supervisor{c: c, name: name, args: args, done: make(chan struct{})}
	go s.loop()
	c.t.Cleanup(func() { s.stop(c.t) })
	return s
}

func (s *supervisor) loop() {
	defer close(s.done)
	for i := 0; ; i++ {
		name := fmt.Sprintf("%s-%d", s.name, i)
		args := append(append([]string(nil), s.args...), "--name", name)
		args = append(args, s.c.flagsFor(args[0])...)
		cmd := exec.Command(s.c.bin, args...)
		cmd.Env = append(os.Environ(), s.c.env...)
		log := &SyncBuffer{}
		cmd.Stdout, cmd.Stderr = log, log
		s.mu.Lock()
		if s.stopped {
			s.mu.Unlock()
			return
		}
		if err := cmd.Start(); err != nil {
			s.err = err
			s.mu.Unlock()
			return
		}
		s.cur = cmd
		s.mu.Unlock()
		s.c.mu.Lock()
		s.c.procs[name], s.c.logs[name] = cmd, log
		s.c.mu.Unlock()
		_ = cmd.Wait()
		s.mu.Lock()
		stopped := s.stopped
		if !stopped {
			s.exits = append(s.exits, cmd.ProcessState)
		}
		s.mu.Unlock()
		if stopped {
			return
		}
	}
}

// stop ends the supervision (SIGTERM to the running process) and returns
// the exits that happened before it.
func (s *supervisor) stop(t *testing.T) []*os.ProcessState {
	t.Helper()
	s.mu.Lock()
	s.stopped = true
	if s.cur != nil {
		_ = s.cur.Process.Signal(syscall.SIGTERM) // an error: it has exited
	}
	s.mu.Unlock()
	select {
	case <-s.done:
	case <-time.After(eventWait):
		t.Fatalf("the supervised worker did not stop within %v of SIGTERM", eventWait)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		t.Fatal(s.err)
	}
	return s.exits
}

// crashSweep is the crash-neighbour sweep on the bench model: three good
// jobs and, last, one that crashes its worker process (a Go fatal error,
// as running out of memory is).
const crashSweep = `sweeps:
  - name: crash
    model: bench
    seed: 44
    axes:
      - zip:
          size: [50, 60, 70, 1000000000]
          fail: [never, never, never, crash]
`

var failedRE = regexp.MustCompile(`(?m)^failed\s+\S+ sweep=crash index=(\d+) attempts=(\d+) worker=\S*: (.*)$`)

// TestCrashHarmsOnlyItself: a job that crashes its
// worker process, restarted after every exit, harms only itself. One
// worker process of two loops, the crasher published after three good
// jobs (each alone, and all four in one pack): the three end ok, the
// crasher crashes the process exactly MaxDeliver (5) times and is then
// recorded failed with "worker crashed while running it" and its
// parameters. Before the fix, the good jobs' results, buffered beside the
// crasher, died with the process every time, and all four ended "no
// result after 5 deliveries". The results buffer is never stored by age
// (--flush-every 1m), only when the queue is empty or before a job that
// must run alone, so nothing depends on timing.
func TestCrashHarmsOnlyItself(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, packing string }{{"alone", "off"}, {"packed", "4"}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := newCluster(t, "1s")
			c.coordFlags = append(c.coordFlags, "--packing", tc.packing)
			c.start("coordinator", "coordinator")
			run := c.submit(c.writeSweep("crash.yaml", crashSweep))
			sup := c.supervise("worker", "worker", "--workers", "2", "--flush-every", "1m")
			total, done, failed := c.waitDone(run, eventWait)
			exits := sup.stop(t)
			if total != 4 || done != 3 || failed != 1 {
				t.Errorf("status: total %d done %d failed %d, want 4 jobs: 3 done, 1 failed", total, done, failed)
			}
			for i, st := range exits {
				if st.ExitCode() != 2 {
					t.Errorf("worker exit %d: %v, want exit status 2 (a Go fatal error)", i+1, st)
				}
			}
			if len(exits) != 5 {
				t.Errorf("the worker process exited %d times, want 5: once per delivery of the crasher (--max-deliver 5)", len(exits))
			}
			out, err := c.run(eventWait, "status", run)
			if err != nil {
				t.Fatal(err)
			}
			fails := failedRE.FindAllStringSubmatch(out, -1)
			if len(fails) != 1 {
				t.Fatalf("status lists %d failures, want 1:\n%s", len(fails), out)
			}
			index, attempts, text := fails[0][1], fails[0][2], fails[0][3]
			t.Logf("failure: index %s, attempts %s: %s", index, attempts, text)
			if index != "3" || attempts != "5" {
				t.Errorf("failed job: index %s after %s attempts, want the crasher (index 3) after 5", index, attempts)
			}
			for _, want := range []string{"worker crashed while running it", `fail="crash"`, "size=1000000000"} {
				if !strings.Contains(text, want) {
					t.Errorf("failure %q does not say %q", text, want)
				}
			}
			fr, _ := c.collectJobs(run, "crash")
			sizes, status := fr.Col("size").([]int64), fr.Col("status").([]string)
			for i := range sizes {
				want := "ok"
				if sizes[i] == 1000000000 {
					want = "failed"
				}
				if status[i] != want {
					t.Errorf("job of size %d: %s, want %s", sizes[i], status[i], want)
				}
			}
			if len(sizes) != 4 {
				t.Errorf("jobs.parquet has %d rows, want 4", len(sizes))
			}
		})
	}
}

// TestRedeliveredJobsRunAlone: jobs delivered once without being settled
// (a thief takes every message and never acks, as a worker that crashed
// would) come back on their second delivery to two worker loops of one
// process (one worker.Process); each runs alone, its result stored in a
// part of its own before the next is pulled (one part per job), the one
// pulled while the other loop runs alone being sent again rather than
// held; every job ends ok on attempt 2, none lost or run twice.
func TestRedeliveredJobsRunAlone(t *testing.T) {
	s := Settings()
	s.AckWait = time.Second
	f := New(t, s)
	c := f.StartCoordinator("coord")
	const n = 12
	rep := submit(t, c.Coordinator, benchSweep("alone", n, 1, 0, ""), false)
	thief := f.Connect("thief")
	taken := 0
	deadline := time.Now().Add(eventWait)
	for taken < n {
		batch, err := thief.Workers.Fetch(n-taken, jetstream.FetchMaxWait(time.Second))
		if err != nil {
			t.Fatal(err)
		}
		for range batch.Messages() {
			taken++ // never acked: redelivered after AckWait
		}
		if time.Now().After(deadline) {
			t.Fatalf("took %d of %d job messages", taken, n)
		}
	}
	f.StartWorkers(2, "w", worker.Config{Process: worker.NewProcess()})
	p := WaitRun(t, c.Coordinator, rep.Run, eventWait)
	if p.Done != n || p.Failed != 0 {
		t.Fatalf("progress: %+v", *p)
	}
	out := collect(t, f, c.Farm, rep.Run)
	fr := readJobs(t, out[0].Dir)
	if fr.Len() != n || out[0].Missing != 0 {
		t.Fatalf("%d rows, %d missing", fr.Len(), out[0].Missing)
	}
	for i, a := range fr.Col("attempts").([]int64) {
		if a != 2 {
			t.Errorf("row %d: attempt %d, want 2 (a job sent again goes on from its delivery)", i, a)
		}
	}
	lister, err := c.Farm.Done.ListKeysFiltered(context.Background(), rep.Run+".*")
	if err != nil {
		t.Fatal(err)
	}
	parts := 0
	for range lister.Keys() {
		parts++
	}
	if parts != n {
		t.Errorf("%d parts registered, want %d: each job delivered again is stored alone", parts, n)
	}
}
