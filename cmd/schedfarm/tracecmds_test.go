package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"schedfarm/farmtest"
	"schedfarm/simcore/workload"
)

// executeWith runs the command tree in-process, like execute, on an app
// whose known traces are known.
func executeWith(t *testing.T, known []workload.KnownTrace, args ...string) outcome {
	t.Helper()
	a := newApp()
	a.known = known
	var out, errb farmtest.SyncBuffer // the command's logs are written from its goroutines
	a.root.SetArgs(args)
	a.root.SetOut(&out)
	a.root.SetErr(&errb)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	err := a.root.ExecuteContext(ctx)
	return outcome{args: args, stdout: out.String(), stderr: errb.String(), err: err}
}

// fakeTrace writes a small log into dir and returns its table entry; its
// URL is a closed port, never asked when a mirror holds the file.
func fakeTrace(t *testing.T, dir, file string, jobs int) workload.KnownTrace {
	t.Helper()
	var b strings.Builder
	b.WriteString("; MaxNodes: 4\n")
	for i := 1; i <= jobs; i++ {
		fmt.Fprintf(&b, "%d %d 0 100 2 -1 -1 2 200 -1 1 1 1 -1 -1 -1 -1 -1\n", i, 10*i)
	}
	writeFile(t, filepath.Join(dir, file), b.String())
	sum := sha256.Sum256([]byte(b.String()))
	return workload.KnownTrace{File: file, URL: "http://127.0.0.1:1/" + file, SHA256: hex.EncodeToString(sum[:]), Size: int64(b.Len()), Jobs: jobs}
}

var fetchedLine = regexp.MustCompile(`(?m)^fetched (\S+): [\d.]+ (B|kB|MB) in [\d.]+ s \([^)]*\), sha256 ok$`)

// fetchedFiles returns the files of the "fetched FILE: ..." lines.
func fetchedFiles(o outcome) []string {
	var out []string
	for _, m := range fetchedLine.FindAllStringSubmatch(o.stdout, -1) {
		out = append(out, m[1])
	}
	return out
}

// TestTracesFetchMirror fetches from a mirror directory into the data
// directory: one line per file, the name as the user likes it, a second
// run finds them present; a real known trace whose mirror copy mismatches
// is an error naming it and both hashes, and nothing is written.
func TestTracesFetchMirror(t *testing.T) {
	t.Parallel()
	mirror, data := t.TempDir(), t.TempDir()
	tiny := fakeTrace(t, mirror, "tiny.swf", 3)
	other := fakeTrace(t, mirror, "other.swf", 5)
	known := []workload.KnownTrace{tiny, other}

	o := executeWith(t, known, "traces", "fetch", "--mirror", mirror, "--data-dir", data, "tiny", "traces/other.swf")
	mustSucceed(t, o)
	want := []string{filepath.Join(data, "traces", "tiny.swf"), filepath.Join(data, "traces", "other.swf")}
	if got := fetchedFiles(o); strings.Join(got, " ") != strings.Join(want, " ") || strings.Count(o.stdout, "\n") != 2 {
		t.Errorf("fetched %v, want one line for each of %v:\n%s", got, want, o)
	}
	for i, k := range known {
		b, err := os.ReadFile(want[i])
		if err != nil {
			t.Fatal(err)
		}
		if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != k.SHA256 {
			t.Errorf("%s does not match", want[i])
		}
	}

	o = executeWith(t, known, "traces", "fetch", "--mirror", mirror, "--data-dir", data, "tiny.swf")
	mustSucceed(t, o)
	if w := "present " + want[0] + " (sha256 ok)\n"; o.stdout != w {
		t.Errorf("second fetch printed %q, want %q", o.stdout, w)
	}

	ctc := workload.Known[0]
	fake := writeFile(t, filepath.Join(mirror, ctc.File), "not the CTC log\n")
	o = execute(t, "traces", "fetch", "--mirror", mirror, "--data-dir", data, "CTC-SP2-1996-3.1-cln")
	wantExit(t, o, exitFailures)
	fakeSum := sha256.Sum256([]byte("not the CTC log\n"))
	for _, w := range []string{filepath.Join(data, "traces", ctc.File) + " from " + fake, "checksum mismatch", hex.EncodeToString(fakeSum[:]), ctc.SHA256} {
		if !strings.Contains(o.stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, o)
		}
	}
	for _, p := range []string{filepath.Join(data, "traces", ctc.File), filepath.Join(data, "traces", ctc.File+".part")} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s exists after a mismatch (%v)", p, err)
		}
	}
}

