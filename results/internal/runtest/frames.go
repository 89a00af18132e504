package runtest

import (
	"math"
	"testing"

	"schedfarm/results"
	"schedfarm/results/decl"
	"schedfarm/simcore"
	"schedfarm/simcore/bench"
	"schedfarm/sweep"
)

// FrameOf builds a Frame from name, column pairs ([]int64, []float64,
// []string); a NaN float is null.
func FrameOf(meta map[string]string, pairs ...any) *results.Frame {
	f := &results.Frame{Meta: meta}
	if f.Meta == nil {
		f.Meta = map[string]string{}
	}
	for i := 0; i < len(pairs); i += 2 {
		f.Names = append(f.Names, pairs[i].(string))
		c := pairs[i+1]
		var nulls []bool
		switch x := c.(type) {
		case []int64:
			f.Types = append(f.Types, results.Int64)
		case []string:
			f.Types = append(f.Types, results.String)
		case []bool:
			f.Types = append(f.Types, results.Bool)
		case []float64:
			f.Types = append(f.Types, results.Float64)
			for r, v := range x {
				if math.IsNaN(v) {
					if nulls == nil {
						nulls = make([]bool, len(x))
					}
					nulls[r] = true
				}
			}
		}
		f.Cols = append(f.Cols, c)
		f.Nulls = append(f.Nulls, nulls)
	}
	return f
}

// Decls parses a bench sweep whose figures:/claims:/verify: keys are
// the given YAML (indented as keys of the sweep).
func Decls(t testing.TB, extra string) (*decl.Decls, error) {
	t.Helper()
	text := "name: t\nmodel: bench\nseed: 1\nreplicates: 3\naxes:\n  - name: size\n    values: [1, 2, 4]\n  - name: variant\n    values: [EDF-DLT, FIFO-DLT, OPR-MN]\n" + extra
	reg, err := simcore.NewRegistry(bench.New())
	if err != nil {
		t.Fatal(err)
	}
	f, err := sweep.Parse("t.yaml", []byte(text), reg)
	if err != nil {
		t.Fatalf("sweep: %v", err)
	}
	return decl.Parse(f.Sweeps[0])
}

// Series returns the series values of FixedSummary and FixedJobs.
func Series() []string { return []string{"EDF-DLT", "FIFO-DLT", "OPR-MN"} }

// FixedSummary is a summary frame: sizes 1, 2, 4 × three algorithms; value = size·(k+1).
func FixedSummary() *results.Frame {
	var size []int64
	var variant []string
	cols := map[string][]float64{}
	stats := results.SummaryStats()
	for _, s := range []int64{1, 2, 4} {
		for k, v := range Series() {
			size = append(size, s)
			variant = append(variant, v)
			m := float64(s) * float64(k+1)
			for _, st := range stats {
				x := m
				switch st {
				case "std":
					x = 0.5
				case "ci95":
					x = 0.3
				case "min":
					x = m - 1
				case "q1":
					x = m - 0.4
				case "q3":
					x = m + 0.4
				case "max":
					x = m + 1
				}
				cols["value_"+st] = append(cols["value_"+st], x)
				cols["iterations_"+st] = append(cols["iterations_"+st], 10*x)
			}
		}
	}
	pairs := []any{"size", size, "variant", variant}
	for _, m := range []string{"value", "iterations"} {
		for _, st := range stats {
			pairs = append(pairs, m+"_"+st, cols[m+"_"+st])
		}
	}
	return FrameOf(nil, pairs...)
}

// FixedJobs is a jobs frame: the summary's points × 20 replicates.
func FixedJobs() *results.Frame {
	var size, rep []int64
	var variant []string
	var value, iters []float64
	for _, s := range []int64{1, 2, 4} {
		for k, v := range Series() {
			for r := 0; r < 20; r++ {
				size, rep, variant = append(size, s), append(rep, int64(r)), append(variant, v)
				x := float64(s)*float64(k+1) + float64(r%5)/5
				value, iters = append(value, x), append(iters, 10*x+float64(r))
			}
		}
	}
	return FrameOf(nil, "replicate", rep, "size", size, "variant", variant, "value", value, "iterations", iters)
}
