package decl_test

import (
	"path/filepath"
	"strings"
	"testing"

	"schedfarm/results/decl"
	"schedfarm/results/internal/runtest"
	"schedfarm/simcore"
	"schedfarm/simcore/bench"
)

// TestToleranceRule: validate refuses a published claim looser than the
// one rule (10 % of the value; 0 for a value of 0) unless it quotes the
// paper's own precision or is declared loose:, and a share or an average
// of points without the paper's words for it.
func TestToleranceRule(t *testing.T) {
	ok := []string{
		"  - {id: p, published: {metric: value, value: 3, tol: 0.3}}\n",
		"  - {id: p, published: {metric: value, value: 3, tol: 0.2}}\n",
		"  - {id: p, published: {metric: value, value: 0, tol: 0}}\n",
		"  - {id: p, published: {metric: value, value: -5, tol: 0.5}}\n",
		"  - {id: p, published: {metric: value, value: 3, tol: 1, precision: 1, precision_quote: \"read off Fig. 2, one grid line = 1\"}}\n",
		"  - {id: p, loose: \"the paper gives no precision; a chart read by eye\", published: {metric: value, value: 3, tol: 1.5}}\n",
		"  - {id: p, published: {metric: value, below: 1800}}\n",
		"  - {id: c, share_quote: \"in most cases\", compare: {metric: value, series: variant, a: EDF-DLT, b: OPR-MN, over: \"share >= 0.9\"}}\n",
		"  - {id: c, share_quote: \"on average\", compare: {metric: value, series: variant, a: EDF-DLT, b: OPR-MN, over: mean}}\n",
		"  - {id: c, loose: \"a subset\", compare: {metric: value, series: variant, a: EDF-DLT, b: OPR-MN, over: mean}}\n",
		"  - {id: c, compare: {metric: value, series: variant, a: EDF-DLT, b: OPR-MN}}\n",
		"  - {id: i, invariant: \"Theorem 4: no deadline missed\", published: {metric: value, value: 0, tol: 0}}\n",
	}
	for _, y := range ok {
		if _, err := runtest.Decls(t, "claims:\n"+y); err != nil {
			t.Errorf("%q refused: %v", y, err)
		}
	}
	bad := []struct{ yaml, want string }{
		{"  - {id: p, published: {metric: value, value: 3, tol: 0.31}}\n", "tol 0.31 is looser than the one tolerance rule allows for 3; tighten tol to at most 0.3"},
		{"  - {id: p, published: {metric: value, value: 0, tol: 0.01}}\n", "tol 0.01 is looser than the one tolerance rule allows for 0"},
		{"  - {id: p, published: {metric: value, value: 3, tol: 1.5, precision: 1, precision_quote: \"q\"}}\n", "tol 1.5 is looser than the one tolerance rule allows for 3; tighten tol to at most 1"},
		{"  - {id: p, published: {metric: value, value: 3, tol: 1, precision: 1}}\n", "precision without precision_quote"},
		{"  - {id: p, loose: \" \", published: {metric: value, value: 3, tol: 1}}\n", "loose must not be empty"},
		{"  - {id: c, compare: {metric: value, series: variant, a: EDF-DLT, b: OPR-MN, over: \"share >= 0.75\"}}\n", "the claim holds on a share (0.75) of the points, which its sentence's words must give"},
		{"  - {id: c, compare: {metric: value, series: variant, a: EDF-DLT, b: OPR-MN, over: mean}}\n", "the claim holds on an average of the points"},
		{"  - {id: c, share_quote: \"\", compare: {metric: value, series: variant, a: EDF-DLT, b: OPR-MN, over: mean}}\n", "share_quote must not be empty"},
		{"  - {id: i, invariant: [x], published: {metric: value, value: 0, tol: 0}}\n", "want a string"},
	}
	for _, c := range bad {
		if _, err := runtest.Decls(t, "claims:\n"+c.yaml); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %s", c.yaml, err, c.want)
		}
	}
	d, err := runtest.Decls(t, "claims:\n"+ok[5]+strings.Replace(ok[11], "id: i", "id: j", 1))
	if err != nil {
		t.Fatal(err)
	}
	if d.Claims[0].Loose == "" || d.Claims[1].Invariant != "Theorem 4: no deadline missed" {
		t.Errorf("loose %q, invariant %q", d.Claims[0].Loose, d.Claims[1].Invariant)
	}
}

func TestRuleTolerance(t *testing.T) {
	for _, c := range []struct {
		v    float64
		unit string
		want float64
	}{{3, "", 0.3}, {-20, "s", 2}, {0, "", 0}, {55, "%", 10}, {0.4, "share", 0.1}} {
		if got := decl.RuleTolerance(c.v, c.unit); got != c.want {
			t.Errorf("RuleTolerance(%g, %q) = %g, want %g", c.v, c.unit, got, c.want)
		}
	}
}

