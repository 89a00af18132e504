package farmtest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"schedfarm/broker"
	"schedfarm/coordinator"
	"schedfarm/simcore"
	"schedfarm/worker"
)

// TestObjectStoreUnavailable: while the parts bucket is gone, workers cannot
// store results; they retry with backoff and ack nothing, and once it is
// back every result is stored exactly once. The checks while it is gone
// wait for the event of a worker reporting that it cannot store.
func TestObjectStoreUnavailable(t *testing.T) {
	f := New(t, Settings())
	c := f.StartCoordinator("coord")
	ctx := context.Background()
	ws := f.StartWorkers(2, "w", worker.Config{Heartbeat: 100 * time.Millisecond})
	if err := c.Farm.JS.DeleteObjectStore(ctx, c.Farm.Names.PartsBucket); err != nil {
		t.Fatal(err)
	}
	rep := submit(t, c.Coordinator, benchSweep("store", 20, 1, 1, ""), false)
	waitFor(t, "a worker to report that it cannot store its results", func() bool {
		for _, w := range c.Workers() {
			if w.StoreError != "" {
				return true
			}
		}
		return false
	})
	p, err := c.Progress(ctx, rep.Run)
	if err != nil {
		t.Fatal(err)
	}
	if p.Done != 0 {
		t.Fatalf("%d jobs registered done while no part could be stored", p.Done)
	}
	info, err := c.Farm.Jobs.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.State.Msgs != 20 {
		t.Fatalf("%d jobs left in the queue while results could not be stored, want all 20 (nothing acked)", info.State.Msgs)
	}
	f.ConnectCoordinator("restore") // a coordinator creates the missing bucket
	p = WaitRun(t, c.Coordinator, rep.Run, eventWait)
	if p.Done != 20 || p.Failed != 0 {
		t.Fatalf("progress: %+v", p)
	}
	out := collect(t, f, c.Farm, rep.Run)
	if out[0].OK != 20 {
		t.Fatalf("collected %d ok, want 20", out[0].OK)
	}
	var errs int64
	for _, w := range ws.List {
		errs += w.Stats().Errors
	}
	t.Logf("jobs submitted 20, results 20, model errors %d; the workers retried storing until the bucket was back", errs)
}

// TestCancelAndDrain: cancel purges a run's queued jobs and marks it
// cancelled; a drained worker finishes its job, stores its results and
// returns. The worker's job is held in flight (a gate) through the cancel
// and the drain.
func TestCancelAndDrain(t *testing.T) {
	f := New(t, Settings())
	c := f.StartCoordinator("coord")
	held, g := f.heldBench(nil)
	ws := held.StartWorkers(1, "w", worker.Config{})
	rep := submit(t, c.Coordinator, benchSweep("cancel", 50, 1, 0, ""), false)
	g.waitHeld(t, 1, "the worker")
	ctx := context.Background()
	if err := coordinator.Request(ctx, c.Farm, "cancel", map[string]string{"run": rep.Run}, nil); err != nil {
		t.Fatal(err)
	}
	p := WaitRun(t, c.Coordinator, rep.Run, eventWait)
	if p.Status != "cancelled" {
		t.Fatalf("status %s, want cancelled", p.Status)
	}
	if p.Queued != 0 || p.Done != 0 {
		t.Errorf("cancelled run shows %d queued, %d done of 50: the purge leaves nothing queued, and the one job ran is held", p.Queued, p.Done)
	}
	info, err := c.Farm.Jobs.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.State.Msgs > 1 { // at most the job in flight
		t.Fatalf("%d jobs still queued after cancel", info.State.Msgs)
	}
	// Drain through the control subject, as `schedfarm drain` does; the
	// held job ends once the drain is asked for.
	drainAndWait(t, c, ws, g.Open)
	if st := ws.List[0].Stats(); st.Done != 1 {
		t.Errorf("the drained worker ran %d jobs, want its 1 held job finished", st.Done)
	}
	t.Logf("cancelled with 1 job of 50 in flight; the queue held %d; the worker drained", info.State.Msgs)
}

// fillStore fills the server's store (MaxStore) with another stream, so
// that nothing more can be stored, and returns a function that empties it.
func fillStore(t *testing.T, c *Coordinator) (free func()) {
	t.Helper()
	ctx := context.Background()
	if _, err := c.Farm.JS.CreateStream(ctx, jetstream.StreamConfig{Name: "FILLER", Subjects: []string{"filler"}, Storage: jetstream.FileStorage}); err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 256<<10)
	full := false
	for i := 0; i < 64 && !full; i++ {
		if _, err := c.Farm.JS.Publish(ctx, "filler", chunk); err != nil {
			full = true
		}
	}
	if !full {
		t.Fatal("could not fill the store")
	}
	return func() {
		if err := c.Farm.JS.DeleteStream(ctx, "FILLER"); err != nil {
			t.Fatal(err)
		}
	}
}

