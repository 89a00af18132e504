package figure

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"

	"schedfarm/results"
	"schedfarm/results/decl"
)

// Palette gives every series value one colour and marker, the same in
// every figure of a file, and across the files of one paper where the
// model declares the values: the declared values (a parameter's enum, in
// the model's order) come first, then the other values known up front in
// sorted order (numbers numerically), then values first met while
// drawing, in order. Each series parameter may have its own numbering
// (WithParam), so that every figure's series start from the palette's
// first colours and filled markers.
type Palette struct {
	idx    map[string]int
	params map[string]*Palette
}

// NewPalette numbers the declared values in their order, then the other
// given values in sorted order.
func NewPalette(declared, values []string) *Palette {
	p := &Palette{idx: map[string]int{}}
	for _, v := range declared {
		if _, ok := p.idx[v]; !ok {
			p.idx[v] = len(p.idx)
		}
	}
	vs := slices.Clone(values)
	slices.SortFunc(vs, results.CompareLabels)
	for _, v := range slices.Compact(vs) {
		if _, ok := p.idx[v]; !ok {
			p.idx[v] = len(p.idx)
		}
	}
	return p
}

// WithParam gives the figures whose series is param their own numbering
// (NewPalette(declared, values)), and returns p.
func (p *Palette) WithParam(param string, declared, values []string) *Palette {
	if p.params == nil {
		p.params = map[string]*Palette{}
	}
	p.params[param] = NewPalette(declared, values)
	return p
}

// of returns the numbering of the figures whose series is param.
func (p *Palette) of(param string) *Palette {
	if q, ok := p.params[param]; ok && param != "" {
		return q
	}
	return p
}

func (p *Palette) index(v string) int {
	i, ok := p.idx[v]
	if !ok {
		i = len(p.idx)
		p.idx[v] = i
	}
	return i
}

// Color returns the series value's colour.
func (p *Palette) Color(v string) color.Color { return paletteColors[p.index(v)%len(paletteColors)] }

// shape returns the series value's marker shape.
func (p *Palette) shape(v string) draw.GlyphDrawer { return shapes[p.index(v)%len(shapes)] }

// dashes distinguishes series beyond the palette's colours.
func (p *Palette) dashes(v string) []vg.Length {
	switch p.index(v) / len(paletteColors) % 3 {
	case 1:
		return []vg.Length{vg.Points(6), vg.Points(3)}
	case 2:
		return []vg.Length{vg.Points(2), vg.Points(2)}
	}
	return nil
}

// Files is what Render wrote.
type Files struct {
	ID, Title     string
	PNG, SVG, PDF string
	// Series are the series drawn (the legend's series entries, in
	// palette order), Panels the number of facet panels.
	Series []string
	Panels int
	// Width and Height of the PNG in pixels (DPI per inch); DisplayWidth
	// is the width to show it at on a screen, in CSS pixels (96 per inch).
	Width, Height, DisplayWidth int
	// Published is the number of the paper's values drawn beside ours.
	Published int
	// Note explains an empty figure, or what was left out of one.
	Note string
}

// Published is a value the paper prints for a metric at the points a
// filter selects (a published claim's value), drawn on the figures of the
// metric beside ours, with the scoreboard's tolerance for it.
type Published struct {
	// Claim is the claim's id; Metric the metric it gives a value of.
	Claim, Metric string
	Where         decl.Filter
	Value, Tol    float64
}

// Render draws a figure from a table into dir/<id>.png, dir/<id>.svg and
// dir/<id>.pdf, with the paper's values pub beside ours where the figure
// plots their metric. Facets become panels of one image, at most three
// per row.
func Render(f *decl.Figure, fr *results.Frame, pal *Palette, dir string, pub []Published) (out *Files, err error) {
	// gonum/plot panics on some degenerate data; a figure must never take
	// the report (or the run that writes it) down.
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("figure %s: cannot be drawn: %v", f.ID, r)
		}
	}()
	lay, out, err := build(f, fr, pal, pub)
	if err != nil {
		return nil, err
	}
	w, h := lay.size()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	out.PNG = filepath.Join(dir, f.ID+".png")
	out.SVG = filepath.Join(dir, f.ID+".svg")
	out.PDF = filepath.Join(dir, f.ID+".pdf")
	png := vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(DPI))}
	lay.draw(draw.New(plainTextCanvas{png}))
	if err := writeTo(out.PNG, png); err != nil {
		return nil, err
	}
	svg := vgsvg.New(w, h)
	lay.draw(draw.New(plainTextCanvas{svg}))
	if err := writeTo(out.SVG, svgFonts{svg}); err != nil {
		return nil, err
	}
	pdf := vgpdf.New(w, h)
	lay.draw(draw.New(plainTextCanvas{pdf}))
	if err := writeTo(out.PDF, pdfDates{pdf}); err != nil {
		return nil, err
	}
	out.Width, out.Height = int(math.Round(float64(w/vg.Inch)*DPI)), int(math.Round(float64(h/vg.Inch)*DPI))
	out.DisplayWidth = int(math.Round(float64(w/vg.Inch) * 96))
	return out, nil
}

// svgFonts writes an SVG naming its font with the fonts of the same
// metrics after it (svgFontFamily): vgsvg names Liberation Sans alone,
// and a viewer without it would draw text in a font of other widths.
type svgFonts struct{ c *vgsvg.Canvas }

// WriteTo writes the SVG.
func (s svgFonts) WriteTo(w io.Writer) (int64, error) {
	var b bytes.Buffer
	if _, err := s.c.WriteTo(&b); err != nil {
		return 0, err
	}
	out := bytes.ReplaceAll(b.Bytes(), []byte("font-family:Liberation Sans;"), []byte(svgFontFamily))
	n, err := w.Write(out)
	return int64(n), err
}

// pdfDates writes a PDF whose creation and modification dates are fixed
// (the PDF library stamps the wall clock), so that the same tables give
// the same file: figures are a function of the run's data alone.
type pdfDates struct{ c *vgpdf.Canvas }

