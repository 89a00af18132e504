package datatest

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func TestRootHasGoMod(t *testing.T) {
	root := Root(t)
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil || !declares(string(b), "schedfarm") {
		t.Fatalf("Root = %s: go.mod %v", root, err)
	}
}

func TestDeclares(t *testing.T) {
	for _, c := range []struct {
		gomod string
		want  bool
	}{
		{"module schedfarm\n\ngo 1.26\n", true},
		{"// comment\nmodule \"schedfarm\"\n", true},
		{"module schedfarm/sub\n", false},
		{"module other\n", false},
		{"go 1.26\n", false},
	} {
		if got := declares(c.gomod, "schedfarm"); got != c.want {
			t.Errorf("declares(%q) = %v, want %v", c.gomod, got, c.want)
		}
	}
}

// TestFixturesPinned: every fixture under this package's testdata/traces has the SHA-256
// that testdata/traces/SHA256SUMS records (scripts/fixtures.sh writes
// both), and every fixture is listed: a changed fixture would silently
// change the schedules that tests pin on it.
func TestFixturesPinned(t *testing.T) {
	dir := filepath.Join(Fixtures(t)[0], "traces")
	sums, err := os.ReadFile(filepath.Join(dir, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	listed := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(sums))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 2 {
			t.Fatalf("SHA256SUMS: bad line %q", sc.Text())
		}
		b, err := os.ReadFile(filepath.Join(dir, f[1]))
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.Sum256(b)
		if got := hex.EncodeToString(h[:]); got != f[0] {
			t.Errorf("%s: SHA-256 %s, pinned %s (re-derive with scripts/fixtures.sh and re-pin what depends on it)", f[1], got, f[0])
		}
		listed[f[1]] = true
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.swf*"))
	if len(files) == 0 {
		t.Fatal("no fixtures")
	}
	var total int64
	for _, f := range files {
		if !listed[filepath.Base(f)] {
			t.Errorf("%s is not in SHA256SUMS", f)
		}
		st, _ := os.Stat(f)
		total += st.Size()
	}
	if total > 2<<20 {
		t.Errorf("fixtures take %d bytes; keep them under 2 MB", total)
	}
}

// fakeTB records what Require does instead of skipping or failing.
type fakeTB struct {
	testing.TB
	skipped, failed string
}

func (f *fakeTB) Helper()                           {}
func (f *fakeTB) Skip(args ...any)                  { f.skipped = fmt.Sprint(args...) }
func (f *fakeTB) Fatalf(format string, args ...any) { f.failed = fmt.Sprintf(format, args...) }

func TestRequireSkipsOrFails(t *testing.T) {
	const name = "traces/no-such-log-1999-1.swf.gz"
	for _, require := range []string{"", "1"} {
		t.Run("require="+require, func(t *testing.T) {
			t.Setenv(RequireEnv, require)
			tb := &fakeTB{TB: t}
			if d := Require(tb, name); d != nil {
				t.Fatalf("Require returned %v for a missing file", d)
			}
			msg := tb.skipped
			if require == "1" {
				if tb.skipped != "" || tb.failed == "" {
					t.Fatalf("with %s=1: skipped %q, failed %q", RequireEnv, tb.skipped, tb.failed)
				}
				msg = tb.failed
			} else if tb.failed != "" || tb.skipped == "" {
				t.Fatalf("without %s: skipped %q, failed %q", RequireEnv, tb.skipped, tb.failed)
			}
			if !strings.Contains(msg, "schedfarm traces fetch no-such-log-1999-1") {
				t.Errorf("message does not say how to get the file: %q", msg)
			}
		})
	}
}

// TestDataListsRepoDataFirst: tests read whole logs from the repository's
// data/ folder first, wherever the test's package is.
func TestDataListsRepoDataFirst(t *testing.T) {
	dirs := Data(t)
	if !strings.HasSuffix(dirs[0], string(filepath.Separator)+"data") || !filepath.IsAbs(dirs[0]) {
		t.Fatalf("Data()[0] = %q, want <root>/data", dirs[0])
	}
}

// outsidePath matches what a file of the product must not name: the team's
// workspace beside the checkout, or a folder of a developer's or CI
// machine.
var (
	sharedRef  = regexp.MustCompile(`\.\./shared\b`)
	machineAbs = regexp.MustCompile(`(^|[^.\w/])/(work|home|root|Users)/`)
)

// TestNoPathsOutsideTheRepository: a fresh clone must stand alone. No
// tracked file but .ci/run names the team's workspace beside the checkout
// (absent on a user's machine), and no Go, shell or sweep file names an absolute
// path of a developer's or CI machine (the container's own paths in
// Dockerfile and docker-compose.yml are fine).
func TestNoPathsOutsideTheRepository(t *testing.T) {
	trackedTexts(t, func(rel string) bool { return rel == ".ci/run" }, func(rel string, b []byte) {
		container := rel == "Dockerfile" || rel == "docker-compose.yml"
		code := !container && (slices.Contains([]string{".go", ".sh", ".yaml", ".yml"}, filepath.Ext(rel)) || strings.HasPrefix(rel, "scripts/"))
		for i, line := range strings.Split(string(b), "\n") {
			if sharedRef.MatchString(line) {
				t.Errorf("%s:%d names %s, which a user's machine does not have: %s", rel, i+1, sharedRef.FindString(line), strings.TrimSpace(line))
			}
			if code && machineAbs.MatchString(line) {
				t.Errorf("%s:%d names an absolute path of a machine: %s", rel, i+1, strings.TrimSpace(line))
			}
		}
	})
}

// trackedTexts calls check with every tracked text file's path and
// content, but those skip names (files deleted in the working tree and
// binary files are left out too).
func trackedTexts(t *testing.T, skip func(rel string) bool, check func(rel string, b []byte)) {
	t.Helper()
	root := Root(t)
	files := trackedFiles(t, root)
	if len(files) < 50 {
		t.Fatalf("only %d files found under %s", len(files), root)
	}
	for _, rel := range files {
		if skip(rel) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			if os.IsNotExist(err) {
				continue // deleted in the working tree
			}
			t.Fatal(err)
		}
		if bytes.IndexByte(b, 0) >= 0 {
			continue // binary (Parquet, PNG, gzip)
		}
		check(rel, b)
	}
}

// trackedFiles lists the files git tracks under root, or every file below
// it (but .git) when root is not a git checkout.
func trackedFiles(t *testing.T, root string) []string {
	t.Helper()
	if _, err := os.Stat(filepath.Join(root, ".git")); err == nil {
		if _, err := exec.LookPath("git"); err == nil {
			out, err := exec.Command("git", "-C", root, "ls-files", "-z").Output()
			if err != nil {
				t.Fatalf("git ls-files: %v", err)
			}
			var files []string
			for _, f := range strings.Split(string(out), "\x00") {
				if f != "" {
					files = append(files, f)
				}
			}
			return files
		}
	}
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || p == filepath.Join(root, "data") || p == filepath.Join(root, "runs")) {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(root, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}
