// Command testskips reads the output of `go test -json` on stdin and prints
// one line per package as it ends, then every skipped test with the reason
// it gave (what to install or fetch to run it), and last every failure
// with its output in full. It exits 1 when a test or a package failed (or
// nothing was read), 2 when its input is unreadable, so that
//
//	go test -json ./... | go run ./scripts/testskips
//
// fails as `go test ./...` does.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"
)

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Time       time.Time
	Action     string
	Package    string
	ImportPath string // build-output and build-fail events
	Test       string
	Elapsed    float64
	Output     string
}

// key names a test of a package ("" Test: the package itself).
type key struct{ pkg, test string }

// summary is what the events told so far.
type summary struct {
	out      map[key][]string // output lines of each test and package
	build    map[string][]string
	skipped  []key
	failed   []key
	packages map[string]string // package → its final action
	passed   int
}

func newSummary() *summary {
	return &summary{out: map[key][]string{}, build: map[string][]string{}, packages: map[string]string{}}
}

// add takes one event; progress gets a line per package that ends.
func (s *summary) add(e event, progress io.Writer) {
	switch e.Action {
	case "build-output":
		s.build[e.ImportPath] = append(s.build[e.ImportPath], e.Output)
		return
	case "build-fail":
		return
	}
	k := key{e.Package, e.Test}
	switch e.Action {
	case "output":
		s.out[k] = append(s.out[k], e.Output)
	case "skip":
		if e.Test != "" {
			s.skipped = append(s.skipped, k)
		} else {
			s.packages[e.Package] = e.Action
		}
	case "fail":
		if e.Test != "" {
			s.failed = append(s.failed, k)
		} else {
			s.packages[e.Package] = e.Action
			fmt.Fprintf(progress, "FAIL\t%s\t%.1fs\n", e.Package, e.Elapsed)
		}
	case "pass":
		if e.Test != "" {
			s.passed++
		} else {
			s.packages[e.Package] = e.Action
			fmt.Fprintf(progress, "ok\t%s\t%.1fs\n", e.Package, e.Elapsed)
		}
	}
}

// reason is what a skipped test printed besides the lines go test adds
// itself ("=== RUN", "--- SKIP"), on one line.
func (s *summary) reason(k key) string {
	var parts []string
	for _, l := range s.out[k] {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- SKIP") {
			continue
		}
		parts = append(parts, t)
	}
	if len(parts) == 0 {
		return "(no reason given)"
	}
	return strings.Join(parts, " ")
}

// report writes the skips and the failures and returns the exit status.
func (s *summary) report(w io.Writer) int {
	sort.Slice(s.skipped, func(i, j int) bool {
		a, b := s.skipped[i], s.skipped[j]
		return a.pkg < b.pkg || a.pkg == b.pkg && a.test < b.test
	})
	fmt.Fprintf(w, "\n%d skipped test(s):\n", len(s.skipped))
	for _, k := range s.skipped {
		fmt.Fprintf(w, "  %s %s: %s\n", k.pkg, k.test, s.reason(k))
	}
	var failedPkgs []string
	for p, a := range s.packages {
		if a == "fail" {
			failedPkgs = append(failedPkgs, p)
		}
	}
	sort.Strings(failedPkgs)
	if len(s.failed) > 0 || len(failedPkgs) > 0 {
		fmt.Fprintf(w, "\n%d failed test(s), %d failed package(s):\n", len(s.failed), len(failedPkgs))
		for _, k := range s.failed {
			fmt.Fprintf(w, "\n--- FAIL %s %s\n%s", k.pkg, k.test, strings.Join(s.out[k], ""))
		}
		for _, p := range failedPkgs {
			fmt.Fprintf(w, "\n--- FAIL package %s\n%s%s", p, strings.Join(s.build[p], ""), strings.Join(s.out[key{p, ""}], ""))
		}
	}
	fmt.Fprintf(w, "\n%d package(s), %d test(s) passed, %d skipped, %d failed\n", len(s.packages), s.passed, len(s.skipped), len(s.failed))
	switch {
	case len(s.failed) > 0 || len(failedPkgs) > 0:
		return 1
	case len(s.packages) == 0:
		fmt.Fprintln(w, "testskips: no package results read: give it the output of go test -json")
		return 1
	}
	return 0
}

// summarize reads go test -json from r and writes the package lines and
// the report to w; lines that are not JSON (go's own messages) go to w as
// they are. It returns the exit status.
func summarize(r io.Reader, w io.Writer) int {
	s := newSummary()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
			fmt.Fprintf(w, "%s\n", line)
			continue
		}
		s.add(e, w)
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintln(w, "testskips: reading stdin:", err)
		return 2
	}
	return s.report(w)
}

func main() {
	os.Exit(summarize(os.Stdin, os.Stdout))
}
