package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"schedfarm/farmtest"
	"schedfarm/simcore/workload"
	"schedfarm/sweep"
	"schedfarm/tracefetch"
)

// The test in this file runs the ```sh command blocks of README.md and
// docs/quickstart.md as a new user would type them, through the real
// binary, in a scratch copy of the repository (the docs' docScript says
// what the test changes: the documented host, ports and paths, the
// placeholders). TestDocCommands (docs_test.go) checks every command
// shown in the docs against the command tree; this test runs the blocks.
//
// What a block's line becomes:
//   - a command, as written, after the doc's substitutions (each must
//     match: a doc that changed fails the test until the test follows it)
//     and with <run-id> or <run> filled in from the previous block's
//     output;
//   - `schedfarm server`, `coordinator` and `worker` (with what precedes
//     them on the line: environment variables) are started by the test in
//     the background, in the order of the block, and stopped after it;
//   - a line of the doc's notRun list is not run, for the reason given;
//   - `go run ./cmd/schedfarm`, `go install ./cmd/schedfarm` and `go build
//     -o FILE ./cmd/schedfarm` take the binary the test built once (what Go
//     builds on the first call and takes from its build cache after); any
//     other go command is the real one.
//
// `traces fetch` takes the logs from a loopback HTTP mirror of the
// repository's data/traces/ (SCHEDFARM_MIRROR); a block that needs a log
// that is not there is skipped, saying which command fetches it, and fails
// under SCHEDFARM_REQUIRE_DATA=1.

// docBlockWait bounds one block's commands: a test timeout, not a verdict
// (the docs' runs take seconds; a hung command fails instead of hanging).
const docBlockWait = 5 * time.Minute

// docBackgroundWait bounds the wait for a background command: the server's
// port to accept connections, a command's exit after SIGTERM.
const docBackgroundWait = time.Minute

// docMaxJobs is the largest sweep a documented `run` may have to be run
// here; a larger one (a paper-scale run, hours) must be in notRun.
const docMaxJobs = 2000

// docScript says how the test runs one document's ```sh blocks.
type docScript struct {
	doc string
	// cloned: the test clones the repository and runs the blocks in the
	// clone; otherwise in an empty folder, where the doc's first block
	// clones it.
	cloned bool
	// subst replaces documented text (a host, a port, a path) by the
	// test's; each must match at least once in the doc's blocks.
	subst []docSubst
	// notRun are commands not run here, each with the reason.
	notRun []docNotRun
	// checks judge what a command did against what the doc says of it;
	// each must match a command of the doc's blocks.
	checks []docCheck
}

type docSubst struct{ from, to string }

// docNotRun is a command (a line's text, without its comment) not run.
type docNotRun struct{ line, reason string }

// docCheck is run after the block holding a command containing line.
type docCheck struct {
	line  string
	what  string
	check func(r docResult) error
}

// docResult is what a block did.
type docResult struct {
	dir     string   // the working directory after the block
	out     string   // its commands' stdout and stderr
	text    string   // the block as the doc has it
	shown   string   // the output the doc shows after the block, if any
	newRuns []string // result folders runs/<sweep>/<run-id> the block created, relative to dir
}

// docEnv is what every document's blocks share.
type docEnv struct {
	bin     string // schedfarm, built once
	bash    string
	src     string // a git repository of the checkout's files
	mirror  string // base URL of the loopback trace mirror
	dataDir string // the checkout's data dir, behind the mirror
	env     []string
	gobin   string
	traces  map[string][]workload.KnownTrace // by sweep file, once expanded
}

