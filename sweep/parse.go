package sweep

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
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

// ModelVersion returns the version of the sweep's model, part of every job ID.
func (s *Sweep) ModelVersion() string { return s.model.Version() }

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
	text, err := os.ReadFile(path)
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
	p := &parser{file: path, reg: reg, text: text, suite: st}
	f := &File{Path: path, Text: text}
	root := p.document(text)
	if root != nil {
		f.Sweeps = p.top(root)
	}
	if len(p.errs) > 0 {
		return nil, p.errs
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
	file     string
	reg      *simcore.Registry
	text     []byte
	lines    []string
	errs     ErrorList
	nodes    int
	overflow bool // tooBig has reported
	vals     int  // axis values generated so far, against maxFileValues
	suite    *suite
}

// spend accounts for n more axis values, reporting at n's node when the
// file as a whole generates too many.
func (p *parser) spend(n int, at *yaml.Node, key string) bool {
	p.vals += n
	if p.vals > maxFileValues {
		p.errf(at, key, "", "the file's axes hold more than %d values in all", maxFileValues)
		p.vals = math.MinInt / 2 // report once
		return false
	}
	return true
}

func (p *parser) errAt(line, col int, key, hint, format string, args ...any) {
	p.errs = append(p.errs, &Error{File: p.file, Line: line, Col: col, Key: key, Msg: fmt.Sprintf(format, args...), Hint: hint})
}

func (p *parser) errf(n *yaml.Node, key, hint, format string, args ...any) {
	p.errAt(n.Line, n.Column, key, hint, format, args...)
}

var yamlLineRE = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// document decodes the single YAML document of text.
func (p *parser) document(text []byte) *yaml.Node {
	dec := yaml.NewDecoder(bytes.NewReader(text))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			p.errAt(1, 1, "", "", "empty file: want a sweep mapping or a \"sweeps\" list")
		} else {
			p.syntaxError(err)
		}
		return nil
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		p.errf(&extra, "", "put several sweeps under a \"sweeps\" list", "a sweep file holds one YAML document")
	} else if !errors.Is(err, io.EOF) {
		p.syntaxError(err)
	}
	if len(doc.Content) == 0 {
		p.errAt(1, 1, "", "", "empty file: want a sweep mapping or a \"sweeps\" list")
		return nil
	}
	return doc.Content[0]
}

func (p *parser) syntaxError(err error) {
	msg := err.Error()
	if m := yamlLineRE.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		p.errAt(line, 0, "", "", "YAML syntax: %s", m[2])
		return
	}
	p.errAt(1, 0, "", "", "YAML syntax: %s", strings.TrimPrefix(msg, "yaml: "))
}

// resolve follows aliases and counts visited nodes, so that an alias bomb
// stops with an error instead of a very long walk.
func (p *parser) resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 100; i++ {
		n = n.Alias
	}
	p.nodes++
	return n
}

func (p *parser) tooBig(n *yaml.Node) bool {
	if p.nodes <= maxNodes {
		return false
	}
	if !p.overflow {
		p.errf(n, "", "", "file too large after alias expansion (more than %d nodes)", maxNodes)
		p.overflow = true
	}
	return true
}

// describe names what a node is, for "want X, got Y" errors.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!int":
			return "the integer " + n.Value
		case "!!float":
			return "the float " + n.Value
		case "!!bool":
			return "the bool " + n.Value
		case "!!null":
			return "nothing (null)"
		case "!!str":
			return "the string " + strconv.Quote(n.Value)
		}
		return fmt.Sprintf("a %s value", n.ShortTag())
	}
	return "an unknown node"
}

// pair is one entry of a YAML mapping.
type pair struct {
	name string
	k, v *yaml.Node
}