// pdfDate matches the library's dates, D:YYYYMMDDhhmmss.
var pdfDate = regexp.MustCompile(`/(CreationDate|ModDate) \(D:[0-9]{14}\)`)

// WriteTo writes the PDF.
func (p pdfDates) WriteTo(w io.Writer) (int64, error) {
	var b bytes.Buffer
	if _, err := p.c.WriteTo(&b); err != nil {
		return 0, err
	}
	// Same length: the cross-reference offsets stay right.
	out := pdfDate.ReplaceAll(b.Bytes(), []byte("/$1 (D:20000101000000)"))
	n, err := w.Write(out)
	return int64(n), err
}

// plainTextCanvas draws every text (titles, labels, legend entries, from
// the sweep file or the data) as plainText makes it: a control character
// would make the SVG ill-formed XML, which allows none but tab and line
// breaks, and escapes none.
type plainTextCanvas struct{ vg.CanvasSizer }

// FillString draws plainText(s).
func (c plainTextCanvas) FillString(f font.Face, pt vg.Point, s string) {
	c.CanvasSizer.FillString(f, pt, plainText(s))
}

// plainText replaces each control character of s (C0, DEL, C1; tab and
// carriage return too: a line of text holds no line break), each byte
// that is not UTF-8 (and U+FFFD, which such a byte decodes to) and the
// non-characters U+FFFE, U+FFFF by a space.
func plainText(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == utf8.RuneError || r == 0xFFFE || r == 0xFFFF {
			return ' '
		}
		return r
	}, s)
}

// panelCtx is what drawing one panel needs: the figure, its table, the
// palette, the figure's legend, the paper's values for it.
type panelCtx struct {
	f     *decl.Figure
	fr    *results.Frame
	pal   *Palette
	leg   *legendSet
	pub   []Published
	fonts fonts
	// published counts the paper's values drawn.
	published int
	// refs are the reference lines of the panel being drawn, refName
	// their legend entry.
	refs    []*refLine
	refName string
}

// build makes a figure's layout (title, panels, legend) and what Render
// reports of it, without drawing anything.
func build(f *decl.Figure, fr *results.Frame, pal *Palette, pub []Published) (*layout, *Files, error) {
	if err := checkFigureFrame(f, fr); err != nil {
		return nil, nil, err
	}
	rows := f.Where.Rows(fr)
	facets := []string{""}
	byFacet := map[string][]int{"": rows}
	if f.Facet != "" {
		fi := fr.Index(f.Facet)
		byFacet = map[string][]int{}
		facets = nil
		for _, r := range rows {
			v := fr.CellLabel(fi, r)
			if _, ok := byFacet[v]; !ok {
				facets = append(facets, v)
			}
			byFacet[v] = append(byFacet[v], r)
		}
		slices.SortFunc(facets, results.CompareLabels)
		if len(facets) == 0 {
			facets = []string{""}
		}
	}
	out := &Files{ID: f.ID, Title: f.Title, Panels: len(facets)}
	if len(rows) == 0 {
		out.Note = "no rows match the figure's filter"
	} else if f.Table == results.SummaryTable && (f.Kind == decl.KindLine || f.Kind == decl.KindBox) {
		// One summary row per (facet, series, x), or the figure hides points.
		seen := map[[3]string]bool{}
		fi, si, xi := fr.Index(f.Facet), fr.Index(f.Series), fr.Index(f.X)
		label := func(c, r int) string {
			if c < 0 {
				return ""
			}
			return fr.CellLabel(c, r)
		}
		for _, r := range rows {
			k := [3]string{label(fi, r), label(si, r), label(xi, r)}
			if seen[k] {
				out.Note = "several summary rows share a (facet, series, x): only the first is drawn; another parameter varies — add it as facet or fix it with where"
				break
			}
			seen[k] = true
		}
	}
	fo := newFonts()
	lay := &layout{fonts: fo, panels: len(facets),
		panelW: vg.Length(f.Width) * vg.Inch, panelH: vg.Length(f.Height) * vg.Inch}
	cols := min(len(facets), 3)
	nrows := (len(facets) + cols - 1) / cols
	lay.grid = make([][]*plot.Plot, nrows)
	for i := range lay.grid {
		lay.grid[i] = make([]*plot.Plot, cols)
	}
	pal = pal.of(f.Series)
	pc := &panelCtx{f: f, fr: fr, pal: pal, leg: newLegendSet(pal, fo.sans(legendFont)), pub: pub, fonts: fo}
	for i, fv := range facets {
		p := plot.New()
		fo.styleText(p)
		if f.Facet != "" {
			p.Title.Text = wrapText(f.Facet+" = "+fv, p.Title.TextStyle.Width, float64(lay.panelW.Points())-2*gap)
		}
		grid := plotter.NewGrid()
		grid.Vertical.Color, grid.Horizontal.Color = gridColor, gridColor
		grid.Vertical.Width, grid.Horizontal.Width = vg.Points(0.5), vg.Points(0.5)
		p.Add(grid)
		pc.refs = nil
		if err := drawPanel(p, pc, byFacet[fv]); err != nil {
			return nil, nil, fmt.Errorf("figure %s: %w", f.ID, err)
		}
		if showRefs(p, pc.refs, f) {
			pc.leg.addRef(pc.refName, pc.refs[len(pc.refs)-1])
		}
		// A log axis needs positive values only; otherwise the panel keeps
		// a linear axis and the report says why.
		if f.XLog && logOK(p.X.Min, p.X.Max) {
			p.X.Scale = plot.LogScale{}
			p.X.Tick.Marker = decadeTicks{}
		} else if f.XLog {
			out.Note = joinNote(out.Note, "x kept linear: values ≤ 0 (or none) cannot be drawn on a log scale")
		}
		if f.YLog && logOK(p.Y.Min, p.Y.Max) {
			p.Y.Scale = plot.LogScale{}
			p.Y.Tick.Marker = decadeTicks{}
		} else if f.YLog {
			out.Note = joinNote(out.Note, "y kept linear: values ≤ 0 (or none) cannot be drawn on a log scale")
		}
		for _, a := range []*plot.Axis{&p.X, &p.Y} {
			if _, ok := a.Tick.Marker.(plot.DefaultTicks); ok {
				a.Tick.Marker = niceTicks{}
			}
		}
		p.Legend = plot.NewLegend() // the figure's one legend is drawn beside the panels
		// An x label longer than its axis breaks into lines (a y label:
		// fitTickLabels, once the data area's height is known).
		p.X.Label.Text = wrapText(p.X.Label.Text, p.X.Label.TextStyle.Width, 0.85*float64(lay.panelW.Points()))

		lay.ylabels.take(p)
		lay.ylabels.takeTitle(p)
		lay.grid[i/cols][i%cols] = p
	}
	if err := finiteRanges(f, lay.grid); err != nil {
		return nil, nil, err
	}
	// Facets share an axis's range where their ranges are alike, so that
	// they compare at a glance, and keep their own where one would crowd
	// a panel's marks into a corner.
	if len(facets) > 1 {
		shareRanges(lay.grid, len(facets), f)
	}
	for _, row := range lay.grid {
		for _, p := range row {
			if p != nil {
				padRanges(p, f)
			}
		}
	}
	out.Series = slices.Clone(pc.leg.names()[:len(pc.leg.series)])
	out.Published = pc.published
	if f.Title != "" {
		t := fo.sans(titleSize)
		w := float64(lay.panelW.Points())*float64(cols) - gap
		lay.title = strings.Split(wrapText(f.Title, t.Width, w), "\n")
	}
	if f.Legend != "none" && len(pc.leg.series)+len(pc.leg.refs) > 0 && !(len(pc.leg.series) == 1 && len(pc.leg.refs) == 0 && f.Series == "") {
		lay.legend, lay.legendNames = pc.leg.build()
		lay.legendBottom = strings.HasPrefix(f.Legend, "bottom")
	}
	return lay, out, nil
}

