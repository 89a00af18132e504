package dssp

import (
	"testing"

	"schedfarm/simcore/rng"
)

// benchNight is the heaviest night of the published synthetic trace
// (about 45 jobs and 5,000 tasks) reduced by greedy selection to 13,000
// CPU-hours, as the dispatchers see it in Figs. 3-4.
func benchNight(b *testing.B) ([]Job, []JobKey) {
	b.Helper()
	night := SortByDemand(DefaultGenerator().Trace(DefaultTraceSeed))[0]
	var cand []Job
	for _, j := range night.Jobs {
		if j.TInf() <= 13 {
			cand = append(cand, j)
		}
	}
	items := make([]Item, len(cand))
	for i := range cand {
		items[i] = Item{Reward: Linear.Value(cand[i].Priority, cand[i].T1()), Weight: cand[i].T1()}
	}
	var jobs []Job
	for i, s := range Greedy(items, 13000, TiesLarge) {
		if s {
			jobs = append(jobs, cand[i])
		}
	}
	return jobs, keysOf(jobs)
}

func benchDispatch(b *testing.B, pol Policy) {
	jobs, keys := benchNight(b)
	for b.Loop() {
		if _, err := Simulate(jobs, keys, 1000, pol, rng.New(1).Stream("dispatch"), false); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(jobs)), "jobs")
	b.ReportMetric(float64(countTasks(jobs)), "tasks")
}

func BenchmarkModel_DispatchRANDOM(b *testing.B)   { benchDispatch(b, Random) }
func BenchmarkModel_DispatchFIRST(b *testing.B)    { benchDispatch(b, First) }
func BenchmarkModel_DispatchPRIORITY(b *testing.B) { benchDispatch(b, Priority) }
func BenchmarkModel_DispatchSTCPU(b *testing.B)    { benchDispatch(b, STCPU) }
func BenchmarkModel_DispatchLCPF(b *testing.B)     { benchDispatch(b, LCPF) }
func BenchmarkModel_DispatchCPA(b *testing.B)      { benchDispatch(b, CPA) }

// bandedItems are 100 jobs of the synthetic trace with banded rewards and
// a budget of half their demand.
func bandedItems() ([]Item, []int64, float64) {
	tr := DefaultGenerator().Trace(DefaultTraceSeed)
	var items []Item
	total := 0.0
	for n := 0; len(items) < 100; n++ {
		for _, j := range tr[n].Jobs {
			if len(items) == 100 {
				break
			}
			items = append(items, Item{Reward: Banded.Value(j.Priority, j.T1()), Weight: j.T1(), Team: j.Team})
			total += j.T1()
		}
	}
	return items, profits(items, Banded), total / 2
}

func BenchmarkModel_SelectDPBanded100(b *testing.B) {
	items, p, capacity := bandedItems()
	for b.Loop() {
		if _, err := DPProfits(items, p, capacity, 0); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkModel_SelectDPBanded100FPTAS(b *testing.B) {
	items, p, capacity := bandedItems()
	for b.Loop() {
		if _, err := DPProfits(items, p, capacity, 0.01); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkModel_SelectBnBBanded100TeamCaps(b *testing.B) {
	items, _, capacity := bandedItems()
	caps := map[int]float64{0: 0.3 * capacity, 1: 0.3 * capacity, 2: 0.3 * capacity, 3: 0.3 * capacity}
	for b.Loop() {
		if _, err := BranchAndBound(items, capacity, caps, 5_000_000); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkModel_SelectGreedy100(b *testing.B) {
	items, _, capacity := bandedItems()
	for b.Loop() {
		Greedy(items, capacity, TiesLarge)
	}
}

// BenchmarkModel_SolveNightLCPF is one whole night through the model's
// per-night path: drop, greedy selection, the §5.2 optimum, dispatch.
func BenchmarkModel_SolveNightLCPF(b *testing.B) {
	night := SortByDemand(DefaultGenerator().Trace(DefaultTraceSeed))[0]
	cfg := Config{P: 1000, D: 13, Reward: Linear, Selector: "greedy", Ties: TiesLarge, Budget: 13, Policy: LCPF, NodeLimit: 5_000_000}
	for b.Loop() {
		if _, err := Solve(&night, cfg, 1); err != nil {
			b.Fatal(err)
		}
	}
}
