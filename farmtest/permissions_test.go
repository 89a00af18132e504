package farmtest

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"schedfarm/broker"
	"schedfarm/coordinator"
	"schedfarm/worker"
)

// rolesConfig returns docs/cluster.md's per-role permissions: the conf
// block that starts with "# Per-role permissions".
func rolesConfig(t *testing.T) string {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join("..", "docs", "cluster.md"))
	if err != nil {
		t.Fatal(err)
	}
	const start = "```conf\n# Per-role permissions"
	i := strings.Index(string(doc), start)
	if i < 0 {
		t.Fatalf("docs/cluster.md has no block starting %q", start)
	}
	block := string(doc[i+len("```conf\n"):])
	end := strings.Index(block, "```")
	if end < 0 {
		t.Fatal("the permissions block of docs/cluster.md does not end")
	}
	return block[:end]
}

// refusals collects a connection's permission violations.
type refusals struct {
	mu   sync.Mutex
	seen []string
	more chan struct{}
}

func (r *refusals) handler(_ *nats.Conn, _ *nats.Subscription, err error) {
	r.mu.Lock()
	r.seen = append(r.seen, err.Error())
	r.mu.Unlock()
	select {
	case r.more <- struct{}{}:
	default:
	}
}

// has reports whether a violation naming subject was seen (a subject
// ending in "." stands for every subject it starts).
func (r *refusals) has(subject string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	want := "Permissions Violation for Publish to \"" + subject
	if !strings.HasSuffix(subject, ".") {
		want += "\""
	}
	for _, s := range r.seen {
		if strings.Contains(s, want) {
			return true
		}
	}
	return false
}

// denied runs fn (which publishes to subject) until the server reports
// the publication as a permissions violation, then stops it; fn must
// fail. The server's answer is the event waited for; a minute bounds it.
func (r *refusals) denied(t *testing.T, what, subject string, fn func(ctx context.Context) error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- fn(ctx) }()
	bound := time.After(eventWait)
	for !r.has(subject) {
		select {
		case <-r.more:
		case err := <-done:
			if err == nil {
				t.Fatalf("%s: allowed", what)
			}
			if r.has(subject) {
				return
			}
			t.Fatalf("%s: failed with %v, not for permissions on %s", what, err, subject)
		case <-bound:
			t.Fatalf("%s: no permissions violation on %s after %v (seen: %v)", what, subject, eventWait, r.seen)
		}
	}
	cancel()
	if err := <-done; err == nil {
		t.Fatalf("%s: refused by the server, yet it succeeded", what)
	}
}