// maxSpan is the widest axis range drawn: gonum/plot's tick search does
// not end on a range whose span is not finite in float64, nor near it.
const maxSpan = 1e300

// finiteRanges refuses a figure with an axis whose data range is infinite
// or overflows float64 (a metric of ±1e308), naming the axis and the
// column, instead of hanging in the tick search.
func finiteRanges(f *decl.Figure, grid [][]*plot.Plot) error {
	for _, row := range grid {
		for _, p := range row {
			if p == nil {
				continue
			}
			for _, ax := range []struct {
				name, col string
				a         *plot.Axis
			}{{"x", f.X, &p.X}, {"y", f.Y, &p.Y}} {
				if ax.a.Min > ax.a.Max {
					continue // no data on it
				}
				if span := ax.a.Max - ax.a.Min; math.IsInf(ax.a.Min, 0) || math.IsInf(ax.a.Max, 0) || math.IsNaN(span) || math.IsInf(span, 0) || span > maxSpan {
					col := ax.col
					if col == "" {
						col = "its values"
					}
					return fmt.Errorf("figure %s: the %s axis (%s) spans [%g, %g], beyond what float64 can draw; not drawn (the data are in the tables)", f.ID, ax.name, col, ax.a.Min, ax.a.Max)
				}
			}
		}
	}
	return nil
}

// logOK reports whether an axis range can be drawn on a log scale.
func logOK(lo, hi float64) bool {
	return lo > 0 && hi >= lo && !math.IsInf(hi, 0) && !math.IsNaN(lo+hi)
}

func joinNote(a, b string) string {
	if a == "" || strings.Contains(a, b) {
		if a == "" {
			return b
		}
		return a
	}
	return a + "; " + b
}

