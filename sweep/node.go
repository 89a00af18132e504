package sweep

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Nodes reads the nodes of a YAML document for a validator: each method
// checks a node's kind and value, and a node that is not what the caller
// wants becomes an *Error with the file, the node's line and column, the
// key's path and a hint, collected in Errs, so that one pass reports every
// problem. The sweep parser and the figures:/claims:/verify: declarations
// of package results read their YAML through it.
type Nodes struct {
	File    string    // named in every error
	Errs    ErrorList // the problems found so far, in the order found
	visited int       // nodes resolved, against an alias bomb (maxNodes)
}

// ErrAt records a problem at line and col of the file; key is the path of
// the offending key, hint how to fix it.
func (p *Nodes) ErrAt(line, col int, key, hint, format string, args ...any) {
	p.Errs = append(p.Errs, &Error{File: p.File, Line: line, Col: col, Key: key, Msg: fmt.Sprintf(format, args...), Hint: hint})
}

// Errf records a problem at node n (nil: no position).
func (p *Nodes) Errf(n *yaml.Node, key, hint, format string, args ...any) {
	if n == nil {
		p.ErrAt(0, 0, key, hint, format, args...)
		return
	}
	p.ErrAt(n.Line, n.Column, key, hint, format, args...)
}

// Resolve follows aliases and counts visited nodes, so that an alias bomb
// stops with an error instead of a very long walk (see Resolve).
func (p *Nodes) Resolve(n *yaml.Node) *yaml.Node {
	p.visited++
	return Resolve(n)
}

// Resolve follows a node's aliases (at most 100) and enters a document
// node; nothing (nil) resolves to a null scalar, so that a missing value
// reads as "nothing (null)" in errors.
func Resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && i < 100; i++ {
		n = n.Alias
	}
	if n != nil && n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		return Resolve(n.Content[0])
	}
	if n == nil {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null"}
	}
	return n
}

// maxDescribed is the longest string Describe quotes.
const maxDescribed = 60

// Describe names what a node is, for "want X, got Y" errors.
func Describe(n *yaml.Node) string {
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
			// A short one-line string is quoted (escaped: no terminal
			// control reaches the screen); a longer one is only measured,
			// so an error never echoes a file's content (a misnamed
			// include of a secret, a log).
			if len(n.Value) > maxDescribed || strings.ContainsAny(n.Value, "\n\r") {
				return fmt.Sprintf("a string of %d bytes", len(n.Value))
			}
			return "the string " + strconv.Quote(n.Value)
		}
		return fmt.Sprintf("a %s value", n.ShortTag())
	}
	return "an unknown node"
}

// Pair is one entry of a YAML mapping.
type Pair struct {
	Name string
	K, V *yaml.Node
}

// Mapping returns the entries of a mapping node after checking that it is
// one, that no key repeats and, when allowed is not nil, that every key is
// allowed. Merge keys ("<<: *anchor") are expanded; explicit keys win.
func (p *Nodes) Mapping(n *yaml.Node, key string, allowed, suggest []string) ([]Pair, bool) {
	n = p.Resolve(n)
	if n.Kind != yaml.MappingNode {
		p.Errf(n, key, "", "want a mapping, got %s", Describe(n))
		return nil, false
	}
	var out []Pair
	seen := map[string]*yaml.Node{}
	var merged []Pair
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := p.Resolve(n.Content[i]), n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge" {
			merged = append(merged, p.mergePairs(v, key)...)
			continue
		}
		if k.Kind != yaml.ScalarNode {
			p.Errf(k, key, "", "want a key, got %s", Describe(k))
			continue
		}
		if first, dup := seen[k.Value]; dup {
			p.Errf(k, Join(key, k.Value), "", "key given twice (first at line %d)", first.Line)
			continue
		}
		seen[k.Value] = k
		if slices.Contains(allowed, extKeys) && strings.HasPrefix(k.Value, "x-") {
			continue
		}
		if allowed != nil && !slices.Contains(allowed, k.Value) {
			valid := slices.DeleteFunc(slices.Clone(allowed), func(s string) bool { return s == extKeys })
			p.Errf(k, Join(key, k.Value), didYouMean(k.Value, append(slices.Clone(valid), suggest...)),
				"unknown key %q (want one of %s)", k.Value, strings.Join(valid, ", "))
			continue
		}
		out = append(out, Pair{k.Value, k, v})
	}
	for _, m := range merged {
		if _, ok := seen[m.Name]; ok || slices.Contains(allowed, extKeys) && strings.HasPrefix(m.Name, "x-") {
			continue
		}
		seen[m.Name] = m.K
		if allowed != nil && !slices.Contains(allowed, m.Name) {
			p.Errf(m.K, Join(key, m.Name), didYouMean(m.Name, allowed), "unknown key %q (merged from line %d)", m.Name, m.K.Line)
			continue
		}
		out = append(out, m)
	}
	return out, true
}

