package sweep

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeTree writes files (path → text) under a fresh directory.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for p, text := range files {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const (
	incA = "name: a\nmodel: bench\nseed: 1\nparams: {work_ms: 0}\naxes:\n  - {name: size, values: [1, 2]}\n"
	incB = "x-base: &b {model: bench, seed: 2, params: {work_ms: 0}}\nsweeps:\n  - {<<: *b, name: b1}\n  - {<<: *b, name: b2, replicates: 3}\n"
)

func TestSuiteIncludesAndBundles(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"p1/a.yaml":   incA,
		"p2/b.yaml":   incB,
		"p2/sub.yaml": "include: [b.yaml]\n",
		"all.yaml":    "include: [p1/a.yaml, \"p2/*.yaml\"]\nsweeps:\n  - {name: own, model: bench, seed: 3, params: {work_ms: 0}}\n",
	})
	reg := testRegistry(t)
	f, err := Load(filepath.Join(dir, "all.yaml"), reg)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range f.Sweeps {
		names = append(names, s.Name)
	}
	// b.yaml matched by the glob and included again by sub.yaml: once.
	if got := strings.Join(names, ","); got != "a,b1,b2,own" {
		t.Fatalf("sweeps %s, want a,b1,b2,own", got)
	}
	if f.Sweeps[0].File != filepath.Join(dir, "p1/a.yaml") || f.Sweeps[0].Line != 1 {
		t.Errorf("sweep a located at %s:%d", f.Sweeps[0].File, f.Sweeps[0].Line)
	}
	if len(f.Included) != 3 {
		t.Errorf("included %v, want 3 files", f.Included)
	}
	jobs, err := f.Expand(1000)
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 2+1+3+1 {
		t.Fatalf("%d jobs, want 7", len(jobs))
	}
	// The bundle alone (what the coordinator receives) gives the same jobs,
	// with no file system, and Load of a saved bundle too.
	if !isBundle(f.Text) {
		t.Fatalf("suite text is not a bundle:\n%s", f.Text)
	}
	g, err := Parse("elsewhere/all.yaml", f.Text, reg)
	if err != nil {
		t.Fatal(err)
	}
	again, err := g.Expand(1000)
	if err != nil {
		t.Fatal(err)
	}
	for i := range jobs {
		if jobs[i].ID != again[i].ID || jobs[i].Sweep != again[i].Sweep {
			t.Fatalf("job %d: %s/%s from disk, %s/%s from the bundle", i, jobs[i].Sweep, jobs[i].ID, again[i].Sweep, again[i].ID)
		}
	}
	saved := filepath.Join(t.TempDir(), "bundle.yaml")
	if err := os.WriteFile(saved, f.Text, 0o644); err != nil {
		t.Fatal(err)
	}
	if h, err := Load(saved, reg); err != nil || len(h.Sweeps) != 4 {
		t.Fatalf("Load of a bundle: %v", err)
	}
}

func TestSuiteErrors(t *testing.T) {
	reg := testRegistry(t)
	cases := []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{"missing", map[string]string{"all.yaml": "include:\n  - nope.yaml\n"},
			[]string{"all.yaml:2:5", "include[0]", "nope.yaml", "relative to"}},
		{"glob-none", map[string]string{"all.yaml": "include: [\"x/*.yaml\"]\n"}, []string{"matches no file"}},
		{"cycle", map[string]string{"all.yaml": "include: [b.yaml]\n", "b.yaml": "include: [all.yaml]\n"}, []string{"include cycle", "all.yaml → ", "b.yaml → "}},
		{"duplicate", map[string]string{"all.yaml": "include: [a.yaml, c.yaml]\n", "a.yaml": incA, "c.yaml": incA},
			[]string{"c.yaml:1:1", "duplicate sweep name", "a.yaml:1"}},
		{"error-in-included", map[string]string{"all.yaml": "include: [a.yaml]\n", "a.yaml": strings.Replace(incA, "size", "sise", 1)},
			[]string{"a.yaml:6", "sise"}},
		{"absolute", map[string]string{"all.yaml": "include: [/etc/passwd]\n"}, []string{"relative"}},
		{"empty", map[string]string{"all.yaml": "include: []\n"}, []string{"empty list"}},
		{"unknown-key", map[string]string{"all.yaml": "include: [a.yaml]\nsweep: []\n", "a.yaml": incA}, []string{"sweep"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := writeTree(t, c.files)
			_, err := Load(filepath.Join(dir, "all.yaml"), reg)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
	// A bare text cannot include: Parse reads no file.
	if _, err := Parse("all.yaml", []byte("include: [a.yaml]\n"), reg); err == nil || !strings.Contains(err.Error(), "sweep.Load") {
		t.Errorf("Parse of an including text: %v", err)
	}
}

func TestBundleFile(t *testing.T) {
	f, err := Load("testdata/good/bundle.yaml", testRegistry(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Sweeps) != 2 || f.Sweeps[0].Name != "ba" || f.Sweeps[0].File != "suite/p/a.yaml" || len(f.Included) != 1 {
		t.Fatalf("bundle: %d sweeps, included %v", len(f.Sweeps), f.Included)
	}
	for _, bad := range []string{
		"schedfarm-bundle: 2\nroot: a\nfiles: [{path: a, text: 'name: x'}]\n",
		"schedfarm-bundle: 1\nroot: b\nfiles: [{path: a, text: 'name: x'}]\n",
		"schedfarm-bundle: [\n",
	} {
		if _, err := Parse("b.yaml", []byte(bad), testRegistry(t)); err == nil || !strings.Contains(err.Error(), "b.yaml:1:1: bundle") {
			t.Errorf("%q: err = %v", bad, err)
		}
	}
}