func writeTo(path string, c io.WriterTo) error {
	tmp := path + ".tmp"
	fh, err := os.Create(tmp)
	if err != nil {
		return err
	}
	if _, err := c.WriteTo(fh); err != nil {
		fh.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := fh.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// shareRanges gives the panels one range per axis where every panel's
// own range covers at least half of their union (in decades on a log
// axis), and leaves each its own otherwise. A categorical x (its
// positions are each panel's categories) keeps its own.
func shareRanges(grid [][]*plot.Plot, n int, f *decl.Figure) {
	var ps []*plot.Plot
	for _, row := range grid {
		for _, p := range row {
			if p != nil && len(ps) < n {
				ps = append(ps, p)
			}
		}
	}
	share := func(get func(p *plot.Plot) *plot.Axis, log bool) {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, p := range ps {
			a := get(p)
			if a.Min > a.Max {
				continue // no data on it
			}
			lo, hi = min(lo, a.Min), max(hi, a.Max)
		}
		if !(hi >= lo) {
			return
		}
		span := func(a, b float64) float64 {
			if log && a > 0 {
				return math.Log10(b) - math.Log10(a)
			}
			return b - a
		}
		union := span(lo, hi)
		for _, p := range ps {
			a := get(p)
			if a.Min <= a.Max && union > 0 && span(a.Min, a.Max) < 0.5*union {
				return
			}
		}
		for _, p := range ps {
			a := get(p)
			a.Min, a.Max = lo, hi
		}
	}
	if _, cat := ps[0].X.Tick.Marker.(plot.ConstantTicks); !cat && f.Kind != decl.KindBox {
		share(func(p *plot.Plot) *plot.Axis { return &p.X }, f.XLog)
	}
	share(func(p *plot.Plot) *plot.Axis { return &p.Y }, f.YLog)
}

// padRanges leaves room at both ends of a panel's numeric axes
// (padLinear, padLog), so that no mark sits on the frame; a categorical
// axis already has half a category at each end.
func padRanges(p *plot.Plot, f *decl.Figure) {
	for _, ax := range []struct {
		a   *plot.Axis
		log bool
		cat bool
	}{{&p.X, f.XLog, f.Kind == decl.KindBox}, {&p.Y, f.YLog, false}} {
		a := ax.a
		if _, ok := a.Tick.Marker.(plot.ConstantTicks); ok || ax.cat || a.Min > a.Max {
			continue
		}
		if _, ok := a.Scale.(plot.LogScale); ok {
			a.Min, a.Max = padLog(a.Min, a.Max)
			continue
		}
		a.Min, a.Max = padLinear(a.Min, a.Max)
	}
}

// layoutGrid places the panels on dc, aligned, with readable tick labels,
// and returns each panel's canvas. ylabels, when set, holds the y labels
// the layout draws itself (yLabels): each is wrapped into lines no longer
// than its panel's data area is high, and its panel's axis reserves their
// room.
func layoutGrid(grid [][]*plot.Plot, dc draw.Canvas, ylabels *yLabels) [][]draw.Canvas {
	tiles := draw.Tiles{Rows: len(grid), Cols: len(grid[0]), PadX: vg.Points(gap), PadY: vg.Points(gap)}
	// Align needs every cell; fill empty ones with blank plots.
	for _, row := range grid {
		for i := range row {
			if row[i] == nil {
				row[i] = plot.New()
				row[i].HideAxes()
			}
		}
	}
	cs := plot.Align(grid, tiles, dc)
	// Labels are fitted on the laid-out panels; turning them upright
	// changes the axes' sizes, so the grid is aligned again.
	changed := false
	for j, row := range grid {
		for i, p := range row {
			changed = fitTickLabels(p, cs[j][i]) || changed
			changed = ylabels.fit(p, cs[j][i]) || changed
		}
	}
	if changed {
		cs = plot.Align(grid, tiles, dc)
	}
	return cs
}

// yLabels are the panels' y-axis labels, drawn by the layout rather than
// by gonum, which, on a log axis, reserves room for the label around the
// arithmetic mean of the range (near its top) instead of the middle, and
// shrinks the data area to fit it. The axis keeps a label of blank lines
// as wide as the label, so that its room is reserved.
type yLabels struct {
	text, lines map[*plot.Plot]string
	// titles are the panels' titles (their facets), drawn by the layout
	// at one height per row.
	titles map[*plot.Plot]string
}

// take moves p's y label into the set.
func (y *yLabels) take(p *plot.Plot) {
	if p.Y.Label.Text == "" {
		return
	}
	if y.text == nil {
		y.text, y.lines = map[*plot.Plot]string{}, map[*plot.Plot]string{}
	}
	y.text[p] = p.Y.Label.Text
	y.lines[p] = p.Y.Label.Text
	p.Y.Label.Text = " "
}

// fit wraps p's label to its data area's height on c and reserves its
// lines; it reports whether the reserved room changed.
func (y *yLabels) fit(p *plot.Plot, c draw.Canvas) bool {
	if y == nil || y.text[p] == "" {
		return false
	}
	room := float64(p.DataCanvas(c).Rectangle.Size().Y.Points()) * 0.95
	w := wrapText(y.text[p], p.Y.Label.TextStyle.Width, room)
	y.lines[p] = w
	blank := strings.TrimSuffix(strings.Repeat(" \n", strings.Count(w, "\n")+1), "\n")
	if p.Y.Label.Text == blank {
		return false
	}
	p.Y.Label.Text = blank
	return true
}

// takeTitle moves p's title (its facet) into the set, leaving a blank
// title of as many lines to reserve its room.
func (y *yLabels) takeTitle(p *plot.Plot) {
	if p.Title.Text == "" {
		return
	}
	if y.titles == nil {
		y.titles = map[*plot.Plot]string{}
	}
	y.titles[p] = p.Title.Text
	p.Title.Text = strings.TrimSuffix(strings.Repeat(" \n", strings.Count(p.Title.Text, "\n")+1), "\n")
}

// drawTitles draws the titles of a row of panels, at one height: below
// the lowest top of their canvases (gonum draws a title at its canvas's
// top, and aligning the panels' data areas leaves the canvases' tops
// apart), centred over each data area.
func (y *yLabels) drawTitles(row []*plot.Plot, cs []draw.Canvas) {
	if y == nil || len(y.titles) == 0 {
		return
	}
	top := vg.Length(math.Inf(1))
	for i, c := range cs {
		if y.titles[row[i]] != "" { // a blank cell reserves no title
			top = min(top, c.Max.Y)
		}
	}
	for i, p := range row {
		t := y.titles[p]
		if t == "" {
			continue
		}
		sty := p.Title.TextStyle
		sty.XAlign, sty.YAlign = draw.XCenter, draw.YTop
		d := p.DataCanvas(cs[i])
		cs[i].FillText(sty, vg.Point{X: d.Center().X, Y: top}, t)
	}
}

// draw draws p's label on c (p's canvas), upright, left of its tick
// labels, centred on its data area.
func (y *yLabels) draw(p *plot.Plot, c draw.Canvas) {
	if y == nil || y.text[p] == "" {
		return
	}
	sty := p.Y.Label.TextStyle
	sty.Rotation, sty.XAlign, sty.YAlign = math.Pi/2, draw.XCenter, draw.YTop
	d := p.DataCanvas(c)
	c.FillText(sty, vg.Point{X: c.Min.X, Y: d.Center().Y}, y.lines[p])
}

// checkFigureFrame checks that the table holds the figure's columns.
func checkFigureFrame(f *decl.Figure, fr *results.Frame) error {
	for _, c := range []string{f.X, f.Y, f.Series, f.Facet} {
		if c == "" {
			continue
		}
		if fr.Index(c) < 0 && fr.Index(c+"_mean") < 0 {
			return fmt.Errorf("figure %s: table %s has no column %q", f.ID, f.Table, c)
		}
	}
	for _, c := range f.Where {
		if fr.Index(c.Col) < 0 {
			return fmt.Errorf("figure %s: table %s has no column %q", f.ID, f.Table, c.Col)
		}
	}
	return nil
}

// isBareMetric reports whether name is a summary metric (its _mean).
func isBareMetric(fr *results.Frame, name string) bool {
	return fr.Index(name) < 0 && fr.Index(name+"_mean") >= 0
}

// col returns the column index of a name (a bare metric: its mean).
func valueCol(fr *results.Frame, name string) int {
	if isBareMetric(fr, name) {
		return fr.Index(name + "_mean")
	}
	return fr.Index(name)
}

// splitSeries groups rows by series value, series sorted.
func splitSeries(f *decl.Figure, fr *results.Frame, rows []int) ([]string, map[string][]int) {
	if f.Series == "" {
		name := f.Y
		if name == "" {
			name = f.X
		}
		return []string{name}, map[string][]int{name: rows}
	}
	si := fr.Index(f.Series)
	by := map[string][]int{}
	var names []string
	for _, r := range rows {
		v := fr.CellLabel(si, r)
		if _, ok := by[v]; !ok {
			names = append(names, v)
		}
		by[v] = append(by[v], r)
	}
	slices.SortFunc(names, results.CompareLabels)
	return names, by
}

func axisLabel(explicit string, fr *results.Frame, f *decl.Figure, name string) string {
	if explicit != "" {
		return explicit
	}
	return f.ColumnLabel(name)
}

// positive drops points a log axis cannot show.
func keep(f *decl.Figure, x, y float64) bool {
	return !(f.XLog && x <= 0) && !(f.YLog && y <= 0) && !math.IsNaN(x) && !math.IsNaN(y) && !math.IsInf(x, 0) && !math.IsInf(y, 0)
}

type xyErr struct {
	plotter.XYs
	plotter.YErrors
}

func drawPanel(p *plot.Plot, pc *panelCtx, rows []int) error {
	f, fr := pc.f, pc.fr
	names, by := splitSeries(f, fr, rows)
	p.X.Label.Text = axisLabel(f.XLabel, fr, f, f.X)
	p.Y.Label.Text = axisLabel(f.YLabel, fr, f, f.Y)
	switch f.Kind {
	case decl.KindLine:
		if isBareMetric(fr, f.Y) && f.YLabel == "" {
			p.Y.Label.Text += ", mean ± 95% CI"
		}
		return drawLines(p, pc, names, by)
	case decl.KindScatter:
		return drawScatter(p, pc, names, by)
	case decl.KindBox:
		return drawBoxes(p, pc, names, by)
	case decl.KindCDF:
		if f.YLabel == "" {
			p.Y.Label.Text = "fraction ≤ x"
		}
		return drawCDF(p, pc, names, by)
	case decl.KindHist:
		if f.YLabel == "" {
			p.Y.Label.Text = "count"
			if f.Normalize {
				p.Y.Label.Text = "fraction"
			}
		}
		return drawHist(p, pc, names, by)
	case decl.KindPareto:
		return drawPareto(p, pc, names, by)
	}
	return fmt.Errorf("unknown kind %q", f.Kind)
}

func lineStyle(l *draw.LineStyle, pal *Palette, s string) {
	l.Color = pal.Color(s)
	l.Width = vg.Points(lineWidth)
	l.Dashes = pal.dashes(s)
}

// categories returns the distinct x labels of the series' rows: those of
// order first, in its order, then the others sorted.
func categories(fr *results.Frame, xi int, names []string, by map[string][]int, order []string) []string {
	var cats []string
	seen := map[string]bool{}
	for _, s := range names {
		for _, r := range by[s] {
			if l := fr.CellLabel(xi, r); !seen[l] {
				seen[l] = true
				cats = append(cats, l)
			}
		}
	}
	rank := func(l string) int {
		if i := slices.Index(order, l); i >= 0 {
			return i
		}
		return len(order)
	}
	slices.SortFunc(cats, func(a, b string) int {
		if ra, rb := rank(a), rank(b); ra != rb {
			return ra - rb
		}
		return results.CompareLabels(a, b)
	})
	return cats
}

// groupX returns, per distinct x (sorted), the rows at it. xOf reads a
// row's x (a number, or a category's position).
func groupX(xOf func(r int) (float64, bool), rows []int) ([]float64, map[float64][]int) {
	by := map[float64][]int{}
	var xs []float64
	for _, r := range rows {
		x, ok := xOf(r)
		if !ok {
			continue
		}
		if _, seen := by[x]; !seen {
			xs = append(xs, x)
		}
		by[x] = append(by[x], r)
	}
	sort.Float64s(xs)
	return xs, by
}

func drawLines(p *plot.Plot, pc *panelCtx, names []string, by map[string][]int) error {
	f, fr, pal := pc.f, pc.fr, pc.pal
	xi := fr.Index(f.X)
	if xi < 0 {
		xi = valueCol(fr, f.X)
	}
	bare := isBareMetric(fr, f.Y)
	yi := valueCol(fr, f.Y)
	ci := -1
	if bare {
		ci = fr.Index(f.Y + "_ci95")
	}
	// A string x (an algorithm, an order) is categorical: its values sit at
	// 0, 1, 2, ... in sorted order, labelled on the axis.
	xOf := func(r int) (float64, bool) { return fr.CellFloat(xi, r) }
	if _, isString := fr.Cols[xi].([]string); isString {
		cats := categories(fr, xi, names, by, f.XOrder)
		pos := make(map[string]float64, len(cats))
		ticks := make([]plot.Tick, len(cats))
		for i, c := range cats {
			pos[c] = float64(i)
			ticks[i] = plot.Tick{Value: float64(i), Label: c}
		}
		xOf = func(r int) (float64, bool) {
			x, ok := pos[fr.CellLabel(xi, r)]
			return x, ok
		}
		p.X.Tick.Marker = plot.ConstantTicks(ticks)
		if len(cats) > 0 {
			p.X.Min, p.X.Max = -0.5, float64(len(cats))-0.5
		}
	}
	for _, s := range names {
		xs, at := groupX(xOf, by[s])
		var pts xyErr
		for _, x := range xs {
			var m, e float64
			if bare || f.Table == results.SummaryTable {
				r := at[x][0]
				v, ok := fr.CellFloat(yi, r)
				if !ok {
					continue
				}
				m = v
				if ci >= 0 {
					e, _ = fr.CellFloat(ci, r)
				}
			} else {
				var vals []float64
				for _, r := range at[x] {
					if v, ok := fr.CellFloat(yi, r); ok {
						vals = append(vals, v)
					}
				}
				if len(vals) == 0 {
					continue
				}
				st := results.Describe(vals)
				m, e = st.Mean, st.CI95
				if math.IsNaN(e) {
					e = 0
				}
			}
			if !keep(f, x, m) {
				continue
			}
			pts.XYs = append(pts.XYs, plotter.XY{X: x, Y: m})
			pts.YErrors = append(pts.YErrors, struct{ Low, High float64 }{e, e})
		}
		if len(pts.XYs) == 0 {
			continue
		}
		l, sc, err := plotter.NewLinePoints(pts.XYs)
		if err != nil {
			return err
		}
		lineStyle(&l.LineStyle, pal, s)
		sc.Color = pal.Color(s)
		sc.Shape = pal.shape(s)
		sc.Radius = vg.Points(markerRadius)
		p.Add(l, sc)
		drawBars := true
		if f.YLog {
			for i, xy := range pts.XYs {
				if xy.Y-pts.YErrors[i].Low <= 0 {
					drawBars = false
				}
			}
		}
		if drawBars {
			eb, err := plotter.NewYErrorBars(pts)
			if err != nil {
				return err
			}
			eb.LineStyle.Color = pal.Color(s)
			eb.CapWidth = vg.Points(markerRadius * 1.6)
			p.Add(eb)
		}
		pc.leg.add(s, l, sc)
	}
	var rows []int
	for _, s := range names {
		rows = append(rows, by[s]...)
	}
	drawPublished(p, pc, rows, xOf, seriesLabel(f, fr), 0)
	return nil
}

// seriesLabel returns a row's series value (the y column's name when the
// figure has no series).
func seriesLabel(f *decl.Figure, fr *results.Frame) func(r int) string {
	si := fr.Index(f.Series)
	return func(r int) string {
		if si < 0 {
			return f.Y
		}
		return fr.CellLabel(si, r)
	}
}

func drawScatter(p *plot.Plot, pc *panelCtx, names []string, by map[string][]int) error {
	f, fr, pal := pc.f, pc.fr, pc.pal
	xi, yi := valueCol(fr, f.X), valueCol(fr, f.Y)
	for _, s := range names {
		var pts plotter.XYs
		for _, r := range by[s] {
			x, okx := fr.CellFloat(xi, r)
			y, oky := fr.CellFloat(yi, r)
			if okx && oky && keep(f, x, y) {
				pts = append(pts, plotter.XY{X: x, Y: y})
			}
		}
		if len(pts) == 0 {
			continue
		}
		if f.Relative == "mean_ratio" {
			pts = plotter.XYs{meanXY(pts)}
		}
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return err
		}
		sc.Color = pal.Color(s)
		sc.Shape = pal.shape(s)
		sc.Radius = vg.Points(markerRadius * 0.8)
		p.Add(sc)
		pc.leg.add(s, sc)
	}
	return nil
}

// box is one box-and-whiskers: the five numbers at a position.
type box struct {
	x                     float64
	min, q1, med, q3, max float64
}

type boxPlotter struct {
	boxes []box
	width float64 // in data units
	color color.Color
}

func (b *boxPlotter) Plot(c draw.Canvas, plt *plot.Plot) {
	tx, ty := plt.Transforms(&c)
	ls := draw.LineStyle{Color: b.color, Width: vg.Points(1)}
	fill := b.color
	if r, g, bl, _ := b.color.RGBA(); true {
		fill = color.NRGBA{uint8(r >> 8), uint8(g >> 8), uint8(bl >> 8), 0x55}
	}
	for _, bx := range b.boxes {
		x0, x1 := tx(bx.x-b.width/2), tx(bx.x+b.width/2)
		xm := tx(bx.x)
		q1, q3 := ty(bx.q1), ty(bx.q3)
		c.FillPolygon(fill, []vg.Point{{X: x0, Y: q1}, {X: x1, Y: q1}, {X: x1, Y: q3}, {X: x0, Y: q3}})
		c.StrokeLines(ls, []vg.Point{{X: x0, Y: q1}, {X: x1, Y: q1}, {X: x1, Y: q3}, {X: x0, Y: q3}, {X: x0, Y: q1}})
		med := draw.LineStyle{Color: b.color, Width: vg.Points(2)}
		c.StrokeLine2(med, x0, ty(bx.med), x1, ty(bx.med))
		c.StrokeLine2(ls, xm, ty(bx.min), xm, q1)
		c.StrokeLine2(ls, xm, q3, xm, ty(bx.max))
		cap0, cap1 := tx(bx.x-b.width/4), tx(bx.x+b.width/4)
		c.StrokeLine2(ls, cap0, ty(bx.min), cap1, ty(bx.min))
		c.StrokeLine2(ls, cap0, ty(bx.max), cap1, ty(bx.max))
	}
}

func (b *boxPlotter) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, ymin = math.Inf(1), math.Inf(1)
	xmax, ymax = math.Inf(-1), math.Inf(-1)
	for _, bx := range b.boxes {
		xmin, xmax = min(xmin, bx.x-b.width/2), max(xmax, bx.x+b.width/2)
		ymin, ymax = min(ymin, bx.min), max(ymax, bx.max)
	}
	return
}

