package farmtest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"schedfarm/broker"
	"schedfarm/coordinator"
	"schedfarm/worker"
)

// TestObjectStoreUnavailable: while the parts bucket is gone, workers cannot
// store results; they retry with backoff and ack nothing, and once it is
// back every result is stored exactly once. Bound: 60 s.
func TestObjectStoreUnavailable(t *testing.T) {
	f := New(t, Settings())
	c := f.StartCoordinator("coord")
	ctx := context.Background()
	ws := f.StartWorkers(2, "w", worker.Config{})
	if err := c.Farm.JS.DeleteObjectStore(ctx, c.Farm.Names.PartsBucket); err != nil {
		t.Fatal(err)
	}
	rep := submit(t, c.Coordinator, benchSweep("store", 20, 1, 1, ""), false)
	time.Sleep(2 * time.Second)
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
	p = WaitRun(t, c.Coordinator, rep.Run, 60*time.Second)
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
// returns. Bound: 30 s.
func TestCancelAndDrain(t *testing.T) {
	f := New(t, Settings())
	c := f.StartCoordinator("coord")
	ws := f.StartWorkers(1, "w", worker.Config{})
	rep := submit(t, c.Coordinator, benchSweep("cancel", 50, 1, 100, ""), false)
	time.Sleep(300 * time.Millisecond)
	ctx := context.Background()
	if err := coordinator.Request(ctx, c.Farm, "cancel", map[string]string{"run": rep.Run}, nil); err != nil {
		t.Fatal(err)
	}
	p := WaitRun(t, c.Coordinator, rep.Run, 10*time.Second)
	if p.Status != "cancelled" {
		t.Fatalf("status %s, want cancelled", p.Status)
	}
	if p.Queued != 0 || p.Done >= 50 {
		t.Errorf("cancelled run shows %d queued, %d done of 50: the purge leaves nothing queued", p.Queued, p.Done)
	}
	info, err := c.Farm.Jobs.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.State.Msgs > 1 { // at most the job in flight
		t.Fatalf("%d jobs still queued after cancel", info.State.Msgs)
	}
	// Drain through the control subject, as `schedfarm drain` does.
	drainAndWait(t, c, ws, 10*time.Second)
	t.Logf("cancelled after %d of 50 jobs; the queue held %d; the worker drained", p.Done, info.State.Msgs)
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
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
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
	case <-time.After(30 * time.Second):
		t.Fatal("the worker still waits for a full store after 30 s")
	}
	if len(ws.Errs) != 1 || !strings.Contains(ws.Errs[0].Error(), "no storage left") {
		t.Fatalf("worker errors %v: want one saying the store is full", ws.Errs)
	}
	if p, _ := c.Progress(ctx, rep.Run); p.Done != 0 {
		t.Fatalf("%d jobs registered while the store was full", p.Done)
	}
	free()
	f.StartWorkers(1, "v", worker.Config{})
	p := WaitRun(t, c.Coordinator, rep.Run, 60*time.Second)
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
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
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
	case <-time.After(10*s.AckWait + 10*time.Second):
		t.Fatalf("the worker did not stop within %v of being told to", time.Since(t0))
	}
	elapsed := time.Since(t0)
	free()
	f.StartWorkers(1, "v", worker.Config{})
	p := WaitRun(t, c.Coordinator, rep.Run, 60*time.Second)
	if p.Done != 10 || p.Failed != 0 {
		t.Fatalf("progress: %+v", p)
	}
	t.Logf("stopped %v after being told to (ack wait %v); its jobs ran on another worker", elapsed.Round(time.Millisecond), s.AckWait)
}

// TestLongJobDoesNotHoldResults: a result buffered before a long job is
// stored while that job runs, not after it (it would otherwise outlive its
// AckWait and run again). Bound: 20 s.
func TestLongJobDoesNotHoldResults(t *testing.T) {
	s := Settings()
	s.AckWait = time.Second
	f := New(t, s)
	c := f.StartCoordinator("coord")
	ws := f.StartWorkers(1, "w", worker.Config{FlushEvery: 100 * time.Millisecond})
	rep := submit(t, c.Coordinator, `sweeps:
  - name: long
    model: bench
    seed: 1
    axes:
      - name: work_ms
        values: [1, 3000]
`, false)
	time.Sleep(1500 * time.Millisecond) // the long job is running
	p, err := c.Progress(context.Background(), rep.Run)
	if err != nil {
		t.Fatal(err)
	}
	if p.Done != 1 {
		t.Fatalf("%d results stored while the long job runs, want 1", p.Done)
	}
	p = WaitRun(t, c.Coordinator, rep.Run, 15*time.Second)
	if st := ws.List[0].Stats(); p.Done != 2 || st.Done != 2 {
		t.Fatalf("progress %+v, worker ran %d jobs (want 2: nothing redelivered)", p, st.Done)
	}
}
