package sweep

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"schedfarm/simcore"
)

// This file is the derived-parameter expression language: a hand-written
// recursive-descent parser that keeps byte offsets so errors can point at a
// column, a static type check against the schema, and an evaluator over the
// parameter values of one point. The grammar is in doc.go.

// exprType is the static type of an expression.
type exprType uint8

const (
	tNum exprType = iota + 1
	tStr
	tBool
)

func (t exprType) String() string {
	switch t {
	case tNum:
		return "number"
	case tStr:
		return "string"
	case tBool:
		return "bool"
	}
	return "?"
}

func typeOfKind(k simcore.Kind) exprType {
	switch k {
	case simcore.Int, simcore.Float:
		return tNum
	case simcore.String:
		return tStr
	case simcore.Bool:
		return tBool
	}
	return 0
}

// exprOp is the operation of an expression node.
type exprOp uint8

const (
	opNum exprOp = iota + 1
	opStr
	opBool
	opName
	opCall
	opNeg
	opNot
	opBinary
	opCond
)

// exprNode is one node of a compiled expression.
type exprNode struct {
	op   exprOp
	pos  int // byte offset in the source, for errors
	num  float64
	str  string
	b    bool
	name string // parameter or function name; operator for opBinary
	bin  binOp  // the operator of an opBinary, resolved by check
	slot int    // parameter index in the schema, for opName
	fn   *exprFunc
	args []*exprNode
	typ  exprType
}

// binOp is a binary operator, resolved from its text once (by check) so
// that evaluation does not compare strings at every point.
type binOp uint8

const (
	binOther binOp = iota
	binAnd
	binOr
	binEq
	binNe
	binLt
	binLe
	binGt
	binGe
	binAdd
	binSub
	binMul
	binDiv
	binMod
	binPow
)

// binOps lists the binary operators' texts, indexed by binOp.
func binOps() []string {
	return []string{"", "&&", "||", "==", "!=", "<", "<=", ">", ">=", "+", "-", "*", "/", "%", "^"}
}

// exprFunc is a built-in numeric function.
type exprFunc struct {
	name     string
	min, max int // arity; max < 0 means variadic
	f        func(args []float64) float64
}

// exprFuncs returns the built-in functions. It is a function rather than a
// package-level map so the package keeps no mutable state.
func exprFuncs() []*exprFunc {
	one := func(f func(float64) float64) func([]float64) float64 {
		return func(a []float64) float64 { return f(a[0]) }
	}
	return []*exprFunc{
		{"abs", 1, 1, one(math.Abs)},
		{"ceil", 1, 1, one(math.Ceil)},
		{"exp", 1, 1, one(math.Exp)},
		{"floor", 1, 1, one(math.Floor)},
		{"log", 1, 1, one(math.Log)},
		{"log10", 1, 1, one(math.Log10)},
		{"log2", 1, 1, one(math.Log2)},
		{"max", 2, -1, func(a []float64) float64 {
			m := a[0]
			for _, x := range a[1:] {
				m = math.Max(m, x)
			}
			return m
		}},
		{"min", 2, -1, func(a []float64) float64 {
			m := a[0]
			for _, x := range a[1:] {
				m = math.Min(m, x)
			}
			return m
		}},
		{"pow", 2, 2, func(a []float64) float64 { return math.Pow(a[0], a[1]) }},
		{"round", 1, 1, one(math.Round)},
		{"sqrt", 1, 1, one(math.Sqrt)},
	}
}

// exprError is a problem at a byte offset of an expression.
type exprError struct {
	pos  int
	msg  string
	hint string
}

func (e *exprError) Error() string { return e.msg }

// exprEnv resolves the names an expression may use.
type exprEnv struct {
	schema *simcore.Schema
	funcs  []*exprFunc
}

func (env *exprEnv) fn(name string) *exprFunc {
	for _, f := range env.funcs {
		if f.name == name {
			return f
		}
	}
	return nil
}

func (env *exprEnv) names() []string {
	var out []string
	for _, p := range env.schema.Params {
		out = append(out, p.Name)
	}
	for _, f := range env.funcs {
		out = append(out, f.name)
	}
	return out
}

