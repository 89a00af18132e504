package broker_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"schedfarm/broker"
)

// server starts an embedded server on a random loopback port and returns
// a connection to it.
func server(t *testing.T) *nats.Conn {
	t.Helper()
	ns, err := broker.StartServer(broker.ServerConfig{Port: -1, StoreDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ns.Shutdown()
		ns.WaitForShutdown()
	})
	nc, err := broker.Connect(broker.ConnConfig{URL: ns.ClientURL(), Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}

type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestBindWaitsAndChangesNothing: Bind, before any coordinator, creates
// nothing and waits, saying so once; once a coordinator has created the
// farm it returns the coordinator's settings, read from the consumer. A
// later Bind, and a Create with other settings (a coordinator that does
// not hold the lease yet), leave the consumer as it was; only Apply
// changes it.
func TestBindWaitsAndChangesNothing(t *testing.T) {
	nc := server(t)
	ctx := context.Background()
	var logs logBuffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	type result struct {
		f   *broker.Farm
		err error
	}
	bound := make(chan result, 1)
	go func() {
		f, err := broker.Bind(ctx, nc, "lab-a", broker.BindOptions{Logger: log, Poll: 20 * time.Millisecond})
		bound <- result{f, err}
	}()
	time.Sleep(300 * time.Millisecond)
	select {
	case r := <-bound:
		t.Fatalf("Bind returned before any coordinator: %v", r.err)
	default:
	}
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	for name := range js.StreamNames(ctx).Name() {
		t.Fatalf("Bind created stream %s", name)
	}
	s := broker.DefaultSettings()
	s.Prefix, s.AckWait, s.MaxDeliver = "lab-a", 10*time.Second, 3
	coord, err := broker.Create(ctx, nc, s)
	if err != nil {
		t.Fatal(err)
	}
	var r result
	select {
	case r = <-bound:
	case <-time.After(2 * time.Minute):
		t.Fatal("Bind still waiting 2 min after the farm was created")
	}
	if r.err != nil {
		t.Fatal(r.err)
	}
	if got := r.f.Settings; got.AckWait != 10*time.Second || got.MaxDeliver != 3 || got.Prefix != "lab-a" || got.LeaseTTL != s.LeaseTTL {
		t.Fatalf("bound settings %+v, want the coordinator's", got)
	}
	if n := strings.Count(logs.String(), "waiting for a coordinator to create the farm's streams (prefix lab-a)"); n != 1 {
		t.Fatalf("the wait was logged %d times, want once:\n%s", n, logs.String())
	}
	consumer := func() jetstream.ConsumerConfig {
		t.Helper()
		info, err := coord.Workers.Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return info.Config
	}
	before := consumer()
	// Another coordinator's Create, with other settings, before it holds
	// the lease: nothing changes.
	other := s
	other.AckWait, other.MaxDeliver = time.Second, 1
	if _, err := broker.Create(ctx, nc, other); err != nil {
		t.Fatal(err)
	}
	if _, err := broker.Bind(ctx, nc, "lab-a", broker.BindOptions{Logger: log}); err != nil {
		t.Fatal(err)
	}
	if after := consumer(); after.AckWait != before.AckWait || after.MaxDeliver != before.MaxDeliver {
		t.Fatalf("consumer changed from ack wait %v, max deliver %d to %v, %d", before.AckWait, before.MaxDeliver, after.AckWait, after.MaxDeliver)
	}
	// The lease holder's Apply sets them.
	coord.Settings.AckWait = 20 * time.Second
	if err := coord.Apply(ctx); err != nil {
		t.Fatal(err)
	}
	if after := consumer(); after.AckWait != 20*time.Second {
		t.Fatalf("Apply left ack wait %v", after.AckWait)
	}
	// A client bounded by a timeout gives up with the reason.
	tctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	_, err = broker.Bind(tctx, nc, "lab-z", broker.BindOptions{Logger: log, Poll: 20 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "waiting for a coordinator to create the farm's streams (prefix lab-z)") ||
		!errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Bind of a farm nobody creates: err = %v", err)
	}
}

// TestForeignResourcesRefused: a stream or bucket under the farm's name
// that records another prefix is refused by Create and Bind, with both
// prefixes named; so is a job stream an earlier schedfarm made for
// another prefix (no record, another prefix's subjects), which is what the
// old names left behind when two prefixes differed only in case or in '-'
// against '_'.
func TestForeignResourcesRefused(t *testing.T) {
	nc := server(t)
	ctx := context.Background()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	s := broker.DefaultSettings()
	s.Prefix = "lab-a"
	f, err := broker.Create(ctx, nc, s)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Apply(ctx); err != nil {
		t.Fatal(err)
	}
	// Mark the runs bucket as another farm's.
	kv, err := js.KeyValue(ctx, f.Names.RunsBucket)
	if err != nil {
		t.Fatal(err)
	}
	st, err := kv.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cfg := st.Config()
	cfg.Metadata = map[string]string{broker.MetaPrefix: "lab-b"}
	if _, err := js.UpdateKeyValue(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	for what, err := range map[string]error{
		"Create": func() error { _, err := broker.Create(ctx, nc, s); return err }(),
		"Bind":   func() error { _, err := broker.Bind(ctx, nc, "lab-a", broker.BindOptions{}); return err }(),
		"Apply":  f.Apply(ctx),
	} {
		if !errors.Is(err, broker.ErrForeign) || !strings.Contains(err.Error(), `"lab-b"`) || !strings.Contains(err.Error(), `"lab-a"`) {
			t.Errorf("%s over another farm's bucket: err = %v", what, err)
		}
	}

	// A job stream of an earlier schedfarm, made for prefix lab_b under
	// the name that is now lab-b's.
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "LAB_B_JOBS", Subjects: []string{"lab_b.jobs.>"},
		Retention: jetstream.WorkQueuePolicy}); err != nil {
		t.Fatal(err)
	}
	s.Prefix = "lab-b"
	_, err = broker.Create(ctx, nc, s)
	if !errors.Is(err, broker.ErrForeign) || !strings.Contains(err.Error(), "lab_b.jobs.>") {
		t.Fatalf("Create over an earlier lab_b's stream: err = %v", err)
	}
	t.Logf("lab-b's coordinator over an earlier lab_b's stream: %v", err)
	if _, err := broker.Bind(ctx, nc, "lab-b", broker.BindOptions{}); !errors.Is(err, broker.ErrForeign) {
		t.Fatalf("Bind over an earlier lab_b's stream: err = %v", err)
	}
	// lab_b itself now has names of its own.
	// lab_b itself now has names of its own, but the earlier stream holds
	// its subjects: its coordinator says so rather than start.
	s.Prefix = "lab_b"
	_, err = broker.Create(ctx, nc, s)
	if !errors.Is(err, broker.ErrForeign) || !strings.Contains(err.Error(), "stream LAB_B_JOBS holds this farm's subjects") {
		t.Fatalf("Create of lab_b beside an earlier lab_b's stream: err = %v", err)
	}
	t.Logf("lab_b's coordinator beside an earlier lab_b's stream: %v", err)
	if err := js.DeleteStream(ctx, "LAB_B_JOBS"); err != nil {
		t.Fatal(err)
	}
	if _, err := broker.Create(ctx, nc, s); err != nil {
		t.Fatal(err)
	}
}

// TestEarlierFarmAdopted: resources an earlier schedfarm made (the same
// names for the default prefix, no prefix recorded) are this farm's: a
// worker waits for a coordinator of this version, whose Create keeps their
// contents and whose Apply records the prefix; then the worker binds.
func TestEarlierFarmAdopted(t *testing.T) {
	nc := server(t)
	ctx := context.Background()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	// What an earlier Setup made for prefix "schedfarm", with a run record.
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "SCHEDFARM_JOBS", Subjects: []string{"schedfarm.jobs.>"},
		Retention: jetstream.WorkQueuePolicy, Storage: jetstream.FileStorage, Duplicates: 10 * time.Minute, Discard: jetstream.DiscardNew}); err != nil {
		t.Fatal(err)
	}
	if _, err := js.CreateConsumer(ctx, "SCHEDFARM_JOBS", jetstream.ConsumerConfig{Durable: broker.WorkersName,
		AckPolicy: jetstream.AckExplicitPolicy, AckWait: 30 * time.Second, MaxDeliver: 5}); err != nil {
		t.Fatal(err)
	}
	for _, b := range []string{"SCHEDFARM_RUNS", "SCHEDFARM_DONE", "SCHEDFARM_FAILED", "SCHEDFARM_LOCKS"} {
		cfg := jetstream.KeyValueConfig{Bucket: b, History: 1}
		if b == "SCHEDFARM_LOCKS" {
			cfg.TTL = 10 * time.Second
		}
		kv, err := js.CreateKeyValue(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if b == "SCHEDFARM_RUNS" {
			if _, err := kv.Put(ctx, "run-1", []byte(`{"id":"run-1"}`)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := js.CreateObjectStore(ctx, jetstream.ObjectStoreConfig{Bucket: "SCHEDFARM_PARTS"}); err != nil {
		t.Fatal(err)
	}

	var logs logBuffer
	bound := make(chan error, 1)
	go func() {
		_, err := broker.Bind(ctx, nc, "", broker.BindOptions{Logger: slog.New(slog.NewTextHandler(&logs, nil)), Poll: 20 * time.Millisecond})
		bound <- err
	}()
	time.Sleep(300 * time.Millisecond)
	select {
	case err := <-bound:
		t.Fatalf("a worker bound to resources no coordinator of this version has claimed: %v", err)
	default:
	}
	if !strings.Contains(logs.String(), "waiting for a coordinator of this version to claim the farm's streams (prefix schedfarm)") {
		t.Fatalf("log:\n%s", logs.String())
	}
	f, err := broker.Create(ctx, nc, broker.DefaultSettings())
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Apply(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-bound:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("the worker still waits 2 min after the coordinator claimed the farm")
	}
	if e, err := f.Runs.Get(ctx, "run-1"); err != nil || string(e.Value()) != `{"id":"run-1"}` {
		t.Fatalf("the earlier run record: %v", err)
	}
	info, err := f.Jobs.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.Config.Metadata[broker.MetaPrefix] != "schedfarm" {
		t.Fatalf("stream metadata %v", info.Config.Metadata)
	}
}
