package figure

import (
	"image/color"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/font/liberation"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The figure style, in one place: every size, font, colour and mark a
// figure draws comes from here.
//
// Sizes are for print: a panel is declared in inches (4 × 3 by default,
// package decl) and its text in points, so that a panel scaled to a
// paper's column (about 3.3 in) keeps its tick labels above 7 pt (with
// the legend beside it a one-panel figure is about 6 in wide, 5 pt
// ticks at a column's width: a figure for the page's width, 7 in, or a
// column with legend: none), and the same file projected on a slide
// stays sharp (PNG at 200 dpi, SVG and PDF
// are vector). Text is Liberation Sans, which is metric-compatible with
// Arial and Helvetica: the PNG and the PDF draw with the very font the
// layout measured (the PDF embeds it), and an SVG viewer without it
// substitutes a font of the same widths (svgFontFamily).

// DPI is the resolution of PNG figures: a 4 × 3 inch panel is 800 × 600
// pixels.
const DPI = 200

// Font sizes, in points.
const (
	titleSize  = 11 // the figure's title
	labelSize  = 10 // axis labels and facet titles
	tickSize   = 9  // tick labels
	legendFont = 9  // legend entries
)

// Marks, in points.
const (
	lineWidth    = 1.5
	markerRadius = 2.8
	paperRadius  = 4.2 // the paper's value: larger, hollow
	frameWidth   = 0.8
)

// Layout, in points: the margin around the figure and between its
// parts, the widest a legend entry's line may be before it wraps, the
// share of an axis's span left free at each end (so that no mark sits on
// the frame).
const (
	margin         = 6
	gap            = 10
	maxLegendWidth = 150
	rangePad       = 0.05
)

// fonts are the faces of one figure: Liberation Sans, from gonum's own
// copy of the Liberation fonts (no font of the machine is used).
type fonts struct {
	cache *font.Cache
}

func newFonts() fonts { return fonts{cache: font.NewCache(liberation.Collection())} }

// sans is the style of text of a size in points.
func (f fonts) sans(size float64) text.Style {
	return text.Style{
		Color:   color.Black,
		Font:    font.Font{Typeface: "Liberation", Variant: "Sans", Size: vg.Points(size)},
		Handler: text.Plain{Fonts: f.cache},
	}
}

// svgFontFamily is what an SVG names the font: Liberation Sans first,
// then the fonts with the same metrics (Arimo, Arial, Helvetica), so that
// a viewer without it draws text the width the layout measured.
const svgFontFamily = `font-family:'Liberation Sans',Arimo,Arial,Helvetica,sans-serif;`

// styleText gives every text of a panel the figure's fonts.
func (f fonts) styleText(p *plot.Plot) {
	keep := func(dst *text.Style, src text.Style) {
		src.Rotation, src.XAlign, src.YAlign = dst.Rotation, dst.XAlign, dst.YAlign
		*dst = src
	}
	keep(&p.Title.TextStyle, f.sans(labelSize))
	p.Title.Padding = vg.Points(4)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		keep(&a.Label.TextStyle, f.sans(labelSize))
		keep(&a.Tick.Label, f.sans(tickSize))
		a.LineStyle.Width = vg.Points(frameWidth)
		a.Tick.LineStyle.Width = vg.Points(frameWidth)
		a.Tick.Length = vg.Points(4)
		a.Padding = vg.Points(2)
	}
}

// palette: Okabe and Ito's colours for colour-blind readers (Okabe &
// Ito, "Color Universal Design", 2008), without their yellow, which is
// unreadable as a line on white; beyond seven series the colours repeat
// dashed, and every series has its own marker shape as well, so that
// series stay apart in grey print.
var paletteColors = [...]color.RGBA{
	{0x00, 0x72, 0xb2, 0xff}, // blue
	{0xd5, 0x5e, 0x00, 0xff}, // vermillion
	{0x00, 0x9e, 0x73, 0xff}, // bluish green
	{0xe6, 0x9f, 0x00, 0xff}, // orange
	{0xcc, 0x79, 0xa7, 0xff}, // reddish purple
	{0x56, 0xb4, 0xe9, 0xff}, // sky blue
	{0x00, 0x00, 0x00, 0xff}, // black
}

