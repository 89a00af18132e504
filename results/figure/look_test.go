package figure

import (
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"schedfarm/results"
	"schedfarm/results/decl"
	"schedfarm/results/internal/runtest"
	"schedfarm/simcore"
	"schedfarm/simcore/models"
	"schedfarm/sweep"
)

// The figures looked at: every figure the configs declare is drawn with
// data meant to break a layout — ten series with long names, four facets
// where the figure has facets, twelve numeric or eight long categorical x
// values, values over five decades on log axes — on a canvas that records
// what is drawn, and fails when two texts overlap, a text leaves the
// canvas or lies over a panel's data, the legend lies over a panel's data,
// or a mark (a marker, the paper's diamond) is cut by its panel's frame or
// lies under a text. One figure per kind is also compared with its golden
// image in testdata/golden/, regenerated (to review by eye) with
//
//	go test ./results/figure -run TestFigureGolden -update

var update = flag.Bool("update", false, "rewrite the golden figures in testdata/golden/")

// recorder is a canvas that draws nothing and records where text and
// small filled shapes (markers) land, through the transforms in force.
type recorder struct {
	w, h  vg.Length
	m     affine
	stack []affine
	texts []textBox
	marks []vg.Rectangle
}

type textBox struct {
	s string
	r vg.Rectangle
}

// affine maps (x, y) to (a·x + c·y + e, b·x + d·y + f).
type affine struct{ a, b, c, d, e, f float64 }

func (m affine) apply(p vg.Point) vg.Point {
	x, y := float64(p.X), float64(p.Y)
	return vg.Point{X: vg.Length(m.a*x + m.c*y + m.e), Y: vg.Length(m.b*x + m.d*y + m.f)}
}

func (m affine) then(n affine) affine { // m × n: n applied first
	return affine{
		a: m.a*n.a + m.c*n.b, b: m.b*n.a + m.d*n.b,
		c: m.a*n.c + m.c*n.d, d: m.b*n.c + m.d*n.d,
		e: m.a*n.e + m.c*n.f + m.e, f: m.b*n.e + m.d*n.f + m.f,
	}
}

func newRecorder(w, h vg.Length) *recorder {
	return &recorder{w: w, h: h, m: affine{a: 1, d: 1}}
}

func (r *recorder) Size() (vg.Length, vg.Length)        { return r.w, r.h }
func (r *recorder) SetLineWidth(vg.Length)              {}
func (r *recorder) SetLineDash([]vg.Length, vg.Length)  {}
func (r *recorder) SetColor(color.Color)                {}
func (r *recorder) Stroke(vg.Path)                      {}
func (r *recorder) DrawImage(vg.Rectangle, image.Image) {}
func (r *recorder) Push()                               { r.stack = append(r.stack, r.m) }
func (r *recorder) Pop()                                { r.m, r.stack = r.stack[len(r.stack)-1], r.stack[:len(r.stack)-1] }
func (r *recorder) Translate(p vg.Point) {
	r.m = r.m.then(affine{a: 1, d: 1, e: float64(p.X), f: float64(p.Y)})
}
func (r *recorder) Rotate(t float64) {
	s, c := math.Sincos(t)
	r.m = r.m.then(affine{a: c, b: s, c: -s, d: c})
}
func (r *recorder) Scale(x, y float64) { r.m = r.m.then(affine{a: x, d: y}) }

// bounds is the axis-aligned box of the points through the transform.
func (r *recorder) bounds(pts []vg.Point) vg.Rectangle {
	b := vg.Rectangle{Min: vg.Point{X: vg.Length(math.Inf(1)), Y: vg.Length(math.Inf(1))}, Max: vg.Point{X: vg.Length(math.Inf(-1)), Y: vg.Length(math.Inf(-1))}}
	for _, p := range pts {
		q := r.m.apply(p)
		b.Min.X, b.Min.Y = min(b.Min.X, q.X), min(b.Min.Y, q.Y)
		b.Max.X, b.Max.Y = max(b.Max.X, q.X), max(b.Max.Y, q.Y)
	}
	return b
}

// FillString records the text's ink box: its advance width, from its
// descent to its cap height (an accent above a capital may reach past).
func (r *recorder) FillString(f font.Face, p vg.Point, s string) {
	if strings.TrimSpace(s) == "" {
		return // a blank placeholder draws no ink
	}
	w := f.Width(s)
	desc := f.Extents().Descent * 0.95
	capH := f.Font.Size * 0.75
	r.texts = append(r.texts, textBox{s, r.bounds([]vg.Point{
		{X: p.X, Y: p.Y - desc}, {X: p.X + w, Y: p.Y - desc}, {X: p.X, Y: p.Y + capH}, {X: p.X + w, Y: p.Y + capH}})})
}

