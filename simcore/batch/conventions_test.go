package batch

import (
	"context"
	"fmt"
	"testing"

	"schedfarm/simcore"
)

// TestConventionsTinyLogs runs the two tiny logs of docs/models/batch.md
// (testdata/tiny.swf, testdata/tinycons.swf: 10 nodes, requested time =
// SWF field 9) through the model and checks the starts that page states.
// tiny: jobs 1 and 2 end exactly at their estimate at t=100; FCFS+EASY
// starts job 5 at 100 and job 6 at 150 under both event orders (a
// one-event-at-a-time simulator such as pyss counts the expiring jobs as
// free at 100). tinycons: job 2 ends early at t=10; conservative
// backfilling re-fitting the reservations in order of their start gives
// the freed slot to job 6 (6 at 150, 5 at 200), in queue order as pyss
// does to job 5 (5 at 150, 6 at 230).
func TestConventionsTinyLogs(t *testing.T) {
	m := New(simcore.Dirs{"testdata"})
	for _, c := range []struct {
		trace, backfill, events, compress string
		want                              []float64 // starts of jobs 1-6
	}{
		{"tiny.swf", "easy", "batch", "start", []float64{0, 0, 1, 1001, 100, 150}},
		{"tiny.swf", "easy", "each", "start", []float64{0, 0, 1, 1001, 100, 150}},
		{"tiny.swf", "easy", "each", "arrival", []float64{0, 0, 1, 1001, 100, 150}},
		{"tinycons.swf", "conservative", "batch", "start", []float64{0, 0, 10, 300, 200, 150}},
		{"tinycons.swf", "conservative", "each", "start", []float64{0, 0, 10, 300, 200, 150}},
		{"tinycons.swf", "conservative", "batch", "arrival", []float64{0, 0, 10, 300, 150, 230}},
		{"tinycons.swf", "conservative", "each", "arrival", []float64{0, 0, 10, 300, 150, 230}},
	} {
		name := fmt.Sprintf("%s FCFS+%s event_order=%s compress_order=%s", c.trace, c.backfill, c.events, c.compress)
		p, err := schema.Complete(simcore.Params{"trace": c.trace, "nodes": int64(10), "backfill": c.backfill,
			"event_order": c.events, "compress_order": c.compress, "schedule_table": true})
		if err != nil {
			t.Fatal(err)
		}
		res, err := m.Run(context.Background(), p, 1)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got := res.Tables["schedule"].Columns["start"].([]float64)
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s: starts %v, want %v", name, got, c.want)
		}
	}
}
