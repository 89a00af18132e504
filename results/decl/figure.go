package decl

import (
	"regexp"
	"slices"

	"go.yaml.in/yaml/v3"

	"schedfarm/results"
	"schedfarm/sweep"
)

// Figure kinds.
const (
	KindLine    = "line"    // mean per x with 95% CI error bars, one line per series
	KindScatter = "scatter" // one point per row
	KindBox     = "box"     // min, q1, median, q3, max per x and series
	KindCDF     = "cdf"     // empirical CDF of x per series
	KindHist    = "hist"    // counts of x in bins per series
	KindPareto  = "pareto"  // x and y relative to a baseline series, non-dominated points linked
)

var figureKinds = []string{KindLine, KindScatter, KindBox, KindCDF, KindHist, KindPareto}

// Figure is one validated figure declaration.
type Figure struct {
	ID, Title, Kind string
	// Table is "summary", "jobs" or an extra table of the model.
	Table string
	// X and Y are column names; in the summary a bare metric name stands
	// for its mean (with the ci95 column as error bar, and its
	// min/q1/median/q3/max for box plots). CDF and hist use X only.
	X, Y string
	// XOrder is the order of categorical x values: the enum of the x
	// parameter, in the model's order (the paper's order of its
	// algorithms), when it has one; other values follow, sorted.
	XOrder []string
	// Series splits the data into one line/colour per value (usually the
	// algorithm); Facet into one panel per value. Both optional.
	Series, Facet string
	Where         Filter
	// XLog and YLog use logarithmic axes.
	XLog, YLog     bool
	XLabel, YLabel string
	// Bins is the number of histogram bins (default 20); Normalize plots
	// fractions instead of counts.
	Bins      int
	Normalize bool
	// Baseline is the series value Pareto figures are relative to;
	// Relative is "ratio" (default: one point per row, the row's value
	// over the baseline's at the same point), "diff", or "mean_ratio":
	// one point per series, the mean of its per-row ratios (a paper's
	// "relative to B, averaged over all scenarios" with table: jobs).
	Baseline, Relative string
	// Legend is where the legend goes: top-right (default), top-left,
	// bottom-right, bottom-left or none.
	Legend string
	// Width and Height of one panel, in inches (default 4 × 3: a panel
	// scaled to a paper's column, 3.3 in, keeps its tick labels above
	// 7 pt; the legend, beside the panels, adds to the figure's width).
	Width, Height float64

	File      string
	Line, Col int
	cols      *columnSet
}

var figureKeys = []string{"id", "title", "kind", "table", "x", "y", "series", "facet", "where",
	"xscale", "yscale", "xlabel", "ylabel", "bins", "normalize", "baseline", "relative", "legend", "width", "height"}

var idRE = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

func (p *declParser) figures(n *yaml.Node, key string) []*Figure {
	items, ok := p.Sequence(n, key)
	if !ok {
		return nil
	}
	var out []*Figure
	ids := map[string]bool{}
	for i, it := range items {
		k := sweep.Index(key, i)
		f := p.figure(it, k)
		if f == nil {
			continue
		}
		if ids[f.ID] {
			p.Errf(it, k, "", "figure id %q used twice", f.ID)
			continue
		}
		ids[f.ID] = true
		out = append(out, f)
	}
	return out
}