// TestDocBlocks runs the ```sh blocks of README.md and docs/quickstart.md
// as written (see the top of this file for what the test puts in place of
// the documented hosts, ports, paths and placeholders) and checks what
// each command did against what the doc says of it.
func TestDocBlocks(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the docs' command blocks through the real binary (-short)")
	}
	t.Parallel()
	e := newDocEnv(t)
	// fig3 checks Lin's Fig. 3 run: claims < 0, the claims the output
	// shown after the block has; 0, as many as the block says ("N claims:
	// PASS").
	fig3 := func(claims int) docCheck {
		return docCheck{"run configs/lin2007/fig3.yaml", "→ runs/lin2007-fig3/<run-id>/figures/fig3.png, report.html, its claims PASS", func(r docResult) error {
			dir, err := r.oneRun("lin2007-fig3")
			if err != nil {
				return err
			}
			return errors.Join(r.exists(dir, "figures/fig3.png"), r.exists(dir, "report.html"), r.claimsPass(dir, claims))
		}}
	}
	port := farmtest.FreePort(t)
	store := filepath.Join(t.TempDir(), "store")
	for _, ds := range []docScript{
		{
			doc:    "README.md",
			cloned: true,
			subst: []docSubst{
				{"--host 0.0.0.0", "--host 127.0.0.1"},
				{"--port 4222", "--port " + strconv.Itoa(port)},
				{"--store-dir /var/lib/schedfarm", "--store-dir " + store},
				{"nats://A:4222", "nats://127.0.0.1:" + strconv.Itoa(port)},
			},
			notRun: []docNotRun{
				{"go test ./...", "the test suite, of which this test is a part (CI runs it)"},
			},
			checks: []docCheck{
				{"run configs/smoke.yaml", "results under runs/smoke/<run-id>/ with a report.html", func(r docResult) error {
					dir, err := r.oneRun("smoke")
					if err != nil {
						return err
					}
					return r.exists(dir, "report.html")
				}},
				fig3(0), // "and five claims: PASS"
				{"submit --wait configs/smoke.yaml", "the run ID in $RUN, the run ended", nil},
				{"status $RUN", "the run's status", nil},
				{"collect $RUN", "→ runs/smoke/$RUN/ with the Parquet tables", func(r docResult) error {
					dir, err := r.oneRun("smoke")
					if err != nil {
						return err
					}
					return errors.Join(r.exists(dir, "jobs.parquet"), r.exists(dir, "summary.parquet"))
				}},
				{"report $RUN", "report.html in the run's folder", func(r docResult) error {
					dir, err := r.oneRun("smoke")
					if err != nil {
						return err
					}
					return r.exists(dir, "report.html")
				}},
			},
		},
		{
			doc:   "docs/quickstart.md",
			subst: []docSubst{{"<this repository>", e.src}},
			checks: []docCheck{
				{"git clone", "a clone, the working directory", func(r docResult) error {
					return r.exists(".", "go.mod")
				}},
				{"go install ./cmd/schedfarm", "schedfarm in $(go env GOBIN)", func(r docResult) error {
					return r.exists(e.gobin, "schedfarm")
				}},
				{"schedfarm version", "the version line", func(r docResult) error {
					if !regexp.MustCompile(`(?m)^schedfarm \S`).MatchString(r.out) {
						return errors.New("no line `schedfarm VERSION …`")
					}
					return nil
				}},
				{"run configs/smoke.yaml", "runs/smoke/<run-id>/report.html, the claims shown PASS", func(r docResult) error {
					dir, err := r.oneRun("smoke")
					if err != nil {
						return err
					}
					return errors.Join(r.exists(dir, "report.html"), r.claimsPass(dir, -1))
				}},
				{"ls runs/smoke/", "the files the doc lists", func(r docResult) error {
					var errs []error
					for _, name := range strings.Fields(r.shown) {
						if !slices.Contains(strings.Fields(r.out), name) {
							errs = append(errs, fmt.Errorf("the doc lists %s; ls printed:\n%s", name, r.out))
						}
					}
					if r.shown == "" {
						errs = append(errs, errors.New("the doc shows no output after the block"))
					}
					return errors.Join(errs...)
				}},
				{"traces fetch --for configs/all.yaml", "the logs in data/traces/", func(r docResult) error {
					var errs []error
					for _, k := range e.tracesFor(t, "configs/all.yaml") {
						errs = append(errs, r.exists("data/traces", k.File))
					}
					return errors.Join(errs...)
				}},
				fig3(-1), // the claims of the output shown
			},
		},
	} {
		t.Run(strings.ReplaceAll(ds.doc, "/", "_"), func(t *testing.T) {
			e.runDoc(t, ds)
		})
	}
}

