package export

import (
	"errors"
	"strings"
	"testing"
)

// TestEveryScheduleModel: every model with a schedule adapter is in the
// test sweep file, and each of its jobs exports as valid schedules.
func TestEveryScheduleModel(t *testing.T) {
	run := collectRun(t, "schedules.yaml")
	seen := map[string]int{}
	for _, sw := range run.sweeps(t) {
		scheds, err := Schedules(sw)
		switch sw.Name {
		case "t-batch-off": // one job with its schedule, one without
			if err != nil || len(scheds) != 1 || scheds[0].JobIndex != 1 {
				t.Errorf("%s: %d schedules, %v", sw.Name, len(scheds), err)
			}
		case "t-batch-none":
			if !errors.Is(err, ErrNoSchedule) || !strings.Contains(err.Error(), "schedule_table: false") {
				t.Errorf("%s: want ErrNoSchedule naming the option, got %v", sw.Name, err)
			}
			continue
		}
		if sw.Model == "bench" {
			if !errors.Is(err, ErrNoSchedule) {
				t.Errorf("bench: want ErrNoSchedule, got %v", err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", sw.Name, err)
		}
		for _, s := range scheds {
			if len(s.Jobs) == 0 {
				t.Errorf("%s %s: no jobs", sw.Name, s.Name())
			}
			seen[sw.Model]++
		}
	}
	for _, m := range ScheduleModels() {
		if seen[m] == 0 {
			t.Errorf("model %s: no schedule exported (add it to testdata/schedules.yaml)", m)
		}
	}
}