func (p *declParser) figure(n *yaml.Node, key string) *Figure {
	m, ok := p.Fields(n, key, figureKeys)
	if !ok {
		return nil
	}
	before := len(p.Errs)
	f := &Figure{File: p.File, Line: n.Line, Col: n.Column, Width: 4, Height: 3, Bins: 20, Relative: "ratio"}
	if e, ok := m["id"]; ok {
		if f.ID, ok = p.Text(e.V, sweep.Join(key, "id")); ok && !idRE.MatchString(f.ID) {
			p.Errf(e.V, sweep.Join(key, "id"), "use letters, digits, '_', '-' and '.'", "bad figure id %q: it names the figure's files", f.ID)
		}
	} else {
		p.Errf(n, key, "", "missing required key \"id\"")
	}
	if e, ok := m["kind"]; ok {
		f.Kind, _ = p.OneOf(e.V, sweep.Join(key, "kind"), figureKinds...)
	} else {
		p.Errf(n, key, "one of: line, scatter, box, cdf, hist, pareto", "missing required key \"kind\"")
	}
	if f.Kind == "" {
		return nil
	}
	f.Title = f.ID
	if e, ok := m["title"]; ok {
		f.Title, _ = p.Text(e.V, sweep.Join(key, "title"))
	}
	switch f.Kind {
	case KindLine, KindBox, KindPareto:
		f.Table = results.SummaryTable
	default:
		f.Table = results.JobsTable
	}
	var tableNode *yaml.Node = n
	if e, ok := m["table"]; ok {
		tableNode = e.V
		if t, ok := p.Text(e.V, sweep.Join(key, "table")); ok {
			f.Table = t
		}
	}
	valid := []string{results.JobsTable, results.SummaryTable}
	for _, t := range p.schema.Tables {
		valid = append(valid, t.Name)
	}
	cs, err := columns(p.schema, f.Table)
	if err != nil {
		p.Errf(sweep.Resolve(tableNode), sweep.Join(key, "table"), sweep.DidYouMean(f.Table, valid), "unknown table %q (tables: jobs, summary or the model's: %v)", f.Table, valid[2:])
		return nil
	}
	f.cols = cs
	if f.Kind == KindPareto && f.Table != results.SummaryTable && f.Table != results.JobsTable {
		p.Errf(sweep.Resolve(tableNode), sweep.Join(key, "table"), "", "a pareto figure reads the summary or jobs table")
	}
	col := func(name string, required bool) string {
		e, ok := m[name]
		if !ok {
			if required {
				p.Errf(n, key, "", "missing required key %q for a %s figure", name, f.Kind)
			}
			return ""
		}
		c, _ := p.column(e.V, sweep.Join(key, name), cs)
		return c
	}
	f.X = col("x", true)
	if prm, ok := p.schema.Param(f.X); ok {
		f.XOrder = prm.Enum
	}
	switch f.Kind {
	case KindCDF, KindHist:
		if e, ok := m["y"]; ok {
			p.Errf(e.K, sweep.Join(key, "y"), "name the variable under x", "a %s figure has no y column", f.Kind)
		}
	default:
		f.Y = col("y", true)
	}
	f.Series = col("series", f.Kind == KindPareto)
	f.Facet = col("facet", false)
	if e, ok := m["where"]; ok {
		f.Where = p.where(e.V, sweep.Join(key, "where"), cs)
	}
	for _, ax := range []struct {
		name string
		dst  *bool
	}{{"xscale", &f.XLog}, {"yscale", &f.YLog}} {
		if e, ok := m[ax.name]; ok {
			s, _ := p.OneOf(e.V, sweep.Join(key, ax.name), "linear", "log")
			*ax.dst = s == "log"
		}
	}
	if e, ok := m["xlabel"]; ok {
		f.XLabel, _ = p.Text(e.V, sweep.Join(key, "xlabel"))
	}
	if e, ok := m["ylabel"]; ok {
		f.YLabel, _ = p.Text(e.V, sweep.Join(key, "ylabel"))
	}
	if e, ok := m["bins"]; ok {
		if b, ok := p.Number(e.V, sweep.Join(key, "bins")); ok {
			if b < 1 || b > 1000 || b != float64(int(b)) {
				p.Errf(sweep.Resolve(e.V), sweep.Join(key, "bins"), "", "bins must be an integer from 1 to 1000")
			}
			f.Bins = int(b)
		}
		if f.Kind != KindHist {
			p.Errf(e.K, sweep.Join(key, "bins"), "", "bins applies to hist figures only")
		}
	}
	if e, ok := m["normalize"]; ok {
		f.Normalize, _ = p.Bool(e.V, sweep.Join(key, "normalize"))
	}
	if e, ok := m["baseline"]; ok {
		f.Baseline, _ = p.Text(e.V, sweep.Join(key, "baseline"))
		if f.Kind != KindPareto {
			p.Errf(e.K, sweep.Join(key, "baseline"), "", "baseline applies to pareto figures only")
		}
	} else if f.Kind == KindPareto {
		p.Errf(n, key, "", "missing required key \"baseline\" (the series value the figure is relative to)")
	}
	if e, ok := m["legend"]; ok {
		f.Legend, _ = p.OneOf(e.V, sweep.Join(key, "legend"), "top-right", "top-left", "bottom-right", "bottom-left", "none")
	}
	if e, ok := m["relative"]; ok {
		f.Relative, _ = p.OneOf(e.V, sweep.Join(key, "relative"), "ratio", "diff", "mean_ratio")
	}
	for _, d := range []struct {
		name string
		dst  *float64
	}{{"width", &f.Width}, {"height", &f.Height}} {
		if e, ok := m[d.name]; ok {
			if v, ok := p.Number(e.V, sweep.Join(key, d.name)); ok {
				if v < 1 || v > 40 {
					p.Errf(sweep.Resolve(e.V), sweep.Join(key, d.name), "", "%s is in inches, from 1 to 40", d.name)
				}
				*d.dst = v
			}
		}
	}
	if len(p.Errs) > before {
		return nil
	}
	return f
}

// ColumnLabel returns "name (unit)" for a column of the figure's table, or
// name alone when the column has no unit or the figure was not validated
// against a schema.
func (f *Figure) ColumnLabel(name string) string {
	if f.cols == nil {
		return name
	}
	return f.cols.label(name)
}

// IsParam reports whether name is a parameter of the figure's model.
func (f *Figure) IsParam(name string) bool {
	return f.cols != nil && slices.Contains(f.cols.paramNames(), name)
}
