package dag

import (
	"bytes"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"schedfarm/simcore/rng"
)

func TestFFTAndStrassenShapes(t *testing.T) {
	for _, c := range []struct {
		m, tasks, width int
	}{{2, 5, 2}, {4, 15, 4}, {8, 39, 8}} {
		g, err := FFT(c.m)
		if err != nil {
			t.Fatal(err)
		}
		s := g.Stats()
		if s.Tasks != c.tasks || s.MaxWidth != c.width || s.Entries != 1 || s.Exits != c.m {
			t.Errorf("FFT(%d): %+v, want %d tasks, width %d, 1 entry, %d exits", c.m, s, c.tasks, c.width, c.m)
		}
		// tree depth log2 m + butterfly stages log2 m, plus the root level
		if s.Levels != 2*log2(c.m)+1 {
			t.Errorf("FFT(%d): %d levels", c.m, s.Levels)
		}
	}
	if _, err := FFT(6); err == nil {
		t.Error("FFT(6) accepted")
	}
	s := Strassen().Stats()
	if s.Tasks != 25 || s.MaxWidth != 10 || s.Entries != 10 || s.Exits != 4 || s.Edges != 26 || s.Levels != 5 {
		t.Errorf("Strassen: %+v", s)
	}
}

func log2(m int) int {
	k := 0
	for ; m > 1; m >>= 1 {
		k++
	}
	return k
}

func TestRandomChainAndWidth(t *testing.T) {
	r := rng.New(1).Stream("t")
	// fat 0.2 and n <= 30: W = 1, every level one task; jump 1: a chain.
	g, err := Random(Shape{N: 30, Fat: 0.2, Regular: 0.8, Density: 0.8, Jump: 1}, r)
	if err != nil {
		t.Fatal(err)
	}
	if s := g.Stats(); s.Levels != 30 || s.Edges != 29 || s.MaxWidth != 1 {
		t.Errorf("chain: %+v", s)
	}
	// regular 1: every level exactly W = floor(30^0.8) = 15 tasks.
	g, _ = Random(Shape{N: 30, Fat: 0.8, Regular: 1, Density: 0.5, Jump: 1}, r)
	if s := g.Stats(); s.Levels != 2 || s.MaxWidth != 15 {
		t.Errorf("regular: %+v", s)
	}
	if _, err := Random(Shape{N: 0, Fat: 0.5}, r); err == nil {
		t.Error("n = 0 accepted")
	}
}

func TestCostsRanges(t *testing.T) {
	r := rng.New(2).Stream("c")
	for c := range ComplexityNames {
		costs := PaperCosts(Complexity(c))
		for range 2000 {
			task := costs.Draw(r)
			lo, hi := 64*2048.0*2048, 2*512*11264.0*11264*math.Log2(11264)
			if task.Ops < lo || task.Ops > hi || task.Alpha < 0 || task.Alpha >= 0.25 {
				t.Fatalf("%s: %+v outside [%g, %g], alpha [0, 0.25)", ComplexityNames[c], task, lo, hi)
			}
		}
	}
	// d^1.5 is s^3 with s a multiple of 1024.
	task := PaperCosts(D15).Draw(r)
	s := 1024.0
	for s*s*s < task.Ops {
		s += 1024
	}
	if s*s*s != task.Ops {
		t.Errorf("d^1.5 cost %v is not a cube of a multiple of 1024", task.Ops)
	}
	if _, err := ParseComplexity("a_d_log_d"); err != nil {
		t.Error(err)
	}
	if _, err := ParseComplexity("quadratic"); err == nil {
		t.Error("bad complexity accepted")
	}
}

func randomGraph(seed uint64) *Graph {
	r := rng.New(seed).Stream("g")
	g, _ := Random(Shape{N: 5 + r.IntN(30), Fat: r.Float64(), Regular: r.Float64(), Density: r.Float64(), Jump: 1 + r.IntN(4)}, r)
	PaperCosts(Mixed).Assign(g, r)
	return g
}

func TestRoundTrip(t *testing.T) {
	for seed := range uint64(50) {
		g := randomGraph(seed)
		var nb, db bytes.Buffer
		if err := WriteNative(&nb, g); err != nil {
			t.Fatal(err)
		}
		if err := WriteDOT(&db, g); err != nil {
			t.Fatal(err)
		}
		n, err := ReadNative(&nb)
		if err != nil {
			t.Fatalf("seed %d: native: %v\n%s", seed, err, nb.String())
		}
		d, err := ReadDOT(&db)
		if err != nil {
			t.Fatalf("seed %d: dot: %v", seed, err)
		}
		// Pred lists may come back in another order; tasks and Succ are exact.
		if !reflect.DeepEqual(n.Tasks, g.Tasks) || !reflect.DeepEqual(n.Succ, g.Succ) ||
			!reflect.DeepEqual(d.Tasks, g.Tasks) || !reflect.DeepEqual(d.Succ, g.Succ) {
			t.Fatalf("seed %d: round trip changed the graph", seed)
		}
	}
}

