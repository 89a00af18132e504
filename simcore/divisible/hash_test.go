package divisible

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"testing"

	"schedfarm/simcore"
)

// TestScheduleHashes pins the metrics and the task and schedule tables of
// every algorithm on a few mid-size runs (loads, cost ratios, the
// planning, user-split, node-release and integer-time variants):
// performance work must leave them bit-identical. The hashes were computed
// with the code before the pprof-guided optimisations of issue #10; a
// change of any decision changes them (and must bump the model version).
func TestScheduleHashes(t *testing.T) {
	want := map[string]string{
		"EDF-DLT":        "e446c39e81c12536",
		"EDF-USERSPLIT":  "3249a90ec9da6c21",
		"EDF-OPR-MN":     "e34c36ed38b820a1",
		"EDF-OPR-AN":     "951b4087d2ebbf4e",
		"FIFO-DLT":       "7a58a824e6746e17",
		"FIFO-USERSPLIT": "93ab6fb7bc4875f6",
		"FIFO-OPR-MN":    "0739c2c1dfa71246",
		"FIFO-OPR-AN":    "e3077ce96c268fa9",
	}
	m := New()
	s := m.Schema()
	instances := []simcore.Params{
		{"load": 1.0},
		{"load": 0.6, "dc_ratio": 10.0, "cms": 2.0, "cps": 500.0},
		{"load": 0.9, "avg_sigma": 400.0, "planning": "per_task", "node_release": "actual"},
		{"load": 0.8, "user_split": "code", "node_release": "rtgrid", "sigma_dist": "uniform", "deadline_rule": "per_task"},
		{"load": 1.0, "integer_time": true, "n_nodes": int64(32), "cps": 50.0},
	}
	got := map[string]string{}
	for _, alg := range AlgorithmNames() {
		h := sha256.New()
		for i, inst := range instances {
			p := simcore.Params{"algorithm": alg, "total_time": 1_000_000.0, "task_table": true, "schedule": true}
			for k, v := range inst {
				p[k] = v
			}
			full, err := s.Complete(p)
			if err != nil {
				t.Fatal(err)
			}
			r, err := m.Run(context.Background(), full, uint64(300+i))
			if err != nil {
				t.Fatalf("%s on %v: %v", alg, inst, err)
			}
			if sc := r.Tables["schedule"]; sc == nil || sc.Len() == 0 {
				t.Fatalf("%s on %v: no schedule table", alg, inst)
			}
			fmt.Fprintf(h, "instance %d:", i)
			simcore.WriteDigest(h, s, r)
		}
		got[alg] = hex.EncodeToString(h.Sum(nil))[:16]
	}
	for _, alg := range AlgorithmNames() {
		if want[alg] != got[alg] {
			t.Errorf("%s: schedule hash %s, want %s", alg, got[alg], want[alg])
		}
	}
}
