package sweep

// Axes, derived parameters and exclusions: the parts of a sweep that make
// its points (expand.go walks them).

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"schedfarm/simcore"
)

// axis is one swept dimension: a plain axis sets one parameter, a zip axis
// sets several in lockstep.
type axis struct {
	key       string
	line, col int
	names     []string
	slots     []int   // parameter indexes set by the axis
	points    [][]any // points[i][j] is the value of slots[j] at point i
	when      [][]*axis
}

// derivation is one derived parameter.
type derivation struct {
	key       string
	line, col int
	name      string
	slot      int
	src       string
	expr      *exprNode
	deps      []int
}

// exclusion drops every point whose complete parameters match all of vals.
type exclusion struct {
	key       string
	line, col int
	slots     []int
	vals      []any
}

// axes parses a list of axes (the top-level one or a "when" branch).
func (p *parser) axes(s *Sweep, n *yaml.Node, key string, scope map[int]origin, depth int) []*axis {
	items, ok := p.Sequence(n, key)
	if !ok {
		return nil
	}
	if len(items) == 0 {
		p.Errf(p.Resolve(n), key, "remove the key or add an axis", "empty list of axes")
		return nil
	}
	var out []*axis
	for i, it := range items {
		if p.tooBig(it) {
			return nil
		}
		if a := p.axis(s, it, Index(key, i), scope, depth); a != nil {
			out = append(out, a)
		}
	}
	return out
}

// axis parses one axis: {name, values|range, when} or {zip}.
func (p *parser) axis(s *Sweep, n *yaml.Node, key string, scope map[int]origin, depth int) *axis {
	n = p.Resolve(n)
	before := len(p.Errs)
	pairs, ok := p.Mapping(n, key, axisKeys, nil)
	if !ok || len(p.Errs) > before {
		// A misspelt key would also show up as a missing one.
		return nil
	}
	get := map[string]Pair{}
	for _, kv := range pairs {
		get[kv.Name] = kv
	}
	a := &axis{key: key, line: n.Line, col: n.Column}
	if z, ok := get["zip"]; ok {
		for _, other := range []string{"name", "values", "range", "when"} {
			if kv, ok := get[other]; ok {
				p.Errf(kv.K, Join(key, other), "put each zipped parameter's list under zip", "%q cannot be combined with \"zip\"", other)
				return nil
			}
		}
		return p.zip(s, a, z, key, scope)
	}
	kv, ok := get["name"]
	if !ok {
		p.Errf(n, key, "", "missing required key \"name\" (or \"zip\")")
		return nil
	}
	pname, ok := p.Str(kv.V, Join(key, "name"))
	if !ok {
		return nil
	}
	nameNode := p.Resolve(kv.V)
	slot, ok := p.param(s, nameNode, Join(key, "name"))
	if !ok {
		return nil
	}
	a.key = Join(key, pname)
	a.names, a.slots = []string{pname}, []int{slot}
	declared := p.declare(s, scope, slot, nameNode, a.key, "axis")
	vals, hasVals := get["values"]
	rng, hasRange := get["range"]
	var points []any
	switch {
	case hasVals && hasRange:
		p.Errf(rng.K, Join(a.key, "range"), "", "an axis has either \"values\" or \"range\", not both")
		return nil
	case hasVals:
		points, ok = p.values(s, slot, vals.V, Join(a.key, "values"))
	case hasRange:
		points, ok = p.rangeValues(s, slot, rng.V, Join(a.key, "range"))
	default:
		p.Errf(n, a.key, "", "missing \"values\" or \"range\"")
		return nil
	}
	if !ok || !declared {
		return nil
	}
	for _, v := range points {
		a.points = append(a.points, []any{v})
	}
	if w, ok := get["when"]; ok {
		if !p.when(s, a, w.V, Join(a.key, "when"), scope, depth) {
			return nil
		}
	}
	return a
}

// values parses an explicit list of values.
func (p *parser) values(s *Sweep, slot int, n *yaml.Node, key string) ([]any, bool) {
	items, ok := p.Sequence(n, key)
	if !ok {
		return nil, false
	}
	if len(items) == 0 {
		p.Errf(p.Resolve(n), key, "", "empty list: an axis needs at least one value")
		return nil, false
	}
	if len(items) > maxAxisPoints {
		p.Errf(p.Resolve(n), key, "", "%d values: at most %d per axis", len(items), maxAxisPoints)
		return nil, false
	}
	if !p.spend(len(items), p.Resolve(n), key) {
		return nil, false
	}
	out := make([]any, 0, len(items))
	good := true
	for i, it := range items {
		v, ok := p.value(s, slot, it, Index(key, i))
		good = good && ok
		out = append(out, v)
	}
	return out, good
}

