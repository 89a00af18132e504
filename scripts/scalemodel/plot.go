package main

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// drawPlot draws jobs/s against workers (both axes logarithmic): the
// measured points, the projections, the ideal line and the two ceilings.
func drawPlot(path string, rows []*measured, proj []projection, c Costs, hi *Costs, suiteJobs int) error {
	p := plot.New()
	p.Title.Text = "schedfarm scaling: measured and projected throughput"
	p.X.Label.Text = "worker processes"
	p.Y.Label.Text = "jobs/s"
	p.X.Scale = plot.LogScale{}
	p.Y.Scale = plot.LogScale{}
	var xt []plot.Tick
	for _, q := range proj {
		xt = append(xt, plot.Tick{Value: float64(q.W), Label: fmt.Sprint(q.W)})
	}
	p.X.Tick.Marker = plot.ConstantTicks(xt)
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Add(plotter.NewGrid())
	p.Legend.Top = false
	p.Legend.Left = false

	var ideal, sust, suite, sustHi plotter.XYs
	for _, q := range proj {
		ideal = append(ideal, plotter.XY{X: float64(q.W), Y: q.Ideal})
		sust = append(sust, plotter.XY{X: float64(q.W), Y: q.Sustained})
		suite = append(suite, plotter.XY{X: float64(q.W), Y: q.Suite})
		sustHi = append(sustHi, plotter.XY{X: float64(q.W), Y: q.SustainedHi})
	}
	lo, xhi := float64(proj[0].W), float64(proj[len(proj)-1].W)
	ymax := 0.0

	gray := color.RGBA{120, 120, 120, 255}
	blue := color.RGBA{31, 119, 180, 255}
	orange := color.RGBA{255, 127, 14, 255}
	red := color.RGBA{214, 39, 40, 255}
	purple := color.RGBA{148, 103, 189, 255}
	green := color.RGBA{44, 160, 44, 255}

	addLine := func(xy plotter.XYs, name string, col color.Color, dashes []vg.Length, width vg.Length) error {
		l, err := plotter.NewLine(xy)
		if err != nil {
			return err
		}
		l.Color, l.Dashes, l.Width = col, dashes, width
		p.Add(l)
		p.Legend.Add(name, l)
		return nil
	}
	dash := []vg.Length{vg.Points(5), vg.Points(3)}
	dot := []vg.Length{vg.Points(2), vg.Points(2)}
	if err := addLine(ideal, "ideal (free coordination)", gray, dot, vg.Points(1)); err != nil {
		return err
	}
	if err := addLine(sust, "projected, sustained stream", blue, nil, vg.Points(2)); err != nil {
		return err
	}
	if err := addLine(suite, fmt.Sprintf("projected, one %d-job run", suiteJobs), blue, dash, vg.Points(1.2)); err != nil {
		return err
	}
	if hi != nil {
		if err := addLine(sustHi, "projected, sustained, high-rate costs", green, nil, vg.Points(1.5)); err != nil {
			return err
		}
	}
	ceilings := []ceiling{{"NATS", "", c.NATS, red, dash}, {"coordinator", "", c.Coord, purple, dash}}
	if hi != nil {
		ceilings = append(ceilings,
			ceiling{"NATS", ", high rate", hi.NATS, red, dot}, ceiling{"coordinator", ", high rate", hi.Coord, purple, dot})
	}
	for _, k := range ceilings {
		if err := addLine(plotter.XYs{{X: lo, Y: 1 / k.cost}, {X: xhi, Y: 1 / k.cost}},
			fmt.Sprintf("%s ceiling (%.3f ms CPU/job%s)", k.name, 1000*k.cost, k.at), k.col, k.dashes, vg.Points(1.5)); err != nil {
			return err
		}
		ymax = math.Max(ymax, 1/k.cost)
	}

	var meas plotter.XYs
	for _, m := range rows {
		meas = append(meas, plotter.XY{X: float64(m.W), Y: float64(m.Jobs) / m.Wall})
	}
	s, err := plotter.NewScatter(meas)
	if err != nil {
		return err
	}
	s.GlyphStyle = draw.GlyphStyle{Color: orange, Radius: vg.Points(4), Shape: draw.CircleGlyph{}}
	p.Add(s)
	p.Legend.Add("measured (this machine, shared)", s)

	ymin := math.Inf(1)
	for _, xy := range append(append(meas, suite...), sust...) {
		ymin = math.Min(ymin, xy.Y)
		ymax = math.Max(ymax, xy.Y)
	}
	p.X.Min, p.X.Max = lo/1.15, xhi*1.15
	p.Y.Min, p.Y.Max = ymin/10, ymax*2 // room for the legend below the lines
	return p.Save(8*vg.Inch, 5.5*vg.Inch, path)
}

// ceiling is a horizontal line at 1/cost jobs/s.
type ceiling struct {
	name, at string
	cost     float64 // s of CPU per job
	col      color.Color
	dashes   []vg.Length
}
