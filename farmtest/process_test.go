package farmtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"schedfarm/broker"
	"schedfarm/results"
)

// The tests in this file run the farm as separate OS processes of the real
// binary, on loopback: a standalone NATS server with file storage, a
// coordinator and workers. Each states its time bound and stops everything
// it started.

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// binary builds cmd/schedfarm once per test process.
func binary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "schedfarm-e2e-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "schedfarm")
		out, err := exec.Command("go", "build", "-o", binPath, "../cmd/schedfarm").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// cluster is a farm of processes around one NATS server.
type cluster struct {
	t     *testing.T
	bin   string
	dir   string
	port  int
	flags []string // common flags: --nats, --results-dir, ...
	// coordFlags are the coordinator's own: --ack-wait, --max-deliver.
	coordFlags []string
	env        []string // environment variables added for every process
	mu         sync.Mutex
	procs      map[string]*exec.Cmd
	logs       map[string]*SyncBuffer
}

func newCluster(t *testing.T, ackWait string) *cluster {
	return newClusterEnv(t, ackWait, nil)
}

// newClusterEnv is newCluster with environment variables for every
// process (SCHEDFARM_TOKEN=… makes the server require a token and every
// client send it, without it on any command line).
func newClusterEnv(t *testing.T, ackWait string, env []string) *cluster {
	if testing.Short() {
		t.Skip("skipped by -short: a farm of separate processes of the binary (run without -short)")
	}
	c := &cluster{t: t, bin: binary(t), dir: t.TempDir(), port: FreePort(t), env: env,
		procs: map[string]*exec.Cmd{}, logs: map[string]*SyncBuffer{}}
	c.flags = []string{"--results-dir", filepath.Join(c.dir, "results"), "--log-level", "info"}
	c.coordFlags = []string{"--ack-wait", ackWait, "--max-deliver", "5"}
	t.Cleanup(func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		for name, p := range c.procs {
			if p.ProcessState == nil {
				_ = p.Process.Kill()
				_, _ = p.Process.Wait()
			}
			if t.Failed() {
				t.Logf("--- log of %s:\n%s", name, c.logs[name].String())
			}
		}
	})
	c.start("server", "server", "--port", fmt.Sprint(c.port), "--store-dir", filepath.Join(c.dir, "nats"))
	c.waitPort(eventWait)
	return c
}

// flagsFor returns the cluster's flags a command takes: the server none,
// a command that connects to it --nats too, a local one (verify, report,
// ...) the others.
func (c *cluster) flagsFor(command string) []string {
	switch command {
	case "server":
		return nil
	case "coordinator", "worker", "submit", "status", "collect", "cancel", "drain":
		return append([]string{"--nats", fmt.Sprintf("nats://127.0.0.1:%d", c.port)}, c.flags...)
	}
	return c.flags
}

// start starts a long-running process of the binary under a name.
func (c *cluster) start(name string, args ...string) *exec.Cmd {
	c.t.Helper()
	return c.startEnv(name, nil, args...)
}

// startEnv is start with environment variables added to the test's.
func (c *cluster) startEnv(name string, env []string, args ...string) *exec.Cmd {
	c.t.Helper()
	args = append(args, c.flagsFor(args[0])...)
	if args[0] == "coordinator" {
		args = append(args, c.coordFlags...)
	}
	cmd := exec.Command(c.bin, args...)
	cmd.Env = append(append(os.Environ(), c.env...), env...)
	log := &SyncBuffer{}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		c.t.Fatal(err)
	}
	c.mu.Lock()
	c.procs[name], c.logs[name] = cmd, log
	c.mu.Unlock()
	return cmd
}

