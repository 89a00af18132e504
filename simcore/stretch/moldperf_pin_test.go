package stretch

import (
	"fmt"
	"testing"

	"schedfarm/internal/datatest"
	"schedfarm/simcore/modeltest"
)

// moldPinCase is one pinned run: an instance and a configuration whose
// schedule hash was computed with the code before the performance work
// (commit "stretch: pin moldable schedules"), so every optimisation of the
// moldable algorithms must keep each decision bit for bit.
type moldPinCase struct {
	inst string // instance key in moldPinInstances
	alg  string
	rho  float64
	hash string
}

// fixtureFiles are the first 2,000 jobs of the logs of traceFiles,
// committed under internal/datatest/testdata/traces: the pinned instances take the first
// 1,500, so their hashes are those of the whole logs.
var fixtureFiles = map[string]string{
	"sdsc": "traces/SDSC-Par-1996-3.1-cln.first2000.swf.gz",
	"osc":  "traces/OSC-Clust-2000-3.1-cln.first2000.swf.gz",
}

// moldPinInstance builds the pinned instances: sdsc-like and osc-like
// (the first jobs of the logs under the Downey model) and synthetic SSM
// ones at a low and a high load, one on a small machine for contention.
func moldPinInstance(t *testing.T, key string) ([]MoldTask, int) {
	t.Helper()
	switch key {
	case "sdsc", "osc":
		m := New(datatest.Fixtures(t))
		jobs, err := m.trace(fixtureFiles[key], 512, 1)
		if err != nil {
			t.Fatalf("%s fixture: %v", key, err)
		}
		tasks, err := DowneyInstance(jobs, 1500, 512, 7)
		if err != nil {
			t.Fatal(err)
		}
		return tasks, 512
	case "ssm-low":
		tasks, err := SSMInstance(1500, 512, 180, DefaultSSM, 11)
		if err != nil {
			t.Fatal(err)
		}
		return tasks, 512
	case "ssm-high":
		tasks, err := SSMInstance(1500, 512, 480, DefaultSSM, 12)
		if err != nil {
			t.Fatal(err)
		}
		return tasks, 512
	case "ssm-small":
		tasks, err := SSMInstance(600, 64, 70, DefaultSSM, 13)
		if err != nil {
			t.Fatal(err)
		}
		return tasks, 64
	}
	t.Fatalf("unknown instance %q", key)
	return nil, 0
}

// moldScheduleHash is FNV-64a over (start, end, processors) of every
// task, floats by their bits.
func moldScheduleHash(out *MoldOutcome) string {
	h := modeltest.NewHash()
	for i := range out.Start {
		h.Float(out.Start[i], out.End[i])
		h.Int(int64(out.Procs[i]))
	}
	return fmt.Sprintf("%016x", h.Sum())
}

var moldPinCases = []moldPinCase{
	{"sdsc", "DBOS", 1.5, "387baa4d9558decb"},
	{"sdsc", "DBOS", 1, "17ad2acce8136186"},
	{"sdsc", "DBOS", 3, "0148be7b0f179971"},
	{"sdsc", "Iterative", 0, "678024193ce83cbd"},
	{"sdsc", "ImprovedIterative", 0, "678024193ce83cbd"},
	{"sdsc", "SCOJO-P", 0, "0bd995b999e01958"},
	{"sdsc", "FCFS", 0, "1a4dd5ee6534fa79"},
	{"osc", "DBOS", 1.5, "6458b31bc7583f51"},
	{"osc", "DBOS", 1, "eea433ce3e5f4a58"},
	{"osc", "DBOS", 3, "15d517b82cf9ba3f"},
	{"osc", "Iterative", 0, "04954bff1328f6b4"},
	{"osc", "ImprovedIterative", 0, "04954bff1328f6b4"},
	{"osc", "SCOJO-P", 0, "3f0ed719e2feec81"},
	{"osc", "FCFS", 0, "fd3116c965a658b9"},
	{"ssm-low", "DBOS", 1.5, "c34275f9ee223260"},
	{"ssm-low", "DBOS", 1, "53b448839c7f847c"},
	{"ssm-low", "DBOS", 3, "9cc41b379b5b05f0"},
	{"ssm-low", "Iterative", 0, "7c0e36d6151e1ce3"},
	{"ssm-low", "ImprovedIterative", 0, "b5a42440288fab70"},
	{"ssm-low", "SCOJO-P", 0, "bb78226e3c05d479"},
	{"ssm-low", "FCFS", 0, "cca86a3b1e9a6d5a"},
	{"ssm-high", "DBOS", 1.5, "559554943f98c924"},
	{"ssm-high", "DBOS", 1, "d95b3c18bd93484c"},
	{"ssm-high", "DBOS", 3, "3d7484c109e39341"},
	{"ssm-high", "Iterative", 0, "b471d744ad06b0db"},
	{"ssm-high", "ImprovedIterative", 0, "86ef70329a1d218f"},
	{"ssm-high", "SCOJO-P", 0, "565ba14ac7c41973"},
	{"ssm-high", "FCFS", 0, "7f70b5d0db557c33"},
	{"ssm-small", "DBOS", 1.5, "2fd983ce6c5fa800"},
	{"ssm-small", "DBOS", 1, "4997ef36903b20ac"},
	{"ssm-small", "DBOS", 3, "2cd55351636f3621"},
	{"ssm-small", "Iterative", 0, "a29e4f5ce2af5c8a"},
	{"ssm-small", "ImprovedIterative", 0, "b36d6af6bda22464"},
	{"ssm-small", "SCOJO-P", 0, "36ffe171f53c8aec"},
	{"ssm-small", "FCFS", 0, "ffe93f4d058f8779"},
}

// TestMoldableSchedulesPinned checks every moldable algorithm's schedule on
// mid-size instances against hashes computed before the performance work:
// the optimisations must not change a single start, end or size.
func TestMoldableSchedulesPinned(t *testing.T) {
	algs := []struct {
		alg string
		rho float64
	}{{DBOS, 1.5}, {DBOS, 1}, {DBOS, 3}, {Iterative, 0}, {ImprovedIter, 0}, {SCOJOP, 0}, {FCFSSeq, 0}}
	want, got := map[string]string{}, map[string]string{}
	for _, c := range moldPinCases {
		want[fmt.Sprintf("%s/%s/%v", c.inst, c.alg, c.rho)] = c.hash
	}
	for _, inst := range []string{"sdsc", "osc", "ssm-low", "ssm-high", "ssm-small"} {
		tasks, P := moldPinInstance(t, inst)
		for _, a := range algs {
			key := fmt.Sprintf("%s/%s/%v", inst, a.alg, a.rho)
			if testing.Short() && a.alg == DBOS && a.rho != 1.5 {
				delete(want, key)
				continue
			}
			got[key] = moldScheduleHash(simMold(t, tasks, MoldConfig{P: P, Algorithm: a.alg, Rho: a.rho}))
		}
	}
	modeltest.Pins(t, want, got)
}
