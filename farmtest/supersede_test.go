package farmtest

import (
	"context"
	"encoding/json"
	"testing"

	"schedfarm/broker"
)

// TestForcedResultSupersedes: a forced rerun's results replace the earlier
// run's for every later run that skips the jobs. A stored part of the first
// run is rewritten with a wrong value (standing for a result of a buggy
// model version); `submit --force` reruns every job; a later plain
// submission skips them all and must collect the forced run's values, not
// the rewritten part's.
func TestForcedResultSupersedes(t *testing.T) {
	r := runToEnd(t, "supersede", 6, 2, 2)
	f, c, text, first := r.f, r.c, r.text, r.run
	truth := valuesByJob(t, f, c.Farm, first.Run)

	// Rewrite one of the first run's parts: every value of it + 1000, its
	// digest recorded anew (as an administrator could: this stands for an
	// authentic but wrong result, not for damage).
	key, rec := firstPart(t, c.Farm, first.Run)
	jobsObj := jobsObject(t, rec)
	data, err := c.Farm.Parts.GetBytes(context.Background(), jobsObj)
	if err != nil {
		t.Fatal(err)
	}
	rewritePart(t, c.Farm, key, rec, jobsObj, plus1000(t, first.Run, data))
	if wrong := valuesByJob(t, f, c.Farm, first.Run); equalValues(wrong, truth) {
		t.Fatal("the rewritten part changed no collected value")
	}

	forced := submit(t, c.Coordinator, text, true)
	WaitRun(t, c.Coordinator, forced.Run, eventWait)
	if got := valuesByJob(t, f, c.Farm, forced.Run); !equalValues(got, truth) {
		t.Fatalf("the forced run's values differ from the first run's before the rewrite")
	}
	later := submit(t, c.Coordinator, text, false)
	if later.Published != 0 {
		t.Fatalf("the later submission published %d job(s), want every one skipped", later.Published)
	}
	WaitRun(t, c.Coordinator, later.Run, eventWait)
	if got := valuesByJob(t, f, c.Farm, later.Run); !equalValues(got, truth) {
		t.Errorf("the later run collected the superseded part's values:\ngot  %v\nwant %v", got, truth)
	}
}

// rewritePart replaces an object of a part and records its new digest in
// the part's registry entry, as only an administrator can: the registry
// is create-only, so its seal is lifted for the put and restored.
func rewritePart(t *testing.T, bf *broker.Farm, key string, rec broker.PartRecord, object string, data []byte) {
	t.Helper()
	ctx := context.Background()
	if _, err := bf.Parts.PutBytes(ctx, object, data); err != nil {
		t.Fatal(err)
	}
	for i, o := range rec.Objects {
		if o == object && i < len(rec.SHA256) {
			rec.SHA256[i] = broker.Digest(data)
		}
	}
	value, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	name := "KV_" + bf.Names.DoneBucket
	st, err := bf.JS.Stream(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	cfg := st.CachedInfo().Config
	cfg.DiscardNewPerSubject, cfg.AllowRollup = false, true
	if _, err := bf.JS.UpdateStream(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	if _, err := bf.Done.Put(ctx, key, value); err != nil {
		t.Fatal(err)
	}
	if err := bf.SealRegistry(ctx); err != nil {
		t.Fatal(err)
	}
}

// valuesByJob collects a run and returns its jobs' value metric by job ID.
func valuesByJob(t *testing.T, f *Farm, bf *broker.Farm, run string) map[string]float64 {
	t.Helper()
	out := collect(t, f, bf, run)
	fr := readJobs(t, out[0].Dir)
	ids := strCol(t, fr, "job_id")
	vals, ok := fr.Col("value").([]float64)
	if !ok {
		t.Fatalf("value column is %T", fr.Col("value"))
	}
	m := make(map[string]float64, len(ids))
	for i, id := range ids {
		m[id] = vals[i]
	}
	return m
}

func equalValues(a, b map[string]float64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}