// TestTracesFetchFor fetches exactly the logs a sweep file reads; a data
// file that is not a known trace is an error while missing, and fine once
// present.
func TestTracesFetchFor(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mirror, data := filepath.Join(dir, "mirror"), filepath.Join(dir, "data")
	known := []workload.KnownTrace{
		fakeTrace(t, mirror, "unused.swf", 2),
		fakeTrace(t, mirror, "tiny.swf", 3),
		fakeTrace(t, mirror, "other.swf", 4),
	}
	file := writeFile(t, filepath.Join(dir, "sweep.yaml"), `sweeps:
  - name: tiny
    model: batch
    seed: 1
    params: {trace: traces/tiny.swf, nodes: 4}
    axes:
      - {name: backfill, values: [none, easy]}
  - name: other
    model: batch
    seed: 1
    params: {trace: traces/other.swf, nodes: 4}
  - name: nights
    model: dssp
    seed: 1
    params:
      workload: file
      nights_file: nights/mine.csv
  - name: synthetic
    model: divisible
    seed: 1
`)
	o := executeWith(t, known, "traces", "fetch", "--mirror", mirror, "--data-dir", data, "--for", file)
	wantExit(t, o, exitFailures)
	want := []string{filepath.Join(data, "traces", "tiny.swf"), filepath.Join(data, "traces", "other.swf")}
	if got := fetchedFiles(o); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("fetched %v, want %v:\n%s", got, want, o)
	}
	if _, err := os.Stat(filepath.Join(data, "traces", "unused.swf")); !os.IsNotExist(err) {
		t.Errorf("fetched a log the sweep does not read (%v)", err)
	}
	if w := "error: nights/mine.csv (sweep nights of " + file + ", parameter nights_file) is not a known trace: `traces fetch` cannot get it"; !strings.Contains(o.stderr, w) {
		t.Errorf("stderr lacks %q:\n%s", w, o)
	}

	writeFile(t, filepath.Join(data, "nights", "mine.csv"), "night\n")
	o = executeWith(t, known, "traces", "fetch", "--mirror", mirror, "--data-dir", data, "--for", file)
	mustSucceed(t, o)
	wantOut := "present " + want[0] + " (sha256 ok)\npresent " + want[1] + " (sha256 ok)\n" +
		"present nights/mine.csv (sweep nights, parameter nights_file: not a known trace, no checksum to check)\n"
	if o.stdout != wantOut {
		t.Errorf("stdout:\n%s\nwant:\n%s", o.stdout, wantOut)
	}
}

// TestTracesFetchForMissingSweep: --for a sweep file that does not load
// is bad input.
func TestTracesFetchForMissingSweep(t *testing.T) {
	t.Parallel()
	o := execute(t, "traces", "fetch", "--data-dir", t.TempDir(), "--for", filepath.Join(t.TempDir(), "none.yaml"))
	wantExit(t, o, exitUsage)
}

// TestTracesFetchNames: an unknown name is bad input listing the known
// names; so is naming nothing; nothing is fetched.
func TestTracesFetchNames(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	o := execute(t, "traces", "fetch", "--data-dir", data, "CTC-SP2-1996-3.1-cln", "CTC-SP2", "other/KTH-SP2-1996-2.1-cln")
	wantExit(t, o, exitUsage)
	for _, w := range []string{`unknown trace(s) "CTC-SP2", "other/KTH-SP2-1996-2.1-cln"`, "the known traces are: CTC-SP2-1996-3.1-cln, SDSC-Par-1996-3.1-cln,", "NASA-iPSC-1993-3.1-cln"} {
		if !strings.Contains(o.err.Error(), w) {
			t.Errorf("error lacks %q:\n%s", w, o)
		}
	}
	o = execute(t, "traces", "fetch", "--data-dir", data)
	wantExit(t, o, exitUsage)
	if !strings.Contains(o.err.Error(), "--all or --for") {
		t.Errorf("naming nothing:\n%s", o)
	}
	if entries, _ := os.ReadDir(data); len(entries) != 0 {
		t.Errorf("bad input wrote into the data dir: %v", entries)
	}
}

