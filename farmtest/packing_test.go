package farmtest

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"schedfarm/broker"
	"schedfarm/coordinator"
	"schedfarm/results"
	"schedfarm/simcore"
	"schedfarm/simcore/bench"
	"schedfarm/worker"
)

// packedRun runs text on a fresh farm of n workers under a packing policy
// and returns the collected folder, the run's packing and the number of
// messages published on the work queue. The workers run models as wrap
// (if given) makes the farm's.
func packedRun(t *testing.T, s broker.Settings, pol coordinator.Packing, n int, text string, wrap ...func(*Farm) *Farm) (string, []broker.PackChoice, uint64) {
	t.Helper()
	f := New(t, s)
	c := f.StartCoordinatorWith("coord", coordinator.Config{Packing: pol})
	workers := f
	for _, w := range wrap {
		workers = w(workers)
	}
	workers.StartWorkers(n, "w", worker.Config{FlushRows: 50})
	rep := submit(t, c.Coordinator, text, false)
	p := WaitRun(t, c.Coordinator, rep.Run, eventWait)
	if p.Failed != 0 || p.Done != rep.Total {
		t.Fatalf("packing %v: progress %+v", pol, *p)
	}
	info, err := c.Farm.Jobs.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := collect(t, f, c.Farm, rep.Run)
	rec := runRecord(t, c.Farm, rep.Run)
	if st, err := c.Progress(context.Background(), rep.Run); err != nil || !reflect.DeepEqual(st.Packing, rec.Packing) {
		t.Fatalf("status packing %+v, run record %+v (%v)", st.Packing, rec.Packing, err)
	}
	// Resubmitting still skips every finished job.
	if again := submit(t, c.Coordinator, text, false); again.Published != 0 || again.Skipped != rep.Total {
		t.Fatalf("packing %v: resubmission published %d, skipped %d of %d", pol, again.Published, again.Skipped, rep.Total)
	}
	return out[0].Dir, rec.Packing, info.State.LastSeq
}

func runRecord(t *testing.T, bf *broker.Farm, run string) broker.RunRecord {
	t.Helper()
	e, err := bf.Runs.Get(context.Background(), run)
	if err != nil {
		t.Fatal(err)
	}
	var rec broker.RunRecord
	if err := json.Unmarshal(e.Value(), &rec); err != nil {
		t.Fatal(err)
	}
	return rec
}

// sameResults fails unless two collected folders hold the same results:
// byte-identical summaries and extra tables, equal jobs columns but for
// the machine- and delivery-dependent ones.
func sameResults(t *testing.T, what string, dirA, dirB string) {
	t.Helper()
	a, b := readJobs(t, dirA), readJobs(t, dirB)
	if a.Len() != b.Len() {
		t.Fatalf("%s: %d rows vs %d", what, a.Len(), b.Len())
	}
	skip := map[string]bool{"run_id": true, "worker": true, "started_at": true, "duration_ms": true, "cpu_ms": true, "attempts": true}
	names := append([]string(nil), a.Names...)
	sort.Strings(names)
	for _, name := range names {
		if !skip[name] && !reflect.DeepEqual(a.Col(name), b.Col(name)) {
			t.Errorf("%s: jobs column %s differs", what, name)
		}
	}
	for _, file := range []string{"summary.parquet", "summary.csv", "samples.parquet"} {
		if string(readFile(t, filepath.Join(dirA, file))) != string(readFile(t, filepath.Join(dirB, file))) {
			t.Errorf("%s: %s differs", what, file)
		}
	}
}

