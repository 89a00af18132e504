package modeltest

import (
	"math"
	"slices"
	"testing"

	"schedfarm/simcore"
	"schedfarm/simcore/bench"
	"schedfarm/simcore/check"
)

func TestRoundTripAndDigestOnBench(t *testing.T) {
	m := bench.New()
	r := RoundTrip(t, m, simcore.Params{"work_ms": 0.5, "rows": int64(5)}, 3)
	if got := Column[float64](t, r, "samples", "u"); len(got) != 5 {
		t.Fatalf("%d samples, want 5", len(got))
	}
	runs := []Instance{{0, simcore.Params{"rows": int64(2)}, 1}, {1, simcore.Params{"size": int64(4)}, 2}}
	a, b := Digest(t, m, runs), Digest(t, m, runs)
	if len(a) != 16 || a != b {
		t.Fatalf("digests %q and %q of one set of runs", a, b)
	}
	if c := Digest(t, m, runs[:1]); c == a {
		t.Fatalf("one run and two share the digest %s", a)
	}
}

func TestSame(t *testing.T) {
	s := simcore.Schema{
		Metrics: []simcore.Column{{Name: "x", Kind: simcore.Float}, {Name: "ms", Kind: simcore.Float, Measured: true}},
		Tables:  []simcore.Table{{Name: "t", Columns: []simcore.Column{{Name: "c", Kind: simcore.Float}}}},
	}
	res := func(x, ms, c float64) *simcore.Result {
		return &simcore.Result{Metrics: map[string]any{"x": x, "ms": ms},
			Tables: map[string]*simcore.TableData{"t": {Columns: map[string]any{"c": []float64{1, c}}}}}
	}
	for _, c := range []struct {
		name string
		a, b *simcore.Result
		same bool
	}{
		{"equal but the measured metric", res(1, 5, 2), res(1, 9, 2), true},
		{"NaN equals its own bits", res(math.NaN(), 0, math.NaN()), res(math.NaN(), 0, math.NaN()), true},
		{"metric", res(1, 0, 2), res(math.Nextafter(1, 2), 0, 2), false},
		{"column", res(1, 0, 2), res(1, 0, 3), false},
		{"-0 is not 0", res(0, 0, 2), res(math.Copysign(0, -1), 0, 2), false},
		{"table missing", res(1, 0, 2), &simcore.Result{Metrics: map[string]any{"x": 1.0, "ms": 0.0}}, false},
	} {
		if err := Same(s, c.a, c.b); (err == nil) != c.same {
			t.Errorf("%s: Same = %v", c.name, err)
		}
	}
}

func TestHashWritesLittleEndianBits(t *testing.T) {
	a, b := NewHash(), NewHash()
	a.Float(1.5, -2)
	a.Int(-1)
	b.Uint(math.Float64bits(1.5))
	b.Uint(math.Float64bits(-2))
	b.Uint(math.MaxUint64)
	if a.Sum() != b.Sum() {
		t.Fatalf("Float/Int %#x, Uint %#x", a.Sum(), b.Sum())
	}
	// FNV-64a of no bytes is its offset basis.
	if h := NewHash().Sum(); h != 0xcbf29ce484222325 {
		t.Fatalf("empty hash %#x", h)
	}
}

func TestParseIDs(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []int
		bad  bool
	}{
		{"", nil, false},
		{"3", []int{3}, false},
		{"0-2,5,7-8", []int{0, 1, 2, 5, 7, 8}, false},
		{"1,x", nil, true},
		{"2-", nil, true},
	} {
		got, err := ParseIDs(c.in)
		if (err != nil) != c.bad || !slices.Equal(got, c.want) {
			t.Errorf("ParseIDs(%q) = %v, %v", c.in, got, err)
		}
	}
}

// TestScheduleReadsLayout: a two-group table with processor lists,
// predecessors and implied edges becomes the records the checker sees.
func TestScheduleReadsLayout(t *testing.T) {
	r := &simcore.Result{Tables: map[string]*simcore.TableData{"plan": {Columns: map[string]any{
		"night": []int64{1, 1, 2},
		"id":    []int64{0, 1, 0},
		"procs": []string{"0-1", "2", "0"},
		"n":     []int64{2, 1, 1},
		"start": []float64{0, 1, 0},
		"end":   []float64{1, 2, 4},
		"preds": []string{"", "0", ""},
	}}}}
	var implied []int
	l := Layout{Table: "plan", Task: "id", NodeList: "procs", Procs: "n", Start: "start", End: "end", Preds: "preds", Group: "night",
		Edges: func(t testing.TB, tab *simcore.TableData, rows []int) []check.Edge {
			implied = append(implied, len(rows))
			return nil
		}}
	s := Schedule(t, r, 3, l, 1e-9)
	if len(s.Entries) != 3 || len(s.Edges) != 1 || s.Edges[0] != (check.Edge{Before: 0, After: 1}) {
		t.Fatalf("first night's record: %+v", s)
	}
	if s.Entries[1].Node != 1 || s.Entries[1].Part != 1 || s.Entries[2].Node != 2 {
		t.Fatalf("processor list read as %+v", s.Entries)
	}
	if !slices.Equal(implied, []int{2, 1}) {
		t.Fatalf("Edges called with %v rows per night, want [2 1]", implied)
	}
}
