package decl

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"schedfarm/simcore"
	"schedfarm/sweep"
)

// ReadingsFile is the base name of a paper folder's readings file,
// configs/<paper>/readings.yaml: the paper's alternative readings, each
// declared once. It is no sweep file: validate reads it with LoadReadings,
// and FolderClaims skips it.
const ReadingsFile = "readings.yaml"

// MaxExplaining is the most readings of one paper that may explain
// failures (explains: true): a paper reproduced under many per-claim
// readings is not reproduced under one model.
const MaxExplaining = 3

// maxReadingsBytes caps a readings file: it is a short list of prose.
const maxReadingsBytes = 1 << 20

// Declared values of a reading: written down before the result it explains
// was seen, or after (then it is a calibration).
const (
	DeclaredBefore = "before"
	DeclaredAfter  = "after"
)

// Reading is one alternative reading of a paper, declared once in its
// folder's readings file:
//
//	readings:
//	  - name: rtgrid
//	    params: {release: rtgrid}
//	    quote: "the words of the paper or a source it cites that allow it"
//	    source: "Section 4.2"
//	    declared: before
//	    explains: true
//	    sweeps: [always-rtgrid.yaml]
//	    defaults: [always.yaml]
//	    note: "optional"
//
// Params are the model parameters whose values differ from the defaults'
// (each of Sweeps must set them); Quote and Source say where the paper
// allows the reading; Declared is DeclaredBefore or DeclaredAfter (a
// reading written down after its result was seen is a calibration: its
// sweeps' claims count as calibration on the scoreboard). Explains lets
// explained_by name the reading (at most MaxExplaining per paper, declared
// before). Sweeps are the sensitivity sweep files of the folder that run
// it; Defaults, optional, the default sweep files its claims are compared
// with, claim id by claim id, when the scoreboard shows it as a whole model.
type Reading struct {
	Name     string
	Params   map[string]string
	Quote    string
	Source   string
	Declared string
	Explains bool
	Sweeps   []string
	Defaults []string
	Note     string
	// Line locates the reading in its file.
	Line int
}

// Readings are a paper folder's declared readings.
type Readings struct {
	// File is the readings file's path.
	File     string
	Readings []*Reading
}

// Find returns the reading of that name, or nil.
func (rs *Readings) Find(name string) *Reading {
	if rs == nil {
		return nil
	}
	for _, r := range rs.Readings {
		if r.Name == name {
			return r
		}
	}
	return nil
}

// OfSweep returns the readings whose sweeps include the sweep file base
// name.
func (rs *Readings) OfSweep(file string) []*Reading {
	if rs == nil {
		return nil
	}
	var out []*Reading
	for _, r := range rs.Readings {
		if slices.Contains(r.Sweeps, file) {
			out = append(out, r)
		}
	}
	return out
}

// Names returns the readings' names, in file order.
func (rs *Readings) Names() []string {
	if rs == nil {
		return nil
	}
	var out []string
	for _, r := range rs.Readings {
		out = append(out, r.Name)
	}
	return out
}

// IsReadingsFile reports whether path names a readings file.
func IsReadingsFile(path string) bool { return filepath.Base(path) == ReadingsFile }

var (
	readingsKeys  = []string{"readings"}
	readingKeys   = []string{"name", "params", "quote", "source", "declared", "explains", "sweeps", "defaults", "note"}
	readingNameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)
)

