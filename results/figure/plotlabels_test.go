package figure

import (
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"schedfarm/results"
	"schedfarm/results/internal/runtest"
)

// labelFrame is a summary with n long category names (variant) whose
// values span about 0.8·n decades, and a second point set (size) whose
// values lie inside one decade.
func labelFrame(n int) *results.Frame {
	var size []int64
	var variant []string
	var mean, ci, lo, q1, med, q3, hi []float64
	for i := range n {
		v := math.Pow(10, 0.8*float64(i))
		size, variant = append(size, 1), append(variant, fmt.Sprintf("CAFM_CRA_WEIGHT_%02d", i))
		mean, ci = append(mean, v), append(ci, 0)
		lo, q1, med, q3, hi = append(lo, v/2), append(q1, v*0.8), append(med, v), append(q3, v*1.2), append(hi, v*2)
	}
	for i := range 5 {
		size, variant = append(size, int64(i+2)), append(variant, "narrow")
		v := 3.2e4 + 1.5e3*float64(i)
		mean, ci = append(mean, v), append(ci, 0)
		lo, q1, med, q3, hi = append(lo, v), append(q1, v), append(med, v), append(q3, v), append(hi, v)
	}
	return runtest.FrameOf(nil, "size", size, "variant", variant, "value_mean", mean, "value_ci95", ci,
		"value_min", lo, "value_q1", q1, "value_median", med, "value_q3", q3, "value_max", hi)
}

// TestTickLabelsReadable renders figures with many long category labels
// and log axes over a wide and a narrow range, and checks on gonum's own
// layout that no two tick labels overlap, that every category keeps its
// label, and that each log axis has at least two labels.
func TestTickLabelsReadable(t *testing.T) {
	const n = 19
	d, err := runtest.Decls(t, `figures:
  - {id: cats-line, kind: line, x: variant, y: value, yscale: log, where: {size: 1}, width: 6, height: 4}
  - {id: cats-box, kind: box, x: variant, y: value, yscale: log, where: {size: 1}, width: 6, height: 4}
  - {id: cats-small, kind: box, x: variant, y: value, width: 2, height: 3, where: {size: 1}}
  - {id: narrow-log, kind: line, x: size, y: value, yscale: log, where: {variant: narrow}}
`)
	if err != nil {
		t.Fatal(err)
	}
	fr := labelFrame(n)
	for _, f := range d.Figures {
		t.Run(f.ID, func(t *testing.T) {
			lay, _, err := build(f, fr, NewPalette(nil, nil), nil)
			if err != nil {
				t.Fatal(err)
			}
			grid := lay.grid
			w, h := vg.Length(f.Width)*vg.Inch, vg.Length(f.Height)*vg.Inch
			dc := draw.New(vgimg.New(w, h))
			p := grid[0][0]
			if f.ID == "cats-line" {
				// The case this guards against: flat, the labels collide.
				cs := [][]draw.Canvas{{dc}}
				if overlapping(tickLabelBoxes(p, cs[0][0], true)) < 0 {
					t.Fatal("flat category labels do not overlap: the test no longer exercises fitting")
				}
			}
			cs := layoutGrid(grid, dc, &lay.ylabels)
			for _, xAxis := range []bool{true, false} {
				bs := tickLabelBoxes(p, cs[0][0], xAxis)
				if i := overlapping(bs); i >= 0 {
					t.Errorf("x=%v: labels %q and %q overlap: %v and %v", xAxis, bs[i].label, bs[i+1].label, bs[i].r, bs[i+1].r)
				}
				labels := 0
				for _, b := range bs {
					if b.label != "" {
						labels++
					}
				}
				switch {
				case xAxis && f.ID != "narrow-log" && f.ID != "cats-small" && labels != n:
					t.Errorf("%d category labels drawn, want all %d", labels, n)
				case xAxis && f.ID == "cats-small" && labels < 2:
					t.Errorf("%d category labels drawn on a narrow panel, want at least 2", labels)
				case !xAxis && f.YLog && labels < 2:
					t.Errorf("log y axis has %d labels, want at least 2", labels)
				}
			}
		})
	}
}

