package batch

import (
	"context"
	"math"
	"strings"
	"testing"

	"schedfarm/internal/datatest"
	"schedfarm/simcore"
	"schedfarm/simcore/workload"
)

// TestSyntheticWorkloadSchedules: the synthetic workload of the CTC
// fixture (338 processors, MaxProcs of its header) on machines of other
// sizes, through the model's parameters: the jobs asked for, sizes within
// the machine, the offered load set (synth_load, or the source log's on
// its machine when 0), and a schedule the checker accepts under FCFS with
// EASY and conservative backfilling; the same seed gives the same
// schedule.
func TestSyntheticWorkloadSchedules(t *testing.T) {
	m := New(datatest.Fixtures(t))
	tr, err := m.trace(ctcFixture, false)
	if err != nil {
		t.Fatal(err)
	}
	log, _, err := workload.Convert(tr.Records, workload.DefaultConventions(338))
	if err != nil {
		t.Fatal(err)
	}
	srcLoad := workload.OfferedLoad(log, 338)
	for _, c := range []struct {
		nodes    int64
		sizes    string
		load     float64
		backfill string
	}{
		{4096, workload.SizesFraction, 0, "easy"},
		{4096, workload.SizesNodes, 0.9, "easy"},
		{100, workload.SizesFraction, 0.7, "conservative"},
		{1000, workload.SizesNodes, 0, "conservative"},
	} {
		p, err := schema.Complete(simcore.Params{"workload": "synthetic", "trace": ctcFixture, "jobs": int64(1500), "nodes": c.nodes,
			"synth_sizes": c.sizes, "synth_load": c.load, "backfill": c.backfill, "schedule_table": true})
		if err != nil {
			t.Fatal(err)
		}
		res, err := m.Run(context.Background(), p, 7)
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		if n := res.Metrics["n_jobs"].(int64); n != 1500 {
			t.Errorf("%+v: %d jobs", c, n)
		}
		want := c.load
		if want == 0 {
			want = srcLoad
		}
		if l := res.Metrics["offered_load"].(float64); math.Abs(l/want-1) > 0.01 {
			t.Errorf("%+v: offered load %.4f, want %.4f", c, l, want)
		}
		// the schedule, rebuilt from the table and the generated jobs
		jobs, _, err := m.workload(p, 7, int(c.nodes))
		if err != nil {
			t.Fatal(err)
		}
		cols := res.Tables["schedule"].Columns
		start, end := cols["start"].([]float64), cols["end"].([]float64)
		for i, j := range jobs {
			if j.Size < 1 || j.Size > int(c.nodes) || j.Run > j.Estimate {
				t.Fatalf("%+v: job %d invalid: %+v", c, i, j)
			}
		}
		validate(t, jobs, &Outcome{Start: start, End: end}, int(c.nodes))
		again, err := m.Run(context.Background(), p, 7)
		if err != nil {
			t.Fatal(err)
		}
		if a := again.Tables["schedule"].Columns["start"].([]float64); scheduleHash(&Outcome{Start: a}) != scheduleHash(&Outcome{Start: start}) {
			t.Errorf("%+v: same seed, another schedule", c)
		}
	}
}

// TestSyntheticWorkloadErrors: settings the synthetic workload cannot
// honour fail with what to change.
func TestSyntheticWorkloadErrors(t *testing.T) {
	m := New(datatest.Fixtures(t))
	for _, c := range []struct {
		p    simcore.Params
		want string
	}{
		{simcore.Params{"nodes": int64(100), "synth_sizes": workload.SizesNodes}, "wider than the target"},
		{simcore.Params{"nodes": int64(1000), "arrivals": workload.ArrivalsLogSpan}, "synth_load"},
	} {
		c.p["workload"], c.p["trace"], c.p["jobs"] = "synthetic", ctcFixture, int64(100)
		p, err := schema.Complete(c.p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.Run(context.Background(), p, 1); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want one containing %q", c.p, err, c.want)
		}
	}
}
