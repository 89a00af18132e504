package stretch

import (
	"context"
	"math"
	"sort"
	"testing"
)

// TestGenerateLoadBands checks the two-band draw of the target load and
// the exact realised load (load_mid, load_share_hi, load_exact).
func TestGenerateLoadBands(t *testing.T) {
	tests := []struct {
		name      string
		w         SeqWorkload
		lo, hi    float64 // bounds of the target
		wantShare float64 // share of targets ≥ LoadMid (−1: not checked)
	}{
		{"one band", SeqWorkload{N: 50, A: 1, Delta: 5, Load: 270, LoadHi: 310}, 270, 310, 0.5},
		{"split 0.55", SeqWorkload{N: 50, A: 1, Delta: 5, Load: 270, LoadHi: 310, LoadMid: 290, ShareHi: 0.55}, 270, 310, 0.55},
		{"split 0", SeqWorkload{N: 50, A: 1, Delta: 5, Load: 270, LoadHi: 302, LoadMid: 290, ShareHi: 0}, 270, 290, 0},
		{"exact", SeqWorkload{N: 50, A: 1, Delta: 20, Load: 270, LoadHi: 302, LoadMid: 290, ShareHi: 1, Exact: true}, 290, 302, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			above := 0
			const n = 2000
			for seed := uint64(0); seed < n; seed++ {
				tasks, target, err := tc.w.Generate(seed)
				if err != nil {
					t.Fatal(err)
				}
				if target < tc.lo || target > tc.hi {
					t.Fatalf("seed %d: target %v outside [%v, %v]", seed, target, tc.lo, tc.hi)
				}
				if target >= 290 {
					above++
				}
				if tc.w.Exact {
					if l := Load(tasks); math.Abs(l-target) > 1e-9*target {
						t.Fatalf("seed %d: realised load %v, want exactly %v", seed, l, target)
					}
				}
			}
			// 4 standard errors of a share of n draws.
			if got := float64(above) / n; math.Abs(got-tc.wantShare) > 4*math.Sqrt(0.25/n) {
				t.Errorf("share of targets ≥ 290: %v, want %v", got, tc.wantShare)
			}
		})
	}
	if _, _, err := (SeqWorkload{N: 50, A: 1, Delta: 5, Load: 270, LoadHi: 310, LoadMid: 320}).Generate(1); err == nil {
		t.Error("load_mid outside the band: no error")
	}
}

// TestExactKeepsDefault checks that the new options at their defaults
// leave the instance unchanged, and that load_exact only rescales the
// release times (same sizes, same order, gaps in the same proportions).
func TestExactKeepsDefault(t *testing.T) {
	w := SeqWorkload{N: 500, A: 1, Delta: 10, Load: 280}
	a, _, _ := w.Generate(7)
	w.Exact = true
	b, _, _ := w.Generate(7)
	c := b[len(b)-1].Release / a[len(a)-1].Release
	for i := range a {
		if a[i].Size != b[i].Size || math.Abs(b[i].Release-c*a[i].Release) > 1e-9*b[len(b)-1].Release {
			t.Fatalf("task %d: %v vs %v (scale %v)", i, a[i], b[i], c)
		}
	}
}

// TestCheckRules runs DASEDF under every feasibility check and target rule,
// and both algorithms with the reservation scheme comparing the parts'
// schedules with their running tasks or their whole past, on a random instance: each schedule is valid (every task runs once, for
// its size, after its release, at most m at a time) and stretches are ≥ 1.
func TestCheckRules(t *testing.T) {
	tasks, _, err := SeqWorkload{N: 600, A: 1, Delta: 20, Load: 16.5}.Generate(3)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		check   string
		keepMax bool
		alg     string
		x       int    // reservation_x (0: none)
		side    string // reservation_side
	}{{"lemma", false, DASEDF, 0, ""}, {"strict_prefix", false, DASEDF, 0, ""}, {"no_running", false, DASEDF, 0, ""},
		{"lemma", true, DASEDF, 0, ""}, {"lemma", false, DASEDF, 3, SideWithRunning}, {"lemma", false, FCFS, 3, SideWithRunning},
		{"lemma", false, DASEDF, 3, SideWhole}, {"lemma", false, FCFS, 3, SideWhole}} {
		out, err := SimulateSeq(context.Background(), tasks, SeqConfig{M: 16, Algorithm: tc.alg, Check: tc.check, KeepMax: tc.keepMax,
			X: tc.x, T: 1.2, Side: tc.side})
		if err != nil {
			t.Fatalf("%s keep_max=%v: %v", tc.check, tc.keepMax, err)
		}
		type ev struct {
			t float64
			d int
		}
		var evs []ev
		for i, tk := range tasks {
			if out.Start[i] < tk.Release || math.Abs(out.End[i]-out.Start[i]-tk.Size) > 1e-9*tk.Size {
				t.Fatalf("%s: task %d runs [%v, %v], release %v size %v", tc.check, i, out.Start[i], out.End[i], tk.Release, tk.Size)
			}
			evs = append(evs, ev{out.Start[i], 1}, ev{out.End[i], -1})
		}
		busy, peak := 0, 0
		// By time, completions before starts at equal times.
		sort.Slice(evs, func(a, b int) bool { return evs[a].t < evs[b].t || evs[a].t == evs[b].t && evs[a].d < evs[b].d })
		for _, e := range evs {
			busy += e.d
			peak = max(peak, busy)
		}
		if peak > 16 {
			t.Errorf("%s: %d tasks at once on 16 processors", tc.check, peak)
		}
		if out.MaxStretch < 1 {
			t.Errorf("%s: max stretch %v < 1", tc.check, out.MaxStretch)
		}
	}
	if _, err := SimulateSeq(context.Background(), tasks, SeqConfig{M: 16, Algorithm: DASEDF, Check: "bogus"}); err == nil {
		t.Error("unknown check rule: no error")
	}
}

// TestReservationSide checks what each reading of the reservation scheme's
// "maximum stretch in the resulting schedule" (saule2012 §4) sees, on one
// processor per part (m = 2, X = 1, T = 1.5, FCFS): A and A2 (size 10) at 0
// fill both parts, B (size 3) at 1 ties between them (stretch 4 either way)
// and goes to the main part, where it starts at 10 with stretch 4. D (size 1)
// at 20 finds both parts idle: its plan alone (plan) and the running tasks
// (with_running, none left) are below T, so it stays on the main part; the
// main part's whole schedule holds B's stretch 4, the auxiliary part's only
// stretch 1, so under whole D goes to the auxiliary part.
func TestReservationSide(t *testing.T) {
	tasks := []Task{{0, 10}, {0, 10}, {1, 3}, {20, 1}}
	for _, tc := range []struct {
		side string
		want []int // part of each task
	}{
		{SidePlan, []int{0, 1, 0, 0}},
		{SideWithRunning, []int{0, 1, 0, 0}},
		{SideWhole, []int{0, 1, 0, 1}},
	} {
		out, err := SimulateSeq(context.Background(), tasks, SeqConfig{M: 2, Algorithm: FCFS, X: 1, T: 1.5, Side: tc.side})
		if err != nil {
			t.Fatalf("%s: %v", tc.side, err)
		}
		for i, k := range tc.want {
			if out.Part[i] != k {
				t.Errorf("%s: task %d on part %d, want %d (parts %v)", tc.side, i, out.Part[i], k, out.Part)
			}
		}
	}
	if _, err := SimulateSeq(context.Background(), tasks, SeqConfig{M: 2, Algorithm: FCFS, X: 1, T: 1.5, Side: "bogus"}); err == nil {
		t.Error("unknown reservation side: no error")
	}
}
