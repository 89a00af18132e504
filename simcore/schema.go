package simcore

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Kind is the type of a parameter or of a result column.
type Kind int

// The kinds a parameter or column can have. They map one to one onto Parquet
// physical types: INT64, DOUBLE, BYTE_ARRAY (UTF-8 string) and BOOLEAN.
const (
	Int Kind = iota + 1
	Float
	String
	Bool
)

// String returns the kind's name as it is written in schemas and errors.
func (k Kind) String() string {
	switch k {
	case Int:
		return "int"
	case Float:
		return "float"
	case String:
		return "string"
	case Bool:
		return "bool"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Param declares one parameter of a model.
type Param struct {
	// Name is the parameter's key in sweep files and its Parquet column name
	// (snake_case; the paper's own name where it has one).
	Name string
	Kind Kind
	// Unit is a human-readable unit ("s", "processors", "" for dimensionless).
	Unit string
	// Min and Max bound numeric values (inclusive); nil means unbounded.
	Min, Max *float64
	// Enum lists the allowed values of a String parameter; empty means any.
	Enum []string
	// Default is used when a sweep does not set the parameter. It has the
	// Go type of Kind (int64, float64, string, bool). A nil Default makes
	// the parameter required.
	Default any
	// Doc is a one-line description.
	Doc string
	// Algorithm marks a parameter that selects or tunes the scheduling
	// algorithm rather than the instance. Algorithm parameters do not enter
	// the instance seed, so every algorithm at one point schedules the same
	// instance (common random numbers).
	Algorithm bool
}

// Column declares one metric or one column of an extra table.
type Column struct {
	Name string
	Kind Kind
	Unit string
	Doc  string
	// Measured marks a metric measured on the machine that ran the job
	// (the scheduler's own computation time, say) rather than computed from
	// the instance: it is the one exception to bit-identical results, so
	// verify and the determinism checks ignore it.
	Measured bool
}

// Table declares an extra table a model can emit (one row per task, per
// processor, ...), in addition to its one-row-per-job metrics.
type Table struct {
	Name    string
	Doc     string
	Columns []Column
}

// Schema is what a model declares about itself.
type Schema struct {
	Params  []Param
	Metrics []Column
	Tables  []Table
}

// Param returns the declared parameter with the given name.
func (s *Schema) Param(name string) (Param, bool) {
	for _, p := range s.Params {
		if p.Name == name {
			return p, true
		}
	}
	return Param{}, false
}

// Table returns the declared extra table with the given name.
func (s *Schema) Table(name string) (Table, bool) {
	for _, t := range s.Tables {
		if t.Name == name {
			return t, true
		}
	}
	return Table{}, false
}

// Bound returns a pointer to v, for Param.Min and Param.Max literals.
func Bound(v float64) *float64 { return &v }

// Params holds parameter values keyed by name. Values have the Go type of
// their declared Kind: int64, float64, string or bool.
type Params map[string]any

// Int returns the named value as an int64. It panics if the value is missing
// or of another type: a model's parameters are checked against its schema
// before Run is called, so a mismatch is a programming error.
func (p Params) Int(name string) int64 { return p[name].(int64) }

// Float returns the named value as a float64 (an Int value is converted).
func (p Params) Float(name string) float64 {
	switch v := p[name].(type) {
	case float64:
		return v
	case int64:
		return float64(v)
	}
	panic(fmt.Sprintf("simcore: parameter %q is %T, not a number", name, p[name]))
}

// String returns the named value as a string.
func (p Params) String(name string) string { return p[name].(string) }

// Bool returns the named value as a bool.
func (p Params) Bool(name string) bool { return p[name].(bool) }

// Names returns the parameter names in sorted order.
func (p Params) Names() []string {
	names := make([]string, 0, len(p))
	for k := range p {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// Canonical returns a deterministic text encoding of the given parameters
// (all of them when names is nil): "name=value" pairs sorted by name and
// joined by ';', with floats in their shortest exact form. It is the input of
// job IDs and instance seeds, so it must never change for existing values.
func (p Params) Canonical(names []string) string {
	if names == nil {
		names = p.Names()
	} else {
		names = append([]string(nil), names...)
		sort.Strings(names)
	}
	var b strings.Builder
	for i, n := range names {
		if i > 0 {
			b.WriteByte(';')
		}
		b.WriteString(n)
		b.WriteByte('=')
		b.WriteString(FormatValue(p[n]))
	}
	return b.String()
}

// FormatValue renders a parameter value canonically: integers in base 10,
// floats in the shortest representation that round-trips ('g' format; -0
// as 0),
// strings quoted with strconv.Quote, bools as true/false.
func FormatValue(v any) string {
	switch x := v.(type) {
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		if x == 0 {
			x = 0 // -0 and 0 are one parameter value, with one job ID
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	case string:
		return strconv.Quote(x)
	case bool:
		return strconv.FormatBool(x)
	case nil:
		return "null"
	}
	return fmt.Sprintf("%v", v)
}

// Coerce converts v to the Go type of kind k. It accepts the types a YAML or
// JSON decoder produces (int, int64, float64, json.Number-like strings are not
// accepted) and converts integral floats to Int. It reports an error that
// names the expected kind when v cannot represent such a value.
func Coerce(k Kind, v any) (any, error) {
	switch k {
	case Int:
		switch x := v.(type) {
		case int:
			return int64(x), nil
		case int64:
			return x, nil
		case float64:
			if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
				return int64(x), nil
			}
			return nil, fmt.Errorf("%v is not an integer", x)
		}
	case Float:
		switch x := v.(type) {
		case int:
			return float64(x), nil
		case int64:
			return float64(x), nil
		case float64:
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("%v is not a finite number", x)
			}
			return x, nil
		}
	case String:
		if x, ok := v.(string); ok {
			return x, nil
		}
	case Bool:
		if x, ok := v.(bool); ok {
			return x, nil
		}
	}
	return nil, fmt.Errorf("want %s, got %s", k, describe(v))
}

func describe(v any) string {
	switch v.(type) {
	case int, int64:
		return "an integer"
	case float64:
		return "a float"
	case string:
		return "a string"
	case bool:
		return "a bool"
	case nil:
		return "nothing"
	}
	return fmt.Sprintf("%T", v)
}

// Check checks one value against the parameter's declaration (kind, range,
// enum) and returns it converted to the declared kind.
func (p Param) Check(v any) (any, error) {
	c, err := Coerce(p.Kind, v)
	if err != nil {
		return nil, err
	}
	switch x := c.(type) {
	case int64:
		if err := p.checkRange(float64(x)); err != nil {
			return nil, err
		}
	case float64:
		if err := p.checkRange(x); err != nil {
			return nil, err
		}
	case string:
		if len(p.Enum) > 0 {
			for _, e := range p.Enum {
				if e == x {
					return c, nil
				}
			}
			return nil, fmt.Errorf("%q is not one of %s", x, strings.Join(p.Enum, ", "))
		}
	}
	return c, nil
}

func (p Param) checkRange(x float64) error {
	if p.Min != nil && x < *p.Min {
		return fmt.Errorf("%s is below the minimum %s", p.formatBound(x), p.formatBound(*p.Min))
	}
	if p.Max != nil && x > *p.Max {
		return fmt.Errorf("%s is above the maximum %s", p.formatBound(x), p.formatBound(*p.Max))
	}
	return nil
}

// formatBound writes a value or bound of the parameter for an error: an
// Int parameter's in base 10 (10000000, not 1e+07).
func (p Param) formatBound(x float64) string {
	if p.Kind == Int && x == math.Trunc(x) && math.Abs(x) < 1<<63 {
		return strconv.FormatInt(int64(x), 10)
	}
	return FormatValue(x)
}

// Complete checks params against the schema and returns a full set: every
// declared parameter present (defaults filled in), every value of its
// declared Go type. Unknown names, wrong types, out-of-range values and
// missing required parameters are errors.
func (s *Schema) Complete(params Params) (Params, error) {
	out := make(Params, len(s.Params))
	for _, name := range params.Names() {
		p, ok := s.Param(name)
		if !ok {
			return nil, fmt.Errorf("unknown parameter %q", name)
		}
		v, err := p.Check(params[name])
		if err != nil {
			return nil, fmt.Errorf("parameter %q: %w", name, err)
		}
		out[name] = v
	}
	for _, p := range s.Params {
		if _, ok := out[p.Name]; ok {
			continue
		}
		if p.Default == nil {
			return nil, fmt.Errorf("parameter %q is required (%s)", p.Name, p.Doc)
		}
		v, err := p.Check(p.Default)
		if err != nil {
			return nil, fmt.Errorf("default of parameter %q: %w", p.Name, err)
		}
		out[p.Name] = v
	}
	return out, nil
}

// WorkloadParams returns the names of the parameters that define the
// instance (those not marked Algorithm), in declaration order.
func (s *Schema) WorkloadParams() []string {
	var names []string
	for _, p := range s.Params {
		if !p.Algorithm {
			names = append(names, p.Name)
		}
	}
	return names
}

// The declarations every model repeats, so that a model's schema states
// only what is its own: names, units and docs.

// Output declares the switch of an extra table: a Bool parameter, false by
// default, marked Algorithm so that turning a table on changes neither the
// instance seed nor any metric.
func Output(name, doc string) Param {
	return Param{Name: name, Kind: Bool, Default: false, Algorithm: true, Doc: doc}
}

// WallMs declares the metric a model times its decision code into (with
// Timed): milliseconds of the worker's clock, Measured, so verify and the
// determinism checks ignore it.
func WallMs(name, doc string) Column {
	return Column{Name: name, Kind: Float, Unit: "ms", Measured: true, Doc: doc}
}

// IntColumn declares an Int metric or table column.
func IntColumn(name, unit, doc string) Column {
	return Column{Name: name, Kind: Int, Unit: unit, Doc: doc}
}

// FloatColumn declares a Float metric or table column.
func FloatColumn(name, unit, doc string) Column {
	return Column{Name: name, Kind: Float, Unit: unit, Doc: doc}
}

// StringColumn declares a String metric or table column (no unit).
func StringColumn(name, doc string) Column {
	return Column{Name: name, Kind: String, Doc: doc}
}

// BoolColumn declares a Bool metric or table column (no unit).
func BoolColumn(name, doc string) Column {
	return Column{Name: name, Kind: Bool, Doc: doc}
}
