package batch

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestWaitTreeNext checks next against a scan of the leaves, over random
// trees edited by set (jobs arriving and leaving), every start and
// random thresholds.
func TestWaitTreeNext(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	for trial := range 200 {
		n := 1 + rng.IntN(70)
		wt := newWaitTree(n)
		size := make([]int32, n)
		est := make([]float64, n)
		for j := range n {
			size[j], est[j] = math.MaxInt32, math.Inf(1)
		}
		for range 3 * n {
			j := rng.IntN(n)
			if rng.IntN(3) == 0 {
				size[j], est[j] = math.MaxInt32, math.Inf(1) // started
			} else {
				size[j], est[j] = int32(1+rng.IntN(16)), float64(rng.IntN(100))
			}
			wt.set(j, size[j], est[j])
			f, e, d := int32(rng.IntN(17)), int32(rng.IntN(17)), float64(rng.IntN(110))
			for lo := 0; lo <= n+1; lo++ {
				want := -1
				for k := lo; k < n; k++ {
					if size[k] <= f && (size[k] <= e || est[k] <= d) {
						want = k
						break
					}
				}
				if got := wt.next(lo, f, d, e); got != want {
					t.Fatalf("trial %d, %d jobs: next(%d, f=%d, d=%v, e=%d) = %d, want %d", trial, n, lo, f, d, e, got, want)
				}
			}
		}
	}
}