// zip parses a zip axis: parameter name → list (or range), equal lengths.
func (p *parser) zip(s *Sweep, a *axis, z Pair, key string, scope map[int]origin) *axis {
	zkey := Join(key, "zip")
	pairs, ok := p.Mapping(z.V, zkey, nil, nil)
	if !ok {
		return nil
	}
	if len(pairs) == 0 {
		p.Errf(p.Resolve(z.V), zkey, "", "empty zip: want parameter: [values] entries")
		return nil
	}
	var cols [][]any
	var lines []int
	good := true
	for _, kv := range pairs {
		k := Join(zkey, kv.Name)
		slot, ok := p.param(s, kv.K, k)
		if !ok {
			good = false
			continue
		}
		if !p.declare(s, scope, slot, kv.K, k, "zip axis") {
			good = false
			continue
		}
		var col []any
		if v := p.Resolve(kv.V); v.Kind == yaml.MappingNode {
			col, ok = p.rangeValues(s, slot, v, k)
		} else {
			col, ok = p.values(s, slot, v, k)
		}
		if !ok {
			good = false
			continue
		}
		a.names = append(a.names, kv.Name)
		a.slots = append(a.slots, slot)
		cols = append(cols, col)
		lines = append(lines, kv.K.Line)
	}
	if !good {
		return nil
	}
	for j := 1; j < len(cols); j++ {
		if len(cols[j]) != len(cols[0]) {
			p.Errf(p.Resolve(z.V), zkey, "zipped lists vary together and need equal lengths",
				"zip lists differ in length: %s has %d values (line %d), %s has %d (line %d)",
				a.names[0], len(cols[0]), lines[0], a.names[j], len(cols[j]), lines[j])
			return nil
		}
	}
	a.key = zkey
	for i := range cols[0] {
		pt := make([]any, len(cols))
		for j := range cols {
			pt[j] = cols[j][i]
		}
		a.points = append(a.points, pt)
	}
	return a
}

// when parses the conditional sub-axes of a plain axis: value → axes.
// Branches are mutually exclusive, so each may set the same parameter; a
// parameter set in any branch counts as set for the axes that follow.
func (p *parser) when(s *Sweep, a *axis, n *yaml.Node, key string, scope map[int]origin, depth int) bool {
	if depth >= maxWhenDepth {
		p.Errf(p.Resolve(n), key, "", "\"when\" nested more than %d deep", maxWhenDepth)
		return false
	}
	pairs, ok := p.Mapping(n, key, nil, nil)
	if !ok {
		return false
	}
	labels := make([]string, len(a.points))
	for i, pt := range a.points {
		labels[i] = label(pt[0])
	}
	a.when = make([][]*axis, len(a.points))
	union := map[int]origin{}
	good := true
	for _, kv := range pairs {
		if p.tooBig(kv.K) {
			return false
		}
		k := Join(key, kv.Name)
		v, ok := p.value(s, a.slots[0], kv.K, k)
		if !ok {
			good = false
			continue
		}
		i := slices.Index(labels, label(v))
		if i < 0 {
			p.Errf(kv.K, k, didYouMean(kv.Name, labels), "%s is not a value of this axis (%s)", kv.Name, strings.Join(labels, ", "))
			good = false
			continue
		}
		branch := make(map[int]origin, len(scope))
		for sl, o := range scope {
			branch[sl] = o
		}
		before := len(p.Errs)
		a.when[i] = p.axes(s, kv.V, k, branch, depth+1)
		if len(p.Errs) > before {
			good = false
		}
		for sl, o := range branch {
			if _, ok := scope[sl]; !ok {
				if _, ok := union[sl]; !ok {
					union[sl] = o
				}
			}
		}
	}
	for sl, o := range union {
		scope[sl] = o
	}
	return good
}

// label renders a value as users write it: strings unquoted.
func label(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return simcore.FormatValue(v)
}

// derive parses the derived parameters and orders them so that each is
// evaluated after those it reads. Each expression is compiled here, once
// per sweep, within maxExprBytes and, all together, maxDeriveNodes.
func (p *parser) derive(s *Sweep, n *yaml.Node, key string, scope map[int]origin) {
	pairs, ok := p.Mapping(n, key, nil, nil)
	if !ok {
		return
	}
	env := &exprEnv{schema: &s.schema, funcs: exprFuncs()}
	var ds []*derivation
	nodes, over := 0, false // nodes of the expressions so far, against maxDeriveNodes
	for _, kv := range pairs {
		k := Join(key, kv.Name)
		slot, ok := p.param(s, kv.K, k)
		if !ok {
			continue
		}
		if !p.declare(s, scope, slot, kv.K, k, "derive") {
			continue
		}
		v := p.Resolve(kv.V)
		if v.Kind != yaml.ScalarNode || v.ShortTag() == "!!null" {
			p.Errf(v, k, "", "want an expression, got %s", Describe(v))
			continue
		}
		if len(v.Value) > maxExprBytes {
			p.Errf(v, k, deriveHint, "expression of %d bytes, over the limit of %d bytes (%d KiB) per expression", len(v.Value), maxExprBytes, maxExprBytes>>10)
			continue
		}
		d := &derivation{key: k, line: kv.K.Line, col: kv.K.Column, name: kv.Name, slot: slot, src: v.Value}
		expr, err := compileExpr(v.Value, env)
		if err != nil {
			var ee *exprError
			errors.As(err, &ee)
			line, col, exact := p.exprPos(v, ee.pos)
			msg := ee.msg
			if !exact {
				msg += fmt.Sprintf(" (column %d of the expression)", ee.pos+1)
			}
			p.ErrAt(line, col, k, ee.hint, "%s in %q", msg, v.Value)
			continue
		}
		prm := s.schema.Params[slot]
		if want := typeOfKind(prm.Kind); expr.typ != want {
			p.Errf(v, k, "", "expression gives a %s, parameter %q is %s", expr.typ, prm.Name, prm.Kind)
			continue
		}
		if nodes += expr.size(); nodes > maxDeriveNodes {
			if !over {
				p.Errf(v, k, deriveHint, "the sweep's derive expressions hold %d nodes up to this one, over the limit of %d in all (each is evaluated at every point)", nodes, maxDeriveNodes)
			}
			over = true
			continue
		}
		d.expr = expr
		d.deps = expr.refs(nil)
		ds = append(ds, d)
	}
	s.derived = p.order(ds)
}

