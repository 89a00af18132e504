package figure

import (
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Tick labels people can read: category labels that would overlap are
// turned upright, or, when even upright they do not fit, only every k-th
// is written; a log axis labels every decade in its range, and the 2 and 5
// (or every) multiple when its range holds fewer than two decades.

// decadeTicks is a log axis's ticker: a labelled major tick at every power
// of ten in range, minor ticks at the multiples between, and labels on
// multiples when fewer than two powers of ten fall in range (a range inside
// one decade otherwise shows one label or none).
type decadeTicks struct{}

// Ticks returns the ticks of [lo, hi] (both > 0).
func (decadeTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(lo > 0 && hi >= lo) || math.IsInf(hi, 0) {
		return nil
	}
	first, last := int(math.Floor(math.Log10(lo))), int(math.Ceil(math.Log10(hi)))
	inRange := func(v float64) bool { return v >= lo*(1-1e-9) && v <= hi*(1+1e-9) }
	decades := 0
	for e := first; e <= last; e++ {
		if inRange(math.Pow10(e)) {
			decades++
		}
	}
	labelled := func(i int) bool { // which multiples of a power of ten get a label
		switch {
		case i == 1:
			return true
		case decades >= 3:
			return false
		case decades >= 1:
			return i == 2 || i == 5
		}
		return true // no power of ten in range: label every multiple
	}
	var ticks []plot.Tick
	for e := first; e <= last; e++ {
		p := math.Pow10(e)
		for i := 1; i < 10; i++ {
			v := p * float64(i)
			if !inRange(v) {
				continue
			}
			t := plot.Tick{Value: v}
			if labelled(i) {
				t.Label = tickLabel(v, -1)
			}
			ticks = append(ticks, t)
		}
	}
	n := 0
	for _, t := range ticks {
		if t.Label != "" {
			n++
		}
	}
	if n < 2 && hi > lo {
		// A range narrower than the step between two multiples: label its
		// ends too.
		ticks = append([]plot.Tick{{Value: lo, Label: tickLabel(lo, 3)}}, ticks...)
		ticks = append(ticks, plot.Tick{Value: hi, Label: tickLabel(hi, 3)})
	}
	return ticks
}

// tickLabel formats a log axis's value with prec significant digits (-1:
// as many as needed): plainly from 0.001 to below 10,000, else as 2e5 (no
// "+" or leading zeros in the exponent), so one axis reads one way.
func tickLabel(v float64, prec int) string {
	if a := math.Abs(v); a >= 1e-3 && a < 1e4 {
		return strconv.FormatFloat(v, 'g', prec, 64)
	}
	s := strconv.FormatFloat(v, 'e', prec, 64)
	m, e, _ := strings.Cut(s, "e")
	if strings.Contains(m, ".") {
		m = strings.TrimRight(strings.TrimRight(m, "0"), ".")
	}
	e = strings.TrimLeft(strings.TrimPrefix(e, "+"), "0")
	if strings.HasPrefix(e, "-") {
		e = "-" + strings.TrimLeft(e[1:], "0")
	}
	return m + "e" + e
}

// labelBox is a tick label's bounds on the canvas.
type labelBox struct {
	label string
	r     vg.Rectangle
}

// tickLabelBoxes returns where an axis's tick labels land when the plot is
// drawn on c: gonum's own layout (the data canvas, the axis's transform,
// the labels' rotated extents and their anchors as the axes draw them).
func tickLabelBoxes(p *plot.Plot, c draw.Canvas, xAxis bool) []labelBox {
	dc := p.DataCanvas(c)
	tx, ty := p.Transforms(&dc)
	var out []labelBox
	if xAxis {
		sty := p.X.Tick.Label
		ticks := p.X.Tick.Marker.Ticks(p.X.Min, p.X.Max)
		h := vg.Length(0)
		for _, t := range ticks {
			if !t.IsMinor() {
				r := sty.Rectangle(t.Label)
				h = max(h, r.Max.Y-r.Min.Y)
			}
		}
		for _, t := range ticks {
			x := tx(t.Value)
			if t.IsMinor() || !dc.ContainsX(x) {
				continue
			}
			r := sty.Rectangle(t.Label)
			// The axis anchors a label at the bottom of the plot's axis
			// band plus the labels' height; only x matters for overlap.
			out = append(out, labelBox{t.Label, r.Add(vg.Point{X: x, Y: h})})
		}
		return out
	}
	sty := p.Y.Tick.Label
	for _, t := range p.Y.Tick.Marker.Ticks(p.Y.Min, p.Y.Max) {
		y := ty(t.Value)
		if t.IsMinor() || !dc.ContainsY(y) {
			continue
		}
		r := sty.Rectangle(t.Label)
		out = append(out, labelBox{t.Label, r.Add(vg.Point{X: 0, Y: y})})
	}
	return out
}

// labelGap is the least room between two tick labels, in points: closer,
// two numbers read as one.
const labelGap = 4

// overlapping returns the first pair of labels whose boxes come closer
// than labelGap, or -1: the boxes are in axis order, so only neighbours
// can collide first.
func overlapping(bs []labelBox) int {
	g := vg.Points(labelGap) / 2
	for i := 1; i < len(bs); i++ {
		a, b := bs[i-1].r, bs[i].r
		if a.Min.X-g < b.Max.X+g && b.Min.X-g < a.Max.X+g && a.Min.Y-g < b.Max.Y+g && b.Min.Y-g < a.Max.Y+g {
			return i - 1
		}
	}
	return -1
}

// fitTickLabels makes the plot's tick labels readable on canvas c: x labels
// that overlap stand upright, and on either axis, labels that still
// overlap are thinned to every k-th. It reports whether anything changed
// (the grid's layout must then be aligned again).
func fitTickLabels(p *plot.Plot, c draw.Canvas) bool {
	changed := false
	bs := tickLabelBoxes(p, c, true)
	_, categorical := p.X.Tick.Marker.(plot.ConstantTicks)
	// Category labels that collide stand upright; numbers are thinned
	// instead (below), which reads better than upright numbers.
	if categorical && p.X.Tick.Label.Rotation == 0 && (overlapping(bs) >= 0 || len(bs) < labelledTicks(p.X)) {
		// Overlapping, or pushed off a panel too narrow for them (flat
		// labels wider than the panel leave no data area at all).
		p.X.Tick.Label.Rotation = math.Pi / 2
		p.X.Tick.Label.XAlign = draw.XRight
		p.X.Tick.Label.YAlign = draw.YCenter
		if h, ok := p.X.Tick.Label.Handler.(text.Plain); ok {
			p.X.Tick.Label.Handler = uprightHandler{h}
			p.X.Label.Padding += uprightGap // the labels' ends move into it
		}
		p.Y.Padding = 0 // NominalX's room for a flat first label
		changed = true
		// Upright labels taller than 40% of the panel are broken into
		// lines at their separators, if the lines still fit side by side.
		if ct, ok := p.X.Tick.Marker.(plot.ConstantTicks); ok {
			budget := 0.4 * float64(c.Max.Y-c.Min.Y)
			p.X.Tick.Marker = wrapTicks(ct, p.X.Tick.Label.Width, budget)
			if overlapping(tickLabelBoxes(p, c, true)) >= 0 {
				p.X.Tick.Marker = ct
			}
		}
	}
	for _, xAxis := range []bool{true, false} {
		ax := &p.Y
		if xAxis {
			ax = &p.X
		}
		for k := 2; k <= 64 && overlapping(tickLabelBoxes(p, c, xAxis)) >= 0; k *= 2 {
			ax.Tick.Marker = everyKth{ax.Tick.Marker, k}
			changed = true
		}
	}
	return changed
}

// uprightGap is the room between an upright tick label and its tick
// mark.
const uprightGap = vg.Length(2)

// uprightHandler draws an upright tick label (rotated a quarter turn,
// its end at the anchor) a font's descent and uprightGap lower (the axis
// label moves as far down): gonum anchors every
// tick label a descent above the labels' band, room a flat label's
// descenders take, which would run an upright label's end into the tick
// marks.
type uprightHandler struct{ text.Plain }

// Draw draws the text a descent and uprightGap lower.
func (h uprightHandler) Draw(c vg.Canvas, txt string, sty text.Style, pt vg.Point) {
	pt.Y -= h.Extents(sty.Font).Descent + uprightGap
	h.Plain.Draw(c, txt, sty, pt)
}

// everyKth keeps a ticker's ticks and the label of every k-th labelled
// one (the first included).
type everyKth struct {
	inner plot.Ticker
	k     int
}

// Ticks returns the inner ticks with all but every k-th label blanked.
func (e everyKth) Ticks(lo, hi float64) []plot.Tick {
	in := e.inner
	if ek, ok := in.(everyKth); ok { // thinning again: from the original labels
		in = ek.inner
	}
	ts := in.Ticks(lo, hi)
	out := make([]plot.Tick, len(ts))
	n := 0
	for i, t := range ts {
		out[i] = t
		if t.Label == "" {
			continue
		}
		if n%e.k != 0 {
			out[i].Label = ""
		}
		n++
	}
	return out
}

// labelledTicks counts the labelled ticks of an axis's range.
func labelledTicks(a plot.Axis) int {
	n := 0
	for _, t := range a.Tick.Marker.Ticks(a.Min, a.Max) {
		if !t.IsMinor() && t.Value >= a.Min && t.Value <= a.Max {
			n++
		}
	}
	return n
}

// wrapTicks breaks labels wider than budget (as width measures a line)
// into lines at '_', '-', '/' or ' ', each line as long as budget allows.
func wrapTicks(ts plot.ConstantTicks, width func(string) vg.Length, budget float64) plot.ConstantTicks {
	out := make(plot.ConstantTicks, len(ts))
	for i, t := range ts {
		out[i] = t
		if t.Label == "" || float64(width(t.Label)) <= budget {
			continue
		}
		var lines []string
		line := ""
		for _, w := range splitAfterSeparators(t.Label) {
			if line != "" && float64(width(line+w)) > budget {
				lines = append(lines, line)
				line = ""
			}
			line += w
		}
		out[i].Label = strings.Join(append(lines, line), "\n")
	}
	return out
}

// splitAfterSeparators cuts s after each '_', '-', '/' or ' '.
func splitAfterSeparators(s string) []string {
	var parts []string
	start := 0
	for i, r := range s {
		if r == '_' || r == '-' || r == '/' || r == ' ' {
			parts = append(parts, s[start:i+1])
			start = i + 1
		}
	}
	if start < len(s) {
		parts = append(parts, s[start:])
	}
	return parts
}
