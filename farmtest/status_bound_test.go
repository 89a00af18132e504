package farmtest

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"schedfarm/broker"
	"schedfarm/coordinator"
	"schedfarm/worker"
)

// natsDefaultMaxPayload is nats-server's own default max_payload (1 MiB),
// which a farm on a stock nats-server has.
const natsDefaultMaxPayload = 1 << 20

// testClock is a coordinator clock (coordinator.Config.Now) that moves only
// when the test says.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// historyFarm starts a farm with settings s on a server with
// nats-server's default max_payload (1 MiB) and MaxDeliver 1, a
// coordinator with cfg and two workers (setup, if set, changes the farm
// before they start), and makes its history: runs runs of jobs bench jobs
// each that fail (fail: "panic" or "error"), every one finished. It
// returns the farm, the coordinator, the workers and the run IDs, oldest
// first.
func historyFarm(t *testing.T, s broker.Settings, cfg coordinator.Config, runs, jobs int, fail string, setup func(*Farm)) (*Farm, *Coordinator, *Workers, []string) {
	t.Helper()
	conf := filepath.Join(t.TempDir(), "nats.conf")
	if err := os.WriteFile(conf, []byte(fmt.Sprintf("max_payload: %d\n", natsDefaultMaxPayload)), 0o600); err != nil {
		t.Fatal(err)
	}
	s.MaxDeliver = 1
	f := NewWithServer(t, s, broker.ServerConfig{ConfigFile: conf})
	if setup != nil {
		setup(f)
	}
	c := f.StartCoordinatorWith("coord", cfg)
	if got := c.Farm.NC.MaxPayload(); got != natsDefaultMaxPayload {
		t.Fatalf("server max_payload %d, want %d", got, natsDefaultMaxPayload)
	}
	ws := f.StartWorkers(2, "w", worker.Config{})
	var ids []string
	for i := range runs {
		rep := submit(t, c.Coordinator, fmt.Sprintf(`sweeps:
  - name: history
    model: bench
    seed: %d
    params:
      fail: %s
    axes:
      - name: size
        range: {from: 1, to: %d, step: 1}
`, i+1, fail, jobs), false)
		ids = append(ids, rep.Run)
	}
	for _, id := range ids {
		if p := WaitRun(t, c.Coordinator, id, eventWait); p.Failed != jobs {
			t.Fatalf("history run %s: %+v, want %d failed", id, *p, jobs)
		}
	}
	return f, c, ws, ids
}

// heartbeat publishes a heartbeat of a worker named name on nc, with a
// long host name and jobs in flight (as a busy worker's), and flushes.
func heartbeat(t *testing.T, bf *broker.Farm, name string) {
	t.Helper()
	hb := broker.Heartbeat{Worker: name, Host: strings.Repeat("h", 255), PID: 1, Started: time.Now(), Sent: time.Now(),
		Current: &broker.CurrentJob{Run: "r", Sweep: strings.Repeat("s", broker.MaxWorkerName), Params: strings.Repeat("p", broker.MaxCurrentParams)}}
	for range 16 {
		hb.Running = append(hb.Running, uuid.NewString())
	}
	data, err := json.Marshal(hb)
	if err != nil {
		t.Fatal(err)
	}
	if err := bf.NC.Publish(bf.Names.HeartbeatSubject(name), data); err != nil {
		t.Fatal(err)
	}
}