func (c *cluster) waitPort(timeout time.Duration) {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		conn, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", c.port))
		if err == nil {
			conn.Close()
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	c.t.Fatalf("NATS server not listening on %d after %v", c.port, timeout)
}

// waitWorkers listens to the heartbeats of the farm's workers (every 2 s
// each) until cond holds on the last one of every worker seen, by worker
// name; after eventWait the test fails saying what it waited for.
func (c *cluster) waitWorkers(what string, cond func(last map[string]broker.Heartbeat) bool) {
	c.t.Helper()
	ch := make(chan *nats.Msg, 256)
	sub, err := c.conn().ChanSubscribe("schedfarm.hb.>", ch)
	if err != nil {
		c.t.Fatal(err)
	}
	defer func() { _ = sub.Unsubscribe() }()
	last := map[string]broker.Heartbeat{}
	bound := time.After(eventWait)
	for {
		select {
		case m := <-ch:
			var hb broker.Heartbeat
			if json.Unmarshal(m.Data, &hb) == nil {
				last[hb.Worker] = hb
			}
			if cond(last) {
				return
			}
		case <-bound:
			c.t.Fatalf("waited %v for %s; the last heartbeats: %+v", eventWait, what, last)
		}
	}
}

// holding is a waitWorkers condition: each of workers holds a job.
func holding(workers ...string) func(map[string]broker.Heartbeat) bool {
	return func(last map[string]broker.Heartbeat) bool {
		for _, w := range workers {
			if len(last[w].Running) == 0 {
				return false
			}
		}
		return true
	}
}

// run runs a short command of the binary and returns its stdout.
func (c *cluster) run(timeout time.Duration, args ...string) (string, error) {
	return c.runEnv(nil, timeout, args...)
}

// log returns what a process started by start has written so far.
func (c *cluster) log(name string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.logs[name].String()
}

// runEnv is run with environment variables added to the test's.
func (c *cluster) runEnv(env []string, timeout time.Duration, args ...string) (string, error) {
	out, errb, _, err := c.execute(timeout, env, args...)
	if err != nil {
		return out, fmt.Errorf("%s: %v\n%s", strings.Join(args, " "), err, errb)
	}
	return out, nil
}

// execute runs a command of the binary with the cluster's flags and
// environment, plus env, and stops it after timeout (timedOut).
func (c *cluster) execute(timeout time.Duration, env []string, args ...string) (stdout, stderr string, timedOut bool, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.bin, append(args, c.flagsFor(args[0])...)...)
	cmd.Env = append(append(os.Environ(), c.env...), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	return out.String(), errb.String(), ctx.Err() != nil, err
}

// kill sends a signal to a named process and waits for it to exit.
func (c *cluster) kill(name string, sig syscall.Signal, timeout time.Duration) *os.ProcessState {
	c.t.Helper()
	c.mu.Lock()
	p := c.procs[name]
	c.mu.Unlock()
	if err := p.Process.Signal(sig); err != nil {
		c.t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = p.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(timeout):
		c.t.Fatalf("%s did not exit within %v of %v", name, timeout, sig)
	}
	return p.ProcessState
}

// writeSweep writes a sweep file into the cluster's folder.
func (c *cluster) writeSweep(name, text string) string {
	path := filepath.Join(c.dir, name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		c.t.Fatal(err)
	}
	return path
}

// submit submits a sweep and returns the run ID, once a coordinator answers.
func (c *cluster) submit(path string) string {
	c.t.Helper()
	c.waitCoordinator(eventWait)
	out, err := c.run(eventWait, "submit", path)
	if err != nil {
		c.t.Fatal(err)
	}
	return strings.TrimSpace(out)
}

var doneRE = regexp.MustCompile(`(?m)^(\S+)\s+\S+\s+(complete|running|publishing|cancelled)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)`)

// waitDone polls `status RUN` until the run is complete.
func (c *cluster) waitDone(run string, timeout time.Duration) (total, done, failed int) {
	c.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		out, err := c.run(eventWait, "status", run)
		if err == nil {
			if m := doneRE.FindStringSubmatch(out); m != nil && m[1] == run && m[2] == "complete" {
				fmt.Sscan(m[3], &total)
				fmt.Sscan(m[4], &done)
				fmt.Sscan(m[6], &failed)
				return total, done, failed
			}
		}
		if time.Now().After(deadline) {
			c.t.Fatalf("run %s not complete after %v (last status: %v %s)", run, timeout, err, out)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// expectDone waits for a run to complete and fails unless all want jobs
// are done and none failed.
func (c *cluster) expectDone(run string, want int, timeout time.Duration) {
	c.t.Helper()
	if total, done, failed := c.waitDone(run, timeout); total != want || done != want || failed != 0 {
		c.t.Fatalf("status: total %d done %d failed %d, want %d done", total, done, failed, want)
	}
}

// collectJobs collects a run and returns its sweep's jobs table.
func (c *cluster) collectJobs(run, sweepName string) (*results.Frame, string) {
	c.t.Helper()
	if _, err := c.run(eventWait, "collect", run); err != nil {
		c.t.Fatal(err)
	}
	dir := filepath.Join(c.dir, "results", sweepName, run)
	fr, err := results.ReadTable(filepath.Join(dir, "jobs.parquet"))
	if err != nil {
		c.t.Fatal(err)
	}
	return fr, dir
}

// checkOnce checks every job has exactly one row, all ok, logs the counts
// and returns how many jobs needed more than one delivery.
func checkOnce(t *testing.T, fr *results.Frame, want int) (redelivered int) {
	t.Helper()
	ids := fr.Col("job_id").([]string)
	status := fr.Col("status").([]string)
	attempts := fr.Col("attempts").([]int64)
	seen := map[string]int{}
	ok := 0
	for i, id := range ids {
		seen[id]++
		if status[i] == "ok" {
			ok++
		}
		if attempts[i] > 1 {
			redelivered++
		}
	}
	dups := 0
	for _, n := range seen {
		if n > 1 {
			dups += n - 1
		}
	}
	t.Logf("jobs submitted %d, result rows %d, distinct %d, ok %d, duplicated %d, lost %d, redelivered %d",
		want, len(ids), len(seen), ok, dups, want-len(seen), redelivered)
	if len(seen) != want || dups != 0 || ok != want {
		t.Fatalf("want %d distinct ok jobs exactly once", want)
	}
	return redelivered
}

const procSweep = `sweeps:
  - name: procs
    model: bench
    seed: 11
    replicates: 4
    params: {work_ms: %d, rows: 1}
    axes:
      - name: size
        range: {from: 1, to: %d, step: 1}
`

// holdSweep is procSweep with every job held in flight (bench variant
// wait:FILE) until a fileGate opens: arguments the gate's variant and the
// number of points (4 replicates each).
const holdSweep = `sweeps:
  - name: procs
    model: bench
    seed: 11
    replicates: 4
    params: {work_ms: 0, rows: 1, variant: %q}
    axes:
      - name: size
        range: {from: 1, to: %d, step: 1}
`

// TestProcessesMatchSingleProcess: server, coordinator and three workers as
// separate processes run a quick paper config and give the same results as
// `schedfarm run`.
func TestProcessesMatchSingleProcess(t *testing.T) {
	t.Parallel()
	c := newCluster(t, "5s")
	c.start("coordinator", "coordinator")
	for i := 0; i < 3; i++ {
		c.start(fmt.Sprintf("worker%d", i), "worker", "--workers", "1", "--name", fmt.Sprintf("w%d", i))
	}
	// A quick paper config: the Lin et al. 2007 CI sweep.
	path, err := filepath.Abs("../configs/lin2007/quick.yaml")
	if err != nil {
		t.Fatal(err)
	}
	run := c.submit(path)
	total, done, failed := c.waitDone(run, eventWait)
	if done != total || failed != 0 || total == 0 {
		t.Fatalf("status: total %d done %d failed %d", total, done, failed)
	}
	fr, dir := c.collectJobs(run, "lin2007-quick")
	checkOnce(t, fr, total)
	// The same sweep in one process.
	single := filepath.Join(c.dir, "single")
	cmd := exec.Command(c.bin, "run", "--workers", "2", "--state-dir", filepath.Join(c.dir, "state"), "--results-dir", single, path)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("single-process run: %v\n%s", err, out)
	}
	matches, _ := filepath.Glob(filepath.Join(single, "lin2007-quick", "*"))
	if len(matches) != 1 {
		t.Fatalf("single-process results: %v", matches)
	}
	if out, err := c.run(eventWait, "verify", dir, "--against", matches[0]); err != nil {
		t.Fatalf("multi-process and single-process results differ: %v\n%s", err, out)
	}
}

// TestKillWorkerMidJob: kill -9 one of three worker processes while each
// holds a job (held in flight until the test lets the jobs go); its jobs
// are redelivered after AckWait, none lost or duplicated.
func TestKillWorkerMidJob(t *testing.T) {
	t.Parallel()
	c := newCluster(t, "2s")
	c.start("coordinator", "coordinator")
	for i := 0; i < 3; i++ {
		c.start(fmt.Sprintf("worker%d", i), "worker", "--workers", "1", "--name", fmt.Sprintf("w%d", i))
	}
	g := newFileGate(t)
	run := c.submit(c.writeSweep("kill.yaml", fmt.Sprintf(holdSweep, g.Variant(), 10)))
	c.waitWorkers("every worker to hold a job", holding("w0-w0", "w1-w0", "w2-w0"))
	c.kill("worker1", syscall.SIGKILL, eventWait)
	g.Open()
	c.expectDone(run, 40, eventWait)
	fr, _ := c.collectJobs(run, "procs")
	if checkOnce(t, fr, 40) == 0 {
		t.Fatal("no job was redelivered: the killed worker held none")
	}
}

// TestKillCoordinatorAndRestart: kill -9 the coordinator mid-run (every
// worker holding a job) and start a new one; it takes over once the dead
// one's lease expires (≤ 10 s) and the run completes.
func TestKillCoordinatorAndRestart(t *testing.T) {
	t.Parallel()
	c := newCluster(t, "5s")
	c.start("coordinator", "coordinator")
	for i := 0; i < 2; i++ {
		c.start(fmt.Sprintf("worker%d", i), "worker", "--workers", "1", "--name", fmt.Sprintf("w%d", i))
	}
	g := newFileGate(t)
	run := c.submit(c.writeSweep("coord.yaml", fmt.Sprintf(holdSweep, g.Variant(), 20)))
	c.waitWorkers("every worker to hold a job", holding("w0-w0", "w1-w0"))
	c.kill("coordinator", syscall.SIGKILL, eventWait)
	g.Open() // results land while no coordinator runs
	c.start("coordinator2", "coordinator")
	c.expectDone(run, 80, eventWait)
	fr, _ := c.collectJobs(run, "procs")
	checkOnce(t, fr, 80)
}

// TestRestartServerMidRun: stop the NATS server (file storage) mid-run
// (every worker holding a job) and start it again on the same port and
// store; clients reconnect and the run completes.
func TestRestartServerMidRun(t *testing.T) {
	t.Parallel()
	c := newCluster(t, "5s")
	c.start("coordinator", "coordinator")
	for i := 0; i < 2; i++ {
		c.start(fmt.Sprintf("worker%d", i), "worker", "--workers", "1", "--name", fmt.Sprintf("w%d", i))
	}
	g := newFileGate(t)
	run := c.submit(c.writeSweep("server.yaml", fmt.Sprintf(holdSweep, g.Variant(), 20)))
	c.waitWorkers("every worker to hold a job", holding("w0-w0", "w1-w0"))
	c.kill("server", syscall.SIGTERM, eventWait)
	c.start("server2", "server", "--port", fmt.Sprint(c.port), "--store-dir", filepath.Join(c.dir, "nats"))
	c.waitPort(eventWait)
	g.Open()
	c.expectDone(run, 80, eventWait)
	fr, _ := c.collectJobs(run, "procs")
	checkOnce(t, fr, 80)
}

// TestSIGTERMWorker: SIGTERM on a worker mid-job (its job held in flight)
// hands its job back and stores its buffered results; the process exits 0
// and the run completes on the other worker, well before the 10-min
// AckWait would have moved the job.
func TestSIGTERMWorker(t *testing.T) {
	t.Parallel()
	c := newCluster(t, "10m") // a long AckWait: only a hand-back makes the job move at once
	c.start("coordinator", "coordinator")
	c.start("worker0", "worker", "--workers", "1", "--name", "w0")
	g := newFileGate(t)
	run := c.submit(c.writeSweep("term.yaml", fmt.Sprintf(holdSweep, g.Variant(), 3)))
	c.waitWorkers("w0 to hold a job", holding("w0-w0"))
	c.start("worker1", "worker", "--workers", "1", "--name", "w1")
	start := time.Now()
	st := c.kill("worker0", syscall.SIGTERM, eventWait)
	if !st.Success() {
		t.Fatalf("worker exited with %v after SIGTERM", st)
	}
	t.Logf("worker exited cleanly %v after SIGTERM", time.Since(start).Round(time.Millisecond))
	g.Open()
	c.expectDone(run, 12, eventWait) // well under AckWait
	fr, _ := c.collectJobs(run, "procs")
	if checkOnce(t, fr, 12) == 0 {
		t.Fatal("no job was handed back by the terminated worker")
	}
}

// TestHungWorker: a worker process that hangs (SIGSTOP) mid-job (its job
// held in flight) stops sending in-progress heartbeats, so its job is
// redelivered to another worker after AckWait; when it wakes up (SIGCONT)
// its late result is harmless: every job still has exactly one row.
func TestHungWorker(t *testing.T) {
	t.Parallel()
	c := newCluster(t, "2s")
	c.start("coordinator", "coordinator")
	hung := c.start("worker0", "worker", "--workers", "1", "--name", "w0")
	g := newFileGate(t)
	run := c.submit(c.writeSweep("hung.yaml", fmt.Sprintf(holdSweep, g.Variant(), 3)))
	c.waitWorkers("w0 to hold a job", holding("w0-w0"))
	if err := hung.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	g.Open()
	c.start("worker1", "worker", "--workers", "1", "--name", "w1")
	total, done, failed := c.waitDone(run, eventWait)
	if err := hung.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	if total != 12 || done != 12 || failed != 0 {
		t.Fatalf("status: total %d done %d failed %d", total, done, failed)
	}
	c.waitWorkers("the woken worker to settle its late job (nothing in flight or buffered)", func(last map[string]broker.Heartbeat) bool {
		hb, ok := last["w0-w0"]
		return ok && len(hb.Running) == 0 && hb.Buffered == 0
	})
	fr, _ := c.collectJobs(run, "procs")
	if checkOnce(t, fr, 12) == 0 {
		t.Fatal("no job was redelivered away from the hung worker")
	}
}

// TestDrainCommand: `schedfarm drain WORKER` makes a worker process finish
// its job (held in flight until the drain is asked for), store its
// results and exit 0; the run completes on another worker, well before
// the 10-min AckWait would have moved a job the drained worker left.
func TestDrainCommand(t *testing.T) {
	t.Parallel()
	c := newCluster(t, "10m")
	c.start("coordinator", "coordinator")
	c.start("worker0", "worker", "--workers", "1", "--name", "w0")
	g := newFileGate(t)
	run := c.submit(c.writeSweep("drain.yaml", fmt.Sprintf(holdSweep, g.Variant(), 3)))
	c.waitWorkers("w0 to hold a job", holding("w0-w0"))
	if out, err := c.run(eventWait, "drain", "w0-w0"); err != nil || !strings.Contains(out, "draining") {
		t.Fatalf("drain: %v %s", err, out)
	}
	g.Open()
	if st := c.waitExit("worker0", eventWait); !st.Success() {
		t.Fatalf("drained worker exited with %v", st)
	}
	c.start("worker1", "worker", "--workers", "1", "--name", "w1")
	c.expectDone(run, 12, eventWait)
	fr, _ := c.collectJobs(run, "procs")
	checkOnce(t, fr, 12)
	byW0 := 0
	for _, w := range fr.Col("worker").([]string) {
		if w == "w0-w0" {
			byW0++
		}
	}
	if byW0 == 0 {
		t.Error("the drained worker stored no result: it did not finish the job it held")
	}
}

// consumerConfig reads the workers' consumer of the default prefix's farm
// as the server holds it.
func (c *cluster) consumerConfig() jetstream.ConsumerConfig {
	c.t.Helper()
	js := c.js()
	ctx, cancel := context.WithTimeout(context.Background(), eventWait)
	defer cancel()
	cons, err := js.Consumer(ctx, "SCHEDFARM_JOBS", broker.WorkersName)
	if err != nil {
		c.t.Fatal(err)
	}
	info, err := cons.Info(ctx)
	if err != nil {
		c.t.Fatal(err)
	}
	return info.Config
}

// conn connects the test itself to the cluster's server (with the
// cluster's token, if its processes have one).
func (c *cluster) conn() *nats.Conn {
	c.t.Helper()
	// Its reconnections (a test restarts the server) are no news.
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	cc := broker.ConnConfig{URL: fmt.Sprintf("nats://127.0.0.1:%d", c.port), Name: "test", Logger: quiet}
	for _, e := range c.env {
		if v, ok := strings.CutPrefix(e, "SCHEDFARM_TOKEN="); ok {
			cc.Token = v
		}
	}
	nc, err := broker.Connect(cc)
	if err != nil {
		c.t.Fatal(err)
	}
	c.t.Cleanup(nc.Close)
	return nc
}

// js connects the test itself to the cluster's server.
func (c *cluster) js() jetstream.JetStream {
	c.t.Helper()
	js, err := jetstream.New(c.conn())
	if err != nil {
		c.t.Fatal(err)
	}
	return js
}

// TestClientsLeaveTheFarmAlone: a coordinator sets ack wait 10 s and max
// deliver 3 (from SCHEDFARM_ACK_WAIT and SCHEDFARM_MAX_DELIVER); a worker,
// submit, status, collect and cancel — without those variables, with other
// values in them, or asking for other values on the command line — leave
// the consumer's configuration as the coordinator set it. (They used to
// set their own: `status` alone switched the farm to 30 s and 5.)
func TestClientsLeaveTheFarmAlone(t *testing.T) {
	t.Parallel()
	c := newCluster(t, "10s")
	c.coordFlags = nil
	c.startEnv("coordinator", []string{"SCHEDFARM_ACK_WAIT=10s", "SCHEDFARM_MAX_DELIVER=3"}, "coordinator")
	run := c.submit(c.writeSweep("clients.yaml", fmt.Sprintf(procSweep, 20, 3)))
	check := func(after string) {
		t.Helper()
		cfg := c.consumerConfig()
		if cfg.AckWait != 10*time.Second || cfg.MaxDeliver != 3 {
			t.Fatalf("after %s: consumer ack wait %v, max deliver %d; want the coordinator's 10s and 3", after, cfg.AckWait, cfg.MaxDeliver)
		}
	}
	check("submit and status")
	c.start("worker0", "worker", "--workers", "1", "--name", "w0")
	c.expectDone(run, 12, eventWait)
	check("a worker")
	for _, cmd := range []struct {
		env  []string
		args []string
	}{
		{nil, []string{"status"}},
		{nil, []string{"status", run}},
		{[]string{"SCHEDFARM_ACK_WAIT=1s", "SCHEDFARM_MAX_DELIVER=1"}, []string{"status"}},
		{[]string{"SCHEDFARM_ACK_WAIT=1s", "SCHEDFARM_MAX_DELIVER=1"}, []string{"collect", "--partial", run}},
		{nil, []string{"status", "--ack-wait", "1s", "--max-deliver", "1"}},
		{nil, []string{"cancel", run}},
	} {
		out, err := c.runEnv(cmd.env, eventWait, cmd.args...)
		t.Logf("%v %s: %v %s", cmd.env, strings.Join(cmd.args, " "), err, firstLineOf(out))
		check(strings.Join(append(cmd.env, cmd.args...), " "))
	}
	// The coordinator's own settings stay a coordinator matter: those
	// flags are not the client commands' any more.
	if _, err := c.run(eventWait, "status", "--ack-wait", "1s"); err == nil || !strings.Contains(err.Error(), "unknown flag: --ack-wait") {
		t.Fatalf("status --ack-wait: err = %v, want an unknown flag", err)
	}
}

// TestWorkerWaitsForCoordinator: a worker started before any coordinator
// creates nothing on the server and says, once, that it waits for a
// coordinator; a submit started before the coordinator waits too. Once
// the coordinator starts, the submission goes through and the worker runs
// every job, with the coordinator's ack wait.
func TestWorkerWaitsForCoordinator(t *testing.T) {
	t.Parallel()
	c := newCluster(t, "7s")
	c.start("worker0", "worker", "--workers", "1", "--name", "w0")
	path := c.writeSweep("early.yaml", fmt.Sprintf(procSweep, 20, 3))
	type result struct {
		out string
		err error
	}
	submitted := make(chan result, 1)
	go func() {
		out, err := c.run(2*eventWait, "submit", path)
		submitted <- result{out, err}
	}()
	const waiting = "waiting for a coordinator to create the farm's streams (prefix schedfarm)"
	waitFor(t, "the worker to say that it waits for a coordinator", func() bool { return strings.Contains(c.log("worker0"), waiting) })
	time.Sleep(time.Second) // a second more of waiting: still nothing created
	ctx, cancel := context.WithTimeout(context.Background(), eventWait)
	defer cancel()
	for name := range c.js().StreamNames(ctx).Name() {
		t.Fatalf("stream %s exists before any coordinator started", name)
	}
	if !strings.Contains(c.log("worker0"), waiting) {
		t.Fatalf("the worker does not say it waits for a coordinator:\n%s", c.log("worker0"))
	}
	select {
	case r := <-submitted:
		t.Fatalf("submit returned before any coordinator started: %v %s", r.err, r.out)
	default:
	}
	c.start("coordinator", "coordinator")
	var r result
	select {
	case r = <-submitted:
	case <-time.After(eventWait):
		t.Fatalf("submit did not return within %v of the coordinator's start", eventWait)
	}
	if r.err != nil {
		t.Fatal(r.err)
	}
	run := strings.TrimSpace(r.out)
	c.expectDone(run, 12, eventWait)
	fr, _ := c.collectJobs(run, "procs")
	checkOnce(t, fr, 12)
	if n := strings.Count(c.log("worker0"), waiting); n != 1 {
		t.Fatalf("the worker said it waits %d times, want once:\n%s", n, c.log("worker0"))
	}
	if cfg := c.consumerConfig(); cfg.AckWait != 7*time.Second {
		t.Fatalf("consumer ack wait %v, want the coordinator's 7s", cfg.AckWait)
	}
}