// ParseReadings parses a readings file's text and checks everything that
// needs no other file: the keys, names unique, the quote and source
// given, declared before or after, explains only for a reading declared
// before and at most MaxExplaining of them, sweeps and defaults relative
// .yaml names of the folder. The error is a sweep.ErrorList.
func ParseReadings(file string, text []byte) (*Readings, error) {
	p := &sweep.Nodes{File: file}
	rs := &Readings{File: file}
	if len(text) > maxReadingsBytes {
		return nil, sweep.ErrorList{&sweep.Error{File: file, Msg: fmt.Sprintf("readings file of %d bytes (at most %d)", len(text), maxReadingsBytes)}}
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(text, &doc); err != nil {
		return nil, sweep.ErrorList{&sweep.Error{File: file, Msg: "not YAML: " + strings.TrimPrefix(err.Error(), "yaml: ")}}
	}
	if len(doc.Content) == 0 {
		return nil, sweep.ErrorList{&sweep.Error{File: file, Line: 1, Col: 1, Msg: "empty readings file", Hint: "list the paper's readings under readings:"}}
	}
	top, ok := p.Fields(doc.Content[0], "", readingsKeys)
	if ok {
		e, has := top["readings"]
		if !has {
			p.Errf(doc.Content[0], "", "list the paper's readings under readings:", "missing required key \"readings\"")
		} else if items, ok := p.Sequence(e.V, "readings"); ok {
			seen := map[string]int{}
			explaining := 0
			for i, it := range items {
				r := parseReading(p, it, sweep.Index("readings", i))
				if r == nil {
					continue
				}
				if first, dup := seen[r.Name]; dup {
					p.ErrAt(r.Line, 0, sweep.Index("readings", i), "give each reading its own name", "reading %q declared twice (first at line %d)", r.Name, first)
					continue
				}
				seen[r.Name] = r.Line
				if r.Explains {
					explaining++
					if explaining > MaxExplaining {
						p.ErrAt(r.Line, 0, sweep.Join(sweep.Index("readings", i), "explains"), "keep the (at most three) readings the paper's words most clearly allow; the others stay sensitivity sweeps that explain nothing",
							"more than %d readings explain failures", MaxExplaining)
					}
				}
				rs.Readings = append(rs.Readings, r)
			}
		}
	}
	if len(p.Errs) > 0 {
		return nil, p.Errs
	}
	return rs, nil
}

func parseReading(p *sweep.Nodes, n *yaml.Node, key string) *Reading {
	m, ok := p.Fields(n, key, readingKeys)
	if !ok {
		return nil
	}
	before := len(p.Errs)
	r := &Reading{Line: sweep.Resolve(n).Line, Params: map[string]string{}}
	text := func(name string, required bool) string {
		e, ok := m[name]
		if !ok {
			if required {
				p.Errf(sweep.Resolve(n), key, "", "missing required key %q", name)
			}
			return ""
		}
		s, ok := p.Text(e.V, sweep.Join(key, name))
		if ok && strings.TrimSpace(s) == "" {
			p.Errf(sweep.Resolve(e.V), sweep.Join(key, name), "", "%s must not be empty", name)
		}
		return s
	}
	files := func(name string, required bool) []string {
		e, ok := m[name]
		if !ok {
			if required {
				p.Errf(sweep.Resolve(n), key, "", "missing required key %q", name)
			}
			return nil
		}
		items, ok := p.Sequence(e.V, sweep.Join(key, name))
		if !ok {
			return nil
		}
		if len(items) == 0 && required {
			p.Errf(sweep.Resolve(e.V), sweep.Join(key, name), "name the sweep files of the folder that run the reading", "%s is empty", name)
		}
		var out []string
		for j, it := range items {
			k := sweep.Index(sweep.Join(key, name), j)
			s, ok := p.Text(it, k)
			if !ok {
				continue
			}
			if !filepath.IsLocal(s) || strings.ContainsAny(s, `/\`) || !strings.HasSuffix(s, ".yaml") || s == ReadingsFile {
				p.Errf(sweep.Resolve(it), k, "name a sweep file of the same folder, e.g. fig3-rtgrid.yaml", "%q is not a sweep file of the folder", s)
				continue
			}
			out = append(out, s)
		}
		return out
	}
	r.Name = text("name", true)
	if r.Name != "" && !readingNameRE.MatchString(r.Name) {
		p.Errf(sweep.Resolve(m["name"].V), sweep.Join(key, "name"), "use lower-case letters, digits and '-'", "bad reading name %q", r.Name)
	}
	r.Quote = text("quote", true)
	r.Source = text("source", true)
	r.Note = text("note", false)
	if e, ok := m["declared"]; !ok {
		p.Errf(sweep.Resolve(n), key, "before: written down before the result it explains was seen; after: found with the result in view (a calibration)", "missing required key \"declared\"")
	} else {
		r.Declared, _ = p.OneOf(e.V, sweep.Join(key, "declared"), DeclaredBefore, DeclaredAfter)
	}
	if e, ok := m["explains"]; ok {
		r.Explains, _ = p.Bool(e.V, sweep.Join(key, "explains"))
		if r.Explains && r.Declared == DeclaredAfter {
			p.Errf(sweep.Resolve(e.V), sweep.Join(key, "explains"), "a reading found with its result in view is a calibration; it cannot explain a failure", "explains: true needs declared: before")
		}
	}
	if e, ok := m["params"]; !ok {
		p.Errf(sweep.Resolve(n), key, "give the parameter values that differ from the defaults", "missing required key \"params\"")
	} else if pairs, ok := p.Mapping(e.V, sweep.Join(key, "params"), nil, nil); ok {
		if len(pairs) == 0 {
			p.Errf(sweep.Resolve(e.V), sweep.Join(key, "params"), "give the parameter values that differ from the defaults", "params is empty")
		}
		for _, kv := range pairs {
			v := sweep.Resolve(kv.V)
			if v.Kind != yaml.ScalarNode {
				p.Errf(v, sweep.Join(sweep.Join(key, "params"), kv.Name), "", "want a value, got %s", sweep.Describe(v))
				continue
			}
			r.Params[kv.Name] = v.Value
		}
	}
	r.Sweeps = files("sweeps", true)
	r.Defaults = files("defaults", false)
	for _, d := range r.Defaults {
		if slices.Contains(r.Sweeps, d) {
			p.Errf(sweep.Resolve(m["defaults"].V), sweep.Join(key, "defaults"), "", "%s is both a sweep of the reading and a default", d)
		}
	}
	if len(p.Errs) > before {
		return nil
	}
	return r
}

// LoadReadings reads and checks a readings file against its folder: on top
// of ParseReadings, every sweep file it names loads and validates, each
// sweep of a reading's files is declared sensitivity: and sets each of the
// reading's params (a parameter of its model).
func LoadReadings(file string, models *simcore.Registry) (*Readings, error) {
	text, err := sweep.ReadRegular(file, maxReadingsBytes)
	if err != nil {
		return nil, err
	}
	rs, err := ParseReadings(file, text)
	if err != nil {
		return nil, err
	}
	dir := filepath.Dir(file)
	var errs sweep.ErrorList
	type loaded struct {
		f   *sweep.File
		err error
	}
	files := map[string]loaded{} // several readings may run in one file: load it once
	for _, r := range rs.Readings {
		check := func(name string, reading bool) {
			l, ok := files[name]
			if !ok {
				l.f, l.err = sweep.Load(filepath.Join(dir, name), models)
				files[name] = l
			}
			f, err := l.f, l.err
			if err != nil {
				errs = append(errs, &sweep.Error{File: file, Line: r.Line, Key: r.Name, Msg: fmt.Sprintf("sweep file %s does not load: %s", name, firstLine(err))})
				return
			}
			for _, s := range f.Sweeps {
				if filepath.Base(s.File) != name {
					continue
				}
				d, err := Parse(s)
				if err != nil {
					errs = append(errs, &sweep.Error{File: file, Line: r.Line, Key: r.Name, Msg: fmt.Sprintf("sweep %s of %s has errors: %s", s.Name, name, firstLine(err))})
					continue
				}
				if !reading {
					continue
				}
				if d.Sensitivity == "" {
					errs = append(errs, &sweep.Error{File: file, Line: r.Line, Key: r.Name, Msg: fmt.Sprintf("sweep %s of %s runs the reading but is not declared sensitivity:", s.Name, name),
						Hint: "give it sensitivity: \"what it runs\", so its claims are not counted as reproductions"})
				}
				for _, prm := range sortedKeys(r.Params) {
					if _, ok := s.Schema().Param(prm); !ok {
						errs = append(errs, &sweep.Error{File: file, Line: r.Line, Key: r.Name + ".params." + prm, Msg: fmt.Sprintf("%q is not a parameter of model %s (sweep %s)", prm, s.Model, s.Name)})
						continue
					}
					if _, set := s.ParamLine(prm); !set {
						errs = append(errs, &sweep.Error{File: file, Line: r.Line, Key: r.Name + ".params." + prm, Msg: fmt.Sprintf("sweep %s of %s leaves %s at the model's default", s.Name, name, prm),
							Hint: "a reading's sweep sets the parameters the reading changes"})
					}
				}
			}
		}
		for _, s := range r.Sweeps {
			check(s, true)
		}
		for _, s := range r.Defaults {
			check(s, false)
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return rs, nil
}

// FolderReadings returns the readings of the folder dir (nil, nil when it
// has no readings file), parsed without loading the sweeps they name.
func FolderReadings(dir string) (*Readings, error) {
	file := filepath.Join(dir, ReadingsFile)
	text, err := sweep.ReadRegular(file, maxReadingsBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return ParseReadings(file, text)
}

func firstLine(err error) string { return strings.SplitN(err.Error(), "\n", 2)[0] }

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