// TestPerRolePermissions: docs/cluster.md's per-role permissions let a
// coordinator, workers and a client run, collect and invalidate a sweep,
// and refuse a worker and a client what their role does not need.
func TestPerRolePermissions(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "nats.conf")
	if err := os.WriteFile(conf, []byte(rolesConfig(t)), 0o600); err != nil {
		t.Fatal(err)
	}
	pw := map[string]string{"coordinator": "c-pw-71", "worker": "w-pw-72", "client": "k-pw-73"}
	for user, p := range pw {
		t.Setenv("SCHEDFARM_"+strings.ToUpper(user)+"_PASSWORD", p)
	}
	var serverLog SyncBuffer
	f := NewWithServer(t, Settings(), broker.ServerConfig{ConfigFile: conf,
		Logger: slog.New(slog.NewTextHandler(&serverLog, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	as := func(user string) {
		f.Auth = func(cc *broker.ConnConfig) { cc.User, cc.Password = user, pw[user] }
	}
	as("coordinator")
	c := f.StartCoordinator("coord")
	as("worker")
	f.StartWorkers(2, "w", worker.Config{})
	as("client")
	cl := f.Connect("client")
	ctx := context.Background()

	// A sweep submitted, collected and one part invalidated by the client;
	// one of its jobs fails (error reports, a failure record).
	text := `sweeps:
  - name: roles
    model: bench
    seed: 7
    replicates: 2
    params: {work_ms: 0, rows: 2}
    axes:
      - zip:
          size: [1, 2, 3, 4, 5, 6]
          fail: [never, never, never, never, never, error]
`
	client := &coordinator.Client{Farm: cl}
	rep, err := client.Submit(ctx, coordinator.SubmitRequest{File: "roles.yaml", Text: text})
	if err != nil {
		t.Fatal(err)
	}
	WaitRun(t, c.Coordinator, rep.Run, eventWait)
	out, err := coordinator.Collect(ctx, cl, f.Registry, rep.Run, coordinator.CollectOptions{
		ResultsDir: filepath.Join(f.Dir, "results"), Provenance: testProvenance(),
	})
	if err != nil {
		t.Fatalf("the client's collection: %v", err)
	}
	if out[0].OK != 10 || out[0].Failed != 2 {
		t.Fatalf("collected %+v, want 10 ok and 2 failed", out[0].Collected)
	}
	key, rec := firstPart(t, cl, rep.Run)
	if marked, _, err := coordinator.InvalidateParts(ctx, cl, rep.Run, []string{rec.Part}, "test", "client"); err != nil || marked != 1 {
		t.Fatalf("the client's invalidation: %d marked, %v", marked, err)
	}

	if strings.Contains(serverLog.String(), "Violation") {
		t.Fatalf("the server refused the farm something its role needs:\n%s", serverLog.String())
	}

	// What a worker may not do.
	dial := func(user string) (*nats.Conn, jetstream.JetStream, *refusals) {
		r := &refusals{more: make(chan struct{}, 1)}
		nc, err := nats.Connect(f.Server.ClientURL(), nats.UserInfo(user, pw[user]), nats.ErrorHandler(r.handler))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(nc.Close)
		js, err := jetstream.New(nc)
		if err != nil {
			t.Fatal(err)
		}
		return nc, js, r
	}
	wnc, wjs, wr := dial("worker")
	done, err := wjs.KeyValue(ctx, "SCHEDFARM_DONE")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := done.Put(ctx, key, []byte(`{}`)); err == nil || !strings.Contains(err.Error(), "maximum messages per subject exceeded") {
		t.Errorf("a worker's put over a registry entry: %v, want the server's refusal", err)
	}
	wr.denied(t, "a worker's invalidation marker", "$KV.SCHEDFARM_DONE."+key+".invalid", func(ctx context.Context) error {
		_, err := done.Create(ctx, key+".invalid", []byte(`{}`))
		return err
	})
	reg, err := wjs.Stream(ctx, "KV_SCHEDFARM_DONE")
	if err != nil {
		t.Fatal(err)
	}
	wr.denied(t, "a worker's purge of the registry", "$JS.API.STREAM.PURGE.KV_SCHEDFARM_DONE", func(ctx context.Context) error {
		return reg.Purge(ctx)
	})
	wr.denied(t, "a worker's update of the registry", "$JS.API.STREAM.UPDATE.KV_SCHEDFARM_DONE", func(ctx context.Context) error {
		cfg := reg.CachedInfo().Config
		cfg.DiscardNewPerSubject, cfg.AllowRollup = false, true
		_, err := wjs.UpdateStream(ctx, cfg)
		return err
	})
	wr.denied(t, "a worker's deletion of the registry", "$JS.API.STREAM.DELETE.KV_SCHEDFARM_DONE", func(ctx context.Context) error {
		return wjs.DeleteStream(ctx, "KV_SCHEDFARM_DONE")
	})
	wr.denied(t, "a worker's request to the coordinator", "schedfarm.api.cancel", func(ctx context.Context) error {
		_, err := wnc.RequestWithContext(ctx, "schedfarm.api.cancel", []byte(`{"run":"`+rep.Run+`"}`))
		return err
	})

	// What a client may not do.
	_, kjs, kr := dial("client")
	kdone, err := kjs.KeyValue(ctx, "SCHEDFARM_DONE")
	if err != nil {
		t.Fatal(err)
	}
	kr.denied(t, "a client's registry entry", "$KV.SCHEDFARM_DONE."+rep.Run+".forged", func(ctx context.Context) error {
		_, err := kdone.Create(ctx, rep.Run+".forged", []byte(`{}`))
		return err
	})
	kr.denied(t, "a client's job", "schedfarm.jobs."+rep.Run, func(ctx context.Context) error {
		_, err := kjs.Publish(ctx, "schedfarm.jobs."+rep.Run, []byte(`{}`))
		return err
	})
	parts, err := kjs.ObjectStore(ctx, "SCHEDFARM_PARTS")
	if err != nil {
		t.Fatal(err)
	}
	kr.denied(t, "a client's part object", "$O.SCHEDFARM_PARTS.C.", func(ctx context.Context) error {
		_, err := parts.PutBytes(ctx, rep.Run+"/forged/jobs.parquet", []byte("x"))
		return err
	})
	if !strings.Contains(serverLog.String(), "Violation") {
		t.Error("the server logged none of the refusals: the check of the legitimate run above sees nothing")
	}
	if p := WaitRun(t, c.Coordinator, rep.Run, eventWait); p.Status != "complete" {
		t.Errorf("the run after the refusals: %+v", p)
	}
}
