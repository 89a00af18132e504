package sweep

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"schedfarm/simcore"
)

// File is a parsed and validated sweep file.
type File struct {
	Path string
	// Text is the file's text, or for a suite (a file with an "include"
	// list) the bundle of the suite and every file it includes: Parse of
	// Text alone gives back the same sweeps.
	Text   []byte
	Sweeps []*Sweep
	// Included lists the files a suite included, in the order read.
	Included []string
}

// Sweep is one validated sweep: a model, a master seed, a replicate count,
// fixed parameters, axes, derived parameters and exclusions.
type Sweep struct {
	Name  string
	Model string
	// Doc is the sweep's optional free-text description.
	Doc        string
	Seed       uint64
	Replicates int
	// MaxReplicates, when positive, makes the replicates adaptive
	// (replicates: {min: Replicates, max: MaxReplicates}): the run starts
	// with Replicates per point and the coordinator adds replicates, in
	// complete rounds, to the points that undecided claims read, up to
	// MaxReplicates (see Round). 0 for a fixed count.
	MaxReplicates int
	// File, Line and Col locate the sweep's mapping in its file.
	File      string
	Line, Col int
	// Figures, Claims and Verify are kept raw for the results package; the
	// sweep package does not look inside them.
	Figures, Claims, Verify *yaml.Node
	// Calibrated (calibrated:) is kept raw too: the parameters whose values
	// were chosen against some of the sweep's claims (results.Calibration);
	// so is Sensitivity (sensitivity:), the alternative reading a
	// sensitivity sweep runs.
	Calibrated, Sensitivity *yaml.Node

	model   simcore.Model
	schema  simcore.Schema
	key     string // the sweep's name, or its position when it has none
	fixed   []any  // indexed like schema.Params; nil where not fixed
	setAt   []int  // indexed like schema.Params: the line that sets it first, 0 if none
	defs    []any  // checked defaults, indexed like schema.Params
	axes    []*axis
	derived []*derivation // in evaluation order
	exclude []*exclusion
	excl    excludeIndex // exclude, indexed by the parameters each entry names
}

// Schema returns the parameter schema of the sweep's model.
func (s *Sweep) Schema() *simcore.Schema { return &s.schema }

// ParamLine returns the line of the sweep's file (File) where parameter
// name is set, in params, an axis or derive (the first of them when "when"
// branches set it in several places), and true; or the line of the sweep
// itself and false when the sweep leaves it at the model's default (or the
// model has no such parameter).
func (s *Sweep) ParamLine(name string) (int, bool) {
	for i, prm := range s.schema.Params {
		if prm.Name == name && s.setAt[i] > 0 {
			return s.setAt[i], true
		}
	}
	return s.Line, false
}

// UsesSeed reports whether a job of the sweep's model with (complete)
// parameters p depends on its seed (simcore.UsesSeed).
func (s *Sweep) UsesSeed(p simcore.Params) bool { return simcore.UsesSeed(s.model, p) }

// ModelVersion returns the version of the sweep's model, part of every job ID.
func (s *Sweep) ModelVersion() string { return s.model.Version() }

// extKeys in a list of allowed keys lets keys starting with "x-" through,
// ignored: a place to define YAML anchors.
const extKeys = "x-*"

// The keys each mapping of the file format accepts.
var (
	sweepKeys = []string{"name", "model", "doc", "seed", "replicates", "params", "axes", "derive", "exclude", "figures", "claims", "verify", "calibrated", "sensitivity", extKeys}
	axisKeys  = []string{"name", "values", "range", "when", "zip"}
	rangeKeys = []string{"from", "to", "step", "num", "factor", "scale"}
)

// Limits that keep a hostile or mistaken file from exhausting memory while
// it is parsed; jobs themselves are bounded by Expand's maxJobs.
const (
	maxAxisPoints = 100_000
	maxFileValues = 1_000_000
	maxReplicates = 1_000_000
	maxWhenDepth  = 16
	maxNodes      = 1_000_000
)