// TestPackingSameResults: a sweep of tiny jobs is packed (auto: a probe of
// single jobs, then packs; or a fixed size), in far fewer messages, and its
// results are bit-identical to an unpacked run's; the packing is recorded
// in the run record, run.json and jobs.parquet's metadata. The target is
// 1 s of model time per pack, so that k ≥ 10 unless the 0-ms jobs take
// 100 ms each.
func TestPackingSameResults(t *testing.T) {
	const jobs = 300
	text := benchSweep("tiny", 60, 5, 0, "      noise: 2.5\n")
	offDir, offPacking, offMsgs := packedRun(t, Settings(), coordinator.Packing{}, 2, text)
	if offMsgs != jobs || len(offPacking) != 1 || offPacking[0].K != 1 {
		t.Fatalf("off: %d messages, packing %+v", offMsgs, offPacking)
	}

	autoDir, autoPacking, autoMsgs := packedRun(t, Settings(), coordinator.Packing{Mode: coordinator.PackAuto, Target: time.Second, ProbeWait: time.Minute}, 2, text)
	if len(autoPacking) != 1 {
		t.Fatalf("auto: packing %+v", autoPacking)
	}
	ch := autoPacking[0]
	t.Logf("auto: %d messages for %d jobs; packing %+v", autoMsgs, jobs, ch)
	if ch.K < 10 || ch.Policy != "auto" || ch.Probed != coordinator.DefaultProbeJobs || ch.Sweep != "tiny" || ch.Reason == "" {
		t.Errorf("auto packing of 0-ms jobs: %+v", ch)
	}
	// The sweep is the run's last: its end goes in packs of shrinking size
	// (two of each power of two below k, then four single jobs).
	rest, msgs := jobs-coordinator.DefaultProbeJobs, coordinator.DefaultProbeJobs
	tail := []int{1, 1, 1, 1}
	for s := 2; s < ch.K; s *= 2 {
		tail = append(tail, s, s)
	}
	for _, s := range tail {
		if s > rest {
			break
		}
		rest -= s
		msgs++
	}
	msgs += (rest + ch.K - 1) / ch.K
	if autoMsgs != uint64(msgs) {
		t.Errorf("auto: %d messages, want %d (%d probe jobs alone, then packs of %d, the last ones smaller)", autoMsgs, msgs, coordinator.DefaultProbeJobs, ch.K)
	}
	if !strings.Contains(ch.Reason, "shrinking packs") {
		t.Errorf("auto: the reason does not tell the end of the run's packing: %q", ch.Reason)
	}
	sameResults(t, "auto vs off", offDir, autoDir)

	fixedDir, fixedPacking, fixedMsgs := packedRun(t, Settings(), coordinator.Packing{Mode: coordinator.PackFixed, K: 7}, 1, text)
	if fixedMsgs != (jobs+6)/7 || fixedPacking[0].K != 7 || fixedPacking[0].Policy != "7" {
		t.Errorf("fixed 7: %d messages, packing %+v", fixedMsgs, fixedPacking)
	}
	sameResults(t, "fixed 7 on 1 worker vs off on 2", offDir, fixedDir)

	// The packing in run.json and jobs.parquet, not in the summary.
	var info results.RunInfo
	if err := json.Unmarshal(readFile(t, filepath.Join(autoDir, results.RunInfoFile)), &info); err != nil {
		t.Fatal(err)
	}
	if info.Packing == nil || info.Packing.K != ch.K || info.Packing.Reason != ch.Reason {
		t.Errorf("run.json packing = %+v, want %+v", info.Packing, ch)
	}
	if meta := readJobs(t, autoDir).Meta[results.MetaPacking]; !strings.Contains(meta, `"policy":"auto"`) {
		t.Errorf("jobs.parquet %s = %q", results.MetaPacking, meta)
	}
	sum, err := results.ReadTable(filepath.Join(autoDir, "summary.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := sum.Meta[results.MetaPacking]; ok {
		t.Error("summary.parquet records the packing: packed and unpacked summaries would differ")
	}
}

// TestPackingLongJobsUnpacked: jobs longer than the target stay one per
// message, and the probe does not wait for all its results: four long
// results show long jobs, so the submission returns while the other four
// probe jobs are held in flight, with a ProbeWait the test would not
// outlive. Every job is held by a gate; four are let go one by one, each
// after 50 ms at least (a model time above the 30-ms target, whatever
// the machine's speed).
func TestPackingLongJobsUnpacked(t *testing.T) {
	pol := coordinator.Packing{Mode: coordinator.PackAuto, ProbeJobs: 8, ProbeWait: time.Hour}
	f := New(t, Settings())
	c := f.StartCoordinatorWith("coord", coordinator.Config{Packing: pol})
	held, g := f.heldBench(nil)
	held.StartWorkers(2, "w", worker.Config{})
	done := submitAsync(c.Submit, coordinator.SubmitRequest{File: "test.yaml", Text: benchSweep("long", 20, 1, 0, "")})
	for range 4 {
		g.waitHeld(t, 1, "a worker")
		time.Sleep(50 * time.Millisecond) // a lower bound of the job's model time
		g.releaseOne(nil)
	}
	s := awaitSubmitted(t, done, "four long probe results (does the probe wait for all eight?)")
	if s.err != nil {
		t.Fatal(s.err)
	}
	g.Open()
	WaitRun(t, c.Coordinator, s.rep.Run, eventWait)
	ch := runRecord(t, c.Farm, s.rep.Run).Packing[0]
	if ch.K != 1 || ch.Probed < 4 || ch.ProbeMeanMs < 30 {
		t.Errorf("packing of long jobs: %+v", ch)
	}
	t.Logf("packing %+v", ch)
}

// TestPackingFailingJobs: a job that fails inside a pack is recorded as
// that job's failure, with its own error and MaxDeliver attempts; the other
// jobs of its pack have exactly one result each, stored once: the failed
// jobs are sent again on their own, not with their whole pack. (Packs of 8
// mix the outcomes: the fail axis is innermost.)
func TestPackingFailingJobs(t *testing.T) {
	f := New(t, Settings())
	c := f.StartCoordinatorWith("coord", coordinator.Config{Packing: coordinator.Packing{Mode: coordinator.PackFixed, K: 8}})
	f.StartWorkers(2, "w", worker.Config{})
	text := `sweeps:
  - name: failing
    model: bench
    seed: 1
    replicates: 2
    axes:
      - name: size
        range: {from: 1, to: 4, step: 1}
      - name: fail
        values: [never, error, panic]
`
	rep := submit(t, c.Coordinator, text, false)
	p := WaitRun(t, c.Coordinator, rep.Run, eventWait)
	if p.Done != 8 || p.Failed != 16 {
		t.Fatalf("progress: %+v", *p)
	}
	for _, fl := range p.Failures {
		if fl.Attempts != f.Settings.MaxDeliver {
			t.Errorf("failure %s: %d attempts, want %d", fl.Job, fl.Attempts, f.Settings.MaxDeliver)
		}
	}
	for id, n := range registrations(t, c.Farm, rep.Run) {
		if n != 1 {
			t.Errorf("job %s: result stored %d times, want once", id, n)
		}
	}
	out := collect(t, f, c.Farm, rep.Run)
	fr := readJobs(t, out[0].Dir)
	if fr.Len() != 24 || out[0].OK != 8 || out[0].Failed != 16 || out[0].Missing != 0 {
		t.Fatalf("collected %d rows: %+v", fr.Len(), *out[0].Collected)
	}
	status, errs, fails, ids := strCol(t, fr, "status"), strCol(t, fr, "error"), strCol(t, fr, "fail"), strCol(t, fr, "job_id")
	attempts := fr.Col("attempts").([]int64)
	seen := map[string]bool{}
	for i := range status {
		if seen[ids[i]] {
			t.Errorf("job %s twice", ids[i])
		}
		seen[ids[i]] = true
		switch fails[i] {
		case "never":
			if status[i] != "ok" || errs[i] != "" || attempts[i] != 1 {
				t.Errorf("row %d: a good job of a pack with failing jobs: %q %q, attempts %d", i, status[i], errs[i], attempts[i])
			}
		case "error":
			if status[i] != "failed" || !strings.Contains(errs[i], "fail=error") || attempts[i] != int64(f.Settings.MaxDeliver) {
				t.Errorf("row %d: %q %q", i, status[i], errs[i])
			}
		case "panic":
			if status[i] != "failed" || !strings.Contains(errs[i], "panicked") {
				t.Errorf("row %d: %q %q", i, status[i], firstLineOf(errs[i]))
			}
		}
	}
}

// registrations counts, per job, the parts of a run that hold its result.
func registrations(t *testing.T, bf *broker.Farm, run string) map[string]int {
	t.Helper()
	ctx := context.Background()
	lister, err := bf.Done.ListKeysFiltered(ctx, run+".*")
	if err != nil {
		t.Fatal(err)
	}
	n := map[string]int{}
	for k := range lister.Keys() {
		e, err := bf.Done.Get(ctx, k)
		if err != nil {
			t.Fatal(err)
		}
		var p broker.PartRecord
		if err := json.Unmarshal(e.Value(), &p); err != nil {
			t.Fatal(err)
		}
		for _, id := range p.Jobs {
			n[id]++
		}
	}
	return n
}

func firstLineOf(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// TestPackingWorkerDiesMidPack: a worker vanishes in the middle of a pack;
// the pack is redelivered to another worker, which splits it into
// messages of one job (one of them may have crashed the first worker),
// each run alone and stored in a part of its own on that same second
// delivery; every job has exactly one result, and nothing is lost. The
// pack's first job is held in flight (a gate) until the worker is gone.
func TestPackingWorkerDiesMidPack(t *testing.T) {
	s := Settings()
	s.AckWait = time.Second
	f := New(t, s)
	c := f.StartCoordinatorWith("coord", coordinator.Config{Packing: coordinator.Packing{Mode: coordinator.PackFixed, K: 6}})
	held, g := f.heldBench(nil)
	doomed := held.StartWorkers(1, "doomed", worker.Config{Heartbeat: 20 * time.Millisecond})
	// One pack of 6 jobs, its first held in flight until the worker is gone.
	rep := submit(t, c.Coordinator, benchSweep("pack", 6, 1, 0, ""), false)
	g.waitHeld(t, 1, "the doomed worker")
	killMidJob(t, c, doomed)
	f.StartWorkers(1, "survivor", worker.Config{})
	p := WaitRun(t, c.Coordinator, rep.Run, eventWait)
	if p.Done != 6 || p.Failed != 0 {
		t.Fatalf("progress: %+v", *p)
	}
	out := collect(t, f, c.Farm, rep.Run)
	fr := readJobs(t, out[0].Dir)
	if fr.Len() != 6 || out[0].Missing != 0 {
		t.Fatalf("%d rows, %d missing", fr.Len(), out[0].Missing)
	}
	workers, attempts := strCol(t, fr, "worker"), fr.Col("attempts").([]int64)
	for i := range workers {
		if !strings.HasPrefix(workers[i], "survivor") || attempts[i] != 2 {
			t.Errorf("row %d: worker %s, attempts %d; want the survivor on the second delivery (a split pack's jobs go on from its delivery)",
				i, workers[i], attempts[i])
		}
	}
	// Only the survivor's parts were registered, one per job (each ran
	// alone): nothing duplicated.
	lister, err := c.Farm.Done.ListKeysFiltered(context.Background(), rep.Run+".*")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for range lister.Keys() {
		n++
	}
	if n != 6 {
		t.Errorf("%d parts registered, want 6 (one per job of the split pack)", n)
	}
}

// TestPackingCancel: cancelling a run purges its queued packs; the jobs
// of packs already running are kept.
func TestPackingCancel(t *testing.T) {
	f := New(t, Settings())
	c := f.StartCoordinatorWith("coord", coordinator.Config{Packing: coordinator.Packing{Mode: coordinator.PackFixed, K: 50}})
	rep := submit(t, c.Coordinator, benchSweep("cancelled", 100, 10, 0, ""), false)
	if rep.Published != 1000 {
		t.Fatalf("published %d", rep.Published)
	}
	if err := c.Cancel(context.Background(), rep.Run); err != nil {
		t.Fatal(err)
	}
	info, err := c.Farm.Jobs.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if info.State.LastSeq != 20 || info.State.Msgs != 0 {
		t.Fatalf("after cancel: %d messages published, %d left; want 20 and 0", info.State.LastSeq, info.State.Msgs)
	}
	if rec := runRecord(t, c.Farm, rep.Run); rec.Status != broker.RunCancelled || len(rec.Packing) != 1 {
		t.Fatalf("run record: %s, packing %+v", rec.Status, rec.Packing)
	}
}

// TestPackingRestartMidPublication: a coordinator that died while
// publishing packs leaves the run "publishing"; the next one, whatever its
// own policy, republishes the unfinished jobs in the packs the run record
// holds, so the server's dedup window drops every one.
func TestPackingRestartMidPublication(t *testing.T) {
	f := New(t, Settings())
	c1 := f.StartCoordinatorWith("coord1", coordinator.Config{Packing: coordinator.Packing{Mode: coordinator.PackFixed, K: 10}})
	rep := submit(t, c1.Coordinator, benchSweep("midpub", 40, 5, 0, ""), false)
	c1.Stop()
	markPublishing(t, f, rep.Run)
	ctx := context.Background()
	c2 := f.StartCoordinator("coord2") // packing off: the record's k holds
	info, err := c2.Farm.Jobs.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.State.Msgs != 20 {
		t.Fatalf("stream holds %d messages after republish, want 20 packs (dedup)", info.State.Msgs)
	}
	f.StartWorkers(2, "w", worker.Config{})
	if p := WaitRun(t, c2.Coordinator, rep.Run, eventWait); p.Done != 200 {
		t.Fatalf("progress: %+v", *p)
	}
	if out := collect(t, f, c2.Farm, rep.Run); out[0].OK != 200 || out[0].Missing != 0 {
		t.Fatalf("collected: %+v", *out[0].Collected)
	}
}

// TestPackingDrain: a worker asked to drain in the middle of a pack
// finishes the pack, stores its results and returns. The pack's first job
// is held in flight (a gate) until the drain is asked for.
func TestPackingDrain(t *testing.T) {
	f := New(t, Settings())
	c := f.StartCoordinatorWith("coord", coordinator.Config{Packing: coordinator.Packing{Mode: coordinator.PackFixed, K: 5}})
	held, g := f.heldBench(nil)
	ws := held.StartWorkers(1, "w", worker.Config{Heartbeat: 20 * time.Millisecond})
	// Two packs of 5 jobs: the drain arrives while the first one's first
	// job is held.
	rep := submit(t, c.Coordinator, benchSweep("drain", 10, 1, 0, ""), false)
	g.waitHeld(t, 1, "the worker")
	drainAndWait(t, c, ws, g.Open)
	// The drained worker finished its pack: 5 results stored, 5 queued.
	var p *coordinator.RunProgress
	waitFor(t, "the drained worker's pack of 5 results", func() bool {
		var err error
		p, err = c.Progress(context.Background(), rep.Run)
		if err != nil {
			t.Fatal(err)
		}
		return p.Done >= 5
	})
	if p.Done != 5 {
		t.Fatalf("after draining mid-pack: %+v, want 5 done", *p)
	}
	f.StartWorkers(1, "next", worker.Config{})
	if p := WaitRun(t, c.Coordinator, rep.Run, eventWait); p.Done != 10 || p.Redelivered != 0 {
		t.Fatalf("progress: %+v", *p)
	}
}

// TestPackingLastDeliveryLost: a worker dies on a pack's last allowed
// delivery; the max-deliveries advisory makes the coordinator record each
// of the pack's jobs as failed, remove the message and finish the run.
// The pack's first job is held in flight (a gate) until the worker is gone.
func TestPackingLastDeliveryLost(t *testing.T) {
	s := Settings()
	s.MaxDeliver = 1
	s.AckWait = time.Second
	f := New(t, s)
	c := f.StartCoordinatorWith("coord", coordinator.Config{Packing: coordinator.Packing{Mode: coordinator.PackFixed, K: 3}})
	held, g := f.heldBench(nil)
	doomed := held.StartWorkers(1, "doomed", worker.Config{Heartbeat: 20 * time.Millisecond})
	rep := submit(t, c.Coordinator, benchSweep("lost", 3, 1, 0, ""), false)
	g.waitHeld(t, 1, "the doomed worker")
	killMidJob(t, c, doomed)
	p := WaitRun(t, c.Coordinator, rep.Run, eventWait)
	if p.Failed != 3 || p.Done != 0 || len(p.Failures) != 3 {
		t.Fatalf("progress: %+v", *p)
	}
	for _, fl := range p.Failures {
		if !strings.Contains(fl.Error, "no result after 1 deliveries") {
			t.Errorf("failure %s: %q", fl.Job, fl.Error)
		}
	}
	info, err := c.Farm.Jobs.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if info.State.Msgs != 0 {
		t.Fatalf("%d messages left in the work queue, want 0", info.State.Msgs)
	}
	if out := collect(t, f, c.Farm, rep.Run); out[0].Failed != 3 || out[0].Missing != 0 {
		t.Fatalf("collected: %+v", *out[0].Collected)
	}
}

// TestPackingForeignPack: a pack message with a malformed job, a job of an
// unknown model and a good job: the good job's result is stored, the bad
// ones are recorded as failed with their reasons, and the message leaves
// the queue.
func TestPackingForeignPack(t *testing.T) {
	f := New(t, Settings())
	c := f.StartCoordinator("coord")
	f.StartWorkers(1, "w", worker.Config{})
	rep := submit(t, c.Coordinator, benchSweep("real", 3, 1, 0, ""), false)
	WaitRun(t, c.Coordinator, rep.Run, eventWait)
	ctx := context.Background()
	pack := `{"run":"` + rep.Run + `","jobs":[` +
		`{"id":"11111111-1111-1111-1111-111111111111","model":"bench","model_version":"1","params":{"size":-5}},` +
		`{"id":"22222222-2222-2222-2222-222222222222","model":"nosuchmodel","model_version":"1","params":{}},` +
		`{"id":"55555555-5555-5555-5555-555555555555","sweep":"real","model":"bench","model_version":"1","params":{"size":4}}]}`
	if _, err := c.Farm.JS.Publish(ctx, c.Farm.Names.JobSubject(rep.Run), []byte(pack)); err != nil {
		t.Fatal(err)
	}
	reasons := expectFailures(t, c, rep.Run, map[string]string{
		"11111111-1111-1111-1111-111111111111": "malformed job message",
		"22222222-2222-2222-2222-222222222222": "not built into this worker",
	})
	if _, failed := reasons["55555555-5555-5555-5555-555555555555"]; failed {
		t.Error("the good job of the pack was recorded as failed")
	}
	if rejected := logLines(f.Logs.String(), "level=ERROR", `msg="rejected a malformed job message"`, "job=11111111-1111-1111-1111-111111111111"); len(rejected) == 0 {
		t.Errorf("the worker did not log the malformed job of the pack it rejected:\n%s", f.Logs.String())
	}
	// Its result was registered (a part of this run holds it).
	lister, err := c.Farm.Done.ListKeysFiltered(ctx, rep.Run+".*")
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for k := range lister.Keys() {
		e, err := c.Farm.Done.Get(ctx, k)
		if err != nil {
			t.Fatal(err)
		}
		var p broker.PartRecord
		if err := json.Unmarshal(e.Value(), &p); err != nil {
			t.Fatal(err)
		}
		for _, id := range p.Jobs {
			found = found || id == "55555555-5555-5555-5555-555555555555"
		}
	}
	if !found {
		t.Error("the good job of the pack has no registered result")
	}
}

// TestPrefetchedJobGoesToIdleWorker: a worker pulls the next message ahead
// while it runs one (after short messages, with plenty queued), but when
// the one it runs turns out long and another worker has nothing to do, it
// hands the message it holds to that worker instead of keeping it until
// its own job ends: the long job is the last its worker runs. The long job
// is held in flight (a gate) until every other job is done, which only a
// hand-off lets happen.
func TestPrefetchedJobGoesToIdleWorker(t *testing.T) {
	const long = 2.5
	text := fmt.Sprintf(`sweeps:
  - name: hold
    model: bench
    seed: 7
    axes:
      - name: work_ms
        values: [1, 1.1, 1.2, 1.3, %g, 3, 1.4, 1.5, 1.6, 1.7, 1.8, 1.9, 2.1, 2.2, 2.3]
`, long)
	f := New(t, Settings())
	c := f.StartCoordinator("coord")
	held, g := f.heldBench(func(p simcore.Params) bool { return p.Float("work_ms") == long })
	held.StartWorkers(2, "w", worker.Config{FlushRows: 50})
	rep := submit(t, c.Coordinator, text, false)
	g.waitHeld(t, 1, "a worker (the long job)")
	waitFor(t, "the 14 other jobs to be done while the long one is held (the prefetched message handed to the idle worker)", func() bool {
		p, err := c.Progress(context.Background(), rep.Run)
		return err == nil && p.Done == 14
	})
	g.Open()
	WaitRun(t, c.Coordinator, rep.Run, eventWait)
	jobs := readJobs(t, collect(t, f, c.Farm, rep.Run)[0].Dir)
	workers, work := strCol(t, jobs, "worker"), jobs.Col("work_ms").([]float64)
	starts := jobs.Col("started_at").([]time.Time)
	l := slices.Index(work, long)
	if l < 0 {
		t.Fatal("the long job has no row")
	}
	for i := range work {
		if i != l && workers[i] == workers[l] && starts[i].After(starts[l]) {
			t.Errorf("job of %g ms ran on %s after the long job there (started %v vs %v): it was held back from the idle worker",
				work[i], workers[i], starts[i], starts[l])
		}
	}
}

// TestPackingShortestSweepLast: under auto packing the probed sweeps are
// published longest jobs first, whatever their order in the file, and the
// one of the shortest jobs ends the run in shrinking packs. The long
// sweep's jobs last 120 ms at least (waiting, not burning): long against a
// 200-ms target whatever the machine's speed, and longer than the 0-ms
// jobs unless those take 100 ms each.
func TestPackingShortestSweepLast(t *testing.T) {
	text := benchSweep("short", 20, 5, 0, "") + strings.TrimPrefix(benchSweep("long", 5, 2, 2, ""), "sweeps:\n")
	lasts := func(f *Farm) *Farm {
		return f.withModel(&lasting{bench.New(), 120 * time.Millisecond, func(p simcore.Params) bool { return p.Float("work_ms") == 2 }})
	}
	pol := coordinator.Packing{Mode: coordinator.PackAuto, Target: 200 * time.Millisecond, ProbeJobs: 4, ProbeWait: time.Minute}
	_, choices, _ := packedRun(t, Settings(), pol, 2, text, lasts)
	if len(choices) != 2 || choices[0].Sweep != "short" || choices[1].Sweep != "long" {
		t.Fatalf("packing %+v", choices)
	}
	short, long := choices[0], choices[1]
	if !(short.ProbeMeanMs < long.ProbeMeanMs) || short.K <= long.K {
		t.Fatalf("probes: short %+v, long %+v", short, long)
	}
	if !strings.Contains(short.Reason, "published last") || strings.Contains(long.Reason, "published last") {
		t.Errorf("the sweep of the shortest jobs should end the run:\nshort: %s\nlong: %s", short.Reason, long.Reason)
	}
}

// TestProbeWaitCountsFromLastResult: ProbeWait bounds the wait for the
// next probe result, not the whole probe: a probe that takes longer than
// ProbeWait in all but whose results keep coming is waited for to the end,
// and every sweep is measured on all its probe jobs. The slow sweep's jobs
// are held in flight (a gate) and let go one every 500 ms, so the 16 of
// its probe (and the tiny sweep's 16, queued among them) come back over at
// least 7.5 s, against a ProbeWait of 5 s: a gap between two results
// exceeds ProbeWait only if storing one result takes over 4.5 s.
func TestProbeWaitCountsFromLastResult(t *testing.T) {
	const probeJobs, step = 16, 500 * time.Millisecond
	text := benchSweep("slow", 66, 1, 1, "") + strings.TrimPrefix(benchSweep("tiny", 20, 5, 0, ""), "sweeps:\n")
	f := New(t, Settings())
	c := f.StartCoordinatorWith("coord", coordinator.Config{Packing: coordinator.Packing{Mode: coordinator.PackAuto, ProbeJobs: probeJobs, ProbeWait: 5 * time.Second}})
	held, g := f.heldBench(func(p simcore.Params) bool { return p.Float("work_ms") == 1 })
	held.StartWorkers(2, "w", worker.Config{FlushRows: 50})
	stop := make(chan struct{})
	released := make(chan struct{})
	go func() {
		defer close(released)
		for i := 0; i < probeJobs; i++ {
			select {
			case <-stop:
				return
			case <-time.After(step):
			}
			if !g.releaseOne(stop) {
				return
			}
		}
	}()
	rep := submit(t, c.Coordinator, text, false)
	close(stop)
	<-released
	g.Open()
	WaitRun(t, c.Coordinator, rep.Run, eventWait)
	choices := runRecord(t, c.Farm, rep.Run).Packing
	if len(choices) != 2 || choices[1].Sweep != "tiny" {
		t.Fatalf("packing %+v", choices)
	}
	if slow, tiny := choices[0], choices[1]; slow.K != 1 || slow.Probed < 4 || tiny.Probed != probeJobs {
		t.Errorf("the probe ended before all its results came back:\nslow: %+v\ntiny: %+v", slow, tiny)
	}
}
