package simcore

import (
	"context"
	"fmt"
	"io"
	"math"
	"sort"
)

// Model is one simulated system: a paper's model, or the farm's own bench.
//
// Run must be a pure function of (params, seed) and of the declared input
// files it opens through the DataDir it was built with: no wall clock, no
// global random source, no map-iteration order in its results. params has
// been completed against Schema (every parameter present, with its declared
// Go type). Run should return promptly with ctx.Err() when ctx is done.
type Model interface {
	// Name is the model's key in sweep files ("bench", "divisible", ...).
	Name() string
	// Version changes whenever a change can alter a job's stored results,
	// its values or its columns (a new metric or extra-table column too:
	// a farm state kept across builds must not reuse parts without it); it
	// is part of every job's identity.
	Version() string
	// Doc is a one-line description.
	Doc() string
	Schema() Schema
	Run(ctx context.Context, params Params, seed uint64) (*Result, error)
}

// Result is what one Run produces: one value per declared metric, and for
// each extra table the model emitted, its columns.
type Result struct {
	// Metrics holds a value for every declared metric, of the metric's Go
	// type (int64, float64, string, bool).
	Metrics map[string]any
	// Tables holds the extra tables the model emitted, keyed by table name.
	Tables map[string]*TableData
}

// TableData is an extra table in column form: Columns holds one slice per
// declared column ([]int64, []float64, []string or []bool), all of one length.
type TableData struct {
	Columns map[string]any
}

// Len returns the number of rows.
func (t *TableData) Len() int {
	for _, c := range t.Columns {
		return sliceLen(c)
	}
	return 0
}

func sliceLen(c any) int {
	switch x := c.(type) {
	case []int64:
		return len(x)
	case []float64:
		return len(x)
	case []string:
		return len(x)
	case []bool:
		return len(x)
	}
	return -1
}

func sliceKind(c any) Kind {
	switch c.(type) {
	case []int64:
		return Int
	case []float64:
		return Float
	case []string:
		return String
	case []bool:
		return Bool
	}
	return 0
}

