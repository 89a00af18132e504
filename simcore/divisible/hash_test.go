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
// with the code before the pprof-guided optimisations of issue #10 and
// re-pinned when the metric iit_share was added (the old pins still held
// without it); a change of any decision changes them (and must bump the
// model version).
func TestScheduleHashes(t *testing.T) {
	want := map[string]string{
		"EDF-DLT":        "105633a4e82eefcb",
		"EDF-USERSPLIT":  "d69085f8efd78473",
		"EDF-OPR-MN":     "3534b69edb519f92",
		"EDF-OPR-AN":     "53c9dad878259aff",
		"FIFO-DLT":       "fa9ad7d09842c87b",
		"FIFO-USERSPLIT": "e9fc7d59f125a077",
		"FIFO-OPR-MN":    "e1d2ba7daa13eac2",
		"FIFO-OPR-AN":    "827bb3aa2745df74",
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