var sweepNameRE = regexp.MustCompile(`^[a-z0-9_-]+$`)

// Load reads and parses the sweep file at path.
// A suite's included files are read too, and File.Text becomes their
// bundle.
func Load(path string, reg *simcore.Registry) (*File, error) {
	text, err := ReadRegular(path, MaxFileBytes)
	if err != nil {
		return nil, fmt.Errorf("sweep: %w", err)
	}
	if isBundle(text) {
		return Parse(path, text, reg)
	}
	return parse(path, text, reg, diskSource{})
}

// Parse parses a sweep file and validates everything that can be checked
// without expanding it: the format, the models, every parameter name, every
// value against the model's schema (each value an axis produces), the
// expressions, and that no parameter is set twice. The error, if any, is an
// ErrorList holding every problem found, each with its position.
//
// text may be a bundle (a suite and its included files, as Load packs
// them); a plain text that includes files is an error, as Parse reads no
// file.
func Parse(path string, text []byte, reg *simcore.Registry) (*File, error) {
	if isBundle(text) {
		root, src, err := parseBundle(text)
		if err != nil {
			return nil, ErrorList{&Error{File: path, Line: 1, Col: 1, Msg: err.Error()}}
		}
		f, err := parse(root, src[root], reg, src)
		if err != nil {
			return nil, err
		}
		f.Path = path
		return f, nil
	}
	return parse(path, text, reg, noSource{})
}

func parse(path string, text []byte, reg *simcore.Registry, src source) (*File, error) {
	st := &suite{src: src, order: []string{path}, texts: map[string][]byte{path: text}, stack: []string{path}}
	p := &parser{Nodes: Nodes{File: path}, reg: reg, text: text, suite: st}
	f := &File{Path: path, Text: text}
	root := p.document(text)
	if root != nil {
		f.Sweeps = p.top(root)
	}
	if len(p.Errs) > 0 {
		return nil, p.Errs
	}
	if len(st.order) > 1 {
		f.Included = slices.Clone(st.order[1:])
		b, err := packBundle(path, st.order, st.texts)
		if err != nil {
			return nil, err
		}
		f.Text = b
	}
	return f, nil
}

// parser walks the YAML node tree and collects errors.
type parser struct {
	Nodes
	reg      *simcore.Registry
	text     []byte
	lines    []string
	overflow bool // tooBig has reported
	vals     int  // axis values generated so far, against maxFileValues
	suite    *suite
}

// spend accounts for n more axis values, reporting at n's node when the
// file as a whole generates too many.
func (p *parser) spend(n int, at *yaml.Node, key string) bool {
	p.vals += n
	if p.vals > maxFileValues {
		p.Errf(at, key, "", "the file's axes hold more than %d values in all", maxFileValues)
		p.vals = math.MinInt / 2 // report once
		return false
	}
	return true
}

var yamlLineRE = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// document decodes the single YAML document of text.
func (p *parser) document(text []byte) *yaml.Node {
	dec := yaml.NewDecoder(bytes.NewReader(text))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			p.ErrAt(1, 1, "", "", "empty file: want a sweep mapping or a \"sweeps\" list")
		} else {
			p.syntaxError(err)
		}
		return nil
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		p.Errf(&extra, "", "put several sweeps under a \"sweeps\" list", "a sweep file holds one YAML document")
	} else if !errors.Is(err, io.EOF) {
		p.syntaxError(err)
	}
	if len(doc.Content) == 0 {
		p.ErrAt(1, 1, "", "", "empty file: want a sweep mapping or a \"sweeps\" list")
		return nil
	}
	return doc.Content[0]
}

func (p *parser) syntaxError(err error) {
	msg := err.Error()
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		p.ErrAt(line, 0, "", "", "YAML syntax: %s", m[2])
		return
	}
	p.ErrAt(1, 0, "", "", "YAML syntax: %s", strings.TrimPrefix(msg, "yaml: "))
}

