package farmtest

import (
	"context"
	"strings"
	"testing"
	"time"

	"schedfarm/worker"
)

// TestJobTimeoutSaysSo: a job stopped by the worker's job timeout is
// recorded as failed with a reason that says so and names the timeout,
// not only "context deadline exceeded". The bench job would work for a
// minute; the timeout ends it at once, whatever the machine's speed.
func TestJobTimeoutSaysSo(t *testing.T) {
	f := New(t, Settings())
	c := f.StartCoordinator("coord")
	f.StartWorkers(1, "w", worker.Config{JobTimeout: 50 * time.Millisecond})
	rep := submit(t, c.Coordinator, benchSweep("timeout", 1, 1, 60_000, ""), false)
	p := WaitRun(t, c.Coordinator, rep.Run, eventWait)
	if p.Failed != 1 {
		t.Fatalf("progress %+v, want the one job failed", *p)
	}
	st, err := c.Status(context.Background(), rep.Run)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Runs) != 1 || len(st.Runs[0].Failures) != 1 {
		t.Fatalf("status %+v, want one failure", st.Runs)
	}
	if e := st.Runs[0].Failures[0].Error; !strings.Contains(e, "exceeded the worker's job timeout of 50ms") {
		t.Errorf("failure reason %q does not say the job exceeded its timeout", e)
	}
}