// Thumbnail draws the legend entry.
func (b *boxPlotter) Thumbnail(c *draw.Canvas) {
	pts := []vg.Point{{X: c.Min.X, Y: c.Min.Y}, {X: c.Max.X, Y: c.Min.Y}, {X: c.Max.X, Y: c.Max.Y}, {X: c.Min.X, Y: c.Max.Y}}
	c.FillPolygon(b.color, c.ClipPolygonY(pts))
}

func drawBoxes(p *plot.Plot, pc *panelCtx, names []string, by map[string][]int) error {
	f, fr, pal := pc.f, pc.fr, pc.pal
	xi := fr.Index(f.X)
	if xi < 0 {
		xi = valueCol(fr, f.X)
	}
	cats := categories(fr, xi, names, by, f.XOrder)
	pos := map[string]int{}
	for i, c := range cats {
		pos[c] = i
	}
	bare := isBareMetric(fr, f.Y)
	yi := valueCol(fr, f.Y)
	width := 0.8 / float64(max(len(names), 1))
	for k, s := range names {
		off := -0.4 + width*(float64(k)+0.5)
		byCat := map[string][]int{}
		for _, r := range by[s] {
			l := fr.CellLabel(xi, r)
			byCat[l] = append(byCat[l], r)
		}
		bp := &boxPlotter{width: width * 0.9, color: pal.Color(s)}
		for _, c := range cats {
			rs := byCat[c]
			if len(rs) == 0 {
				continue
			}
			bx := box{x: float64(pos[c]) + off}
			if bare {
				r := rs[0]
				vals := make([]float64, 5)
				ok := true
				for i, st := range []string{"min", "q1", "median", "q3", "max"} {
					v, okv := fr.CellFloat(fr.Index(f.Y+"_"+st), r)
					vals[i], ok = v, ok && okv
				}
				if !ok {
					continue
				}
				bx.min, bx.q1, bx.med, bx.q3, bx.max = vals[0], vals[1], vals[2], vals[3], vals[4]
			} else {
				var vals []float64
				for _, r := range rs {
					if v, ok := fr.CellFloat(yi, r); ok {
						vals = append(vals, v)
					}
				}
				if len(vals) == 0 {
					continue
				}
				st := results.Describe(vals)
				bx.min, bx.q1, bx.med, bx.q3, bx.max = st.Min, st.Q1, st.Median, st.Q3, st.Max
			}
			if f.YLog && bx.min <= 0 {
				continue
			}
			bp.boxes = append(bp.boxes, bx)
		}
		if len(bp.boxes) == 0 {
			continue
		}
		p.Add(bp)
		pc.leg.add(s, bp)
	}
	var rows []int
	for _, s := range names {
		rows = append(rows, by[s]...)
	}
	seriesOf := seriesLabel(f, fr)
	drawPublished(p, pc, rows, func(r int) (float64, bool) {
		i, ok := pos[fr.CellLabel(xi, r)]
		k := slices.Index(names, seriesOf(r))
		if !ok || k < 0 {
			return 0, false
		}
		return float64(i) - 0.4 + width*(float64(k)+0.5), true
	}, seriesOf, width*0.9)
	if len(cats) > 0 {
		p.NominalX(cats...)
		p.X.Min, p.X.Max = -0.5, float64(len(cats))-0.5 // half a category beyond the outer boxes
		p.X.Label.Text = axisLabel(f.XLabel, fr, f, f.X)
	}
	if bare && f.YLabel == "" {
		p.Y.Label.Text += ": min, quartiles, max"
	}
	return nil
}