// Fill records filled shapes no larger than a marker (12 pt).
func (r *recorder) Fill(path vg.Path) {
	var pts []vg.Point
	for _, c := range path {
		switch c.Type {
		case vg.MoveComp, vg.LineComp:
			pts = append(pts, c.Pos)
		case vg.ArcComp:
			pts = append(pts, vg.Point{X: c.Pos.X - c.Radius, Y: c.Pos.Y - c.Radius}, vg.Point{X: c.Pos.X + c.Radius, Y: c.Pos.Y + c.Radius})
		}
	}
	if len(pts) == 0 {
		return
	}
	b := r.bounds(pts)
	if sz := b.Size(); sz.X <= vg.Points(12) && sz.Y <= vg.Points(12) {
		r.marks = append(r.marks, b)
	}
}

// overlap reports whether two boxes share more than a hair (0.25 pt).
func overlap(a, b vg.Rectangle) bool {
	const e = vg.Length(0.25)
	return a.Min.X+e < b.Max.X && b.Min.X+e < a.Max.X && a.Min.Y+e < b.Max.Y && b.Min.Y+e < a.Max.Y
}

func inside(in, out vg.Rectangle) bool {
	const e = vg.Length(0.01)
	return in.Min.X >= out.Min.X-e && in.Min.Y >= out.Min.Y-e && in.Max.X <= out.Max.X+e && in.Max.Y <= out.Max.Y+e
}

// lookAt draws lay on a recorder and returns what is wrong with it.
func lookAt(lay *layout) []string {
	w, h := lay.size()
	rec := newRecorder(w, h)
	pl := lay.draw(draw.New(rec))
	var bad []string
	canvas := vg.Rectangle{Max: vg.Point{X: w, Y: h}}
	for i, a := range rec.texts {
		if !inside(a.r, canvas) {
			bad = append(bad, fmt.Sprintf("text %q at %v leaves the %v canvas", a.s, a.r, canvas.Max))
		}
		for _, b := range rec.texts[i+1:] {
			if overlap(a.r, b.r) {
				bad = append(bad, fmt.Sprintf("texts %q at %v and %q at %v overlap", a.s, a.r, b.s, b.r))
			}
		}
		for k, d := range pl.data {
			if overlap(a.r, d) {
				bad = append(bad, fmt.Sprintf("text %q at %v lies over panel %d's data %v", a.s, a.r, k, d))
			}
		}
	}
	for k, d := range pl.data {
		if lay.legend != nil && overlap(pl.legend, d) {
			bad = append(bad, fmt.Sprintf("the legend %v lies over panel %d's data %v", pl.legend, k, d))
		}
	}
	if lay.legend != nil && !inside(pl.legend, canvas) {
		bad = append(bad, fmt.Sprintf("the legend %v leaves the %v canvas", pl.legend, canvas.Max))
	}
	for _, m := range rec.marks {
		inLegend := lay.legend != nil && inside(m, pl.legend)
		in := inLegend
		for _, d := range pl.data {
			if inside(m, d) {
				in = true
			} else if overlap(m, d) {
				bad = append(bad, fmt.Sprintf("a mark at %v is cut by the frame of a panel's data %v", m, d))
			}
		}
		if !in {
			if !slices.ContainsFunc(pl.data, func(d vg.Rectangle) bool { return overlap(m, d) }) {
				bad = append(bad, fmt.Sprintf("a mark at %v lies outside every panel's data and the legend", m))
			}
			continue
		}
		if inLegend {
			continue
		}
		for _, t := range rec.texts {
			if overlap(m, t.r) {
				bad = append(bad, fmt.Sprintf("a mark at %v lies under the text %q", m, t.s))
			}
		}
	}
	return bad
}

