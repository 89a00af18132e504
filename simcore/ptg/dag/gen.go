package dag

import (
	"fmt"
	"math"

	"schedfarm/simcore/rng"
)

// Complexity is one of the computational-complexity scenarios of casanova2010
// §5.1.2.
type Complexity int

// The four scenarios: every task a·d, every task a·d·log d, every task
// d^{3/2}, or each task's form drawn among the three (daggen's ccr = 0).
const (
	Mixed Complexity = iota
	AD
	ADLogD
	D15
)

// ComplexityNames are the parameter spellings of the scenarios, in order.
var ComplexityNames = []string{"mixed", "a_d", "a_d_log_d", "d_1.5"}

// ParseComplexity returns the scenario of a parameter spelling.
func ParseComplexity(s string) (Complexity, error) {
	for i, n := range ComplexityNames {
		if n == s {
			return Complexity(i), nil
		}
	}
	return 0, fmt.Errorf("complexity %q is not one of %v", s, ComplexityNames)
}

// Costs are the task-cost model of casanova2010 §5.1.2 as drawn by daggen
// (README of the reference samples, step 2).
type Costs struct {
	Complexity Complexity
	// MinData and MaxData bound s, the side of the √d × √d matrix a task
	// works on (d = s² double elements): daggen's 2048 and 11264 are the
	// paper's 4M ≤ d ≤ 121M (in units of 2^20 elements).
	MinData, MaxData float64
	// MinAlpha and MaxAlpha bound Amdahl's sequential fraction α (seed:
	// U[0, 0.25]).
	MinAlpha, MaxAlpha float64
}

// PaperCosts returns the cost model of casanova2010 with the given scenario.
func PaperCosts(c Complexity) Costs {
	return Costs{Complexity: c, MinData: 2048, MaxData: 11264, MinAlpha: 0, MaxAlpha: 0.25}
}

// Draw returns one task: s = ⌊U[MinData, MaxData)/1024⌋·1024 (daggen rounds
// the side down to a multiple of 1024), a ~ U[2^6, 2^9), the form
// a·d = a·s², a·d·log2 d = 2·a·s²·log2 s or d^{3/2} = s³, α ~ U[MinAlpha, MaxAlpha).
func (c Costs) Draw(r *rng.Rand) Task {
	s := math.Floor(math.Floor(r.Uniform(c.MinData, c.MaxData))/1024) * 1024
	if s < 1 {
		s = max(1, math.Floor(c.MinData))
	}
	a := r.Uniform(64, 512)
	form := int(c.Complexity)
	if c.Complexity == Mixed {
		form = 1 + r.IntN(3)
	}
	var ops float64
	switch Complexity(form) {
	case AD:
		ops = a * s * s
	case ADLogD:
		ops = 2 * a * s * s * math.Log2(s)
	default:
		ops = s * s * s
	}
	return Task{Ops: ops, Alpha: r.Uniform(c.MinAlpha, c.MaxAlpha)}
}

// Assign draws every task's cost, in task order.
func (c Costs) Assign(g *Graph, r *rng.Rand) {
	for v := range g.Tasks {
		g.Tasks[v] = c.Draw(r)
	}
}

// Shape are the random-DAG parameters of casanova2010 §5.1.2 (daggen's n, fat,
// regular, density, jump).
type Shape struct {
	N                     int
	Fat, Regular, Density float64
	Jump                  int
}

// Validate checks the ranges.
func (s Shape) Validate() error {
	switch {
	case s.N < 1:
		return fmt.Errorf("dag: n = %d tasks, want >= 1", s.N)
	case !(s.Fat >= 0 && s.Fat <= 1):
		return fmt.Errorf("dag: fat = %v, want in [0, 1]", s.Fat)
	case !(s.Regular >= 0 && s.Regular <= 1):
		return fmt.Errorf("dag: regular = %v, want in [0, 1]", s.Regular)
	case !(s.Density >= 0 && s.Density <= 1):
		return fmt.Errorf("dag: density = %v, want in [0, 1]", s.Density)
	case s.Jump < 0:
		return fmt.Errorf("dag: jump = %d, want >= 0", s.Jump)
	}
	return nil
}

