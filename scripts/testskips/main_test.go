package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSummarizeRealGoTest runs `go test -json` on a small module of one
// passing, one skipped and one failing test (and a passing subtest) and
// checks what the summary says of each, and its exit status.
func TestSummarizeRealGoTest(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/m\n\ngo 1.26\n")
	write("m_test.go", `package m

import "testing"

func TestOK(t *testing.T) { t.Run("sub", func(t *testing.T) {}) }

func TestNeedsData(t *testing.T) { t.Skip("data/x.gz is missing: go run ./cmd/schedfarm traces fetch x") }

func TestBroken(t *testing.T) {
	t.Log("the first line of its story")
	t.Fatal("and how it ended")
}
`)
	cmd := exec.Command("go", "test", "-json", "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=", "GOWORK=off")
	out, _ := cmd.Output() // exit 1: a test fails
	var b strings.Builder
	code := summarize(strings.NewReader(string(out)), &b)
	got := b.String()
	t.Logf("summary:\n%s", got)
	if code != 1 {
		t.Errorf("exit status %d, want 1 (a test failed)", code)
	}
	for _, want := range []string{
		"FAIL\texample.com/m\t",
		"1 skipped test(s):",
		"  example.com/m TestNeedsData: m_test.go:7: data/x.gz is missing: go run ./cmd/schedfarm traces fetch x\n",
		"1 failed test(s), 1 failed package(s):",
		"--- FAIL example.com/m TestBroken\n",
		"the first line of its story",
		"and how it ended",
		"1 package(s), 2 test(s) passed, 1 skipped, 1 failed",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the summary does not say %q", want)
		}
	}
	if strings.Contains(got, "--- FAIL example.com/m TestOK") {
		t.Error("a passing test is listed as failed")
	}
}

// TestSummarizeExitStatus: all passing (skips included) is 0; a failed
// package without failed tests (a build failure), or no result at all, is
// 1; lines that are not JSON are passed on.
func TestSummarizeExitStatus(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		code     int
		says     []string
	}{
		{"pass", `{"Action":"run","Package":"p","Test":"TestA"}
{"Action":"output","Package":"p","Test":"TestA","Output":"    a_test.go:3: needs chromium (Debian package chromium)\n"}
{"Action":"skip","Package":"p","Test":"TestA","Elapsed":0}
{"Action":"pass","Package":"p","Elapsed":0.5}
`, 0, []string{"ok\tp\t0.5s", "p TestA: a_test.go:3: needs chromium (Debian package chromium)"}},
		{"build failure", `go: downloading example.com/x v1.0.0
{"ImportPath":"q [q.test]","Action":"build-output","Output":"q/q.go:3:1: syntax error\n"}
{"Action":"output","Package":"q","Output":"FAIL\tq [build failed]\n"}
{"Action":"fail","Package":"q","Elapsed":0}
`, 1, []string{"go: downloading example.com/x v1.0.0", "--- FAIL package q", "FAIL\tq [build failed]"}},
		{"nothing", "", 1, []string{"no package results read"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			if code := summarize(strings.NewReader(tc.in), &b); code != tc.code {
				t.Errorf("exit status %d, want %d:\n%s", code, tc.code, b.String())
			}
			for _, w := range tc.says {
				if !strings.Contains(b.String(), w) {
					t.Errorf("output does not say %q:\n%s", w, b.String())
				}
			}
		})
	}
}
