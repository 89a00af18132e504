package divisible

import (
	"testing"

	"schedfarm/simcore"
	"schedfarm/simcore/modeltest"
)

// TestScheduleHashes pins the metrics and the task and schedule tables of
// every algorithm on a few mid-size runs (loads, cost ratios, the
// planning, user-split, node-release and integer-time variants):
// performance work must leave them bit-identical. The hashes were computed
// with the code before the pprof-guided optimisations of the scaling study and
// re-pinned when the metrics iit_share and mean_exec_time were added (the
// old pins still held without each); a change of any decision changes them
// (and must bump the model version).
func TestScheduleHashes(t *testing.T) {
	want := map[string]string{
		"EDF-DLT":        "27b46f4268b07ae8",
		"EDF-USERSPLIT":  "b8a0019aa7d05706",
		"EDF-OPR-MN":     "34f519b1ded17c58",
		"EDF-OPR-AN":     "b4ab612c4b4b0d9d",
		"FIFO-DLT":       "2b075b3c35f701ca",
		"FIFO-USERSPLIT": "6c8e6d90eb5e0a17",
		"FIFO-OPR-MN":    "167f98440d45aaa4",
		"FIFO-OPR-AN":    "29dd0f94cef6491b",
	}
	instances := []simcore.Params{
		{"load": 1.0},
		{"load": 0.6, "dc_ratio": 10.0, "cms": 2.0, "cps": 500.0},
		{"load": 0.9, "avg_sigma": 400.0, "planning": "per_task", "node_release": "actual"},
		{"load": 0.8, "user_split": "code", "node_release": "rtgrid", "sigma_dist": "uniform", "deadline_rule": "per_task"},
		{"load": 1.0, "integer_time": true, "n_nodes": int64(32), "cps": 50.0},
	}
	m := New()
	got := map[string]string{}
	for _, alg := range AlgorithmNames() {
		var runs []modeltest.Instance
		for i, inst := range instances {
			p := simcore.Params{"algorithm": alg, "total_time": 1_000_000.0, "task_table": true, "schedule": true}
			for k, v := range inst {
				p[k] = v
			}
			runs = append(runs, modeltest.Instance{N: i, Params: p, Seed: uint64(300 + i)})
		}
		got[alg] = modeltest.Digest(t, m, runs, "schedule")
	}
	modeltest.Pins(t, want, got)
}
