package sweep

import (
	"os"
	"strings"
	"testing"
)

// TestDocsNameEveryKey: docs/sweeps.md's key table names every key the
// parser accepts, so the reference cannot fall behind the format.
func TestDocsNameEveryKey(t *testing.T) {
	b, err := os.ReadFile("../docs/sweeps.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	i := strings.Index(doc, "## Every key")
	if i < 0 {
		t.Fatal("docs/sweeps.md has no \"## Every key\" section")
	}
	table := doc[i:]
	for _, group := range []struct {
		where string
		keys  []string
	}{{"sweep", sweepKeys}, {"axis", axisKeys}, {"range", rangeKeys}, {"top level", []string{"sweeps", "include"}}} {
		for _, k := range group.keys {
			if k == extKeys {
				continue
			}
			if !strings.Contains(table, "`"+k+"`") {
				t.Errorf("docs/sweeps.md: the key table does not name the %s key %q", group.where, k)
			}
		}
	}
}
