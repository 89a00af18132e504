package dssp

import (
	"errors"
	"math/rand/v2"
	"testing"
)

// bruteForce returns the best Σ R over all subsets within the capacities.
func bruteForce(items []Item, capacity float64, teamCaps map[int]float64) float64 {
	best := 0.0
	n := len(items)
	for mask := 0; mask < 1<<n; mask++ {
		w, r := 0.0, 0.0
		team := map[int]float64{}
		for i := 0; i < n; i++ {
			if mask&(1<<i) != 0 {
				w += items[i].Weight
				r += items[i].Reward
				team[items[i].Team] += items[i].Weight
			}
		}
		ok := fits(0, w, capacity)
		for t, c := range teamCaps {
			ok = ok && fits(0, team[t], c)
		}
		if ok && r > best {
			best = r
		}
	}
	return best
}

func randomItems(r *rand.Rand, n int) ([]Item, []int64) {
	items := make([]Item, n)
	profits := make([]int64, n)
	for i := range items {
		profits[i] = int64(1 + r.IntN(50))
		items[i] = Item{Reward: float64(profits[i]), Weight: 1 + 99*r.Float64(), Team: r.IntN(3)}
	}
	return items, profits
}

func TestGreedyHand(t *testing.T) {
	// Ratios 3, 2, 1.5, 1; capacity 10: take 0 (w 2), 1 (w 5), skip 2 (w 4,
	// would give 11), take 3 (w 3) — the scan goes on past an item that
	// does not fit.
	items := []Item{{6, 2, 0}, {10, 5, 0}, {6, 4, 0}, {3, 3, 0}}
	sel := Greedy(items, 10, TiesSmall)
	want := []bool{true, true, false, true}
	for i := range want {
		if sel[i] != want[i] {
			t.Fatalf("greedy = %v, want %v", sel, want)
		}
	}
	// Ties in R/T1 go to the smaller job first.
	items = []Item{{4, 4, 0}, {2, 2, 0}, {3, 3, 0}}
	sel = Greedy(items, 5, TiesSmall)
	if !(sel[1] && sel[2] && !sel[0]) {
		t.Fatalf("tie-break: got %v, want jobs 1 and 2", sel)
	}
}

func TestDPAndBnBMatchBruteForce(t *testing.T) {
	seed := uint64(20050718)
	r := rand.New(rand.NewPCG(seed, 1))
	for trial := 0; trial < 300; trial++ {
		n := 1 + r.IntN(12)
		items, profits := randomItems(r, n)
		total := 0.0
		for _, it := range items {
			total += it.Weight
		}
		capacity := total * (0.1 + 0.8*r.Float64())
		want := bruteForce(items, capacity, nil)
		sel, err := DPProfits(items, profits, capacity, 0)
		if err != nil {
			t.Fatal(err)
		}
		got, w := Value(items, sel)
		if got != want || !fits(0, w, capacity) {
			t.Fatalf("seed %d trial %d: dp = %v (weight %v of %v), brute force %v", seed, trial, got, w, capacity, want)
		}
		g, _ := Value(items, Greedy(items, capacity, TiesSmall))
		if g > got {
			t.Fatalf("seed %d trial %d: greedy %v beats the optimum %v", seed, trial, g, got)
		}
		sel, err = BranchAndBound(items, capacity, nil, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		if b, _ := Value(items, sel); b != want {
			t.Fatalf("seed %d trial %d: bnb = %v, brute force %v", seed, trial, b, want)
		}
		// With per-team caps.
		caps := map[int]float64{0: capacity * r.Float64(), 2: capacity * r.Float64()}
		want = bruteForce(items, capacity, caps)
		sel, err = BranchAndBound(items, capacity, caps, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := Value(items, sel)
		team := map[int]float64{}
		for i, s := range sel {
			if s {
				team[items[i].Team] += items[i].Weight
			}
		}
		for tm, c := range caps {
			if !fits(0, team[tm], c) {
				t.Fatalf("seed %d trial %d: team %d uses %v over its cap %v", seed, trial, tm, team[tm], c)
			}
		}
		if b != want {
			t.Fatalf("seed %d trial %d: bnb with caps = %v, brute force %v", seed, trial, b, want)
		}
	}
}

func TestDPFPTAS(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for trial := 0; trial < 50; trial++ {
		items := make([]Item, 40)
		profits := make([]int64, 40)
		for i := range items {
			profits[i] = int64(1 + r.IntN(1_000_000))
			items[i] = Item{Reward: float64(profits[i]), Weight: 1 + 99*r.Float64()}
		}
		exact, err := BranchAndBound(items, 1000, nil, 1<<22)
		if err != nil {
			t.Fatal(err)
		}
		opt, _ := Value(items, exact)
		for _, eps := range []float64{0.01, 0.1, 0.5} {
			sel, err := DPProfits(items, profits, 1000, eps)
			if err != nil {
				t.Fatal(err)
			}
			v, w := Value(items, sel)
			if v < (1-eps)*opt || !fits(0, w, 1000) {
				t.Fatalf("trial %d eps %v: %v (weight %v) below (1−ε)·OPT = %v", trial, eps, v, w, (1-eps)*opt)
			}
		}
	}
}

func TestDPTooLarge(t *testing.T) {
	items := make([]Item, 100)
	profits := make([]int64, 100)
	for i := range items {
		items[i] = Item{Reward: 1e9, Weight: 1}
		profits[i] = 1e9
	}
	if _, err := DPProfits(items, profits, 10, 0); !errors.Is(err, ErrDPTooLarge) {
		t.Fatalf("err = %v, want ErrDPTooLarge", err)
	}
	sel, err := DPProfits(items, profits, 10, 0.01)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := Value(items, sel); v != 1e10 {
		t.Fatalf("scaled DP = %v, want 1e10", v)
	}
}

func TestBnBNodeLimit(t *testing.T) {
	// Equal ratios make the LP bound useless: a subset-sum search.
	r := rand.New(rand.NewPCG(3, 3))
	items := make([]Item, 60)
	for i := range items {
		w := 1 + 99*r.Float64()
		items[i] = Item{Reward: w, Weight: w}
	}
	_, err := BranchAndBound(items, 1234.5678, nil, 1000)
	if !errors.Is(err, ErrBnBLimit) {
		t.Fatalf("err = %v, want ErrBnBLimit", err)
	}
}