func (p *parser) tooBig(n *yaml.Node) bool {
	if p.visited <= maxNodes {
		return false
	}
	if !p.overflow {
		p.Errf(n, "", "", "file too large after alias expansion (more than %d nodes)", maxNodes)
		p.overflow = true
	}
	return true
}

// top parses the top-level mapping: one sweep, or a "sweeps" list.
func (p *parser) top(root *yaml.Node) []*Sweep {
	root = p.Resolve(root)
	if root.Kind != yaml.MappingNode {
		p.Errf(root, "", "", "want a sweep mapping or a \"sweeps\" list, got %s", Describe(root))
		return nil
	}
	var list, inc *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		if k := p.Resolve(root.Content[i]); k.Kind == yaml.ScalarNode {
			switch k.Value {
			case "sweeps":
				list = root.Content[i+1]
			case "include":
				inc = root.Content[i+1]
			}
		}
	}
	if list == nil && inc == nil {
		s := p.sweep(root, "", []string{"sweeps", "include"})
		if s == nil {
			return nil
		}
		return []*Sweep{s}
	}
	if _, ok := p.Mapping(root, "", []string{"sweeps", "include", extKeys}, nil); !ok {
		return nil
	}
	var out []*Sweep
	if inc != nil {
		out = append(out, p.includes(inc)...)
	}
	if list != nil {
		items, ok := p.Sequence(list, "sweeps")
		if !ok {
			return nil
		}
		if len(items) == 0 {
			p.Errf(list, "sweeps", "", "empty list: want at least one sweep")
		}
		for i, it := range items {
			if s := p.sweep(it, Index("sweeps", i), nil); s != nil {
				out = append(out, s)
			}
		}
	}
	// Sweep names become result folders: unique across the whole suite.
	names := map[string]*Sweep{}
	kept := out[:0]
	for _, s := range out {
		if first, dup := names[s.Name]; dup {
			where := fmt.Sprintf("line %d", first.Line)
			if first.File != s.File {
				where = fmt.Sprintf("%s:%d", first.File, first.Line)
			}
			p.Errs = append(p.Errs, &Error{File: s.File, Line: s.Line, Col: s.Col, Key: s.Name,
				Hint: "sweep names become result folders; rename one", Msg: fmt.Sprintf("duplicate sweep name (first at %s)", where)})
			continue
		}
		names[s.Name] = s
		kept = append(kept, s)
	}
	return kept
}

// origin records where a parameter is set, to report a second setting.
type origin struct {
	line int
	what string
}

