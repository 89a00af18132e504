package figure

import (
	"cmp"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// A figure is laid out in three parts, none over another: the title
// across the top, the panels in a grid (one per facet, up to three a
// row), and one legend for all panels to the right of the grid, outside
// every panel's data, so that no legend ever hides a mark.
//
//	┌──────────── title (wrapped to the grid's width) ─────────┐
//	│ ┌ facet = a ┐ ┌ facet = b ┐ ┌ facet = c ┐   ■ series 1   │
//	│ │  panel    │ │  panel    │ │  panel    │   ▲ series 2   │
//	│ └───────────┘ └───────────┘ └───────────┘   ◇ the paper  │
//	└──────────────────────────────────────────────────────────┘

// layout is a figure ready to draw: its parts and its size.
type layout struct {
	fonts fonts
	// title is the figure's title, in lines that fit the grid's width.
	title []string
	grid  [][]*plot.Plot
	// legend is the figure's one legend; nil when there is none (one
	// series named after the y axis and nothing else to tell apart).
	legend      *plot.Legend
	legendNames []string
	// legendBottom aligns the legend with the bottom of the grid.
	legendBottom bool
	// panelW and panelH are one panel's size; panels is the number of
	// panels (the grid's first cells, row by row; the others are blank).
	panelW, panelH vg.Length
	panels         int
	// ylabels are the panels' y labels, drawn by the layout.
	ylabels yLabels
}

// legendSet collects one figure's legend entries, each name once (the
// first panel that draws it gives its thumbnails): the series in palette
// order, then the reference marks in the order they were added.
type legendSet struct {
	pal     *Palette
	series  []legendEntry
	refs    []legendEntry
	seen    map[string]bool
	textSty text.Style
}

type legendEntry struct {
	name   string
	thumbs []plot.Thumbnailer
}

func newLegendSet(pal *Palette, sty text.Style) *legendSet {
	return &legendSet{pal: pal, seen: map[string]bool{}, textSty: sty}
}

// add adds a series' entry.
func (l *legendSet) add(name string, thumbs ...plot.Thumbnailer) {
	if !l.seen[name] {
		l.seen[name] = true
		l.series = append(l.series, legendEntry{name, thumbs})
	}
}

// addRef adds a reference mark's entry (the paper's values, a front, a
// baseline), after the series.
func (l *legendSet) addRef(name string, thumbs ...plot.Thumbnailer) {
	if !l.seen["\x00"+name] {
		l.seen["\x00"+name] = true
		l.refs = append(l.refs, legendEntry{name, thumbs})
	}
}

// names returns the entries' names, series first.
func (l *legendSet) names() []string {
	var out []string
	for _, e := range l.entries() {
		out = append(out, e.name)
	}
	return out
}

func (l *legendSet) entries() []legendEntry {
	s := slices.Clone(l.series)
	slices.SortStableFunc(s, func(a, b legendEntry) int { return cmp.Compare(l.pal.index(a.name), l.pal.index(b.name)) })
	return append(s, l.refs...)
}

// build makes the gonum legend, entries wrapped to maxLegendWidth, and
// returns it with the entries' texts as drawn.
func (l *legendSet) build() (*plot.Legend, []string) {
	leg := plot.NewLegend()
	leg.TextStyle = l.textSty
	leg.Top, leg.Left = true, true
	leg.ThumbnailWidth = vg.Points(22)
	leg.Padding = vg.Points(3)
	leg.YPosition = draw.PosCenter
	var names []string
	for _, e := range l.entries() {
		name := wrapText(e.name, l.textSty.Width, maxLegendWidth)
		leg.Add(name, e.thumbs...)
		names = append(names, name)
	}
	return &leg, names
}

// legendSize is the legend's width and height, for its entries' texts
// (as drawn: wrapped).
func legendSize(leg *plot.Legend, names []string) (w, h vg.Length) {
	var entH vg.Length
	for _, name := range names {
		r := leg.TextStyle.Rectangle(name)
		w = max(w, r.Max.X-r.Min.X)
		entH = max(entH, r.Max.Y-r.Min.Y)
	}
	em := leg.TextStyle.Rectangle(" ").Max.X
	w += leg.ThumbnailWidth + em
	n := len(names)
	h = vg.Length(n)*entH + vg.Length(max(n-1, 0))*leg.Padding
	return w, h
}

// titleHeight is the height of the title band (none without a title).
func (l *layout) titleHeight() vg.Length {
	if len(l.title) == 0 {
		return 0
	}
	sty := l.fonts.sans(titleSize)
	return vg.Length(len(l.title))*sty.Font.Size*1.15 + vg.Points(gap)/2
}

// legendWidth is the width of the legend's band (none without a legend).
func (l *layout) legendWidth() vg.Length {
	if l.legend == nil {
		return 0
	}
	w, _ := legendSize(l.legend, l.legendNames)
	return w + vg.Points(gap)
}

// size is the figure's width and height: the panels at their declared
// size, plus the title and legend bands and the margins.
func (l *layout) size() (w, h vg.Length) {
	cols, rows := len(l.grid[0]), len(l.grid)
	w = vg.Length(cols)*l.panelW + l.legendWidth() + 2*vg.Points(margin)
	h = vg.Length(rows)*l.panelH + l.titleHeight() + 2*vg.Points(margin)
	return w, h
}

// placed is where a drawn figure's parts landed, for the tests that look
// at it.
type placed struct {
	// data are the panels' data areas, in grid order.
	data []vg.Rectangle
	// panels are the plots drawn in data (same order).
	panels []*plot.Plot
	// legend is the legend's area (empty without one).
	legend vg.Rectangle
}

// draw draws the figure on dc, a canvas of l.size().
func (l *layout) draw(dc draw.Canvas) placed {
	m := vg.Points(margin)
	inner := draw.Crop(dc, m, -m, m, -m)
	th, lw := l.titleHeight(), l.legendWidth()
	gridC := draw.Crop(inner, 0, -lw, 0, -th)
	if len(l.title) > 0 {
		sty := l.fonts.sans(titleSize)
		sty.XAlign, sty.YAlign = draw.XCenter, draw.YTop
		c := gridC.Center()
		dc.FillText(sty, vg.Point{X: c.X, Y: inner.Max.Y}, strings.Join(l.title, "\n"))
	}
	cs := layoutGrid(l.grid, gridC, &l.ylabels)
	var out placed
	for j, row := range l.grid {
		for i, p := range row {
			p.Draw(cs[j][i])
			l.ylabels.draw(p, cs[j][i])
			if j*len(row)+i < l.panels {
				out.data = append(out.data, p.DataCanvas(cs[j][i]).Rectangle)
				out.panels = append(out.panels, p)
			}
		}
		l.ylabels.drawTitles(row, cs[j])
	}
	if l.legend != nil {
		w, h := legendSize(l.legend, l.legendNames)
		// Aligned with the top (or the bottom) of the first row's data.
		top := out.data[0].Max.Y
		if l.legendBottom {
			top = out.data[len(out.data)-1].Min.Y + h
		}
		x0 := inner.Max.X - lw + vg.Points(gap)
		r := vg.Rectangle{Min: vg.Point{X: x0, Y: top - h}, Max: vg.Point{X: x0 + w, Y: top}}
		l.legend.Draw(draw.Canvas{Canvas: dc.Canvas, Rectangle: r})
		out.legend = r
	}
	return out
}

// wrapText breaks s into lines no wider than budget points (as width
// measures a line) after its separators ('_', '-', '/', ' '); a part
// wider than budget alone stays whole.
func wrapText(s string, width func(string) vg.Length, budget float64) string {
	if float64(width(s)) <= budget {
		return s
	}
	var lines []string
	line := ""
	for _, w := range splitAfterSeparators(s) {
		if line != "" && float64(width(strings.TrimRight(line+w, " "))) > budget {
			lines = append(lines, strings.TrimRight(line, " "))
			line = ""
		}
		line += w
	}
	return strings.Join(append(lines, strings.TrimRight(line, " ")), "\n")
}
