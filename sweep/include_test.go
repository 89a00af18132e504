package sweep

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
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

// TestIncludeStaysInFolder: include: reads only regular files in the
// suite's folder or below it, never follows a link out of it, refuses a
// FIFO or a device without blocking or reading it, and its errors never
// echo what a wrong file holds.
func TestIncludeStaysInFolder(t *testing.T) {
	reg := testRegistry(t)
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.yaml")
	if err := os.WriteFile(secret, []byte("root:x:0:0:root:/root:/bin/bash the secret line that must not be printed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := writeTree(t, map[string]string{
		"suite/s-up.yaml":     "include: [\"../../" + filepath.Base(outside) + "/secret.yaml\"]\n",
		"suite/s-dotdot.yaml": "include: [\"p/../../x.yaml\"]\n",
		"suite/s-link.yaml":   "include: [p/link.yaml]\n",
		"suite/s-glob.yaml":   "include: [\"p/*.yaml\"]\n",
		"suite/s-fifo.yaml":   "include: [fifo.yaml]\n",
		"suite/s-zero.yaml":   "include: [zero.yaml]\n",
		"suite/s-dir.yaml":    "include: [p]\n",
		"suite/s-ok.yaml":     "include: [p/a.yaml]\n",
		"suite/p/a.yaml":      incA,
		"x.yaml":              incA,
	})
	if err := os.Symlink(secret, filepath.Join(dir, "suite", "p", "link.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "suite", "fifo.yaml"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "suite", "zero.yaml")); err != nil {
		t.Fatal(err)
	}
	// The suite's "../" names the outside folder relative to the suite's.
	rel, err := filepath.Rel(filepath.Join(dir, "suite"), secret)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "suite", "s-up.yaml"), []byte("include: [\""+rel+"\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string]string{
		"s-up.yaml":     "leaves the suite's folder",
		"s-dotdot.yaml": "leaves the suite's folder",
		"s-link.yaml":   "leaves the suite's folder",
		"s-glob.yaml":   "leaves the suite's folder (a symbolic link?)",
		"s-fifo.yaml":   "not a regular file (a named pipe)",
		"s-zero.yaml":   "leaves the suite's folder",
		"s-dir.yaml":    "not a regular file (a folder)",
	} {
		_, err := Load(filepath.Join(dir, "suite", file), reg)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %s", file, err, want)
		}
		if err != nil && strings.Contains(err.Error(), "secret line") {
			t.Errorf("%s: the error echoes the file's content: %v", file, err)
		}
	}
	if _, err := Load(filepath.Join(dir, "suite", "s-ok.yaml"), reg); err != nil {
		t.Errorf("an include below the suite's folder: %v", err)
	}
	// Named directly, a file that is no sweep is described, not echoed.
	_, err = Load(secret, reg)
	if err == nil || strings.Contains(err.Error(), "secret line") || !strings.Contains(err.Error(), "a string of") {
		t.Errorf("a non-sweep file: %v", err)
	}
	// So is a device named directly.
	if _, err := Load("/dev/zero", reg); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("/dev/zero: %v", err)
	}
}
