package simcore_test

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"schedfarm/simcore"
)

func TestKindString(t *testing.T) {
	for k, want := range map[simcore.Kind]string{
		simcore.Int: "int", simcore.Float: "float", simcore.String: "string", simcore.Bool: "bool", 0: "Kind(0)",
	} {
		if got := k.String(); got != want {
			t.Errorf("Kind(%d).String() = %q, want %q", int(k), got, want)
		}
	}
}

func TestCoerce(t *testing.T) {
	tests := []struct {
		name string
		kind simcore.Kind
		in   any
		want any
		err  string // substring of the error; "" means success
	}{
		{"int from int", simcore.Int, 3, int64(3), ""},
		{"int from int64", simcore.Int, int64(math.MaxInt64), int64(math.MaxInt64), ""},
		{"int from integral float", simcore.Int, 42.0, int64(42), ""},
		{"int from negative integral float", simcore.Int, -7.0, int64(-7), ""},
		{"int from fractional float", simcore.Int, 1.5, nil, "1.5 is not an integer"},
		{"int from float at 2^53", simcore.Int, float64(1 << 53), nil, "is not an integer"},
		{"int from NaN", simcore.Int, math.NaN(), nil, "is not an integer"},
		{"int from string", simcore.Int, "3", nil, "want int, got a string"},
		{"int from bool", simcore.Int, true, nil, "want int, got a bool"},
		{"int from nil", simcore.Int, nil, nil, "want int, got nothing"},
		{"float from int", simcore.Float, 2, 2.0, ""},
		{"float from int64", simcore.Float, int64(-5), -5.0, ""},
		{"float from float", simcore.Float, 0.1, 0.1, ""},
		{"float from NaN", simcore.Float, math.NaN(), nil, "not a finite number"},
		{"float from +Inf", simcore.Float, math.Inf(1), nil, "not a finite number"},
		{"float from -Inf", simcore.Float, math.Inf(-1), nil, "not a finite number"},
		{"float from string", simcore.Float, "high", nil, "want float, got a string"},
		{"float from bool", simcore.Float, false, nil, "want float, got a bool"},
		{"string from string", simcore.String, "x", "x", ""},
		{"string from empty", simcore.String, "", "", ""},
		{"string from int", simcore.String, 1, nil, "want string, got an integer"},
		{"string from float", simcore.String, 1.5, nil, "want string, got a float"},
		{"bool from bool", simcore.Bool, true, true, ""},
		{"bool from string", simcore.Bool, "true", nil, "want bool, got a string"},
		{"bool from int", simcore.Bool, 1, nil, "want bool, got an integer"},
		{"unsupported go type", simcore.Int, uint8(1), nil, "want int, got uint8"},
		{"unknown kind", simcore.Kind(99), 1, nil, "want Kind(99)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := simcore.Coerce(tt.kind, tt.in)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("Coerce(%v, %#v) = %#v, %v; want error containing %q", tt.kind, tt.in, got, err, tt.err)
				}
				if got != nil {
					t.Errorf("value %#v returned with the error", got)
				}
				return
			}
			if err != nil {
				t.Fatalf("Coerce(%v, %#v): %v", tt.kind, tt.in, err)
			}
			if got != tt.want {
				t.Errorf("Coerce(%v, %#v) = %#v (%T), want %#v (%T)", tt.kind, tt.in, got, got, tt.want, tt.want)
			}
		})
	}
}

