package decl

import (
	"cmp"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"schedfarm/simcore"
	"schedfarm/sweep"
)

// Register is a parsed claim register: a paper's CLAIMS.md, kept by hand beside its sweep
// files (configs/<paper>/CLAIMS.md): every sentence of the paper's results
// sections that states a comparison, a trend or a number, quoted, with the
// claims that check it or the reason it cannot be checked. Free Markdown
// may stand anywhere between entries; fenced code blocks are skipped. An
// entry is a list item:
//
//	## §7 Results
//
//	- **R1** — §7, Table 3: "PSRS beats FCFS for all executors."
//	  → `krallmann1999-table3/psrs-beats-fcfs`, `krallmann1999-quick/psrs-beats-fcfs`
//	- **R2** — §8: "a quote may wrap
//	  onto several lines until the closing quote."
//	  → cannot check: the paper's machine size is a setting, not a result
//
// that is: "- **ID** — where: "quote"", the ID unique in the file, where
// naming the section, figure or table, the quote the paper's exact words
// (it may wrap, and ends at the next straight double quote, which must end
// its line), then on the next line, after optional indentation, one line
// starting with → that holds either backticked references
// `sweep-name/claim-id`, separated by commas (a * in the claim id is a
// glob), or "cannot check: " and the reason.
//
// A study's register (configs/studies/<name>/CLAIMS.md, StudyRegister)
// quotes no paper: its entries state what the study checks, in its own
// words, and name the source it rests on (a question, a data set, a paper
// it extends) on a line of their own before the → line:
//
//	## Backfilling on the SDSC SP2 log
//
//	- **S1** — PSRS gives a lower ART than FCFS under EASY backfilling
//	  on the first 2,000 jobs of the SDSC SP2 log.
//	  source: krallmann1999 §7, Table 3 (PSRS beats FCFS), asked of another log
//	  → `backfill-orders-sdsc-sp2/psrs-beats-fcfs-easy`
//
// Register.Check then cross-checks a register against the claims of the
// sweep files of its folder (FolderClaims): every reference must match a
// claim, and every claim must be referenced by some entry.
type Register struct {
	File string
	// Kind says what the entries rest on: a paper's quote or a study's source.
	Kind    RegisterKind
	Entries []RegisterEntry
}

// RegisterKind is the kind of a claim register: what its entries rest on.
type RegisterKind int

const (
	// PaperRegister is a paper's register (configs/<paper>/CLAIMS.md):
	// every entry quotes the paper.
	PaperRegister RegisterKind = iota
	// StudyRegister is a study's register (configs/studies/<name>/CLAIMS.md):
	// every entry states what it checks and names its source.
	StudyRegister
)

// StudiesDir is the folder of configs/ that holds the studies, one folder
// each: sweeps with claims that are not one of the papers'.
const StudiesDir = "studies"

// StudyGuide is where the documentation says how to add a study; the
// errors about studies point to it.
const StudyGuide = `docs/extending.md, "Adding a study"`

// FolderKind returns the kind of register the sweep folder dir keeps:
// StudyRegister for a folder directly under a folder named studies
// (configs/studies/<name>), PaperRegister otherwise.
func FolderKind(dir string) RegisterKind {
	if filepath.Base(filepath.Dir(filepath.Clean(dir))) == StudiesDir {
		return StudyRegister
	}
	return PaperRegister
}

// RegisterEntry is one statement of the paper and how it is checked.
type RegisterEntry struct {
	// ID names the entry ("R1"); Where is the section, figure or table;
	// Quote is the paper's sentence, its wrapped lines joined by spaces.
	// A study's entry has no Where; its Quote is the study's own
	// statement, and Source what the statement rests on.
	ID, Where, Quote string
	Source           string
	// Refs are the claims that check the statement, "sweep-name/claim-id",
	// the claim id possibly a glob; Reason, when Refs is empty, says why
	// the statement cannot be checked.
	Refs   []string
	Reason string
	// Line is the entry's first line in the file.
	Line int
}

