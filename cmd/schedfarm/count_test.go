package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCountWithoutBuilding: `expand --count` and `validate --max-jobs N`
// count a sweep of 10^9 jobs from its axes, without building the jobs
// (which would need about 100 GB), and with exclusions by a count-only
// pass.
func TestCountWithoutBuilding(t *testing.T) {
	dir := t.TempDir()
	huge := filepath.Join(dir, "huge.yaml")
	text := "name: huge\nmodel: bench\nseed: 1\nreplicates: 1000\naxes:\n  - {name: size, range: {from: 1, to: 1000, step: 1}}\n  - {name: rows, range: {from: 1, to: 1000, step: 1}}\n"
	if err := os.WriteFile(huge, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	excl := filepath.Join(dir, "excl.yaml")
	if err := os.WriteFile(excl, []byte(text+"exclude:\n  - {size: 1}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if o := execute(t, "expand", "--count", "--max-jobs", "2000000000", huge); o.err != nil || strings.TrimSpace(o.stdout) != "1000000000" {
		t.Errorf("expand --count: %s", o)
	}
	if o := execute(t, "validate", "--max-jobs", "2000000000", huge); o.err != nil || !strings.Contains(o.stdout, "1 sweep(s), 1000000000 jobs") {
		t.Errorf("validate --max-jobs: %s", o)
	}
	if o := execute(t, "expand", "--count", "--max-jobs", "2000000000", excl); o.err != nil || strings.TrimSpace(o.stdout) != "999000000" {
		t.Errorf("expand --count with an exclusion: %s", o)
	}
	if o := execute(t, "expand", "--count", huge); o.err == nil || !strings.Contains(o.err.Error(), "over the limit") {
		t.Errorf("expand --count over the default limit: %s", o)
	}
}

// TestFileTextEscaped: a key or a value of a sweep file that holds a
// terminal escape reaches the terminal escaped, from validate's errors and
// from expand's table.
func TestFileTextEscaped(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("name: a\nmodel: bench\nseed: 1\n\"k\\e[2J\": 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o := execute(t, "validate", bad)
	if o.err == nil || strings.Contains(o.stderr, "\x1b") || !strings.Contains(o.stderr, `k\x1b[2J`) {
		t.Errorf("validate printed the escape raw or not at all: %q", o.stderr)
	}
	if strings.Contains(safeLines(o.err.Error()), "\x1b") {
		t.Errorf("the final error keeps the escape: %q", o.err)
	}
	good := filepath.Join(dir, "good.yaml")
	if err := os.WriteFile(good, []byte("name: a\nmodel: batch\nseed: 1\nparams: {trace: \"x\\e]0;owned\\a.swf\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o = execute(t, "expand", good)
	if strings.ContainsAny(o.stdout+o.stderr, "\x1b\x07") {
		t.Errorf("expand printed a raw escape: %q %q", o.stdout, o.stderr)
	}
}
