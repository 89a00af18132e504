package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// repoRoot is the repository's root, seen from this package's folder.
const repoRoot = "../.."

// readmeMaxLines bounds README.md (a README that fits on a few screens).
const readmeMaxLines = 200

// docFiles lists README.md and every Markdown file under docs/, relative to
// the repository's root, in lexical order.
func docFiles(t *testing.T) []string {
	t.Helper()
	files := []string{"README.md"}
	err := filepath.WalkDir(filepath.Join(repoRoot, "docs"), func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(p, ".md") {
			rel, err := filepath.Rel(repoRoot, p)
			if err != nil {
				return err
			}
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatalf("listing docs: %v", err)
	}
	return files
}

// docLine is one line of a Markdown file, with whether it lies in a fenced
// code block.
type docLine struct {
	n    int
	text string
	code bool
}

func readDoc(t *testing.T, rel string) []docLine {
	t.Helper()
	f, err := os.Open(filepath.Join(repoRoot, rel))
	if err != nil {
		t.Fatalf("doc %s: %v", rel, err)
	}
	defer f.Close()
	var lines []docLine
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	inCode := false
	for n := 1; sc.Scan(); n++ {
		s := sc.Text()
		if strings.HasPrefix(strings.TrimSpace(s), "```") {
			inCode = !inCode
			lines = append(lines, docLine{n, s, true})
			continue
		}
		lines = append(lines, docLine{n, s, inCode})
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("doc %s: %v", rel, err)
	}
	return lines
}

var inlineCode = regexp.MustCompile("`([^`]+)`")

// commandTexts returns the pieces of a line that may show a command: the
// whole line in a code block, the inline code spans elsewhere.
func commandTexts(l docLine) []string {
	if l.code {
		return []string{l.text}
	}
	var out []string
	for _, m := range inlineCode.FindAllStringSubmatch(l.text, -1) {
		out = append(out, m[1])
	}
	return out
}

// shellStops end a command's arguments.
var shellStops = map[string]bool{"|": true, "||": true, "&&": true, ";": true, "#": true, ">": true, ">>": true, "2>&1": true, "&": true, "<": true}

// invocationAt reports whether fields[i] invokes the schedfarm binary:
// `schedfarm`, a path to a built binary (`$tmp/schedfarm`, `./schedfarm`), or
// `go run ./cmd/schedfarm`.
func invocationAt(fields []string, i int) bool {
	tok := strings.TrimLeft(fields[i], "$(\"'")
	if tok == "schedfarm" {
		return true
	}
	if !strings.HasSuffix(tok, "/schedfarm") || (i > 0 && strings.HasPrefix(fields[i-1], "-")) {
		return false // not a binary, or a flag's value (--store-dir /var/lib/schedfarm)
	}
	if strings.Contains(tok, "cmd/schedfarm") {
		return i >= 2 && fields[i-2] == "go" && fields[i-1] == "run"
	}
	return true
}

// checkCommand checks the command line that starts after fields[i]: its
// subcommands exist and each flag it passes is defined on the command
// reached (or inherited). It returns the problems found.
func checkCommand(root *cobra.Command, fields []string, i int) []string {
	cmd := root
	var problems []string
	expectSub := true
	inSubshell := false // inside an argument's $(...)
	for _, raw := range fields[i+1:] {
		if inSubshell || (strings.HasPrefix(raw, "$(") && !strings.Contains(raw, ")")) {
			inSubshell = !strings.Contains(raw, ")")
			expectSub = false
			continue
		}
		tok := strings.Trim(raw, "\"'`)(,")
		if shellStops[raw] || strings.HasPrefix(raw, "#") || strings.HasPrefix(raw, "|") || strings.HasPrefix(raw, ">") {
			break
		}
		if tok == "" || tok == "…" || tok == "..." {
			continue
		}
		if strings.HasPrefix(tok, "-") && tok != "-" {
			expectSub = false
			for _, alt := range strings.Split(strings.Trim(tok, "[]"), "|") {
				name, _, _ := strings.Cut(alt, "=")
				if name == "" || name == "--" || !strings.HasPrefix(name, "-") {
					continue
				}
				if !hasFlag(cmd, name) {
					problems = append(problems, fmt.Sprintf("%q: no flag %s", cmd.CommandPath(), name))
				}
			}
			continue
		}
		if !expectSub {
			continue
		}
		if sub := findSub(cmd, tok); sub != nil {
			cmd = sub
			continue
		}
		// A word where a command would be: a subcommand that does not
		// exist, unless the command takes arguments (a file, a run ID) or
		// the word is a placeholder (<cmd>, FILE).
		expectSub = false
		if cmd == root && isWord(tok) {
			problems = append(problems, fmt.Sprintf("no command %q", "schedfarm "+tok))
		} else if cmd != root && cmd.HasSubCommands() && isWord(tok) && cmd.Args == nil && !cmd.Runnable() {
			problems = append(problems, fmt.Sprintf("no command %q", cmd.CommandPath()+" "+tok))
		}
	}
	return problems
}

func findSub(c *cobra.Command, name string) *cobra.Command {
	for _, s := range c.Commands() {
		if s.Name() == name || s.HasAlias(name) {
			return s
		}
	}
	if name == "help" {
		return c
	}
	return nil
}

// isWord: lower-case letters and dashes, what a command's name looks like.
func isWord(s string) bool {
	for _, r := range s {
		if !unicode.IsLower(r) && r != '-' {
			return false
		}
	}
	return s != ""
}

func hasFlag(c *cobra.Command, name string) bool {
	if name == "-h" || name == "--help" {
		return true
	}
	var f *pflag.Flag
	if strings.HasPrefix(name, "--") {
		n := strings.TrimPrefix(name, "--")
		f = c.Flags().Lookup(n)
		if f == nil {
			f = c.InheritedFlags().Lookup(n)
		}
	} else {
		sh := strings.TrimPrefix(name, "-")
		if len(sh) != 1 {
			return false
		}
		f = c.Flags().ShorthandLookup(sh)
		if f == nil {
			f = c.InheritedFlags().ShorthandLookup(sh)
		}
	}
	return f != nil
}

// TestDocCommands: every `schedfarm <command> [--flag]` shown in README.md
// and docs/ (code blocks and inline code) names a command that exists and
// flags that command takes.
func TestDocCommands(t *testing.T) {
	root := newApp().root
	for _, rel := range docFiles(t) {
		for _, l := range readDoc(t, rel) {
			for _, text := range commandTexts(l) {
				fields := strings.Fields(text)
				for i := range fields {
					if !invocationAt(fields, i) {
						continue
					}
					for _, p := range checkCommand(root, fields, i) {
						t.Errorf("%s:%d: %s (in %q)", rel, l.n, p, strings.TrimSpace(text))
					}
				}
			}
		}
	}
}

var (
	mdLink   = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	htmlLink = regexp.MustCompile(`(?:href|src)="([^"]+)"`)
)

// TestDocLinks: every relative link of README.md and docs/ resolves to a
// file of the repository, and an #anchor to a heading of its file.
func TestDocLinks(t *testing.T) {
	anchors := map[string]map[string]bool{}
	anchorsOf := func(rel string) map[string]bool {
		if a, ok := anchors[rel]; ok {
			return a
		}
		a := map[string]bool{}
		for _, l := range readDoc(t, rel) {
			if !l.code && strings.HasPrefix(l.text, "#") {
				slug := headingSlug(strings.TrimLeft(l.text, "#"))
				for n := 0; a[slug]; n++ {
					if !a[fmt.Sprintf("%s-%d", slug, n+1)] {
						slug = fmt.Sprintf("%s-%d", slug, n+1)
						break
					}
				}
				a[slug] = true
			}
		}
		anchors[rel] = a
		return a
	}
	for _, rel := range docFiles(t) {
		for _, l := range readDoc(t, rel) {
			if l.code {
				continue
			}
			text := inlineCode.ReplaceAllString(l.text, "")
			var targets []string
			for _, m := range mdLink.FindAllStringSubmatch(text, -1) {
				targets = append(targets, m[1])
			}
			for _, m := range htmlLink.FindAllStringSubmatch(text, -1) {
				targets = append(targets, m[1])
			}
			for _, target := range targets {
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				path, anchor, _ := strings.Cut(target, "#")
				file := rel
				if path != "" {
					file = filepath.ToSlash(filepath.Join(filepath.Dir(rel), path))
					if _, err := os.Stat(filepath.Join(repoRoot, file)); err != nil {
						t.Errorf("%s:%d: link %s: no file %s", rel, l.n, target, file)
						continue
					}
				}
				if anchor != "" && strings.HasSuffix(file, ".md") && !anchorsOf(file)[anchor] {
					t.Errorf("%s:%d: link %s: no heading #%s in %s", rel, l.n, target, anchor, file)
				}
			}
		}
	}
}

// headingSlug is GitHub's anchor of a heading: lower case, spaces to
// dashes, punctuation but dashes and underscores dropped.
func headingSlug(h string) string {
	h = inlineCode.ReplaceAllString(strings.TrimSpace(h), "$1")
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

var configPath = regexp.MustCompile(`(?:^|[^A-Za-z0-9_./-])(configs/[A-Za-z0-9_.*/<>{}-]*)`)

// TestDocConfigPaths: every configs/... path named in README.md and docs/
// exists (a glob matches something; a placeholder such as <sweep> checks
// the folder before it). The scoreboard, generated at the commit it names,
// keeps that commit's names.
func TestDocConfigPaths(t *testing.T) {
	for _, rel := range docFiles(t) {
		if strings.HasPrefix(rel, "docs/scoreboard/") {
			continue
		}
		for _, l := range readDoc(t, rel) {
			for _, m := range configPath.FindAllStringSubmatch(l.text, -1) {
				p := strings.TrimRight(m[1], ".")
				if i := strings.IndexAny(p, "<{"); i >= 0 {
					p = p[:strings.LastIndex(p[:i], "/")+1]
				}
				matches, err := filepath.Glob(filepath.Join(repoRoot, p))
				if err != nil || len(matches) == 0 {
					t.Errorf("%s:%d: %s does not exist", rel, l.n, m[1])
				}
			}
		}
	}
}

// TestReadmeLength: README.md stays a front door.
func TestReadmeLength(t *testing.T) {
	if n := len(readDoc(t, "README.md")); n > readmeMaxLines {
		t.Errorf("README.md: %d lines, the limit is %d: move the detail to docs/", n, readmeMaxLines)
	}
}

// goTest matches `go test ./PKG [flags] -run NAME` (NAME optional), goDoc
// `go doc schedfarm/PKG[.Symbol]`.
var (
	goTest = regexp.MustCompile("go test (\\./[A-Za-z0-9_/.-]*)((?: +-[a-z.]+(?: +[^ `-][^ `]*)?)*)")
	goDoc  = regexp.MustCompile("go doc schedfarm/([A-Za-z0-9_/-]+)(?:\\.([A-Za-z0-9_]+))?")
	runArg = regexp.MustCompile(`-(?:test\.)?run +'?([^ ']+)'?`)
)

// TestDocGoCommands: every `go test ./pkg -run Name` shown in README.md and
// docs/ names a package folder that has tests, and its -run pattern matches
// one of that folder's test, benchmark or fuzz functions; every `go doc
// schedfarm/pkg[.Name]` names a package folder (and a declared name in it).
func TestDocGoCommands(t *testing.T) {
	for _, rel := range docFiles(t) {
		for _, l := range readDoc(t, rel) {
			for _, m := range goTest.FindAllStringSubmatch(l.text, -1) {
				dir := strings.TrimSuffix(strings.TrimSuffix(m[1], "/..."), "/")
				if dir == "." {
					continue
				}
				tests, ok := goDecls(t, filepath.Join(repoRoot, dir), "_test.go", `func ((?:Test|Benchmark|Fuzz)[A-Za-z0-9_]*)\(`)
				if !ok {
					t.Errorf("%s:%d: go test %s: no such package folder with tests", rel, l.n, m[1])
					continue
				}
				r := runArg.FindStringSubmatch(m[2])
				if r == nil || strings.Contains(m[1], "...") {
					continue
				}
				re, err := regexp.Compile(strings.Split(r[1], "/")[0])
				if err != nil {
					t.Errorf("%s:%d: go test %s -run %s: %v", rel, l.n, m[1], r[1], err)
					continue
				}
				found := strings.EqualFold(r[1], "xxx") // -run XXX: run no test, on purpose
				for _, name := range tests {
					found = found || re.MatchString(name)
				}
				if !found {
					t.Errorf("%s:%d: go test %s -run %s matches no test of that package", rel, l.n, m[1], r[1])
				}
			}
			for _, m := range goDoc.FindAllStringSubmatch(l.text, -1) {
				dir := filepath.Join(repoRoot, m[1])
				names, ok := goDecls(t, dir, ".go", `(?m)^(?:func(?: \([^)]*\))? |type |var |const )?([A-Z][A-Za-z0-9_]*)\b`)
				if !ok {
					t.Errorf("%s:%d: go doc schedfarm/%s: no such package", rel, l.n, m[1])
					continue
				}
				if m[2] != "" && !slices.Contains(names, m[2]) {
					t.Errorf("%s:%d: go doc schedfarm/%s.%s: %s declares no %s", rel, l.n, m[1], m[2], m[1], m[2])
				}
			}
		}
	}
}

// goDecls returns the first submatches of pattern in the Go files of dir
// whose names end in suffix (non-test files for ".go"), and whether dir has
// such files.
func goDecls(t *testing.T, dir, suffix, pattern string) (names []string, ok bool) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, false
	}
	re := regexp.MustCompile(pattern)
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, suffix) || (suffix == ".go" && strings.HasSuffix(name, "_test.go")) {
			continue
		}
		ok = true
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range re.FindAllSubmatch(b, -1) {
			names = append(names, string(m[1]))
		}
	}
	return names, ok
}

