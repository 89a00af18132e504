package coordinator

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"schedfarm/broker"
	"schedfarm/simcore"
)

// logLines is a slog destination that the test reads line by line,
// told of every new line.
type logLines struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	more chan struct{}
}

func newLogLines() *logLines { return &logLines{more: make(chan struct{}, 1)} }

func (l *logLines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n, err := l.buf.Write(p)
	select {
	case l.more <- struct{}{}:
	default:
	}
	return n, err
}

func (l *logLines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// waitFor waits until the log holds s or done is closed; it reports
// whether the log holds s.
func (l *logLines) waitFor(s string, done <-chan struct{}) bool {
	for {
		if strings.Contains(l.String(), s) {
			return true
		}
		select {
		case <-l.more:
		case <-done:
			return strings.Contains(l.String(), s)
		}
	}
}

// leaseFarm starts an embedded server with file storage and creates a farm
// on it whose lease outlives the test (a TTL of ten minutes: no entry
// expires while a test looks at it).
func leaseFarm(t *testing.T) *broker.Farm {
	t.Helper()
	ns, err := broker.StartServer(broker.ServerConfig{Port: -1, StoreDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	nc, err := broker.Connect(broker.ConnConfig{URL: ns.ClientURL(), Name: "lease-test", InProcess: ns})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	s := broker.DefaultSettings()
	s.LeaseTTL = 10 * time.Minute
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	farm, err := broker.Create(ctx, nc, s)
	if err != nil {
		t.Fatal(err)
	}
	return farm
}

// exitedPID returns the PID of a process that has exited and been reaped.
func exitedPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// TestLeaseOfDeadHolder: a lease whose holder is a process of this machine
// that has ended (its PID unused, or reused by a process that started
// later) is taken at the first try, without the wait for its TTL; a live
// holder, one on another host, in another PID namespace, or one that does
// not say which process it is, is waited for.
func TestLeaseOfDeadHolder(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("a dead holder is recognised from Linux's /proc only; elsewhere its lease expires after its TTL (TestCoordinatorLease in farmtest)")
	}
	t.Parallel()
	host, _ := os.Hostname()
	boot, ns, start := selfProcess()
	if boot == "" {
		t.Fatal("selfProcess: no boot ID, PID namespace or start time from /proc")
	}
	ppid := os.Getppid()
	pstart, _, err := procStat(ppid)
	if err != nil {
		t.Fatal(err)
	}
	dead := exitedPID(t)
	base := holder{Name: "earlier", Host: host, Boot: boot, PIDNS: ns, Since: time.Now().UTC()}
	for _, c := range []struct {
		name  string
		h     func(h holder) holder
		taken bool
	}{
		{"exited", func(h holder) holder { h.PID, h.Start = dead, 1; return h }, true},
		{"PID reused", func(h holder) holder { h.PID, h.Start = os.Getpid(), start+1; return h }, true},
		{"alive", func(h holder) holder { h.PID, h.Start = ppid, pstart; return h }, false},
		{"this process", func(h holder) holder { h.PID, h.Start = os.Getpid(), start; return h }, false},
		{"another host", func(h holder) holder { h.PID, h.Start, h.Host = dead, 1, host+"-elsewhere"; return h }, false},
		{"another boot", func(h holder) holder {
			h.PID, h.Start, h.Boot = dead, 1, "00000000-0000-0000-0000-000000000000"
			return h
		}, false},
		{"another PID namespace", func(h holder) holder { h.PID, h.Start, h.PIDNS = dead, 1, "pid:[1]"; return h }, false},
		{"no process identity", func(h holder) holder { h.PID, h.Boot, h.PIDNS = dead, "", ""; return h }, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			farm := leaseFarm(t)
			h := c.h(base)
			val, err := json.Marshal(h)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			old, err := farm.Locks.Create(ctx, leaseKey, val)
			if err != nil {
				t.Fatal(err)
			}
			logs := newLogLines()
			coord, err := New(farm, Config{Name: "next", Registry: &simcore.Registry{}, Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo}))})
			if err != nil {
				t.Fatal(err)
			}
			sctx, stop := context.WithCancel(ctx)
			defer stop()
			started := make(chan error, 1)
			go func() { started <- coord.Start(sctx) }()
			var startErr error
			done := make(chan struct{})
			go func() { startErr = <-started; close(done) }()
			waited := logs.waitFor("waiting for the coordinator lease", done)
			if !c.taken {
				if !waited {
					<-done
					t.Fatalf("holder %+v: Start returned (%v) without waiting for the lease:\n%s", h, startErr, logs)
				}
				stop()
				<-done
				if !errors.Is(startErr, context.Canceled) {
					t.Fatalf("Start = %v after its context ended, want context.Canceled", startErr)
				}
				e, err := farm.Locks.Get(ctx, leaseKey)
				if err != nil || e.Revision() != old {
					t.Fatalf("the live holder's lease was replaced (%v):\n%s", err, logs)
				}
				return
			}
			if waited {
				stop()
				<-done
				t.Fatalf("waits for the lease of a dead holder %+v:\n%s", h, logs)
			}
			<-done
			if startErr != nil {
				t.Fatalf("Start: %v\n%s", startErr, logs)
			}
			if !strings.Contains(logs.String(), "took over the coordinator lease of a holder that died on this host") {
				t.Errorf("no line says the lease was taken over:\n%s", logs)
			}
			e, err := farm.Locks.Get(ctx, leaseKey)
			if err != nil {
				t.Fatal(err)
			}
			var now holder
			if err := json.Unmarshal(e.Value(), &now); err != nil || now.Name != "next" || now.PID != os.Getpid() || now.Start != start {
				t.Errorf("lease after the takeover: %s (%v), want the new coordinator's", e.Value(), err)
			}
			stop()
			if err := coord.Wait(); err != nil {
				t.Fatal(err)
			}
			// Stopped, it released the lease.
			if _, err := farm.Locks.Get(ctx, leaseKey); err == nil {
				t.Errorf("lease still held after the coordinator stopped")
			}
		})
	}
}