// configFigures returns every figure the repository's configs declare,
// with the schema of its sweep's model.
func configFigures(t *testing.T) []declared {
	t.Helper()
	reg := models.All(simcore.Dirs{})
	var out []declared
	err := filepath.WalkDir("../../configs", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".yaml") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		f, err := sweep.Parse(p, b, reg)
		if err != nil {
			return nil // not a sweep file (a register, a study's notes); the configs' own tests check them
		}
		for _, s := range f.Sweeps {
			ds, err := decl.Parse(s)
			if err != nil {
				return fmt.Errorf("%s: %w", p, err)
			}
			for _, fig := range ds.Figures {
				out = append(out, declared{file: p, sweep: s.Name, fig: fig, schema: s.Schema()})
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

type declared struct {
	file, sweep string
	fig         *decl.Figure
	schema      *simcore.Schema
}

// stressFrame makes a table for fig meant to break its layout (the
// package comment above).
func stressFrame(t *testing.T, fig *decl.Figure, schema *simcore.Schema) *results.Frame {
	t.Helper()
	var l results.Layout
	var err error
	switch fig.Table {
	case results.JobsTable:
		l, err = results.JobsLayout(*schema)
	case results.SummaryTable:
		l, err = results.SummaryLayout(*schema)
	default:
		l, err = results.TableLayout(*schema, fig.Table)
	}
	if err != nil {
		t.Fatal(err)
	}
	typ := func(name string) results.Type {
		if i := l.Index(name); i >= 0 {
			return l.Columns[i].Type
		}
		return results.Float64 // a bare summary metric
	}
	// The dimensions: columns whose values split the rows.
	type dim struct {
		name   string
		values []string
	}
	long := func(prefix string, n int) []string {
		var vs []string
		for i := range n {
			vs = append(vs, fmt.Sprintf("%s-%s-%02d", prefix, strings.Repeat("WIDE", 2), i))
		}
		return vs
	}
	nums := func(n int, scale float64) []string {
		var vs []string
		for i := range n {
			vs = append(vs, results.Label(scale*float64(i+1)))
		}
		return vs
	}
	values := func(name string, n int, scale float64) []string {
		switch typ(name) {
		case results.String:
			return long(strings.ToUpper(name), n)
		case results.Bool:
			return []string{"false", "true"}[:min(n, 2)]
		}
		return nums(n, scale)
	}
	var dims []dim
	used := map[string]bool{}
	addDim := func(name string, vs []string) {
		if name == "" || used[name] {
			return
		}
		used[name] = true
		dims = append(dims, dim{name, vs})
	}
	for _, c := range fig.Where {
		addDim(c.Col, c.Values[:1])
	}
	if fig.Series != "" {
		vs := values(fig.Series, 10, 1)
		if fig.Baseline != "" {
			vs = append([]string{fig.Baseline}, vs[:9]...)
		}
		addDim(fig.Series, vs)
	}
	addDim(fig.Facet, values(fig.Facet, 4, 1))
	valueCols := []string{fig.Y}
	switch fig.Kind {
	case decl.KindLine, decl.KindBox:
		n := 12
		if typ(fig.X) == results.String {
			n = 8
		}
		addDim(fig.X, values(fig.X, n, 0.1))
	default:
		valueCols = []string{fig.X, fig.Y}
	}
	if fig.Table != results.SummaryTable && l.Index(results.ColReplicate) >= 0 {
		addDim(results.ColReplicate, []string{"0", "1", "2"})
	}
	if fig.Kind == decl.KindCDF || fig.Kind == decl.KindHist {
		addDim("\x00sample", nums(20, 1))
	}
	// Rows: every combination of the dimensions' values.
	rows := [][]string{{}}
	for _, d := range dims {
		var next [][]string
		for _, r := range rows {
			for _, v := range d.values {
				next = append(next, append(slices.Clone(r), v))
			}
		}
		rows = next
	}
	var pairs []any
	for k, d := range dims {
		if strings.HasPrefix(d.name, "\x00") {
			continue
		}
		switch typ(d.name) {
		case results.String:
			col := make([]string, len(rows))
			for i, r := range rows {
				col[i] = r[k]
			}
			pairs = append(pairs, d.name, col)
		case results.Bool:
			col := make([]bool, len(rows))
			for i, r := range rows {
				col[i] = r[k] == "true"
			}
			pairs = append(pairs, d.name, col)
		case results.Float64:
			col := make([]float64, len(rows))
			for i, r := range rows {
				fmt.Sscan(r[k], &col[i])
			}
			pairs = append(pairs, d.name, col)
		default:
			col := make([]int64, len(rows))
			for i, r := range rows {
				var v float64
				fmt.Sscan(r[k], &v)
				col[i] = int64(math.Round(v))
			}
			pairs = append(pairs, d.name, col)
		}
	}
	// Values: spread over five decades on a log axis, over [0, 1000]
	// otherwise, deterministic in the row.
	for vi, name := range valueCols {
		if name == "" || used[name] {
			continue
		}
		log := (vi == len(valueCols)-1 && fig.YLog) || (vi == 0 && len(valueCols) == 2 && fig.XLog)
		val := func(i int) float64 {
			u := math.Mod(float64(i)*0.6180339887+float64(vi)*0.31, 1)
			if log {
				return math.Pow(10, 2+5*u)
			}
			return 1000 * u
		}
		col := make([]float64, len(rows))
		for i := range rows {
			col[i] = val(i)
		}
		if fig.Table == results.SummaryTable && l.Index(name) < 0 {
			pairs = append(pairs, name+"_mean", col, name+"_ci95", scaled(col, 0.05))
			for _, st := range []struct {
				s string
				f float64
			}{{"min", 0.5}, {"q1", 0.8}, {"median", 1}, {"q3", 1.2}, {"max", 2}} {
				pairs = append(pairs, name+"_"+st.s, scaled(col, st.f))
			}
		} else {
			pairs = append(pairs, name, col)
		}
	}
	return runtest.FrameOf(nil, pairs...)
}

func scaled(xs []float64, f float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = x * f
	}
	return out
}

// stressPublished gives the figure the paper's values at a third of its
// series, so that the diamonds, their bars and their legend entry are
// drawn too.
func stressPublished(fig *decl.Figure, fr *results.Frame) []Published {
	if fig.Series == "" || (fig.Kind != decl.KindLine && fig.Kind != decl.KindBox) {
		return nil
	}
	si := fr.Index(fig.Series)
	if si < 0 {
		return nil
	}
	var pub []Published
	seen := map[string]bool{}
	for r := 0; r < fr.Len(); r++ {
		s := fr.CellLabel(si, r)
		if seen[s] || len(seen) >= 3 {
			seen[s] = true
			continue
		}
		seen[s] = true
		v := 500.0
		if fig.YLog {
			v = 3e4
		}
		pub = append(pub, Published{Claim: "p-" + s, Metric: fig.Y, Where: decl.Filter{{Col: fig.Series, Values: []string{s}}}, Value: v, Tol: v / 10})
	}
	return pub
}

// TestFiguresLookRight draws every figure the configs declare under
// stress data and looks at where its texts, legend and marks land.
func TestFiguresLookRight(t *testing.T) {
	figs := configFigures(t)
	if len(figs) < 50 {
		t.Fatalf("%d figures found in ../../configs: the walk misses the configs", len(figs))
	}
	kinds := map[string]int{}
	for _, d := range figs {
		kinds[d.fig.Kind]++
		t.Run(filepath.Base(d.file)+"/"+d.fig.ID, func(t *testing.T) {
			fr := stressFrame(t, d.fig, d.schema)
			lay, _, err := build(d.fig, fr, NewPalette(nil, nil), stressPublished(d.fig, fr))
			if err != nil {
				t.Fatalf("%s (sweep %s): %v", d.file, d.sweep, err)
			}
			for _, b := range lookAt(lay) {
				t.Errorf("%s:%d (figure %s): %s", d.file, d.fig.Line, d.fig.ID, b)
			}
		})
	}
	for _, k := range []string{decl.KindLine, decl.KindScatter, decl.KindBox, decl.KindCDF, decl.KindHist, decl.KindPareto} {
		if kinds[k] == 0 {
			t.Errorf("no config declares a %s figure: the test no longer looks at that kind", k)
		}
	}
}

// TestLookAtCatchesFaults checks the looking itself: a legend dragged
// over the data, two texts over each other and over the data, a text off
// the canvas and a mark on the frame are each reported. (A marker off its
// panel's range is not drawn at all: gonum draws only the glyphs inside
// the data area.)
func TestLookAtCatchesFaults(t *testing.T) {
	d, err := decl.Parse(mustSweep(t, `figures:
  - {id: f, kind: line, x: size, y: value, series: variant, title: "a title"}
`))
	if err != nil {
		t.Fatal(err)
	}
	fr := stressFrame(t, d.Figures[0], benchSchema(t))
	fresh := func() *layout {
		lay, _, err := build(d.Figures[0], fr, NewPalette(nil, nil), nil)
		if err != nil {
			t.Fatal(err)
		}
		return lay
	}
	if bad := lookAt(fresh()); len(bad) > 0 {
		t.Fatalf("the plain figure already looks wrong: %v", bad)
	}
	cases := []struct {
		name, want string
		spoil      func(l *layout)
	}{
		{"legend over the data", "lies over panel", func(l *layout) { l.legend.Left = false; l.legendBottom = false; l.legendNames = nil }},
		{"title too long", "leaves the", func(l *layout) { l.title = []string{strings.Repeat("a long title ", 30)} }},
		{"two texts at one point", "overlap", func(l *layout) {
			lb, err := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{{X: 1, Y: 500}, {X: 1, Y: 500}}, Labels: []string{"here", "there"}})
			if err != nil {
				t.Fatal(err)
			}
			l.grid[0][0].Add(lb)
		}},
		{"a mark on the frame", "cut by the frame", func(l *layout) {
			p := l.grid[0][0]
			v, _ := fr.CellFloat(fr.Index("value_mean"), 0)
			p.Y.Min = v
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			lay := fresh()
			c.spoil(lay)
			bad := lookAt(lay)
			if !slices.ContainsFunc(bad, func(s string) bool { return strings.Contains(s, c.want) }) {
				t.Errorf("want a fault with %q, got %v", c.want, bad)
			}
		})
	}
}