func TestReadErrors(t *testing.T) {
	for _, c := range []struct{ native, want string }{
		{"NODE_COUNT 2\nNODE 0 1 ROOT 0 0\n", "NODE_COUNT 2 but 1"},
		{"NODE 1 2 COMPUTATION 5 0.1\nNODE 2 1 COMPUTATION 5 0.1\n", "cycle"},
		{"NODE 1 9 COMPUTATION 5 0.1\n", "child 9"},
		{"NODE 1 - COMPUTATION x 0.1\n", "cost"},
		{"NODE 1 - WORK 5 0.1\n", "node type"},
		{"NODE 1 - COMPUTATION 5 0.1\nNODE 1 - COMPUTATION 5 0.1\n", "twice"},
	} {
		_, err := ReadNative(strings.NewReader(c.native))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.native, err, c.want)
		}
	}
	for _, c := range []struct{ dot, want string }{
		{"graph G {\n}\n", "digraph"},
		{"digraph G {\n a -> b\n b -> a\n}\n", "cycle"},
		{"digraph G {\n a [size=\"1\"\n}\n", "unterminated"},
		{"digraph G {\n a [size=\"x\"]\n}\n", "size"},
		{"digraph G {\n a -> b\n", "closing"},
	} {
		_, err := ReadDOT(strings.NewReader(c.dot))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.dot, err, c.want)
		}
	}
	g, err := ReadDOT(strings.NewReader("digraph \"x\" {\n  \"in\" [size=10, alpha=0.1];\n in -> mid -> out;\n}\n"))
	if err != nil || g.Len() != 3 || g.Edges() != 2 || g.Tasks[0].Ops != 10 || g.Tasks[0].Alpha != 0.1 {
		t.Errorf("chain DOT: %v %+v", err, g)
	}
}

func FuzzReadNative(f *testing.F) {
	var b bytes.Buffer
	WriteNative(&b, randomGraph(1))
	f.Add(b.String())
	f.Add("NODE_COUNT 1\nNODE 0 - END 0 0\n")
	f.Fuzz(func(t *testing.T, s string) {
		g, err := ReadNative(strings.NewReader(s))
		if err != nil {
			return
		}
		if err := g.Validate(); err != nil {
			t.Fatalf("accepted an invalid graph: %v", err)
		}
		var out bytes.Buffer
		if err := WriteNative(&out, g); err != nil {
			t.Fatal(err)
		}
		g2, err := ReadNative(&out)
		if err != nil || !reflect.DeepEqual(g.Tasks, g2.Tasks) || !reflect.DeepEqual(g.Succ, g2.Succ) {
			t.Fatalf("re-read failed: %v", err)
		}
	})
}

func FuzzReadDOT(f *testing.F) {
	var b bytes.Buffer
	WriteDOT(&b, randomGraph(2))
	f.Add(b.String())
	f.Add("digraph G {\n a -> b [size=\"3\"]\n}\n")
	f.Fuzz(func(t *testing.T, s string) {
		g, err := ReadDOT(strings.NewReader(s))
		if err != nil {
			return
		}
		if err := g.Validate(); err != nil {
			t.Fatalf("accepted an invalid graph: %v", err)
		}
		var out bytes.Buffer
		if err := WriteDOT(&out, g); err != nil {
			t.Fatal(err)
		}
		g2, err := ReadDOT(&out)
		if err != nil || !reflect.DeepEqual(g.Stats(), g2.Stats()) {
			t.Fatalf("re-read failed: %v", err)
		}
	})
}

// ExampleFFT shows the shape statistics of the three FFT graphs of
// casanova2010 §5.1.2 and of the Strassen graph.
func ExampleFFT() {
	for _, m := range []int{2, 4, 8} {
		g, _ := FFT(m)
		s := g.Stats()
		fmt.Printf("FFT %d points: %d tasks, %d edges, %d levels, width %d\n", m, s.Tasks, s.Edges, s.Levels, s.MaxWidth)
	}
	s := Strassen().Stats()
	fmt.Printf("Strassen: %d tasks, %d edges, %d levels, width %d\n", s.Tasks, s.Edges, s.Levels, s.MaxWidth)
	// Output:
	// FFT 2 points: 5 tasks, 6 edges, 3 levels, width 2
	// FFT 4 points: 15 tasks, 22 edges, 5 levels, width 4
	// FFT 8 points: 39 tasks, 62 edges, 7 levels, width 8
	// Strassen: 25 tasks, 26 edges, 5 levels, width 10
}