// compileExpr parses and type-checks src.
func compileExpr(src string, env *exprEnv) (*exprNode, error) {
	p := &exprParser{src: src, env: env}
	p.next()
	n := p.ternary(0)
	if p.err == nil && p.tok.kind != tokEOF {
		p.fail(p.tok.pos, fmt.Sprintf("unexpected %s after the end of the expression", p.tok.describe()), "")
	}
	if p.err != nil {
		return nil, p.err
	}
	if err := env.check(n); err != nil {
		return nil, err
	}
	return n, nil
}

type tokKind uint8

const (
	tokEOF tokKind = iota
	tokNum
	tokStr
	tokIdent
	tokOp
)

type token struct {
	kind tokKind
	pos  int
	text string
	num  float64
}

func (t token) describe() string {
	switch t.kind {
	case tokEOF:
		return "end of expression"
	case tokNum:
		return "number " + t.text
	case tokStr:
		return "string " + strconv.Quote(t.text)
	case tokIdent:
		return "name " + strconv.Quote(t.text)
	}
	return strconv.Quote(t.text)
}

// maxExprDepth bounds nesting so that a hostile expression cannot exhaust
// the stack.
const maxExprDepth = 100

// Caps on derive expressions, so that the work of a sweep is bounded per
// byte of its file. An expression is compiled once per sweep, when the file
// is parsed, and evaluated once per point, visiting each node at most once:
//
//   - maxExprBytes bounds one expression's source (and so its parse, and
//     the text an error quotes): 4 KiB, some 40 times a long formula;
//   - maxDeriveNodes bounds the nodes of all of a sweep's derive
//     expressions together, and so the evaluation steps per point: 1,000,
//     a few microseconds per point, beside the job's own ID and seed.
const (
	maxExprBytes   = 4 << 10
	maxDeriveNodes = 1_000
)

type exprParser struct {
	src string
	off int
	tok token
	env *exprEnv
	err *exprError
}

func (p *exprParser) fail(pos int, msg, hint string) {
	if p.err == nil {
		p.err = &exprError{pos: pos, msg: msg, hint: hint}
	}
	// Jump to the end so every loop terminates.
	p.off = len(p.src)
	p.tok = token{kind: tokEOF, pos: len(p.src)}
}

func isIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func (p *exprParser) next() {
	if p.err != nil {
		return
	}
	for p.off < len(p.src) && strings.IndexByte(" \t\r\n", p.src[p.off]) >= 0 {
		p.off++
	}
	start := p.off
	if p.off >= len(p.src) {
		p.tok = token{kind: tokEOF, pos: start}
		return
	}
	c := p.src[p.off]
	switch {
	case isDigit(c) || c == '.' && p.off+1 < len(p.src) && isDigit(p.src[p.off+1]):
		for p.off < len(p.src) && (isDigit(p.src[p.off]) || p.src[p.off] == '.') {
			p.off++
		}
		if p.off < len(p.src) && (p.src[p.off] == 'e' || p.src[p.off] == 'E') {
			q := p.off + 1
			if q < len(p.src) && (p.src[q] == '+' || p.src[q] == '-') {
				q++
			}
			if q < len(p.src) && isDigit(p.src[q]) {
				p.off = q
				for p.off < len(p.src) && isDigit(p.src[p.off]) {
					p.off++
				}
			}
		}
		text := p.src[start:p.off]
		v, err := strconv.ParseFloat(text, 64)
		if err != nil || math.IsInf(v, 0) {
			p.fail(start, fmt.Sprintf("bad number %q", text), "")
			return
		}
		p.tok = token{kind: tokNum, pos: start, text: text, num: v}
	case isIdentStart(c):
		for p.off < len(p.src) && (isIdentStart(p.src[p.off]) || isDigit(p.src[p.off])) {
			p.off++
		}
		p.tok = token{kind: tokIdent, pos: start, text: p.src[start:p.off]}
	case c == '"' || c == '\'':
		end := strings.IndexByte(p.src[start+1:], c)
		if end < 0 {
			p.fail(start, "unterminated string", "close it with "+string(c))
			return
		}
		p.off = start + 1 + end + 1
		p.tok = token{kind: tokStr, pos: start, text: p.src[start+1 : start+1+end]}
	default:
		for _, op := range []string{"==", "!=", "<=", ">=", "&&", "||"} {
			if strings.HasPrefix(p.src[start:], op) {
				p.off += 2
				p.tok = token{kind: tokOp, pos: start, text: op}
				return
			}
		}
		if strings.IndexByte("+-*/%^()<>!?:,", c) >= 0 {
			p.off++
			p.tok = token{kind: tokOp, pos: start, text: string(c)}
			return
		}
		hint := ""
		if c == '=' {
			hint = `compare with "=="`
		} else if c == '&' || c == '|' {
			hint = `use "&&" or "||"`
		}
		p.fail(start, fmt.Sprintf("unexpected character %q", rune(c)), hint)
	}
}

