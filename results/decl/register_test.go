package decl_test

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"schedfarm/internal/datatest"
	"schedfarm/results/decl"
	"schedfarm/simcore"
	"schedfarm/simcore/bench"
	"schedfarm/simcore/models"
	"schedfarm/sweep"
)

const goodRegister = "# Paper — claim register\r\n" + `
Free text, and a list that is not an entry:
- the results sections are §5 and §6.

## §5

- **R1** — §5.1, Fig. 3: "A beats B."
  → ` + "`sweep-a/a-beats-b`, `sweep-b/cell-*`" + `
- **R2** — §5.2: "a quote that wraps
  onto a second line
  and a third."
  → cannot check: the trace is not public
  A note under the entry is free text.

` + "```markdown\n- **R1** — inside a code block: \"not an entry\"\n→ `x/y`\n```" + `
- **R3.b** — Table 2: "A “curly” quote, 25%."
→ ` + "`sweep-a/x`" + `
`

func TestParseRegister(t *testing.T) {
	r, err := decl.ParseRegister(strings.NewReader(goodRegister), "CLAIMS.md")
	if err != nil {
		t.Fatal(err)
	}
	want := []decl.RegisterEntry{
		{ID: "R1", Where: "§5.1, Fig. 3", Quote: "A beats B.", Refs: []string{"sweep-a/a-beats-b", "sweep-b/cell-*"}, Line: 8},
		{ID: "R2", Where: "§5.2", Quote: "a quote that wraps onto a second line and a third.", Reason: "the trace is not public", Line: 10},
		{ID: "R3.b", Where: "Table 2", Quote: "A “curly” quote, 25%.", Refs: []string{"sweep-a/x"}, Line: 20},
	}
	if r.File != "CLAIMS.md" || !reflect.DeepEqual(r.Entries, want) {
		t.Errorf("got %s %+v\nwant %+v", r.File, r.Entries, want)
	}
}