// mergePairs returns the entries a merge key (<<) brings in: of a mapping,
// or of each mapping of a list, the first of a repeated key winning.
func (p *Nodes) mergePairs(v *yaml.Node, key string) []Pair {
	v = p.Resolve(v)
	var srcs []*yaml.Node
	switch v.Kind {
	case yaml.MappingNode:
		srcs = []*yaml.Node{v}
	case yaml.SequenceNode:
		srcs = v.Content
	default:
		p.Errf(v, key, "", "a merge key (<<) wants a mapping or a list of mappings, got %s", Describe(v))
		return nil
	}
	var out []Pair
	seen := map[string]bool{}
	for _, s := range srcs {
		s = p.Resolve(s)
		if s.Kind != yaml.MappingNode {
			p.Errf(s, key, "", "a merge key (<<) wants a mapping, got %s", Describe(s))
			continue
		}
		for i := 0; i+1 < len(s.Content); i += 2 {
			k := p.Resolve(s.Content[i])
			if k.Kind != yaml.ScalarNode || k.ShortTag() == "!!merge" || seen[k.Value] {
				continue
			}
			seen[k.Value] = true
			out = append(out, Pair{k.Value, k, s.Content[i+1]})
		}
	}
	return out
}

// Join appends sub to a key's path: "fig3" + "axes" is "fig3.axes".
func Join(key, sub string) string {
	if key == "" {
		return sub
	}
	return key + "." + sub
}

// Index is the path of a list's i-th item: "fig3.axes[1]".
func Index(key string, i int) string { return fmt.Sprintf("%s[%d]", key, i) }

// Sequence returns the items of a list node.
func (p *Nodes) Sequence(n *yaml.Node, key string) ([]*yaml.Node, bool) {
	n = p.Resolve(n)
	if n.Kind != yaml.SequenceNode {
		p.Errf(n, key, "", "want a list, got %s", Describe(n))
		return nil, false
	}
	return n.Content, true
}

// Scalar decodes a scalar node into int64, float64, string, bool or nil.
func (p *Nodes) Scalar(n *yaml.Node, key string) (any, bool) {
	n = p.Resolve(n)
	if n.Kind != yaml.ScalarNode {
		p.Errf(n, key, "", "want a single value, got %s", Describe(n))
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
		p.Errf(n, key, "", "integer %s out of range", n.Value)
		return nil, false
	case "!!float":
		var f float64
		if err := n.Decode(&f); err == nil {
			return f, true
		}
	}
	p.Errf(n, key, "quote it to make it a string", "unsupported value %s (%s)", n.Value, n.ShortTag())
	return nil, false
}

// Str reads a string (a quoted or plain YAML string, not a number).
func (p *Nodes) Str(n *yaml.Node, key string) (string, bool) {
	n = p.Resolve(n)
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" {
		p.Errf(n, key, "", "want a string, got %s", Describe(n))
		return "", false
	}
	return n.Value, true
}

// Integer reads an integer.
func (p *Nodes) Integer(n *yaml.Node, key string) (int64, bool) {
	n = p.Resolve(n)
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!int" {
		var i int64
		if err := n.Decode(&i); err == nil {
			return i, true
		}
	}
	p.Errf(n, key, "", "want an integer, got %s", Describe(n))
	return 0, false
}

// Number reads a finite number.
func (p *Nodes) Number(n *yaml.Node, key string) (float64, bool) {
	n = p.Resolve(n)
	if n.Kind == yaml.ScalarNode && (n.ShortTag() == "!!int" || n.ShortTag() == "!!float") {
		var f float64
		if err := n.Decode(&f); err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
			return f, true
		}
	}
	p.Errf(n, key, "", "want a finite number, got %s", Describe(n))
	return 0, false
}

// Fields is Mapping as a map by key for a mapping whose order does not
// matter; keys starting with "x-" (extensions) are ignored.
func (p *Nodes) Fields(n *yaml.Node, key string, allowed []string) (map[string]Pair, bool) {
	pairs, ok := p.Mapping(n, key, append(slices.Clone(allowed), extKeys), nil)
	if !ok {
		return nil, false
	}
	out := make(map[string]Pair, len(pairs))
	for _, kv := range pairs {
		out[kv.Name] = kv
	}
	return out, true
}

// Text reads any single value (a string, or a number or bool as written)
// as text.
func (p *Nodes) Text(n *yaml.Node, key string) (string, bool) {
	n = p.Resolve(n)
	if n.Kind != yaml.ScalarNode || n.ShortTag() == "!!null" {
		p.Errf(n, key, "", "want a string, got %s", Describe(n))
		return "", false
	}
	return n.Value, true
}

// Bool reads true or false.
func (p *Nodes) Bool(n *yaml.Node, key string) (bool, bool) {
	n = p.Resolve(n)
	var b bool
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!bool" && n.Decode(&b) == nil {
		return b, true
	}
	p.Errf(n, key, "", "want true or false, got %s", Describe(n))
	return false, false
}

// OneOf reads a value (as Text) that must be one of the choices.
func (p *Nodes) OneOf(n *yaml.Node, key string, choices ...string) (string, bool) {
	s, ok := p.Text(n, key)
	if !ok {
		return "", false
	}
	if !slices.Contains(choices, s) {
		p.Errf(p.Resolve(n), key, didYouMean(s, choices), "%q is not one of: %s", s, strings.Join(choices, ", "))
		return "", false
	}
	return s, true
}

// ScalarValue decodes a scalar as int64, float64, bool or, failing those,
// its text, without reporting anything.
func ScalarValue(n *yaml.Node) any {
	switch n.ShortTag() {
	case "!!int":
		var i int64
		if n.Decode(&i) == nil {
			return i
		}
	case "!!float":
		var f float64
		if n.Decode(&f) == nil {
			return f
		}
	case "!!bool":
		var b bool
		if n.Decode(&b) == nil {
			return b
		}
	}
	return n.Value
}
