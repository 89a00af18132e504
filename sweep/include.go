package sweep

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"schedfarm/simcore"
)

// A suite is a sweep file with a top-level "include" list: the sweeps of
// every included file (paths or globs relative to the including file) run
// as one run, beside the suite's own "sweeps". Load reads the included
// files from disk and packs them with the suite into one self-contained
// bundle text (File.Text), which is what travels to the coordinator and
// into the results: Parse of a bundle needs no file system, and every
// error still names the included file, line and column.

// bundleKey opens a bundle document; nothing else starts with it.
const bundleKey = "schedfarm-bundle"

// Limits on suites and sweep files.
const (
	maxIncludeDepth = 16
	maxIncludeFiles = 1000
	// MaxFileBytes is the largest sweep file read (the paper suites' are
	// below 100 KB): a device or a log named by mistake is refused.
	MaxFileBytes = 16 << 20
)

// bundle is the YAML form of a suite and the files it includes.
type bundle struct {
	Version int          `yaml:"schedfarm-bundle"`
	Root    string       `yaml:"root"`
	Files   []bundleFile `yaml:"files"`
}

type bundleFile struct {
	Path string `yaml:"path"`
	Text string `yaml:"text"`
}

// source gives the parser the text of an included file and lists the
// files a glob matches. Load's source is the file system; a bundle's is
// its packed files.
type source interface {
	read(path string) ([]byte, error)
	glob(pattern string) ([]string, error)
}

type diskSource struct{}

func (diskSource) read(path string) ([]byte, error) { return ReadRegular(path, MaxFileBytes) }

// ReadRegular reads a regular file of at most limit bytes. A FIFO, a
// device (/dev/zero), a folder or a larger file is refused by its kind or
// size before anything is read (simcore.OpenRegular), so a path given by
// mistake or by an attacker neither blocks nor exhausts memory.
func ReadRegular(path string, limit int64) ([]byte, error) {
	f, err := simcore.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() > limit {
		return nil, fmt.Errorf("%s: %d bytes, more than the %d a sweep file may have", path, st.Size(), limit)
	}
	// A file that grew after Stat is still read up to the limit only.
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%s: more than the %d bytes a sweep file may have", path, limit)
	}
	return b, nil
}

func (diskSource) glob(pattern string) ([]string, error) {
	m, err := filepath.Glob(pattern)
	slices.Sort(m)
	return m, err
}

type bundleSource map[string][]byte

func (b bundleSource) read(path string) ([]byte, error) {
	if t, ok := b[path]; ok {
		return t, nil
	}
	return nil, fmt.Errorf("%s is not in the bundle", path)
}