// mapping returns the entries of a mapping node after checking that it is
// one, that no key repeats and, when allowed is not nil, that every key is
// allowed. Merge keys ("<<: *anchor") are expanded; explicit keys win.
func (p *parser) mapping(n *yaml.Node, key string, allowed, suggest []string) ([]pair, bool) {
	n = p.resolve(n)
	if n.Kind != yaml.MappingNode {
		p.errf(n, key, "", "want a mapping, got %s", describe(n))
		return nil, false
	}
	var out []pair
	seen := map[string]*yaml.Node{}
	var merged []pair
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := p.resolve(n.Content[i]), n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge" {
			merged = append(merged, p.mergePairs(v, key)...)
			continue
		}
		if k.Kind != yaml.ScalarNode {
			p.errf(k, key, "", "want a key, got %s", describe(k))
			continue
		}
		if first, dup := seen[k.Value]; dup {
			p.errf(k, join(key, k.Value), "", "key given twice (first at line %d)", first.Line)
			continue
		}
		seen[k.Value] = k
		if slices.Contains(allowed, extKeys) && strings.HasPrefix(k.Value, "x-") {
			continue
		}
		if allowed != nil && !slices.Contains(allowed, k.Value) {
			valid := slices.DeleteFunc(slices.Clone(allowed), func(s string) bool { return s == extKeys })
			p.errf(k, join(key, k.Value), didYouMean(k.Value, append(slices.Clone(valid), suggest...)),
				"unknown key %q (want one of %s)", k.Value, strings.Join(valid, ", "))
			continue
		}
		out = append(out, pair{k.Value, k, v})
	}
	for _, m := range merged {
		if _, ok := seen[m.name]; ok || slices.Contains(allowed, extKeys) && strings.HasPrefix(m.name, "x-") {
			continue
		}
		seen[m.name] = m.k
		if allowed != nil && !slices.Contains(allowed, m.name) {
			p.errf(m.k, join(key, m.name), didYouMean(m.name, allowed), "unknown key %q (merged from line %d)", m.name, m.k.Line)
			continue
		}
		out = append(out, m)
	}
	return out, true
}

func (p *parser) mergePairs(v *yaml.Node, key string) []pair {
	v = p.resolve(v)
	var srcs []*yaml.Node
	switch v.Kind {
	case yaml.MappingNode:
		srcs = []*yaml.Node{v}
	case yaml.SequenceNode:
		srcs = v.Content
	default:
		p.errf(v, key, "", "a merge key (<<) wants a mapping or a list of mappings, got %s", describe(v))
		return nil
	}
	var out []pair
	seen := map[string]bool{}
	for _, s := range srcs {
		s = p.resolve(s)
		if s.Kind != yaml.MappingNode {
			p.errf(s, key, "", "a merge key (<<) wants a mapping, got %s", describe(s))
			continue
		}
		for i := 0; i+1 < len(s.Content); i += 2 {
			k := p.resolve(s.Content[i])
			if k.Kind != yaml.ScalarNode || k.ShortTag() == "!!merge" || seen[k.Value] {
				continue
			}
			seen[k.Value] = true
			out = append(out, pair{k.Value, k, s.Content[i+1]})
		}
	}
	return out
}

func join(key, sub string) string {
	if key == "" {
		return sub
	}
	return key + "." + sub
}

func index(key string, i int) string { return fmt.Sprintf("%s[%d]", key, i) }

// sequence returns the items of a list node.
func (p *parser) sequence(n *yaml.Node, key string) ([]*yaml.Node, bool) {
	n = p.resolve(n)
	if n.Kind != yaml.SequenceNode {
		p.errf(n, key, "", "want a list, got %s", describe(n))
		return nil, false
	}
	return n.Content, true
}

// scalar decodes a scalar node into int64, float64, string, bool or nil.
func (p *parser) scalar(n *yaml.Node, key string) (any, bool) {
	n = p.resolve(n)
	if n.Kind != yaml.ScalarNode {
		p.errf(n, key, "", "want a single value, got %s", describe(n))
		return nil, false
	}
	switch n.ShortTag() {
	case "!!str":
		return n.Value, true
	case "!!null":
		return nil, true
	case "!!bool":
		var b bool
		if err := n.Decode(&b); err == nil {
			return b, true
		}
	case "!!int":
		var i int64
		if err := n.Decode(&i); err == nil {
			return i, true
		}
		p.errf(n, key, "", "integer %s out of range", n.Value)
		return nil, false
	case "!!float":
		var f float64
		if err := n.Decode(&f); err == nil {
			return f, true
		}
	}
	p.errf(n, key, "quote it to make it a string", "unsupported value %s (%s)", n.Value, n.ShortTag())
	return nil, false
}

func (p *parser) str(n *yaml.Node, key string) (string, bool) {
	n = p.resolve(n)
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" {
		p.errf(n, key, "", "want a string, got %s", describe(n))
		return "", false
	}
	return n.Value, true
}

func (p *parser) integer(n *yaml.Node, key string) (int64, bool) {
	n = p.resolve(n)
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!int" {
		var i int64
		if err := n.Decode(&i); err == nil {
			return i, true
		}
	}
	p.errf(n, key, "", "want an integer, got %s", describe(n))
	return 0, false
}

