package main

import (
	"math"
	"testing"
)

func TestPairs(t *testing.T) {
	r := &run{
		header: []string{"algorithm", "load", "cps", "n", "reject_ratio_mean"},
		rows: [][]string{
			{"EDF-DLT", "0.1", "100", "10", "0.10"},
			{"EDF-USERSPLIT", "0.1", "100", "10", "0.15"},
			{"FIFO-DLT", "0.1", "100", "10", "0.20"},
			{"FIFO-USERSPLIT", "0.1", "100", "10", "0.18"},
			{"EDF-DLT", "0.2", "100", "10", "0.30"},
			{"EDF-OPR-MN", "0.2", "100", "10", "0.31"},
		},
	}
	ps, err := r.pairs()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]float64{"OPR-MN": {0.01}, "USERSPLIT": {0.05, -0.02}}
	if len(ps) != len(want) {
		t.Fatalf("got %d comparisons, want %d", len(ps), len(want))
	}
	for _, p := range ps {
		w := want[p.other]
		if len(p.d) != len(w) {
			t.Fatalf("%s: got %v, want %v", p.other, p.d, w)
		}
		for i := range w {
			if math.Abs(p.d[i]-w[i]) > 1e-12 {
				t.Errorf("%s[%d] = %v, want %v", p.other, i, p.d[i], w[i])
			}
		}
	}
	if got := ps[1].label[1]; got != "FIFO cps=100 load=0.1" {
		t.Errorf("label = %q", got)
	}
}

func TestStats(t *testing.T) {
	tests := []struct {
		name         string
		v            []float64
		sign         float64
		n            int
		mean, hi, lo float64
	}{
		{"positive side", []float64{0.1, -0.2, 0.3, 0}, 1, 2, 0.2, 0.3, 0.1},
		{"negative side", []float64{0.1, -0.2, 0.3, 0}, -1, 1, 0.2, 0.2, 0.2},
		{"none", []float64{0.1}, -1, 0, 0, 0, 0},
	}
	for _, tc := range tests {
		n, mean, hi, lo := stats(tc.v, tc.sign)
		if n != tc.n || math.Abs(mean-tc.mean) > 1e-12 || hi != tc.hi || lo != tc.lo {
			t.Errorf("%s: got %d %v %v %v, want %d %v %v %v", tc.name, n, mean, hi, lo, tc.n, tc.mean, tc.hi, tc.lo)
		}
	}
}

func TestCell(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain", "plain"},
		{"a|b", `a\|b`},
		{"esc\x1b[2J", `esc\u001b[2J`},
		{"bidi\u202e", `bidi\u202e`},
	}
	for _, tc := range tests {
		if got := cell(tc.in); got != tc.want {
			t.Errorf("cell(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
