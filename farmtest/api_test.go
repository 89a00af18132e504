package farmtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"schedfarm/broker"
	"schedfarm/coordinator"
	"schedfarm/sweep"
	"schedfarm/worker"
)

// runKeys lists the run records of a farm.
func runKeys(t *testing.T, bf *broker.Farm) []string {
	t.Helper()
	lister, err := bf.Runs.ListKeys(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k := range lister.Keys() {
		keys = append(keys, k)
	}
	return keys
}

// queued returns the number of messages on the farm's work queue.
func queued(t *testing.T, bf *broker.Farm) uint64 {
	t.Helper()
	info, err := bf.Jobs.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return info.State.Msgs
}

// TestForgedAPIRequestsRefused: requests sent straight to the coordinator's
// API subjects with an invalid field (a run ID that is not of the farm's
// form, such as "a.b", a negative count, an empty or oversized or
// control-character name, an unknown field, trailing data, a subject with
// extra tokens) each get an error reply saying what is wrong, and change
// nothing: no run record, no job on the queue, no run cancelled.
func TestForgedAPIRequestsRefused(t *testing.T) {
	f := New(t, Settings())
	c := f.StartCoordinator("coord")
	client := f.Connect("forger")
	text := benchSweep("forged", 3, 1, 0, "")
	sub := func(fields map[string]any) string {
		m := map[string]any{"file": "forged.yaml", "text": text}
		for k, v := range fields {
			if v == nil {
				delete(m, k)
			} else {
				m[k] = v
			}
		}
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	// A run in progress that forged cancels must not touch.
	victim := submit(t, c.Coordinator, benchSweep("victim", 4, 1, 0, ""), false)
	before := queued(t, client)
	api := client.Names.APISubject
	cases := []struct {
		name, subject, body, want string
	}{
		{"run with a dot", api("submit"), sub(map[string]any{"run": "a.b"}), `run "a.b" is not a run ID`},
		{"run wildcard", api("submit"), sub(map[string]any{"run": ">"}), "not a run ID"},
		{"run upper case", api("submit"), sub(map[string]any{"run": strings.ToUpper(coordinator.NewRunID())}), "not a run ID"},
		{"run too long", api("submit"), sub(map[string]any{"run": strings.Repeat("a", 5000)}), "not a run ID"},
		{"run braces", api("submit"), sub(map[string]any{"run": "{" + coordinator.NewRunID() + "}"}), "not a run ID"},
		{"negative max_jobs", api("submit"), sub(map[string]any{"max_jobs": -1}), "max_jobs: -1"},
		{"empty file", api("submit"), sub(map[string]any{"file": ""}), "file: empty"},
		{"long file", api("submit"), sub(map[string]any{"file": strings.Repeat("f", coordinator.MaxFileName+1)}), "over the 1024-byte limit"},
		{"control character in file", api("submit"), sub(map[string]any{"file": "a\nb.yaml"}), "control characters"},
		{"empty text", api("submit"), sub(map[string]any{"text": ""}), "text: empty"},
		{"unknown field", api("submit"), sub(map[string]any{"runs": coordinator.NewRunID()}), `unknown field "runs"`},
		{"wrong type", api("submit"), sub(map[string]any{"max_jobs": "many"}), "max_jobs"},
		{"trailing data", api("submit"), sub(nil) + ` {"run":"a.b"}`, "data after the JSON object"},
		{"not an object", api("submit"), `["forged.yaml"]`, "invalid submit request"},
		{"empty body", api("submit"), ``, "empty body"},
		{"extra subject token", client.Names.Prefix + ".api.x.submit", sub(nil), "unknown request subject"},
		{"status run wildcard", api("status"), `{"run":"a.*"}`, "not a run ID"},
		{"status unknown field", api("status"), `{"run":"","all":true}`, `unknown field "all"`},
		{"cancel without run", api("cancel"), `{}`, "run: empty"},
		{"cancel wildcard", api("cancel"), `{"run":">"}`, "not a run ID"},
		{"cancel victim with a dot", api("cancel"), `{"run":"` + victim.Run + `.x"}`, "not a run ID"},
		{"ping with fields", api("ping"), `{"x":1}`, `unknown field "x"`},
	}
	for _, tc := range cases {
		msg, err := client.NC.Request(tc.subject, []byte(tc.body), eventWait)
		if err != nil {
			t.Fatalf("%s: no reply: %v", tc.name, err)
		}
		var rep struct {
			Error  string          `json:"error"`
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal(msg.Data, &rep); err != nil {
			t.Fatalf("%s: reply %q: %v", tc.name, msg.Data, err)
		}
		if rep.Error == "" || !strings.Contains(rep.Error, tc.want) {
			t.Errorf("%s: reply %s, want an error containing %q", tc.name, msg.Data, tc.want)
		}
	}
	if keys := runKeys(t, client); len(keys) != 1 || keys[0] != victim.Run {
		t.Errorf("run records after the forged requests: %v, want only %s", keys, victim.Run)
	}
	if n := queued(t, client); n != before {
		t.Errorf("%d jobs queued after the forged requests, %d before", n, before)
	}
	if p, err := c.Progress(context.Background(), victim.Run); err != nil || p.Status != broker.RunRunning {
		t.Errorf("victim run: %+v %v, want running", p, err)
	}
	// Valid requests are still served.
	cl := &coordinator.Client{Farm: client, RequestTimeout: eventWait}
	if name, err := cl.Ping(context.Background()); err != nil || name != "coord" {
		t.Errorf("ping: %q %v", name, err)
	}
	if st, err := cl.Status(context.Background(), victim.Run); err != nil || len(st.Runs) != 1 {
		t.Errorf("status: %+v %v", st, err)
	}
}

// TestResubmissionGivesSameRun: a submission sent again after a lost reply
// (the same run ID), an identical one while its run is in progress (with
// no run ID, or another one), and two identical ones at once all give one
// run, whose jobs are published once; a run ID of another sweep is
// refused; once the run has completed, a new submission of the sweep is a
// new run that skips every job.
func TestResubmissionGivesSameRun(t *testing.T) {
	f := New(t, Settings())
	c := f.StartCoordinator("coord")
	ctx := context.Background()
	text := benchSweep("again", 10, 3, 0, "")
	req := coordinator.SubmitRequest{File: "again.yaml", Text: text, Run: coordinator.NewRunID()}
	first, err := c.Submit(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if first.Run != req.Run || first.Published != 30 || first.Existing {
		t.Fatalf("first submission: %+v", first)
	}
	check := func(what string, rep *coordinator.SubmitReply, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if rep.Run != first.Run || !rep.Existing || rep.Total != 30 {
			t.Fatalf("%s: %+v, want run %s again", what, rep, first.Run)
		}
	}
	rep, err := c.Submit(ctx, req)
	check("the same submission again", rep, err)
	rep, err = c.Submit(ctx, coordinator.SubmitRequest{File: "again.yaml", Text: text})
	check("the same sweep without a run ID", rep, err)
	rep, err = c.Submit(ctx, coordinator.SubmitRequest{File: "elsewhere/again.yaml", Text: text, Run: coordinator.NewRunID()})
	check("the same sweep with another run ID", rep, err)
	// Through the API, as `schedfarm submit` sends it after a lost reply.
	cl := &coordinator.Client{Farm: f.Connect("client"), RequestTimeout: eventWait}
	rep, err = cl.Submit(ctx, req)
	check("the same submission through the API", rep, err)
	if _, err := c.Submit(ctx, coordinator.SubmitRequest{File: "other.yaml", Text: benchSweep("other", 2, 1, 0, ""), Run: req.Run}); err == nil ||
		!strings.Contains(err.Error(), "already exists") {
		t.Fatalf("another sweep under run %s: %v, want refused", req.Run, err)
	}
	// Two identical submissions at once: one run.
	text2 := benchSweep("twice", 20, 1, 0, "")
	var wg sync.WaitGroup
	reps := make([]*coordinator.SubmitReply, 2)
	errs := make([]error, 2)
	for i := range reps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			reps[i], errs[i] = c.Submit(ctx, coordinator.SubmitRequest{File: "twice.yaml", Text: text2, Run: coordinator.NewRunID()})
		}()
	}
	wg.Wait()
	if errs[0] != nil || errs[1] != nil || reps[0].Run != reps[1].Run || reps[0].Existing == reps[1].Existing {
		t.Fatalf("concurrent submissions: %+v %+v (%v, %v), want one run", reps[0], reps[1], errs[0], errs[1])
	}
	if keys := runKeys(t, c.Farm); len(keys) != 2 {
		t.Fatalf("run records %v, want 2", keys)
	}
	if n := queued(t, c.Farm); n != 50 {
		t.Fatalf("%d jobs queued, want 50: each published once", n)
	}
	ws := f.StartWorkers(2, "w", worker.Config{})
	WaitRun(t, c.Coordinator, first.Run, eventWait)
	WaitRun(t, c.Coordinator, reps[0].Run, eventWait)
	ws.Stop()
	rep, err = c.Submit(ctx, req) // a reply lost after the run completed
	check("the same submission after completion", rep, err)
	if rep.Status != broker.RunComplete {
		t.Fatalf("status %s, want complete", rep.Status)
	}
	again, err := c.Submit(ctx, coordinator.SubmitRequest{File: "again.yaml", Text: text})
	if err != nil || again.Run == first.Run || again.Existing || again.Skipped != 30 || again.Published != 0 {
		t.Fatalf("a new submission after completion: %+v %v, want a new run skipping all 30 jobs", again, err)
	}
}

// TestSweepOverMaxPayload: a suite whose bundle is larger than the NATS
// server's max_payload (256 KiB here) is refused before anything is
// published, by the client and by the coordinator, with the sizes, the
// limit and what to do.
func TestSweepOverMaxPayload(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "nats.conf")
	if err := os.WriteFile(conf, []byte("max_payload: 262144\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f := NewWithServer(t, Settings(), broker.ServerConfig{ConfigFile: conf})
	c := f.StartCoordinator("coord")
	if got := c.Farm.NC.MaxPayload(); got != 262144 {
		t.Fatalf("server max_payload %d", got)
	}
	suite := writeBundle(t, dir, 300<<10)
	sf, err := sweep.Load(suite, f.Registry)
	if err != nil {
		t.Fatal(err)
	}
	req := coordinator.SubmitRequest{File: suite, Text: string(sf.Text)}
	checkMsg := func(what string, err error) {
		t.Helper()
		var pe *coordinator.PayloadError
		if !errors.As(err, &pe) {
			t.Fatalf("%s: %v, want a PayloadError", what, err)
		}
		t.Logf("%s: %v", what, err)
		for _, want := range []string{suite, "KiB", "262144 bytes", "max_payload", "split the sweep"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: %q does not say %q", what, err, want)
			}
		}
	}
	checkMsg("check", coordinator.CheckSubmitSize(req, len(sf.Sweeps), c.Farm.NC.MaxPayload()))
	_, err = c.Submit(context.Background(), req)
	checkMsg("coordinator", err)
	cl := &coordinator.Client{Farm: f.Connect("client"), RequestTimeout: eventWait}
	_, err = cl.Submit(context.Background(), req)
	checkMsg("client", err)
	// A submission that fits one message but leaves less room than its run
	// record needs besides the sweep (its other fields, and the packing
	// choice stored per sweep once decided): refused by the coordinator,
	// before a record that could not be updated is stored.
	near := writeBundle(t, filepath.Join(dir, "near"), 262144-2048)
	nf, err := sweep.Load(near, f.Registry)
	if err != nil {
		t.Fatal(err)
	}
	nreq := coordinator.SubmitRequest{File: near, Text: string(nf.Text), Run: coordinator.NewRunID()}
	if data, _ := json.Marshal(nreq); len(data) >= 262144 {
		t.Fatalf("near-limit request of %d bytes", len(data))
	}
	raw, _ := json.Marshal(nreq)
	msg, err := cl.Farm.NC.Request(cl.Farm.Names.APISubject("submit"), raw, eventWait)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(msg.Data), "max_payload") || !strings.Contains(string(msg.Data), "split the sweep") {
		t.Fatalf("near-limit submission: reply %.300s, want refused for max_payload", msg.Data)
	}
	if keys := runKeys(t, c.Farm); len(keys) != 0 {
		t.Fatalf("run records %v after refused submissions", keys)
	}
	if n := queued(t, c.Farm); n != 0 {
		t.Fatalf("%d jobs queued after refused submissions", n)
	}
}

// writeBundle writes a suite that includes two sweep files, one of them
// with a doc of about docBytes, and returns the suite's path.
func writeBundle(t *testing.T, dir string, docBytes int) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("small.yaml", benchSweep("small", 2, 1, 0, ""))
	write("big.yaml", fmt.Sprintf("name: big\nmodel: bench\nseed: 3\ndoc: %s\nparams: {work_ms: 0}\n", strings.Repeat("x", docBytes)))
	return write("suite.yaml", "include: [small.yaml, big.yaml]\n")
}

