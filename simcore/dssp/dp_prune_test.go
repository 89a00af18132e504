package dssp

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestDPPruningMatchesFullTable: the lower-bound pruning of DPProfits
// returns exactly the selection of the full table, on random knapsacks
// with dense and banded profits, ties, zero weights and capacities from
// tight to loose, exact and FPTAS-scaled.
func TestDPPruningMatchesFullTable(t *testing.T) {
	seed := uint64(20051107)
	r := rand.New(rand.NewPCG(seed, 2))
	bands := []int64{1, 10, 1000, 100000}
	for trial := range 400 {
		n := 1 + r.IntN(60)
		items := make([]Item, n)
		profits := make([]int64, n)
		total := 0.0
		for i := range items {
			w := float64(1+r.IntN(400)) / 4
			if r.IntN(20) == 0 {
				w = 0
			}
			items[i] = Item{Weight: w}
			switch trial % 3 {
			case 0: // size-like: profit ≈ weight in minutes
				profits[i] = int64(w * 60)
			case 1:
				profits[i] = bands[r.IntN(len(bands))]
			default:
				profits[i] = int64(r.IntN(200))
			}
			items[i].Reward = float64(profits[i])
			total += w
		}
		capacity := total * (0.05 + 0.9*r.Float64())
		eps := 0.0
		if trial%5 == 4 {
			eps = 0.05
		}
		want, err := dpProfits(items, profits, capacity, eps, false)
		if err != nil {
			t.Fatal(err)
		}
		got, err := dpProfits(items, profits, capacity, eps, true)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("seed %d trial %d: pruned selection %v, full table %v", seed, trial, got, want)
		}
	}
}
