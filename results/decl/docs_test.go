package decl

import (
	"os"
	"regexp"
	"testing"
)

// TestDocsNameEveryKey: docs/claims.md shows every key of figures:,
// claims: (each kind), explained_by:, calibrated: and verify:, as a YAML key
// of its example or in code, so the reference cannot fall behind the
// parser.
func TestDocsNameEveryKey(t *testing.T) {
	b, err := os.ReadFile("../../docs/claims.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, group := range []struct {
		what string
		keys []string
	}{
		{"figure", figureKeys}, {"claim", claimKeys}, {"compare", compareKeys}, {"monotone", monotoneKeys},
		{"converge", convergeKeys}, {"published", publishedKeys}, {"argbest", argBestKeys},
		{"explained_by", explanationKeys}, {"calibrated", calibrationKeys}, {"verify", []string{"tolerances"}},
	} {
		for _, k := range group.keys {
			re := regexp.MustCompile(`(?:[\s{,]` + regexp.QuoteMeta(k) + `:)|(?:` + "`" + regexp.QuoteMeta(k) + "[`:])")
			if !re.Match(b) {
				t.Errorf("docs/claims.md does not show the %s key %q", group.what, k)
			}
		}
	}
}