// secretFlags are the flags whose value is a secret: on a command line it
// shows in `ps` to every user of the machine, and in the shell's history.
var secretFlags = []string{"--token", "--password"}

// TestDocNoSecretOnCommandLine: no command shown in README.md, docs/ or a
// command's --help examples gives a secret flag a value: they show the
// environment variable (SCHEDFARM_TOKEN=…) or the config file instead.
func TestDocNoSecretOnCommandLine(t *testing.T) {
	check := func(where, text string) {
		fields := strings.Fields(text)
		for i, f := range fields {
			for _, s := range secretFlags {
				if (f == s && i+1 < len(fields) && !strings.HasPrefix(fields[i+1], "-")) || strings.HasPrefix(f, s+"=") {
					t.Errorf("%s: %s given on the command line (it shows in ps; use SCHEDFARM_%s or the config file): %q",
						where, s, strings.ToUpper(strings.TrimPrefix(s, "--")), strings.TrimSpace(text))
				}
			}
		}
	}
	for _, rel := range docFiles(t) {
		for _, l := range readDoc(t, rel) {
			for _, text := range commandTexts(l) {
				fields := strings.Fields(text)
				for i := range fields {
					if invocationAt(fields, i) {
						check(fmt.Sprintf("%s:%d", rel, l.n), strings.Join(fields[i:], " "))
					}
				}
			}
		}
	}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, line := range strings.Split(c.Example, "\n") {
			check(c.CommandPath()+" example", line)
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(newApp().root)
}
