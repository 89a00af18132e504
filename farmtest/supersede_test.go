package farmtest

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"schedfarm/broker"
	"schedfarm/results"
	"schedfarm/simcore/bench"
	"schedfarm/worker"
)

// TestForcedResultSupersedes: a forced rerun's results replace the earlier
// run's for every later run that skips the jobs. A stored part of the first
// run is rewritten with a wrong value (standing for a result of a buggy
// model version); `submit --force` reruns every job; a later plain
// submission skips them all and must collect the forced run's values, not
// the rewritten part's.
func TestForcedResultSupersedes(t *testing.T) {
	f := New(t, Settings())
	c := f.StartCoordinator("coord")
	f.StartWorkers(2, "w", worker.Config{})
	text := benchSweep("supersede", 6, 2, 0, "")
	first := submit(t, c.Coordinator, text, false)
	WaitRun(t, c.Coordinator, first.Run, time.Minute)
	truth := valuesByJob(t, f, c.Farm, first.Run)

	// Rewrite one of the first run's parts: every value of it + 1000.
	ctx := context.Background()
	lister, err := c.Farm.Done.ListKeysFiltered(ctx, first.Run+".*")
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for k := range lister.Keys() {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if len(keys) == 0 {
		t.Fatal("the first run registered no part")
	}
	e, err := c.Farm.Done.Get(ctx, keys[0])
	if err != nil {
		t.Fatal(err)
	}
	var rec broker.PartRecord
	if err := json.Unmarshal(e.Value(), &rec); err != nil {
		t.Fatal(err)
	}
	var jobsObj string
	for _, o := range rec.Objects {
		if strings.HasSuffix(o, "/"+results.JobsTable+".parquet") {
			jobsObj = o
		}
	}
	data, err := c.Farm.Parts.GetBytes(ctx, jobsObj)
	if err != nil {
		t.Fatal(err)
	}
	schema := bench.New().Schema()
	rows, err := results.DecodePart(schema, map[string][]byte{results.JobsTable: data})
	if err != nil {
		t.Fatal(err)
	}
	for i := range rows {
		rows[i].Result.Metrics["value"] = rows[i].Result.Metrics["value"].(float64) + 1000
		rows[i].Result.Tables = nil
	}
	objs, err := results.EncodePart(schema, results.PartInfo{RunID: first.Run}, rows)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Farm.Parts.PutBytes(ctx, jobsObj, objs[results.JobsTable]); err != nil {
		t.Fatal(err)
	}
	if wrong := valuesByJob(t, f, c.Farm, first.Run); equalValues(wrong, truth) {
		t.Fatal("the rewritten part changed no collected value")
	}

	forced := submit(t, c.Coordinator, text, true)
	WaitRun(t, c.Coordinator, forced.Run, time.Minute)
	if got := valuesByJob(t, f, c.Farm, forced.Run); !equalValues(got, truth) {
		t.Fatalf("the forced run's values differ from the first run's before the rewrite")
	}
	later := submit(t, c.Coordinator, text, false)
	if later.Published != 0 {
		t.Fatalf("the later submission published %d job(s), want every one skipped", later.Published)
	}
	WaitRun(t, c.Coordinator, later.Run, time.Minute)
	if got := valuesByJob(t, f, c.Farm, later.Run); !equalValues(got, truth) {
		t.Errorf("the later run collected the superseded part's values:\ngot  %v\nwant %v", got, truth)
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