func TestParamCheck(t *testing.T) {
	intP := simcore.Param{Name: "n", Kind: simcore.Int, Min: simcore.Bound(1), Max: simcore.Bound(10)}
	floatP := simcore.Param{Name: "load", Kind: simcore.Float, Min: simcore.Bound(0), Max: simcore.Bound(1)}
	minOnly := simcore.Param{Name: "m", Kind: simcore.Float, Min: simcore.Bound(-2.5)}
	maxOnly := simcore.Param{Name: "x", Kind: simcore.Int, Max: simcore.Bound(0)}
	enumP := simcore.Param{Name: "algorithm", Kind: simcore.String, Enum: []string{"FCFS", "EDF"}}
	anyStr := simcore.Param{Name: "label", Kind: simcore.String}
	boolP := simcore.Param{Name: "flag", Kind: simcore.Bool}
	tests := []struct {
		name string
		p    simcore.Param
		in   any
		want any
		err  string
	}{
		{"int in range", intP, 5, int64(5), ""},
		{"int at min", intP, int64(1), int64(1), ""},
		{"int at max", intP, 10.0, int64(10), ""},
		{"int below min", intP, 0, nil, "0 is below the minimum 1"},
		{"int above max", intP, 11, nil, "11 is above the maximum 10"},
		{"int given a fraction", intP, 2.5, nil, "2.5 is not an integer"},
		{"int given a string", intP, "5", nil, "want int, got a string"},
		{"float in range", floatP, 0.5, 0.5, ""},
		{"float from int in range", floatP, 1, 1.0, ""},
		{"float at bounds", floatP, 0.0, 0.0, ""},
		{"float above max", floatP, 1.5, nil, "1.5 is above the maximum 1"},
		{"float below min", floatP, -0.25, nil, "-0.25 is below the minimum 0"},
		{"float just above max", floatP, math.Nextafter(1, 2), nil, "1.0000000000000002 is above the maximum 1"},
		{"min only, large", minOnly, 1e300, 1e300, ""},
		{"min only, below", minOnly, -3, nil, "-3 is below the minimum -2.5"},
		{"max only, very negative", maxOnly, int64(math.MinInt64), int64(math.MinInt64), ""},
		{"max only, above", maxOnly, 1, nil, "1 is above the maximum 0"},
		{"enum member", enumP, "EDF", "EDF", ""},
		{"enum non-member", enumP, "edf", nil, `"edf" is not one of FCFS, EDF`},
		{"enum wrong type", enumP, 1, nil, "want string, got an integer"},
		{"free string", anyStr, "anything at all", "anything at all", ""},
		{"bool", boolP, false, false, ""},
		{"bool wrong type", boolP, "false", nil, "want bool, got a string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.p.Check(tt.in)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("Check(%#v) = %#v, %v; want error containing %q", tt.in, got, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Check(%#v): %v", tt.in, err)
			}
			if got != tt.want {
				t.Errorf("Check(%#v) = %#v (%T), want %#v (%T)", tt.in, got, got, tt.want, tt.want)
			}
		})
	}
}

// testSchema has one required parameter and defaults of every kind.
func testSchema() *simcore.Schema {
	return &simcore.Schema{
		Params: []simcore.Param{
			{Name: "load", Kind: simcore.Float, Min: simcore.Bound(0), Max: simcore.Bound(1), Doc: "offered load"},
			{Name: "n", Kind: simcore.Int, Min: simcore.Bound(1), Default: int64(4)},
			{Name: "ratio", Kind: simcore.Float, Default: 2.0},
			{Name: "algorithm", Kind: simcore.String, Enum: []string{"FCFS", "EDF"}, Default: "FCFS", Algorithm: true},
			{Name: "verbose", Kind: simcore.Bool, Default: false, Algorithm: true},
		},
		Metrics: []simcore.Column{
			{Name: "makespan", Kind: simcore.Float},
			{Name: "jobs", Kind: simcore.Int},
		},
		Tables: []simcore.Table{{
			Name: "tasks",
			Columns: []simcore.Column{
				{Name: "id", Kind: simcore.Int},
				{Name: "finish", Kind: simcore.Float},
				{Name: "late", Kind: simcore.Bool},
			},
		}},
	}
}