// Random returns a random DAG of the given shape, built as daggen builds it
// (reference README, steps 1 and 3): levels of ⌊W·(1 + r/100)⌋ tasks
// (at least 1) with W = ⌊n^fat⌋ and r ~ U[−100(1−regular), 100(1−regular)),
// the last level cut at n tasks; each task of level i ≥ 1 gets
// min(1 + ⌊U[0, density·w(i−1))⌋, w(i−1)) parent slots, each from level
// i − U{1..jump} (at least 0), a uniform index, the next one cyclically if
// already a parent, no parent if the whole level is. Unlike daggen,
// duplicate edges never occur. Costs are left zero (see Costs.Assign).
func Random(s Shape, r *rng.Rand) (*Graph, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	w := math.Floor(math.Exp(s.Fat * math.Log(float64(s.N))))
	p := 100 * (1 - s.Regular)
	var levels [][]int
	placed := 0
	for placed < s.N {
		k := int(math.Floor(w * (1 + r.Uniform(-p, p)/100)))
		k = max(1, min(k, s.N-placed))
		lvl := make([]int, k)
		for i := range lvl {
			lvl[i] = placed + i
		}
		levels = append(levels, lvl)
		placed += k
	}
	g := New(s.N)
	jump := max(1, s.Jump)
	for i := 1; i < len(levels); i++ {
		prev := len(levels[i-1])
		for _, t := range levels[i] {
			np := min(1+int(math.Floor(r.Uniform(0, s.Density*float64(prev)))), prev)
			for range np {
				back := 1 + r.IntN(jump)
				l := levels[max(0, i-back)]
				j := r.IntN(len(l))
				for try := 0; try < len(l); try++ {
					if g.AddEdge(l[(j+try)%len(l)], t) {
						break
					}
				}
			}
		}
	}
	return g, nil
}

// FFT returns the task graph of the fast Fourier transform on m points
// (m a power of two ≥ 2; the paper's "2, 4 and 8 levels"), as in the
// classical PTG test case: a binary tree of 2m − 1 recursive-call tasks
// whose m leaves feed log2 m butterfly stages of m tasks, task j of stage s
// depending on tasks j and j XOR 2^(s−1) of stage s − 1. m = 2, 4, 8 give
// 5, 15 and 39 tasks and a maximum parallelism of m (casanova2010 §5.1.2).
func FFT(m int) (*Graph, error) {
	if m < 2 || m&(m-1) != 0 {
		return nil, fmt.Errorf("dag: FFT on %d points, want a power of two >= 2", m)
	}
	stages := 0
	for x := m; x > 1; x >>= 1 {
		stages++
	}
	n := 2*m - 1 + m*stages
	g := New(n)
	// Tree in heap order: node k has children 2k+1 and 2k+2; leaves are
	// m−1 .. 2m−2.
	for k := 0; k < m-1; k++ {
		g.AddEdge(k, 2*k+1)
		g.AddEdge(k, 2*k+2)
	}
	prev := func(j int) int { return m - 1 + j }
	for s := 1; s <= stages; s++ {
		base := 2*m - 1 + (s-1)*m
		for j := range m {
			g.AddEdge(prev(j), base+j)
			g.AddEdge(prev(j^(1<<(s-1))), base+j)
		}
		prev = func(j int) int { return base + j }
	}
	return g, nil
}

// Strassen returns the 25-task graph of one level of Strassen's matrix
// multiplication: 10 pre-additions T1..T10 (tasks 0..9), the 7 products
// M1..M7 (10..16), and 8 post-additions (17..24): C11 = ((M1+M4)−M5)+M7,
// C12 = M3+M5, C21 = M2+M4, C22 = ((M1−M2)+M3)+M6. Maximum parallelism 10
// (casanova2010 §5.1.2).
func Strassen() *Graph {
	g := New(25)
	T := func(i int) int { return i - 1 }  // T1..T10
	M := func(i int) int { return 9 + i }  // M1..M7
	U := func(i int) int { return 16 + i } // post-additions 1..8
	for _, e := range [][2]int{
		{T(1), M(1)}, {T(2), M(1)}, {T(3), M(2)}, {T(4), M(3)}, {T(5), M(4)},
		{T(6), M(5)}, {T(7), M(6)}, {T(8), M(6)}, {T(9), M(7)}, {T(10), M(7)},
		// C11
		{M(1), U(1)}, {M(4), U(1)}, {U(1), U(2)}, {M(5), U(2)}, {U(2), U(3)}, {M(7), U(3)},
		// C12, C21
		{M(3), U(4)}, {M(5), U(4)}, {M(2), U(5)}, {M(4), U(5)},
		// C22
		{M(1), U(6)}, {M(2), U(6)}, {U(6), U(7)}, {M(3), U(7)}, {U(7), U(8)}, {M(6), U(8)},
	} {
		g.AddEdge(e[0], e[1])
	}
	return g
}