// newDocEnv builds the binary, writes the go wrapper, makes a git
// repository of the checkout's files and starts the trace mirror.
func newDocEnv(t *testing.T) *docEnv {
	t.Helper()
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the test builds schedfarm with go: %v", err)
	}
	e := &docEnv{traces: map[string][]workload.KnownTrace{}}
	if e.bash, err = exec.LookPath("bash"); err != nil {
		t.Skip("the docs' blocks are run with bash: install bash")
	}
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("the quickstart clones the repository: install git")
	}
	tmp := t.TempDir()
	binDir, wrapDir := filepath.Join(tmp, "bin"), filepath.Join(tmp, "wrap")
	e.gobin = filepath.Join(tmp, "gobin")
	e.bin = filepath.Join(binDir, "schedfarm")
	if out, err := exec.Command(goCmd, "build", "-o", e.bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	writeFile(t, filepath.Join(wrapDir, "go"), fmt.Sprintf(docGoWrapper, ShellQuote(e.bin), ShellQuote(goCmd)))
	if err := os.Chmod(filepath.Join(wrapDir, "go"), 0o755); err != nil {
		t.Fatal(err)
	}

	e.src = filepath.Join(tmp, "src")
	copyCheckout(t, repoRoot, e.src)
	gitEnv := append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=docblocks", "GIT_AUTHOR_EMAIL=docblocks@localhost",
		"GIT_COMMITTER_NAME=docblocks", "GIT_COMMITTER_EMAIL=docblocks@localhost")
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"commit", "-q", "--no-verify", "-m", "the checkout's files"}} {
		cmd := exec.Command(git, args...)
		cmd.Dir, cmd.Env = e.src, gitEnv
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s in %s: %v\n%s", strings.Join(args, " "), e.src, err, out)
		}
	}

	e.dataDir = filepath.Join(repoRoot, "data")
	mirror := httptest.NewServer(http.FileServer(http.Dir(filepath.Join(e.dataDir, workload.TraceDir))))
	t.Cleanup(mirror.Close)
	e.mirror = mirror.URL

	// The environment of a new user: their own HOME (no config, no data
	// dir in ~/.cache), none of the caller's SCHEDFARM_ settings.
	goEnv := map[string]string{}
	out, err := exec.Command(goCmd, "env", "GOCACHE", "GOMODCACHE", "GOPATH").Output()
	if err != nil {
		t.Fatalf("go env: %v", err)
	}
	for i, v := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		goEnv[[]string{"GOCACHE", "GOMODCACHE", "GOPATH"}[i]] = v
	}
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "SCHEDFARM_") || strings.HasPrefix(name, "GIT_") || strings.HasPrefix(name, "XDG_") ||
			name == "HOME" || name == "PATH" || name == "GOBIN" || goEnv[name] != "" {
			continue
		}
		e.env = append(e.env, kv)
	}
	home := filepath.Join(tmp, "home")
	e.env = append(e.env, "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "XDG_CACHE_HOME="+filepath.Join(home, ".cache"),
		"GOCACHE="+goEnv["GOCACHE"], "GOMODCACHE="+goEnv["GOMODCACHE"], "GOPATH="+goEnv["GOPATH"], "GOBIN="+e.gobin,
		"PATH="+strings.Join([]string{wrapDir, e.gobin, binDir, os.Getenv("PATH")}, string(os.PathListSeparator)),
		"SCHEDFARM_MIRROR="+e.mirror)
	return e
}

// docGoWrapper is the go command of the blocks (%s: the binary, the real
// go): the schedfarm the test built stands for what go builds.
const docGoWrapper = `#!/bin/sh
# go as the docs' blocks call it (written by TestDocBlocks): go run, go
# install and go build -o FILE of ./cmd/schedfarm take the binary the test
# built once; anything else is the real go.
bin=%s
realgo=%s
if [ -f go.mod ] && [ -d cmd/schedfarm ]; then
	case "$1 $2" in
	"run ./cmd/schedfarm")
		shift 2
		exec "$bin" "$@" ;;
	"install ./cmd/schedfarm")
		if [ $# -eq 2 ]; then mkdir -p "$GOBIN" && exec cp "$bin" "$GOBIN/schedfarm"; fi ;;
	"build -o")
		if [ $# -eq 4 ] && [ "$4" = ./cmd/schedfarm ]; then mkdir -p "$(dirname "$3")" && exec cp "$bin" "$3"; fi ;;
	esac
fi
exec "$realgo" "$@"
`

func ShellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// copyCheckout copies the files of the checkout at root that git would
// commit (tracked, or new and not ignored) into dst; outside a git
// checkout, every file but run outputs, data and the state dir.
func copyCheckout(t *testing.T, root, dst string) {
	t.Helper()
	var files []string
	cmd := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	cmd.Dir = root
	if out, err := cmd.Output(); err == nil {
		for _, f := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
			if f != "" {
				files = append(files, filepath.FromSlash(f))
			}
		}
	} else {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			switch {
			case d.IsDir() && slices.Contains([]string{".git", "runs", "data", ".schedfarm", "bin", filepath.Join(".ci", "cache")}, rel):
				return filepath.SkipDir
			case !d.IsDir():
				files = append(files, rel)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("listing %s: %v", root, err)
		}
	}
	for _, f := range files {
		first := strings.Split(filepath.ToSlash(f), "/")[0]
		if first == "runs" || first == "data" || first == ".schedfarm" {
			continue
		}
		fi, err := os.Lstat(filepath.Join(root, f))
		if errors.Is(err, fs.ErrNotExist) {
			continue // deleted in the working tree
		}
		if err != nil {
			t.Fatal(err)
		}
		if !fi.Mode().IsRegular() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(dst, filepath.Dir(f)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, f), b, fi.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
}

// docBlock is a fenced ```sh block of a doc.
type docBlock struct {
	start int       // the line of its opening fence
	lines []docLine // its lines, fences excluded
	shown []docLine // the output block right after it (fence without a language), if any
}

// shBlocks returns the ```sh blocks of a doc, each with the output block
// that follows it.
func shBlocks(t *testing.T, rel string) []docBlock {
	t.Helper()
	lines := readDoc(t, rel)
	var blocks []docBlock
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if !l.code || !strings.HasPrefix(strings.TrimSpace(l.text), "```") {
			continue
		}
		lang := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(l.text), "```"))
		j := i + 1
		for j < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[j].text), "```") {
			j++
		}
		body := lines[i+1 : min(j, len(lines))]
		switch {
		case lang == "sh":
			blocks = append(blocks, docBlock{start: l.n, lines: body})
		case lang == "" && len(blocks) > 0 && blocks[len(blocks)-1].shown == nil && adjacent(lines, blocks[len(blocks)-1], i):
			blocks[len(blocks)-1].shown = body
		}
		i = j
	}
	return blocks
}

// adjacent: only blank lines lie between block b's closing fence and line i.
func adjacent(lines []docLine, b docBlock, i int) bool {
	end := b.start + len(b.lines) + 1 // the closing fence's line number
	for _, l := range lines {
		if l.n > end && l.n < lines[i].n && strings.TrimSpace(l.text) != "" {
			return false
		}
	}
	return true
}

var (
	uuidRE        = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	placeholderRE = regexp.MustCompile(`<[a-z][a-z-]*(?: [a-z-]+)*>`)
	failedLineRE  = regexp.MustCompile(`docblock: line (\d+) exited with status (\d+)`)
	envAssignRE   = regexp.MustCompile(`^[A-Z_][A-Z0-9_]*=`)
)

// codeOf is a shell line without its comment (a # after a blank or at
// the start).
func codeOf(line string) string {
	if strings.HasPrefix(strings.TrimSpace(line), "#") {
		return ""
	}
	if i := strings.Index(line, " #"); i >= 0 {
		return strings.TrimSpace(line[:i])
	}
	return strings.TrimSpace(line)
}

// backgroundCommand returns the schedfarm command a line starts (server,
// coordinator, worker) if it is one the test runs in the background.
func backgroundCommand(code string) string {
	fields := strings.Fields(code)
	for len(fields) > 0 && envAssignRE.MatchString(fields[0]) {
		fields = fields[1:]
	}
	if len(fields) >= 2 && fields[0] == "schedfarm" && slices.Contains([]string{"server", "coordinator", "worker"}, fields[1]) {
		return fields[1]
	}
	return ""
}

