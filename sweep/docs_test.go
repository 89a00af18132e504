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

// TestDocsRequiredKeys: the key table's default column says "required" for
// exactly the sweep keys without which a sweep is refused: each key of a
// minimal sweep is dropped in turn; any other key is optional.
func TestDocsRequiredKeys(t *testing.T) {
	b, err := os.ReadFile("../docs/sweeps.md")
	if err != nil {
		t.Fatal(err)
	}
	reg := testRegistry(t)
	minimal := []string{"name: a", "model: bench", "seed: 1"}
	if _, err := Parse("a.yaml", []byte(strings.Join(minimal, "\n")+"\n"), reg); err != nil {
		t.Fatalf("the minimal sweep: %v", err)
	}
	required := map[string]bool{}
	for i, line := range minimal {
		key, _, _ := strings.Cut(line, ":")
		rest := append(append([]string(nil), minimal[:i]...), minimal[i+1:]...)
		_, err := Parse("a.yaml", []byte(strings.Join(rest, "\n")+"\n"), reg)
		required[key] = err != nil && strings.Contains(err.Error(), `missing required key "`+key+`"`)
	}
	rows := 0
	for _, line := range strings.Split(string(b), "\n") {
		cells := strings.Split(line, " | ")
		if len(cells) < 4 || cells[1] != "sweep" || !strings.HasPrefix(cells[0], "| `") {
			continue
		}
		rows++
		key := strings.Trim(cells[0], "| `")
		def := strings.TrimSpace(strings.TrimSuffix(cells[len(cells)-1], "|"))
		if (def == "required") != required[key] {
			t.Errorf("docs/sweeps.md: sweep key %q has default %q; the parser requires it: %v", key, def, required[key])
		}
	}
	if rows == 0 {
		t.Fatal("docs/sweeps.md: no sweep key rows found")
	}
}