// referenceColor draws reference marks (a baseline's 1:1 lines) and
// gridColor the grid.
var (
	referenceColor = color.RGBA{0x55, 0x55, 0x55, 0xff}
	gridColor      = color.RGBA{0xe0, 0xe0, 0xe0, 0xff}
)

// shapes are the series' marker shapes, in palette order; a series takes
// shape i mod len(shapes), so that the eighth series, whose colour repeats
// the first's, has another shape.
var shapes = [...]draw.GlyphDrawer{
	draw.CircleGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}, diamondGlyph{},
	draw.RingGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{}, draw.CrossGlyph{},
}

// diamondGlyph is a filled diamond.
type diamondGlyph struct{}

// DrawGlyph draws a diamond of the style's radius at pt.
func (diamondGlyph) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	c.SetLineStyle(draw.LineStyle{Color: sty.Color, Width: vg.Points(0.5)})
	c.SetColor(sty.Color)
	c.Fill(diamondPath(pt, sty.Radius*1.2))
}

// diamondPath is a diamond of radius r around pt.
func diamondPath(pt vg.Point, r vg.Length) vg.Path {
	var p vg.Path
	p.Move(vg.Point{X: pt.X, Y: pt.Y + r})
	p.Line(vg.Point{X: pt.X + r, Y: pt.Y})
	p.Line(vg.Point{X: pt.X, Y: pt.Y - r})
	p.Line(vg.Point{X: pt.X - r, Y: pt.Y})
	p.Close()
	return p
}

// hollowDiamond is the paper's value: a diamond's outline, thick enough
// to read over a line of the same colour.
type hollowDiamond struct{}

// DrawGlyph draws a diamond's outline of the style's radius at pt.
func (hollowDiamond) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	c.SetLineStyle(draw.LineStyle{Color: sty.Color, Width: vg.Points(1.4)})
	p := diamondPath(pt, sty.Radius)
	c.SetColor(color.White)
	c.Fill(p)
	c.SetColor(sty.Color)
	c.Stroke(p)
}

// niceTicks is a linear axis's ticker: labelled ticks at a step of 1, 2,
// 2.5 or 5 times a power of ten, as many as make four to eight labels in
// the range, and an unlabelled minor tick between two labelled ones.
type niceTicks struct{}

// Ticks returns the ticks of [lo, hi].
func (niceTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		if lo == hi && !math.IsInf(lo, 0) && !math.IsNaN(lo) {
			return []plot.Tick{{Value: lo, Label: linearLabel(lo, 0, math.Abs(lo) >= 1e6 || (lo != 0 && math.Abs(lo) < 1e-3))}}
		}
		return nil
	}
	step := niceStep(lo, hi)
	first := math.Ceil(lo/step-1e-9) * step
	// One axis reads one way: every label in exponent form when one
	// needs it.
	exp := false
	for _, v := range []float64{first, hi} {
		if a := math.Abs(v); a >= 1e6 {
			exp = true
		}
	}
	if a := max(math.Abs(lo), math.Abs(hi)); a < 1e-3 {
		exp = true
	}
	var ticks []plot.Tick
	for i := 0; ; i++ {
		v := first + float64(i)*step
		if v > hi+step*1e-9 {
			break
		}
		if math.Abs(v) < step*1e-9 {
			v = 0 // no "-0", no 1e-17
		}
		ticks = append(ticks, plot.Tick{Value: v, Label: linearLabel(v, step, exp)})
		if m := v + step/2; m <= hi {
			ticks = append(ticks, plot.Tick{Value: m})
		}
		if i > 100 {
			break
		}
	}
	if m := first - step/2; m >= lo {
		ticks = append([]plot.Tick{{Value: m}}, ticks...)
	}
	return ticks
}

// niceStep is the step of 1, 2, 2.5 or 5 × 10^k that puts four to eight
// labelled ticks in [lo, hi] (the one nearest six).
func niceStep(lo, hi float64) float64 {
	span := hi - lo
	base := math.Pow10(int(math.Floor(math.Log10(span))) - 1)
	best, bestD := span, math.Inf(1)
	for _, k := range []float64{1, 10, 100} {
		for _, m := range []float64{1, 2, 2.5, 5} {
			step := base * k * m
			n := math.Floor(hi/step+1e-9) - math.Ceil(lo/step-1e-9) + 1
			// ties go to the longer step: fewer labels read better
			if d := math.Abs(n - 6); n >= 4 && n <= 8 && d <= bestD {
				best, bestD = step, d
			}
		}
	}
	return best
}