// runDoc runs a doc's blocks in order in one scratch folder.
func (e *docEnv) runDoc(t *testing.T, ds docScript) {
	dir := filepath.Join(t.TempDir(), "work")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if ds.cloned {
		dir = filepath.Join(dir, "schedfarm")
		if out, err := exec.Command("git", "clone", "-q", e.src, dir).CombinedOutput(); err != nil {
			t.Fatalf("git clone: %v\n%s", err, out)
		}
	}
	blocks := shBlocks(t, ds.doc)
	if len(blocks) == 0 {
		t.Fatalf("%s: no ```sh block", ds.doc)
	}
	matched := map[string]int{}
	prevOut := ""
	for i, b := range blocks {
		var res docResult
		ok := t.Run(fmt.Sprintf("line_%d", b.start), func(t *testing.T) {
			res = e.runBlock(t, ds, b, dir, prevOut, matched)
		})
		if !ok {
			if i+1 < len(blocks) {
				t.Errorf("%s: the blocks after line %d not run: the one at line %d failed", ds.doc, b.start, b.start)
			}
			return
		}
		if res.dir != "" {
			dir, prevOut = res.dir, res.out
		}
	}
	for _, s := range ds.subst {
		if matched["subst "+s.from] == 0 {
			t.Errorf("%s: no block says %q any more: update the test's substitution", ds.doc, s.from)
		}
	}
	for _, n := range ds.notRun {
		if matched["notrun "+n.line] == 0 {
			t.Errorf("%s: no block has the command %q any more: update the test's list of commands not run", ds.doc, n.line)
		}
	}
	for _, c := range ds.checks {
		if matched["check "+c.line] == 0 {
			t.Errorf("%s: no block has a command with %q (%s): a step the doc must show", ds.doc, c.line, c.what)
		}
	}
}