// Every problem is reported with the file, the line and the entry.
func TestParseRegisterErrors(t *testing.T) {
	const ok = "- **R0** — §1: \"fine.\"\n  → `s/c`\n"
	cases := []struct {
		name, text string
		want       string // the error, all of it
	}{
		{"no entries", "# Register\n\nOnly prose.\n", `C.md:1: no entries; write one "- **R1** — where: "quote"" item per statement`},
		{"id not closed", ok + "- **R1 — §2: \"q\"\n  → `s/c`\n", "C.md:3: entry ID not closed with **"},
		{"bad id", ok + "- **R 1** — §2: \"q\"\n  → `s/c`\n", `C.md:3: bad entry ID "R 1"`},
		{"no dash", ok + "- **R1** §2: \"q\"\n  → `s/c`\n", `C.md:3: R1: want "— where: "quote"" after **R1**`},
		{"hyphen for dash", ok + "- **R1** - §2: \"q\"\n  → `s/c`\n", `C.md:3: R1: want "— where: "quote"" after **R1**`},
		{"no quote", ok + "- **R1** — §2: q\n  → `s/c`\n", `C.md:3: R1: want "where: "quote"" after the dash`},
		{"no where", ok + "- **R1** — : \"q\"\n  → `s/c`\n", "C.md:3: R1: the entry does not say where the statement is"},
		{"text after quote", ok + "- **R1** — §2: \"q\" (paraphrased)\n  → `s/c`\n", `C.md:3: R1: text after the closing quote: "(paraphrased)"`},
		{"text after wrapped quote", ok + "- **R1** — §2: \"q\nr\" and\n  → `s/c`\n", `C.md:4: R1: text after the closing quote: "and"`},
		{"quote open at blank", ok + "- **R1** — §2: \"q\nr\n\n  → `s/c`\n", "C.md:3: R1: quote not closed before line 5"},
		{"quote open at arrow", ok + "- **R1** — §2: \"q\n  → `s/c`\n", "C.md:3: R1: quote not closed before line 4"},
		{"quote open at entry", ok + "- **R1** — §2: \"q\n- **R2** — §2: \"q\"\n  → `s/c`\n", "C.md:3: R1: quote not closed before line 4"},
		{"quote open at end", ok + "- **R1** — §2: \"q", "C.md:3: R1: quote not closed before the end of the file"},
		{"empty quote", ok + "- **R1** — §2: \"\"\n  → `s/c`\n", "C.md:3: R1: empty quote"},
		{"no arrow line", ok + "- **R1** — §2: \"q\"\n  `s/c`\n", "C.md:4: R1: the quote is not followed by a → line"},
		{"no arrow at end", ok + "- **R1** — §2: \"q\"", "C.md:4: R1: the quote is not followed by a → line"},
		{"neither", ok + "- **R1** — §2: \"q\"\n  →\n", "C.md:4: R1: neither claim references nor a reason"},
		{"cannot check no colon", ok + "- **R1** — §2: \"q\"\n  → cannot check because\n", `C.md:4: R1: want "cannot check: <reason>"`},
		{"no reason", ok + "- **R1** — §2: \"q\"\n  → cannot check:  \n", "C.md:4: R1: cannot check: without a reason"},
		{"placeholder", ok + "- **R1** — §2: \"q\"\n  → cannot check: not done yet\n", `C.md:4: R1: "not done yet" is not a reason`},
		{"todo", ok + "- **R1** — §2: \"q\"\n  → cannot check: TODO encode\n", `C.md:4: R1: "TODO encode" is not a reason`},
		{"unquoted ref", ok + "- **R1** — §2: \"q\"\n  → s/c\n", `C.md:4: R1: bad claim reference "s/c"`},
		{"ref without sweep", ok + "- **R1** — §2: \"q\"\n  → `c`\n", "C.md:4: R1: bad claim reference \"`c`\""},
		{"empty ref", ok + "- **R1** — §2: \"q\"\n  → `s/c`,\n", `C.md:4: R1: bad claim reference ""`},
		{"glob in sweep", ok + "- **R1** — §2: \"q\"\n  → `s*/c`\n", "C.md:4: R1: bad claim reference \"`s*/c`\""},
		{"repeated ref", ok + "- **R1** — §2: \"q\"\n  → `s/c`, `s/c`\n", "C.md:4: R1: reference `s/c` repeated"},
		{"second arrow", ok + "- **R1** — §2: \"q\"\n  → `s/c`\n  → `s/d`\n", "C.md:5: R1: a second → line"},
		{"stray arrow", ok + "\nprose\n→ `s/d`\n", "C.md:5: a → line that follows no entry"},
		{"repeated id", ok + "- **R0** — §2: \"q\"\n  → `s/d`\n", "C.md:3: R0: entry ID repeated (first at line 1)"},
		{"open fence", ok + "```\n- **R1** — §2: \"q\"\n", "C.md:3: code block not closed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := decl.ParseRegister(strings.NewReader(c.text), "C.md")
			var list sweep.ErrorList
			if !errors.As(err, &list) || len(list) != 1 {
				t.Fatalf("err = %v, want one error %q", err, c.want)
			}
			if got := list[0].Error(); !strings.HasPrefix(got, c.want) {
				t.Errorf("err = %q\nwant %q…", got, c.want)
			}
		})
	}
	// All problems at once.
	_, err := decl.ParseRegister(strings.NewReader("- **R1** §2\n- **R2** — §3: \"q\"\n  →\n"), "C.md")
	if err == nil || strings.Count(err.Error(), "\n") != 1 {
		t.Errorf("want two errors, got %v", err)
	}
}

