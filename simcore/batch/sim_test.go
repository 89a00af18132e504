package batch

import (
	"context"
	"math"
	"strings"
	"testing"

	"schedfarm/simcore/check"
	"schedfarm/simcore/workload"
)

func J(id int64, submit float64, size int, run float64) workload.Job {
	return workload.Job{ID: id, Submit: submit, Size: size, Run: run, Estimate: run, Request: run}
}

func validate(t *testing.T, jobs []workload.Job, o *Outcome, nodes int) {
	t.Helper()
	s := check.Schedule{Capacity: nodes}
	for i, j := range jobs {
		s.Entries = append(s.Entries, check.Entry{Task: j.ID, Node: -1, Procs: j.Size, Release: j.Submit,
			Start: o.Start[i], End: o.End[i], Deadline: math.Inf(1)})
		if o.End[i] != o.Start[i]+j.Run {
			t.Fatalf("job %d: end %v != start %v + run %v", j.ID, o.End[i], o.Start[i], j.Run)
		}
	}
	if err := check.Validate(s, 1e-9); err != nil {
		t.Fatal(err)
	}
	if o.Missed != 0 {
		t.Fatalf("%d reservations found in the past", o.Missed)
	}
}

func run(t *testing.T, jobs []workload.Job, nodes int, cfg Config) *Outcome {
	t.Helper()
	cfg.Nodes = nodes
	if cfg.Recompute == "" {
		cfg.Recompute = RecomputeNew
	}
	o, err := Simulate(context.Background(), jobs, cfg)
	if err != nil {
		t.Fatal(err)
	}
	validate(t, jobs, o, nodes)
	return o
}

func wantStarts(t *testing.T, name string, o *Outcome, want ...float64) {
	t.Helper()
	for i, w := range want {
		if o.Start[i] != w {
			t.Errorf("%s: starts %v, want %v", name, o.Start, want)
			return
		}
	}
}

// On 4 nodes: A (3 nodes, 10 s) runs; B (2, 10) is the head and reserves 10
// with 2 extra nodes; C (4, 5) reserves 20 behind B; D (1, 20) arrives at 3.
// EASY backfills D on an extra node (it ends at 23 > shadow 10 but uses only
// extra nodes), which delays the non-head job C from 20 to 23. Conservative
// protects C's reservation and puts D at 25. Garey & Graham starts D at 3
// and B as soon as it fits.
func TestEasyDelaysNonHeadConservativeDoesNot(t *testing.T) {
	jobs := []workload.Job{J(1, 0, 3, 10), J(2, 1, 2, 10), J(3, 2, 4, 5), J(4, 3, 1, 20)}
	wantStarts(t, "FCFS list", run(t, jobs, 4, Config{Order: FCFS}), 0, 10, 20, 25)
	wantStarts(t, "FCFS EASY", run(t, jobs, 4, Config{Order: FCFS, Depth: 1}), 0, 10, 23, 3)
	wantStarts(t, "FCFS depth 2", run(t, jobs, 4, Config{Order: FCFS, Depth: 2}), 0, 10, 20, 25)
	wantStarts(t, "FCFS conservative", run(t, jobs, 4, Config{Order: FCFS, Depth: All}), 0, 10, 20, 25)
	wantStarts(t, "Garey&Graham", run(t, jobs, 4, Config{Order: GareyGraham}), 0, 10, 23, 3)
	wantStarts(t, "each-event", run(t, jobs, 4, Config{Order: FCFS, Depth: 1, EachEvent: true}), 0, 10, 23, 3)
}

// On 4 nodes: J0 (2, 10) runs; J1 (4, 5) waits for all nodes; J2 (2, 20)
// would fit at 1 but would delay J1; J3 (1, 3) ends before J1's reservation.
func TestSmallInstanceAllExecutors(t *testing.T) {
	jobs := []workload.Job{J(1, 0, 2, 10), J(2, 0, 4, 5), J(3, 1, 2, 20), J(4, 2, 1, 3)}
	wantStarts(t, "FCFS list", run(t, jobs, 4, Config{Order: FCFS}), 0, 10, 15, 15)
	wantStarts(t, "FCFS EASY", run(t, jobs, 4, Config{Order: FCFS, Depth: 1}), 0, 10, 15, 2)
	wantStarts(t, "FCFS conservative", run(t, jobs, 4, Config{Order: FCFS, Depth: All}), 0, 10, 15, 2)
	wantStarts(t, "Garey&Graham", run(t, jobs, 4, Config{Order: GareyGraham}), 0, 21, 1, 10)
	if _, err := Simulate(context.Background(), jobs, Config{Nodes: 4, Order: GareyGraham, Depth: 1}); err == nil {
		t.Error("Garey&Graham with backfilling accepted")
	}
}

