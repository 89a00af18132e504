package farmtest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"schedfarm/coordinator"
	"schedfarm/simcore"
	"schedfarm/simcore/bench"
)

// eventWait bounds every wait of these tests for an event (a job held in
// flight, a result stored, a run finished): a test timeout that names what
// it waited for, never a verdict. Minutes, so that a loaded machine only
// makes a test slower.
const eventWait = 3 * time.Minute

// gate holds the jobs of a model in flight for an in-process farm: a held
// job's Run waits, without using CPU, until the test opens the gate or the
// job's context ends. It wraps the model under its own name, version and
// schema, so job identities and results are the real model's; a fault
// (a worker killed, a redelivery) is then triggered by the event of a job
// being held, not by a job burning long enough.
type gate struct {
	simcore.Model
	hold    func(simcore.Params) bool // which jobs wait (nil: every one)
	entered chan struct{}             // a token per job that started waiting
	one     chan struct{}             // a token lets one held job go
	open    chan struct{}
	once    sync.Once
}

// newGate returns a closed gate on m for the jobs hold selects (nil: all).
func newGate(m simcore.Model, hold func(simcore.Params) bool) *gate {
	return &gate{Model: m, hold: hold, entered: make(chan struct{}, 1<<16), one: make(chan struct{}), open: make(chan struct{})}
}

// Run implements simcore.Model.
func (g *gate) Run(ctx context.Context, p simcore.Params, seed uint64) (*simcore.Result, error) {
	if g.hold == nil || g.hold(p) {
		g.entered <- struct{}{}
		select {
		case <-g.open:
		case <-g.one:
		case <-ctx.Done():
			return nil, fmt.Errorf("held by the test's gate: %w", ctx.Err())
		}
	}
	return g.Model.Run(ctx, p, seed)
}

// Open lets every held job, and every later one, run.
func (g *gate) Open() { g.once.Do(func() { close(g.open) }) }

// releaseOne lets one held job go, waiting for one to be held if none
// is; it reports false if stop is closed first.
func (g *gate) releaseOne(stop <-chan struct{}) bool {
	select {
	case g.one <- struct{}{}:
		return true
	case <-stop:
		return false
	}
}

// waitHeld waits until n more jobs are held at the gate.
func (g *gate) waitHeld(t *testing.T, n int, who string) {
	t.Helper()
	bound := time.After(eventWait)
	for i := 0; i < n; i++ {
		select {
		case <-g.entered:
		case <-bound:
			t.Fatalf("%s: %d of %d jobs held in flight after %v", who, i, n, eventWait)
		}
	}
}

// heldBench returns a copy of f whose workers run the bench model through a
// new gate on the jobs hold selects (nil: all), and the gate.
func (f *Farm) heldBench(hold func(simcore.Params) bool) (*Farm, *gate) {
	f.TB.Helper()
	g := newGate(bench.New(), hold)
	return f.withModel(g), g
}

// withModel returns a copy of f whose registry has m in the place of the
// model of m's name.
func (f *Farm) withModel(m simcore.Model) *Farm {
	f.TB.Helper()
	models := []simcore.Model{m}
	for _, o := range f.Registry.Models() {
		if o.Name() != m.Name() {
			models = append(models, o)
		}
	}
	reg, err := simcore.NewRegistry(models...)
	if err != nil {
		f.TB.Fatal(err)
	}
	g := *f
	g.Registry = reg
	return &g
}

// lasting makes the jobs that which selects last at least d of model time,
// waiting without using CPU: a lower bound of their duration_ms whatever
// the machine's speed (a loaded machine only makes them longer).
type lasting struct {
	simcore.Model
	d     time.Duration
	which func(simcore.Params) bool
}

// Run implements simcore.Model.
func (l lasting) Run(ctx context.Context, p simcore.Params, seed uint64) (*simcore.Result, error) {
	if l.which(p) {
		t := time.NewTimer(l.d)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return l.Model.Run(ctx, p, seed)
}

// fileGate is the gate of a farm of processes: jobs of the bench variant
// bench.WaitPrefix+Path are held in flight until Open creates the file.
type fileGate struct {
	t    *testing.T
	Path string
}

// newFileGate returns a closed file gate in a temporary directory.
func newFileGate(t *testing.T) *fileGate {
	return &fileGate{t: t, Path: filepath.Join(t.TempDir(), "release")}
}

// Variant is the bench variant of the jobs this gate holds.
func (g *fileGate) Variant() string { return bench.WaitPrefix + g.Path }

// Open lets every held job, and every later one, run.
func (g *fileGate) Open() {
	g.t.Helper()
	if err := os.WriteFile(g.Path, nil, 0o600); err != nil {
		g.t.Fatal(err)
	}
}

// submitted is how a submission started by submitAsync ended.
type submitted struct {
	rep *coordinator.SubmitReply
	err error
}

// submitAsync sends req with submit (a coordinator's or a client's Submit)
// in a goroutine; the channel gets how it ended.
func submitAsync(submit func(context.Context, coordinator.SubmitRequest) (*coordinator.SubmitReply, error), req coordinator.SubmitRequest) <-chan submitted {
	done := make(chan submitted, 1)
	go func() {
		rep, err := submit(context.Background(), req)
		done <- submitted{rep, err}
	}()
	return done
}

// awaitSubmitted waits for the submission of done to end; after
// eventWait the test fails with what names the event it waited for.
func awaitSubmitted(t *testing.T, done <-chan submitted, what string) submitted {
	t.Helper()
	select {
	case s := <-done:
		return s
	case <-time.After(eventWait):
		t.Fatalf("the submission did not return within %v of %s", eventWait, what)
	}
	return submitted{}
}

// waitFor polls cond (every 20 ms) until it holds; after eventWait the
// test fails saying what it waited for.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(eventWait)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %v for %s", eventWait, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