func (p *exprParser) isOp(ops ...string) bool {
	if p.tok.kind != tokOp {
		return false
	}
	for _, o := range ops {
		if p.tok.text == o {
			return true
		}
	}
	return false
}

func (p *exprParser) expect(op string) {
	if p.isOp(op) {
		p.next()
		return
	}
	p.fail(p.tok.pos, fmt.Sprintf("expected %q, found %s", op, p.tok.describe()), "")
}

func (p *exprParser) deep(depth int) bool {
	if depth > maxExprDepth {
		p.fail(p.tok.pos, "expression nested too deeply", "")
		return true
	}
	return false
}

// ternary = or [ "?" ternary ":" ternary ]
func (p *exprParser) ternary(depth int) *exprNode {
	if p.deep(depth) {
		return nil
	}
	c := p.binary(0, depth)
	if p.isOp("?") {
		pos := p.tok.pos
		p.next()
		a := p.ternary(depth + 1)
		p.expect(":")
		b := p.ternary(depth + 1)
		return &exprNode{op: opCond, pos: pos, args: []*exprNode{c, a, b}}
	}
	return c
}

// binaryOps returns the binary operators of one precedence level, by
// increasing precedence; all are left-associative. "^" is handled in power
// because it is right-associative and binds tighter than a unary minus on
// its left.
func binaryOps(level int) []string {
	switch level {
	case 0:
		return []string{"||"}
	case 1:
		return []string{"&&"}
	case 2:
		return []string{"==", "!=", "<", "<=", ">", ">="}
	case 3:
		return []string{"+", "-"}
	case 4:
		return []string{"*", "/", "%"}
	}
	return nil
}

// cmpLevel is the precedence level of the comparisons, which do not chain.
const cmpLevel = 2

func (p *exprParser) binary(level, depth int) *exprNode {
	ops := binaryOps(level)
	if ops == nil {
		return p.unary(depth)
	}
	l := p.binary(level+1, depth)
	for p.isOp(ops...) {
		op := p.tok
		p.next()
		r := p.binary(level+1, depth)
		l = &exprNode{op: opBinary, pos: op.pos, name: op.text, args: []*exprNode{l, r}}
		if level == cmpLevel && p.isOp(ops...) {
			p.fail(p.tok.pos, "comparisons do not chain", `combine them with "&&"`)
		}
	}
	return l
}

// unary = ("-" | "+" | "!") unary | power
func (p *exprParser) unary(depth int) *exprNode {
	if p.deep(depth) {
		return nil
	}
	if p.isOp("-", "+", "!") {
		op := p.tok
		p.next()
		x := p.unary(depth + 1)
		switch op.text {
		case "-":
			return &exprNode{op: opNeg, pos: op.pos, args: []*exprNode{x}}
		case "!":
			return &exprNode{op: opNot, pos: op.pos, args: []*exprNode{x}}
		}
		return x
	}
	return p.power(depth)
}

