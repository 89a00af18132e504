package farmtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"schedfarm/broker"
	"schedfarm/coordinator"
	"schedfarm/results"
	"schedfarm/simcore"
	"schedfarm/simcore/bench"
	"schedfarm/worker"
)

// benchSweep returns a sweep file of points×replicates bench jobs.
func benchSweep(name string, points, replicates int, workMs float64, extra string) string {
	return fmt.Sprintf(`sweeps:
  - name: %s
    model: bench
    seed: 7
    replicates: %d
    params:
      work_ms: %g
      rows: 2
%s    axes:
      - name: size
        range: {from: 1, to: %d, step: 1}
`, name, replicates, workMs, extra, points)
}

func submit(t *testing.T, c *coordinator.Coordinator, text string, force bool) *coordinator.SubmitReply {
	t.Helper()
	rep, err := c.Submit(context.Background(), coordinator.SubmitRequest{File: "test.yaml", Text: text, Force: force})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func collect(t *testing.T, f *Farm, bf *broker.Farm, run string) []coordinator.SweepCollected {
	t.Helper()
	out, err := coordinator.Collect(context.Background(), bf, f.Registry, run, coordinator.CollectOptions{
		ResultsDir: filepath.Join(f.Dir, "results"),
		Provenance: results.Provenance{Version: "test", VCSRevision: "test", VCSModified: "false", GoVersion: "test"},
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func readJobs(t *testing.T, dir string) *results.Frame {
	t.Helper()
	fr, err := results.ReadTable(filepath.Join(dir, "jobs.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	return fr
}

func strCol(t *testing.T, fr *results.Frame, name string) []string {
	t.Helper()
	c, ok := fr.Col(name).([]string)
	if !ok {
		t.Fatalf("column %s is %T", name, fr.Col(name))
	}
	return c
}

// TestThousandJobsFourWorkers: every job appears exactly once, all ok, and
// the summary counts are right.
func TestThousandJobsFourWorkers(t *testing.T) {
	f := New(t, Settings())
	c := f.StartCoordinator("coord")
	f.StartWorkers(4, "w", worker.Config{})
	rep := submit(t, c.Coordinator, benchSweep("thousand", 100, 10, 0, ""), false)
	if rep.Total != 1000 || rep.Published != 1000 {
		t.Fatalf("submit: %+v", rep)
	}
	p := WaitRun(t, c.Coordinator, rep.Run, eventWait)
	if p.Done != 1000 || p.Failed != 0 {
		t.Fatalf("progress: %+v", p)
	}
	if n := c.TrackedJobs(); n != 0 {
		t.Fatalf("the coordinator still holds %d jobs of a finished run in memory", n)
	}
	out := collect(t, f, c.Farm, rep.Run)
	if len(out) != 1 || out[0].OK != 1000 || out[0].Failed != 0 || out[0].Missing != 0 {
		t.Fatalf("collected: %+v", out[0].Collected)
	}
	fr := readJobs(t, out[0].Dir)
	ids := strCol(t, fr, "job_id")
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			t.Fatalf("job %s twice in jobs.parquet", id)
		}
		seen[id] = true
	}
	if len(seen) != 1000 {
		t.Fatalf("%d distinct jobs, want 1000", len(seen))
	}
	for i, s := range strCol(t, fr, "status") {
		if s != "ok" {
			t.Fatalf("row %d status %q", i, s)
		}
	}
	workers := map[string]int{}
	for _, w := range strCol(t, fr, "worker") {
		workers[w]++
	}
	t.Logf("jobs per worker: %v", workers)
	sum, err := results.ReadTable(filepath.Join(out[0].Dir, "summary.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if sum.Len() != 100 {
		t.Fatalf("summary has %d points, want 100", sum.Len())
	}
	for i, n := range sum.Col("n").([]int64) {
		if n != 10 {
			t.Fatalf("summary point %d: n=%d, want 10", i, n)
		}
	}
	samples, err := results.ReadTable(filepath.Join(out[0].Dir, "samples.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if samples.Len() != 2000 {
		t.Fatalf("samples has %d rows, want 2000", samples.Len())
	}
}

// TestWorkerDiesMidJob: a worker that vanishes mid-job (connection gone, no
// ack, no nak) loses nothing: the job is redelivered after AckWait and
// completes once. The doomed worker's job is held in flight (a gate) until
// the worker is gone, whatever the machine's speed.
func TestWorkerDiesMidJob(t *testing.T) {
	f := New(t, Settings())
	c := f.StartCoordinator("coord")
	held, g := f.heldBench(nil)
	doomed := held.StartWorkers(1, "doomed", worker.Config{Heartbeat: 20 * time.Millisecond})
	rep := submit(t, c.Coordinator, benchSweep("dies", 1, 1, 0, ""), false)
	g.waitHeld(t, 1, "the doomed worker")
	killMidJob(t, c, doomed)
	f.StartWorkers(1, "survivor", worker.Config{})
	p := WaitRun(t, c.Coordinator, rep.Run, eventWait)
	if p.Done != 1 || p.Failed != 0 {
		t.Fatalf("progress: %+v", p)
	}
	out := collect(t, f, c.Farm, rep.Run)
	fr := readJobs(t, out[0].Dir)
	if fr.Len() != 1 {
		t.Fatalf("%d rows, want 1", fr.Len())
	}
	if w := strCol(t, fr, "worker")[0]; !strings.HasPrefix(w, "survivor") {
		t.Fatalf("job finished by %s, want the survivor", w)
	}
	if a := fr.Col("attempts").([]int64)[0]; a != 2 {
		t.Fatalf("attempts = %d, want 2 (one lost delivery, one redelivery)", a)
	}
}

// stubborn is a model run without its context: past the worker's job
// timeout it goes on, as a model stuck in a loop that ignores its context
// would, and then returns its result after all.
type stubborn struct{ simcore.Model }

func (s stubborn) Run(_ context.Context, p simcore.Params, seed uint64) (*simcore.Result, error) {
	return s.Model.Run(context.Background(), p, seed)
}

// TestRedeliveredCountsEveryDelivery: a job is redelivered while its first
// worker, whose in-progress heartbeats stopped (past its job timeout, or a
// pause longer than AckWait), still runs it; the first worker's result
// lands first and is the one kept. The run still counts the second
// delivery: REDELIVERED used to count only results that came from a later
// delivery, so it showed 0 here. Each worker's run of the job is held by a
// gate of its own: the first is let go once the second holds the job, the
// second once the first's result is stored, so the order is the test's,
// not the machine's.
func TestRedeliveredCountsEveryDelivery(t *testing.T) {
	s := Settings()
	s.AckWait = time.Second
	f := New(t, s)
	c := f.StartCoordinator("coord")
	firstGate := newGate(bench.New(), nil)
	reg, err := simcore.NewRegistry(stubborn{firstGate})
	if err != nil {
		t.Fatal(err)
	}
	slow := *f
	slow.Registry = reg
	slow.StartWorkers(1, "first", worker.Config{JobTimeout: 200 * time.Millisecond})
	rep := submit(t, c.Coordinator, benchSweep("twice", 1, 1, 0, ""), false)
	firstGate.waitHeld(t, 1, "the first worker")
	held, secondGate := f.heldBench(nil)
	second := held.StartWorkers(1, "second", worker.Config{})
	secondGate.waitHeld(t, 1, "the second worker (the job's second delivery)")
	// The second worker reports the delivery when it starts the job; the
	// run counts it once that report has arrived, which it must before the
	// first result ends the run (a finished run's record is final).
	waitFor(t, "the run to count the second delivery (the second worker's delivery report)", func() bool {
		p, err := c.Progress(context.Background(), rep.Run)
		return err == nil && p.Redelivered > 0
	})
	firstGate.Open()
	p := WaitRun(t, c.Coordinator, rep.Run, eventWait)
	secondGate.Open()
	waitFor(t, "the second worker's result of the job", func() bool { return second.List[0].Stats().Done == 1 })
	t.Logf("progress %+v", *p)
	if p.Done != 1 || p.Redelivered != 1 {
		t.Fatalf("done %d, redelivered %d; want 1 and 1 (two deliveries of one job)", p.Done, p.Redelivered)
	}
	out := collect(t, f, c.Farm, rep.Run)
	fr := readJobs(t, out[0].Dir)
	if fr.Len() != 1 || strCol(t, fr, "worker")[0] != "first-0" || fr.Col("attempts").([]int64)[0] != 1 {
		t.Fatalf("kept %d row(s), worker %v, attempts %v: want the first worker's result of the first delivery",
			fr.Len(), strCol(t, fr, "worker"), fr.Col("attempts"))
	}
}

// TestCoordinatorRestart: stop the coordinator mid-run and start a new one;
// the run completes, nothing duplicated. Jobs past the 100th are held in
// flight (a gate) until the coordinator is stopped, so it stops mid-run.
func TestCoordinatorRestart(t *testing.T) {
	f := New(t, Settings())
	c1 := f.StartCoordinator("coord1")
	var ran atomic.Int32
	held, g := f.heldBench(func(simcore.Params) bool { return ran.Add(1) > 100 })
	held.StartWorkers(2, "w", worker.Config{FlushRows: 20})
	rep := submit(t, c1.Coordinator, benchSweep("restart", 50, 6, 0, ""), false)
	waitFor(t, "60 results of the run", func() bool {
		p, err := c1.Progress(context.Background(), rep.Run)
		return err == nil && p.Done >= 60
	})
	c1.Stop()
	g.Open() // completions land while no coordinator runs
	c2 := f.StartCoordinator("coord2")
	p := WaitRun(t, c2.Coordinator, rep.Run, eventWait)
	if p.Done != 300 || p.Failed != 0 {
		t.Fatalf("progress after restart: %+v", p)
	}
	out := collect(t, f, c2.Farm, rep.Run)
	fr := readJobs(t, out[0].Dir)
	if fr.Len() != 300 || out[0].OK != 300 {
		t.Fatalf("%d rows, %d ok; want 300", fr.Len(), out[0].OK)
	}
}

// TestRestartMidPublication: a coordinator that died while publishing
// leaves a run in state "publishing"; the next one republishes, and the
// server's dedup window drops every job already in the stream.
func TestRestartMidPublication(t *testing.T) {
	f := New(t, Settings())
	c1 := f.StartCoordinator("coord1")
	rep := submit(t, c1.Coordinator, benchSweep("midpub", 40, 5, 0, ""), false)
	c1.Stop()
	markPublishing(t, f, rep.Run)
	ctx := context.Background()
	c2 := f.StartCoordinator("coord2")
	info, err := c2.Farm.Jobs.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.State.Msgs != 200 {
		t.Fatalf("stream holds %d jobs after republish, want 200 (dedup)", info.State.Msgs)
	}
	f.StartWorkers(2, "w", worker.Config{})
	p := WaitRun(t, c2.Coordinator, rep.Run, eventWait)
	if p.Done != 200 {
		t.Fatalf("progress: %+v", p)
	}
}

// TestFailingJob: a job that always fails ends as failed after MaxDeliver
// with its error text in jobs.parquet and in status; the rest completes.
func TestFailingJob(t *testing.T) {
	f := New(t, Settings())
	c := f.StartCoordinator("coord")
	f.StartWorkers(2, "w", worker.Config{})
	text := `sweeps:
  - name: failing
    model: bench
    seed: 1
    replicates: 3
    axes:
      - name: fail
        values: [never, error, panic]
`
	rep := submit(t, c.Coordinator, text, false)
	p := WaitRun(t, c.Coordinator, rep.Run, eventWait)
	if p.Done != 3 || p.Failed != 6 {
		t.Fatalf("progress: %+v", p)
	}
	st, err := c.Status(context.Background(), rep.Run)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(st.Runs[0].Failures); n != 6 {
		t.Fatalf("status lists %d failures, want 6", n)
	}
	for _, fl := range st.Runs[0].Failures {
		if fl.Attempts != f.Settings.MaxDeliver {
			t.Errorf("failure %s: %d attempts, want %d", fl.Job, fl.Attempts, f.Settings.MaxDeliver)
		}
		if !strings.Contains(fl.Error, "fail=error") && !strings.Contains(fl.Error, "panicked") {
			t.Errorf("failure %s: error %q", fl.Job, fl.Error)
		}
	}
	out := collect(t, f, c.Farm, rep.Run)
	fr := readJobs(t, out[0].Dir)
	if fr.Len() != 9 {
		t.Fatalf("%d rows, want 9", fr.Len())
	}
	t.Logf("jobs submitted 9 (3 error, 3 panic), results %d, ok %d, failed %d after %d deliveries each, lost %d",
		fr.Len(), out[0].OK, out[0].Failed, f.Settings.MaxDeliver, out[0].Missing)
	status, errs, fails := strCol(t, fr, "status"), strCol(t, fr, "error"), strCol(t, fr, "fail")
	for i := range status {
		want := "ok"
		if fails[i] != "never" {
			want = "failed"
		}
		if status[i] != want {
			t.Errorf("row %d (fail=%s): status %q, want %q", i, fails[i], status[i], want)
		}
		if want == "failed" && errs[i] == "" {
			t.Errorf("row %d: failed without error text", i)
		}
	}
}

// TestResubmit: submitting the same sweep twice publishes nothing new, and
// the second run's results come from the first run's parts; --force reruns.
func TestResubmit(t *testing.T) {
	f := New(t, Settings())
	c := f.StartCoordinator("coord")
	f.StartWorkers(2, "w", worker.Config{})
	text := benchSweep("again", 20, 2, 0, "")
	first := submit(t, c.Coordinator, text, false)
	WaitRun(t, c.Coordinator, first.Run, eventWait)
	second := submit(t, c.Coordinator, text, false)
	if second.Published != 0 || second.Skipped != 40 {
		t.Fatalf("second submission: %+v", second)
	}
	p := WaitRun(t, c.Coordinator, second.Run, eventWait)
	if p.Skipped != 40 {
		t.Fatalf("progress: %+v", p)
	}
	out := collect(t, f, c.Farm, second.Run)
	if out[0].OK != 40 {
		t.Fatalf("second run collected %d ok, want 40", out[0].OK)
	}
	forced := submit(t, c.Coordinator, text, true)
	if forced.Published != 40 {
		t.Fatalf("forced submission: %+v", forced)
	}
	p = WaitRun(t, c.Coordinator, forced.Run, eventWait)
	if p.Done != 40 {
		t.Fatalf("forced progress: %+v", p)
	}
	out = collect(t, f, c.Farm, forced.Run)
	for _, r := range strCol(t, readJobs(t, out[0].Dir), "run_id") {
		if r != forced.Run {
			t.Fatalf("forced run row carries run_id %s", r)
		}
	}
}

// TestBadSweepPublishesNothing: an invalid sweep is refused whole.
func TestBadSweepPublishesNothing(t *testing.T) {
	f := New(t, Settings())
	c := f.StartCoordinator("coord")
	_, err := c.Submit(context.Background(), coordinator.SubmitRequest{File: "bad.yaml", Text: `sweeps:
  - name: bad
    model: bench
    seed: 1
    axes:
      - name: sise
        values: [1, 2]
`})
	if err == nil || !strings.Contains(err.Error(), "bad.yaml:6") || !strings.Contains(err.Error(), "size") {
		t.Fatalf("err = %v, want bad.yaml:6 and a suggestion of size", err)
	}
	info, err := c.Farm.Jobs.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if info.State.Msgs != 0 {
		t.Fatalf("%d jobs published for a bad sweep", info.State.Msgs)
	}
}

// TestWorkerCountInvariance: the same sweep with 1 and with 4 workers gives
// identical result rows (but for worker and timing columns) and a
// byte-identical summary and extra table.
func TestWorkerCountInvariance(t *testing.T) {
	text := benchSweep("invariant", 30, 4, 0, "      noise: 2.5\n")
	dirs := make([]string, 2)
	for i, n := range []int{1, 4} {
		f := New(t, Settings())
		c := f.StartCoordinator("coord")
		f.StartWorkers(n, "w", worker.Config{FlushRows: 7})
		rep := submit(t, c.Coordinator, text, false)
		WaitRun(t, c.Coordinator, rep.Run, eventWait)
		dirs[i] = collect(t, f, c.Farm, rep.Run)[0].Dir
	}
	a, b := readJobs(t, dirs[0]), readJobs(t, dirs[1])
	skip := map[string]bool{"run_id": true, "worker": true, "started_at": true, "duration_ms": true, "cpu_ms": true, "attempts": true}
	names := append([]string(nil), a.Names...)
	sort.Strings(names)
	for _, name := range names {
		if skip[name] {
			continue
		}
		if !reflect.DeepEqual(a.Col(name), b.Col(name)) {
			t.Errorf("column %s differs between 1 and 4 workers", name)
		}
	}
	for _, file := range []string{"summary.parquet", "summary.csv", "samples.parquet"} {
		x, y := readFile(t, filepath.Join(dirs[0], file)), readFile(t, filepath.Join(dirs[1], file))
		if string(x) != string(y) {
			t.Errorf("%s differs between 1 and 4 workers", file)
		}
	}
}

// TestLastDeliveryLost: a worker dies on a job's last allowed delivery, so
// no worker can report the failure; the server's max-deliveries advisory
// makes the coordinator record it, remove the message, and finish the run.
// The job is held in flight (a gate) until the worker is gone.
func TestLastDeliveryLost(t *testing.T) {
	s := Settings()
	s.MaxDeliver = 1
	s.AckWait = time.Second
	f := New(t, s)
	c := f.StartCoordinator("coord")
	held, g := f.heldBench(nil)
	doomed := held.StartWorkers(1, "doomed", worker.Config{Heartbeat: 20 * time.Millisecond})
	rep := submit(t, c.Coordinator, benchSweep("lost", 1, 1, 0, ""), false)
	g.waitHeld(t, 1, "the doomed worker")
	killMidJob(t, c, doomed)
	p := WaitRun(t, c.Coordinator, rep.Run, eventWait)
	if p.Failed != 1 || p.Done != 0 {
		t.Fatalf("progress: %+v", p)
	}
	if len(p.Failures) != 1 || !strings.Contains(p.Failures[0].Error, "no result after 1 deliveries") {
		t.Fatalf("failures: %+v", p.Failures)
	}
	info, err := c.Farm.Jobs.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if info.State.Msgs != 0 {
		t.Fatalf("%d messages left in the work queue, want 0", info.State.Msgs)
	}
	out := collect(t, f, c.Farm, rep.Run)
	if out[0].Failed != 1 {
		t.Fatalf("collected: %+v", out[0].Collected)
	}
}

// waitInFlight waits until the coordinator sees the farm's single worker
// (who) hold a job.
func waitInFlight(t *testing.T, c *Coordinator, who string) {
	t.Helper()
	waitFor(t, "the coordinator to see "+who+" hold a job", func() bool {
		ws := c.Workers()
		return len(ws) == 1 && len(ws[0].InFlight) == 1
	})
}

// killMidJob waits until the single worker of doomed holds a job, then makes
// it vanish: its connection goes first, so neither ack nor nak can leave.
func killMidJob(t *testing.T, c *Coordinator, doomed *Workers) {
	t.Helper()
	waitInFlight(t, c, "the doomed worker")
	doomed.Farms[0].NC.Close()
	doomed.Stop()
}

// TestTwoFarmsOneServer: two farms with different prefixes share one NATS
// server without seeing each other's jobs, workers or results.
func TestTwoFarmsOneServer(t *testing.T) {
	a := New(t, Settings())
	a.Settings.Prefix = "lab-a"
	b := *a
	b.Settings.Prefix = "lab-b"
	ca, cb := a.StartCoordinator("coord-a"), b.StartCoordinator("coord-b")
	a.StartWorkers(1, "wa", worker.Config{})
	b.StartWorkers(1, "wb", worker.Config{})
	ra := submit(t, ca.Coordinator, benchSweep("farm-a", 30, 1, 0, ""), false)
	rb := submit(t, cb.Coordinator, benchSweep("farm-b", 20, 1, 0, ""), false)
	WaitRun(t, ca.Coordinator, ra.Run, eventWait)
	WaitRun(t, cb.Coordinator, rb.Run, eventWait)
	for _, c := range []struct {
		f      *Farm
		co     *Coordinator
		run    string
		n      int
		worker string
	}{{a, ca, ra.Run, 30, "wa-0"}, {&b, cb, rb.Run, 20, "wb-0"}} {
		out := collect(t, c.f, c.co.Farm, c.run)
		fr := readJobs(t, out[0].Dir)
		if fr.Len() != c.n {
			t.Fatalf("farm %s: %d rows, want %d", c.f.Settings.Prefix, fr.Len(), c.n)
		}
		for _, w := range strCol(t, fr, "worker") {
			if w != c.worker {
				t.Fatalf("farm %s: job run by %s", c.f.Settings.Prefix, w)
			}
		}
		if ws := c.co.Workers(); len(ws) != 1 || ws[0].Name != c.worker {
			t.Fatalf("farm %s sees workers %+v", c.f.Settings.Prefix, ws)
		}
		if _, err := c.co.Progress(context.Background(), map[string]string{ca.Farm.Names.Prefix: rb.Run, cb.Farm.Names.Prefix: ra.Run}[c.co.Farm.Names.Prefix]); err == nil {
			t.Fatalf("farm %s sees the other farm's run", c.f.Settings.Prefix)
		}
	}
}

// TestPrefixesDifferingOnlyInCaseOrDash: farms "lab-b", "lab_b" and
// "LAB_B" on one server are as separate as any two farms: each has its own
// streams, buckets, coordinator lease and consumer, its runs complete on
// its own worker, and none can see or collect another's run (these
// prefixes used to share LAB_B_JOBS and every bucket).
func TestPrefixesDifferingOnlyInCaseOrDash(t *testing.T) {
	base := New(t, Settings())
	prefixes := []string{"lab-b", "lab_b", "LAB_B"}
	farms := make([]*Farm, len(prefixes))
	coords := make([]*Coordinator, len(prefixes))
	runs := make([]string, len(prefixes))
	for i, p := range prefixes {
		f := *base
		f.Settings.Prefix = p
		farms[i] = &f
		coords[i] = f.StartCoordinator("coord-" + p)
		f.StartWorkers(1, "w"+strconv.Itoa(i), worker.Config{})
	}
	for i := range prefixes {
		runs[i] = submit(t, coords[i].Coordinator, benchSweep("farm"+strconv.Itoa(i), 10+5*i, 1, 0, ""), false).Run
	}
	ctx := context.Background()
	streams := map[string]bool{}
	for i, p := range prefixes {
		WaitRun(t, coords[i].Coordinator, runs[i], eventWait)
		out := collect(t, farms[i], coords[i].Farm, runs[i])
		fr := readJobs(t, out[0].Dir)
		if fr.Len() != 10+5*i {
			t.Fatalf("farm %s: %d rows, want %d", p, fr.Len(), 10+5*i)
		}
		for _, w := range strCol(t, fr, "worker") {
			if w != "w"+strconv.Itoa(i)+"-0" {
				t.Fatalf("farm %s: a job ran on %s", p, w)
			}
		}
		if ws := coords[i].Workers(); len(ws) != 1 || ws[0].Name != "w"+strconv.Itoa(i)+"-0" {
			t.Fatalf("farm %s sees workers %+v", p, ws)
		}
		streams[coords[i].Farm.Names.JobsStream] = true
		for j := range prefixes {
			if j == i {
				continue
			}
			if _, err := coords[i].Progress(ctx, runs[j]); err == nil {
				t.Fatalf("farm %s sees farm %s's run", p, prefixes[j])
			}
			if _, err := coordinator.Collect(ctx, coords[i].Farm, base.Registry, runs[j], coordinator.CollectOptions{
				ResultsDir: filepath.Join(base.Dir, "results-"+p),
			}); err == nil {
				t.Fatalf("farm %s collected farm %s's run", p, prefixes[j])
			}
		}
	}
	if len(streams) != len(prefixes) {
		t.Fatalf("job streams %v: want one per prefix", streams)
	}
}

// TestForeignMessages: messages on the jobs subject that are not ours, are
// malformed or name a model this worker lacks are rejected with a recorded
// reason; the workers survive and the real run completes.
func TestForeignMessages(t *testing.T) {
	f := New(t, Settings())
	c := f.StartCoordinator("coord")
	ws := f.StartWorkers(1, "w", worker.Config{})
	rep := submit(t, c.Coordinator, benchSweep("real", 10, 1, 0, ""), false)
	subject := c.Farm.Names.JobSubject(rep.Run)
	bad := []string{
		"\x00\x01 not json",
		`{"run":"` + rep.Run + `","job":{"id":"11111111-1111-1111-1111-111111111111","model":"bench","model_version":"1","params":{"size":-5}}}`,
		`{"run":"` + rep.Run + `","job":{"id":"22222222-2222-2222-2222-222222222222","model":"nosuchmodel","model_version":"1","params":{}}}`,
		`{"run":"` + rep.Run + `","job":{"id":"33333333-3333-3333-3333-333333333333","model":"bench","model_version":"999","params":{}}}`,
		`{"run":"` + rep.Run + `","job":{"id":"44444444-4444-4444-4444-444444444444","model":"bench","model_version":"1","params":{"size":"x"}}}`,
		`{"job":{}}`,
	}
	ctx := context.Background()
	for _, b := range bad {
		if _, err := c.Farm.JS.Publish(ctx, subject, []byte(b)); err != nil {
			t.Fatal(err)
		}
	}
	p := WaitRun(t, c.Coordinator, rep.Run, eventWait)
	if p.Done != 10 {
		t.Fatalf("progress: %+v", p)
	}
	// The foreign messages are gone from the queue once their deliveries ran
	// out (unknown model, wrong version) or at once (malformed).
	fails := expectFailures(t, c, rep.Run, map[string]string{
		"11111111-1111-1111-1111-111111111111": "malformed job message",
		"22222222-2222-2222-2222-222222222222": "not built into this worker",
		"33333333-3333-3333-3333-333333333333": "version 999 requested",
		"44444444-4444-4444-4444-444444444444": "malformed job message",
	})
	if st := ws.List[0].Stats(); st.Done != 10 {
		t.Errorf("worker stats %+v, want 10 done", st)
	}
	// The worker logged each malformed message it rejected (the four
	// above that are not well-formed job messages), naming the job.
	rejected := logLines(f.Logs.String(), "level=ERROR", `msg="rejected a malformed job message"`)
	if len(rejected) != 4 || !strings.Contains(strings.Join(rejected, "\n"), "job=11111111-1111-1111-1111-111111111111") ||
		!strings.Contains(strings.Join(rejected, "\n"), "job=44444444-4444-4444-4444-444444444444") {
		t.Errorf("the worker logged %d rejections, want 4 naming jobs 1111… and 4444…:\n%s", len(rejected), strings.Join(rejected, "\n"))
	}
	t.Logf("submitted 10 real + %d foreign messages: %d results, %d recorded failures, %d rejections logged", len(bad), p.Done, len(fails), len(rejected))
}

// TestCoordinatorLease: a second coordinator on a live farm refuses with the
// holder's name; once the holder dies without releasing (its connection
// gone, so no renewals), a new coordinator takes over within one lease TTL
// and finishes the run.
func TestCoordinatorLease(t *testing.T) {
	f := New(t, Settings())
	c1 := f.StartCoordinator("first")
	rep := submit(t, c1.Coordinator, benchSweep("lease", 10, 2, 0, ""), false)

	bf := f.ConnectCoordinator("second")
	c2, err := coordinator.New(bf, coordinator.Config{Name: "second", Registry: f.Registry, Logger: f.Logger})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err = c2.Start(context.Background())
	if !errors.Is(err, coordinator.ErrLeaseHeld) || !strings.Contains(err.Error(), "first") {
		t.Fatalf("second coordinator: err = %v, want ErrLeaseHeld naming %q", err, "first")
	}
	t.Logf("second coordinator refused after %v: %v", time.Since(start).Round(time.Millisecond), err)

	// The first dies: no release, no renewals.
	c1.Farm.NC.Close()
	start = time.Now()
	c3 := f.StartCoordinator("third")
	t.Logf("third coordinator took over after %v", time.Since(start).Round(time.Millisecond))
	f.StartWorkers(1, "w", worker.Config{})
	p := WaitRun(t, c3.Coordinator, rep.Run, eventWait)
	if p.Done != 20 {
		t.Fatalf("progress: %+v", p)
	}
	out := collect(t, f, c3.Farm, rep.Run)
	t.Logf("jobs submitted 20, results %d, failed %d, lost %d; one coordinator at a time", out[0].OK, out[0].Failed, out[0].Missing)
	if out[0].OK != 20 {
		t.Fatalf("collected %d ok, want 20", out[0].OK)
	}
}

// TestMultiSweepFile: a file of several sweeps runs every sweep; sweeps that
// differ only in their master seed are different jobs, and a job two sweeps
// share runs once and appears in both sweeps' results.
func TestMultiSweepFile(t *testing.T) {
	f := New(t, Settings())
	c := f.StartCoordinator("coord")
	f.StartWorkers(2, "w", worker.Config{})
	text := `sweeps:
  - name: first
    model: bench
    seed: 1
    replicates: 3
    axes:
      - name: size
        values: [1, 2, 3]
  - name: reseeded
    model: bench
    seed: 2
    replicates: 3
    axes:
      - name: size
        values: [1, 2, 3]
  - name: overlap
    model: bench
    seed: 1
    replicates: 3
    axes:
      - name: size
        values: [3, 4]
`
	rep := submit(t, c.Coordinator, text, false)
	// 9 + 9 + 6 jobs, of which overlap's size=3 (3 jobs) are first's.
	if rep.Total != 21 || rep.Published != 21 {
		t.Fatalf("submit: %+v", rep)
	}
	p := WaitRun(t, c.Coordinator, rep.Run, eventWait)
	if p.Done != 21 {
		t.Fatalf("progress: %+v", p)
	}
	out := collect(t, f, c.Farm, rep.Run)
	want := map[string]int{"first": 9, "reseeded": 9, "overlap": 6}
	ids := map[string][]string{}
	for _, s := range out {
		fr := readJobs(t, s.Dir)
		if fr.Len() != want[s.Sweep] || s.OK != want[s.Sweep] {
			t.Fatalf("sweep %s: %d rows, %d ok; want %d", s.Sweep, fr.Len(), s.OK, want[s.Sweep])
		}
		for _, sw := range strCol(t, fr, "sweep") {
			if sw != s.Sweep {
				t.Fatalf("sweep %s has a row of sweep %s", s.Sweep, sw)
			}
		}
		ids[s.Sweep] = strCol(t, fr, "job_id")
	}
	shared := 0
	for _, a := range ids["first"] {
		for _, b := range ids["reseeded"] {
			if a == b {
				t.Fatalf("job %s in both first and reseeded (different master seeds)", a)
			}
		}
		for _, b := range ids["overlap"] {
			if a == b {
				shared++
			}
		}
	}
	if shared != 3 {
		t.Fatalf("%d jobs shared by first and overlap, want 3", shared)
	}
}

// logLines returns the lines of logs that hold every one of parts.
func logLines(logs string, parts ...string) []string {
	var out []string
	for _, l := range strings.Split(logs, "\n") {
		all := l != ""
		for _, p := range parts {
			all = all && strings.Contains(l, p)
		}
		if all {
			out = append(out, l)
		}
	}
	return out
}

// expectFailures waits until the jobs stream of c is empty (foreign messages
// leave it when their deliveries run out, malformed ones at once), then
// checks that each job of want was recorded as failed for run with a reason
// containing want's text. It returns the recorded failures, job → reason.
func expectFailures(t *testing.T, c *Coordinator, run string, want map[string]string) map[string]string {
	t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(eventWait)
	for {
		info, err := c.Farm.Jobs.Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if info.State.Msgs == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d foreign messages still queued", info.State.Msgs)
		}
		time.Sleep(50 * time.Millisecond)
	}
	fails, err := coordinator.ListFailures(ctx, c.Farm, run)
	if err != nil {
		t.Fatal(err)
	}
	reasons := map[string]string{}
	for _, fl := range fails {
		reasons[fl.Job] = fl.Error
	}
	for id, w := range want {
		if !strings.Contains(reasons[id], w) {
			t.Errorf("job %s: recorded reason %q, want %q", id, reasons[id], w)
		}
	}
	return reasons
}

// markPublishing puts a run's record back as a coordinator that crashed
// while publishing would have left it: status "publishing".
func markPublishing(t *testing.T, f *Farm, run string) {
	t.Helper()
	bf := f.Connect("tamper")
	ctx := context.Background()
	e, err := bf.Runs.Get(ctx, run)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(e.Value()), `"status":"running"`, `"status":"publishing"`, 1)
	if _, err := bf.Runs.Put(ctx, run, []byte(text)); err != nil {
		t.Fatal(err)
	}
}

// drainAndWait asks the first worker of ws to drain through its control
// subject, as `schedfarm drain` does, calls then (if not nil) once the
// worker has the request, and waits for the workers to return.
func drainAndWait(t *testing.T, c *Coordinator, ws *Workers, then func()) {
	t.Helper()
	if _, err := c.Farm.NC.Request(c.Farm.Names.ControlSubject(ws.List[0].Name()), []byte("drain"), eventWait); err != nil {
		t.Fatal(err)
	}
	if then != nil {
		then()
	}
	done := make(chan struct{})
	go func() { ws.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(eventWait):
		t.Fatalf("the drained worker did not return within %v", eventWait)
	}
}

// TestForgedHeartbeats: heartbeats whose worker name is not a worker name
// (a terminal escape sequence, a newline) or that name another worker than
// their subject are dropped; a well-formed one on its own subject is kept.
func TestForgedHeartbeats(t *testing.T) {
	f := New(t, Settings())
	c := f.StartCoordinator("coord")
	nc := f.Connect("forger")
	names := c.Farm.Names
	forged := []struct {
		subject string
		hb      broker.Heartbeat
	}{
		{names.HeartbeatSubject("evil"), broker.Heartbeat{Worker: "\x1b[31mevil\x1b[0m"}},
		{names.HeartbeatSubject(broker.SafeName("w\nfake")), broker.Heartbeat{Worker: "w\nfake"}},
		{names.HeartbeatSubject("impostor"), broker.Heartbeat{Worker: "victim"}},
		{names.HeartbeatSubject("hostile-host"), broker.Heartbeat{Worker: "hostile-host", Host: strings.Repeat("h", 300)}},
	}
	for _, fh := range forged {
		data, _ := json.Marshal(fh.hb)
		if err := nc.NC.Publish(fh.subject, data); err != nil {
			t.Fatal(err)
		}
	}
	// One well-formed heartbeat last, from the same connection: once the
	// coordinator has it, it has handled the forged ones before it.
	data, _ := json.Marshal(broker.Heartbeat{Worker: "probe", Host: "h"})
	if err := nc.NC.Publish(names.HeartbeatSubject("probe"), data); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(eventWait)
	for {
		ws := c.Coordinator.Workers()
		if len(ws) > 0 {
			if len(ws) != 1 || ws[0].Name != "probe" {
				t.Fatalf("workers %+v: want the probe alone", ws)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the well-formed heartbeat never arrived")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestCPUTimeRecorded: every job's row carries the CPU time of its run on
// its thread (cpu_ms), positive for jobs that burn CPU and never more than
// the run's wall-clock duration (a model runs on one thread).
func TestCPUTimeRecorded(t *testing.T) {
	f := New(t, Settings())
	c := f.StartCoordinator("coord")
	f.StartWorkers(2, "w", worker.Config{})
	rep := submit(t, c.Coordinator, benchSweep("cpu", 10, 2, 5, ""), false)
	WaitRun(t, c.Coordinator, rep.Run, eventWait)
	fr := readJobs(t, collect(t, f, c.Farm, rep.Run)[0].Dir)
	cpu, ok1 := fr.Col("cpu_ms").([]float64)
	dur, ok2 := fr.Col("duration_ms").([]float64)
	if !ok1 || !ok2 || len(cpu) != 20 {
		t.Fatalf("cpu_ms %T, duration_ms %T, %d rows", fr.Col("cpu_ms"), fr.Col("duration_ms"), len(cpu))
	}
	ci := fr.Index("cpu_ms")
	for i := range cpu {
		if runtime.GOOS == "linux" && (fr.IsNull(ci, i) || !(cpu[i] > 0) || cpu[i] > dur[i]+0.5) {
			t.Errorf("row %d: cpu_ms %v (null %v), duration_ms %v", i, cpu[i], fr.IsNull(ci, i), dur[i])
		}
	}
}