// sweep parses one sweep mapping. It returns nil when the sweep has errors
// (which are recorded).
func (p *parser) sweep(n *yaml.Node, key string, suggest []string) *Sweep {
	n = p.Resolve(n)
	before := len(p.Errs)
	pairs, ok := p.Mapping(n, key, sweepKeys, suggest)
	if !ok {
		return nil
	}
	s := &Sweep{File: p.File, Line: n.Line, Col: n.Column, Replicates: 1, key: key}
	get := map[string]Pair{}
	for _, kv := range pairs {
		get[kv.Name] = kv
	}
	if kv, ok := get["name"]; ok {
		if name, ok := p.Str(kv.V, Join(key, "name")); ok {
			if !sweepNameRE.MatchString(name) || len(name) > 64 {
				p.Errf(p.Resolve(kv.V), Join(key, "name"), "use lower-case letters, digits, '_' and '-' only",
					"bad sweep name %q: it becomes a results folder name", name)
			} else {
				s.Name, s.key = name, name
			}
		}
	} else {
		p.Errf(n, key, "", "missing required key \"name\"")
	}
	if kv, ok := get["doc"]; ok {
		s.Doc, _ = p.Str(kv.V, Join(s.key, "doc"))
	}
	if kv, ok := get["seed"]; ok {
		v := p.Resolve(kv.V)
		var u uint64
		if v.Kind != yaml.ScalarNode || v.ShortTag() != "!!int" || v.Decode(&u) != nil {
			p.Errf(v, Join(s.key, "seed"), "", "want an unsigned 64-bit integer master seed, got %s", Describe(v))
		}
		s.Seed = u
	} else {
		p.Errf(n, s.key, "any fixed integer, e.g. the paper's year and month", "missing required key \"seed\" (the master seed)")
	}
	if kv, ok := get["replicates"]; ok {
		p.replicates(s, kv.V, Join(s.key, "replicates"))
	}
	if kv, ok := get["figures"]; ok {
		s.Figures = kv.V
	}
	if kv, ok := get["claims"]; ok {
		s.Claims = kv.V
	}
	if kv, ok := get["verify"]; ok {
		s.Verify = kv.V
	}
	if kv, ok := get["calibrated"]; ok {
		s.Calibrated = kv.V
	}
	if kv, ok := get["sensitivity"]; ok {
		s.Sensitivity = kv.V
	}
	kv, ok := get["model"]
	if !ok {
		p.Errf(n, s.key, "one of: "+strings.Join(p.reg.Names(), ", "), "missing required key \"model\"")
		return nil
	}
	name, ok := p.Str(kv.V, Join(s.key, "model"))
	if !ok {
		return nil
	}
	m, ok := p.reg.Lookup(name)
	if !ok {
		hint := didYouMean(name, p.reg.Names())
		if hint == "" {
			hint = "known models: " + strings.Join(p.reg.Names(), ", ")
		}
		p.Errf(p.Resolve(kv.V), Join(s.key, "model"), hint, "unknown model %q", name)
		return nil
	}
	s.Model, s.model, s.schema = name, m, m.Schema()
	s.fixed = make([]any, len(s.schema.Params))
	s.setAt = make([]int, len(s.schema.Params))
	s.defs = make([]any, len(s.schema.Params))
	for i, prm := range s.schema.Params {
		if prm.Default != nil {
			if v, err := prm.Check(prm.Default); err == nil {
				s.defs[i] = v
			} else {
				p.Errf(n, s.key, "", "model %q: default of parameter %q: %v", name, prm.Name, err)
			}
		}
	}

	scope := map[int]origin{}
	if kv, ok := get["params"]; ok {
		p.params(s, kv.V, Join(s.key, "params"), scope)
	}
	if kv, ok := get["axes"]; ok {
		s.axes = p.axes(s, kv.V, Join(s.key, "axes"), scope, 0)
	}
	if kv, ok := get["derive"]; ok {
		p.derive(s, kv.V, Join(s.key, "derive"), scope)
	}
	if kv, ok := get["exclude"]; ok {
		p.exclusions(s, kv.V, Join(s.key, "exclude"))
	}
	for i, prm := range s.schema.Params {
		if _, set := scope[i]; !set && s.defs[i] == nil && prm.Default == nil {
			p.Errf(n, s.key, "set it under params, as an axis or under derive",
				"parameter %q of model %q is required (%s)", prm.Name, s.Model, prm.Doc)
		}
	}
	if len(p.Errs) > before {
		return nil
	}
	return s
}

// param looks up a parameter name of the sweep's model, reporting an
// unknown one with the closest declared name.
// replicates reads replicates: N (a fixed count) or replicates: {min: M,
// max: X} (adaptive: M per point to start with, at most X).
func (p *parser) replicates(s *Sweep, n *yaml.Node, key string) {
	n = p.Resolve(n)
	if n.Kind != yaml.MappingNode {
		if r, ok := p.Integer(n, key); ok {
			if r < 1 || r > maxReplicates {
				p.Errf(n, key, "", "replicates must be between 1 and %d, got %d", maxReplicates, r)
			} else {
				s.Replicates = int(r)
			}
		}
		return
	}
	pairs, ok := p.Mapping(n, key, []string{"min", "max"}, nil)
	if !ok {
		return
	}
	got := map[string]int64{}
	for _, kv := range pairs {
		name := kv.Name
		if r, ok := p.Integer(kv.V, Join(key, name)); ok {
			if r < 1 || r > maxReplicates {
				p.Errf(p.Resolve(kv.V), Join(key, name), "", "replicates %s must be between 1 and %d, got %d", name, maxReplicates, r)
				continue
			}
			got[name] = r
		}
	}
	lo, okLo := got["min"]
	hi, okHi := got["max"]
	switch {
	case !okLo || !okHi:
		if len(got) == len(pairs) { // each key given was valid: one is missing
			p.Errf(n, key, "e.g. replicates: {min: 20, max: 320}", "adaptive replicates need both min and max")
		}
	case hi < lo:
		p.Errf(n, key, "swap them, or give a fixed count: replicates: N", "replicates max (%d) is below min (%d)", hi, lo)
	case hi == lo:
		s.Replicates = int(lo) // a fixed count written as a range
	default:
		s.Replicates, s.MaxReplicates = int(lo), int(hi)
	}
}

