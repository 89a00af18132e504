package stretch

import "math"

// SSM is the short-sequence-mapping runtime model of docs/models/stretch.md
// A4 (an assumption: the IPDPS-2009 cost model of saule2012's ref. [6] was
// not retrievable). The work is cut into x genome parts, y read parts and z
// seed-template parts on x·y·z processors:
//
//	T(x,y,z) = a·(R/y)·kz + b·(G/x)·kz + c·(G/x)·(R/y)·kz + [xyz > 1]·(d·ln(xyz) + e),  kz = ⌈K/z⌉
//
// and the runtime on p processors is the minimum over x·y·z ≤ p, which puts
// steps in the speedup (saule2012 §7).
type SSM struct {
	A, B, C, D, E float64
	K             int
}

// DefaultSSM holds the constants of docs/models/stretch.md A4 (seconds).
var DefaultSSM = SSM{A: 3e-6, B: 5e-6, C: 3.125e-14, D: 2, E: 2, K: 4}

// Scaled returns the model with the terms that the x·y·z partition does not
// divide over all of its processors, a, b (the index build, replicated over
// the genome parts, and the genome scan, replicated over the read parts),
// d and e (the start-up overhead), multiplied by f; c, the verification
// term every processor shares, is kept. f = 1 is the model itself.
func (s SSM) Scaled(f float64) SSM {
	s.A, s.B, s.D, s.E = s.A*f, s.B*f, s.D*f, s.E*f
	return s
}

// T is the runtime of a task (genome G bp, R reads) on an x·y·z grid.
func (s SSM) T(G, R float64, x, y, z int) float64 {
	kz := float64((s.K + z - 1) / z)
	t := s.A*(R/float64(y))*kz + s.B*(G/float64(x))*kz + s.C*(G/float64(x))*(R/float64(y))*kz
	if n := x * y * z; n > 1 {
		t += s.D*math.Log(float64(n)) + s.E
	}
	return t
}

// Times fills times[p-1] with the best runtime on at most p processors,
// p = 1..len(times): best(p) = min(best(p−1), min over x·y·z = p), z ≤ K.
func (s SSM) Times(times []float64, G, R float64) {
	s.grid(len(times)).times(s, times, G, R)
}

// ssmGrid lists, for p = 1..P, the factorizations x·y·z = p with z ≤ K
// (a few thousand for P = 512), so a task's table costs one evaluation of
// T per factorization.
type ssmGrid struct {
	first []int // factorizations of p are fac[first[p-1]:first[p]]
	fac   []ssmFac
}

// ssmFac is one factorization with the parts of T that do not depend on
// the task: 1/x, 1/y, ⌈K/z⌉ and the start-up overhead.
type ssmFac struct {
	ix, iy, kz, over float64
}

// grid lists the factorizations of p = 1..P. With non-negative constants,
// a z whose ⌈K/z⌉ equals that of a smaller z' is left out: (x, y, z)
// costs what (x, y, z') does (the same floats) plus a larger start-up
// overhead (x·y·z' < x·y·z processors), and times keeps a running minimum
// over p that already holds (x, y, z'), so it could never lower it (for
// K = 4 this drops z = 3, 14% of the factorizations).
func (s SSM) grid(P int) *ssmGrid {
	g := &ssmGrid{first: make([]int, P+1)}
	prune := s.A >= 0 && s.B >= 0 && s.C >= 0 && s.D >= 0
	for p := 1; p <= P; p++ {
		for z := 1; z <= s.K && z <= p; z++ {
			if p%z != 0 || prune && z > 1 && (s.K+z-1)/z == (s.K+z-2)/(z-1) {
				continue
			}
			q := p / z
			for x := 1; x <= q; x++ {
				if q%x == 0 {
					y := q / x
					over := 0.0
					if p > 1 {
						over = s.D*math.Log(float64(p)) + s.E
					}
					g.fac = append(g.fac, ssmFac{1 / float64(x), 1 / float64(y), float64((s.K + z - 1) / z), over})
				}
			}
		}
		g.first[p] = len(g.fac)
	}
	return g
}

func (g *ssmGrid) times(s SSM, times []float64, G, R float64) {
	best := math.Inf(1)
	for p := 1; p <= len(times); p++ {
		for _, f := range g.fac[g.first[p-1]:g.first[p]] {
			// T(x, y, z) of SSM.T, with the task-independent parts precomputed.
			gx, ry := G*f.ix, R*f.iy
			if t := (s.A*ry+s.B*gx+s.C*gx*ry)*f.kz + f.over; t < best {
				best = t
			}
		}
		times[p-1] = best
	}
}