// TestObjectStoreFull: a worker whose results the server refuses for lack
// of storage says so in status (per worker and per run) at once, gives
// the jobs back and stops after StoreFullWait instead of stalling the run
// silently; once the store has room, a worker finishes the run and every
// result is there once.
func TestObjectStoreFull(t *testing.T) {
	f := NewWithServer(t, Settings(), broker.ServerConfig{MaxStore: 8 << 20})
	c := f.StartCoordinator("coord")
	ctx := context.Background()
	rep := submit(t, c.Coordinator, benchSweep("full", 10, 1, 1, ""), false)
	free := fillStore(t, c)
	ws := f.StartWorkers(1, "w", worker.Config{Heartbeat: 100 * time.Millisecond, StoreFullWait: 2 * time.Second})
	// Status names the cause, per worker and per run, while the worker waits.
	var seen *coordinator.Status
	for deadline := time.Now().Add(eventWait); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		st, err := c.Status(ctx, rep.Run)
		if err != nil {
			t.Fatal(err)
		}
		if len(st.Runs) == 1 && len(st.Runs[0].StoreErrors) > 0 {
			seen = st
			break
		}
	}
	if seen == nil {
		t.Fatal("status never showed the store error")
	}
	if e := seen.Runs[0].StoreErrors[0]; e.Worker != "w-0" || !strings.Contains(e.Error, "insufficient") {
		t.Errorf("run's store error %+v", e)
	}
	if w := seen.Workers[0]; !strings.Contains(w.StoreError, "insufficient") || w.StoreRun != rep.Run {
		t.Errorf("worker's store error %q of run %q", w.StoreError, w.StoreRun)
	}
	// The worker gives up after StoreFullWait: it stops with the reason.
	stopped := make(chan struct{})
	go func() { ws.wg.Wait(); close(stopped) }()
	select {
	case <-stopped:
	case <-time.After(eventWait):
		t.Fatalf("the worker still waits for a full store after %v (its StoreFullWait is 2 s)", eventWait)
	}
	if len(ws.Errs) != 1 || !strings.Contains(ws.Errs[0].Error(), "no storage left") {
		t.Fatalf("worker errors %v: want one saying the store is full", ws.Errs)
	}
	if l := logLines(f.Logs.String(), "level=ERROR", "cannot store results; stopping this worker", "worker=w-0", "no storage left"); len(l) == 0 {
		t.Errorf("the worker did not log that it stops for a full store:\n%s", f.Logs.String())
	}
	if p, _ := c.Progress(ctx, rep.Run); p.Done != 0 {
		t.Fatalf("%d jobs registered while the store was full", p.Done)
	}
	free()
	f.StartWorkers(1, "v", worker.Config{})
	p := WaitRun(t, c.Coordinator, rep.Run, eventWait)
	if p.Done != 10 || p.Failed != 0 {
		t.Fatalf("progress: %+v", p)
	}
	out := collect(t, f, c.Farm, rep.Run)
	if out[0].OK != 10 {
		t.Fatalf("collected %d ok, want 10", out[0].OK)
	}
	if st, _ := c.Status(ctx, rep.Run); len(st.Runs[0].StoreErrors) != 0 {
		t.Errorf("store errors after the run: %+v", st.Runs[0].StoreErrors)
	}
	t.Logf("worker stopped with %v; results 10 once the store had room", ws.Errs[0])
}

// TestShutdownWithFullStore: a worker told to stop while its results cannot
// be stored stops within about half the ack wait (handing its jobs back),
// not after minutes of retries.
func TestShutdownWithFullStore(t *testing.T) {
	s := Settings()
	f := NewWithServer(t, s, broker.ServerConfig{MaxStore: 8 << 20})
	c := f.StartCoordinator("coord")
	rep := submit(t, c.Coordinator, benchSweep("full", 10, 1, 1, ""), false)
	free := fillStore(t, c)
	ws := f.StartWorkers(1, "w", worker.Config{Heartbeat: 100 * time.Millisecond, StoreFullWait: time.Hour})
	for deadline := time.Now().Add(eventWait); ; time.Sleep(50 * time.Millisecond) {
		if w := c.Workers(); len(w) == 1 && w[0].StoreError != "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the worker never reported its store error")
		}
	}
	t0 := time.Now()
	stopped := make(chan struct{})
	go func() { ws.Stop(); close(stopped) }()
	select {
	case <-stopped:
	case <-time.After(eventWait): // StoreFullWait is an hour
		t.Fatalf("the worker did not stop within %v of being told to", time.Since(t0))
	}
	elapsed := time.Since(t0)
	free()
	f.StartWorkers(1, "v", worker.Config{})
	p := WaitRun(t, c.Coordinator, rep.Run, eventWait)
	if p.Done != 10 || p.Failed != 0 {
		t.Fatalf("progress: %+v", p)
	}
	t.Logf("stopped %v after being told to (ack wait %v); its jobs ran on another worker", elapsed.Round(time.Millisecond), s.AckWait)
}

// TestLongJobDoesNotHoldResults: a result buffered before a long job is
// stored while that job runs, not after it (it would otherwise outlive its
// AckWait and run again). The long job is held in flight by a gate: the
// short job's result must be stored while it is held, and held past
// twice its AckWait it is not delivered again.
func TestLongJobDoesNotHoldResults(t *testing.T) {
	s := Settings()
	s.AckWait = time.Second
	f := New(t, s)
	c := f.StartCoordinator("coord")
	held, g := f.heldBench(func(p simcore.Params) bool { return p.Float("work_ms") == 2 })
	ws := held.StartWorkers(1, "w", worker.Config{FlushEvery: 100 * time.Millisecond})
	rep := submit(t, c.Coordinator, `sweeps:
  - name: long
    model: bench
    seed: 1
    axes:
      - name: work_ms
        values: [1, 2]
`, false)
	g.waitHeld(t, 1, "the long job")
	ctx := context.Background()
	var p *coordinator.RunProgress
	waitFor(t, "the short job's result to be stored while the long job is held", func() bool {
		var err error
		p, err = c.Progress(ctx, rep.Run)
		return err == nil && p.Done == 1
	})
	time.Sleep(2 * s.AckWait) // a lower bound: the long job outlives its AckWait
	g.Open()
	p = WaitRun(t, c.Coordinator, rep.Run, eventWait)
	if st := ws.List[0].Stats(); p.Done != 2 || st.Done != 2 {
		t.Fatalf("progress %+v, worker ran %d jobs (want 2: nothing redelivered)", p, st.Done)
	}
}