const (
	entryStart  = "- **"
	refArrow    = "→"
	cannotCheck = "cannot check"
	sourceLabel = "source:"
)

var (
	entryIDRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)
	refRE     = regexp.MustCompile("^`([a-z0-9_-]+)/([A-Za-z0-9_.*-]+)`$")
	// placeholderRE matches reasons that only say the work is not done.
	placeholderRE = regexp.MustCompile(`(?i)\b(todo|tbd|fixme)\b|not (done|encoded|implemented|written) yet|^(later|pending|n/?a)\W*$`)
)

// registerParser holds the lines of a register and the problems found.
type registerParser struct {
	name  string
	kind  RegisterKind
	lines []string
	errs  sweep.ErrorList
}

func (p *registerParser) errf(line int, id, hint, format string, args ...any) {
	p.errs = append(p.errs, &sweep.Error{File: p.name, Line: line, Key: id, Msg: fmt.Sprintf(format, args...), Hint: hint})
}

// ParseRegister reads a paper's claim register (PaperRegister.Parse).
// name is the file's name, used in errors. The error, if any, is a
// sweep.ErrorList of every problem found, each as name:line: entry: what
// is wrong; what to do.
func ParseRegister(r io.Reader, name string) (*Register, error) {
	return PaperRegister.Parse(r, name)
}

// ParseStudyRegister reads a study's claim register (StudyRegister.Parse).
func ParseStudyRegister(r io.Reader, name string) (*Register, error) {
	return StudyRegister.Parse(r, name)
}

// Parse reads a claim register of kind k. name is the file's name, used
// in errors. The error, if any, is a sweep.ErrorList of every problem
// found, each as name:line: entry: what is wrong; what to do.
func (k RegisterKind) Parse(r io.Reader, name string) (*Register, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	text := strings.ReplaceAll(string(b), "\r\n", "\n")
	p := &registerParser{name: name, kind: k, lines: strings.Split(text, "\n")}
	reg := &Register{File: name, Kind: k}
	first := map[string]int{}
	fence := 0 // the line that opened a fenced code block, 0 outside one
	for i := 0; i < len(p.lines); i++ {
		t := strings.TrimSpace(p.lines[i])
		switch {
		case strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~"):
			if fence == 0 {
				fence = i + 1
			} else {
				fence = 0
			}
		case fence != 0:
		case strings.HasPrefix(t, entryStart):
			e, next := p.entry(i)
			i = next - 1
			if e == nil {
				continue
			}
			if at, dup := first[e.ID]; dup {
				p.errf(e.Line, e.ID, "give every entry its own ID", "entry ID repeated (first at line %d)", at)
				continue
			}
			first[e.ID] = e.Line
			reg.Entries = append(reg.Entries, *e)
		case strings.HasPrefix(t, refArrow):
			p.errf(i+1, "", "an entry starts with - **ID** — where: \"quote\", and its → line follows the quote's last line", "a → line that follows no entry")
		}
	}
	if fence != 0 {
		p.errf(fence, "", "close it with a line of ``` (entries inside a code block are not read)", "code block not closed")
	}
	if len(p.errs) == 0 && len(reg.Entries) == 0 {
		hint := `write one "- **R1** — where: "quote"" item per statement`
		if k == StudyRegister {
			hint = "write one \"- **S1** — statement\" item per statement, its source: line and its → line (" + StudyGuide + ")"
		}
		p.errf(1, "", hint, "no entries")
	}
	if len(p.errs) > 0 {
		return nil, p.errs
	}
	return reg, nil
}

