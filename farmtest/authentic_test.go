package farmtest

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"schedfarm/coordinator"
	"schedfarm/results"
	"schedfarm/simcore/bench"
)

// Found by an attack on the farm: stored parts were not authenticated; any
// token holder (one worker) could rewrite any run's results, and the registry kept no
// digest.

// TestRegistryCreateOnly: a worker's connection cannot change or remove a
// part's registry entry: a put over it, a delete and a purge of its key
// are refused by the server, and the entry is as the worker stored it.
// Before the fix all three succeeded.
func TestRegistryCreateOnly(t *testing.T) {
	r := runToEnd(t, "create-only", 4, 1, 1)
	f, c, run := r.f, r.c, r.run
	key, _ := firstPart(t, c.Farm, run.Run)
	ctx := context.Background()
	before, err := c.Farm.Done.Get(ctx, key)
	if err != nil {
		t.Fatal(err)
	}
	w := f.Connect("intruder")
	forged := []byte(`{"run":"` + run.Run + `","part":"x","jobs":[],"objects":[]}`)
	if _, err := w.Done.Put(ctx, key, forged); err == nil {
		t.Error("a put over a registry entry was accepted")
	}
	if _, err := w.Done.Create(ctx, key, forged); err == nil {
		t.Error("a create over a registry entry was accepted")
	}
	if err := w.Done.Delete(ctx, key); err == nil {
		t.Error("a delete of a registry entry was accepted")
	}
	if err := w.Done.Purge(ctx, key); err == nil {
		t.Error("a purge of a registry key was accepted")
	}
	after, err := c.Farm.Done.Get(ctx, key)
	if err != nil {
		t.Fatalf("the registry entry is gone: %v", err)
	}
	if after.Revision() != before.Revision() || string(after.Value()) != string(before.Value()) {
		t.Errorf("the registry entry changed:\nbefore %s\nafter  %s", before.Value(), after.Value())
	}
}

// TestRewrittenPartDetected: a part object rewritten through the object
// store with other, well-formed results (what one token holder can do: the
// object store has no create-only put) is not collected: the collection
// names the part as changed since it was stored. Before the fix the
// rewritten values were collected silently.
func TestRewrittenPartDetected(t *testing.T) {
	r := runToEnd(t, "rewritten", 6, 2, 2)
	f, c, run := r.f, r.c, r.run
	_, rec := firstPart(t, c.Farm, run.Run)
	object := jobsObject(t, rec)
	ctx := context.Background()
	w := f.Connect("intruder")
	data, err := w.Parts.GetBytes(ctx, object)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Parts.PutBytes(ctx, object, plus1000(t, run.Run, data)); err != nil {
		t.Fatal(err)
	}
	_, err = coordinator.Collect(ctx, c.Farm, f.Registry, run.Run, coordinator.CollectOptions{
		ResultsDir: filepath.Join(f.Dir, "results-rewritten"), Provenance: testProvenance(),
	})
	if err == nil {
		t.Fatal("the rewritten part was collected")
	}
	if !strings.Contains(err.Error(), rec.Part) || !strings.Contains(err.Error(), "SHA-256") {
		t.Fatalf("the error does not name the part %s as changed: %v", rec.Part, err)
	}
}

// plus1000 returns a bench part's jobs object (data) of run with every
// value + 1000: well-formed results, wrong.
func plus1000(t *testing.T, run string, data []byte) []byte {
	t.Helper()
	schema := bench.New().Schema()
	rows, err := results.DecodePart(schema, map[string][]byte{results.JobsTable: data})
	if err != nil {
		t.Fatal(err)
	}
	for i := range rows {
		rows[i].Result.Metrics["value"] = rows[i].Result.Metrics["value"].(float64) + 1000
		rows[i].Result.Tables = nil
	}
	objs, err := results.EncodePart(schema, results.PartInfo{RunID: run}, rows)
	if err != nil {
		t.Fatal(err)
	}
	return objs[results.JobsTable]
}
