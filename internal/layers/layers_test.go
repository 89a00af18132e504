package layers

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const root = "../.."

// TestModuleDirections checks the module's own imports: no cycle, no
// import against the architecture's directions, and docs/architecture.md's picture
// is the one the graph draws today (regenerate: go run ./scripts/layers -w
// docs/architecture.md).
func TestModuleDirections(t *testing.T) {
	g, err := Read(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"simcore", "simcore/pq", "sweep", "results", "cmd/schedfarm"} {
		if !slices.Contains(g.Pkgs, want) {
			t.Fatalf("package %s not found in %v", want, g.Pkgs)
		}
	}
	if _, err := g.Layers(); err != nil {
		t.Fatal(err)
	}
	for _, b := range g.Check() {
		t.Error(b)
	}
	block, err := g.Block()
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), block) {
		t.Error("docs/architecture.md's package layers are not current: go run ./scripts/layers -w docs/architecture.md")
	}
}

// TestCheckAndLayers pins the rules and the layering on a made-up graph.
func TestCheckAndLayers(t *testing.T) {
	g := &Graph{
		Pkgs: []string{"cmd/schedfarm", "coordinator", "results", "simcore", "simcore/batch", "simcore/engine", "simcore/modeltest", "simcore/ptg", "sweep"},
		Imports: map[string][]string{
			"cmd/schedfarm":     {"coordinator", "results"},
			"coordinator":       {"results", "sweep", "results/internal/runtest"},
			"results":           {"coordinator", "simcore"},
			"simcore":           nil,
			"simcore/batch":     {"simcore/engine", "simcore/ptg"},
			"simcore/engine":    {"simcore/batch", "sweep"},
			"simcore/modeltest": {"simcore"},
			"simcore/ptg":       {"simcore", "simcore/modeltest"},
			"sweep":             {"simcore"},
		},
	}
	got := strings.Join(g.Check(), "\n")
	for _, want := range []string{
		"results imports coordinator",
		"simcore/batch imports simcore/ptg: models do not import each other",
		"simcore/engine imports simcore/batch: the core does not import a model",
		"simcore/engine imports sweep: simcore imports nothing of the farm",
		"simcore/ptg imports simcore/modeltest: modeltest is test support",
		"coordinator imports results/internal/runtest: runtest is test support",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("check misses %q in:\n%s", want, got)
		}
	}
	if _, err := g.Layers(); err == nil || !strings.Contains(err.Error(), "import cycle") {
		t.Errorf("layers of a cyclic graph: %v", err)
	}
	g.Imports["results"] = []string{"simcore"}
	g.Imports["simcore/engine"] = nil
	g.Imports["simcore/batch"] = []string{"simcore/engine"}
	g.Imports["simcore/ptg"] = []string{"simcore"}
	ls, err := g.Layers()
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"simcore", "simcore/engine"}, {"results", "simcore/batch", "simcore/modeltest", "simcore/ptg", "sweep"}, {"coordinator"}, {"cmd/schedfarm"}}
	if !slices.EqualFunc(ls, want, slices.Equal) {
		t.Errorf("layers %v, want %v", ls, want)
	}
}

// TestResultsSubpackages: the subpackages of results build on it, so results
// importing one of them is a broken direction (and a cycle).
func TestResultsSubpackages(t *testing.T) {
	g := &Graph{
		Pkgs: []string{"results", "results/claims", "simcore"},
		Imports: map[string][]string{
			"results":        {"results/claims", "simcore"},
			"results/claims": {"results", "simcore"},
		},
	}
	if got, want := strings.Join(g.Check(), "\n"), "results imports results/claims: results imports none of its subpackages"; !strings.Contains(got, want) {
		t.Errorf("check misses %q in:\n%s", want, got)
	}
	g.Imports["results"] = []string{"simcore"}
	if bad := g.Check(); len(bad) != 0 {
		t.Errorf("results/claims importing results: %v", bad)
	}
	ls, err := g.Layers()
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"simcore"}, {"results"}, {"results/claims"}}
	if !slices.EqualFunc(ls, want, slices.Equal) {
		t.Errorf("layers %v, want %v", ls, want)
	}
}
