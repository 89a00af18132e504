package figure

import (
	"bytes"
	"encoding/xml"
	"errors"
	"image"
	_ "image/png"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot/plotter"

	"schedfarm/results"
	"schedfarm/results/decl"
	"schedfarm/results/internal/runtest"
)

// svgInfo parses an SVG: its width and height attributes and every text.
func svgInfo(t *testing.T, path string) (w, h string, texts []string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	d := xml.NewDecoder(bytes.NewReader(b))
	inText := false
	root := true
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s: invalid SVG: %v", path, err)
		}
		switch x := tok.(type) {
		case xml.StartElement:
			if root {
				if x.Name.Local != "svg" {
					t.Fatalf("root element %s, want svg", x.Name.Local)
				}
				for _, a := range x.Attr {
					switch a.Name.Local {
					case "width":
						w = a.Value
					case "height":
						h = a.Value
					}
				}
				root = false
			}
			inText = x.Name.Local == "text"
		case xml.CharData:
			if inText {
				texts = append(texts, strings.TrimSpace(string(x)))
			}
		case xml.EndElement:
			inText = false
		}
	}
	return w, h, texts
}

func TestRenderFigureKinds(t *testing.T) {
	d, err := runtest.Decls(t, `figures:
  - {id: line, kind: line, x: size, y: value, series: variant, title: "Value"}
  - {id: line-jobs, kind: line, table: jobs, x: size, y: value, series: variant, xscale: log, yscale: log}
  - {id: scatter, kind: scatter, x: value, y: iterations, series: variant}
  - {id: box, kind: box, x: size, y: value, series: variant}
  - {id: box-jobs, kind: box, table: jobs, x: size, y: value, series: variant}
  - {id: cdf, kind: cdf, x: value, series: variant}
  - {id: hist, kind: hist, x: value, series: variant, bins: 10, normalize: true}
  - {id: pareto, kind: pareto, x: value, y: iterations, series: variant, baseline: EDF-DLT}
  - {id: pareto-jobs, kind: pareto, table: jobs, x: value, y: iterations, series: variant, baseline: OPR-MN, relative: diff}
  - {id: pareto-mean, kind: pareto, table: jobs, x: value, y: iterations, series: variant, baseline: OPR-MN, relative: mean_ratio}
  - {id: facets, kind: line, x: size, y: value, series: variant, facet: variant, width: 4, height: 3}
  - {id: one, kind: scatter, x: size, y: value, ylabel: "the value", where: {variant: FIFO-DLT}}
`)
	if err != nil {
		t.Fatal(err)
	}
	tables := map[string]*results.Frame{results.SummaryTable: runtest.FixedSummary(), results.JobsTable: runtest.FixedJobs()}
	pal := NewPalette(nil, runtest.Series())
	dir := t.TempDir()
	want := map[string]struct {
		series []string
		panels int
	}{
		"line":        {runtest.Series(), 1},
		"line-jobs":   {runtest.Series(), 1},
		"scatter":     {runtest.Series(), 1},
		"box":         {runtest.Series(), 1},
		"box-jobs":    {runtest.Series(), 1},
		"cdf":         {runtest.Series(), 1},
		"hist":        {runtest.Series(), 1},
		"pareto":      {runtest.Series()[1:], 1}, // the baseline is not drawn
		"pareto-jobs": {runtest.Series()[:2], 1}, // relative to OPR-MN
		"pareto-mean": {runtest.Series()[:2], 1}, // one point per series
		"facets":      {runtest.Series(), 3},     // three panels in a row
		"one":         {[]string{"value"}, 1},    // no series: one, named after y
	}
	if len(d.Figures) != len(want) {
		t.Fatalf("%d figures parsed, want %d", len(d.Figures), len(want))
	}
	for _, f := range d.Figures {
		t.Run(f.ID, func(t *testing.T) {
			w := want[f.ID]
			ff, err := Render(f, tables[f.Table], pal, dir, nil)
			if err != nil {
				t.Fatal(err)
			}
			if ff.Panels != w.panels {
				t.Errorf("panels %d, want %d", ff.Panels, w.panels)
			}
			if strings.Join(ff.Series, ",") != strings.Join(w.series, ",") {
				t.Errorf("series %v, want %v", ff.Series, w.series)
			}
			fh, err := os.Open(ff.PNG)
			if err != nil {
				t.Fatal(err)
			}
			defer fh.Close()
			cfg, format, err := image.DecodeConfig(fh)
			if err != nil || format != "png" {
				t.Fatalf("%s: not a PNG (%s): %v", ff.PNG, format, err)
			}
			if cfg.Width != ff.Width || cfg.Height != ff.Height {
				t.Errorf("PNG %d×%d, reported %d×%d", cfg.Width, cfg.Height, ff.Width, ff.Height)
			}
			// The panels at their declared size, and the legend beside
			// them: at least panels × width wide, height high.
			if cols := min(w.panels, 3); cfg.Width < int(float64(cols)*f.Width*DPI) || cfg.Height < int(f.Height*DPI) {
				t.Errorf("PNG %d×%d, smaller than %d panels of %g × %g in at %d dpi", cfg.Width, cfg.Height, w.panels, f.Width, f.Height, DPI)
			}
			sw, sh, texts := svgInfo(t, ff.SVG)
			// vgsvg sizes the SVG in points: 72 per inch.
			pt := func(px int) float64 { return float64(px) * 72 / DPI }
			if g, _ := strconv.ParseFloat(strings.TrimSuffix(sw, "pt"), 64); math.Abs(g-pt(cfg.Width)) > 1 {
				t.Errorf("SVG width %s, want %.0fpt", sw, pt(cfg.Width))
			}
			if g, _ := strconv.ParseFloat(strings.TrimSuffix(sh, "pt"), 64); math.Abs(g-pt(cfg.Height)) > 1 {
				t.Errorf("SVG height %s, want %.0fpt", sh, pt(cfg.Height))
			}
			// One legend for the figure: one entry per series (none for a
			// lone series named after y, which the axis label names).
			for _, s := range w.series {
				n := countOf(texts, s)
				switch {
				case f.ID == "one":
					if n != 0 {
						t.Errorf("lone series %s has %d legend entries, want none", s, n)
					}
				case f.ID == "facets":
					// its legend entry, and its facet's title
					if countOf(texts, "variant = "+s) != 1 || n != 1 {
						t.Errorf("series %s: %d legend entries and %d facet titles, want 1 and 1", s, n, countOf(texts, "variant = "+s))
					}
				case n != 1:
					t.Errorf("series %s: %d legend entries in the SVG, want 1", s, n)
				}
			}
			for _, s := range runtest.Series() {
				if !contains(w.series, s) && countOf(texts, s) > 0 && f.ID != "box" {
					t.Errorf("series %s drawn, should not be", s)
				}
			}
			if st, err := os.Stat(ff.PDF); err != nil || st.Size() == 0 {
				t.Errorf("PDF %s: %v", ff.PDF, err)
			}
		})
	}
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

func countOf(xs []string, s string) int {
	n := 0
	for _, x := range xs {
		if x == s {
			n++
		}
	}
	return n
}

// TestPaletteDeclaredFirst: values the model declares (an enum) keep their
// colour whichever subset a file sweeps, so one algorithm has one colour
// across every file of a paper.
func TestPaletteDeclaredFirst(t *testing.T) {
	declared := []string{"EDF-DLT", "FIFO-DLT", "EDF-OPR-MN", "FIFO-OPR-MN"}
	fig3 := NewPalette(declared, []string{"EDF-OPR-MN", "EDF-DLT"})
	fig9 := NewPalette(declared, []string{"FIFO-OPR-MN", "FIFO-DLT", "EDF-DLT"})
	for _, v := range declared {
		if fig3.Color(v) != fig9.Color(v) {
			t.Errorf("%s has two colours", v)
		}
	}
	if fig3.Color("FIFO-DLT") != paletteColors[1] || NewPalette(declared, []string{"zz"}).Color("zz") != paletteColors[4] {
		t.Error("declared values are not numbered first, in the model's order")
	}
}

func TestPaletteStable(t *testing.T) {
	p := NewPalette(nil, []string{"b", "10", "a", "9", "a"})
	q := NewPalette(nil, []string{"a", "b", "9", "10"})
	for _, v := range []string{"a", "b", "9", "10"} {
		if p.Color(v) != q.Color(v) {
			t.Errorf("%s: colours differ between palettes of the same values", v)
		}
	}
	if p.Color("9") != paletteColors[0] || p.Color("10") != paletteColors[1] || p.Color("a") != paletteColors[2] {
		t.Errorf("values are not numbered in natural order")
	}
	if p.Color("new") != paletteColors[4] {
		t.Errorf("an unknown value should take the next colour")
	}
}

func TestParetoFront(t *testing.T) {
	pts := plotter.XYs{{X: 1, Y: 5}, {X: 2, Y: 3}, {X: 3, Y: 4}, {X: 4, Y: 1}, {X: 2, Y: 6}, {X: 5, Y: 1}}
	got := ParetoFront(pts)
	if want := []int{0, 1, 3}; !slices.Equal(got, want) {
		t.Errorf("front %v, want %v", got, want)
	}
}

func TestRenderFigureNotes(t *testing.T) {
	d, err := runtest.Decls(t, `figures:
  - {id: hidden, kind: line, x: size, y: value}
  - {id: empty, kind: line, x: size, y: value, series: variant, where: {size: 7}}
`)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, f := range d.Figures {
		ff, err := Render(f, runtest.FixedSummary(), NewPalette(nil, nil), dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		if ff.Note == "" {
			t.Errorf("%s: no note", f.ID)
		}
	}
}

// TestLineCategoricalX: a line figure over a string x (an order, an
// algorithm) places the values at 0, 1, 2, ... in sorted order, labels
// them on the axis, and keeps a log y axis.
func TestLineCategoricalX(t *testing.T) {
	sum := runtest.FrameOf(nil,
		"order", []string{"PSRS", "FCFS", "SMART", "PSRS", "FCFS", "SMART"},
		"backfill", []string{"easy", "easy", "easy", "none", "none", "none"},
		"value_mean", []float64{10, 40, 12, 20, 400, 25}, "value_ci95", []float64{1, 2, 1, 2, 20, 2})
	d, err := runtest.Decls(t, "figures:\n  - {id: cat, kind: line, x: variant, y: value, series: size, yscale: log}\n")
	if err != nil {
		t.Fatal(err)
	}
	f := d.Figures[0]
	f.X, f.Series = "order", "backfill"
	ff, err := Render(f, sum, NewPalette(nil, nil), t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if ff.Note != "" || len(ff.Series) != 2 {
		t.Fatalf("note %q, series %v", ff.Note, ff.Series)
	}
	svg, err := os.ReadFile(ff.SVG)
	if err != nil {
		t.Fatal(err)
	}
	for _, label := range []string{"FCFS", "PSRS", "SMART"} {
		if !strings.Contains(string(svg), ">"+label+"<") {
			t.Errorf("axis label %s missing from the SVG", label)
		}
	}
}

// TestCategoryOrder: categorical x values follow the declared order (the
// x parameter's enum: the paper's order of its algorithms), then the
// undeclared ones sorted; without a declared order, all sorted.
func TestCategoryOrder(t *testing.T) {
	fr := runtest.FrameOf(nil, "algorithm", []string{"SELFISH", "C4", "CRA_WORK", "zeta", "alpha", "C4"})
	rows := map[string][]int{"": {0, 1, 2, 3, 4, 5}}
	cases := []struct {
		order []string
		want  string
	}{
		{[]string{"SELFISH", "CRA_WORK", "C4"}, "SELFISH,CRA_WORK,C4,alpha,zeta"},
		{nil, "C4,CRA_WORK,SELFISH,alpha,zeta"},
	}
	for _, c := range cases {
		if got := strings.Join(categories(fr, 0, []string{""}, rows, c.order), ","); got != c.want {
			t.Errorf("order %v: categories %s, want %s", c.order, got, c.want)
		}
	}
}

// TestMeanXYIsMeanOfRatios: relative: mean_ratio plots the mean of the
// per-row ratios, which differs from the ratio of the means (rows 1/2 and
// 3/1: mean of ratios 1.75, ratio of means 4/3).
func TestMeanXYIsMeanOfRatios(t *testing.T) {
	for _, tc := range []struct {
		pts  plotter.XYs
		want plotter.XY
	}{
		{plotter.XYs{{X: 1.0 / 2, Y: 2}, {X: 3.0 / 1, Y: 4}}, plotter.XY{X: 1.75, Y: 3}},
		{plotter.XYs{{X: 0.8, Y: 1.2}}, plotter.XY{X: 0.8, Y: 1.2}},
	} {
		if got := meanXY(tc.pts); got != tc.want {
			t.Errorf("meanXY(%v) = %v, want %v", tc.pts, got, tc.want)
		}
	}
}

// TestRenderHugeRange: a figure whose data span more than float64 can
// draw (a metric of ±1e308) is refused with an error naming the axis,
// instead of hanging in gonum/plot's tick search.
func TestRenderHugeRange(t *testing.T) {
	jobs := runtest.FrameOf(nil, "size", []int64{1, 2, 3, 4}, "variant", []string{"a", "a", "b", "b"},
		"value", []float64{1e308, -1e308, 5, 1e308})
	sum := runtest.FrameOf(nil, "size", []int64{1, 2}, "variant", []string{"a", "a"},
		"value_mean", []float64{-1.5e308, 1.5e308}, "value_ci95", []float64{1, 1})
	d, err := runtest.Decls(t, `figures:
  - {id: cdf, kind: cdf, table: jobs, x: value, series: variant}
  - {id: scatter, kind: scatter, table: jobs, x: size, y: value, series: variant}
  - {id: hist, kind: hist, table: jobs, x: value, series: variant}
  - {id: line, kind: line, x: size, y: value, series: variant}
`)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range d.Figures {
		fr := jobs
		if f.Table == results.SummaryTable {
			fr = sum
		}
		_, err := Render(f, fr, NewPalette(nil, nil), t.TempDir(), nil)
		if err == nil || !strings.Contains(err.Error(), "beyond what float64 can draw") {
			t.Errorf("%s: %v, want the range refused", f.ID, err)
		}
	}
}

// TestRenderControlCharacters: control characters in a figure's text (a
// title from the sweep file, a series value from the data) do not make
// the SVG ill-formed XML: they are drawn as spaces, in the PNG too.
func TestRenderControlCharacters(t *testing.T) {
	sum := runtest.FrameOf(nil,
		"size", []int64{1, 2, 1, 2},
		"variant", []string{"a\x01b", "a\x01b", "c\x1b[2J\x7fd\u0085", "c\x1b[2J\x7fd\u0085"},
		"value_mean", []float64{1, 2, 3, 4}, "value_ci95", []float64{0.1, 0.1, 0.1, 0.1})
	d, err := runtest.Decls(t, "figures:\n  - {id: ctl, kind: line, x: size, y: value, series: variant}\n")
	if err != nil {
		t.Fatal(err)
	}
	f := d.Figures[0]
	f.Title = "bad\x1b[2J\x00title\x07\v\f\r\t\xff end"
	ff, err := Render(f, sum, NewPalette(nil, nil), t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _, texts := svgInfo(t, ff.SVG) // fails on ill-formed XML
	want := map[string]bool{"bad [2J title       end": false, "a b": false, "c [2J d": false}
	for _, s := range texts {
		if _, ok := want[s]; ok {
			want[s] = true
		}
	}
	for s, seen := range want {
		if !seen {
			t.Errorf("the SVG lacks the text %q; it has %q", s, texts)
		}
	}
}

// TestPublishedBesideOurs draws the paper's values on the figures of
// their metric: one diamond per point the claim's filter selects in the
// panel, none on a figure of another metric, none at a value a log axis
// cannot show, and one legend entry for them.
func TestPublishedBesideOurs(t *testing.T) {
	d, err := runtest.Decls(t, `figures:
  - {id: line, kind: line, x: size, y: value, series: variant}
  - {id: line-log, kind: line, x: size, y: value, series: variant, yscale: log}
  - {id: box, kind: box, x: size, y: value, series: variant}
  - {id: other, kind: line, x: size, y: iterations, series: variant}
`)
	if err != nil {
		t.Fatal(err)
	}
	sum := runtest.FixedSummary()
	sizes := map[string]bool{}
	for r := 0; r < sum.Len(); r++ {
		if sum.CellLabel(sum.Index("variant"), r) == "EDF-DLT" {
			sizes[sum.CellLabel(sum.Index("size"), r)] = true
		}
	}
	pub := []Published{
		{Claim: "at-every-size", Metric: "value", Where: decl.Filter{{Col: "variant", Values: []string{"EDF-DLT"}}}, Value: 2, Tol: 0.2},
		{Claim: "zero", Metric: "value", Where: decl.Filter{{Col: "variant", Values: []string{"OPR-MN"}}, {Col: "size", Values: []string{"1"}}}, Value: 0, Tol: 0},
	}
	want := map[string]int{"line": len(sizes) + 1, "line-log": len(sizes), "box": len(sizes) + 1, "other": 0}
	for _, f := range d.Figures {
		ff, err := Render(f, sum, NewPalette(nil, runtest.Series()), t.TempDir(), pub)
		if err != nil {
			t.Fatal(err)
		}
		if ff.Published != want[f.ID] {
			t.Errorf("%s: %d of the paper's values drawn, want %d", f.ID, ff.Published, want[f.ID])
		}
		_, _, texts := svgInfo(t, ff.SVG)
		if n := countOf(texts, paperLegend); (n == 1) != (want[f.ID] > 0) || n > 1 {
			t.Errorf("%s: %d legend entries for the paper's values", f.ID, n)
		}
	}
}

// TestRenderDeterministic: the same table gives the same files, byte for
// byte (the PDF library stamps the wall clock; Render fixes its dates).
func TestRenderDeterministic(t *testing.T) {
	d, err := runtest.Decls(t, "figures:\n  - {id: f, kind: line, x: size, y: value, series: variant, facet: variant}\n")
	if err != nil {
		t.Fatal(err)
	}
	var files [2]*Files
	for i := range files {
		if files[i], err = Render(d.Figures[0], runtest.FixedSummary(), NewPalette(nil, runtest.Series()), t.TempDir(), nil); err != nil {
			t.Fatal(err)
		}
	}
	for _, pick := range []func(f *Files) string{func(f *Files) string { return f.PNG }, func(f *Files) string { return f.SVG }, func(f *Files) string { return f.PDF }} {
		a, err1 := os.ReadFile(pick(files[0]))
		b, err2 := os.ReadFile(pick(files[1]))
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s and %s differ", pick(files[0]), pick(files[1]))
		}
		if strings.HasSuffix(pick(files[0]), ".pdf") && !bytes.Contains(a, []byte("/CreationDate (D:20000101000000)")) {
			t.Errorf("%s: the creation date is not the fixed one", pick(files[0]))
		}
	}
}