func drawCDF(p *plot.Plot, pc *panelCtx, names []string, by map[string][]int) error {
	f, fr, pal := pc.f, pc.fr, pc.pal
	xi := valueCol(fr, f.X)
	for _, s := range names {
		var xs []float64
		for _, r := range by[s] {
			if x, ok := fr.CellFloat(xi, r); ok && keep(f, x, 1) {
				xs = append(xs, x)
			}
		}
		if len(xs) == 0 {
			continue
		}
		sort.Float64s(xs)
		n := float64(len(xs))
		pts := make(plotter.XYs, 0, 2*len(xs))
		for i, x := range xs {
			pts = append(pts, plotter.XY{X: x, Y: float64(i) / n}, plotter.XY{X: x, Y: float64(i+1) / n})
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return err
		}
		lineStyle(&l.LineStyle, pal, s)
		p.Add(l)
		pc.leg.add(s, l)
	}
	p.Y.Min, p.Y.Max = 0, 1
	return nil
}

func drawHist(p *plot.Plot, pc *panelCtx, names []string, by map[string][]int) error {
	f, fr, pal := pc.f, pc.fr, pc.pal
	xi := valueCol(fr, f.X)
	vals := map[string][]float64{}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range names {
		for _, r := range by[s] {
			if x, ok := fr.CellFloat(xi, r); ok && keep(f, x, 1) {
				if f.XLog {
					x = math.Log10(x)
				}
				vals[s] = append(vals[s], x)
				lo, hi = min(lo, x), max(hi, x)
			}
		}
	}
	if math.IsInf(lo, 0) {
		return nil
	}
	if span := hi - lo; math.IsInf(span, 0) || span > maxSpan {
		return fmt.Errorf("the x axis (%s) spans [%g, %g], beyond what float64 can draw; not drawn (the data are in the tables)", f.X, lo, hi)
	}
	if hi == lo {
		lo, hi = lo-0.5, hi+0.5
	}
	w := (hi - lo) / float64(f.Bins)
	edge := func(i int) float64 {
		e := lo + float64(i)*w
		if f.XLog {
			return math.Pow(10, e)
		}
		return e
	}
	for _, s := range names {
		if len(vals[s]) == 0 {
			continue
		}
		counts := make([]float64, f.Bins)
		for _, x := range vals[s] {
			b := int((x - lo) / w)
			b = min(max(b, 0), f.Bins-1)
			counts[b]++
		}
		if f.Normalize {
			for i := range counts {
				counts[i] /= float64(len(vals[s]))
			}
		}
		// A step outline per series, so that overlapping series stay readable.
		pts := plotter.XYs{{X: edge(0), Y: 0}}
		for i, c := range counts {
			pts = append(pts, plotter.XY{X: edge(i), Y: c}, plotter.XY{X: edge(i + 1), Y: c})
		}
		pts = append(pts, plotter.XY{X: edge(f.Bins), Y: 0})
		if f.YLog {
			pts = slices.DeleteFunc(pts, func(xy plotter.XY) bool { return xy.Y <= 0 })
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return err
		}
		lineStyle(&l.LineStyle, pal, s)
		p.Add(l)
		pc.leg.add(s, l)
	}
	return nil
}