// waitWorkers waits until the coordinator lists exactly n workers.
func waitWorkers(t *testing.T, c *Coordinator, n int) {
	t.Helper()
	deadline := time.Now().Add(eventWait)
	for {
		got := len(c.Workers())
		if got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the coordinator lists %d workers, want %d", got, n)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// wireStatus sends a status request as `schedfarm status` does and returns
// the reply's size and its status; no reply within eventWait fails the test.
func wireStatus(t *testing.T, bf *broker.Farm, req coordinator.StatusRequest) (int, *coordinator.Status) {
	t.Helper()
	body, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	msg, err := bf.NC.Request(bf.Names.APISubject("status"), body, eventWait)
	if err != nil {
		t.Fatalf("status %s: no reply: %v", body, err)
	}
	var rep struct {
		Error  string              `json:"error"`
		Result *coordinator.Status `json:"result"`
	}
	if err := json.Unmarshal(msg.Data, &rep); err != nil || rep.Error != "" || rep.Result == nil {
		t.Fatalf("status %s: reply %.300s: %v", body, msg.Data, err)
	}
	return len(msg.Data), rep.Result
}

// TestStatusFitsMaxPayload: a farm with history on a
// server with nats-server's default max_payload of 1 MiB — 10 finished
// runs of 300 panicking jobs each (errors with stack traces), made with
// MaxDeliver 1, and 3,000 workers seen once with a long host name and 16
// jobs in flight each — answers `status` with a reply of at most three
// quarters of max_payload that says what it leaves out (the failures
// beyond 5 per run, the workers cut to fit), every run's counts exact;
// `status RUN` lists 100 failures and says the rest are left out; pages
// of runs (limit, before) list every run once, in order; once the
// coordinator's clock passes WorkerForget the workers not seen since are
// pruned; and a reply that cannot be sent is logged. Before the fix the
// coordinator's reply (4.7 MB) failed to send and the request got
// no answer. With -short (the race detector's pass) the runs have 120
// jobs. Bound: about 10 s (60 s with -race).
func TestStatusFitsMaxPayload(t *testing.T) {
	jobs := 300
	if testing.Short() {
		jobs = 120
	}
	clock := &testClock{t: time.Now()}
	var logs SyncBuffer
	cfg := coordinator.Config{Now: clock.Now, WorkerForget: 10 * time.Minute}
	f, c, ws, runs := historyFarm(t, Settings(), cfg, 10, jobs, "panic", func(f *Farm) {
		f.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelError}))
	})
	ws.Stop() // no more heartbeats: the workers listed are the test's
	cl := f.Connect("client")
	const ghosts = 3000
	for i := range ghosts {
		heartbeat(t, cl, fmt.Sprintf("ghost-%04d", i))
	}
	waitWorkers(t, c, 2+ghosts)

	size, st := wireStatus(t, cl, coordinator.StatusRequest{})
	budget := coordinator.ReplyBudget(natsDefaultMaxPayload)
	t.Logf("status: %d bytes (budget %d): %d runs, %d workers; cut %+v", size, budget, len(st.Runs), len(st.Workers), st.Cut)
	if size > budget+64 {
		t.Errorf("the reply is %d bytes, over its budget of %d", size, budget)
	}
	if len(st.Runs) != len(runs) || st.TotalRuns != len(runs) || st.Older != "" {
		t.Errorf("%d runs listed of %d (older %q), want all %d", len(st.Runs), st.TotalRuns, st.Older, len(runs))
	}
	cutFailures := 0
	for i, p := range st.Runs {
		if p.ID != runs[i] || p.Failed != jobs || len(p.Failures) > 5 || p.FailuresCut != jobs-len(p.Failures) {
			t.Errorf("run %d: %s failed %d, %d listed, %d cut; want %s, %d, at most 5, the rest cut", i, p.ID, p.Failed, len(p.Failures), p.FailuresCut, runs[i], jobs)
		}
		cutFailures += p.FailuresCut
	}
	if st.Cut == nil || st.Cut.Failures != cutFailures || !st.Cut.Fitted || st.Cut.Workers == 0 ||
		st.Cut.Workers+len(st.Workers) != 2+ghosts || len(st.Cut.Notes) == 0 {
		t.Fatalf("the reply does not say what it cut: %+v", st.Cut)
	}
	notes := strings.Join(st.Cut.Notes, "\n")
	for _, want := range []string{fmt.Sprintf("%d failed jobs not listed", cutFailures), fmt.Sprintf("%d workers not listed", st.Cut.Workers), "max_payload"} {
		if !strings.Contains(notes, want) {
			t.Errorf("the notes do not say %q:\n%s", want, notes)
		}
	}

	size, st = wireStatus(t, cl, coordinator.StatusRequest{Run: runs[0]})
	t.Logf("status RUN: %d bytes; cut %+v", size, st.Cut)
	if p := st.Runs[0]; len(st.Runs) != 1 || p.Failed != jobs || len(p.Failures) != 100 || p.FailuresCut != jobs-100 || st.Cut == nil || st.Cut.Failures != jobs-100 {
		t.Errorf("status RUN: %d runs, failed %d, %d listed, %d cut; cut %+v", len(st.Runs), p.Failed, len(p.Failures), p.FailuresCut, st.Cut)
	}
	for _, fl := range st.Runs[0].Failures {
		if !strings.Contains(fl.Error, "panic") {
			t.Errorf("failure %s: error %.200q", fl.Job, fl.Error)
		}
	}

	// Pages of 4: every run once, oldest first within a page, newest page first.
	var seen []string
	before := ""
	for page := 0; ; page++ {
		_, st := wireStatus(t, cl, coordinator.StatusRequest{Before: before, Limit: 4})
		var ids []string
		for _, p := range st.Runs {
			ids = append(ids, p.ID)
		}
		seen = append(ids, seen...)
		if st.Older == "" {
			break
		}
		if st.Cut == nil || st.Cut.Runs != len(runs)-len(seen) || st.Older != ids[0] {
			t.Fatalf("page %d: older %q, cut %+v; want %d older runs cut, older %s", page, st.Older, st.Cut, len(runs)-len(seen), ids[0])
		}
		before = st.Older
	}
	if fmt.Sprint(seen) != fmt.Sprint(runs) {
		t.Errorf("pages listed %v, want %v", seen, runs)
	}

	// Past WorkerForget on the coordinator's clock, the workers not seen
	// since are pruned; one that heartbeats again is listed.
	clock.Advance(cfg.WorkerForget + time.Second)
	heartbeat(t, cl, "back-again")
	waitWorkers(t, c, 1)
	size, st = wireStatus(t, cl, coordinator.StatusRequest{})
	if len(st.Workers) != 1 || st.Workers[0].Name != "back-again" || st.Workers[0].Lost || (st.Cut != nil && (st.Cut.Workers != 0 || st.Cut.Fitted)) {
		t.Errorf("after WorkerForget: workers %d, cut %+v; want only back-again, nothing cut to fit", len(st.Workers), st.Cut)
	}
	t.Logf("status after pruning: %d bytes", size)

	// A reply that cannot be sent (a request without a reply subject) is logged.
	if err := cl.NC.Publish(cl.Names.APISubject("status"), []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(eventWait)
	for !strings.Contains(logs.String(), "cannot send the reply") {
		if time.Now().After(deadline) {
			t.Fatalf("no log of the reply that could not be sent:\n%s", logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// received returns how many messages the coordinator's connection has
// received: its reads of run and failure records (each a reply, or one
// message of a listing) while nothing else reaches it.
func received(c *Coordinator) uint64 { return c.Farm.NC.Stats().InMsgs }

// TestStatusReadsBounded: answering `status RUN` of a
// finished run with 3,000 failures, and `status` of the farm, reads a
// bounded number of records — at most the 100 failures it lists plus a
// few replies — however many failures the run has; a page of runs shown
// before reads no run or failure record again. Work is counted as the
// messages the coordinator's connection receives during the call (the
// workers are stopped and the lease renewed rarely, so nothing else
// arrives), never as time. Before the fix `status RUN` read every failure
// record (a key listing and a get each: about 6,000 messages here). With
// -short (the race detector's pass) the run has 600 failures. Bound: about
// 5 s (40 s with -race).
func TestStatusReadsBounded(t *testing.T) {
	s := Settings()
	s.LeaseTTL = time.Minute // renewed every 20 s: no renewal in the counts
	failures := 3000
	if testing.Short() {
		failures = 600
	}
	_, c, ws, runs := historyFarm(t, s, coordinator.Config{}, 1, failures, "error", nil)
	ws.Stop()
	ctx := context.Background()
	count := func(what string, req coordinator.StatusRequest, bound uint64, check func(*coordinator.Status)) {
		t.Helper()
		before := received(c)
		st, err := c.StatusFor(ctx, req)
		n := received(c) - before
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		t.Logf("%s: %d messages received", what, n)
		if n > bound {
			t.Errorf("%s: the coordinator received %d messages (records read) for one call, want at most %d", what, n, bound)
		}
		check(st)
	}
	for i := range 2 {
		count(fmt.Sprintf("status RUN, call %d", i+1), coordinator.StatusRequest{Run: runs[0]}, 100+10, func(st *coordinator.Status) {
			if p := st.Runs[0]; p.Failed != failures || len(p.Failures) != 100 || p.FailuresCut != failures-100 {
				t.Errorf("status RUN: failed %d, %d listed, %d cut", p.Failed, len(p.Failures), p.FailuresCut)
			}
		})
	}
	count("status, first call", coordinator.StatusRequest{}, 5+10, func(st *coordinator.Status) {
		if p := st.Runs[0]; len(st.Runs) != 1 || p.Failed != failures || len(p.Failures) != 5 {
			t.Errorf("status: %d runs, failed %d, %d listed", len(st.Runs), p.Failed, len(p.Failures))
		}
	})
	count("status, next call", coordinator.StatusRequest{}, 10, func(st *coordinator.Status) {
		if p := st.Runs[0]; len(st.Runs) != 1 || p.Failed != failures || len(p.Failures) != 5 {
			t.Errorf("status: %d runs, failed %d, %d listed", len(st.Runs), p.Failed, len(p.Failures))
		}
	})
}
