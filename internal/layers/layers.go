// Package layers reads the module's package import graph (the non-test
// imports of every package, as go list reports them, through go/build)
// and draws it as layers: a package sits one layer above the highest
// package it imports. It also checks the directions the architecture
// requires (simcore imports nothing of the farm, models do not import each
// other, results does not import coordinator or worker, results imports
// none of its subpackages, nothing imports cmd/schedfarm or a script).
// scripts/layers writes the picture into the architecture page
// (docs/architecture.md); the package's test keeps the picture current and
// the directions true.
package layers

import (
	"fmt"
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Module is the module path of this repository.
const Module = "schedfarm"

// Graph is the module's packages (paths relative to the module root, "."
// for none) and, for each, the module packages it imports.
type Graph struct {
	Pkgs    []string
	Imports map[string][]string
}

// Read builds the graph of the module rooted at root. Test files,
// testdata, hidden and underscore directories are skipped, as the go tool
// skips them; so is data/ and runs/ (not code).
func Read(root string) (*Graph, error) {
	g := &Graph{Imports: map[string][]string{}}
	ctx := build.Default
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		rel, _ := filepath.Rel(root, path)
		if path != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || rel == "data" || rel == "runs" || rel == "node_modules") {
			return filepath.SkipDir
		}
		if path != root {
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir // another module
			}
		}
		p, err := ctx.ImportDir(path, 0)
		if err != nil {
			if _, ok := err.(*build.NoGoError); ok {
				return nil
			}
			return fmt.Errorf("layers: %s: %w", rel, err)
		}
		rel = filepath.ToSlash(rel)
		g.Pkgs = append(g.Pkgs, rel)
		var in []string
		for _, imp := range p.Imports {
			if imp == Module {
				in = append(in, ".")
			} else if r, ok := strings.CutPrefix(imp, Module+"/"); ok {
				in = append(in, r)
			}
		}
		slices.Sort(in)
		g.Imports[rel] = in
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(g.Pkgs)
	return g, nil
}

// Layers returns the packages by layer, bottom first: a package that
// imports no module package is in layer 0, any other one layer above the
// highest package it imports. It fails on an import cycle.
func (g *Graph) Layers() ([][]string, error) {
	level := map[string]int{}
	const visiting = -1
	var visit func(p string, path []string) (int, error)
	visit = func(p string, path []string) (int, error) {
		if l, ok := level[p]; ok {
			if l == visiting {
				return 0, fmt.Errorf("layers: import cycle: %s", strings.Join(append(path, p), " → "))
			}
			return l, nil
		}
		level[p] = visiting
		l := 0
		for _, q := range g.Imports[p] {
			lq, err := visit(q, append(path, p))
			if err != nil {
				return 0, err
			}
			l = max(l, lq+1)
		}
		level[p] = l
		return l, nil
	}
	var out [][]string
	for _, p := range g.Pkgs {
		l, err := visit(p, nil)
		if err != nil {
			return nil, err
		}
		for len(out) <= l {
			out = append(out, nil)
		}
		out[l] = append(out[l], p)
	}
	return out, nil
}

// models are the model packages: one per paper, and the farm's own.
var models = []string{"simcore/batch", "simcore/bench", "simcore/divisible", "simcore/dssp", "simcore/ptg", "simcore/stretch"}

func isModel(p string) bool {
	for _, m := range models {
		if p == m || strings.HasPrefix(p, m+"/") {
			return true
		}
	}
	return false
}

func under(p, dir string) bool { return p == dir || strings.HasPrefix(p, dir+"/") }

// Check returns every import that breaks a direction of the architecture.
func (g *Graph) Check() []string {
	var bad []string
	for _, p := range g.Pkgs {
		for _, q := range g.Imports[p] {
			var why string
			switch {
			case under(p, "simcore") && !under(q, "simcore"):
				why = "simcore imports nothing of the farm"
			case isModel(p) && isModel(q) && strings.Split(p, "/")[1] != strings.Split(q, "/")[1]:
				why = "models do not import each other (share through the core)"
			case isModel(q) && under(p, "simcore") && p != "simcore/models" && !isModel(p):
				why = "the core does not import a model"
			case p == "results" && under(q, "results"):
				why = "results imports none of its subpackages (they build on it)"
			case under(p, "results") && (under(q, "coordinator") || under(q, "worker")):
				why = "results does not import coordinator or worker"
			case q == "simcore/modeltest" || q == "results/internal/runtest":
				why = q[strings.LastIndex(q, "/")+1:] + " is test support: only _test.go files import it"
			case q == "cmd/schedfarm" || under(q, "scripts") || under(q, "farmtest"):
				why = "nothing imports the binary, a script or the end-to-end tests"
			}
			if why != "" {
				bad = append(bad, fmt.Sprintf("%s imports %s: %s", p, q, why))
			}
		}
	}
	return bad
}

// Picture draws the layers, top first, each package with the module
// packages it imports; scripts are left out (they sit on top of
// everything and import what they measure).
func (g *Graph) Picture() (string, error) {
	ls, err := g.Layers()
	if err != nil {
		return "", err
	}
	width := 0
	for _, p := range g.Pkgs {
		width = max(width, len(p))
	}
	var b strings.Builder
	for i := len(ls) - 1; i >= 0; i-- {
		var rows []string
		for _, p := range ls[i] {
			if under(p, "scripts") {
				continue
			}
			row := fmt.Sprintf("%-*s", width, p)
			if imps := g.Imports[p]; len(imps) > 0 {
				row += "  → " + strings.Join(imps, " ")
			}
			rows = append(rows, strings.TrimRight(row, " "))
		}
		if len(rows) == 0 {
			continue
		}
		fmt.Fprintf(&b, "layer %d\n", i)
		for _, r := range rows {
			fmt.Fprintf(&b, "  %s\n", r)
		}
	}
	return b.String(), nil
}

// Markers delimit the generated picture in a Markdown file.
const (
	Begin = "<!-- BEGIN generated by go run ./scripts/layers -w docs/architecture.md -->"
	End   = "<!-- END generated -->"
)

// Block is the picture as the Markdown block between the markers.
func (g *Graph) Block() (string, error) {
	pic, err := g.Picture()
	if err != nil {
		return "", err
	}
	return Begin + "\n```\n" + pic + "```\n" + End, nil
}

// Replace returns doc with the text between the markers (included)
// replaced by block; it fails when the markers are missing.
func Replace(doc, block string) (string, error) {
	i := strings.Index(doc, Begin)
	j := strings.Index(doc, End)
	if i < 0 || j < i {
		return "", fmt.Errorf("layers: no %q … %q block", Begin, End)
	}
	return doc[:i] + block + doc[j+len(End):], nil
}