// runBlock runs one block in dir; prevOut is the previous block's output.
// It returns the block's result (dir empty when the block was skipped).
func (e *docEnv) runBlock(t *testing.T, ds docScript, b docBlock, dir, prevOut string, matched map[string]int) docResult {
	var script strings.Builder
	script.WriteString(`trap 'echo "docblock: line $LINENO exited with status $?" >&2' ERR; set -eu -o pipefail` + "\n")
	type bg struct {
		line    docLine
		text    string
		command string
	}
	var background []bg
	var ran []string // the commands run, as written in the doc
	runID := ""
	if ids := uuidRE.FindAllString(prevOut, -1); len(ids) > 0 {
		runID = ids[len(ids)-1]
	}
	for _, l := range b.lines {
		text := l.text
		code := codeOf(text)
		if code == "" {
			script.WriteString(text + "\n")
			continue
		}
		if i := slices.IndexFunc(ds.notRun, func(n docNotRun) bool { return n.line == code }); i >= 0 {
			matched["notrun "+code]++
			t.Logf("%s:%d: not run: %s (%s)", ds.doc, l.n, code, ds.notRun[i].reason)
			script.WriteString(": # not run\n")
			continue
		}
		for _, s := range ds.subst {
			if strings.Contains(text, s.from) {
				matched["subst "+s.from]++
				text = strings.ReplaceAll(text, s.from, s.to)
			}
		}
		code = codeOf(text)
		for _, p := range []string{"<run-id>", "<run>"} {
			if strings.Contains(code, p) {
				if runID == "" {
					t.Fatalf("%s:%d: %s: the blocks before print no run ID to fill it in", ds.doc, l.n, p)
				}
				text = strings.ReplaceAll(text, p, runID)
			}
		}
		code = codeOf(text)
		if p := placeholderRE.FindString(code); p != "" {
			t.Fatalf("%s:%d: placeholder %s: the test knows <run-id> and <run> (or add a substitution): %q", ds.doc, l.n, p, l.text)
		}
		for _, c := range ds.checks {
			if strings.Contains(l.text, c.line) {
				matched["check "+c.line]++
			}
		}
		e.needsData(t, ds.doc, l, code)
		e.notPaperScale(t, ds.doc, l, code)
		if cmd := backgroundCommand(code); cmd != "" {
			if len(ran) > 0 {
				t.Fatalf("%s:%d: %s after a command run in the foreground: the test starts a block's background commands first", ds.doc, l.n, cmd)
			}
			background = append(background, bg{l, text, cmd})
			script.WriteString(": # started by the test in the background\n")
			continue
		}
		ran = append(ran, l.text)
		script.WriteString(text + "\n")
	}
	pwdFile := filepath.Join(t.TempDir(), "pwd")
	fmt.Fprintf(&script, "pwd > %s\n", ShellQuote(pwdFile))
	scriptFile := writeFile(t, filepath.Join(t.TempDir(), "block.sh"), script.String())

	before := runFolders(dir)
	var procs []*docProc
	defer func() {
		for i := len(procs) - 1; i >= 0; i-- {
			procs[i].stop(t)
		}
		if t.Failed() {
			for _, p := range procs {
				t.Logf("--- %s (%s:%d), in the background:\n%s", p.text, ds.doc, p.line, p.out.String())
			}
		}
	}()
	for _, b := range background {
		p := e.startBackground(t, dir, b.text)
		p.line = b.line.n
		procs = append(procs, p)
		if b.command == "server" {
			p.waitListening(t, b.text)
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), docBlockWait)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.bash, "--noprofile", "--norc", scriptFile)
	cmd.Dir, cmd.Env = dir, e.env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("%s:%d: the block's commands did not finish within %v (its runs take seconds):\n%s", ds.doc, b.start, docBlockWait, out.String())
	}
	for _, p := range procs {
		if p.exited() {
			t.Errorf("%s:%d: %s exited while the block ran", ds.doc, p.line, p.text)
		}
	}
	if err != nil {
		where := ""
		if m := failedLineRE.FindStringSubmatch(out.String()); m != nil {
			n, _ := strconv.Atoi(m[1])
			where = fmt.Sprintf(" at line %d (%q), status %s", b.start+n-1, b.lines[n-2].text, m[2])
		}
		t.Fatalf("%s:%d: the block failed%s: %v\n--- its output:\n%s", ds.doc, b.start, where, err, out.String())
	}
	pwd, err := os.ReadFile(pwdFile)
	if err != nil {
		t.Fatal(err)
	}
	res := docResult{dir: strings.TrimSpace(string(pwd)), out: out.String()}
	for _, l := range b.lines {
		res.text += l.text + "\n"
	}
	for _, l := range b.shown {
		res.shown += l.text + "\n"
	}
	after := runFolders(res.dir)
	for _, f := range after {
		if !slices.Contains(before, f) {
			res.newRuns = append(res.newRuns, f)
		}
	}
	t.Logf("%s:%d: ran %q", ds.doc, b.start, ran)
	for _, c := range ds.checks {
		if c.check == nil || !slices.ContainsFunc(b.lines, func(l docLine) bool { return strings.Contains(l.text, c.line) }) {
			continue
		}
		if err := c.check(res); err != nil {
			t.Errorf("%s:%d: %s: the doc says %s: %v\n--- the block's output:\n%s", ds.doc, b.start, c.line, c.what, err, res.out)
		}
	}
	return res
}

// needsData skips the block (fails it under SCHEDFARM_REQUIRE_DATA=1)
// when code is a `traces fetch` (of names, --all or --for FILE) of logs the
// checkout's data dir, behind the mirror, does not have.
func (e *docEnv) needsData(t *testing.T, doc string, l docLine, code string) {
	t.Helper()
	fields := strings.Fields(code)
	i := slices.Index(fields, "fetch")
	if i < 1 || fields[i-1] != "traces" {
		return
	}
	var want []workload.KnownTrace
	for j := i + 1; j < len(fields); j++ {
		switch f := fields[j]; {
		case f == "--all":
			want = append(want, workload.Known...)
		case f == "--for" && j+1 < len(fields):
			j++
			want = append(want, e.tracesFor(t, fields[j])...)
		case !strings.HasPrefix(f, "-"):
			if k, ok := tracefetch.Find(workload.Known, f); ok {
				want = append(want, k)
			}
		}
	}
	var missing []string
	for _, k := range want {
		if _, err := os.Stat(filepath.Join(e.dataDir, workload.TraceDir, k.File)); err != nil && !slices.Contains(missing, k.File) {
			missing = append(missing, k.File)
		}
	}
	if len(missing) == 0 {
		return
	}
	msg := fmt.Sprintf("%s:%d: %q needs %s in data/%s/, served by the test's mirror: fetch them first (`go run ./cmd/schedfarm %s`, with --mirror DIR|URL without internet)",
		doc, l.n, code, strings.Join(missing, ", "), workload.TraceDir, strings.Join(fields[i-1:], " "))
	if os.Getenv("SCHEDFARM_REQUIRE_DATA") == "1" {
		t.Fatal(msg + " (SCHEDFARM_REQUIRE_DATA=1)")
	}
	t.Skip(msg)
}