// Validate checks a result against the schema: every metric present with its
// declared type (a float metric finite), no undeclared metric, and every table declared with all its
// columns of the declared type and of equal length.
func (s *Schema) Validate(r *Result) error {
	if r == nil {
		return fmt.Errorf("nil result")
	}
	for _, m := range s.Metrics {
		v, ok := r.Metrics[m.Name]
		if !ok {
			return fmt.Errorf("metric %q missing from result", m.Name)
		}
		if kindOf(v) != m.Kind {
			return fmt.Errorf("metric %q: want %s, got %T", m.Name, m.Kind, v)
		}
		if x, ok := v.(float64); ok && (math.IsNaN(x) || math.IsInf(x, 0)) {
			// Formatted "NaN", "+Inf", "-Inf".
			return fmt.Errorf("metric %q is %v: want a finite float", m.Name, x)
		}
		if _, err := Coerce(m.Kind, v); err != nil {
			return fmt.Errorf("metric %q: %w", m.Name, err)
		}
	}
	if len(r.Metrics) != len(s.Metrics) {
		names := make([]string, 0, len(r.Metrics))
		for k := range r.Metrics {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, n := range names {
			found := false
			for _, m := range s.Metrics {
				found = found || m.Name == n
			}
			if !found {
				return fmt.Errorf("undeclared metric %q in result", n)
			}
		}
	}
	tnames := make([]string, 0, len(r.Tables))
	for k := range r.Tables {
		tnames = append(tnames, k)
	}
	sort.Strings(tnames)
	for _, name := range tnames {
		t, ok := s.Table(name)
		if !ok {
			return fmt.Errorf("undeclared table %q in result", name)
		}
		data := r.Tables[name]
		if data == nil {
			return fmt.Errorf("table %q: nil table data in result", name)
		}
		n := -1
		for _, c := range t.Columns {
			col, ok := data.Columns[c.Name]
			if !ok {
				return fmt.Errorf("table %q: column %q missing", name, c.Name)
			}
			if k := sliceKind(col); k != c.Kind {
				return fmt.Errorf("table %q: column %q: want []%s, got %T", name, c.Name, c.Kind, col)
			}
			if l := sliceLen(col); n >= 0 && l != n {
				return fmt.Errorf("table %q: column %q has %d rows, others %d", name, c.Name, l, n)
			} else {
				n = l
			}
		}
		if len(data.Columns) != len(t.Columns) {
			return fmt.Errorf("table %q: %d columns, schema declares %d", name, len(data.Columns), len(t.Columns))
		}
	}
	return nil
}

func kindOf(v any) Kind {
	switch v.(type) {
	case int64:
		return Int
	case float64:
		return Float
	case string:
		return String
	case bool:
		return Bool
	}
	return 0
}

// DataDir resolves the input files (traces, reference data) a model declares.
type DataDir interface {
	// Open opens the named file (a path relative to the data directory).
	Open(name string) (io.ReadCloser, error)
}

// DataFile is a file a job reads from the data directory, and the
// parameter that names it (or selects it, as a named workload does).
type DataFile struct {
	Param string
	Name  string
}

// DataReader is implemented by models whose jobs read files from the data
// directory. DataFiles returns the files a job with these (complete)
// parameters reads, without reading them, so that a run can check, before
// any job starts, that every one of them is there. Parameters that do not
// make sense together are the job's own error, not DataFiles's: it lists
// what the job would try to open.
type DataReader interface {
	DataFiles(p Params) []DataFile
}

// SeedUser is implemented by models that can tell, from a job's (complete)
// parameters alone, whether its seed changes its results: a generated
// workload, a random subset or a random tie-break use it; a whole trace, a
// fixed set of nights or DAGs scheduled deterministically do not. A point
// whose jobs use their seed is a sample of instances, so one replicate of
// it decides nothing; one that does not is exact with one replicate.
type SeedUser interface {
	UsesSeed(p Params) bool
}

// UsesSeed reports whether a job of m with parameters p depends on its
// seed: the model's SeedUser answer, and true for a model that does not
// implement SeedUser.
func UsesSeed(m Model, p Params) bool {
	if su, ok := m.(SeedUser); ok {
		return su.UsesSeed(p)
	}
	return true
}

// Registry maps model names to models. It is built once at start-up and
// only read afterwards.
type Registry struct {
	models map[string]Model
}

// NewRegistry returns a registry of the given models. Two models with one
// name are an error.
func NewRegistry(models ...Model) (*Registry, error) {
	r := &Registry{models: make(map[string]Model, len(models))}
	for _, m := range models {
		if _, dup := r.models[m.Name()]; dup {
			return nil, fmt.Errorf("simcore: model %q registered twice", m.Name())
		}
		r.models[m.Name()] = m
	}
	return r, nil
}

// Lookup returns the named model.
func (r *Registry) Lookup(name string) (Model, bool) {
	m, ok := r.models[name]
	return m, ok
}

// Names returns the registered model names, sorted.
func (r *Registry) Names() []string {
	names := make([]string, 0, len(r.models))
	for n := range r.models {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Models returns the registered models sorted by name.
func (r *Registry) Models() []Model {
	out := make([]Model, 0, len(r.models))
	for _, n := range r.Names() {
		out = append(out, r.models[n])
	}
	return out
}

// Representative is one representative paper-scale job of a model, the one
// `schedfarm bench` times, with what the paper reports for the same size.
type Representative struct {
	// Params are the job's parameters (completed against the schema by the
	// caller); Seed its instance seed.
	Params Params
	Seed   uint64
	// Doc says what the job is ("CTC trace, 77,222 jobs, FCFS + EASY").
	Doc string
	// Paper is the runtime the paper reports for that size, as free text
	// ("" when the paper reports none), and PaperSeconds the same in
	// seconds (0 when none) so a speed-up can be computed.
	Paper        string
	PaperSeconds float64
}

// Benchmarked is implemented by models that name their representative jobs
// (one per algorithm family worth timing).
type Benchmarked interface {
	Representatives() []Representative
}
