package farmtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"schedfarm/broker"
	"schedfarm/coordinator"
	"schedfarm/results"
	rcollect "schedfarm/results/collect"
	"schedfarm/worker"
)

// Found by an attack on the farm: a damaged stored part must not block every later
// collection of its jobs. Each case damages the first stored part of a
// finished run, then: a plain submission of the same sweep skips every job
// (nothing is known to be wrong yet), and collecting it must name the
// damaged part at once (never a timeout) and list its jobs as missing; the
// next submission runs exactly those jobs again, and its collection has
// every job with the values of the first run.

// TestDamagedBlockFile: bytes of the part's jobs object flipped in the
// object store's block file while the server is down. Before the fix the
// collection waited for the unreadable chunk until `nats: timeout`, on
// every later run.
func TestDamagedBlockFile(t *testing.T) {
	testDamagedPart(t, func(t *testing.T, f *Farm, c *Coordinator, object string, data []byte) *Coordinator {
		c.Stop()
		f.RestartServer(func(dir string) { flipInBlockFile(t, dir, "OBJ_"+c.Farm.Names.PartsBucket, data) })
		return f.StartCoordinator("coord-2")
	})
}

// TestGarbagePart: the part's jobs object replaced by garbage through the
// object store. Before the fix collection failed on decoding it, and so did
// every later submission's, which skipped its jobs.
func TestGarbagePart(t *testing.T) {
	testDamagedPart(t, func(t *testing.T, f *Farm, c *Coordinator, object string, data []byte) *Coordinator {
		garbage := bytes.Repeat([]byte("garbage!"), len(data)/8+1)
		if _, err := c.Farm.Parts.PutBytes(context.Background(), object, garbage); err != nil {
			t.Fatal(err)
		}
		return c
	})
}

// testDamagedPart runs a sweep, damages its first part with damage (which
// returns the coordinator to go on with), and checks what follows.
func testDamagedPart(t *testing.T, damage func(t *testing.T, f *Farm, c *Coordinator, object string, data []byte) *Coordinator) {
	r := runToEnd(t, "damaged", 20, 2, 2)
	f, c, ws, text, first := r.f, r.c, r.ws, r.text, r.run
	truth := valuesByJob(t, f, c.Farm, first.Run)

	_, rec := firstPart(t, c.Farm, first.Run)
	object := jobsObject(t, rec)
	data, err := c.Farm.Parts.GetBytes(context.Background(), object)
	if err != nil {
		t.Fatal(err)
	}
	ws.Stop()
	c = damage(t, f, c, object, data)
	f.StartWorkers(2, "v", worker.Config{})

	again := submit(t, c.Coordinator, text, false)
	if again.Skipped != len(truth) {
		t.Fatalf("the submission after the damage skipped %d of %d jobs, want all (the damage is not known yet)", again.Skipped, len(truth))
	}
	WaitRun(t, c.Coordinator, again.Run, eventWait)
	// The collection names the part and lists its jobs as missing, at once.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := coordinator.Collect(ctx, c.Farm, f.Registry, again.Run, coordinator.CollectOptions{
		ResultsDir: filepath.Join(f.Dir, "results-damaged"), Provenance: testProvenance(),
	})
	var pe *rcollect.PartError
	switch {
	case err == nil:
		t.Fatal("the damaged part's jobs were collected")
	case errors.Is(err, nats.ErrTimeout) || errors.Is(err, context.DeadlineExceeded):
		t.Fatalf("collecting timed out instead of naming the damaged part: %v", err)
	case !strings.Contains(err.Error(), rec.Part):
		t.Fatalf("the error does not name the damaged part %s: %v", rec.Part, err)
	case !errors.As(err, &pe):
		t.Fatalf("the error is not a PartError (exit status 4): %v", err)
	}
	if len(out) != 1 || out[0].Missing != len(rec.Jobs) {
		t.Fatalf("collected %+v, want the %d jobs of the damaged part missing", out, len(rec.Jobs))
	}
	// The next submission runs exactly the damaged part's jobs again.
	third := submit(t, c.Coordinator, text, false)
	if third.Published != len(rec.Jobs) {
		t.Fatalf("the next submission published %d job(s), want the damaged part's %d", third.Published, len(rec.Jobs))
	}
	WaitRun(t, c.Coordinator, third.Run, eventWait)
	for _, run := range []string{third.Run, again.Run, first.Run} {
		if got := valuesByJob(t, f, c.Farm, run); !equalValues(got, truth) {
			t.Errorf("run %s: the values collected after the rerun differ from the first run's", run)
		}
	}
	// A forced rerun collects too (it reads its own parts only).
	forced := submit(t, c.Coordinator, text, true)
	WaitRun(t, c.Coordinator, forced.Run, eventWait)
	if got := valuesByJob(t, f, c.Farm, forced.Run); !equalValues(got, truth) {
		t.Errorf("the forced run's values differ from the first run's")
	}
}