func TestRegisterCheck(t *testing.T) {
	claims := []decl.FolderClaim{
		{"paper", "a-beats-b", "paper.yaml", 10},
		{"paper", "cell-1", "paper.yaml", 20},
		{"paper", "cell-2", "paper.yaml", 24},
		{"quick", "a-beats-b", "quick.yaml", 5},
	}
	reg := func(refs ...[]string) *decl.Register {
		r := &decl.Register{File: "dir/CLAIMS.md"}
		for i, rs := range refs {
			r.Entries = append(r.Entries, decl.RegisterEntry{ID: "R" + string(rune('1'+i)), Refs: rs, Line: 3 * (i + 1)})
		}
		return r
	}
	if err := reg([]string{"paper/a-beats-b", "quick/a-beats-b"}, []string{"paper/cell-*"}).Check(claims); err != nil {
		t.Errorf("complete register: %v", err)
	}
	for _, c := range []struct {
		name string
		reg  *decl.Register
		want []string
	}{
		{"uncovered", reg([]string{"paper/a-beats-b", "paper/cell-1"}), []string{
			"paper.yaml:24: paper/cell-2: claim in no entry of CLAIMS.md; quote the statement it checks there and reference it",
			"quick.yaml:5: quick/a-beats-b: claim in no entry of CLAIMS.md"}},
		{"unknown claim", reg([]string{"paper/a-beats-c", "paper/cell-*", "quick/*"}), []string{
			"dir/CLAIMS.md:3: R1: `paper/a-beats-c` matches no claim of sweep paper; did you mean \"a-beats-b\"?",
			"paper.yaml:10: paper/a-beats-b: claim in no entry"}},
		{"unknown sweep", reg([]string{"papr/a-beats-b", "paper/*", "quick/*"}), []string{
			"dir/CLAIMS.md:3: R1: `papr/a-beats-b`: the folder has no claim of a sweep named \"papr\"; did you mean \"paper\"?"}},
		{"glob matching nothing", reg([]string{"paper/*", "quick/*", "quick/cell-*"}), []string{
			"dir/CLAIMS.md:3: R1: `quick/cell-*` matches no claim of sweep quick"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var list sweep.ErrorList
			if err := c.reg.Check(claims); !errors.As(err, &list) || len(list) != len(c.want) {
				t.Fatalf("err = %v, want %d errors", err, len(c.want))
			}
			for i, w := range c.want {
				if got := list[i].Error(); !strings.HasPrefix(got, w) {
					t.Errorf("error %d = %q\nwant %q…", i, got, w)
				}
			}
		})
	}
}

// writeFiles writes name → text files under a new temporary folder.
func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// A suite that includes a file of the folder and one of a sub-folder: each
// sweep counts once. (A suite cannot include a file of another folder: an
// include stays in the suite's folder or below it.)
func TestFolderClaims(t *testing.T) {
	const sweepText = "name: %s\nmodel: bench\nseed: 1\nreplicates: 2\naxes:\n  - {name: variant, values: [EDF-DLT, OPR-MN]}\n" +
		"claims:\n  - {id: %s, compare: {metric: value, series: variant, a: EDF-DLT, b: OPR-MN}}\n"
	sw := func(name, claim string) string { return fmt.Sprintf(sweepText, name, claim) }
	root := writeFiles(t, map[string]string{
		"paper/fig1.yaml":  sw("fig1", "c1"),
		"paper/fig2.yaml":  sw("fig2", "c2"),
		"paper/all.yaml":   "include: [fig1.yaml, 'sub/*.yaml']\n",
		"paper/sub/s.yaml": sw("sub", "c3"),
		"other/x.yaml":     sw("x", "c4"),
	})
	reg, err := simcore.NewRegistry(bench.New())
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "paper")
	claims, err := decl.FolderClaims(dir, reg)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range claims {
		got = append(got, c.Ref()+"@"+filepath.Base(c.File))
	}
	slices.Sort(got)
	if want := []string{"fig1/c1@fig1.yaml", "fig2/c2@fig2.yaml", "sub/c3@s.yaml"}; !slices.Equal(got, want) {
		t.Errorf("claims %v, want %v", got, want)
	}
	if claims[0].Line != 8 {
		t.Errorf("claim line %d, want 8", claims[0].Line)
	}

	// Two files declaring one sweep name cannot be told apart by a register.
	if err := os.WriteFile(filepath.Join(dir, "fig3.yaml"), []byte(sw("fig1", "c5")), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := decl.FolderClaims(dir, reg); err == nil || !strings.Contains(err.Error(), "fig3.yaml:1:1: fig1: sweep name also declared at") {
		t.Errorf("duplicate sweep name: err = %v", err)
	}
}

// checkPlacedErrors fails unless err is a sweep.ErrorList whose every
// error names F.md and a line of text.
func checkPlacedErrors(t *testing.T, err error, text string) {
	t.Helper()
	lines := strings.Count(text, "\n") + 1
	var list sweep.ErrorList
	if !errors.As(err, &list) || len(list) == 0 {
		t.Fatalf("error is not a sweep.ErrorList: %v", err)
	}
	for _, e := range list {
		if e.File != "F.md" || e.Line < 1 || e.Line > lines+1 || e.Msg == "" {
			t.Fatalf("error without a place in the file: %+v", e)
		}
	}
}