// meanXY is the mean of the points' coordinates: with per-row ratios, the
// mean of ratios (not the ratio of means).
func meanXY(pts plotter.XYs) plotter.XY {
	var m plotter.XY
	for _, p := range pts {
		m.X += p.X
		m.Y += p.Y
	}
	n := float64(len(pts))
	return plotter.XY{X: m.X / n, Y: m.Y / n}
}

// ParetoFront returns the indexes of the points no other point dominates
// (lower or equal in both coordinates, lower in one), sorted by x.
func ParetoFront(pts plotter.XYs) []int {
	idx := make([]int, len(pts))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		pa, pb := pts[idx[a]], pts[idx[b]]
		if pa.X != pb.X {
			return pa.X < pb.X
		}
		return pa.Y < pb.Y
	})
	var front []int
	best := math.Inf(1)
	for _, i := range idx {
		if pts[i].Y < best {
			front = append(front, i)
			best = pts[i].Y
		}
	}
	return front
}

func drawPareto(p *plot.Plot, pc *panelCtx, names []string, by map[string][]int) error {
	f, fr, pal := pc.f, pc.fr, pc.pal
	xi, yi := valueCol(fr, f.X), valueCol(fr, f.Y)
	// Match every row to the baseline's row at the same point (and
	// replicate, for per-job tables).
	var params []string
	for _, n := range fr.Names {
		if n != f.Series && f.IsParam(n) {
			params = append(params, n)
		}
	}
	if f.Table != results.SummaryTable && fr.Index(results.ColReplicate) >= 0 {
		params = append(params, results.ColReplicate)
	}
	pidx := make([]int, len(params))
	for i, n := range params {
		pidx[i] = fr.Index(n)
	}
	key := func(r int) string {
		var k string
		for _, i := range pidx {
			k += fr.CellLabel(i, r) + "\x00"
		}
		return k
	}
	base := map[string]int{}
	for _, r := range by[f.Baseline] {
		base[key(r)] = r
	}
	rel := func(v, b float64) float64 {
		if f.Relative == "diff" {
			return v - b
		}
		return v / b
	}
	var all plotter.XYs
	for _, s := range names {
		if s == f.Baseline {
			continue
		}
		var pts plotter.XYs
		for _, r := range by[s] {
			b, ok := base[key(r)]
			if !ok {
				continue
			}
			x, ok1 := fr.CellFloat(xi, r)
			y, ok2 := fr.CellFloat(yi, r)
			bx, ok3 := fr.CellFloat(xi, b)
			by, ok4 := fr.CellFloat(yi, b)
			if !(ok1 && ok2 && ok3 && ok4) {
				continue
			}
			pt := plotter.XY{X: rel(x, bx), Y: rel(y, by)}
			if keep(f, pt.X, pt.Y) {
				pts = append(pts, pt)
			}
		}
		if len(pts) == 0 {
			continue
		}
		if f.Relative == "mean_ratio" {
			pts = plotter.XYs{meanXY(pts)}
		}
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return err
		}
		sc.Color = pal.Color(s)
		sc.Shape = pal.shape(s)
		sc.Radius = vg.Points(markerRadius)
		p.Add(sc)
		pc.leg.add(s, sc)
		all = append(all, pts...)
	}
	if len(all) > 0 {
		front := ParetoFront(all)
		fp := make(plotter.XYs, len(front))
		for i, j := range front {
			fp[i] = all[j]
		}
		l, err := plotter.NewLine(fp)
		if err != nil {
			return err
		}
		l.LineStyle.Color = color.Black
		l.LineStyle.Width = vg.Points(1)
		l.LineStyle.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
		p.Add(l)
		pc.leg.addRef("non-dominated (Pareto) front", l)
		// The baseline itself: 1 (or 0) on both axes, as reference lines.
		one := 1.0
		if f.Relative == "diff" {
			one = 0
		}
		v, h := &refLine{vertical: true, at: one}, &refLine{at: one}
		p.Add(v, h)
		pc.refs = append(pc.refs, v, h)
		pc.refName = fmt.Sprintf("%s (the baseline) = %g", f.Baseline, one)
	}
	how, tail := "÷", ""
	switch f.Relative {
	case "diff":
		how = "−"
	case "mean_ratio":
		tail = " (mean of per-row ratios)"
	}
	if f.XLabel == "" {
		p.X.Label.Text = fmt.Sprintf("%s %s %s's%s", axisLabel("", fr, f, f.X), how, f.Baseline, tail)
	}
	if f.YLabel == "" {
		p.Y.Label.Text = fmt.Sprintf("%s %s %s's%s", axisLabel("", fr, f, f.Y), how, f.Baseline, tail)
	}
	return nil
}

