package sweep

import (
	"math"
	"strings"
	"testing"
)

func toyEnv() (*exprEnv, []any) {
	schema := toy{}.Schema()
	// load, n, dc_ratio, avg_d, algorithm, X, verbose
	vals := []any{0.5, int64(16), 2.0, 0.0, "DASEDF", int64(3), true}
	return &exprEnv{schema: &schema, funcs: exprFuncs()}, vals
}

func TestExprEval(t *testing.T) {
	tests := []struct {
		src  string
		want any // float64, string or bool
	}{
		{"1 + 2 * 3", 7.0},
		{"(1 + 2) * 3", 9.0},
		{"2 ^ 3 ^ 2", 512.0},
		{"-2 ^ 2", -4.0},
		{"2 ^ -1", 0.5},
		{"-load", -0.5},
		{"--load", 0.5},
		{"10 % 4", 2.0},
		{"dc_ratio * n / 2", 16.0},
		{"1e3 + .5", 1000.5},
		{"min(3, n, 7)", 3.0},
		{"max(load, 0.25)", 0.5},
		{"abs(-3) + sqrt(16) + floor(2.7) + ceil(2.1) + round(2.5)", 3.0 + 4 + 2 + 3 + 3},
		{"log2(n) + log10(1000) + log(exp(1))", 4.0 + 3 + 1},
		{"pow(2, 10)", 1024.0},
		{"load > 0.3 ? 1 : 0", 1.0},
		{"load > 0.3 && algorithm == 'DASEDF'", true},
		{"!verbose || X != 3", false},
		{"algorithm == \"FCFS\" ? 'a' : 'b'", "b"},
		{"X <= 3 && X >= 3 && X < 4", true},
		{"n == 16 ? (load < 1 ? 10 : 20) : 30", 10.0},
	}
	env, vals := toyEnv()
	for _, tt := range tests {
		n, err := compileExpr(tt.src, env)
		if err != nil {
			t.Errorf("%s: %v", tt.src, err)
			continue
		}
		steps := 0
		v := n.eval(vals, &steps)
		if steps < 1 || steps > n.size() {
			t.Errorf("%s: %d evaluation steps, %d nodes", tt.src, steps, n.size())
		}
		var got any
		switch n.typ {
		case tNum:
			got = v.num
		case tStr:
			got = v.str
		case tBool:
			got = v.b
		}
		if f, ok := got.(float64); ok && math.Abs(f-tt.want.(float64)) < 1e-12 {
			continue
		}
		if got != tt.want {
			t.Errorf("%s = %v, want %v", tt.src, got, tt.want)
		}
	}
}

func TestExprErrors(t *testing.T) {
	tests := []struct {
		src  string
		pos  int
		msg  string
		hint string
	}{
		{"", 0, "expected a number, a name", ""},
		{"1 +", 3, "expected a number, a name", ""},
		{"(1 + 2", 6, `expected ")"`, ""},
		{"1 2", 2, "unexpected number 2 after the end", ""},
		{"load = 1", 5, "unexpected character '='", `compare with "=="`},
		{"load & 1", 5, "unexpected character '&'", `use "&&" or "||"`},
		{"dc_rato * 2", 0, `unknown name "dc_rato"`, `did you mean "dc_ratio"?`},
		{"2 * sqr(load)", 4, `unknown function "sqr"`, `did you mean "sqrt"?`},
		{"sqrt", 0, "sqrt is a function", "call it: sqrt(...)"},
		{"pow(1)", 0, "pow takes 2 arguments, got 1", ""},
		{"min(1)", 0, "min takes at least 2 arguments", ""},
		{"algorithm + 1", 0, "+ needs a number, got a string", ""},
		{"load == 'x'", 5, "cannot compare a number with a string", ""},
		{"load ? 1 : 2", 0, "the condition of ?: needs a bool", ""},
		{"verbose ? 1 : 'a'", 8, "the branches of ?: differ", ""},
		{"1 < 2 < 3", 6, "comparisons do not chain", `combine them with "&&"`},
		{"'abc", 0, "unterminated string", "close it with '"},
		{"1.2.3", 0, `bad number "1.2.3"`, ""},
		{"-algorithm", 1, "unary - needs a number", ""},
		{"!load", 1, "! needs a bool", ""},
		{strings.Repeat("(", 200) + "1" + strings.Repeat(")", 200), 101, "nested too deeply", ""},
	}
	env, _ := toyEnv()
	for _, tt := range tests {
		_, err := compileExpr(tt.src, env)
		ee, ok := err.(*exprError)
		if !ok {
			t.Errorf("%q: err = %v, want an *exprError", tt.src, err)
			continue
		}
		if ee.pos != tt.pos || !strings.Contains(ee.msg, tt.msg) || ee.hint != tt.hint {
			t.Errorf("%q: got pos %d %q hint %q; want pos %d %q hint %q", tt.src, ee.pos, ee.msg, ee.hint, tt.pos, tt.msg, tt.hint)
		}
	}
}

func TestExprColumnsInFile(t *testing.T) {
	reg := testRegistry(t)
	tests := []struct{ src, want string }{
		// plain scalar: column of the expression + offset
		{"{name: a, model: toy, seed: 1, params: {load: 0.5},\n derive: {avg_d: load + nope}}", "e.yaml:2:25:"},
		// double-quoted: one more for the quote
		{"{name: a, model: toy, seed: 1, params: {load: 0.5},\n derive: {avg_d: \"load + nope\"}}", "e.yaml:2:26:"},
		// block scalar: the scalar's position, and the column in the message
		{"name: a\nmodel: toy\nseed: 1\nparams: {load: 0.5}\nderive:\n  avg_d: >\n    load + nope\n", "(column 8 of the expression)"},
	}
	for _, tt := range tests {
		_, err := Parse("e.yaml", []byte(tt.src), reg)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: err = %v, want %q", tt.src, err, tt.want)
		}
	}
}