// power = primary [ "^" unary ], so 2^-1 works and -2^2 is -(2^2).
func (p *exprParser) power(depth int) *exprNode {
	base := p.primary(depth)
	if p.isOp("^") {
		pos := p.tok.pos
		p.next()
		exp := p.unary(depth + 1)
		return &exprNode{op: opBinary, pos: pos, name: "^", args: []*exprNode{base, exp}}
	}
	return base
}

// primary = number | string | "true" | "false" | name | name "(" args ")" | "(" ternary ")"
func (p *exprParser) primary(depth int) *exprNode {
	t := p.tok
	switch t.kind {
	case tokNum:
		p.next()
		return &exprNode{op: opNum, pos: t.pos, num: t.num}
	case tokStr:
		p.next()
		return &exprNode{op: opStr, pos: t.pos, str: t.text}
	case tokIdent:
		p.next()
		if t.text == "true" || t.text == "false" {
			return &exprNode{op: opBool, pos: t.pos, b: t.text == "true"}
		}
		if !p.isOp("(") {
			return &exprNode{op: opName, pos: t.pos, name: t.text}
		}
		p.next()
		n := &exprNode{op: opCall, pos: t.pos, name: t.text}
		if !p.isOp(")") {
			for {
				n.args = append(n.args, p.ternary(depth+1))
				if !p.isOp(",") {
					break
				}
				p.next()
			}
		}
		p.expect(")")
		return n
	case tokOp:
		if t.text == "(" {
			p.next()
			n := p.ternary(depth + 1)
			p.expect(")")
			return n
		}
	}
	p.fail(t.pos, fmt.Sprintf("expected a number, a name or \"(\", found %s", t.describe()), "")
	return nil
}

// check resolves names and functions and assigns static types.
func (env *exprEnv) check(n *exprNode) *exprError {
	for _, a := range n.args {
		if err := env.check(a); err != nil {
			return err
		}
	}
	want := func(a *exprNode, t exprType, what string) *exprError {
		if a.typ != t {
			return &exprError{pos: a.pos, msg: fmt.Sprintf("%s needs a %s, got a %s", what, t, a.typ)}
		}
		return nil
	}
	switch n.op {
	case opNum:
		n.typ = tNum
	case opStr:
		n.typ = tStr
	case opBool:
		n.typ = tBool
	case opName:
		for i, p := range env.schema.Params {
			if p.Name == n.name {
				n.slot, n.typ = i, typeOfKind(p.Kind)
				return nil
			}
		}
		if env.fn(n.name) != nil {
			return &exprError{pos: n.pos, msg: fmt.Sprintf("%s is a function", n.name), hint: fmt.Sprintf("call it: %s(...)", n.name)}
		}
		return &exprError{pos: n.pos, msg: fmt.Sprintf("unknown name %q", n.name), hint: didYouMean(n.name, env.names())}
	case opCall:
		f := env.fn(n.name)
		if f == nil {
			var names []string
			for _, f := range env.funcs {
				names = append(names, f.name)
			}
			return &exprError{pos: n.pos, msg: fmt.Sprintf("unknown function %q", n.name), hint: didYouMean(n.name, names)}
		}
		if len(n.args) < f.min || f.max >= 0 && len(n.args) > f.max {
			arity := strconv.Itoa(f.min)
			if f.max < 0 {
				arity = "at least " + arity
			} else if f.max != f.min {
				arity = fmt.Sprintf("%d to %d", f.min, f.max)
			}
			return &exprError{pos: n.pos, msg: fmt.Sprintf("%s takes %s arguments, got %d", f.name, arity, len(n.args))}
		}
		for _, a := range n.args {
			if err := want(a, tNum, f.name); err != nil {
				return err
			}
		}
		n.fn, n.typ = f, tNum
	case opNeg:
		n.typ = tNum
		return want(n.args[0], tNum, "unary -")
	case opNot:
		n.typ = tBool
		return want(n.args[0], tBool, "!")
	case opBinary:
		l, r := n.args[0], n.args[1]
		n.bin = binOp(max(0, slices.Index(binOps(), n.name)))
		switch n.name {
		case "==", "!=":
			n.typ = tBool
			if l.typ != r.typ {
				return &exprError{pos: n.pos, msg: fmt.Sprintf("cannot compare a %s with a %s", l.typ, r.typ)}
			}
		case "&&", "||":
			n.typ = tBool
			if err := want(l, tBool, n.name); err != nil {
				return err
			}
			return want(r, tBool, n.name)
		case "<", "<=", ">", ">=":
			n.typ = tBool
			if err := want(l, tNum, n.name); err != nil {
				return err
			}
			return want(r, tNum, n.name)
		default:
			n.typ = tNum
			if err := want(l, tNum, n.name); err != nil {
				return err
			}
			return want(r, tNum, n.name)
		}
	case opCond:
		if err := want(n.args[0], tBool, "the condition of ?:"); err != nil {
			return err
		}
		if n.args[1].typ != n.args[2].typ {
			return &exprError{pos: n.pos, msg: fmt.Sprintf("the branches of ?: differ in type (%s and %s)", n.args[1].typ, n.args[2].typ)}
		}
		n.typ = n.args[1].typ
	}
	return nil
}