func (p *parser) number(n *yaml.Node, key string) (float64, bool) {
	n = p.resolve(n)
	if n.Kind == yaml.ScalarNode && (n.ShortTag() == "!!int" || n.ShortTag() == "!!float") {
		var f float64
		if err := n.Decode(&f); err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
			return f, true
		}
	}
	p.errf(n, key, "", "want a finite number, got %s", describe(n))
	return 0, false
}

// top parses the top-level mapping: one sweep, or a "sweeps" list.
func (p *parser) top(root *yaml.Node) []*Sweep {
	root = p.resolve(root)
	if root.Kind != yaml.MappingNode {
		p.errf(root, "", "", "want a sweep mapping or a \"sweeps\" list, got %s", describe(root))
		return nil
	}
	var list, inc *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		if k := p.resolve(root.Content[i]); k.Kind == yaml.ScalarNode {
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
	if _, ok := p.mapping(root, "", []string{"sweeps", "include", extKeys}, nil); !ok {
		return nil
	}
	var out []*Sweep
	if inc != nil {
		out = append(out, p.includes(inc)...)
	}
	if list != nil {
		items, ok := p.sequence(list, "sweeps")
		if !ok {
			return nil
		}
		if len(items) == 0 {
			p.errf(list, "sweeps", "", "empty list: want at least one sweep")
		}
		for i, it := range items {
			if s := p.sweep(it, index("sweeps", i), nil); s != nil {
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
			p.errs = append(p.errs, &Error{File: s.File, Line: s.Line, Col: s.Col, Key: s.Name,
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
	n = p.resolve(n)
	before := len(p.errs)
	pairs, ok := p.mapping(n, key, sweepKeys, suggest)
	if !ok {
		return nil
	}
	s := &Sweep{File: p.file, Line: n.Line, Col: n.Column, Replicates: 1, key: key}
	get := map[string]pair{}
	for _, kv := range pairs {
		get[kv.name] = kv
	}
	if kv, ok := get["name"]; ok {
		if name, ok := p.str(kv.v, join(key, "name")); ok {
			if !sweepNameRE.MatchString(name) || len(name) > 64 {
				p.errf(p.resolve(kv.v), join(key, "name"), "use lower-case letters, digits, '_' and '-' only",
					"bad sweep name %q: it becomes a results folder name", name)
			} else {
				s.Name, s.key = name, name
			}
		}
	} else {
		p.errf(n, key, "", "missing required key \"name\"")
	}
	if kv, ok := get["doc"]; ok {
		s.Doc, _ = p.str(kv.v, join(s.key, "doc"))
	}
	if kv, ok := get["seed"]; ok {
		v := p.resolve(kv.v)
		var u uint64
		if v.Kind != yaml.ScalarNode || v.ShortTag() != "!!int" || v.Decode(&u) != nil {
			p.errf(v, join(s.key, "seed"), "", "want an unsigned 64-bit integer master seed, got %s", describe(v))
		}
		s.Seed = u
	} else {
		p.errf(n, s.key, "any fixed integer, e.g. the paper's year and month", "missing required key \"seed\" (the master seed)")
	}
	if kv, ok := get["replicates"]; ok {
		p.replicates(s, kv.v, join(s.key, "replicates"))
	}
	if kv, ok := get["figures"]; ok {
		s.Figures = kv.v
	}
	if kv, ok := get["claims"]; ok {
		s.Claims = kv.v
	}
	if kv, ok := get["verify"]; ok {
		s.Verify = kv.v
	}
	if kv, ok := get["calibrated"]; ok {
		s.Calibrated = kv.v
	}
	if kv, ok := get["sensitivity"]; ok {
		s.Sensitivity = kv.v
	}
	kv, ok := get["model"]
	if !ok {
		p.errf(n, s.key, "one of: "+strings.Join(p.reg.Names(), ", "), "missing required key \"model\"")
		return nil
	}
	name, ok := p.str(kv.v, join(s.key, "model"))
	if !ok {
		return nil
	}
	m, ok := p.reg.Lookup(name)
	if !ok {
		hint := didYouMean(name, p.reg.Names())
		if hint == "" {
			hint = "known models: " + strings.Join(p.reg.Names(), ", ")
		}
		p.errf(p.resolve(kv.v), join(s.key, "model"), hint, "unknown model %q", name)
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
				p.errf(n, s.key, "", "model %q: default of parameter %q: %v", name, prm.Name, err)
			}
		}
	}

	scope := map[int]origin{}
	if kv, ok := get["params"]; ok {
		p.params(s, kv.v, join(s.key, "params"), scope)
	}
	if kv, ok := get["axes"]; ok {
		s.axes = p.axes(s, kv.v, join(s.key, "axes"), scope, 0)
	}
	if kv, ok := get["derive"]; ok {
		p.derive(s, kv.v, join(s.key, "derive"), scope)
	}
	if kv, ok := get["exclude"]; ok {
		p.exclusions(s, kv.v, join(s.key, "exclude"))
	}
	for i, prm := range s.schema.Params {
		if _, set := scope[i]; !set && s.defs[i] == nil && prm.Default == nil {
			p.errf(n, s.key, "set it under params, as an axis or under derive",
				"parameter %q of model %q is required (%s)", prm.Name, s.Model, prm.Doc)
		}
	}
	if len(p.errs) > before {
		return nil
	}
	return s
}

// param looks up a parameter name of the sweep's model, reporting an
// unknown one with the closest declared name.
// replicates reads replicates: N (a fixed count) or replicates: {min: M,
// max: X} (adaptive: M per point to start with, at most X).
func (p *parser) replicates(s *Sweep, n *yaml.Node, key string) {
	n = p.resolve(n)
	if n.Kind != yaml.MappingNode {
		if r, ok := p.integer(n, key); ok {
			if r < 1 || r > maxReplicates {
				p.errf(n, key, "", "replicates must be between 1 and %d, got %d", maxReplicates, r)
			} else {
				s.Replicates = int(r)
			}
		}
		return
	}
	pairs, ok := p.mapping(n, key, []string{"min", "max"}, nil)
	if !ok {
		return
	}
	got := map[string]int64{}
	for _, kv := range pairs {
		name := kv.name
		if r, ok := p.integer(kv.v, join(key, name)); ok {
			if r < 1 || r > maxReplicates {
				p.errf(p.resolve(kv.v), join(key, name), "", "replicates %s must be between 1 and %d, got %d", name, maxReplicates, r)
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
			p.errf(n, key, "e.g. replicates: {min: 20, max: 320}", "adaptive replicates need both min and max")
		}
	case hi < lo:
		p.errf(n, key, "swap them, or give a fixed count: replicates: N", "replicates max (%d) is below min (%d)", hi, lo)
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
	p.errf(k, key, hint, "unknown parameter %q of model %q", k.Value, s.Model)
	return 0, false
}

// declare records that slot is set at k, unless it is already set in scope.
func (p *parser) declare(s *Sweep, scope map[int]origin, slot int, k *yaml.Node, key, what string) bool {
	if o, dup := scope[slot]; dup {
		p.errf(k, key, "a parameter is set in one place only: params, one axis, or derive",
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
	n = p.resolve(n)
	prm := s.schema.Params[slot]
	raw, ok := p.scalar(n, key)
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
			p.errf(n, key, hint, "parameter %q: want %s, got nothing (null)", prm.Name, prm.Kind)
		} else if _, isStr := raw.(string); isStr && prm.Kind != simcore.String {
			p.errf(n, key, hint, "parameter %q: want %s, got the string %q", prm.Name, prm.Kind, raw)
		} else {
			p.errf(n, key, hint, "parameter %q: %v", prm.Name, err)
		}
		return nil, false
	}
	return v, true
}

// params parses the fixed parameters.
func (p *parser) params(s *Sweep, n *yaml.Node, key string, scope map[int]origin) {
	pairs, ok := p.mapping(n, key, nil, nil)
	if !ok {
		return
	}
	for _, kv := range pairs {
		k := join(key, kv.name)
		slot, ok := p.param(s, kv.k, k)
		if !ok {
			continue
		}
		if v := p.resolve(kv.v); v.Kind == yaml.SequenceNode || v.Kind == yaml.MappingNode {
			p.errf(v, k, "to sweep it, make it an axis", "a fixed parameter takes one value, got %s", describe(v))
			continue
		}
		if !p.declare(s, scope, slot, kv.k, k, "params") {
			continue
		}
		if v, ok := p.value(s, slot, kv.v, k); ok {
			s.fixed[slot] = v
		}
	}
}

// axes parses a list of axes (the top-level one or a "when" branch).
func (p *parser) axes(s *Sweep, n *yaml.Node, key string, scope map[int]origin, depth int) []*axis {
	items, ok := p.sequence(n, key)
	if !ok {
		return nil
	}
	if len(items) == 0 {
		p.errf(p.resolve(n), key, "remove the key or add an axis", "empty list of axes")
		return nil
	}
	var out []*axis
	for i, it := range items {
		if p.tooBig(it) {
			return nil
		}
		if a := p.axis(s, it, index(key, i), scope, depth); a != nil {
			out = append(out, a)
		}
	}
	return out
}

// axis parses one axis: {name, values|range, when} or {zip}.
func (p *parser) axis(s *Sweep, n *yaml.Node, key string, scope map[int]origin, depth int) *axis {
	n = p.resolve(n)
	before := len(p.errs)
	pairs, ok := p.mapping(n, key, axisKeys, nil)
	if !ok || len(p.errs) > before {
		// A misspelt key would also show up as a missing one.
		return nil
	}
	get := map[string]pair{}
	for _, kv := range pairs {
		get[kv.name] = kv
	}
	a := &axis{key: key, line: n.Line, col: n.Column}
	if z, ok := get["zip"]; ok {
		for _, other := range []string{"name", "values", "range", "when"} {
			if kv, ok := get[other]; ok {
				p.errf(kv.k, join(key, other), "put each zipped parameter's list under zip", "%q cannot be combined with \"zip\"", other)
				return nil
			}
		}
		return p.zip(s, a, z, key, scope)
	}
	kv, ok := get["name"]
	if !ok {
		p.errf(n, key, "", "missing required key \"name\" (or \"zip\")")
		return nil
	}
	pname, ok := p.str(kv.v, join(key, "name"))
	if !ok {
		return nil
	}
	nameNode := p.resolve(kv.v)
	slot, ok := p.param(s, nameNode, join(key, "name"))
	if !ok {
		return nil
	}
	a.key = join(key, pname)
	a.names, a.slots = []string{pname}, []int{slot}
	declared := p.declare(s, scope, slot, nameNode, a.key, "axis")
	vals, hasVals := get["values"]
	rng, hasRange := get["range"]
	var points []any
	switch {
	case hasVals && hasRange:
		p.errf(rng.k, join(a.key, "range"), "", "an axis has either \"values\" or \"range\", not both")
		return nil
	case hasVals:
		points, ok = p.values(s, slot, vals.v, join(a.key, "values"))
	case hasRange:
		points, ok = p.rangeValues(s, slot, rng.v, join(a.key, "range"))
	default:
		p.errf(n, a.key, "", "missing \"values\" or \"range\"")
		return nil
	}
	if !ok || !declared {
		return nil
	}
	for _, v := range points {
		a.points = append(a.points, []any{v})
	}
	if w, ok := get["when"]; ok {
		if !p.when(s, a, w.v, join(a.key, "when"), scope, depth) {
			return nil
		}
	}
	return a
}

// values parses an explicit list of values.
func (p *parser) values(s *Sweep, slot int, n *yaml.Node, key string) ([]any, bool) {
	items, ok := p.sequence(n, key)
	if !ok {
		return nil, false
	}
	if len(items) == 0 {
		p.errf(p.resolve(n), key, "", "empty list: an axis needs at least one value")
		return nil, false
	}
	if len(items) > maxAxisPoints {
		p.errf(p.resolve(n), key, "", "%d values: at most %d per axis", len(items), maxAxisPoints)
		return nil, false
	}
	if !p.spend(len(items), p.resolve(n), key) {
		return nil, false
	}
	out := make([]any, 0, len(items))
	good := true
	for i, it := range items {
		v, ok := p.value(s, slot, it, index(key, i))
		good = good && ok
		out = append(out, v)
	}
	return out, good
}

// zip parses a zip axis: parameter name → list (or range), equal lengths.
func (p *parser) zip(s *Sweep, a *axis, z pair, key string, scope map[int]origin) *axis {
	zkey := join(key, "zip")
	pairs, ok := p.mapping(z.v, zkey, nil, nil)
	if !ok {
		return nil
	}
	if len(pairs) == 0 {
		p.errf(p.resolve(z.v), zkey, "", "empty zip: want parameter: [values] entries")
		return nil
	}
	var cols [][]any
	var lines []int
	good := true
	for _, kv := range pairs {
		k := join(zkey, kv.name)
		slot, ok := p.param(s, kv.k, k)
		if !ok {
			good = false
			continue
		}
		if !p.declare(s, scope, slot, kv.k, k, "zip axis") {
			good = false
			continue
		}
		var col []any
		if v := p.resolve(kv.v); v.Kind == yaml.MappingNode {
			col, ok = p.rangeValues(s, slot, v, k)
		} else {
			col, ok = p.values(s, slot, v, k)
		}
		if !ok {
			good = false
			continue
		}
		a.names = append(a.names, kv.name)
		a.slots = append(a.slots, slot)
		cols = append(cols, col)
		lines = append(lines, kv.k.Line)
	}
	if !good {
		return nil
	}
	for j := 1; j < len(cols); j++ {
		if len(cols[j]) != len(cols[0]) {
			p.errf(p.resolve(z.v), zkey, "zipped lists vary together and need equal lengths",
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
		p.errf(p.resolve(n), key, "", "\"when\" nested more than %d deep", maxWhenDepth)
		return false
	}
	pairs, ok := p.mapping(n, key, nil, nil)
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
		if p.tooBig(kv.k) {
			return false
		}
		k := join(key, kv.name)
		v, ok := p.value(s, a.slots[0], kv.k, k)
		if !ok {
			good = false
			continue
		}
		i := slices.Index(labels, label(v))
		if i < 0 {
			p.errf(kv.k, k, didYouMean(kv.name, labels), "%s is not a value of this axis (%s)", kv.name, strings.Join(labels, ", "))
			good = false
			continue
		}
		branch := make(map[int]origin, len(scope))
		for sl, o := range scope {
			branch[sl] = o
		}
		before := len(p.errs)
		a.when[i] = p.axes(s, kv.v, k, branch, depth+1)
		if len(p.errs) > before {
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
// evaluated after those it reads.
func (p *parser) derive(s *Sweep, n *yaml.Node, key string, scope map[int]origin) {
	pairs, ok := p.mapping(n, key, nil, nil)
	if !ok {
		return
	}
	env := &exprEnv{schema: &s.schema, funcs: exprFuncs()}
	var ds []*derivation
	for _, kv := range pairs {
		k := join(key, kv.name)
		slot, ok := p.param(s, kv.k, k)
		if !ok {
			continue
		}
		if !p.declare(s, scope, slot, kv.k, k, "derive") {
			continue
		}
		v := p.resolve(kv.v)
		if v.Kind != yaml.ScalarNode || v.ShortTag() == "!!null" {
			p.errf(v, k, "", "want an expression, got %s", describe(v))
			continue
		}
		d := &derivation{key: k, line: kv.k.Line, col: kv.k.Column, name: kv.name, slot: slot, src: v.Value}
		expr, err := compileExpr(v.Value, env)
		if err != nil {
			var ee *exprError
			errors.As(err, &ee)
			line, col, exact := p.exprPos(v, ee.pos)
			msg := ee.msg
			if !exact {
				msg += fmt.Sprintf(" (column %d of the expression)", ee.pos+1)
			}
			p.errAt(line, col, k, ee.hint, "%s in %q", msg, v.Value)
			continue
		}
		prm := s.schema.Params[slot]
		if want := typeOfKind(prm.Kind); expr.typ != want {
			p.errf(v, k, "", "expression gives a %s, parameter %q is %s", expr.typ, prm.Name, prm.Kind)
			continue
		}
		d.expr = expr
		d.deps = expr.refs(nil)
		ds = append(ds, d)
	}
	s.derived = p.order(ds)
}

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
			p.errAt(d.line, d.col, d.key, "a derived parameter cannot depend on itself",
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

// exclusions parses the exclude list.
func (p *parser) exclusions(s *Sweep, n *yaml.Node, key string) {
	items, ok := p.sequence(n, key)
	if !ok {
		return
	}
	for i, it := range items {
		k := index(key, i)
		it = p.resolve(it)
		pairs, ok := p.mapping(it, k, nil, nil)
		if !ok {
			continue
		}
		if len(pairs) == 0 {
			p.errf(it, k, "", "empty exclusion would drop every job")
			continue
		}
		e := &exclusion{key: k, line: it.Line, col: it.Column}
		good := true
		for _, kv := range pairs {
			slot, ok := p.param(s, kv.k, join(k, kv.name))
			if !ok {
				good = false
				continue
			}
			v, ok := p.value(s, slot, kv.v, join(k, kv.name))
			if !ok {
				good = false
				continue
			}
			e.slots = append(e.slots, slot)
			e.vals = append(e.vals, v)
		}
		if good {
			s.exclude = append(s.exclude, e)
		}
	}
}
