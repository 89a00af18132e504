package farmtest

import (
	"context"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"schedfarm/broker"
	"schedfarm/coordinator"
	"schedfarm/results"
	"schedfarm/worker"
)

// adaptiveSweep has one claim decided at the first round (noise 0.5), one
// point pair that needs more replicates (noise 1.5) and one that no number
// of replicates up to the cap decides (noise 60).
const adaptiveSweep = `name: adaptive
model: bench
seed: 11
replicates: {min: 20, max: 160}
axes:
  - name: noise
    values: [0.5, 1.5, 60]
  - name: size
    values: [1, 2]
claims:
  - id: size-1-lower
    source: "test"
    text: "value is lower at size 1 than at size 2"
    compare: {metric: value, series: size, a: 1, b: 2, op: lower, over: every_point}
  - id: size-1-lower-quiet
    source: "test"
    text: "value is lower at size 1 than at size 2 when the noise is low"
    compare: {metric: value, series: size, a: 1, b: 2, op: lower, over: every_point, where: {noise: [0.5]}}
`

// TestAdaptiveReplicates: the coordinator adds replicates in rounds to the
// points of undecided claims only, up to the cap; the rounds, the jobs and
// the results are the same with 1 and 3 workers; and a rerun of the sweep
// finds every job of every round done and publishes nothing.
func TestAdaptiveReplicates(t *testing.T) {
	var recs [2]broker.RunRecord
	var dirs [2]string
	for i, n := range []int{1, 3} {
		f := New(t, Settings())
		c := f.StartCoordinator("coord")
		f.StartWorkers(n, "w", worker.Config{FlushRows: 5})
		rep := submit(t, c.Coordinator, adaptiveSweep, false)
		if rep.Total != 6*20 {
			t.Fatalf("%d jobs at submission, want 120 (6 points × min 20)", rep.Total)
		}
		p := WaitRun(t, c.Coordinator, rep.Run, eventWait)
		recs[i] = runRecord(t, c.Farm, rep.Run)
		if p.Failed != 0 || recs[i].Status != broker.RunComplete {
			t.Fatalf("%d workers: progress %+v, status %s", n, *p, recs[i].Status)
		}
		out := collect(t, f, c.Farm, rep.Run)
		dirs[i] = out[0].Dir

		if i == 0 {
			// The rerun: every job of every round is found done.
			again := submit(t, c.Coordinator, adaptiveSweep, false)
			WaitRun(t, c.Coordinator, again.Run, eventWait)
			rec2 := runRecord(t, c.Farm, again.Run)
			if !reflect.DeepEqual(rec2.Rounds, recs[0].Rounds) || rec2.Total != recs[0].Total || rec2.Skipped != rec2.Total {
				t.Errorf("rerun: rounds %+v total %d skipped %d; first run: rounds %+v total %d",
					rec2.Rounds, rec2.Total, rec2.Skipped, recs[0].Rounds, recs[0].Total)
			}
			info, err := c.Farm.Jobs.Info(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if info.State.Msgs != 0 {
				t.Errorf("rerun left %d messages in the queue", info.State.Msgs)
			}
			again2 := collect(t, f, c.Farm, again.Run)
			if x, y := readFile(t, filepath.Join(dirs[0], "summary.parquet")), readFile(t, filepath.Join(again2[0].Dir, "summary.parquet")); string(x) != string(y) {
				t.Errorf("the rerun's summary differs from the first run's")
			}
		}
	}
	rec := recs[0]
	t.Logf("rounds %+v; %s", rec.Rounds, rec.Adaptive)
	if len(rec.Rounds) == 0 {
		t.Fatal("no round was added")
	}
	if !reflect.DeepEqual(recs[0].Rounds, recs[1].Rounds) || recs[0].Total != recs[1].Total {
		t.Fatalf("rounds differ between 1 and 3 workers:\n%+v\n%+v", recs[0].Rounds, recs[1].Rounds)
	}
	if recs[0].Adaptive == "" || recs[0].Adaptive != recs[1].Adaptive {
		t.Errorf("adaptive notes %q, %q", recs[0].Adaptive, recs[1].Adaptive)
	}

	// Replicates per point, by noise: the quiet points stay at min, the
	// noisiest reach the cap, and the middle ones are in between.
	fr := readJobs(t, dirs[0])
	if fr.Len() != rec.Total {
		t.Fatalf("%d rows, want %d", fr.Len(), rec.Total)
	}
	noise := fr.Col("noise").([]float64)
	size := fr.Col("size").([]int64)
	count := map[[2]string]int{}
	for r := 0; r < fr.Len(); r++ {
		count[[2]string{label(noise[r]), label(size[r])}]++
	}
	for _, s := range []string{"1", "2"} {
		if got := count[[2]string{"0.5", s}]; got != 20 {
			t.Errorf("noise 0.5 size %s: %d replicates, want 20 (decided at the first round)", s, got)
		}
		if got := count[[2]string{"60", s}]; got != 160 {
			t.Errorf("noise 60 size %s: %d replicates, want 160 (the cap)", s, got)
		}
		if got := count[[2]string{"1.5", s}]; got <= 20 || got >= 160 {
			t.Errorf("noise 1.5 size %s: %d replicates, want more than 20 and fewer than 160", s, got)
		}
	}
	// Same rows and same summary whatever the number of workers.
	a, b := readJobs(t, dirs[0]), readJobs(t, dirs[1])
	skip := map[string]bool{"run_id": true, "worker": true, "started_at": true, "duration_ms": true, "cpu_ms": true, "attempts": true}
	names := slices.Clone(a.Names)
	slices.Sort(names)
	for _, name := range names {
		if !skip[name] && !reflect.DeepEqual(a.Col(name), b.Col(name)) {
			t.Errorf("column %s differs between 1 and 3 workers", name)
		}
	}
	if x, y := readFile(t, filepath.Join(dirs[0], "summary.parquet")), readFile(t, filepath.Join(dirs[1], "summary.parquet")); string(x) != string(y) {
		t.Errorf("summary.parquet differs between 1 and 3 workers")
	}
}

func label(v any) string { return results.Label(v) }

// startAdaptiveRound starts a farm (coordinator name, two workers) on the
// adaptive sweep with jobs slow enough that a run is mid-round for a
// while, and returns once the run's record holds its first round.
func startAdaptiveRound(t *testing.T, name string) (*Farm, *Coordinator, string, *coordinator.SubmitReply) {
	t.Helper()
	f := New(t, Settings())
	c := f.StartCoordinator(name)
	text := strings.Replace(adaptiveSweep, "replicates:", "params: {work_ms: 2}\nreplicates:", 1)
	f.StartWorkers(2, "w", worker.Config{})
	rep := submit(t, c.Coordinator, text, false)
	deadline := time.Now().Add(eventWait)
	for len(runRecord(t, c.Farm, rep.Run).Rounds) == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("no round after %v", eventWait)
		}
		time.Sleep(5 * time.Millisecond)
	}
	return f, c, text, rep
}

