package ptg

import (
	"fmt"
	"strings"

	"schedfarm/simcore/ptg/dag"
	"schedfarm/simcore/rng"
)

// Population describes how the PTGs of one scenario are drawn (casanova2010
// §5.1.2). A negative or zero field means "drawn from the paper's grid".
type Population struct {
	// Class is "random", "fft" or "strassen".
	Class string
	// Complexity is -1 to draw each PTG's scenario among the paper's four,
	// else the fixed scenario.
	Complexity dag.Complexity
	// Shape fields fixed by the user (N, Jump 0 and negative floats: drawn).
	Shape dag.Shape
	// FFTPoints fixes m for FFT graphs (0: drawn from {2, 4, 8}).
	FFTPoints int
	// MaxAlpha bounds Amdahl's α (seed: 0.25).
	MaxAlpha float64
}

// The paper's grid of random-DAG parameters (casanova2010 §5.1.2).
var (
	gridN       = []int{10, 20, 30}
	gridFat     = []float64{0.2, 0.5, 0.8}
	gridRegular = []float64{0.2, 0.8}
	gridDensity = []float64{0.2, 0.8}
	gridJump    = []int{1, 2, 4}
	gridFFT     = []int{2, 4, 8}
)

// DrawComplexity is the Population.Complexity that draws the scenario.
const DrawComplexity dag.Complexity = -1

// Draw returns n PTGs of the population. Each PTG takes its shape
// parameters uniformly from the grid (the paper's population holds 3
// samples of each configuration, so this is the same distribution), its
// complexity scenario uniformly among the four, then its task costs.
func (pop Population) Draw(n int, r *rng.Rand) ([]*dag.Graph, error) {
	out := make([]*dag.Graph, 0, n)
	for range n {
		var g *dag.Graph
		var err error
		switch pop.Class {
		case "random":
			s := pop.Shape
			if s.N <= 0 {
				s.N = gridN[r.IntN(len(gridN))]
			}
			if s.Fat < 0 {
				s.Fat = gridFat[r.IntN(len(gridFat))]
			}
			if s.Regular < 0 {
				s.Regular = gridRegular[r.IntN(len(gridRegular))]
			}
			if s.Density < 0 {
				s.Density = gridDensity[r.IntN(len(gridDensity))]
			}
			if s.Jump <= 0 {
				s.Jump = gridJump[r.IntN(len(gridJump))]
			}
			g, err = dag.Random(s, r)
		case "fft":
			m := pop.FFTPoints
			if m <= 0 {
				m = gridFFT[r.IntN(len(gridFFT))]
			}
			g, err = dag.FFT(m)
		case "strassen":
			g = dag.Strassen()
		default:
			return nil, fmt.Errorf("ptg_class %q is not random, fft or strassen", pop.Class)
		}
		if err != nil {
			return nil, err
		}
		c := pop.Complexity
		if c == DrawComplexity {
			c = dag.Complexity(r.IntN(len(dag.ComplexityNames)))
		}
		costs := dag.PaperCosts(c)
		costs.MaxAlpha = pop.MaxAlpha
		costs.Assign(g, r)
		out = append(out, g)
	}
	return out, nil
}

// splitFiles parses the ptg_files parameter.
func splitFiles(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