// TestTracesFetchForce: a file present with another checksum is an error
// that says --force replaces it; --force does, --all fetches the rest.
func TestTracesFetchForce(t *testing.T) {
	t.Parallel()
	mirror, data := t.TempDir(), t.TempDir()
	known := []workload.KnownTrace{fakeTrace(t, mirror, "a.swf", 2), fakeTrace(t, mirror, "b.swf", 3)}
	writeFile(t, filepath.Join(data, "traces", "a.swf"), "edited\n")
	o := executeWith(t, known, "traces", "fetch", "--mirror", mirror, "--data-dir", data, "a")
	wantExit(t, o, exitFailures)
	if w := "already present with another checksum"; !strings.Contains(o.stderr, w) || !strings.Contains(o.stderr, "pass --force to replace it") {
		t.Errorf("stderr lacks %q and --force:\n%s", w, o)
	}
	o = executeWith(t, known, "traces", "fetch", "--mirror", mirror, "--data-dir", data, "--force", "--all")
	mustSucceed(t, o)
	if got := fetchedFiles(o); len(got) != 2 {
		t.Errorf("fetched %v, want a.swf and b.swf:\n%s", got, o)
	}
	o = executeWith(t, known, "traces", "--data-dir", data)
	mustSucceed(t, o)
	if strings.Count(o.stdout, " ok ") != 2 {
		t.Errorf("listing after --force --all:\n%s", o)
	}
}

// TestTracesListMissing: the listing's footer says how to fetch what is
// missing.
func TestTracesListMissing(t *testing.T) {
	t.Parallel()
	data := t.TempDir()
	o := execute(t, "traces", "--data-dir", data)
	mustSucceed(t, o)
	if w := "15 trace(s) missing from [" + data + "]: run `schedfarm traces fetch --all` (or `--for SWEEP`"; !strings.Contains(o.stdout, w) {
		t.Errorf("stdout lacks %q:\n%s", w, o)
	}
	if w := "into " + data + "/traces/"; !strings.Contains(o.stdout, w) {
		t.Errorf("stdout lacks %q:\n%s", w, o)
	}
}

// TestTracesNonRegular: a FIFO or a link to /dev/zero where a known trace
// belongs is listed by `traces` as an error naming its kind, and refused
// by `traces fetch` (also from a mirror), without blocking on it or
// reading it.
func TestTracesNonRegular(t *testing.T) {
	t.Parallel()
	src := t.TempDir()
	a, b := fakeTrace(t, src, "a.swf", 3), fakeTrace(t, src, "b.swf", 3)
	data, mirror := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(data, "traces"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(data, "traces", "a.swf"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(data, "traces", "b.swf")); err != nil {
		t.Fatal(err)
	}
	o := executeWith(t, []workload.KnownTrace{a, b}, "traces", "--data-dir", data)
	mustSucceed(t, o)
	for _, w := range []string{"not a regular file (a named pipe)", "not a regular file (a device)"} {
		if !strings.Contains(o.stdout, w) {
			t.Errorf("the listing lacks %q:\n%s", w, o)
		}
	}
	o = executeWith(t, []workload.KnownTrace{a, b}, "traces", "fetch", "--all", "--data-dir", data, "--mirror", mirror)
	if o.err == nil || strings.Count(o.stderr, "not a regular file") != 2 {
		t.Errorf("fetch over a FIFO and a device: %s", o)
	}
	// The same in a mirror.
	data = t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(mirror, "a.swf"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(mirror, "b.swf")); err != nil {
		t.Fatal(err)
	}
	o = executeWith(t, []workload.KnownTrace{a, b}, "traces", "fetch", "--all", "--data-dir", data, "--mirror", mirror)
	for _, w := range []string{"not a regular file (a named pipe)", "not a regular file (a device)"} {
		if o.err == nil || !strings.Contains(o.stderr, w) {
			t.Errorf("fetch from a mirror lacks %q:\n%s", w, o)
		}
	}
}