// A job that ends early lets conservative compression move reservations up.
func TestCompressionOnEarlyEnd(t *testing.T) {
	a := J(1, 0, 4, 2)
	a.Estimate = 10 // ends at 2, estimated 10
	jobs := []workload.Job{a, J(2, 1, 4, 5), J(3, 1, 2, 1)}
	o := run(t, jobs, 4, Config{Order: FCFS, Depth: All, Trace: true})
	wantStarts(t, "compressed", o, 0, 2, 7)
	if o.FirstResv[1] != 10 || o.FirstResv[2] != 15 {
		t.Errorf("first reservations %v", o.FirstResv)
	}
}

func queueOf(jobs []workload.Job) []int {
	q := make([]int, len(jobs))
	for i := range q {
		q[i] = i
	}
	return q
}

// SMART by hand on 4 nodes: a (2 nodes, p̂ 3) and b (2, 4) share bin 2 and
// one shelf (H 4); c (3, 1) is alone in bin 0; d (1, 100) in bin 7.
// Unweighted Smith ratios: c 1/1, {a,b} 2/4, d 1/100 → c a b d. Weighted
// (w = m·p̂): c 3/1, {a,b} 14/4, d 100/100 → a b c d.
func TestSmartByHand(t *testing.T) {
	jobs := []workload.Job{J(1, 0, 2, 3), J(2, 0, 2, 4), J(3, 0, 3, 1), J(4, 0, 1, 100)}
	for _, tc := range []struct {
		order    string
		weighted bool
		sw       string // Config.SmartWeight
		want     []int
	}{
		{SmartFFIA, false, "", []int{2, 0, 1, 3}}, {SmartNFIW, false, "", []int{2, 0, 1, 3}},
		{SmartFFIA, true, "", []int{0, 1, 2, 3}}, {SmartNFIW, true, "", []int{1, 0, 2, 3}}, // NFIW: m/w, b (1/4) before a (1/3)
		{SmartFFIA, true, SmartWeightArea, []int{0, 1, 2, 3}}, {SmartNFIW, true, SmartWeightArea, []int{1, 0, 2, 3}},
		// unit weights, and Smith ratios p/p̂ = 1 with exact estimates: the unweighted order
		{SmartFFIA, true, SmartWeightUnit, []int{2, 0, 1, 3}}, {SmartNFIW, true, SmartWeightUnit, []int{2, 0, 1, 3}},
		{SmartFFIA, true, SmartWeightSmith, []int{2, 0, 1, 3}}, {SmartNFIW, true, SmartWeightSmith, []int{2, 0, 1, 3}},
	} {
		r := &reorder{cfg: Config{Nodes: 4, Order: tc.order, Weighted: tc.weighted, SmartWeight: tc.sw}, jobs: jobs}
		q := queueOf(jobs)
		r.smart(q, tc.order == SmartFFIA)
		for i := range q {
			if q[i] != tc.want[i] {
				t.Errorf("%s weighted=%v smart_weight=%q: %v, want %v", tc.order, tc.weighted, tc.sw, q, tc.want)
				break
			}
		}
	}
	// smith with an estimate above the run time: a (3 s of p̂ = 4) weighs
	// 3/4 and b (4 of 4) 1, both in bin (2, 4] on one shelf; NFIW orders by
	// m/w, b (2) before a (8/3). Unit weights tie them (a first).
	est := append([]workload.Job(nil), jobs...)
	est[0].Estimate = 4
	for _, tc := range []struct {
		sw   string
		want []int
	}{{SmartWeightSmith, []int{2, 1, 0, 3}}, {SmartWeightUnit, []int{2, 0, 1, 3}}} {
		r := &reorder{cfg: Config{Nodes: 4, Order: SmartNFIW, Weighted: true, SmartWeight: tc.sw}, jobs: est}
		q := queueOf(est)
		r.smart(q, false)
		for i := range q {
			if q[i] != tc.want[i] {
				t.Errorf("NFIW smart_weight=%s with p̂ > p: %v, want %v", tc.sw, q, tc.want)
				break
			}
		}
	}
}

