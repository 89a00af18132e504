package decl

import (
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"schedfarm/results"
	"schedfarm/simcore"
	"schedfarm/sweep"
)

// declParser validates the figures:, claims: and verify: declarations of
// one sweep, collecting every problem as a *sweep.Error with its position.
type declParser struct {
	sweep.Nodes
	key    string // the sweep's name, prefix of every error key
	schema *simcore.Schema
}

// columnSet describes the columns a declaration may name in one table.
type columnSet struct {
	table  string
	layout results.Layout
	// metrics are the numeric metrics: in the summary, a bare metric name
	// stands for its mean (with its ci95 as the error).
	metrics []string
	params  []string
	units   map[string]string
}

// columns returns the column set of a table of the schema's results:
// "jobs", "summary" or an extra table.
func columns(schema *simcore.Schema, table string) (*columnSet, error) {
	var l results.Layout
	var err error
	switch table {
	case results.JobsTable:
		l, err = results.JobsLayout(*schema)
	case results.SummaryTable:
		l, err = results.SummaryLayout(*schema)
	default:
		l, err = results.TableLayout(*schema, table)
	}
	if err != nil {
		return nil, err
	}
	cs := &columnSet{table: table, layout: l, units: map[string]string{results.ColDurationMs: "ms"}}
	for _, p := range schema.Params {
		cs.units[p.Name] = p.Unit
		cs.params = append(cs.params, p.Name)
	}
	for _, m := range schema.Metrics {
		cs.units[m.Name] = m.Unit
		if table == results.SummaryTable && (m.Kind == simcore.Int || m.Kind == simcore.Float) {
			cs.metrics = append(cs.metrics, m.Name)
			for _, s := range results.SummaryStats() {
				cs.units[m.Name+"_"+s] = m.Unit
			}
		}
	}
	for _, t := range schema.Tables {
		if t.Name == table {
			for _, c := range t.Columns {
				cs.units[c.Name] = c.Unit
			}
		}
	}
	return cs, nil
}

// paramNames returns the names of the model's parameters.
func (cs *columnSet) paramNames() []string { return cs.params }

func (cs *columnSet) names() []string {
	return append(cs.layout.Names(), cs.metrics...)
}

func (cs *columnSet) has(name string) bool {
	return cs.layout.Index(name) >= 0 || slices.Contains(cs.metrics, name)
}

// label returns "name (unit)" or "name".
func (cs *columnSet) label(name string) string {
	if u := cs.units[name]; u != "" {
		return name + " (" + u + ")"
	}
	return name
}

// column reads a column name and checks that the table has it.
func (p *declParser) column(n *yaml.Node, key string, cs *columnSet) (string, bool) {
	s, ok := p.Text(n, key)
	if !ok {
		return "", false
	}
	if !cs.has(s) {
		hint := sweep.DidYouMean(s, cs.names())
		if hint == "" {
			hint = "columns: " + strings.Join(cs.names(), ", ")
		}
		p.Errf(sweep.Resolve(n), key, hint, "table %q has no column %q", cs.table, s)
		return "", false
	}
	return s, true
}

// Cond is one filter condition: the column's value must be one of Values
// (as labels, see Label).
type Cond struct {
	Col    string
	Values []string
}

// Filter is a conjunction of conditions (a declaration's where:).
type Filter []Cond

// where reads a filter: column → value or list of values. Values of
// parameter columns are checked against the parameter's schema.
func (p *declParser) where(n *yaml.Node, key string, cs *columnSet) Filter {
	pairs, ok := p.Fields(n, key, cs.layout.Names())
	if !ok {
		return nil
	}
	var f Filter
	for _, name := range cs.layout.Names() {
		e, ok := pairs[name]
		if !ok {
			continue
		}
		k := sweep.Join(key, name)
		v := sweep.Resolve(e.V)
		var items []*yaml.Node
		if v.Kind == yaml.SequenceNode {
			for _, c := range v.Content {
				items = append(items, sweep.Resolve(c))
			}
		} else {
			items = []*yaml.Node{v}
		}
		c := Cond{Col: name}
		for _, it := range items {
			if it.Kind != yaml.ScalarNode || it.ShortTag() == "!!null" {
				p.Errf(it, k, "", "want a value or a list of values, got %s", sweep.Describe(it))
				continue
			}
			val := sweep.ScalarValue(it)
			if prm, ok := p.schema.Param(name); ok {
				checked, err := prm.Check(val)
				if err != nil {
					p.Errf(it, k, "", "%v", err)
					continue
				}
				val = checked
			}
			c.Values = append(c.Values, results.Label(val))
		}
		f = append(f, c)
	}
	return f
}

