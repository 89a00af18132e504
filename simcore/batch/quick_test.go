package batch

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"schedfarm/internal/datatest"
	"schedfarm/simcore"
	"schedfarm/simcore/modeltest"
	"schedfarm/simcore/workload"
)

// TestModelRunQuick runs the model on the CTC fixture (the first 5,000
// jobs of the log; 3,000 of them, as configs/krallmann1999/quick.yaml
// does on the whole log): the result round-trips through the schema and
// repeats bit for bit, and its schedule table passes the checker.
func TestModelRunQuick(t *testing.T) {
	m := New(datatest.Fixtures(t))
	for _, c := range []struct{ order, backfill string }{{FCFS, "none"}, {PSRS, "none"}, {SmartFFIA, "conservative"}} {
		r := modeltest.RoundTrip(t, m, simcore.Params{"trace": ctcFixture, "jobs": int64(3000), "order": c.order,
			"backfill": c.backfill, "schedule_table": true}, 1)
		modeltest.Schedule(t, r, 256, modeltest.Layout{Task: "job", Procs: "width", Release: "submit", Start: "start", End: "end"}, 0)
	}
}

// TestModelRefusesEmptyTrace: on a cluster, where submit cannot see the
// workers' files, a job on an empty log fails with the reason instead of
// returning zero jobs and zero metrics.
func TestModelRefusesEmptyTrace(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "traces"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "traces", "empty.swf"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := schema.Complete(simcore.Params{"trace": "traces/empty.swf"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := New(simcore.Dirs{dir}).Run(context.Background(), p, 1)
	if !errors.Is(err, workload.ErrNoJobs) {
		t.Fatalf("Run on an empty log = %v, %v; want an error wrapping workload.ErrNoJobs", res, err)
	}
}
