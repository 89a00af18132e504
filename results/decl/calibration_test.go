package decl_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"schedfarm/results/decl"
	"schedfarm/results/internal/runtest"
	"schedfarm/simcore"
	"schedfarm/simcore/bench"
	"schedfarm/sweep"
)

func TestCalibrationDecls(t *testing.T) {
	const claims = "claims:\n  - {id: pub-1, published: {metric: value, where: {size: 1}, value: 1, tol: 0.1}}\n  - {id: pub-2, published: {metric: value, where: {size: 2}, value: 2, tol: 0.2}}\n  - {id: grows, monotone: {metric: value, in: size}}\n"
	d, err := runtest.Decls(t, claims+"calibrated:\n  noise: {against: [pub-*], no_held_out: \"every published value chose it\", why: \"chosen to reproduce the published values\"}\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Calibrations) != 1 || d.Calibrations[0].Param != "noise" || d.Calibrated("pub-2") == nil || d.Calibrated("grows") != nil {
		t.Fatalf("calibrations %+v", d.Calibrations)
	}
	d, err = runtest.Decls(t, claims+"calibrated:\n  noise: {against: [pub-1], checked_on: [t/pub-2, other/x-*], why: \"fitted on one\"}\n")
	if err != nil {
		t.Fatal(err)
	}
	if c := d.Calibrations[0]; strings.Join(c.CheckedOn, " ") != "t/pub-2 other/x-*" || d.Calibrated("pub-2") != nil {
		t.Fatalf("checked_on %+v; a held-out claim must not be calibration", c)
	}
	cases := []struct{ yaml, want string }{
		{"calibrated:\n  nois: {against: [pub-1], no_held_out: n, why: x}\n", `"nois" is not a parameter of the model; did you mean "noise"?`},
		{"calibrated:\n  noise: {against: [pub-3], no_held_out: n, why: x}\n", `"pub-3" matches no claim of the sweep`},
		{"calibrated:\n  noise: {against: [pub-1], no_held_out: n}\n", `missing required key "why"`},
		{"calibrated:\n  noise: {against: [pub-1], no_held_out: n, why: \" \"}\n", `why must not be empty`},
		{"calibrated:\n  noise: {why: x, no_held_out: n}\n", `missing required key "against"`},
		{"calibrated:\n  noise: {against: [], no_held_out: n, why: x}\n", `against is empty`},
		{"calibrated:\n  noise: {against: [pub-1], no_held_out: n, why: x, by: me}\n", `unknown key "by"`},
		{"calibrated: [noise]\n", `want a mapping of parameter names`},
		{"calibrated:\n  noise: {against: [pub-1], checked_on: [pub-2], why: x}\n", `"pub-2" is not sweep-name/claim-id`},
		{"calibrated:\n  noise: {against: [pub-1], checked_on: [t/pub-1], why: x}\n", `"pub-1" is in against too`},
		{"calibrated:\n  noise: {against: [pub-1], checked_on: [], why: x}\n", `checked_on is empty`},
		{"calibrated:\n  noise: {against: [pub-1], why: x}\n", `a calibration needs checked_on or no_held_out`},
		{"calibrated:\n  noise: {against: [pub-1], checked_on: [t/pub-2], no_held_out: n, why: x}\n", `both checked_on and no_held_out`},
		{"calibrated:\n  noise: {against: [pub-1], no_held_out: \" \", why: x}\n", `no_held_out must not be empty`},
		{"calibrated:\n  noise: {against: [pub-1], no_held_out: n, why: x}\n  noise: {against: [pub-2], no_held_out: n, why: y}\n", `key given twice (first at line`},
	}
	for _, c := range []struct{ yaml, want string }{
		{"  - {id: p, published: {metric: value, below: 3, precision: 0.1}}\n", `precision goes with value, not with bounds`},
		{"  - {id: p, published: {metric: value, value: 3, tol: 0.3, precision: 0, precision_quote: q}}\n", `precision must be positive`},
		{"  - {id: p, published: {metric: value, value: 3, tol: 0.3, precision: 0.05}}\n", `precision without precision_quote`},
		{"  - {id: p, published: {metric: value, value: 3, tol: 0.3, precision_quote: q}}\n", `precision_quote without precision`},
	} {
		if _, err := runtest.Decls(t, "claims:\n"+c.yaml); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %s", c.yaml, err, c.want)
		}
	}
	if d, err := runtest.Decls(t, "claims:\n  - {id: p, published: {metric: value, value: 3, tol: 0.05, precision: 0.05, precision_quote: \"two digits\"}}\n"); err != nil || *d.Claims[0].Precision != 0.05 || d.Claims[0].PrecisionQuote != "two digits" {
		t.Errorf("precision: %v", err)
	}
	for _, c := range cases {
		_, err := runtest.Decls(t, claims+c.yaml)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %s", c.yaml, err, c.want)
		}
	}
}