// PSRS by hand, weighted on 4 nodes (all Smith ratios 1, so list = submit
// order): a (1 node, 10 s) starts at 0; w (4 nodes, 1 s) is wide, waits its
// own length, preempts a at 1 and completes at 2; a resumes and completes
// at 11. Bins: w wide, 2/1.5 in (1, 2] → position 3; a small, 11 in
// (8, 16] → position 8. Order: w, a.
func TestPSRSByHand(t *testing.T) {
	jobs := []workload.Job{J(1, 0, 1, 10), J(2, 0, 4, 1)}
	r := &reorder{cfg: Config{Nodes: 4, Order: PSRS, Weighted: true}, jobs: jobs}
	q := queueOf(jobs)
	r.psrs(q)
	if q[0] != 1 || q[1] != 0 {
		t.Errorf("weighted PSRS = %v, want [1 0]", q)
	}
	// unweighted: ratios 1/10 and 1/4: w first, fits at 0, no preemption:
	// w completes at 1 (small bin 0), a at 11 → w, a.
	r.cfg.Weighted = false
	q = queueOf(jobs)
	r.psrs(q)
	if q[0] != 1 || q[1] != 0 {
		t.Errorf("unweighted PSRS = %v, want [1 0]", q)
	}
}

func TestLengthBin(t *testing.T) {
	for x, want := range map[float64]int{0: 0, 1: 0, 1.5: 1, 2: 1, 3: 2, 4: 2, 4.01: 3, 1024: 10, 1025: 11} {
		if got := lengthBin(x); got != want {
			t.Errorf("lengthBin(%v) = %d, want %d", x, got, want)
		}
	}
}

// TestRefusedInputs: inputs the executor cannot schedule correctly are
// refused with a clear error, never a panic or an invalid schedule.
func TestRefusedInputs(t *testing.T) {
	zero := J(2, 1, 2, 10)
	zero.Estimate = 0
	over := J(2, 1, 2, 10)
	over.Estimate = 5 // runs 10 > estimate 5
	for _, c := range []struct {
		name string
		jobs []workload.Job
		cfg  Config
		want string
	}{
		{"zero estimate", []workload.Job{J(1, 0, 3, 10), zero}, Config{Nodes: 4, Order: "FCFS", Depth: 1}, "estimates must be positive"},
		{"unknown SMART weight", []workload.Job{J(1, 0, 3, 10)}, Config{Nodes: 4, Order: SmartFFIA, Recompute: RecomputeNew, Weighted: true, SmartWeight: "heavy"}, "unknown SMART weight"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Simulate(context.Background(), c.jobs, c.cfg)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
		})
	}
	// An overrun is scheduled under both event orders.
	for _, each := range []bool{false, true} {
		if _, err := Simulate(context.Background(), []workload.Job{J(1, 0, 3, 10), over}, Config{Nodes: 4, Order: "FCFS", Depth: All, EachEvent: each}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestEachEventOverrunSameInstant: job A (2 of 4 nodes, estimate 5, runs
// 10) is still running at 5, when B (3 nodes) arrives. Under per-event
// passes B's arrival pass at 5 must not see A's nodes as free: the overrun
// is noticed first, B waits for A's end at 10 and runs [10, 14).
func TestEachEventOverrunSameInstant(t *testing.T) {
	a := J(1, 0, 2, 10)
	a.Estimate = 5
	b := J(2, 5, 3, 4)
	for _, depth := range []int{1, All} {
		for _, each := range []bool{false, true} {
			out, err := Simulate(context.Background(), []workload.Job{a, b}, Config{Nodes: 4, Order: "FCFS", Depth: depth, EachEvent: each})
			if err != nil {
				t.Fatal(err)
			}
			if out.Start[1] != 10 || out.Overruns != 1 {
				t.Errorf("depth %d each %v: B starts at %v (overruns %d), want 10 (1)", depth, each, out.Start[1], out.Overruns)
			}
		}
	}
}