// TestFigureGolden draws one figure per kind (from the stress data, with
// the paper's values where the kind draws them) and compares its PNG with
// testdata/golden/<kind>.png; -update rewrites them for review.
func TestFigureGolden(t *testing.T) {
	figs := configFigures(t)
	picked := map[string]declared{}
	score := func(d declared) int { // prefer facets, log axes, series
		s := 0
		if d.fig.Facet != "" {
			s += 4
		}
		if d.fig.YLog || d.fig.XLog {
			s += 2
		}
		if d.fig.Series != "" {
			s++
		}
		return s
	}
	for _, d := range figs {
		if p, ok := picked[d.fig.Kind]; !ok || score(d) > score(p) {
			picked[d.fig.Kind] = d
		}
	}
	for _, k := range runtest.SortedKeys(picked) {
		d := picked[k]
		t.Run(k, func(t *testing.T) {
			fr := stressFrame(t, d.fig, d.schema)
			lay, _, err := build(d.fig, fr, NewPalette(nil, nil), stressPublished(d.fig, fr))
			if err != nil {
				t.Fatal(err)
			}
			w, h := lay.size()
			c := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(DPI/2))
			lay.draw(draw.New(plainTextCanvas{c}))
			got := c.Image()
			path := filepath.Join("testdata", "golden", k+".png")
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				fh, err := os.Create(path)
				if err != nil {
					t.Fatal(err)
				}
				if err := png.Encode(fh, got); err != nil {
					t.Fatal(err)
				}
				if err := fh.Close(); err != nil {
					t.Fatal(err)
				}
				t.Logf("wrote %s (%s, figure %s): review it", path, d.file, d.fig.ID)
				return
			}
			fh, err := os.Open(path)
			if err != nil {
				t.Fatalf("%v: draw the golden figures with `go test ./results/figure -run TestFigureGolden -update` and review them", err)
			}
			defer fh.Close()
			want, err := png.Decode(fh)
			if err != nil {
				t.Fatal(err)
			}
			if n, total := differing(got, want); n*200 > total {
				t.Errorf("%s (%s, figure %s) differs from %s in %d of %d pixels: if the change is meant, regenerate with `go test ./results/figure -run TestFigureGolden -update` and review the images",
					k, d.file, d.fig.ID, path, n, total)
			}
		})
	}
}

