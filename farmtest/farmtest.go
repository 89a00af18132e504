// Package farmtest starts a real farm for tests and benchmarks: an embedded
// NATS server with JetStream on a random loopback port, a coordinator and
// in-process workers, each with its own connection.
package farmtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"schedfarm/broker"
	"schedfarm/coordinator"
	"schedfarm/internal/datatest"
	"schedfarm/results"
	"schedfarm/simcore"
	"schedfarm/simcore/batch"
	"schedfarm/simcore/bench"
	"schedfarm/simcore/divisible"
	"schedfarm/worker"
)

// Farm is a running test farm.
type Farm struct {
	TB       testing.TB
	Server   *server.Server
	Registry *simcore.Registry
	Settings broker.Settings
	Dir      string
	// InProcess connects through in-memory pipes instead of loopback TCP.
	InProcess bool
	// Auth, when set, adds credentials or TLS to every connection.
	Auth func(*broker.ConnConfig)
	// Logger receives the farm's logs (warnings and errors; every level
	// from SCHEDFARM_TEST_LOG, e.g. debug, up): they go into Logs, not to
	// the terminal, so that the errors a test provokes on purpose (a
	// malformed message rejected, a full store) do not read as failures.
	// A test asserts on them in Logs; they are shown, through the test's
	// log, only when the test fails.
	Logger *slog.Logger
	// Logs holds what Logger wrote.
	Logs *SyncBuffer
	// sc is the server's configuration, for RestartServer.
	sc broker.ServerConfig
}

// testLogger returns a logger into a new buffer, which is written to tb's
// log when tb fails.
func testLogger(tb testing.TB) (*slog.Logger, *SyncBuffer) {
	level := slog.LevelWarn
	if os.Getenv("SCHEDFARM_TEST_LOG") != "" {
		_ = level.UnmarshalText([]byte(os.Getenv("SCHEDFARM_TEST_LOG")))
	}
	logs := &SyncBuffer{}
	tb.Cleanup(func() {
		if tb.Failed() && logs.Len() > 0 {
			tb.Logf("--- the farm's logs:\n%s", logs.String())
		}
	})
	return slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: level})), logs
}

// New starts an embedded server with file storage in a temporary directory.
// It is shut down when the test ends.
func New(tb testing.TB, s broker.Settings) *Farm {
	tb.Helper()
	return NewWithServer(tb, s, broker.ServerConfig{})
}

// NewWithServer is New with a server configuration (a config file with
// accounts, credentials, TLS); its port and store dir are always chosen here.
func NewWithServer(tb testing.TB, s broker.Settings, sc broker.ServerConfig) *Farm {
	tb.Helper()
	dir := tb.TempDir()
	sc.Port, sc.StoreDir = -1, filepath.Join(dir, "nats")
	ns, err := broker.StartServer(sc)
	if err != nil {
		tb.Fatal(err)
	}
	f := &Farm{TB: tb, Server: ns, Settings: s, Dir: dir, sc: sc}
	f.Logger, f.Logs = testLogger(tb)
	tb.Cleanup(func() {
		f.Server.Shutdown()
		f.Server.WaitForShutdown()
	})
	reg, err := simcore.NewRegistry(bench.New(), divisible.New(), batch.New(datatest.Data(tb)))
	if err != nil {
		tb.Fatal(err)
	}
	f.Registry = reg
	return f
}

// StoreDir is the server's JetStream store directory.
func (f *Farm) StoreDir() string { return f.sc.StoreDir }

// RestartServer shuts the farm's server down, calls between (if not nil)
// while it is down, so that its store's files can be changed, and starts
// it again on the same port and store. Connections made before reconnect
// by themselves.
func (f *Farm) RestartServer(between func(storeDir string)) {
	f.TB.Helper()
	addr, ok := f.Server.Addr().(*net.TCPAddr)
	if !ok {
		f.TB.Fatalf("server address %v", f.Server.Addr())
	}
	f.Server.Shutdown()
	f.Server.WaitForShutdown()
	if between != nil {
		between(f.sc.StoreDir)
	}
	sc := f.sc
	sc.Port = addr.Port
	ns, err := broker.StartServer(sc)
	if err != nil {
		f.TB.Fatal(err)
	}
	f.Server = ns
}

// Settings returns queue settings suited to tests: short ack wait and
// dedup window, few deliveries.
func Settings() broker.Settings {
	s := broker.DefaultSettings()
	s.AckWait = 2 * time.Second
	s.MaxDeliver = 3
	s.LeaseTTL = 2 * time.Second
	return s
}

// dial opens a new connection to the farm's server.
func (f *Farm) dial(name string) *nats.Conn {
	f.TB.Helper()
	cc := broker.ConnConfig{URL: f.Server.ClientURL(), Name: name, Logger: f.Logger}
	if f.InProcess {
		cc.InProcess = f.Server
	}
	if f.Auth != nil {
		f.Auth(&cc)
	}
	nc, err := broker.Connect(cc)
	if err != nil {
		f.TB.Fatal(err)
	}
	f.TB.Cleanup(nc.Close)
	return nc
}