// TestAdaptiveReplicatesFailover: a coordinator stopped after the first
// round is published leaves the run to the next one, which re-expands the
// run with its rounds, goes on with the rounds and ends with the same
// rounds and results as an uninterrupted run.
func TestAdaptiveReplicatesFailover(t *testing.T) {
	f, c, text, rep := startAdaptiveRound(t, "coord-a")
	// The round's evaluation is on the run's progress while it runs.
	p, err := c.Progress(context.Background(), rep.Run)
	if err != nil {
		t.Fatal(err)
	}
	if p.Rounds == 0 || len(p.RoundClaims) != 2 || p.RoundClaims[0].ID != "size-1-lower" {
		t.Errorf("progress after the first round: rounds %d, claims %+v", p.Rounds, p.RoundClaims)
	}
	c.Stop()
	c2 := f.StartCoordinator("coord-b")
	WaitRun(t, c2.Coordinator, rep.Run, eventWait)
	got := runRecord(t, c2.Farm, rep.Run)
	dir := collect(t, f, c2.Farm, rep.Run)[0].Dir

	g := New(t, Settings())
	cg := g.StartCoordinator("coord")
	g.StartWorkers(2, "w", worker.Config{})
	ref := submit(t, cg.Coordinator, text, false)
	WaitRun(t, cg.Coordinator, ref.Run, eventWait)
	want := runRecord(t, cg.Farm, ref.Run)
	refDir := collect(t, g, cg.Farm, ref.Run)[0].Dir
	if !reflect.DeepEqual(got.Rounds, want.Rounds) || got.Total != want.Total || got.Adaptive != want.Adaptive {
		t.Fatalf("after a failover: rounds %+v total %d (%s); uninterrupted: %+v total %d (%s)",
			got.Rounds, got.Total, got.Adaptive, want.Rounds, want.Total, want.Adaptive)
	}
	if x, y := readFile(t, filepath.Join(dir, "summary.parquet")), readFile(t, filepath.Join(refDir, "summary.parquet")); string(x) != string(y) {
		t.Errorf("summary.parquet differs after a failover")
	}
}

// TestAdaptiveReplicatesCancel: a run cancelled while its rounds go on
// stays cancelled: no later round overwrites its record.
func TestAdaptiveReplicatesCancel(t *testing.T) {
	_, c, _, rep := startAdaptiveRound(t, "coord")
	if err := c.Cancel(context.Background(), rep.Run); err != nil {
		t.Fatal(err)
	}
	// Long enough for every round the run would have had.
	time.Sleep(3 * time.Second)
	rec := runRecord(t, c.Farm, rep.Run)
	if rec.Status != broker.RunCancelled {
		t.Fatalf("status %s after a cancel, want cancelled (rounds %d)", rec.Status, len(rec.Rounds))
	}
}
