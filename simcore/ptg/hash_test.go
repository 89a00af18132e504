package ptg

import (
	"testing"

	"schedfarm/simcore"
	"schedfarm/simcore/modeltest"
)

// TestScheduleHashes pins the schedules and metrics of every algorithm on a
// few mid-size instances (each PTG class, two clusters): performance work
// must leave them bit-identical. The hashes were computed with the code
// before the pprof-guided optimisations of the scaling study; a change of any
// decision changes them (and must bump the model version).
func TestScheduleHashes(t *testing.T) {
	want := map[string]string{
		"C1":               "d6231fd7e897c430",
		"C4":               "ddc9f3842b111609",
		"CAFM_CRA":         "d6da71d2b619e883",
		"CAFM_CRA_WEIGHT":  "28a86c09ab748f53",
		"CAFM_K_SHELVES":   "710a84e5df96016c",
		"CAFM_LPTF":        "88943aa110d2bb44",
		"CAFM_SAF":         "c9b40c7825b816ce",
		"CAFM_SPTF":        "ba5f6b6923d9f9f0",
		"CRA_NDAGS":        "e7df6bb5eaf7bb91",
		"CRA_NDAGS_WEIGHT": "c2fefe0bf28b8ac9",
		"CRA_WIDTH":        "4da8f062e0883bf6",
		"CRA_WIDTH_WEIGHT": "eedfd9c5075aad15",
		"CRA_WORK":         "3e87ffb1ca601628",
		"CRA_WORK_WEIGHT":  "d897e4bd5898d4c4",
		"F1":               "280773a94da9d797",
		"F2":               "ca8bac413c0520f3",
		"SELFISH":          "7722239f6d68f513",
		"SELFISH_ORDER":    "fe91b41dc73f1ca3",
		"SELFISH_WEIGHT":   "5be718bb3393d037",
	}
	m := New(simcore.Dirs{"testdata"})
	got := map[string]string{}
	for _, alg := range Algorithms {
		var runs []modeltest.Instance
		for i, inst := range []struct {
			class, cluster string
			n              int64
		}{{"random", "grillon", 6}, {"strassen", "gdx", 4}, {"fft", "chti", 5}, {"random", "gdx", 8}} {
			runs = append(runs, modeltest.Instance{N: i, Seed: uint64(100 + i), Params: simcore.Params{"algorithm": alg,
				"ptg_class": inst.class, "cluster": inst.cluster, "n_ptgs": inst.n, "schedule_table": true, "ptg_table": true}})
		}
		got[alg] = modeltest.Digest(t, m, runs, "schedule")
	}
	modeltest.Pins(t, want, got)
}