func FuzzParseRegister(f *testing.F) {
	f.Add(goodRegister)
	f.Add("- **R1** — §2: \"q\nr\"\n→ cannot check: x\n")
	f.Add("- **R1** — §2: \"\"\n")
	f.Add("```\n- **R1**\n")
	f.Add("→ `a/b`\n- **R1** — : \"")
	f.Fuzz(func(t *testing.T, text string) {
		r, err := decl.ParseRegister(strings.NewReader(text), "F.md")
		if err != nil {
			checkPlacedErrors(t, err, text)
			return
		}
		ids := map[string]bool{}
		for _, e := range r.Entries {
			if e.ID == "" || ids[e.ID] || strings.TrimSpace(e.Where) == "" || strings.TrimSpace(e.Quote) == "" || e.Line < 1 || e.Line > strings.Count(text, "\n")+1 {
				t.Fatalf("bad entry %+v", e)
			}
			ids[e.ID] = true
			if (len(e.Refs) == 0) == (e.Reason == "") {
				t.Fatalf("entry %s has both or neither references and a reason: %+v", e.ID, e)
			}
			for _, ref := range e.Refs {
				if !decl.RefRE.MatchString("`" + ref + "`") {
					t.Fatalf("entry %s: bad reference %q", e.ID, ref)
				}
			}
		}
		if len(r.Entries) == 0 {
			t.Fatal("a register without entries parsed")
		}
	})
}

// configLayout is the repository's configs/ tree: the five papers' folders
// and those without claims.
var configLayout = decl.ConfigLayout{
	Papers: []string{"anderson2005", "casanova2010", "krallmann1999", "lin2007", "saule2012"},
	Other:  []string{"bench", "golden", "published"},
}

// Every paper's folder of configs/ and every study's (configs/studies/<name>/)
// keeps a claim register that covers its claims, and configs/ holds no other
// folder but those without claims (ConfigLayout.Check).
func TestClaimRegisters(t *testing.T) {
	root := datatest.Root(t)
	var list sweep.ErrorList
	err := configLayout.Check(filepath.Join(root, "configs"), models.All(simcore.Dirs{}))
	if errors.As(relativeTo(root, err), &list) {
		for _, e := range list {
			t.Error(e)
		}
	} else if err != nil {
		t.Fatal(err)
	}
}

// relativeTo shows the files of a sweep.ErrorList relative to the
// repository's root.
func relativeTo(root string, err error) error {
	var list sweep.ErrorList
	if errors.As(err, &list) {
		for _, e := range list {
			if rel, err := filepath.Rel(root, e.File); err == nil && filepath.IsLocal(rel) {
				e.File = rel
			}
		}
	}
	return err
}

const goodStudyRegister = `# A study — claim register

- **S1** — A beats B
  at every point.
  source: paper2020 §5, asked of another log
  → ` + "`sweep-a/a-beats-b`" + `
- **S2** — A stays below 2.
  Source: the question whether
  the bound holds
  → cannot check: the model does not bound A
`

func TestParseStudyRegister(t *testing.T) {
	r, err := decl.ParseStudyRegister(strings.NewReader(goodStudyRegister), "CLAIMS.md")
	if err != nil {
		t.Fatal(err)
	}
	want := []decl.RegisterEntry{
		{ID: "S1", Quote: "A beats B at every point.", Source: "paper2020 §5, asked of another log", Refs: []string{"sweep-a/a-beats-b"}, Line: 3},
		{ID: "S2", Quote: "A stays below 2.", Source: "the question whether the bound holds", Reason: "the model does not bound A", Line: 7},
	}
	if r.Kind != decl.StudyRegister || !reflect.DeepEqual(r.Entries, want) {
		t.Errorf("got %v %+v\nwant %+v", r.Kind, r.Entries, want)
	}
	// A study's register is no paper's: it quotes nothing.
	if _, err := decl.ParseRegister(strings.NewReader(goodStudyRegister), "C.md"); err == nil || !strings.Contains(err.Error(), `configs/studies/<name>/ (docs/extending.md, "Adding a study")`) {
		t.Errorf("a study's register read as a paper's: err = %v, want it to point to the studies", err)
	}

	const guide = `(docs/extending.md, "Adding a study")`
	for _, c := range []struct {
		name, text string
		want       string // the error, its start
	}{
		{"no source", "- **S1** — A beats B.\n  → `s/c`\n", "C.md:1: S1: no source: line after the statement (before line 2); a study's entry states what it checks"},
		{"no source at end", "- **S1** — A beats B.", "C.md:1: S1: no source: line after the statement (before line 2)"},
		{"no statement", "- **S1** —\n  source: a question\n  → `s/c`\n", "C.md:1: S1: the entry does not state what it checks"},
		{"empty source", "- **S1** — A beats B.\n  source:\n  → `s/c`\n", "C.md:2: S1: source: without a source"},
		{"placeholder source", "- **S1** — A beats B.\n  source: TODO\n  → `s/c`\n", `C.md:2: S1: "TODO" is not a source`},
		{"no arrow", "- **S1** — A beats B.\n  source: a question\n", "C.md:3: S1: the source is not followed by a → line"},
		{"no dash", "- **S1** A beats B.\n  source: a question\n  → `s/c`\n", `C.md:1: S1: want "— statement" after **S1**`},
		{"no entries", "# A study\n", "C.md:1: no entries; write one \"- **S1** — statement\" item"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := decl.ParseStudyRegister(strings.NewReader(c.text), "C.md")
			var list sweep.ErrorList
			if !errors.As(err, &list) || len(list) != 1 {
				t.Fatalf("err = %v, want one error %q", err, c.want)
			}
			if got := list[0].Error(); !strings.HasPrefix(got, c.want) || !strings.Contains(got, guide) {
				t.Errorf("err = %q\nwant %q… pointing to %s", got, c.want, guide)
			}
		})
	}
}