func TestSchemaComplete(t *testing.T) {
	s := testSchema()
	tests := []struct {
		name string
		in   simcore.Params
		want simcore.Params
		err  string
	}{
		{
			name: "defaults filled in",
			in:   simcore.Params{"load": 0.5},
			want: simcore.Params{"load": 0.5, "n": int64(4), "ratio": 2.0, "algorithm": "FCFS", "verbose": false},
		},
		{
			name: "given values converted to the declared kind",
			in:   simcore.Params{"load": 1, "n": 8.0, "ratio": 3, "algorithm": "EDF", "verbose": true},
			want: simcore.Params{"load": 1.0, "n": int64(8), "ratio": 3.0, "algorithm": "EDF", "verbose": true},
		},
		{name: "required missing", in: simcore.Params{"n": 2}, err: `parameter "load" is required (offered load)`},
		{name: "unknown parameter", in: simcore.Params{"load": 0.5, "lod": 1}, err: `unknown parameter "lod"`},
		{name: "out of range", in: simcore.Params{"load": 2.0}, err: `parameter "load": 2 is above the maximum 1`},
		{name: "wrong type", in: simcore.Params{"load": 0.5, "n": "four"}, err: `parameter "n": want int, got a string`},
		{name: "not in enum", in: simcore.Params{"load": 0.5, "algorithm": "SJF"}, err: `parameter "algorithm": "SJF" is not one of FCFS, EDF`},
		{name: "nil value", in: simcore.Params{"load": nil}, err: `parameter "load": want float, got nothing`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := make(simcore.Params, len(tt.in))
			for k, v := range tt.in {
				in[k] = v
			}
			got, err := s.Complete(tt.in)
			if !reflect.DeepEqual(in, tt.in) {
				t.Errorf("Complete modified its input: %v, was %v", tt.in, in)
			}
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("Complete(%v) = %v, %v; want error containing %q", tt.in, got, err, tt.err)
				}
				if got != nil {
					t.Errorf("params %v returned with the error", got)
				}
				return
			}
			if err != nil {
				t.Fatalf("Complete(%v): %v", tt.in, err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Complete(%v) =\n %#v\nwant\n %#v", tt.in, got, tt.want)
			}
		})
	}

	// A default that does not satisfy its own declaration is reported as such.
	bad := &simcore.Schema{Params: []simcore.Param{{Name: "n", Kind: simcore.Int, Min: simcore.Bound(1), Default: int64(0)}}}
	if _, err := bad.Complete(nil); err == nil || !strings.Contains(err.Error(), `default of parameter "n": 0 is below the minimum 1`) {
		t.Errorf("bad default: %v", err)
	}
}

func TestSchemaLookups(t *testing.T) {
	s := testSchema()
	if p, ok := s.Param("n"); !ok || p.Kind != simcore.Int {
		t.Errorf("Param(n) = %+v, %v", p, ok)
	}
	if _, ok := s.Param("nope"); ok {
		t.Error("Param(nope) found")
	}
	if tb, ok := s.Table("tasks"); !ok || len(tb.Columns) != 3 {
		t.Errorf("Table(tasks) = %+v, %v", tb, ok)
	}
	if _, ok := s.Table("nope"); ok {
		t.Error("Table(nope) found")
	}
	if got, want := s.WorkloadParams(), []string{"load", "n", "ratio"}; !reflect.DeepEqual(got, want) {
		t.Errorf("WorkloadParams() = %v, want %v", got, want)
	}
	if b := simcore.Bound(3); *b != 3 || simcore.Bound(3) == b {
		t.Error("Bound must return a fresh pointer to its argument")
	}
}

func TestParamsAccessors(t *testing.T) {
	p := simcore.Params{"i": int64(3), "f": 0.5, "s": "x", "b": true}
	if p.Int("i") != 3 || p.Float("f") != 0.5 || p.Float("i") != 3 || p.String("s") != "x" || !p.Bool("b") {
		t.Errorf("accessors: %v", p)
	}
	if got, want := p.Names(), []string{"b", "f", "i", "s"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Names() = %v, want %v", got, want)
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), `parameter "s" is string, not a number`) {
			t.Errorf("Float of a string: recovered %v", r)
		}
	}()
	p.Float("s")
}