// refs appends the parameter slots n reads.
func (n *exprNode) refs(out []int) []int {
	if n.op == opName {
		out = append(out, n.slot)
	}
	for _, a := range n.args {
		out = a.refs(out)
	}
	return out
}

// exprValue is a dynamically typed value; which field is valid follows the
// node's static type.
type exprValue struct {
	num float64
	str string
	b   bool
}

// size returns the number of nodes of n: a bound on the steps of one
// evaluation.
func (n *exprNode) size() int {
	k := 1
	for _, a := range n.args {
		k += a.size()
	}
	return k
}

// eval evaluates n over the parameter values of one point, indexed like the
// schema's parameters (int64, float64, string or bool each), adding the
// nodes it visits (at most n.size()) to *steps.
func (n *exprNode) eval(vals []any, steps *int) exprValue {
	*steps++
	switch n.op {
	case opNum:
		return exprValue{num: n.num}
	case opStr:
		return exprValue{str: n.str}
	case opBool:
		return exprValue{b: n.b}
	case opName:
		switch v := vals[n.slot].(type) {
		case int64:
			return exprValue{num: float64(v)}
		case float64:
			return exprValue{num: v}
		case string:
			return exprValue{str: v}
		case bool:
			return exprValue{b: v}
		}
		return exprValue{num: math.NaN()}
	case opCall:
		var buf [4]float64
		args := buf[:0]
		for _, a := range n.args {
			args = append(args, a.eval(vals, steps).num)
		}
		return exprValue{num: n.fn.f(args)}
	case opNeg:
		return exprValue{num: -n.args[0].eval(vals, steps).num}
	case opNot:
		return exprValue{b: !n.args[0].eval(vals, steps).b}
	case opCond:
		if n.args[0].eval(vals, steps).b {
			return n.args[1].eval(vals, steps)
		}
		return n.args[2].eval(vals, steps)
	case opBinary:
		l := n.args[0].eval(vals, steps)
		switch n.bin {
		case binAnd:
			return exprValue{b: l.b && n.args[1].eval(vals, steps).b}
		case binOr:
			return exprValue{b: l.b || n.args[1].eval(vals, steps).b}
		}
		r := n.args[1].eval(vals, steps)
		switch n.bin {
		case binEq:
			return exprValue{b: l == r}
		case binNe:
			return exprValue{b: l != r}
		case binLt:
			return exprValue{b: l.num < r.num}
		case binLe:
			return exprValue{b: l.num <= r.num}
		case binGt:
			return exprValue{b: l.num > r.num}
		case binGe:
			return exprValue{b: l.num >= r.num}
		case binAdd:
			return exprValue{num: l.num + r.num}
		case binSub:
			return exprValue{num: l.num - r.num}
		case binMul:
			return exprValue{num: l.num * r.num}
		case binDiv:
			return exprValue{num: l.num / r.num}
		case binMod:
			return exprValue{num: math.Mod(l.num, r.num)}
		case binPow:
			return exprValue{num: math.Pow(l.num, r.num)}
		}
	}
	return exprValue{num: math.NaN()}
}
