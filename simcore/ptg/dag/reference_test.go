package dag

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"schedfarm/simcore/rng"
)

// refDir holds the reference DAGs of the original daggen generator
// (testdata/daggen/README.txt says how they were drawn).
const refDir = "testdata/daggen"

func refFiles(t *testing.T, sub, ext string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(refDir, sub, "*."+ext))
	if err != nil || len(files) == 0 {
		t.Fatalf("reference samples not found under %s/%s: %v", refDir, sub, err)
	}
	sort.Strings(files)
	return files
}

func shapeOf(t *testing.T, file string) Shape {
	t.Helper()
	var s Shape
	base := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	if _, err := fmt.Sscanf(strings.ReplaceAll(base, "_", " "), "n%d fat%g reg%g den%g jump%d", &s.N, &s.Fat, &s.Regular, &s.Density, &s.Jump); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return s
}

type moments struct{ sum, sum2, n, lo, hi float64 }

func (m *moments) add(x float64) {
	if m.n == 0 || x < m.lo {
		m.lo = x
	}
	if m.n == 0 || x > m.hi {
		m.hi = x
	}
	m.sum += x
	m.sum2 += x * x
	m.n++
}
func (m moments) mean() float64 { return m.sum / m.n }
func (m moments) sd() float64 {
	v := m.sum2/m.n - m.mean()*m.mean()
	return math.Sqrt(math.Max(v, 0))
}

// TestRandomMatchesDaggenSamples compares, for each of the 108 grid points of
// casanova2010 §5.1.2, the reference DAG drawn by the original generator with
// 1,000 DAGs of ours: its levels, largest level, edges and jump edges must be
// values our generator produces at that point (within the range of our
// samples: the statistics are small discrete counts, some reference values
// are 1-in-50 events), and over the 108 points the standardised
// differences must average to about zero (|mean z| < 0.35; the mean of 108
// independent z-scores has a standard deviation near 0.1).
func TestRandomMatchesDaggenSamples(t *testing.T) {
	files := refFiles(t, "native", "dag")
	const samples = 1000
	names := []string{"levels", "max_width", "edges", "jump_edges"}
	get := func(s Stats) []float64 {
		return []float64{float64(s.Levels), float64(s.MaxWidth), float64(s.Edges), float64(s.JumpEdges)}
	}
	zsum := make([]float64, len(names))
	zn := make([]float64, len(names))
	refTot := make([]float64, len(names))
	ourTot := make([]float64, len(names))
	costs := PaperCosts(Mixed)
	for fi, f := range files {
		shape := shapeOf(t, f)
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		ref, err := ReadNative(fh)
		fh.Close()
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if ref.Len() != shape.N {
			t.Errorf("%s: %d tasks, want %d", f, ref.Len(), shape.N)
		}
		for v, task := range ref.Tasks {
			if task.Alpha < 0 || task.Alpha > costs.MaxAlpha+0.005 || task.Ops < 2048*2048*64 || task.Ops > 2*512*11264.0*11264*math.Log2(11264) {
				t.Errorf("%s: task %d cost %v alpha %v outside the cost model", f, v, task.Ops, task.Alpha)
			}
		}
		rs := get(ref.Stats())
		ms := make([]moments, len(names))
		r := rng.New(uint64(fi)).Stream("shape")
		for range samples {
			g, err := Random(shape, r)
			if err != nil {
				t.Fatal(err)
			}
			for k, x := range get(g.Stats()) {
				ms[k].add(x)
			}
		}
		for k := range names {
			m, sd := ms[k].mean(), ms[k].sd()
			refTot[k] += rs[k]
			ourTot[k] += m
			if sd == 0 {
				if rs[k] != m {
					t.Errorf("%s: %s = %v, our generator always gives %v", filepath.Base(f), names[k], rs[k], m)
				}
				continue
			}
			z := (rs[k] - m) / sd
			zsum[k] += z
			zn[k]++
			if rs[k] < ms[k].lo || rs[k] > ms[k].hi {
				t.Errorf("%s: %s = %v, ours %.2f ± %.2f in [%v, %v] (z = %.1f)", filepath.Base(f), names[k], rs[k], m, sd, ms[k].lo, ms[k].hi, z)
			}
		}
	}
	for k, n := range names {
		mz := zsum[k] / zn[k]
		t.Logf("%-10s reference total %6.0f, our expected total %8.1f, mean z %+.3f over %v points", n, refTot[k], ourTot[k], mz, zn[k])
		if math.Abs(mz) > 0.35 {
			t.Errorf("%s: mean standardised difference %.3f over %v grid points, want |z| < 0.35", n, mz, zn[k])
		}
	}
}

// TestReadDaggenDOT reads the DOT samples: n tasks each, and the same shape
// checks as the native samples at their grid point.
func TestReadDaggenDOT(t *testing.T) {
	for _, f := range refFiles(t, "dot", "dot") {
		shape := shapeOf(t, f)
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		g, err := ReadDOT(fh)
		fh.Close()
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if g.Len() != shape.N {
			t.Errorf("%s: %d tasks, want %d", f, g.Len(), shape.N)
		}
		for v, task := range g.Tasks {
			if task.Ops <= 0 || task.Alpha < 0 || task.Alpha > 0.26 {
				t.Errorf("%s: task %d: cost %v alpha %v", f, v, task.Ops, task.Alpha)
			}
		}
	}
}