// tracesFor returns the known traces the jobs of a sweep file of the
// checkout read.
func (e *docEnv) tracesFor(t *testing.T, file string) []workload.KnownTrace {
	t.Helper()
	if ks, ok := e.traces[file]; ok {
		return ks
	}
	ks, _, err := newApp().sweepTraces(context.Background(), filepath.Join(repoRoot, file), sweep.DefaultMaxJobs, workload.Known)
	if err != nil {
		t.Fatalf("the traces %s reads: %v", file, err)
	}
	e.traces[file] = ks
	return ks
}

// notPaperScale fails the block when code runs a sweep of more than
// docMaxJobs jobs: such a block belongs in the doc's notRun, with why.
func (e *docEnv) notPaperScale(t *testing.T, doc string, l docLine, code string) {
	t.Helper()
	fields := strings.Fields(code)
	for i := range fields {
		if !invocationAt(fields, i) || i+2 >= len(fields) || fields[i+1] != "run" {
			continue
		}
		for _, f := range fields[i+2:] {
			if strings.HasPrefix(f, "-") || !strings.HasSuffix(f, ".yaml") {
				continue
			}
			a := newApp()
			sf, err := a.loadSweep(filepath.Join(repoRoot, f))
			if err != nil {
				t.Fatalf("%s:%d: %v", doc, l.n, err)
			}
			jobs, err := a.expandSweep(context.Background(), sf, sweep.DefaultMaxJobs)
			if err != nil {
				t.Fatalf("%s:%d: %v", doc, l.n, err)
			}
			if len(jobs) > docMaxJobs {
				t.Fatalf("%s:%d: %q runs %d jobs (more than %d): list it in the test's notRun with the reason", doc, l.n, code, len(jobs), docMaxJobs)
			}
			break
		}
	}
}

// runFolders lists dir's runs/<sweep>/<run-id> folders.
func runFolders(dir string) []string {
	m, _ := filepath.Glob(filepath.Join(dir, "runs", "*", "*"))
	var out []string
	for _, p := range m {
		if rel, err := filepath.Rel(dir, p); err == nil && uuidRE.MatchString(filepath.Base(p)) {
			out = append(out, rel)
		}
	}
	return out
}

// oneRun returns the one result folder of sweep the block created.
func (r docResult) oneRun(sweepName string) (string, error) {
	var found []string
	for _, f := range r.newRuns {
		if filepath.Base(filepath.Dir(f)) == sweepName {
			found = append(found, f)
		}
	}
	if len(found) != 1 {
		return "", fmt.Errorf("%d new result folders runs/%s/<run-id>, want 1 (new: %v)", len(found), sweepName, r.newRuns)
	}
	return found[0], nil
}

// exists: the file name in folder (relative to the block's dir) exists.
func (r docResult) exists(folder, name string) error {
	p := filepath.Join(folder, name)
	if !filepath.IsAbs(p) {
		p = filepath.Join(r.dir, p)
	}
	if _, err := os.Stat(p); err != nil {
		return fmt.Errorf("no %s: %w", filepath.Join(folder, name), err)
	}
	return nil
}

// claimShownRE is a claim's verdict in a doc's output: claim SWEEP/ID: VERDICT.
var claimShownRE = regexp.MustCompile(`(?m)^claim [^/\s]+/(\S+): ([A-Z]+)\b.*$`)

// claimsSaidRE is what a block's comment says of a run's claims: "N
// claims: PASS".
var claimsSaidRE = regexp.MustCompile(`\b(\w+) claims?: PASS\b`)

