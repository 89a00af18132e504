package export

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"schedfarm/simcore/workload"
)

func TestSeconds(t *testing.T) {
	tests := []struct {
		in   float64
		want int64
	}{
		{0, 0}, {0.49, 0}, {0.5, 1}, {1.5, 2}, {2.5, 3}, {2.4999, 2}, {7200.0000001, 7200}, {-0.5, -1},
	}
	for _, tc := range tests {
		if got := Seconds(tc.in); got != tc.want {
			t.Errorf("Seconds(%v) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

// TestSWFHand: fractional times rounded event by event, lines sorted by
// submission and numbered from 1, read back by the project's SWF reader
// (simcore/workload) to the same values.
func TestSWFHand(t *testing.T) {
	s := &Schedule{Sweep: "hand", Model: "batch", ModelVersion: "3", Capacity: 4, TimeUnit: "s",
		Params: []Param{{"order", "FCFS"}, {"note", "two words"}},
		Jobs: []Job{
			{ID: "x", Submit: 10.4, Start: 12.5, End: 20.49, Procs: 2, Resources: []int{0, 1}, Requested: 30.5},
			{ID: "y", Submit: 3.6, Start: 3.6, End: 12.5, Procs: 1, Resources: []int{2}, Requested: -1},
		},
	}
	var b bytes.Buffer
	if err := WriteSWF(&b, s, testProvenance()); err != nil {
		t.Fatal(err)
	}
	tr, err := workload.Read(&b, workload.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// by hand: y submit 4, start 4, end 13: wait 0, run 9
	//          x submit 10, start 13, end 20: wait 3, run 7, requested 31
	want := []workload.Record{
		{Job: 1, Submit: 4, Wait: 0, Run: 9, Alloc: 1, ReqProcs: 1, ReqTime: -1},
		{Job: 2, Submit: 10, Wait: 3, Run: 7, Alloc: 2, ReqProcs: 2, ReqTime: 31},
	}
	if len(tr.Records) != len(want) {
		t.Fatalf("%d records", len(tr.Records))
	}
	for i, w := range want {
		g := tr.Records[i]
		if g.Job != w.Job || g.Submit != w.Submit || g.Wait != w.Wait || g.Run != w.Run || g.Alloc != w.Alloc ||
			g.ReqProcs != w.ReqProcs || g.ReqTime != w.ReqTime || g.Status != 1 || g.Preceding != -1 {
			t.Errorf("record %d: %+v, want %+v", i, g, w)
		}
	}
	h := tr.Header
	if h.Version != SWFVersion || h.MaxProcs != 4 || h.MaxNodes != 4 || !strings.Contains(h.Installation, "v9.9.9-test") ||
		!strings.Contains(h.Installation, "feedbeef") || !strings.Contains(h.Computer, "batch version 3") {
		t.Errorf("header: %+v", h)
	}
	notes := strings.Join(h.Notes, "\n") + h.Fields["Note"]
	if !strings.Contains(notes, `order=FCFS note="two words"`) {
		t.Errorf("notes: %q", notes)
	}
}

// TestSWFRoundTrip: every exported schedule of every model reads back
// through simcore/workload to the values SWFJobs computed, and the
// rounded schedule keeps submit ≤ start.
func TestSWFRoundTrip(t *testing.T) {
	run := collectRun(t, "schedules.yaml")
	for _, sw := range run.sweeps(t) {
		if _, ok := adapters[sw.Model]; !ok {
			continue
		}
		scheds, err := Schedules(sw)
		if errors.Is(err, ErrNoSchedule) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range scheds {
			var b bytes.Buffer
			if err := WriteSWF(&b, s, testProvenance()); err != nil {
				t.Fatal(err)
			}
			tr, err := workload.Read(bytes.NewReader(b.Bytes()), workload.ReadOptions{})
			if err != nil {
				t.Fatalf("%s %s: %v", sw.Name, s.Name(), err)
			}
			want := SWFJobs(s)
			if len(tr.Records) != len(want) {
				t.Fatalf("%s %s: %d records, want %d", sw.Name, s.Name(), len(tr.Records), len(want))
			}
			for i, w := range want {
				g := tr.Records[i]
				if g.Job != w.Number || g.Submit != float64(w.Submit) || g.Wait != float64(w.Wait) || g.Run != float64(w.Run) ||
					g.Alloc != w.Procs || g.ReqTime != float64(w.Requested) || g.Wait < 0 || g.Run < 0 {
					t.Errorf("%s %s record %d: %+v, want %+v", sw.Name, s.Name(), i, g, w)
				}
				if i > 0 && g.Submit < tr.Records[i-1].Submit {
					t.Errorf("%s %s: not sorted by submit at %d", sw.Name, s.Name(), i)
				}
			}
		}
	}
}
