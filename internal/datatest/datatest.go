// Package datatest finds the repository's data for tests: the small
// fixtures committed under testdata/ at the repository root, and the data
// directory that holds whole workload logs (fetched with `schedfarm traces
// fetch`). Tests over whole logs go through Require: it skips with one line
// when the file is absent and fails instead when SCHEDFARM_REQUIRE_DATA=1
// (CI sets it after seeding the data directory, so CI cannot pass by
// skipping).
package datatest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"schedfarm/simcore"
)

// RequireEnv is the environment variable that turns a skip for missing
// data into a failure.
const RequireEnv = "SCHEDFARM_REQUIRE_DATA"

// module is the module path go.mod must declare for its folder to be the
// repository's root.
const module = "schedfarm"

// Root returns the repository's root: the nearest folder above the working
// directory whose go.mod declares module schedfarm.
func Root(tb testing.TB) string {
	tb.Helper()
	root, err := findRoot()
	if err != nil {
		tb.Fatal(err)
	}
	return root
}

func findRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("datatest: working directory: %w", err)
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && declares(string(b), module) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("datatest: no go.mod of module %s above the working directory", module)
		}
		dir = parent
	}
}

// declares reports whether a go.mod text declares module mod.
func declares(gomod, mod string) bool {
	for _, line := range strings.Split(gomod, "\n") {
		f := strings.Fields(line)
		if len(f) == 2 && f[0] == "module" && strings.Trim(f[1], `"`) == mod {
			return true
		}
	}
	return false
}

// Fixtures is this package's testdata/ folder as a data directory: it
// holds small files derived from the real logs (traces/, made by
// scripts/fixtures.sh), present in every clone.
func Fixtures(tb testing.TB) simcore.Dirs {
	tb.Helper()
	return simcore.Dirs{filepath.Join(Root(tb), "internal", "datatest", "testdata")}
}

// Data is the data-directory list tests read whole logs from: the
// repository's data/ folder, then the user's cache folder of the farm's
// default list (simcore.DefaultDataDirs).
func Data(tb testing.TB) simcore.Dirs {
	tb.Helper()
	d := simcore.Dirs{filepath.Join(Root(tb), simcore.DataDirName)}
	for _, dir := range simcore.DefaultDataDirs() {
		if filepath.IsAbs(dir) {
			d = append(d, dir)
		}
	}
	return d
}

// Require returns Data(tb) when it holds name (a path relative to a data
// directory, e.g. "traces/CTC-SP2-1996-3.1-cln.swf.gz"). When it does not,
// the test is skipped with one line saying how to get the file, or fails
// with that line when SCHEDFARM_REQUIRE_DATA=1.
func Require(tb testing.TB, name string) simcore.Dirs {
	tb.Helper()
	dirs := Data(tb)
	f, err := dirs.Open(name)
	if err == nil {
		f.Close()
		return dirs
	}
	msg := fmt.Sprintf("%s: %v", name, err)
	if errors.Is(err, fs.ErrNotExist) {
		msg = fmt.Sprintf("%s is not in %s; get it with `go run ./cmd/schedfarm traces fetch %s` from the repository root (every log: traces fetch --all)",
			name, strings.Join(dirs, ", "), strings.TrimSuffix(strings.TrimSuffix(path.Base(name), ".gz"), ".swf"))
	}
	if os.Getenv(RequireEnv) == "1" {
		tb.Fatalf("%s (%s=1: data-gated tests must run)", msg, RequireEnv)
	} else {
		tb.Skip(msg)
	}
	return nil
}
