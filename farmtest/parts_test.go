package farmtest

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"

	"schedfarm/broker"
	"schedfarm/coordinator"
	"schedfarm/worker"
)

// TestInvalidateParts: `schedfarm parts invalidate` (InvalidateParts)
// marks a run's parts invalid without deleting anything; a collection
// leaves them out (their jobs missing, an InvalidPartsError, never an
// older superseded result), and the next plain submission runs their jobs
// again, with the same values. Formerly no command could
// invalidate a part.
func TestInvalidateParts(t *testing.T) {
	f := New(t, Settings())
	c := f.StartCoordinator("coord")
	f.StartWorkers(2, "w", worker.Config{})
	text := benchSweep("invalidate", 8, 2, 0, "")
	first := submit(t, c.Coordinator, text, false)
	WaitRun(t, c.Coordinator, first.Run, eventWait)
	truth := valuesByJob(t, f, c.Farm, first.Run)
	// A forced rerun, then its parts invalidated: the first run's results,
	// which it superseded, must not come back.
	forced := submit(t, c.Coordinator, text, true)
	WaitRun(t, c.Coordinator, forced.Run, eventWait)
	ctx := context.Background()
	before, err := coordinator.ListParts(ctx, c.Farm, forced.Run)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := coordinator.InvalidateParts(ctx, c.Farm, forced.Run, []string{"3f1c2a34-1111-4222-8333-944455556666"}, "", "test"); err == nil {
		t.Error("a part the run has not was invalidated")
	}
	marked, already, err := coordinator.InvalidateParts(ctx, c.Farm, forced.Run, nil, "model bug", "test")
	if err != nil || marked != len(before) || already != 0 {
		t.Fatalf("invalidate: %d marked, %d already, %v; want %d, 0", marked, already, err, len(before))
	}
	if marked, already, err = coordinator.InvalidateParts(ctx, c.Farm, forced.Run, nil, "again", "test"); err != nil || marked != 0 || already != len(before) {
		t.Fatalf("invalidate again: %d marked, %d already, %v; want 0, %d", marked, already, err, len(before))
	}
	after, err := coordinator.ListParts(ctx, c.Farm, forced.Run)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range after {
		if !p.Invalid || p.Reason != "model bug" || !p.Verified || p.Part != before[i].Part {
			t.Errorf("part %d after invalidation: %+v", i, p)
		}
	}
	// Nothing deleted: every object and registry entry is still there.
	for _, p := range before {
		if _, err := c.Farm.Done.Get(ctx, broker.DoneKey(p.Run, p.Part)); err != nil {
			t.Errorf("registry entry of part %s: %v", p.Part, err)
		}
	}
	for _, run := range []string{forced.Run} {
		out, err := coordinator.Collect(ctx, c.Farm, f.Registry, run, coordinator.CollectOptions{
			ResultsDir: filepath.Join(f.Dir, "results-invalid"), Provenance: testProvenance(),
		})
		var ipe *coordinator.InvalidPartsError
		if !errors.As(err, &ipe) {
			t.Fatalf("collecting run %s with invalid parts: %v, want an InvalidPartsError", run, err)
		}
		if len(out) != 1 || out[0].Missing != len(truth) || len(out[0].Invalid) != len(before) {
			t.Fatalf("collected %+v, want every job missing and %d invalid parts", out, len(before))
		}
	}
	// A plain submission skips nothing: the current results are invalid.
	later := submit(t, c.Coordinator, text, false)
	if later.Published != len(truth) {
		t.Fatalf("the submission after the invalidation published %d job(s), want %d", later.Published, len(truth))
	}
	WaitRun(t, c.Coordinator, later.Run, eventWait)
	for _, run := range []string{later.Run, forced.Run} {
		if got := valuesByJob(t, f, c.Farm, run); !equalValues(got, truth) {
			t.Errorf("run %s: values after the rerun differ from the first run's", run)
		}
	}
}

// TestPartsWrittenOnce: a worker records each object's SHA-256 in the
// part's registry entry; PutObject and Register refuse to replace another
// part's object or entry, and accept their own again (a retry after a
// lost reply).
func TestPartsWrittenOnce(t *testing.T) {
	r := runToEnd(t, "once", 3, 1, 1)
	f, c, run := r.f, r.c, r.run
	key, rec := firstPart(t, c.Farm, run.Run)
	ctx := context.Background()
	w := f.Connect("worker-2")
	if len(rec.SHA256) != len(rec.Objects) {
		t.Fatalf("the entry records %d digests for %d objects", len(rec.SHA256), len(rec.Objects))
	}
	for i, o := range rec.Objects {
		data, err := w.Parts.GetBytes(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		if rec.SHA256[i] != broker.Digest(data) {
			t.Errorf("object %s: digest %s recorded, its bytes' %s", o, rec.SHA256[i], broker.Digest(data))
		}
		if err := w.PutObject(ctx, o, data); err != nil {
			t.Errorf("storing an object again with its own bytes: %v", err)
		}
		if err := w.PutObject(ctx, o, append(data, 0)); !errors.Is(err, broker.ErrExists) {
			t.Errorf("storing other bytes over object %s: %v, want ErrExists", o, err)
		}
	}
	e, err := w.Done.Get(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Register(ctx, key, e.Value()); err != nil {
		t.Errorf("registering a part again with its own entry: %v", err)
	}
	other := rec
	other.Worker = "someone-else"
	data, _ := json.Marshal(other)
	if err := w.Register(ctx, key, data); !errors.Is(err, broker.ErrExists) {
		t.Errorf("registering another entry under a part's key: %v, want ErrExists", err)
	}
	if sealed, err := w.RegistrySealed(ctx); err != nil || !sealed {
		t.Errorf("the registry is not create-only on the server (%v)", err)
	}
}