// TestReadingsFile: a readings file declares each reading once, with its
// quote, whether it was written down before or after its result, and at
// most three explaining readings; LoadReadings checks its sweeps.
func TestReadingsFile(t *testing.T) {
	const one = "  - {name: %s, params: {noise: 0.5}, quote: \"q\", source: \"§4\", declared: before, explains: true, sweeps: [alt.yaml]}\n"
	r := func(name string) string { return strings.Replace(one, "%s", name, 1) }
	good := "readings:\n" + r("a") + r("b") + r("c") +
		"  - {name: d, params: {noise: 0.5}, quote: \"q\", source: \"§5\", declared: after, sweeps: [alt.yaml], defaults: [main.yaml], note: \"found after a scratch run\"}\n"
	rs, err := decl.ParseReadings("readings.yaml", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if len(rs.Readings) != 4 || !rs.Find("a").Explains || rs.Find("d").Declared != decl.DeclaredAfter || rs.Find("d").Defaults[0] != "main.yaml" ||
		rs.Find("b").Params["noise"] != "0.5" || len(rs.OfSweep("alt.yaml")) != 4 || rs.Find("zz") != nil {
		t.Errorf("readings %+v", rs.Readings)
	}
	for _, c := range []struct{ yaml, want string }{
		{"readings:\n" + r("a") + r("b") + r("c") + r("e"), "more than 3 readings explain failures"},
		{"readings:\n" + r("a") + r("a"), `reading "a" declared twice`},
		{"readings:\n  - {name: a, params: {noise: 0.5}, quote: \"q\", source: \"s\", declared: after, explains: true, sweeps: [alt.yaml]}\n", "explains: true needs declared: before"},
		{"readings:\n  - {name: a, params: {noise: 0.5}, quote: \"q\", source: \"s\", declared: later, sweeps: [alt.yaml]}\n", `"later" is not one of: before, after`},
		{"readings:\n  - {name: a, params: {noise: 0.5}, source: \"s\", declared: before, sweeps: [alt.yaml]}\n", `missing required key "quote"`},
		{"readings:\n  - {name: a, params: {}, quote: \"q\", source: \"s\", declared: before, sweeps: [alt.yaml]}\n", "params is empty"},
		{"readings:\n  - {name: a, params: {noise: 0.5}, quote: \"q\", source: \"s\", declared: before, sweeps: [../x/alt.yaml]}\n", "is not a sweep file of the folder"},
		{"readings:\n  - {name: a, params: {noise: 0.5}, quote: \"q\", source: \"s\", declared: before, sweeps: []}\n", "sweeps is empty"},
		{"readings:\n  - {name: A_1, params: {noise: 0.5}, quote: \"q\", source: \"s\", declared: before, sweeps: [alt.yaml]}\n", `bad reading name "A_1"`},
		{"readings:\n  - {name: a, params: {noise: 0.5}, quote: \"q\", source: \"s\", declared: before, sweeps: [alt.yaml], why: x}\n", `unknown key "why"`},
		{"sweeps: []\n", `unknown key "sweeps"`},
	} {
		if _, err := decl.ParseReadings("readings.yaml", []byte(c.yaml)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %s", c.yaml, err, c.want)
		}
	}
	sweepText := func(name, extra string) string {
		return "name: " + name + "\nmodel: bench\nseed: 1\n" + extra + "axes:\n  - {name: size, values: [1, 2]}\nclaims:\n  - {id: holds, monotone: {metric: value, in: size}}\n"
	}
	root := writeFiles(t, map[string]string{
		"p/readings.yaml": good,
		"p/alt.yaml":      sweepText("alt", "sensitivity: \"noisier\"\nparams: {noise: 0.5}\n"),
		"p/main.yaml":     sweepText("main", ""),
		"q/readings.yaml": "readings:\n  - {name: a, params: {noise: 0.5, work_ms: 3}, quote: \"q\", source: \"s\", declared: before, sweeps: [main.yaml, none.yaml]}\n",
		"q/main.yaml":     sweepText("main", ""),
	})
	reg, err := simcore.NewRegistry(bench.New())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := decl.LoadReadings(filepath.Join(root, "p", decl.ReadingsFile), reg); err != nil {
		t.Errorf("good readings: %v", err)
	}
	_, err = decl.LoadReadings(filepath.Join(root, "q", decl.ReadingsFile), reg)
	for _, want := range []string{"sweep main of main.yaml runs the reading but is not declared sensitivity:", "sweep main of main.yaml leaves noise at the model's default",
		"sweep file none.yaml does not load"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("bad readings: %v, want %s", err, want)
		}
	}
	// The folder's claims leave the readings file out.
	claims, err := decl.FolderClaims(filepath.Join(root, "p"), reg)
	if err != nil || len(claims) != 2 {
		t.Errorf("FolderClaims with a readings file: %v, %v", claims, err)
	}
}

// TestPrecisionReplacesRule: a quoted precision tighter than the rule is
// the claim's bound: a tolerance between the two is refused.
func TestPrecisionReplacesRule(t *testing.T) {
	if _, err := runtest.Decls(t, "claims:\n  - {id: p, published: {metric: value, value: 3, tol: 0.2, precision: 0.05, precision_quote: \"two decimals\"}}\n"); err == nil || !strings.Contains(err.Error(), "tighten tol to at most 0.05") {
		t.Errorf("tol between a tight precision and the rule: %v", err)
	}
}
