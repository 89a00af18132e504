package bench

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"schedfarm/simcore"
	"schedfarm/simcore/modeltest"
)

func params(t *testing.T, p simcore.Params) simcore.Params {
	t.Helper()
	s := New().Schema()
	full, err := s.Complete(p)
	if err != nil {
		t.Fatal(err)
	}
	return full
}

func TestRunIsDeterministicAndValid(t *testing.T) {
	m := New()
	p := params(t, simcore.Params{"work_ms": 0.5, "rows": int64(7), "size": int64(3)})
	a := modeltest.RoundTrip(t, m, p, 42)
	if got := a.Tables["samples"].Len(); got != 7 {
		t.Errorf("samples rows = %d, want 7", got)
	}
	if a.Metrics["iterations"].(int64) != ItersPerMs/2 {
		t.Errorf("iterations = %v", a.Metrics["iterations"])
	}
	c, _ := m.Run(context.Background(), p, 43)
	if c.Metrics["checksum"] == a.Metrics["checksum"] {
		t.Error("checksum does not depend on the seed")
	}
	p2 := params(t, simcore.Params{"work_ms": 0.5, "rows": int64(7), "size": int64(3), "variant": "b"})
	d, _ := m.Run(context.Background(), p2, 42)
	if d.Metrics["checksum"] == a.Metrics["checksum"] {
		t.Error("checksum does not depend on the variant")
	}
	if d.Metrics["value"] != a.Metrics["value"] {
		t.Error("value (instance) depends on the variant")
	}
}

func TestFailureModes(t *testing.T) {
	m := New()
	_, err := m.Run(context.Background(), params(t, simcore.Params{"fail": "error"}), 1)
	if !errors.Is(err, ErrRequested) {
		t.Fatalf("err = %v", err)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("fail=panic did not panic")
		}
	}()
	_, _ = m.Run(context.Background(), params(t, simcore.Params{"fail": "panic"}), 1)
}

func TestRunStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := New().Run(ctx, params(t, simcore.Params{"work_ms": 60_000.0}), 1)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

// TestCalibration logs how long one requested millisecond takes here; it
// asserts nothing about time (machines are noisy) but shows drift in -v runs.
func TestCalibration(t *testing.T) {
	p := params(t, simcore.Params{"work_ms": 50.0})
	start := time.Now()
	if _, err := New().Run(context.Background(), p, 1); err != nil {
		t.Fatal(err)
	}
	t.Logf("work_ms=50 took %v on this machine", time.Since(start))
}

func BenchmarkModel_Bench1ms(b *testing.B) {
	m := New()
	s := m.Schema()
	p, _ := s.Complete(simcore.Params{"work_ms": 1.0})
	for i := 0; i < b.N; i++ {
		if _, err := m.Run(context.Background(), p, uint64(i)); err != nil {
			b.Fatal(err)
		}
	}
}

// TestWaitVariantHoldsUntilFile: a job of variant wait:FILE is held until
// FILE exists, stops with its context while held, and then gives the
// result any job of that variant gives (the wait changes no result).
func TestWaitVariantHoldsUntilFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "release")
	p := params(t, simcore.Params{"work_ms": 0.1, "rows": int64(2), "variant": WaitPrefix + file})
	m := New()

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := m.Run(ctx, p, 9); !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), file) {
		t.Fatalf("a held job whose context ends: err = %v, want context.Canceled naming %s", err, file)
	}

	type out struct {
		res *simcore.Result
		err error
	}
	done := make(chan out, 1)
	go func() {
		res, err := m.Run(context.Background(), p, 9)
		done <- out{res, err}
	}()
	select {
	case o := <-done:
		t.Fatalf("returned (%v) before %s existed", o.err, file)
	case <-time.After(50 * time.Millisecond): // a wrong early return shows here on a quiet machine
	}
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	var o out
	select {
	case o = <-done:
	case <-time.After(time.Minute):
		t.Fatalf("still held a minute after %s was created", file)
	}
	if o.err != nil {
		t.Fatal(o.err)
	}
	again := modeltest.RoundTrip(t, m, p, 9) // the file exists: no wait
	if o.res.Metrics["checksum"] != again.Metrics["checksum"] || o.res.Metrics["value"] != again.Metrics["value"] {
		t.Errorf("held run %v, unheld run %v: the wait changed the result", o.res.Metrics, again.Metrics)
	}

	if _, err := m.Run(context.Background(), params(t, simcore.Params{"variant": WaitPrefix}), 1); err == nil || !strings.Contains(err.Error(), "names no file") {
		t.Errorf("variant %q: err = %v, want one saying it names no file", WaitPrefix, err)
	}
}