// entry parses the entry starting at line index i. It returns the entry
// (nil when it has errors) and the index of the first line after it.
func (p *registerParser) entry(i int) (*RegisterEntry, int) {
	line := i + 1
	t := strings.TrimSpace(p.lines[i])
	rest := t[len(entryStart):]
	id, rest, ok := strings.Cut(rest, "**")
	if !ok {
		p.errf(line, "", "write - **ID** — where: \"quote\"", "entry ID not closed with **")
		return nil, p.skip(i + 1)
	}
	if !entryIDRE.MatchString(id) {
		p.errf(line, "", "use letters, digits, '_', '-' and '.', such as R12", "bad entry ID %q", id)
		return nil, p.skip(i + 1)
	}
	e := &RegisterEntry{ID: id, Line: line}
	rest, ok = strings.CutPrefix(strings.TrimSpace(rest), "—")
	if !ok {
		if p.kind == StudyRegister {
			p.errf(line, id, "an em dash (—) separates the ID from the statement ("+StudyGuide+")", `want "— statement" after **%s**`, id)
		} else {
			p.errf(line, id, "an em dash (—) separates the ID from where the statement is", `want "— where: "quote"" after **%s**`, id)
		}
		return nil, p.skip(i + 1)
	}
	if p.kind == StudyRegister {
		if i, ok = p.studyHead(e, rest, i); !ok {
			return nil, p.skip(i)
		}
		return p.arrow(e, i+1)
	}
	where, quote, ok := strings.Cut(rest, `: "`)
	if !ok {
		p.errf(line, id, `write where the statement is, a colon, and the quote in straight double quotes; a study that quotes no paper goes in configs/studies/<name>/ (`+StudyGuide+`)`, `want "where: "quote"" after the dash`)
		return nil, p.skip(i + 1)
	}
	if e.Where = strings.TrimSpace(where); e.Where == "" {
		p.errf(line, id, "name the section, figure or table", "the entry does not say where the statement is")
		return nil, p.skip(i + 1)
	}
	// The quote runs to the next straight double quote, over lines if need be.
	var parts []string
	for {
		if q, after, closed := strings.Cut(quote, `"`); closed {
			parts = append(parts, strings.TrimSpace(q))
			if after = strings.TrimSpace(after); after != "" {
				p.errf(i+1, id, "end the quote's line with the closing quote; a quote cannot hold a straight double quote", "text after the closing quote: %q", after)
				return nil, p.skip(i + 1)
			}
			break
		}
		parts = append(parts, strings.TrimSpace(quote))
		i++
		if i == len(p.lines) {
			p.errf(line, id, `close it with "`, "quote not closed before the end of the file")
			return nil, p.skip(i)
		}
		next := strings.TrimSpace(p.lines[i])
		if next == "" || strings.HasPrefix(next, entryStart) || strings.HasPrefix(next, refArrow) {
			p.errf(line, id, `close it with " at the end of its last line`, "quote not closed before line %d", i+1)
			return nil, p.skip(i)
		}
		quote = next
	}
	if e.Quote = strings.Join(parts, " "); strings.TrimSpace(e.Quote) == "" {
		p.errf(line, id, "quote the paper's sentence", "empty quote")
		return nil, p.skip(i + 1)
	}
	return p.arrow(e, i+1)
}

// studyHead parses a study entry's statement, whose first part rest
// follows the dash on line index i, and its source: line. It returns the
// index of the source's last line, or on an error (ok false) the index to
// skip from.
func (p *registerParser) studyHead(e *RegisterEntry, rest string, i int) (last int, ok bool) {
	id, line := e.ID, e.Line
	hint := "a study's entry states what it checks, then names on a line of its own what it rests on: source: a question, a data set, a paper it extends (" + StudyGuide + ")"
	parts := []string{strings.TrimSpace(rest)}
	for {
		i++
		next := ""
		if i < len(p.lines) {
			next = strings.TrimSpace(p.lines[i])
		}
		if i == len(p.lines) || next == "" || strings.HasPrefix(next, entryStart) || strings.HasPrefix(next, refArrow) {
			p.errf(line, id, hint, "no source: line after the statement (before line %d)", i+1)
			return i, false
		}
		if isSourceLine(next) {
			break
		}
		parts = append(parts, next)
	}
	if e.Quote = strings.TrimSpace(strings.Join(parts, " ")); e.Quote == "" {
		p.errf(line, id, hint, "the entry does not state what it checks")
		return i, false
	}
	srcLine := i + 1
	src := []string{strings.TrimSpace(strings.TrimSpace(p.lines[i])[len(sourceLabel):])}
	// The source may wrap, up to the → line.
	for i+1 < len(p.lines) {
		next := strings.TrimSpace(p.lines[i+1])
		if next == "" || strings.HasPrefix(next, entryStart) || strings.HasPrefix(next, refArrow) {
			break
		}
		src = append(src, next)
		i++
	}
	e.Source = strings.TrimSpace(strings.Join(src, " "))
	switch {
	case e.Source == "":
		p.errf(srcLine, id, hint, "source: without a source")
		return i + 1, false
	case placeholderRE.MatchString(e.Source):
		p.errf(srcLine, id, hint, "%q is not a source", e.Source)
		return i + 1, false
	}
	return i, true
}