func (p *parser) param(s *Sweep, k *yaml.Node, key string) (int, bool) {
	for i, prm := range s.schema.Params {
		if prm.Name == k.Value {
			return i, true
		}
	}
	names := make([]string, len(s.schema.Params))
	for i, prm := range s.schema.Params {
		names[i] = prm.Name
	}
	hint := didYouMean(k.Value, names)
	if hint == "" {
		hint = "parameters: " + strings.Join(names, ", ")
	}
	p.Errf(k, key, hint, "unknown parameter %q of model %q", k.Value, s.Model)
	return 0, false
}

// declare records that slot is set at k, unless it is already set in scope.
func (p *parser) declare(s *Sweep, scope map[int]origin, slot int, k *yaml.Node, key, what string) bool {
	if o, dup := scope[slot]; dup {
		p.Errf(k, key, "a parameter is set in one place only: params, one axis, or derive",
			"parameter %q is set twice: here (%s) and at line %d (%s)", s.schema.Params[slot].Name, what, o.line, o.what)
		return false
	}
	scope[slot] = origin{line: k.Line, what: what}
	if s.setAt[slot] == 0 {
		s.setAt[slot] = k.Line
	}
	return true
}

// value checks one YAML value against a parameter declaration.
func (p *parser) value(s *Sweep, slot int, n *yaml.Node, key string) (any, bool) {
	n = p.Resolve(n)
	prm := s.schema.Params[slot]
	raw, ok := p.Scalar(n, key)
	if !ok {
		return nil, false
	}
	v, err := prm.Check(raw)
	if err != nil {
		hint := ""
		if str, isStr := raw.(string); isStr && len(prm.Enum) > 0 {
			hint = didYouMean(str, prm.Enum)
		}
		if raw == nil {
			p.Errf(n, key, hint, "parameter %q: want %s, got nothing (null)", prm.Name, prm.Kind)
		} else if _, isStr := raw.(string); isStr && prm.Kind != simcore.String {
			p.Errf(n, key, hint, "parameter %q: want %s, got the string %q", prm.Name, prm.Kind, raw)
		} else {
			p.Errf(n, key, hint, "parameter %q: %v", prm.Name, err)
		}
		return nil, false
	}
	return v, true
}

// params parses the fixed parameters.
func (p *parser) params(s *Sweep, n *yaml.Node, key string, scope map[int]origin) {
	pairs, ok := p.Mapping(n, key, nil, nil)
	if !ok {
		return
	}
	for _, kv := range pairs {
		k := Join(key, kv.Name)
		slot, ok := p.param(s, kv.K, k)
		if !ok {
			continue
		}
		if v := p.Resolve(kv.V); v.Kind == yaml.SequenceNode || v.Kind == yaml.MappingNode {
			p.Errf(v, k, "to sweep it, make it an axis", "a fixed parameter takes one value, got %s", Describe(v))
			continue
		}
		if !p.declare(s, scope, slot, kv.K, k, "params") {
			continue
		}
		if v, ok := p.value(s, slot, kv.V, k); ok {
			s.fixed[slot] = v
		}
	}
}
