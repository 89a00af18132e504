package figure

import (
	"image/color"
	"math"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The paper's values beside ours: a line or box figure whose y is a
// metric the paper prints values of (published claims with a value, not
// bounds) draws each such value at the x and in the colour of the rows its
// claim checks, as a hollow diamond with a bar of the scoreboard's
// tolerance, so that a reader sees the gap, and whether it is within the
// rule, without the table. A claim checks every row its filter selects,
// so a value the paper gives for an algorithm (not a point) is drawn at
// every x of that algorithm. A value on a log axis must be positive.

// paperMark is the paper's values on one panel.
type paperMark struct {
	pts []paperPoint
	// slot is the width, in x's units, a mark has (a box's, in a box
	// figure; 0: any): a diamond is never wider.
	slot float64
}

type paperPoint struct {
	x, y, tol float64
	color     color.Color
}

// Plot draws each value's tolerance bar, then its diamond.
func (m *paperMark) Plot(c draw.Canvas, p *plot.Plot) {
	tx, ty := p.Transforms(&c)
	r := vg.Points(paperRadius)
	if m.slot > 0 {
		r = min(r, max(vg.Points(1.5), (tx(m.slot)-tx(0))/2))
	}
	for _, pt := range m.pts {
		x := tx(pt.x)
		if pt.tol > 0 {
			lo, hi := pt.y-pt.tol, pt.y+pt.tol
			if _, log := p.Y.Scale.(plot.LogScale); log && lo <= 0 {
				lo = pt.y / 10 // a bar to zero cannot be drawn on a log axis: a decade down
			}
			ls := draw.LineStyle{Color: pt.color, Width: vg.Points(0.9)}
			y0, y1 := ty(max(lo, p.Y.Min)), ty(min(hi, p.Y.Max))
			w := r * 0.8
			c.StrokeLine2(ls, x, y0, x, y1)
			if lo >= p.Y.Min {
				c.StrokeLine2(ls, x-w, y0, x+w, y0)
			}
			if hi <= p.Y.Max {
				c.StrokeLine2(ls, x-w, y1, x+w, y1)
			}
		}
		if y := ty(pt.y); c.ContainsY(y) {
			hollowDiamond{}.DrawGlyph(&c, draw.GlyphStyle{Color: pt.color, Radius: r}, vg.Point{X: x, Y: y})
		}
	}
}

// DataRange is the values' range (not their tolerance bars): a value far
// from ours widens the axis to show it.
func (m *paperMark) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, ymin = math.Inf(1), math.Inf(1)
	xmax, ymax = math.Inf(-1), math.Inf(-1)
	for _, pt := range m.pts {
		xmin, xmax = min(xmin, pt.x), max(xmax, pt.x)
		ymin, ymax = min(ymin, pt.y), max(ymax, pt.y)
	}
	return
}

// Thumbnail draws the legend entry: a black diamond with its bar.
func (m *paperMark) Thumbnail(c *draw.Canvas) {
	ctr := c.Center()
	r := vg.Points(paperRadius)
	ls := draw.LineStyle{Color: color.Black, Width: vg.Points(0.9)}
	c.StrokeLine2(ls, ctr.X, ctr.Y-1.8*r, ctr.X, ctr.Y+1.8*r)
	hollowDiamond{}.DrawGlyph(c, draw.GlyphStyle{Color: color.Black, Radius: r}, ctr)
}

// paperLegend is the legend entry of the paper's values.
const paperLegend = "paper's value ± tolerance"

// drawPublished adds the paper's values to a panel whose rows are rows:
// xOf places a row on x (false: not drawn), seriesOf names its series,
// slot is the width a mark may take (paperMark).
func drawPublished(p *plot.Plot, pc *panelCtx, rows []int, xOf func(r int) (float64, bool), seriesOf func(r int) string, slot float64) {
	f := pc.f
	inPanel := make(map[int]bool, len(rows))
	for _, r := range rows {
		inPanel[r] = true
	}
	mark := &paperMark{slot: slot}
	seen := map[[3]float64]bool{}
	for _, pub := range pc.pub {
		if pub.Metric != f.Y && pub.Metric+"_mean" != f.Y {
			continue
		}
		if f.YLog && pub.Value <= 0 {
			continue
		}
		for _, r := range pub.Where.Rows(pc.fr) {
			if !inPanel[r] {
				continue
			}
			x, ok := xOf(r)
			if !ok {
				continue
			}
			s := seriesOf(r)
			k := [3]float64{x, pub.Value, float64(pc.pal.index(s))}
			if seen[k] {
				continue
			}
			seen[k] = true
			col := color.Color(color.Black)
			if f.Series != "" {
				col = pc.pal.Color(s)
			}
			mark.pts = append(mark.pts, paperPoint{x: x, y: pub.Value, tol: pub.Tol, color: col})
		}
	}
	if len(mark.pts) == 0 {
		return
	}
	slices.SortFunc(mark.pts, func(a, b paperPoint) int {
		if a.x != b.x {
			if a.x < b.x {
				return -1
			}
			return 1
		}
		return 0
	})
	pc.published += len(mark.pts)
	p.Add(mark)
	pc.leg.addRef(paperLegend, mark)
}