func testProvenance() results.Provenance {
	return results.Provenance{Version: "test", VCSRevision: "test", VCSModified: "false", GoVersion: "test"}
}

// flipInBlockFile inverts 16 bytes in the middle of data where a block
// file of stream holds it (whole: an object of one chunk).
func flipInBlockFile(t *testing.T, storeDir, stream string, data []byte) {
	t.Helper()
	blocks, err := filepath.Glob(filepath.Join(storeDir, "jetstream", "*", "streams", stream, "msgs", "*.blk"))
	if err != nil || len(blocks) == 0 {
		t.Fatalf("no block file of %s under %s (%v)", stream, storeDir, err)
	}
	for _, b := range blocks {
		content, err := os.ReadFile(b)
		if err != nil {
			t.Fatal(err)
		}
		i := bytes.Index(content, data)
		if i < 0 {
			continue
		}
		i += len(data) / 2
		for j := i; j < i+16; j++ {
			content[j] ^= 0xff
		}
		if err := os.WriteFile(b, content, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Fatalf("the object's bytes are in no block file of %s", stream)
}

// firstPart returns the registry key and entry of a run's first part (by key).
func firstPart(t *testing.T, bf *broker.Farm, run string) (string, broker.PartRecord) {
	t.Helper()
	ctx := context.Background()
	lister, err := bf.Done.ListKeysFiltered(ctx, run+".*")
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k := range lister.Keys() {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if len(keys) == 0 {
		t.Fatalf("run %s registered no part", run)
	}
	e, err := bf.Done.Get(ctx, keys[0])
	if err != nil {
		t.Fatal(err)
	}
	var rec broker.PartRecord
	if err := json.Unmarshal(e.Value(), &rec); err != nil {
		t.Fatal(err)
	}
	return keys[0], rec
}

// jobsObject is the name of a part's jobs object.
func jobsObject(t *testing.T, rec broker.PartRecord) string {
	t.Helper()
	for _, o := range rec.Objects {
		if strings.HasSuffix(o, "/"+results.JobsTable+".parquet") {
			return o
		}
	}
	t.Fatalf("part %s has no jobs object: %v", rec.Part, rec.Objects)
	return ""
}

// finishedRun is a farm that has run one bench sweep to its end: the
// start of the tests that then damage, rewrite or inspect its stored parts.
type finishedRun struct {
	f    *Farm
	c    *Coordinator
	ws   *Workers
	text string // the sweep file, to submit again
	run  *coordinator.SubmitReply
}

// runToEnd starts a farm with a coordinator and workers workers, and runs
// the bench sweep name (points × reps jobs of 0 ms) to its end.
func runToEnd(t *testing.T, name string, points, reps, workers int) finishedRun {
	t.Helper()
	f := New(t, Settings())
	c := f.StartCoordinator("coord")
	ws := f.StartWorkers(workers, "w", worker.Config{})
	text := benchSweep(name, points, reps, 0, "")
	run := submit(t, c.Coordinator, text, false)
	WaitRun(t, c.Coordinator, run.Run, eventWait)
	return finishedRun{f: f, c: c, ws: ws, text: text, run: run}
}