func TestFolderKind(t *testing.T) {
	for dir, want := range map[string]decl.RegisterKind{
		"configs/lin2007":                 decl.PaperRegister,
		"configs/studies/backfill-orders": decl.StudyRegister,
		"configs/studies/x/":              decl.StudyRegister,
		"configs/studies":                 decl.PaperRegister,
		"/abs/configs/studies/x":          decl.StudyRegister,
	} {
		if got := decl.FolderKind(dir); got != want {
			t.Errorf("FolderKind(%q) = %v, want %v", dir, got, want)
		}
	}
}

// A configs/ tree: a paper's folder, a folder without claims and the
// studies, each study a folder whose register names sources and quotes
// no paper; and what the check says of every other folder.
func TestConfigLayout(t *testing.T) {
	const sweepText = "name: %s\nmodel: bench\nseed: 1\nreplicates: 2\naxes:\n  - {name: variant, values: [EDF-DLT, OPR-MN]}\n" +
		"claims:\n  - {id: %s, compare: {metric: value, series: variant, a: EDF-DLT, b: OPR-MN}}\n"
	sw := func(name, claim string) string { return fmt.Sprintf(sweepText, name, claim) }
	const paperReg = "- **R1** — §5: \"A beats B.\"\n  → `fig1/c1`\n"
	const studyReg = "- **S1** — A beats B on another log.\n  source: p1 §5, asked of another log\n  → `s1-main/c1`\n"
	base := map[string]string{
		"p1/fig1.yaml":          sw("fig1", "c1"),
		"p1/CLAIMS.md":          paperReg,
		"golden/README.md":      "goldens\n",
		"smoke.yaml":            sw("smoke", "c0"), // files directly under configs/ are not checked
		"studies/s1/main.yaml":  sw("s1-main", "c1"),
		"studies/s1/CLAIMS.md":  studyReg,
		"studies/README.md":     "the studies\n",
		"studies/s2/other.yaml": sw("s2-other", "c1"),
		"studies/s2/CLAIMS.md":  "# S2\n\n- **S1** — A beats B.\n  source: a data set\n  → `s2-other/*`\n",
	}
	layout := decl.ConfigLayout{Papers: []string{"p1"}, Other: []string{"golden"}}
	reg, err := simcore.NewRegistry(bench.New())
	if err != nil {
		t.Fatal(err)
	}
	const guide = `docs/extending.md, "Adding a study"`
	for _, c := range []struct {
		name   string
		change map[string]string // files added or replaced; "" removes one
		want   []string          // each error's start, after configs/; none: accepted
	}{
		{"accepted", nil, nil},
		{"study claim without a paper quote, no source", map[string]string{"studies/s1/CLAIMS.md": "- **S1** — A beats B.\n  → `s1-main/c1`\n"},
			[]string{"studies/s1/CLAIMS.md:1: S1: no source: line after the statement"}},
		{"study claim in no entry", map[string]string{"studies/s1/more.yaml": sw("s1-more", "c2")},
			[]string{"studies/s1/more.yaml:8: s1-more/c2: claim in no entry of CLAIMS.md; state what it checks there, with its source"}},
		{"study without register", map[string]string{"studies/s1/CLAIMS.md": ""},
			[]string{"studies/s1: 1 claims and no claim register (CLAIMS.md); state there what each claim checks"}},
		{"study without claims", map[string]string{"studies/s1/main.yaml": "", "studies/s1/CLAIMS.md": "", "studies/s1/notes.txt": "x\n"},
			[]string{"studies/s1: a study declares no claims and keeps no CLAIMS.md"}},
		{"study as a file", map[string]string{"studies/s3.yaml": sw("s3", "c1")},
			[]string{"studies/s3.yaml: a file directly under studies/; a study is a folder"}},
		{"study at the top", map[string]string{"s3/main.yaml": sw("s3-main", "c1"), "s3/CLAIMS.md": studyReg},
			[]string{"s3: not a paper's folder (p1), nor studies/, nor one of the folders without claims (golden); a study (sweeps with claims that quote no paper) goes in configs/studies/s3/"}},
		{"unknown folder without claims", map[string]string{"notes/README.md": "x\n"},
			[]string{"notes: not a paper's folder"}},
		{"misspelt folder", map[string]string{"golde/fig1.yaml": sw("fig9", "c1")},
			[]string{`golde: not a paper's folder (p1), nor studies/, nor one of the folders without claims (golden); did you mean "golden"?`}},
		{"paper entry without a quote", map[string]string{"p1/CLAIMS.md": "- **R1** — §5: A beats B.\n  → `fig1/c1`\n"},
			[]string{`p1/CLAIMS.md:1: R1: want "where: "quote"" after the dash; write where the statement is, a colon, and the quote in straight double quotes; a study that quotes no paper goes in configs/studies/<name>/`}},
		{"missing paper", map[string]string{"p1/fig1.yaml": "", "p1/CLAIMS.md": ""},
			[]string{"p1: the paper's folder is missing"}},
		{"claims in a folder without claims", map[string]string{"golden/x.yaml": sw("x", "c1")},
			[]string{"golden: a folder without claims holds 1 claims or a CLAIMS.md; claims go in a paper's folder, or in a study"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			files := maps.Clone(base)
			for k, v := range c.change {
				if v == "" {
					delete(files, k)
				} else {
					files[k] = v
				}
			}
			if c.name == "missing paper" {
				files["golden/p1-was-here.txt"] = "x\n"
			}
			root := writeFiles(t, files)
			err := layout.Check(root, reg)
			if c.want == nil {
				if err != nil {
					t.Fatalf("err = %v, want the tree accepted", err)
				}
				return
			}
			var list sweep.ErrorList
			if !errors.As(err, &list) || len(list) != len(c.want) {
				t.Fatalf("err = %v, want %d errors", err, len(c.want))
			}
			for i, w := range c.want {
				got := strings.TrimPrefix(list[i].Error(), root+string(filepath.Separator))
				if !strings.HasPrefix(got, w) {
					t.Errorf("error %d = %q\nwant %q…", i, got, w)
				}
				if !strings.Contains(got, guide) && c.name != "missing paper" {
					t.Errorf("error %d = %q does not point to %s", i, got, guide)
				}
			}
		})
	}
}

func FuzzParseStudyRegister(f *testing.F) {
	f.Add(goodStudyRegister)
	f.Add("- **S1** — a\nsource:\n→ `a/b`\n")
	f.Add("- **S1** — a\nSOURCE: x\n")
	f.Add("- **S1** —\nsource")
	f.Fuzz(func(t *testing.T, text string) {
		r, err := decl.ParseStudyRegister(strings.NewReader(text), "F.md")
		if err != nil {
			checkPlacedErrors(t, err, text)
			return
		}
		for _, e := range r.Entries {
			if e.ID == "" || strings.TrimSpace(e.Quote) == "" || strings.TrimSpace(e.Source) == "" || e.Where != "" {
				t.Fatalf("bad entry %+v", e)
			}
			if (len(e.Refs) == 0) == (e.Reason == "") {
				t.Fatalf("entry %s has both or neither references and a reason: %+v", e.ID, e)
			}
		}
	})
}