// linearLabel writes a tick's value with the decimals its step needs
// (0.25 steps: two), or, with exp (an axis reaching 10⁶, or within
// 10⁻³ of zero), in exponent form as a log axis's labels (2.5e6).
func linearLabel(v, step float64, exp bool) string {
	if a := math.Abs(v); a != 0 && exp {
		// as many significant digits as the step resolves
		digits := 1
		if step > 0 {
			digits = max(1, int(math.Floor(math.Log10(a)))-int(math.Floor(math.Log10(step)))+1)
			if s := strconv.FormatFloat(step/math.Pow10(int(math.Floor(math.Log10(step)))), 'g', -1, 64); strings.Contains(s, ".") {
				digits++ // 2.5 × 10^k steps
			}
		}
		return tickLabel(v, min(digits, 6))
	}
	dec := 0
	if step > 0 && step < 1 {
		dec = int(math.Ceil(-math.Log10(step) - 1e-9))
		if s := strconv.FormatFloat(step*math.Pow10(dec), 'f', -1, 64); strings.Contains(s, ".") {
			dec++
		}
	}
	return strconv.FormatFloat(v, 'f', dec, 64)
}

// padLinear widens [lo, hi] by rangePad of its span at each end (a single
// value: by rangePad of itself, or ±0.5 at zero).
func padLinear(lo, hi float64) (float64, float64) {
	span := hi - lo
	if span == 0 {
		span = math.Abs(lo)
		if span == 0 {
			span = 1 / rangePad
		}
	}
	return lo - rangePad*span, hi + rangePad*span
}

// padLog widens a log axis's [lo, hi]: by rangePad of its span (in
// decades) at each end, then down to the nearest value below it and up to
// the nearest above that decadeTicks labels on the widened range (a
// power of ten, or a 2 or 5 multiple in a narrow range), so that the
// lowest and the highest marks have a label beyond them.
func padLog(lo, hi float64) (float64, float64) {
	if !(lo > 0 && hi >= lo) {
		return lo, hi
	}
	llo, lhi := math.Log10(lo), math.Log10(hi)
	span := max(lhi-llo, 0.1)
	lo, hi = math.Pow(10, llo-rangePad*span), math.Pow(10, lhi+rangePad*span)
	labelled := func(v, lo, hi float64) bool {
		// a multiple of a power of ten (not an end that a range too
		// narrow for two multiples labels)
		m := v / math.Pow10(int(math.Floor(math.Log10(v)+1e-12)))
		if math.Abs(m-math.Round(m)) > 1e-9 {
			return false
		}
		for _, t := range (decadeTicks{}).Ticks(lo, hi) {
			if t.Label != "" && math.Abs(t.Value-v) <= 1e-9*v {
				return true
			}
		}
		return false
	}
	for range 3 {
		nlo, nhi := lo, hi
		if !labelled(lo, lo, hi) {
			nlo = below(lo, func(c float64) bool { return labelled(c, c, hi) })
		}
		if !labelled(hi, nlo, hi) {
			nhi = above(hi, func(c float64) bool { return labelled(c, nlo, c) })
		}
		if nlo == lo && nhi == hi {
			break
		}
		lo, hi = nlo, nhi
	}
	return lo, hi
}

// below returns the largest multiple m·10^e (m = 1…9) under v that ok
// accepts, searching three decades down (v itself if none).
func below(v float64, ok func(float64) bool) float64 {
	e := int(math.Floor(math.Log10(v)))
	for ee := e; ee >= e-3; ee-- {
		for m := 9; m >= 1; m-- {
			if c := float64(m) * math.Pow10(ee); c < v && ok(c) {
				return c
			}
		}
	}
	return v
}

// above returns the smallest multiple m·10^e (m = 1…9) over v that ok
// accepts, searching three decades up (v itself if none).
func above(v float64, ok func(float64) bool) float64 {
	e := int(math.Floor(math.Log10(v)))
	for ee := e; ee <= e+3; ee++ {
		for m := 1; m <= 9; m++ {
			if c := float64(m) * math.Pow10(ee); c > v && ok(c) {
				return c
			}
		}
	}
	return v
}