func (b bundleSource) glob(pattern string) ([]string, error) {
	var out []string
	for p := range b {
		ok, err := filepath.Match(pattern, p)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out, nil
}

// noSource is what Parse of a plain text has: an include cannot be read.
type noSource struct{}

func (noSource) read(path string) ([]byte, error) {
	return nil, fmt.Errorf("cannot read %s: included files are read by sweep.Load (the schedfarm commands), not from a bare text", path)
}
func (noSource) glob(string) ([]string, error) { return nil, nil }

// isBundle reports whether text is a bundle document: its first line
// that is neither blank nor a comment starts with the bundle key.
func isBundle(text []byte) bool {
	for len(text) > 0 {
		line := text
		if i := bytes.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = nil
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		return bytes.HasPrefix(line, []byte(bundleKey+":"))
	}
	return false
}

// parseBundle unpacks a bundle text into its root path and its files.
func parseBundle(text []byte) (string, bundleSource, error) {
	var b bundle
	if err := yaml.Unmarshal(text, &b); err != nil {
		return "", nil, fmt.Errorf("bundle: %w", err)
	}
	if b.Version != 1 {
		return "", nil, fmt.Errorf("bundle: version %d, this schedfarm reads version 1", b.Version)
	}
	src := bundleSource{}
	for _, f := range b.Files {
		src[f.Path] = []byte(f.Text)
	}
	if _, ok := src[b.Root]; !ok {
		return "", nil, fmt.Errorf("bundle: root %q is not among its files", b.Root)
	}
	return b.Root, src, nil
}

// packBundle writes the suite at root and the files it included as one
// bundle text, files in the order they were first included.
func packBundle(root string, order []string, texts map[string][]byte) ([]byte, error) {
	b := bundle{Version: 1, Root: root}
	for _, p := range order {
		b.Files = append(b.Files, bundleFile{Path: p, Text: string(texts[p])})
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&b); err != nil {
		return nil, fmt.Errorf("bundle: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("bundle: %w", err)
	}
	return buf.Bytes(), nil
}

// suite is the state shared by the parsers of a suite's files.
type suite struct {
	src   source
	order []string          // every file read, root first
	texts map[string][]byte // their texts
	stack []string          // the include chain being parsed (cycle check)
}

// rootDir is the folder of the suite's root file: included files must lie
// in it or below it.
func (st *suite) rootDir() string { return filepath.Dir(st.order[0]) }

// inside reports whether path lies in the root file's folder or below it,
// following symbolic links on disk (a bundle's paths are only names).
func (st *suite) inside(path string) bool {
	root := st.rootDir()
	rel, err := filepath.Rel(root, filepath.Clean(path))
	if err != nil || !filepath.IsLocal(rel) {
		return false
	}
	if _, onDisk := st.src.(diskSource); !onDisk {
		return true
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return false
	}
	realPath, err := filepath.EvalSymlinks(path)
	if err != nil {
		return true // it does not exist: read says so
	}
	rel, err = filepath.Rel(realRoot, realPath)
	return err == nil && filepath.IsLocal(rel)
}

// includes parses the "include" list of the file p is parsing and returns
// the sweeps of every included file.
func (p *parser) includes(n *yaml.Node) []*Sweep {
	items, ok := p.Sequence(n, "include")
	if !ok {
		return nil
	}
	if len(items) == 0 {
		p.Errf(n, "include", "", "empty list: want the paths (or globs) of sweep files to include")
	}
	dir := filepath.Dir(p.File)
	var out []*Sweep
	for i, it := range items {
		key := Index("include", i)
		s, ok := p.Str(it, key)
		if !ok {
			continue
		}
		if filepath.IsAbs(s) || s == "" {
			p.Errf(it, key, "write the path relative to "+p.File, "include %q: want a path relative to the including file", s)
			continue
		}
		pattern := filepath.Join(dir, s)
		if !p.suite.inside(pattern) {
			p.Errf(it, key, "keep the included files in "+p.suite.rootDir()+" or below it", "include %q leaves the suite's folder", s)
			continue
		}
		paths := []string{pattern}
		if strings.ContainsAny(s, "*?[") {
			m, err := p.suite.src.glob(pattern)
			if err != nil {
				p.Errf(it, key, "", "include %q: %v", s, err)
				continue
			}
			if len(m) == 0 {
				p.Errf(it, key, "check the pattern; it is relative to "+dir, "include %q matches no file", s)
				continue
			}
			paths = m
		}
		for _, path := range paths {
			if !p.suite.inside(path) {
				p.Errf(it, key, "keep the included files in "+p.suite.rootDir()+" or below it", "include %q: %s leaves the suite's folder (a symbolic link?)", s, path)
				continue
			}
			out = append(out, p.include(it, key, path)...)
		}
	}
	return out
}

// include parses one included file.
func (p *parser) include(at *yaml.Node, key, path string) []*Sweep {
	st := p.suite
	if slices.Contains(st.stack, path) {
		p.Errf(at, key, "remove one of the includes", "include cycle: %s", strings.Join(append(slices.Clone(st.stack), path), " → "))
		return nil
	}
	if _, done := st.texts[path]; done {
		return nil // included twice (two globs, say): its sweeps run once
	}
	if len(st.stack) >= maxIncludeDepth || len(st.order) >= maxIncludeFiles {
		p.Errf(at, key, "", "includes nested deeper than %d or more than %d files", maxIncludeDepth, maxIncludeFiles)
		return nil
	}
	text, err := st.src.read(path)
	if err != nil {
		hint := ""
		if os.IsNotExist(err) {
			hint = "the path is relative to " + filepath.Dir(p.File)
		}
		p.Errf(at, key, hint, "include: %v", err)
		return nil
	}
	st.order = append(st.order, path)
	st.texts[path] = text
	child := &parser{Nodes: Nodes{File: path}, reg: p.reg, text: text, suite: st}
	st.stack = append(st.stack, path)
	var sweeps []*Sweep
	if root := child.document(text); root != nil {
		sweeps = child.top(root)
	}
	st.stack = st.stack[:len(st.stack)-1]
	p.Errs = append(p.Errs, child.Errs...)
	return sweeps
}