func TestSensitivityDecl(t *testing.T) {
	d, err := runtest.Decls(t, "sensitivity: \"the authors' simulator's bookkeeping\"\n")
	if err != nil || d.Sensitivity != "the authors' simulator's bookkeeping" {
		t.Fatalf("sensitivity %q, %v", d.Sensitivity, err)
	}
	for yaml, want := range map[string]string{"sensitivity: \" \"\n": "sensitivity must not be empty", "sensitivity: [a]\n": "want a string"} {
		if _, err := runtest.Decls(t, yaml); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %s", yaml, err, want)
		}
	}
}

func TestExplainedByDecl(t *testing.T) {
	d, err := runtest.Decls(t, "claims:\n  - {id: a, explained_by: {sweep: alt.yaml, claim: b, reading: \"the other reading\"}, monotone: {metric: value, in: size}}\n")
	if err != nil {
		t.Fatal(err)
	}
	if e := d.Claims[0].ExplainedBy; e == nil || e.Sweep != "alt.yaml" || e.Claim != "b" || e.Reading != "the other reading" || e.WhyNot != "" {
		t.Fatalf("explained_by %+v", e)
	}
	d, err = runtest.Decls(t, "claims:\n  - {id: a, explained_by: {sweep: alt.yaml, claim: b, why_not: \"b bounds it\"}, monotone: {metric: value, in: size}}\n")
	if err != nil {
		t.Fatal(err)
	}
	if e := d.Claims[0].ExplainedBy; e == nil || e.WhyNot != "b bounds it" || e.Reading != "" {
		t.Fatalf("explained_by why_not %+v", e)
	}
	for yaml, want := range map[string]string{
		"{sweep: alt.yaml, claim: b}":                         `missing required key "reading" (or "why_not")`,
		"{sweep: alt.yaml, claim: b, reading: r, why_not: w}": `give either reading or why_not, not both`,
		"{claim: b, why_not: w}":                              `missing required key "sweep"`,
		"{sweep: alt.yaml, claim: b, why_not: \" \"}":         `why_not must not be empty`,
		"{sweep: ../x/alt.yaml, claim: b, reading: r}":        `is not a relative .yaml path inside the folder`,
		"{sweep: alt.yaml, claim: \"b c\", reading: r}":       `bad claim id`,
		"{sweep: alt.yaml, claim: b, reading: r, value: 3}":   `unknown key "value"`,
	} {
		_, err := runtest.Decls(t, "claims:\n  - {id: a, explained_by: "+yaml+", monotone: {metric: value, in: size}}\n")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %s", yaml, err, want)
		}
	}
}

