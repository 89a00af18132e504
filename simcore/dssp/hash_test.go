package dssp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"testing"

	"schedfarm/simcore"
)

// TestScheduleHashes pins the metrics and the schedule, completion and
// release tables of every dispatcher under each selector on a few
// mid-size nights: performance work must leave them bit-identical. The
// hashes were computed with the code before the pprof-guided
// optimisations of issue #10; a change of any decision changes them (and
// must bump the model version). The digest covers every metric: adding
// the metric earned_of_selected changed the hashes, not the decisions
// (checked with the metric left out of the digest).
func TestScheduleHashes(t *testing.T) {
	want := map[string]string{
		"RANDOM":   "92be0e087b23b944",
		"FIRST":    "d6e54f103680cb0e",
		"PRIORITY": "3bf1a6e677c6a607",
		"STCPU":    "bc9b46833a420610",
		"LCPF":     "2d012b1b0afa2439",
		"CPA":      "9a9301ce55091052",
	}
	m := New(simcore.Dirs{"testdata"})
	s := m.Schema()
	instances := []simcore.Params{
		{"min_demand": 1.0, "night_rank": int64(3)},
		{"min_demand": 1.0, "night_rank": int64(12), "reward": "size", "selector": "dp"},
		{"min_demand": 1.0, "night_rank": int64(7), "reward": "banded", "selector": "bnb", "team_cap": 0.3},
		{"workload": "subsets", "tinf_max_h": 4.0, "selector": "none"},
		{"min_demand": 1.1, "night_rank": int64(2), "selector": "greedy", "budget_rule": "theorem4", "estimates": "predicted"},
		{"min_demand": 1.0, "night_rank": int64(20), "selector": "maxk", "reward": "unit"},
	}
	got := map[string]string{}
	for _, pol := range Policies {
		h := sha256.New()
		for i, inst := range instances {
			if pol == string(CPA) && inst["estimates"] == "predicted" {
				continue
			}
			p := simcore.Params{"dispatcher": pol, "schedule_table": true, "job_table": true, "proc_table": true}
			for k, v := range inst {
				p[k] = v
			}
			full, err := s.Complete(p)
			if err != nil {
				t.Fatal(err)
			}
			r, err := m.Run(context.Background(), full, uint64(200+i))
			if err != nil {
				t.Fatalf("%s on %v: %v", pol, inst, err)
			}
			if sc := r.Tables["schedule"]; sc == nil || sc.Len() == 0 {
				t.Fatalf("%s on %v: no schedule table", pol, inst)
			}
			fmt.Fprintf(h, "instance %d:", i)
			simcore.WriteDigest(h, s, r)
		}
		got[pol] = hex.EncodeToString(h.Sum(nil))[:16]
	}
	for _, pol := range Policies {
		if want[pol] != got[pol] {
			t.Errorf("%s: schedule hash %s, want %s", pol, got[pol], want[pol])
		}
	}
}