// Connect opens a new connection and binds to the farm's resources as a
// worker or a client does (broker.Bind): a coordinator must have created
// them, or do so within 20 s.
func (f *Farm) Connect(name string) *broker.Farm {
	f.TB.Helper()
	nc := f.dial(name)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	bf, err := broker.Bind(ctx, nc, f.Settings.Prefix, broker.BindOptions{Logger: f.Logger, Poll: 50 * time.Millisecond})
	if err != nil {
		f.TB.Fatal(err)
	}
	return bf
}

// ConnectCoordinator opens a new connection and creates the farm's
// missing resources with the farm's Settings, as a coordinator does
// (broker.Create).
func (f *Farm) ConnectCoordinator(name string) *broker.Farm {
	f.TB.Helper()
	nc := f.dial(name)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	bf, err := broker.Create(ctx, nc, f.Settings)
	if err != nil {
		f.TB.Fatal(err)
	}
	return bf
}

// Coordinator is a running coordinator; Stop ends it.
type Coordinator struct {
	*coordinator.Coordinator
	Farm   *broker.Farm
	cancel context.CancelFunc
}

// Stop stops the coordinator and waits for it.
func (c *Coordinator) Stop() {
	c.cancel()
	_ = c.Wait()
	c.Farm.NC.Close()
}

// StartCoordinator starts a coordinator on its own connection.
func (f *Farm) StartCoordinator(name string) *Coordinator {
	f.TB.Helper()
	return f.StartCoordinatorWith(name, coordinator.Config{})
}

// StartCoordinatorWith starts a coordinator with a configuration (its
// name, registry and logger are the farm's).
func (f *Farm) StartCoordinatorWith(name string, cfg coordinator.Config) *Coordinator {
	f.TB.Helper()
	bf := f.ConnectCoordinator(name)
	cfg.Name, cfg.Registry, cfg.Logger = name, f.Registry, f.Logger
	c, err := coordinator.New(bf, cfg)
	if err != nil {
		f.TB.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	if err := c.Start(ctx); err != nil {
		cancel()
		f.TB.Fatal(err)
	}
	co := &Coordinator{Coordinator: c, Farm: bf, cancel: cancel}
	f.TB.Cleanup(co.cancel)
	return co
}

// Workers are running workers; Stop ends them gracefully.
type Workers struct {
	List   []*worker.Worker
	Farms  []*broker.Farm
	cancel context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex
	Errs   []error
}

// Stop cancels the workers and waits for them.
func (w *Workers) Stop() {
	w.cancel()
	w.wg.Wait()
}

// StartWorkers starts n workers named prefix-i.
func (f *Farm) StartWorkers(n int, prefix string, base worker.Config) *Workers {
	f.TB.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ws := &Workers{cancel: cancel}
	for i := 0; i < n; i++ {
		bf := f.Connect(fmt.Sprintf("%s-%d", prefix, i))
		cfg := base
		cfg.Name = fmt.Sprintf("%s-%d", prefix, i)
		cfg.Registry = f.Registry
		cfg.Logger = f.Logger
		cfg.Provenance = results.Provenance{Version: "test", VCSRevision: "test", VCSModified: "false", GoVersion: "test"}
		w, err := worker.New(bf, cfg)
		if err != nil {
			f.TB.Fatal(err)
		}
		ws.List = append(ws.List, w)
		ws.Farms = append(ws.Farms, bf)
		ws.wg.Add(1)
		go func() {
			defer ws.wg.Done()
			if err := w.Run(ctx); err != nil {
				ws.mu.Lock()
				ws.Errs = append(ws.Errs, err)
				ws.mu.Unlock()
			}
		}()
	}
	f.TB.Cleanup(ws.Stop)
	return ws
}

// WaitRun polls a run's progress until it finishes or the timeout passes.
func WaitRun(tb testing.TB, c *coordinator.Coordinator, run string, timeout time.Duration) *coordinator.RunProgress {
	tb.Helper()
	deadline := time.Now().Add(timeout)
	for {
		p, err := c.Progress(context.Background(), run)
		if err != nil {
			tb.Fatal(err)
		}
		if p.Finished() {
			return p
		}
		if time.Now().After(deadline) {
			tb.Fatalf("run %s not finished after %v: %+v", run, timeout, *p)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// SyncBuffer is a bytes.Buffer that goroutines (a farm's loggers, a
// command's output) may write into while the test reads it.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String returns what was written so far.
func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// Len returns the number of bytes written so far.
func (s *SyncBuffer) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Len()
}

// GetJSON decodes the JSON document served at url (a status page's
// /status.json) into out.
func GetJSON(url string, out any) error {
	resp, err := http.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("GET %s: %w", url, err)
	}
	return nil
}

// FreePort returns a loopback TCP port nothing listens on now, for a
// server process that must be told its port (another process may take it
// before the server binds it: a test that fails so fails at start-up).
func FreePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