// TestDecadeTicks pins the log ticker: every decade labelled over a wide
// range, 2 and 5 multiples within one decade, the ends in a narrow range.
func TestDecadeTicks(t *testing.T) {
	labels := func(lo, hi float64) []string {
		var out []string
		for _, tk := range (decadeTicks{}).Ticks(lo, hi) {
			if tk.Label != "" {
				out = append(out, tk.Label)
			}
		}
		return out
	}
	cases := []struct {
		lo, hi float64
		want   string
	}{
		{0.5, 2e3, "[1 10 100 1000]"},
		{8e4, 5e6, "[1e5 2e5 5e5 1e6 2e6 5e6]"},
		{3e3, 4e4, "[5000 1e4 2e4]"},
		{2.1e4, 8.7e4, "[3e4 4e4 5e4 6e4 7e4 8e4]"},
		{3.2e4, 3.9e4, "[3.2e4 3.9e4]"},
		{1.5e-5, 2.5e-4, "[2e-5 5e-5 1e-4 2e-4]"},
	}
	for _, c := range cases {
		if got := fmt.Sprint(labels(c.lo, c.hi)); got != c.want {
			t.Errorf("ticks(%g, %g) labels %s, want %s", c.lo, c.hi, got, c.want)
		}
	}
}

// TestPadLog pins the log axis's range: widened to a labelled tick
// beyond the lowest and the highest value, so that every mark has a label
// below and above it (the range of one of Krallmann's AWRT figures had
// its two lowest series below its lowest label).
func TestPadLog(t *testing.T) {
	cases := []struct {
		lo, hi float64
		want   string
	}{
		{1.6e11, 4.4e11, "[1e11 2e11 5e11]"},
		{8.5e4, 4.9e6, "[1e4 1e5 1e6 1e7]"},
		{1, 1000, "[0.1 1 10 100 1000 1e4]"},
		{3.2e4, 3.9e4, "[3e4 4e4]"},
	}
	for _, c := range cases {
		lo, hi := padLog(c.lo, c.hi)
		var got []string
		for _, tk := range (decadeTicks{}).Ticks(lo, hi) {
			if tk.Label != "" {
				got = append(got, tk.Label)
			}
		}
		if fmt.Sprint(got) != c.want {
			t.Errorf("padLog(%g, %g) = [%g, %g], labels %v, want %s", c.lo, c.hi, lo, hi, got, c.want)
		}
		if lo > c.lo || hi < c.hi || !labelledAt(lo, lo, hi) || !labelledAt(hi, lo, hi) {
			t.Errorf("padLog(%g, %g) = [%g, %g]: ends not both labelled outside the values", c.lo, c.hi, lo, hi)
		}
	}
}

// labelledAt reports whether decadeTicks labels v on [lo, hi].
func labelledAt(v, lo, hi float64) bool {
	for _, tk := range (decadeTicks{}).Ticks(lo, hi) {
		if tk.Label != "" && math.Abs(tk.Value-v) <= 1e-9*v {
			return true
		}
	}
	return false
}

// TestNiceTicks pins the linear ticker: four to eight labels at a step of
// 1, 2, 2.5 or 5 × 10^k, with the decimals the step needs.
func TestNiceTicks(t *testing.T) {
	cases := []struct {
		lo, hi float64
		want   string
	}{
		{0, 1, "[0.0 0.2 0.4 0.6 0.8 1.0]"},
		{0.05, 1.05, "[0.2 0.4 0.6 0.8 1.0]"},
		{0.2526, 0.2569, "[0.253 0.254 0.255 0.256]"},
		{-3, 7, "[-2 0 2 4 6]"},
		{0, 2.5e6, "[0 5e5 1e6 1.5e6 2e6 2.5e6]"},
		{0.95, 1.04, "[0.96 0.98 1.00 1.02 1.04]"},
	}
	for _, c := range cases {
		var got []string
		for _, tk := range (niceTicks{}).Ticks(c.lo, c.hi) {
			if tk.Label != "" {
				got = append(got, tk.Label)
			}
		}
		if fmt.Sprint(got) != c.want {
			t.Errorf("niceTicks(%g, %g) labels %v, want %s", c.lo, c.hi, got, c.want)
		}
	}
}