// isSourceLine reports whether a trimmed line is a study entry's source:
// line (the label in any case).
func isSourceLine(t string) bool {
	return len(t) >= len(sourceLabel) && strings.EqualFold(t[:len(sourceLabel)], sourceLabel)
}

// arrow parses the → line of entry e, expected at line index i, and
// returns the entry (nil when it has errors) and the index of the first
// line after it.
func (p *registerParser) arrow(e *RegisterEntry, i int) (*RegisterEntry, int) {
	id := e.ID
	if i == len(p.lines) || !strings.HasPrefix(strings.TrimSpace(p.lines[i]), refArrow) {
		what, guide := "quote", ""
		if p.kind == StudyRegister {
			what, guide = "source", " ("+StudyGuide+")"
		}
		p.errf(i+1, id, "write → `sweep-name/claim-id`, … or → cannot check: <reason> on the line after the "+what+guide, "the %s is not followed by a → line", what)
		return nil, i
	}
	body := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(p.lines[i]), refArrow))
	arrowLine := i + 1
	bad := len(p.errs)
	switch {
	case body == "":
		p.errf(arrowLine, id, "write the claim references, or cannot check: and the reason", "neither claim references nor a reason")
	case strings.HasPrefix(body, cannotCheck):
		reason, ok := strings.CutPrefix(body, cannotCheck+":")
		e.Reason = strings.TrimSpace(reason)
		switch {
		case !ok:
			p.errf(arrowLine, id, "", `want "cannot check: <reason>"`)
		case e.Reason == "":
			p.errf(arrowLine, id, "say why the statement cannot be checked", "cannot check: without a reason")
		case placeholderRE.MatchString(e.Reason):
			p.errf(arrowLine, id, "a reason says why the statement cannot be checked (data not public, a quantity the model does not produce, …); encode it as a claim otherwise",
				"%q is not a reason", e.Reason)
		}
	default:
		for _, r := range strings.Split(body, ",") {
			r = strings.TrimSpace(r)
			if !refRE.MatchString(r) {
				p.errf(arrowLine, id, "references are `sweep-name/claim-id`, backticked and separated by commas", "bad claim reference %q", r)
				continue
			}
			ref := strings.Trim(r, "`")
			if slices.Contains(e.Refs, ref) {
				p.errf(arrowLine, id, "", "reference %s repeated", r)
				continue
			}
			e.Refs = append(e.Refs, ref)
		}
	}
	i++
	if i < len(p.lines) && strings.HasPrefix(strings.TrimSpace(p.lines[i]), refArrow) {
		p.errf(i+1, id, "put every reference of the entry on its one → line", "a second → line")
		i++
	}
	if len(p.errs) > bad {
		return nil, i
	}
	return e, i
}

// skip returns the index of the first line after a broken entry whose
// rest starts at index i: past its → line, or at the next entry, so that
// one broken entry is reported once.
func (p *registerParser) skip(i int) int {
	for ; i < len(p.lines); i++ {
		t := strings.TrimSpace(p.lines[i])
		switch {
		case strings.HasPrefix(t, entryStart):
			return i
		case strings.HasPrefix(t, refArrow):
			return i + 1
		}
	}
	return i
}

// FolderClaim is one claim of a sweep of a folder's sweep files.
type FolderClaim struct {
	Sweep, ID string
	// File and Line locate the claim's declaration.
	File string
	Line int
}