// refLine is a reference line across a panel: vertical at x = at, or
// horizontal at y = at. Its value is part of the panel's range.
type refLine struct {
	vertical bool
	at       float64
}

func (r *refLine) style() draw.LineStyle {
	return draw.LineStyle{Color: referenceColor, Width: vg.Points(0.8), Dashes: []vg.Length{vg.Points(1), vg.Points(2)}}
}

// Plot draws the line across the data canvas.
func (r *refLine) Plot(c draw.Canvas, p *plot.Plot) {
	tx, ty := p.Transforms(&c)
	if r.vertical {
		if x := tx(r.at); c.ContainsX(x) {
			c.StrokeLine2(r.style(), x, c.Min.Y, x, c.Max.Y)
		}
		return
	}
	if y := ty(r.at); c.ContainsY(y) {
		c.StrokeLine2(r.style(), c.Min.X, y, c.Max.X, y)
	}
}

// showRefs widens a panel's axes to its reference lines where that at
// most triples an axis's span (in decades on a log axis): a baseline far
// from the marks would crowd them into a corner, and is then left out
// (its ratio is on the axis label). It reports whether a line is shown.
func showRefs(p *plot.Plot, refs []*refLine, f *decl.Figure) bool {
	shown := false
	for _, r := range refs {
		a, log := &p.Y, f.YLog
		if r.vertical {
			a, log = &p.X, f.XLog
		}
		if a.Min > a.Max || (log && r.at <= 0) {
			continue
		}
		lo, hi := min(a.Min, r.at), max(a.Max, r.at)
		span := func(lo, hi float64) float64 {
			if log {
				return math.Log10(hi) - math.Log10(lo)
			}
			return hi - lo
		}
		if old := span(a.Min, a.Max); old == 0 || span(lo, hi) <= 3*old {
			a.Min, a.Max = lo, hi
			shown = true
		}
	}
	return shown
}

// Thumbnail draws the legend entry: a short line.
func (r *refLine) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(r.style(), c.Min.X, y, c.Max.X, y)
}