// Rows returns the indexes of the rows matching the filter.
func (fl Filter) Rows(f *results.Frame) []int {
	idx := make([]int, len(fl))
	sets := make([]map[string]bool, len(fl))
	for i, c := range fl {
		idx[i] = f.Index(c.Col)
		sets[i] = map[string]bool{}
		for _, v := range c.Values {
			sets[i][v] = true
		}
	}
	var out []int
rows:
	for r := 0; r < f.Len(); r++ {
		for i := range fl {
			if idx[i] < 0 || !sets[i][f.CellLabel(idx[i], r)] {
				continue rows
			}
		}
		out = append(out, r)
	}
	return out
}

// Has reports whether the filter has a condition on col.
func (fl Filter) Has(col string) bool {
	for _, c := range fl {
		if c.Col == col {
			return true
		}
	}
	return false
}

// Cols returns the columns the filter names, in its order (the schema's).
func (fl Filter) Cols() []string {
	var out []string
	for _, c := range fl {
		out = append(out, c.Col)
	}
	return out
}

// Match reports whether row r of f matches every condition.
func (fl Filter) Match(f *results.Frame, r int) bool {
	for _, c := range fl {
		i := f.Index(c.Col)
		if i < 0 || !slices.Contains(c.Values, f.CellLabel(i, r)) {
			return false
		}
	}
	return true
}

// String renders the filter as "a=1, b∈{x,y}".
func (fl Filter) String() string {
	parts := make([]string, len(fl))
	for i, c := range fl {
		if len(c.Values) == 1 {
			parts[i] = c.Col + "=" + c.Values[0]
		} else {
			parts[i] = c.Col + "∈{" + strings.Join(c.Values, ",") + "}"
		}
	}
	return strings.Join(parts, ", ")
}

// Decls are the validated figures, claims and verify settings of a sweep.
type Decls struct {
	Figures []*Figure
	Claims  []*Claim
	Verify  VerifySpec
	// Calibrations are the sweep's calibrated: parameters.
	Calibrations []*Calibration
	// Sensitivity, when set, says which alternative reading of the paper
	// the sweep runs: its claims are sensitivity, not reproductions.
	Sensitivity string
}

// Parse validates a sweep's figures:, claims: and verify: keys against
// its model's schema. The error, if any, is a sweep.ErrorList with every
// problem found, each with file:line:col and the closest valid name.
func Parse(s *sweep.Sweep) (*Decls, error) {
	p := &declParser{Nodes: sweep.Nodes{File: s.File}, key: s.Name, schema: s.Schema()}
	d := &Decls{}
	if s.Figures != nil {
		d.Figures = p.figures(s.Figures, sweep.Join(s.Name, "figures"))
	}
	if s.Claims != nil {
		d.Claims = p.claims(s.Claims, sweep.Join(s.Name, "claims"))
		if s.MaxReplicates > 0 {
			for _, c := range d.Claims {
				c.Anytime = anytimeFor(p.schema, c)
			}
		}
	}
	if s.Verify != nil {
		d.Verify = p.verify(s.Verify, sweep.Join(s.Name, "verify"))
	}
	if s.Calibrated != nil {
		d.Calibrations = p.calibrations(s.Calibrated, sweep.Join(s.Name, "calibrated"), d.Claims)
	}
	if s.Sensitivity != nil {
		d.Sensitivity = p.sensitivity(s.Sensitivity, sweep.Join(s.Name, "sensitivity"))
	}
	if len(p.Errs) > 0 {
		slices.SortStableFunc(p.Errs, func(a, b *sweep.Error) int {
			if a.Line != b.Line {
				return a.Line - b.Line
			}
			return a.Col - b.Col
		})
		return nil, p.Errs
	}
	return d, nil
}

// ValidateFile checks the declarations of every sweep of a parsed file.
func ValidateFile(f *sweep.File) error {
	var all sweep.ErrorList
	for _, s := range f.Sweeps {
		if _, err := Parse(s); err != nil {
			all = append(all, err.(sweep.ErrorList)...)
		}
	}
	if len(all) > 0 {
		return all
	}
	return nil
}

// Unit returns the unit of a summary column: a metric's, also for its
// statistics (makespan_median is in makespan's unit).
func Unit(schema *simcore.Schema, col string) string {
	if m, ok := metricOf(schema, col); ok {
		return m.Unit
	}
	if cs, err := columns(schema, results.SummaryTable); err == nil {
		return cs.units[col]
	}
	return ""
}
