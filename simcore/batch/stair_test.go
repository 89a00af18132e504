package batch

import (
	"math"
	"math/rand/v2"
	"testing"
)

// denseStair is the staircase as a table of every size (the reference):
// stair[:n] computed from the certificates, lowered by every note of a
// bound at or past b.
type denseStair struct {
	stair []float64
	n     int
	b     float64
}

func (d *denseStair) at(s *sim, k int) float64 {
	v := math.Inf(1)
	if d.n > 0 {
		v = d.stair[d.n-1]
	}
	for i := d.n; i <= k; i++ {
		if c := s.cert[2*i]; c.bound >= d.b {
			v = min(v, c.d)
		}
		if c := s.cert[2*i+1]; c.bound >= d.b {
			v = min(v, c.d)
		}
		d.stair[i] = v
	}
	d.n = max(d.n, k+1)
	return d.stair[k]
}

func (d *denseStair) note(k int, v, bound float64) {
	if bound >= d.b {
		for i := k; i < d.n && d.stair[i] > v; i++ {
			d.stair[i] = v
		}
	}
}

// The staircase kept as its steps (stair.go) against the table of every
// size, on random notes, rebuilds, clears and lookups over machines of up
// to 10,000 nodes (sizes spread, so the bitmap's words and summary words
// are crossed): the same durations.
func TestStairMatchesDense(t *testing.T) {
	r := rand.New(rand.NewPCG(32, 1))
	for trial := range 200 {
		nodes := 1 + r.IntN(10000)
		s := &sim{cfg: Config{Nodes: nodes}}
		s.startCerts()
		ref := &denseStair{stair: make([]float64, nodes+1), b: math.Inf(-1)}
		sizes := make([]int, 1+r.IntN(40)) // the sizes this trial's jobs have
		for i := range sizes {
			sizes[i] = r.IntN(nodes + 1)
		}
		for op := range 400 {
			k := sizes[r.IntN(len(sizes))]
			switch x := r.IntN(10); {
			case x < 5:
				d, b := float64(1+r.IntN(50)), float64(r.IntN(100))
				ref.note(k, d, b)
				s.noteCert(k, d, b)
			case x < 6:
				b := float64(r.IntN(100))
				s.rebuildStair(b)
				ref.n, ref.b = 0, b
			case x < 7 && r.IntN(4) == 0:
				s.clearCerts()
				s.resetStair()
				ref.n, ref.b = 0, math.Inf(-1)
			default:
				if got, want := s.stairAt(k), ref.at(s, k); got != want {
					t.Fatalf("trial %d op %d (nodes %d): stair[%d] = %v, want %v", trial, op, nodes, k, got, want)
				}
				for j := 0; j < s.stairN; j += 1 + r.IntN(50) {
					if got, want := s.stairKnown(j), ref.stair[j]; got != want {
						t.Fatalf("trial %d op %d: known stair[%d] = %v, want %v", trial, op, j, got, want)
					}
				}
			}
		}
	}
}
