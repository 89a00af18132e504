package datatest

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

// paperKeys maps the numbers the team's source texts once had to the
// papers' keys, for the fix a failure proposes.
var paperKeys = map[byte]string{
	'0': "anderson2005", '1': "lin2007", '2': "krallmann1999", '3': "saule2012", '4': "casanova2010",
}

// A reference rule: what a reader of the repository cannot follow, and the
// fix.
type refRule struct {
	name string
	re   *regexp.Regexp
	fix  func(match string) string
}

// refRules are the three forms TestReferencesAReaderCanFollow refuses.
//
//   - seed number: the word "seed" or "seeds", then (across spaces, line
//     breaks and comment markers // # ; * >) a number 000–009, the
//     three-digit number of one of the team's source texts. A seed used as
//     a number of the simulation ("seed: 1", "trace seed 2655") does not
//     match.
//   - specification: the word SPECS in capitals, the name of the team's
//     specification file, with or without ".md" and a section (that file
//     is not part of the repository).
//   - issue number: "issue" or "issues", optionally "#", then a number, in
//     any case, or a bare "#N" followed by "§", by "'s", or alone in
//     parentheses. Links to other projects' trackers (".../issues/123")
//     and numbered items ("value #3", "#2 and #3 of Figure 2") do not
//     match. An English "issue" followed by a number (in a quote, say) has
//     to be reworded or quoted without the number.
//
// TestRefRules spells the refused forms with "·" for the space (and this
// file is exempt), so that the repository's own checks of added lines do
// not take the examples for citations.
var refRules = []refRule{
	{"a paper cited by its seed number", regexp.MustCompile(`(?i)\bseeds?[\s/#;*>]*00([0-9])\b`), func(m string) string {
		key := paperKeys[m[len(m)-1]]
		if key == "" {
			key = "its key"
		}
		return "cite the paper by its key (" + key + "; the keys are in README.md)"
	}},
	{"the project's specification, which does not ship", regexp.MustCompile(`\bSPECS\b`), func(string) string {
		return `write the assumption in the model's page, docs/models/<model>.md "## Assumptions" (A1…An, each with its source), and cite it as "docs/models/<model>.md A<k>"`
	}},
	{"an issue number", regexp.MustCompile(`(?i)\bissues?\s*#?[0-9]+\b|#[0-9]+(\s*§|'s\b)|\(#[0-9]+\)`), func(string) string {
		return "say in words what it refers to (the feature, study or finding), not its number"
	}},
}

// refExempt are the tracked text files the rules do not apply to: this
// file (it spells the rules out), and the paper-scale scoreboard, a record
// generated at the commit it names, whose claims' texts are that commit's
// (the next paper-scale run brings the current ones). Binary files (the
// golden Parquet summaries, whose embedded sweep files are the texts they
// were run with; PNG, gzip) are skipped by content.
func refExempt(rel string) bool {
	return rel == "internal/datatest/refs_test.go" || strings.HasPrefix(rel, "docs/scoreboard/")
}

// TestReferencesAReaderCanFollow: code, configs, scripts and docs cite what
// a reader of the repository has — a paper by its key, an assumption by its
// number in the model's page (docs/models/<model>.md, "Assumptions"), a
// feature or study by its name — never a number of the team's source
// texts, the team's specification or an issue of the team's tracker
// (refRules says exactly what is refused).
func TestReferencesAReaderCanFollow(t *testing.T) {
	n := 0
	trackedTexts(t, refExempt, func(rel string, b []byte) {
		for _, f := range findRefs(b) {
			n++
			t.Errorf("%s:%d: %s (%q): %s", rel, f.line, f.rule.name, f.match, f.rule.fix(f.match))
		}
	})
	if n > 0 {
		t.Logf("%d references a reader of the repository cannot follow", n)
	}
}

type refFinding struct {
	line  int
	match string
	rule  *refRule
}

// findRefs returns every match of refRules in text, with its line (the
// line where the match starts; a seed number may be on the next line).
func findRefs(text []byte) []refFinding {
	var out []refFinding
	for i := range refRules {
		r := &refRules[i]
		for _, loc := range r.re.FindAllIndex(text, -1) {
			m := string(text[loc[0]:loc[1]])
			out = append(out, refFinding{line: 1 + bytes.Count(text[:loc[0]], []byte("\n")), match: strings.Join(strings.Fields(m), " "), rule: r})
		}
	}
	return out
}

// ex spells an example of TestRefRules out: "·" stands for a space.
func ex(s string) string { return strings.ReplaceAll(s, "·", " ") }

// TestRefRules pins what each rule refuses and what it lets through.
func TestRefRules(t *testing.T) {
	for _, c := range []struct {
		text string
		want string // rule name prefix, "" for none
	}{
		{"(seed·002 §7)", "a paper"},
		{"the seeds 000 and 001", "a paper"},
		{"// first n jobs of a log (seed\n// 003 §7)", "a paper"},
		{"Seed·004 §4.1", "a paper"},
		{"seed: 1", ""},
		{"trace seed 2655", ""},
		{"replicate seed·0012", ""},
		{"SPECS.md §1.3", "the project's"},
		{"as SPECS·§9.6 reads", "the project's"},
		{"specs of the machine", ""},
		{"issue·#28 §1", "an issue"},
		{"Issue·44, item 6", "an issue"},
		{"issue·27's audit", "an issue"},
		{"(#28 §1)", "an issue"},
		{"#31's case", "an issue"},
		{"export (#31): DuckDB", "an issue"},
		{"https://github.com/x/y/issues/123", ""},
		{"(line 5, value #3)", ""},
		{"decisions #2 and #3 of Figure 2", ""},
		{"smoke #12 rep 1: a=2", ""},
		{"an issue of the tracker", ""},
	} {
		got := findRefs([]byte(ex(c.text)))
		switch {
		case c.want == "" && len(got) > 0:
			t.Errorf("%q: refused as %s (%q), want accepted", c.text, got[0].rule.name, got[0].match)
		case c.want != "" && len(got) == 0:
			t.Errorf("%q: accepted, want refused as %s…", c.text, c.want)
		case c.want != "" && !strings.HasPrefix(got[0].rule.name, c.want):
			t.Errorf("%q: refused as %s, want %s…", c.text, got[0].rule.name, c.want)
		}
	}
	if got := findRefs([]byte("a\n(seed\n// 003 §7)")); len(got) != 1 || got[0].line != 2 || got[0].match != "seed // 003" {
		t.Errorf("line-wrapped seed number: %+v", got)
	}
	if fix := refRules[0].fix(ex("seed·003")); !strings.Contains(fix, "saule2012") {
		t.Errorf("fix for the third paper's seed number = %q, want the key saule2012", fix)
	}
}