// differing counts the pixels of two images that differ by more than a
// rasteriser's rounding (an image of another size differs everywhere).
func differing(a, b image.Image) (n, total int) {
	ab, bb := a.Bounds(), b.Bounds()
	total = ab.Dx() * ab.Dy()
	if ab.Size() != bb.Size() {
		return total, total
	}
	for y := 0; y < ab.Dy(); y++ {
		for x := 0; x < ab.Dx(); x++ {
			r1, g1, b1, _ := a.At(ab.Min.X+x, ab.Min.Y+y).RGBA()
			r2, g2, b2, _ := b.At(bb.Min.X+x, bb.Min.Y+y).RGBA()
			d := max(absDiff(r1, r2), absDiff(g1, g2), absDiff(b1, b2))
			if d > 0x1000 {
				n++
			}
		}
	}
	return n, total
}

func absDiff(a, b uint32) uint32 {
	if a > b {
		return a - b
	}
	return b - a
}

// mustSweep parses a bench sweep with the given declarations.
func mustSweep(t *testing.T, extra string) *sweep.Sweep {
	t.Helper()
	src := "sweeps:\n  - name: t\n    model: bench\n    seed: 1\n    axes:\n      - {name: size, values: [1, 2]}\n      - {name: variant, values: [EDF-DLT, OPR-MN]}\n" + indent(extra, "    ")
	f, err := sweep.Parse("t.yaml", []byte(src), models.All(simcore.Dirs{}))
	if err != nil {
		t.Fatal(err)
	}
	return f.Sweeps[0]
}

func indent(s, pre string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i := range lines {
		lines[i] = pre + lines[i]
	}
	return strings.Join(lines, "\n") + "\n"
}

func benchSchema(t *testing.T) *simcore.Schema {
	return mustSweep(t, "").Schema()
}