// TestCheckExplanations: explained_by must name a sweep file of the folder
// that loads and declares the claim.
func TestCheckExplanations(t *testing.T) {
	const main = "name: main\nmodel: bench\nseed: 1\naxes:\n  - {name: size, values: [1, 2]}\nclaims:\n  - {id: a, explained_by: {sweep: %s, claim: %s, reading: %s}, monotone: {metric: value, in: size}}\n"
	const readings = "readings:\n" +
		"  - {name: r, params: {noise: 0.5}, quote: \"q\", source: \"s\", declared: before, explains: true, sweeps: [alt.yaml, missing.yaml, bad.yaml]}\n" +
		"  - {name: later, params: {noise: 0.5}, quote: \"q\", source: \"s\", declared: after, sweeps: [alt.yaml]}\n" +
		"  - {name: quiet, params: {noise: 0.5}, quote: \"q\", source: \"s\", declared: before, sweeps: [alt.yaml]}\n" +
		"  - {name: elsewhere, params: {noise: 0.5}, quote: \"q\", source: \"s\", declared: before, explains: true, sweeps: [sens.yaml]}\n"
	root := writeFiles(t, map[string]string{
		"p/readings.yaml":   readings,
		"p/alt.yaml":        "name: alt\nmodel: bench\nseed: 1\nsensitivity: \"another reading\"\nparams: {noise: 0.5}\naxes:\n  - {name: size, values: [1, 2]}\nclaims:\n  - {id: holds, monotone: {metric: value, in: size}}\n",
		"q/x.yaml":          fmt.Sprintf(main, "alt.yaml", "holds", "r"),
		"q/alt.yaml":        "name: alt\nmodel: bench\nseed: 1\naxes:\n  - {name: size, values: [1, 2]}\nclaims:\n  - {id: holds, monotone: {metric: value, in: size}}\n",
		"p/plain.yaml":      "name: plain\nmodel: bench\nseed: 1\naxes:\n  - {name: size, values: [1, 2]}\nclaims:\n  - {id: holds, monotone: {metric: value, in: size}}\n",
		"p/undeclared.yaml": fmt.Sprintf(main, "alt.yaml", "holds", "rr"),
		"p/after.yaml":      fmt.Sprintf(main, "alt.yaml", "holds", "later"),
		"p/quiet.yaml":      fmt.Sprintf(main, "alt.yaml", "holds", "quiet"),
		"p/notits.yaml":     fmt.Sprintf(main, "alt.yaml", "holds", "elsewhere"),
		"p/good.yaml":       fmt.Sprintf(main, "alt.yaml", "holds", "r"),
		"p/typo.yaml":       fmt.Sprintf(main, "alt.yaml", "hold", "r"),
		"p/gone.yaml":       fmt.Sprintf(main, "missing.yaml", "holds", "r"),
		"p/other.yaml":      fmt.Sprintf(main, "bad.yaml", "holds", "r"),
		"p/bad.yaml":        "name: bad\nmodel: nope\n",
		"p/sens.yaml":       "name: sens\nmodel: bench\nseed: 1\nsensitivity: \"a bound\"\naxes:\n  - {name: size, values: [1, 2]}\nclaims:\n  - {id: bound, monotone: {metric: value, in: size}}\n",
		"p/why.yaml":        "name: main\nmodel: bench\nseed: 1\naxes:\n  - {name: size, values: [1, 2]}\nclaims:\n  - {id: a, explained_by: {sweep: sens.yaml, claim: bound, why_not: \"w\"}, monotone: {metric: value, in: size}}\n",
		"p/whyrep.yaml":     "name: main\nmodel: bench\nseed: 1\naxes:\n  - {name: size, values: [1, 2]}\nclaims:\n  - {id: a, explained_by: {sweep: plain.yaml, claim: holds, why_not: \"w\"}, monotone: {metric: value, in: size}}\n",
	})
	reg, err := simcore.NewRegistry(bench.New())
	if err != nil {
		t.Fatal(err)
	}
	for file, want := range map[string]string{"good.yaml": "", "typo.yaml": `alt.yaml declares no claim "hold"; did you mean "holds"?`,
		"gone.yaml": "sweep file missing.yaml does not load", "other.yaml": "sweep file bad.yaml does not load",
		"why.yaml": "", "whyrep.yaml": `why_not claim "holds" of plain.yaml is not in a sensitivity sweep`,
		"undeclared.yaml": `reading "rr" is not declared in readings.yaml; one of: r, later, quiet, elsewhere`,
		"after.yaml":      `reading "later" cannot explain a failure: it was declared after the result it explains was seen`,
		"quiet.yaml":      `reading "quiet" cannot explain a failure: it is not one of the paper's (at most three) explaining readings`,
		"notits.yaml":     `reading "elsewhere" does not run in alt.yaml`,
		"../q/x.yaml":     `reading "r" is not declared: the folder has no readings.yaml`} {
		f, err := sweep.Load(filepath.Join(root, "p", file), reg)
		if err != nil {
			t.Fatal(err)
		}
		err = decl.CheckExplanations(f, reg)
		switch {
		case want == "" && err != nil:
			t.Errorf("%s: %v", file, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), filepath.Base(file)+":7:")):
			t.Errorf("%s: %v, want %s at line 7", file, err, want)
		}
	}
}