// deriveHint is the advice of the errors of an expression over its caps.
const deriveHint = "derive is for short formulas: list long computations' values on an axis (zip them with the parameters they follow), or compute them in the model"

// exprPos maps a byte offset in an expression to a file position. It is
// exact when the scalar is on one line and its source text is the value
// itself (plain, or quoted without escapes); otherwise it falls back to the
// scalar's position and reports exact=false.
func (p *parser) exprPos(n *yaml.Node, off int) (line, col int, exact bool) {
	if p.lines == nil {
		p.lines = strings.Split(string(p.text), "\n")
	}
	if n.Line >= 1 && n.Line <= len(p.lines) && n.Column >= 1 {
		src := p.lines[n.Line-1]
		if c := n.Column - 1; c <= len(src) {
			src = src[c:]
			prefix := n.Value
			shift := 0
			switch n.Style {
			case yaml.DoubleQuotedStyle:
				prefix, shift = `"`+n.Value+`"`, 1
			case yaml.SingleQuotedStyle:
				prefix, shift = `'`+n.Value+`'`, 1
			case 0:
			default:
				prefix = "\x00"
			}
			if strings.HasPrefix(src, prefix) {
				return n.Line, n.Column + shift + off, true
			}
		}
	}
	return n.Line, n.Column, false
}

// order sorts derivations topologically (declaration order among
// independent ones) and reports cycles.
func (p *parser) order(ds []*derivation) []*derivation {
	bySlot := map[int]*derivation{}
	for _, d := range ds {
		bySlot[d.slot] = d
	}
	const (
		unvisited = iota
		visiting
		done
	)
	state := map[*derivation]int{}
	var out []*derivation
	var stack []*derivation
	var visit func(d *derivation) bool
	visit = func(d *derivation) bool {
		switch state[d] {
		case done:
			return true
		case visiting:
			i := slices.Index(stack, d)
			names := []string{}
			for _, c := range stack[i:] {
				names = append(names, c.name)
			}
			names = append(names, d.name)
			p.ErrAt(d.line, d.col, d.key, "a derived parameter cannot depend on itself",
				"derive cycle: %s", strings.Join(names, " -> "))
			return false
		}
		state[d] = visiting
		stack = append(stack, d)
		for _, dep := range d.deps {
			if x, ok := bySlot[dep]; ok && !visit(x) {
				return false
			}
		}
		stack = stack[:len(stack)-1]
		state[d] = done
		out = append(out, d)
		return true
	}
	for _, d := range ds {
		if state[d] == unvisited && !visit(d) {
			return nil
		}
	}
	return out
}

// exclusions parses the exclude list and indexes it (s.excl), refusing
// entries beyond maxExcludeKeySets distinct sets of parameters.
func (p *parser) exclusions(s *Sweep, n *yaml.Node, key string) {
	items, ok := p.Sequence(n, key)
	if !ok {
		return
	}
	for i, it := range items {
		k := Index(key, i)
		it = p.Resolve(it)
		pairs, ok := p.Mapping(it, k, nil, nil)
		if !ok {
			continue
		}
		if len(pairs) == 0 {
			p.Errf(it, k, "", "empty exclusion would drop every job")
			continue
		}
		e := &exclusion{key: k, line: it.Line, col: it.Column}
		good := true
		for _, kv := range pairs {
			slot, ok := p.param(s, kv.K, Join(k, kv.Name))
			if !ok {
				good = false
				continue
			}
			v, ok := p.value(s, slot, kv.V, Join(k, kv.Name))
			if !ok {
				good = false
				continue
			}
			e.slots = append(e.slots, slot)
			e.vals = append(e.vals, v)
		}
		if !good {
			continue
		}
		if !s.excl.add(len(s.exclude), e) {
			p.keySetError(s, e)
			continue
		}
		s.exclude = append(s.exclude, e)
	}
}
