package stretch

import (
	"math"
	"math/rand/v2"
	"testing"
)

// refSSMTimes is the SSM runtime table as computed before the performance
// work: every factorization x·y·z = p, z <= K, of every p.
func refSSMTimes(s SSM, times []float64, G, R float64) {
	best := math.Inf(1)
	for p := 1; p <= len(times); p++ {
		for z := 1; z <= s.K && z <= p; z++ {
			if p%z != 0 {
				continue
			}
			q := p / z
			for x := 1; x <= q; x++ {
				if q%x != 0 {
					continue
				}
				y := q / x
				over := 0.0
				if p > 1 {
					over = s.D*math.Log(float64(p)) + s.E
				}
				gx, ry := G*(1/float64(x)), R*(1/float64(y))
				if t := (s.A*ry+s.B*gx+s.C*gx*ry)*float64((s.K+z-1)/z) + over; t < best {
					best = t
				}
			}
		}
		times[p-1] = best
	}
}

// The pruned SSM table (z with a repeated ⌈K/z⌉ left out) equals the full
// one bit for bit, on the workload's range of genome lengths and read
// counts.
func TestSSMTimesMatchFullGrid(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 2))
	const P = 512
	got, want := make([]float64, P), make([]float64, P)
	for trial := range 400 {
		G := math.Exp(math.Log(3e5) + r.Float64()*(math.Log(3e9)-math.Log(3e5)))
		R := math.Exp(math.Log(2e6) + r.Float64()*(math.Log(4e8)-math.Log(2e6)))
		if trial%50 == 0 { // the ends of the ranges
			G, R = []float64{3e5, 3e9}[trial/50%2], []float64{2e6, 4e8}[trial/100%2]
		}
		DefaultSSM.Times(got, G, R)
		refSSMTimes(DefaultSSM, want, G, R)
		for p := range got {
			if math.Float64bits(got[p]) != math.Float64bits(want[p]) {
				t.Fatalf("G=%v R=%v p=%d: %v, full grid %v", G, R, p+1, got[p], want[p])
			}
		}
	}
}