// TestSubmitReplyDeadline: a coordinator that answers pings but never
// answers a submission (stuck) makes Client.Submit give up at its
// deadline with a NoAnswerError naming the request, its subject, how long
// it waited and the run it was for.
func TestSubmitReplyDeadline(t *testing.T) {
	f := New(t, Settings())
	stub := f.ConnectCoordinator("stub") // creates the farm's streams, as a coordinator would
	sub, err := stub.NC.Subscribe(stub.Names.APIAll(), func(m *nats.Msg) {
		if m.Subject == stub.Names.APISubject("ping") {
			_ = m.Respond([]byte(`{"result":{"coordinator":"stuck"}}`))
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	cl := &coordinator.Client{Farm: f.Connect("client"), RequestTimeout: time.Second, CoordinatorTimeout: 2 * time.Second,
		SubmitTimeout: 2 * time.Second, PingEvery: 200 * time.Millisecond}
	start := time.Now()
	_, err = cl.Submit(context.Background(), coordinator.SubmitRequest{File: "stuck.yaml", Text: benchSweep("stuck", 2, 1, 0, "")})
	took := time.Since(start)
	var na *coordinator.NoAnswerError
	if !errors.As(err, &na) || na.Verb != "submit" || na.Subject != stub.Names.APISubject("submit") || na.Run == "" || na.NotSent {
		t.Fatalf("err = %v (%#v), want a NoAnswerError for the submission", err, na)
	}
	if took < 2*time.Second || took > eventWait {
		t.Fatalf("gave up after %v, want at its 2-s deadline (a loaded machine may take longer)", took)
	}
	for _, want := range []string{"submit: the farm did not answer in time", "schedfarm.api.submit", "deadline of 2s", na.Run} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not say %q", err, want)
		}
	}
}

// TestSubmitResentAfterCoordinatorStops: a coordinator that stops while it
// publishes a submission (its context ends: the run is left "publishing")
// is seen gone by the client's pings; the next coordinator gets the same
// submission and answers with the same run, which it completes.
func TestSubmitResentAfterCoordinatorStops(t *testing.T) {
	f := New(t, Settings())
	// With no worker running, its packing probe waits for results until
	// it is stopped (an hour's ProbeWait, not the default second).
	c1 := f.StartCoordinatorWith("coord1", coordinator.Config{Packing: coordinator.Packing{Mode: coordinator.PackAuto, ProbeWait: time.Hour}})
	var notes []string
	var mu sync.Mutex
	cl := &coordinator.Client{Farm: f.Connect("client"), RequestTimeout: 5 * time.Second, CoordinatorTimeout: eventWait,
		PingEvery: 100 * time.Millisecond, Notify: func(s string) { mu.Lock(); notes = append(notes, s); mu.Unlock() }}
	// No worker runs: the packing probe waits for results, so the
	// submission is still being worked on when coord1 stops.
	done := submitAsync(cl.Submit, coordinator.SubmitRequest{File: "resent.yaml", Text: benchSweep("resent", 50, 2, 0, "")})
	waitFor(t, "the submission's run record", func() bool { return len(runKeys(t, c1.Farm)) > 0 })
	run := runKeys(t, c1.Farm)[0]
	c1.Stop()
	f.StartWorkers(2, "w", worker.Config{})
	c2 := f.StartCoordinator("coord2")
	r := awaitSubmitted(t, done, "coord2's start")
	if r.err != nil || r.rep.Run != run || !r.rep.Existing {
		t.Fatalf("submission after coord1 stopped: %+v %v, want run %s", r.rep, r.err, run)
	}
	mu.Lock()
	t.Logf("notes: %q", notes)
	if len(notes) == 0 || !strings.Contains(strings.Join(notes, "\n"), "coordinator coord1 stopped before answering the submission of run "+run) {
		t.Errorf("the client did not say coord1 stopped")
	}
	mu.Unlock()
	if p := WaitRun(t, c2.Coordinator, run, eventWait); p.Done != 100 || p.Failed != 0 {
		t.Fatalf("progress %+v", p)
	}
	if keys := runKeys(t, c2.Farm); len(keys) != 1 {
		t.Fatalf("run records %v, want one", keys)
	}
}
