package dssp

import (
	"testing"

	"schedfarm/simcore"
	"schedfarm/simcore/modeltest"
)

// TestScheduleHashes pins the metrics and the schedule, completion and
// release tables of every dispatcher under each selector on a few
// mid-size nights: performance work must leave them bit-identical. The
// hashes were computed with the code before the pprof-guided
// optimisations of the scaling study; a change of any decision changes them (and
// must bump the model version). The digest covers every metric: adding
// the metrics earned_of_selected and selection_gap_pooled changed the
// hashes, not the decisions (checked with the metric left out of the
// digest).
func TestScheduleHashes(t *testing.T) {
	want := map[string]string{
		"RANDOM":   "d1288f8504a41dae",
		"FIRST":    "998c3f5287f85756",
		"PRIORITY": "19d06ef843d33b1b",
		"STCPU":    "baf14ee99bad409e",
		"LCPF":     "9f56f485e3ae7b18",
		"CPA":      "6a0f62dcc0a2aead",
	}
	instances := []simcore.Params{
		{"min_demand": 1.0, "night_rank": int64(3)},
		{"min_demand": 1.0, "night_rank": int64(12), "reward": "size", "selector": "dp"},
		{"min_demand": 1.0, "night_rank": int64(7), "reward": "banded", "selector": "bnb", "team_cap": 0.3},
		{"workload": "subsets", "tinf_max_h": 4.0, "selector": "none"},
		{"min_demand": 1.1, "night_rank": int64(2), "selector": "greedy", "budget_rule": "theorem4", "estimates": "predicted"},
		{"min_demand": 1.0, "night_rank": int64(20), "selector": "maxk", "reward": "unit"},
	}
	m := New(simcore.Dirs{"testdata"})
	got := map[string]string{}
	for _, pol := range Policies {
		var runs []modeltest.Instance
		for i, inst := range instances {
			if pol == string(CPA) && inst["estimates"] == "predicted" {
				continue
			}
			p := simcore.Params{"dispatcher": pol, "schedule_table": true, "job_table": true, "proc_table": true}
			for k, v := range inst {
				p[k] = v
			}
			runs = append(runs, modeltest.Instance{N: i, Params: p, Seed: uint64(200 + i)})
		}
		got[pol] = modeltest.Digest(t, m, runs, "schedule")
	}
	modeltest.Pins(t, want, got)
}