// Ref returns the claim as a register references it: "sweep/claim-id".
func (c FolderClaim) Ref() string { return c.Sweep + "/" + c.ID }

// FolderClaims returns the claims of every sweep declared in the sweep
// files of dir (its *.yaml files and any file under dir that a suite of
// them includes), each sweep counted once however many suites include it,
// in file and line order. Sweeps a suite includes from outside dir belong
// to their own folder and are left out. The error is a sweep.ErrorList of
// every problem, the files' own and two sweeps of one name in two files.
func FolderClaims(dir string, models *simcore.Registry) ([]FolderClaim, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	var errs sweep.ErrorList
	add := func(err error) {
		if l, ok := err.(sweep.ErrorList); ok {
			errs = append(errs, l...)
		} else {
			errs = append(errs, &sweep.Error{File: dir, Msg: err.Error()})
		}
	}
	declared := map[string]*sweep.Sweep{} // sweep name → its declaration
	var out []FolderClaim
	for _, p := range paths {
		if IsReadingsFile(p) {
			continue // the folder's readings, no sweep
		}
		f, err := sweep.Load(p, models)
		if err != nil {
			add(err)
			continue
		}
		for _, s := range f.Sweeps {
			if rel, err := filepath.Rel(dir, s.File); err != nil || !filepath.IsLocal(rel) {
				continue
			}
			if first, ok := declared[s.Name]; ok {
				if first.File != s.File || first.Line != s.Line {
					errs = append(errs, &sweep.Error{File: s.File, Line: s.Line, Col: s.Col, Key: s.Name,
						Msg: fmt.Sprintf("sweep name also declared at %s:%d", first.File, first.Line), Hint: "a register names claims by sweep name; rename one"})
				}
				continue
			}
			declared[s.Name] = s
			d, err := Parse(s)
			if err != nil {
				add(err)
				continue
			}
			for _, c := range d.Claims {
				out = append(out, FolderClaim{Sweep: s.Name, ID: c.ID, File: c.File, Line: c.Line})
			}
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	slices.SortFunc(out, func(a, b FolderClaim) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line))
	})
	return out, nil
}

// Check cross-checks the register against a folder's claims: every
// reference of an entry must match at least one claim, and every claim
// must be matched by some entry. The error is a sweep.ErrorList naming the
// entry's line, or the claim's declaration, of every problem.
func (r *Register) Check(claims []FolderClaim) error {
	bySweep := map[string][]int{}
	var sweeps []string
	for i, c := range claims {
		if _, ok := bySweep[c.Sweep]; !ok {
			sweeps = append(sweeps, c.Sweep)
		}
		bySweep[c.Sweep] = append(bySweep[c.Sweep], i)
	}
	covered := make([]bool, len(claims))
	var errs sweep.ErrorList
	for _, e := range r.Entries {
		for _, ref := range e.Refs {
			name, pattern, _ := strings.Cut(ref, "/")
			n := 0
			var ids []string
			for _, i := range bySweep[name] {
				ids = append(ids, claims[i].ID)
				if ok, _ := path.Match(pattern, claims[i].ID); ok {
					covered[i] = true
					n++
				}
			}
			if n > 0 {
				continue
			}
			msg, hint := fmt.Sprintf("`%s`: the folder has no claim of a sweep named %q", ref, name), sweep.DidYouMean(name, sweeps)
			if ids != nil {
				msg, hint = fmt.Sprintf("`%s` matches no claim of sweep %s", ref, name), sweep.DidYouMean(pattern, ids)
			}
			errs = append(errs, &sweep.Error{File: r.File, Line: e.Line, Key: e.ID, Msg: msg, Hint: hint})
		}
	}
	hint := "quote the statement it checks there and reference it"
	if r.Kind == StudyRegister {
		hint = "state what it checks there, with its source, and reference it (" + StudyGuide + ")"
	}
	for i, c := range claims {
		if !covered[i] {
			errs = append(errs, &sweep.Error{File: c.File, Line: c.Line, Key: c.Ref(),
				Msg: "claim in no entry of " + filepath.Base(r.File), Hint: hint})
		}
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}