// claimsPass: the run folder's claims.json has n claims, each passed (for
// n == 0, as many as the block says); for n < 0, the claims the doc's
// output shows, each with the verdict and the numbers shown.
func (r docResult) claimsPass(folder string, n int) error {
	if n == 0 {
		m := claimsSaidRE.FindStringSubmatch(r.text)
		if m == nil {
			return errors.New(`the block does not say how many claims pass ("N claims: PASS")`)
		}
		n = slices.Index([]string{"no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"}, m[1])
		if d, err := strconv.Atoi(m[1]); err == nil {
			n = d
		}
		if n <= 0 {
			return fmt.Errorf("the block says %q: not a number of claims", m[0])
		}
	}
	b, err := os.ReadFile(filepath.Join(r.dir, folder, "claims.json"))
	if err != nil {
		return err
	}
	var claims []struct{ ID, Verdict, Numbers string }
	if err := json.Unmarshal(b, &claims); err != nil {
		return fmt.Errorf("%s/claims.json: %w", folder, err)
	}
	want, line := map[string]string{}, map[string]string{}
	for _, m := range claimShownRE.FindAllStringSubmatch(r.shown, -1) {
		want[m[1]] = strings.ToLower(m[2])
		line[m[1]] = m[0]
	}
	var errs []error
	switch {
	case n < 0 && len(want) == 0:
		errs = append(errs, errors.New("the doc's output shows no claim"))
	case n < 0 && len(claims) != len(want):
		errs = append(errs, fmt.Errorf("%s/claims.json: %d claims, the doc shows %d", folder, len(claims), len(want)))
	case n >= 0 && len(claims) != n:
		errs = append(errs, fmt.Errorf("%s/claims.json: %d claims, the doc says %d", folder, len(claims), n))
	}
	for _, c := range claims {
		verdict, shown := want[c.ID]
		switch {
		case n < 0 && !shown:
			errs = append(errs, fmt.Errorf("claim %s (%s) is not in the doc's output", c.ID, c.Verdict))
		case n < 0 && c.Verdict != verdict:
			errs = append(errs, fmt.Errorf("claim %s: %s, the doc shows %s", c.ID, c.Verdict, strings.ToUpper(verdict)))
		case n < 0 && !strings.Contains(line[c.ID], c.Numbers):
			// A run is a pure function of its sweep file: the numbers shown are the numbers.
			errs = append(errs, fmt.Errorf("claim %s: the doc shows\n\t%s\nthe run says\n\t%s", c.ID, line[c.ID], c.Numbers))
		case n >= 0 && c.Verdict != "pass":
			errs = append(errs, fmt.Errorf("claim %s: %s, the doc says PASS", c.ID, c.Verdict))
		}
	}
	return errors.Join(errs...)
}

// docProc is a block's command the test runs in the background.
type docProc struct {
	text string // the line, substituted
	line int
	cmd  *exec.Cmd
	out  *farmtest.SyncBuffer
	done chan struct{}
}

// startBackground starts a line in its own process group.
func (e *docEnv) startBackground(t *testing.T, dir, text string) *docProc {
	t.Helper()
	p := &docProc{text: text, out: &farmtest.SyncBuffer{}, done: make(chan struct{})}
	p.cmd = exec.Command(e.bash, "--noprofile", "--norc", "-c", text)
	p.cmd.Dir, p.cmd.Env = dir, e.env
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	go func() { _ = p.cmd.Wait(); close(p.done) }()
	return p
}

func (p *docProc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// waitListening waits for the server's --port to accept connections.
func (p *docProc) waitListening(t *testing.T, text string) {
	t.Helper()
	f := strings.Fields(text)
	i := slices.Index(f, "--port")
	if i < 0 || i+1 >= len(f) {
		t.Fatalf("%s: no --port to wait for", text)
	}
	addr := net.JoinHostPort("127.0.0.1", f[i+1])
	deadline := time.Now().Add(docBackgroundWait)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return
		}
		if p.exited() || time.Now().After(deadline) {
			t.Fatalf("%s: not listening on %s within %v (exited: %v):\n%s", text, addr, docBackgroundWait, p.exited(), p.out.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stop ends the process group with SIGTERM, SIGKILL if it outlives
// docBackgroundWait.
func (p *docProc) stop(t *testing.T) {
	if p.exited() {
		return
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(docBackgroundWait):
		t.Errorf("%s: still running %v after SIGTERM; killed", p.text, docBackgroundWait)
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.done
	}
}
