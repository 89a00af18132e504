package decl_test

import (
	"errors"
	"strings"
	"testing"

	"schedfarm/results/internal/runtest"
	"schedfarm/sweep"
)

func TestFigureDeclErrors(t *testing.T) {
	cases := []struct{ yaml, want string }{
		{"figures:\n  - {id: a, kind: line, x: sise, y: value}\n", `t.yaml:11:28: t.figures[0].x: table "summary" has no column "sise"; did you mean "size"?`},
		{"figures:\n  - {id: a, kind: lines, x: size, y: value}\n", `t.yaml:11:19: t.figures[0].kind: "lines" is not one of: line, scatter, box, cdf, hist, pareto; did you mean "line"?`},
		{"figures:\n  - {id: a, kind: line, x: size, y: valeu}\n", `did you mean "value"?`},
		{"figures:\n  - {id: a, kind: scatter, table: sample, x: i, y: u}\n", `unknown table "sample"`},
		{"figures:\n  - {id: a, kind: scatter, table: samples, x: i, y: u, colour: red}\n", `unknown key "colour"`},
		{"figures:\n  - {id: a, kind: pareto, x: value, y: iterations, series: variant}\n", `missing required key "baseline"`},
		{"figures:\n  - {id: a, kind: cdf, x: value, y: value}\n", `a cdf figure has no y column`},
		{"figures:\n  - {id: a, kind: line, x: size, y: value, where: {size: 1.5}}\n", `t.figures[0].where.size`},
		{"figures:\n  - {id: a, kind: line, x: size, y: value}\n  - {id: a, kind: line, x: size, y: value}\n", `figure id "a" used twice`},
		{"claims:\n  - compare: {metric: value, series: variant, a: EDF-DLT, b: OPR-MN, over: shares >= 2}\n", `t.claims[0].compare.over`},
		{"claims:\n  - monotone: {metric: value, in: sizes}\n", `"sizes" is not a parameter of the model; did you mean "size"?`},
		{"claims:\n  - {text: x}\n", `a claim needs one of: compare, monotone, converge, published`},
		{"claims:\n  - converge: {metric: value, series: variant, a: EDF-DLT, b: OPR-MN, as: size, eps: 0}\n", `eps must be positive`},
		{"claims:\n  - argbest: {metric: value, of: size, in: size}\n", `of and in are both "size"`},
		{"claims:\n  - argbest: {metric: value, of: variant, in: size, goal: lowest}\n", `goal`},
		{"claims:\n  - argbest: {metric: value, of: variant}\n", `missing required key "in"`},
		{"claims:\n  - published: {metric: value_mea, value: 1, tol: 1}\n", `did you mean "value_mean"?`},
		{"verify:\n  tolerances: {valeu: 1e-9}\n", `did you mean "value"?`},
		{"verify:\n  tolerances: {value: {abs: -1}}\n", `tolerances must not be negative`},
	}
	for _, c := range cases {
		_, err := runtest.Decls(t, c.yaml)
		if err == nil {
			t.Errorf("%q: no error, want %q", c.yaml, c.want)
			continue
		}
		var el sweep.ErrorList
		if !errors.As(err, &el) || el[0].Line == 0 {
			t.Errorf("%q: %v is not a positioned sweep.ErrorList", c.yaml, err)
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q:\n got  %v\n want %s", c.yaml, err, c.want)
		}
	}
	// A valid declaration of every kind.
	if _, err := runtest.Decls(t, `figures:
  - {id: a, kind: hist, table: samples, x: u, series: variant, facet: size, bins: 5}
claims:
  - {id: c1, source: "Fig. 3", text: "DLT beats MN", compare: {metric: value, series: variant, a: EDF-DLT, b: OPR-MN, op: lower, over: "share >= 90%"}, share_quote: "at most loads"}
  - monotone: {metric: value_median, in: size, direction: decreasing, series: variant, strict: true, where: {variant: [EDF-DLT, OPR-MN]}}
  - converge: {metric: value, series: variant, a: EDF-DLT, b: OPR-MN, as: size, eps: 0.01}
  - published: {metric: value, where: {size: 4, variant: EDF-DLT}, value: 3.0, tol: 0.3}
verify:
  tolerances: {value: 1e-9, iterations: {abs: 0, rel: 1e-6}}
`); err != nil {
		t.Fatal(err)
	}
}