// TestProcStat reads this process's state and start time, and a command
// name with spaces and parentheses does not shift the fields.
func TestProcStat(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("Linux's /proc only")
	}
	start, state, err := procStat(os.Getpid())
	if err != nil || start == 0 || state != 'R' && state != 'S' {
		t.Fatalf("procStat(self) = %d, %q, %v", start, state, err)
	}
	if gone, why := processGone(os.Getpid(), start); gone {
		t.Fatalf("processGone(self) = true (%s)", why)
	}
	if gone, _ := processGone(os.Getpid(), start+1); !gone {
		t.Fatal("processGone(self, another start time) = false, want a reused PID")
	}
}

// TestReleaseAfterLandedRenewal: a coordinator that stops as a renewal
// reaches the server (its context ended, so it never saw the new
// revision) still releases its lease; an entry another holder wrote
// meanwhile is left alone.
func TestReleaseAfterLandedRenewal(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name     string
		other    bool // the entry moved on to another holder's value
		released bool
	}{
		{"own renewal landed", false, true},
		{"another holder's entry", true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			farm := leaseFarm(t)
			coord, err := New(farm, Config{Name: "me", Registry: &simcore.Registry{}})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			rev, err := coord.acquireLease(ctx)
			if err != nil {
				t.Fatal(err)
			}
			val := coord.leaseVal
			if c.other {
				val = []byte(`{"name":"other"}`)
			}
			if _, err := farm.Locks.Update(ctx, leaseKey, val, rev); err != nil { // behind the coordinator's back
				t.Fatal(err)
			}
			coord.releaseLease(rev)
			_, err = farm.Locks.Get(ctx, leaseKey)
			if gone := errors.Is(err, jetstream.ErrKeyNotFound); gone != c.released {
				t.Fatalf("after the release: Get = %v, want released %v", err, c.released)
			}
		})
	}
}