func TestFormatValue(t *testing.T) {
	tests := []struct {
		in   any
		want string
	}{
		{int64(0), "0"},
		{int64(-42), "-42"},
		{int64(math.MaxInt64), "9223372036854775807"},
		{int64(1<<53 + 1), "9007199254740993"},
		{0.1, "0.1"},
		{2.0, "2"},
		{math.Copysign(0, -1), "0"},
		{1e21, "1e+21"},
		{1e-300, "1e-300"},
		{123456.789, "123456.789"},
		{1.0 / 3, "0.3333333333333333"},
		{float64(1<<53 + 2), "9.007199254740994e+15"},
		{"", `""`},
		{`a"b`, `"a\"b"`},
		{"tab\there", `"tab\there"`},
		{"é", `"é"`},
		{true, "true"},
		{false, "false"},
		{nil, "null"},
		{7, "7"}, // a Go int is not a parameter type, but prints plainly
	}
	for _, tt := range tests {
		if got := simcore.FormatValue(tt.in); got != tt.want {
			t.Errorf("FormatValue(%#v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestParamsCanonical(t *testing.T) {
	p := simcore.Params{
		"work_ms":  5.0,
		"size":     int64(3),
		"noise":    0.1,
		"variant":  "b",
		"fail":     "never",
		"rows":     int64(0),
		"z_flag":   true,
		"a_quoted": `x;y="z"`,
	}
	// Golden strings: the canonical encoding feeds job IDs and seeds, so it
	// must never change for existing values.
	const wantAll = `a_quoted="x;y=\"z\"";fail="never";noise=0.1;rows=0;size=3;variant="b";work_ms=5;z_flag=true`
	if got := p.Canonical(nil); got != wantAll {
		t.Errorf("Canonical(nil) =\n %s\nwant\n %s", got, wantAll)
	}
	names := []string{"work_ms", "size", "noise"}
	const wantSome = `noise=0.1;size=3;work_ms=5`
	if got := p.Canonical(names); got != wantSome {
		t.Errorf("Canonical(%v) = %s, want %s", names, got, wantSome)
	}
	if !reflect.DeepEqual(names, []string{"work_ms", "size", "noise"}) {
		t.Errorf("Canonical sorted its argument in place: %v", names)
	}
	if got := p.Canonical([]string{}); got != "" {
		t.Errorf("Canonical of no names = %q", got)
	}
	if got := (simcore.Params{}).Canonical(nil); got != "" {
		t.Errorf("Canonical of no params = %q", got)
	}
	// A name that is absent encodes as null rather than being skipped.
	if got := p.Canonical([]string{"size", "missing"}); got != "missing=null;size=3" {
		t.Errorf("Canonical with an absent name = %q", got)
	}
	// Stable: map iteration order does not matter.
	for i := 0; i < 20; i++ {
		q := simcore.Params{}
		for k, v := range p {
			q[k] = v
		}
		if got := q.Canonical(nil); got != wantAll {
			t.Fatalf("Canonical not stable: %s", got)
		}
	}
	// int64 and float64 of one number differ (they are different jobs).
	if a, b := (simcore.Params{"x": int64(2)}).Canonical(nil), (simcore.Params{"x": 2.5}).Canonical(nil); a != "x=2" || b != "x=2.5" {
		t.Errorf("canonical numbers: %s, %s", a, b)
	}
}

func validResult() *simcore.Result {
	return &simcore.Result{
		Metrics: map[string]any{"makespan": 12.5, "jobs": int64(3)},
		Tables: map[string]*simcore.TableData{"tasks": {Columns: map[string]any{
			"id":     []int64{0, 1, 2},
			"finish": []float64{1, 2, 3},
			"late":   []bool{false, true, false},
		}}},
	}
}

func TestSchemaValidate(t *testing.T) {
	s := testSchema()
	tests := []struct {
		name   string
		mutate func(r *simcore.Result) *simcore.Result
		err    string
	}{
		{"valid", func(r *simcore.Result) *simcore.Result { return r }, ""},
		{"valid without tables", func(r *simcore.Result) *simcore.Result { r.Tables = nil; return r }, ""},
		{"valid empty table", func(r *simcore.Result) *simcore.Result {
			r.Tables["tasks"] = &simcore.TableData{Columns: map[string]any{"id": []int64{}, "finish": []float64{}, "late": []bool{}}}
			return r
		}, ""},
		{"nil result", func(*simcore.Result) *simcore.Result { return nil }, "nil result"},
		{"missing metric", func(r *simcore.Result) *simcore.Result { delete(r.Metrics, "jobs"); return r }, `metric "jobs" missing from result`},
		{"nil metrics", func(r *simcore.Result) *simcore.Result { r.Metrics = nil; return r }, `missing from result`},
		{"int metric as float", func(r *simcore.Result) *simcore.Result { r.Metrics["jobs"] = 3.0; return r }, `metric "jobs": want int, got float64`},
		{"int metric as Go int", func(r *simcore.Result) *simcore.Result { r.Metrics["jobs"] = 3; return r }, `metric "jobs": want int, got int`},
		{"float metric as int64", func(r *simcore.Result) *simcore.Result { r.Metrics["makespan"] = int64(12); return r }, `metric "makespan": want float, got int64`},
		{"float metric NaN", func(r *simcore.Result) *simcore.Result { r.Metrics["makespan"] = math.NaN(); return r }, `metric "makespan" is NaN: want a finite float`},
		{"float metric +Inf", func(r *simcore.Result) *simcore.Result { r.Metrics["makespan"] = math.Inf(1); return r }, `metric "makespan" is +Inf: want a finite float`},
		{"float metric -Inf", func(r *simcore.Result) *simcore.Result { r.Metrics["makespan"] = math.Inf(-1); return r }, `metric "makespan" is -Inf: want a finite float`},
		{"metric as string", func(r *simcore.Result) *simcore.Result { r.Metrics["makespan"] = "12.5"; return r }, `metric "makespan": want float, got string`},
		{"undeclared metric", func(r *simcore.Result) *simcore.Result { r.Metrics["extra"] = 1.0; return r }, `undeclared metric "extra" in result`},
		{"undeclared table", func(r *simcore.Result) *simcore.Result {
			r.Tables["procs"] = &simcore.TableData{Columns: map[string]any{"id": []int64{1}}}
			return r
		}, `undeclared table "procs" in result`},
		{"column length mismatch", func(r *simcore.Result) *simcore.Result {
			r.Tables["tasks"].Columns["finish"] = []float64{1, 2}
			return r
		}, `table "tasks": column "finish" has 2 rows, others 3`},
		{"column length mismatch in the last column", func(r *simcore.Result) *simcore.Result {
			r.Tables["tasks"].Columns["late"] = []bool{true, true, true, true}
			return r
		}, `table "tasks": column "late" has 4 rows, others 3`},
		{"column missing", func(r *simcore.Result) *simcore.Result { delete(r.Tables["tasks"].Columns, "late"); return r }, `table "tasks": column "late" missing`},
		{"column of the wrong type", func(r *simcore.Result) *simcore.Result {
			r.Tables["tasks"].Columns["id"] = []float64{0, 1, 2}
			return r
		}, `table "tasks": column "id": want []int, got []float64`},
		{"column of an unsupported type", func(r *simcore.Result) *simcore.Result {
			r.Tables["tasks"].Columns["id"] = []int{0, 1, 2}
			return r
		}, `table "tasks": column "id": want []int, got []int`},
		{"undeclared column", func(r *simcore.Result) *simcore.Result {
			r.Tables["tasks"].Columns["extra"] = []int64{1, 2, 3}
			return r
		}, `table "tasks": 4 columns, schema declares 3`},
		{"nil table", func(r *simcore.Result) *simcore.Result { r.Tables["tasks"] = nil; return r }, `table "tasks"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.mutate(validResult())
			var err error
			func() {
				defer func() {
					if p := recover(); p != nil {
						t.Fatalf("Validate panicked: %v", p)
					}
				}()
				err = s.Validate(r)
			}()
			if tt.err == "" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("Validate = %v, want error containing %q", err, tt.err)
			}
		})
	}
}

func TestTableDataLen(t *testing.T) {
	if n := (&simcore.TableData{}).Len(); n != 0 {
		t.Errorf("empty Len = %d", n)
	}
	if n := validResult().Tables["tasks"].Len(); n != 3 {
		t.Errorf("Len = %d, want 3", n)
	}
}

// stubModel is a model with a name and nothing else.
type stubModel struct{ name string }

func (m stubModel) Name() string           { return m.name }
func (m stubModel) Version() string        { return "1" }
func (m stubModel) Doc() string            { return "stub " + m.name }
func (m stubModel) Schema() simcore.Schema { return simcore.Schema{} }
func (m stubModel) Run(context.Context, simcore.Params, uint64) (*simcore.Result, error) {
	return &simcore.Result{}, nil
}

func TestRegistry(t *testing.T) {
	reg, err := simcore.NewRegistry(stubModel{"zeta"}, stubModel{"alpha"}, stubModel{"mid"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := reg.Names(), []string{"alpha", "mid", "zeta"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Names() = %v, want %v", got, want)
	}
	var names []string
	for _, m := range reg.Models() {
		names = append(names, m.Name())
	}
	if want := []string{"alpha", "mid", "zeta"}; !reflect.DeepEqual(names, want) {
		t.Errorf("Models() names = %v, want %v", names, want)
	}
	if m, ok := reg.Lookup("mid"); !ok || m.Doc() != "stub mid" {
		t.Errorf("Lookup(mid) = %v, %v", m, ok)
	}
	if m, ok := reg.Lookup("Mid"); ok || m != nil {
		t.Errorf("Lookup is case-sensitive, got %v, %v", m, ok)
	}

	_, err = simcore.NewRegistry(stubModel{"a"}, stubModel{"b"}, stubModel{"a"})
	if err == nil || !strings.Contains(err.Error(), `model "a" registered twice`) {
		t.Errorf("duplicate name: %v", err)
	}

	empty, err := simcore.NewRegistry()
	if err != nil || len(empty.Names()) != 0 || len(empty.Models()) != 0 {
		t.Errorf("empty registry: %v, %v", empty.Names(), err)
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readAll(t *testing.T, rc io.ReadCloser) string {
	t.Helper()
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestDirsOpen(t *testing.T) {
	root := t.TempDir()
	first, second := filepath.Join(root, "data"), filepath.Join(root, "shared")
	writeFile(t, filepath.Join(first, "both.txt"), "first")
	writeFile(t, filepath.Join(second, "both.txt"), "second")
	writeFile(t, filepath.Join(second, "traces", "only2.swf"), "trace")
	writeFile(t, filepath.Join(root, "secret.txt"), "secret")
	d := simcore.Dirs{first, second}

	t.Run("first dir wins", func(t *testing.T) {
		rc, err := d.Open("both.txt")
		if err != nil {
			t.Fatal(err)
		}
		if got := readAll(t, rc); got != "first" {
			t.Errorf("read %q, want the first directory's file", got)
		}
	})
	t.Run("falls through to a later dir", func(t *testing.T) {
		for _, name := range []string{"traces/only2.swf", "./traces/only2.swf", "traces/../traces/only2.swf"} {
			rc, err := d.Open(name)
			if err != nil {
				t.Fatalf("Open(%q): %v", name, err)
			}
			if got := readAll(t, rc); got != "trace" {
				t.Errorf("Open(%q) read %q", name, got)
			}
		}
	})
	t.Run("refused", func(t *testing.T) {
		for _, name := range []string{
			"../secret.txt",
			"..",
			"traces/../../secret.txt",
			filepath.Join(root, "secret.txt"),
			"/etc/passwd",
			"",
			".",
		} {
			rc, err := d.Open(name)
			if err == nil {
				rc.Close()
				t.Errorf("Open(%q) succeeded", name)
				continue
			}
			if !strings.Contains(err.Error(), "must be a file path relative to the data directory") {
				t.Errorf("Open(%q): %v", name, err)
			}
			if errors.Is(err, fs.ErrNotExist) {
				t.Errorf("Open(%q): a refusal is not a not-found: %v", name, err)
			}
		}
	})
	t.Run("dotdot prefix in a file name is allowed", func(t *testing.T) {
		writeFile(t, filepath.Join(first, "..trace"), "dots")
		rc, err := d.Open("..trace")
		if err != nil {
			t.Fatal(err)
		}
		if got := readAll(t, rc); got != "dots" {
			t.Errorf("read %q", got)
		}
	})
	t.Run("not found mentions the dirs", func(t *testing.T) {
		_, err := d.Open("missing.swf")
		if err == nil {
			t.Fatal("no error")
		}
		if !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("not an fs.ErrNotExist: %v", err)
		}
		for _, want := range []string{`"missing.swf"`, first, second} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not mention %q", err, want)
			}
		}
	})
	t.Run("no dirs", func(t *testing.T) {
		if _, err := (simcore.Dirs{}).Open("x"); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("empty Dirs: %v", err)
		}
	})
	var _ simcore.DataDir = d
}

// TestDeclarationHelpers: the helpers are the literals they stand for.
func TestDeclarationHelpers(t *testing.T) {
	for _, c := range []struct {
		got, want any
	}{
		{simcore.Output("schedule_table", "d"), simcore.Param{Name: "schedule_table", Kind: simcore.Bool, Default: false, Algorithm: true, Doc: "d"}},
		{simcore.WallMs("sched_ms", "d"), simcore.Column{Name: "sched_ms", Kind: simcore.Float, Unit: "ms", Measured: true, Doc: "d"}},
		{simcore.IntColumn("n", "tasks", "d"), simcore.Column{Name: "n", Kind: simcore.Int, Unit: "tasks", Doc: "d"}},
		{simcore.FloatColumn("x", "s", "d"), simcore.Column{Name: "x", Kind: simcore.Float, Unit: "s", Doc: "d"}},
		{simcore.StringColumn("s", "d"), simcore.Column{Name: "s", Kind: simcore.String, Doc: "d"}},
		{simcore.BoolColumn("b", "d"), simcore.Column{Name: "b", Kind: simcore.Bool, Doc: "d"}},
	} {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%+v, want %+v", c.got, c.want)
		}
	}
}
