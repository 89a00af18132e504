package results

import (
	"fmt"

	"github.com/parquet-go/parquet-go"

	"schedfarm/simcore"
)

// Type is the logical type of a column of a results file. Each maps onto one
// Parquet physical type plus, where needed, a logical-type annotation that
// Arrow, pandas, polars and DuckDB all understand.
type Type int

// The column types of results files.
const (
	// Int64 is INT64 (signed, logical type INT(64, true)).
	Int64 Type = iota + 1
	// Uint64 is INT64 annotated INT(64, false): Arrow reads it as uint64,
	// pandas as uint64, polars as UInt64, DuckDB as UBIGINT. Used for seeds.
	Uint64
	// Float64 is DOUBLE.
	Float64
	// String is BYTE_ARRAY annotated STRING (UTF-8).
	String
	// Bool is BOOLEAN.
	Bool
	// TimestampMs is INT64 annotated TIMESTAMP(MILLIS, isAdjustedToUTC=true):
	// milliseconds since the Unix epoch, read by Arrow as timestamp[ms, UTC].
	TimestampMs
)

// String returns the type's name.
func (t Type) String() string {
	switch t {
	case Int64:
		return "int64"
	case Uint64:
		return "uint64"
	case Float64:
		return "float64"
	case String:
		return "string"
	case Bool:
		return "bool"
	case TimestampMs:
		return "timestamp[ms,UTC]"
	}
	return fmt.Sprintf("Type(%d)", int(t))
}

// TypeOfKind returns the column type of a simcore kind.
func TypeOfKind(k simcore.Kind) Type {
	switch k {
	case simcore.Int:
		return Int64
	case simcore.Float:
		return Float64
	case simcore.String:
		return String
	case simcore.Bool:
		return Bool
	}
	return 0
}

// Column is one column of a results file.
type Column struct {
	Name string
	Type Type
	// Nullable columns are OPTIONAL in Parquet; the others are REQUIRED.
	Nullable bool
	// Plain makes a String column PLAIN-encoded instead of dictionary
	// encoded (for columns whose values are all distinct, like job_id).
	Plain bool
}

// Layout is the ordered list of columns of one results file.
type Layout struct {
	// Table is the file's table name: "jobs", "summary" or an extra
	// table's name. The file is named Table + ".parquet".
	Table   string
	Columns []Column
}

// Names of the fixed tables and columns.
const (
	JobsTable    = "jobs"
	SummaryTable = "summary"

	ColRunID        = "run_id"
	ColJobID        = "job_id"
	ColJobIndex     = "job_index"
	ColSweep        = "sweep"
	ColModel        = "model"
	ColModelVersion = "model_version"
	ColReplicate    = "replicate"
	ColSeed         = "seed"
	ColWorker       = "worker"
	ColStartedAt    = "started_at"
	ColDurationMs   = "duration_ms"
	ColStatus       = "status"
	ColError        = "error"
	ColAttempts     = "attempts"
	ColCPUMs        = "cpu_ms"

	ColN        = "n"
	ColNFailed  = "n_failed"
	ColNMissing = "n_missing"
)

// SummaryStats returns the suffixes of the per-metric summary columns in
// column order: <metric>_mean, <metric>_std, <metric>_ci95, ...
func SummaryStats() []string {
	return []string{"mean", "std", "ci95", "median", "q1", "q3", "min", "max"}
}

// Index returns the position of the named column, or -1.
func (l Layout) Index(name string) int {
	for i, c := range l.Columns {
		if c.Name == name {
			return i
		}
	}
	return -1
}

// Names returns the column names in order.
func (l Layout) Names() []string {
	names := make([]string, len(l.Columns))
	for i, c := range l.Columns {
		names[i] = c.Name
	}
	return names
}

func (l *Layout) add(c Column) {
	l.Columns = append(l.Columns, c)
}

func (l Layout) check() error {
	seen := make(map[string]bool, len(l.Columns))
	for _, c := range l.Columns {
		if c.Name == "" {
			return fmt.Errorf("table %s: empty column name", l.Table)
		}
		if seen[c.Name] {
			return fmt.Errorf("table %s: column %q defined twice (a parameter, metric or table column clashes with another column)", l.Table, c.Name)
		}
		if c.Type < Int64 || c.Type > TimestampMs {
			return fmt.Errorf("table %s: column %q has invalid type %v", l.Table, c.Name, c.Type)
		}
		seen[c.Name] = true
	}
	return nil
}

func (l *Layout) addParams(model simcore.Schema) {
	for _, p := range model.Params {
		l.add(Column{Name: p.Name, Type: TypeOfKind(p.Kind)})
	}
}

// JobsLayout returns the layout of jobs.parquet (of the final results and of
// a part's jobs object): the fixed columns, then one REQUIRED column per
// parameter in declaration order, then one OPTIONAL column per metric (null
// for failed jobs). It fails when a parameter or metric name clashes with
// another column.
func JobsLayout(model simcore.Schema) (Layout, error) {
	l := Layout{Table: JobsTable}
	l.add(Column{Name: ColRunID, Type: String})
	l.add(Column{Name: ColJobID, Type: String, Plain: true})
	l.add(Column{Name: ColJobIndex, Type: Int64})
	l.add(Column{Name: ColSweep, Type: String})
	l.add(Column{Name: ColModel, Type: String})
	l.add(Column{Name: ColModelVersion, Type: String})
	l.add(Column{Name: ColReplicate, Type: Int64})
	l.add(Column{Name: ColSeed, Type: Uint64})
	l.add(Column{Name: ColWorker, Type: String})
	l.add(Column{Name: ColStartedAt, Type: TimestampMs, Nullable: true})
	l.add(Column{Name: ColDurationMs, Type: Float64, Nullable: true})
	l.add(Column{Name: ColStatus, Type: String})
	l.add(Column{Name: ColError, Type: String})
	l.add(Column{Name: ColAttempts, Type: Int64})
	l.add(Column{Name: ColCPUMs, Type: Float64, Nullable: true})
	l.addParams(model)
	for _, m := range model.Metrics {
		l.add(Column{Name: m.Name, Type: TypeOfKind(m.Kind), Nullable: true})
	}
	return l, l.check()
}

// TableLayout returns the layout of the extra table <table>.parquet:
// job_id, job_index, replicate, seed, one column per parameter, then the
// table's declared columns (all REQUIRED). It deliberately holds nothing
// that differs between runs of one sweep (no run ID, worker or timing).
func TableLayout(model simcore.Schema, table string) (Layout, error) {
	return tableLayout(model, table, true)
}

// PartTableLayout returns the layout of a part's <table> object: that of
// TableLayout without the parameter columns. The collector takes a job's
// parameters from the sweep, not from its part, so repeating them on
// every row (a thousand rows per job for some tables) would only cost the
// worker time and the object store bytes.
func PartTableLayout(model simcore.Schema, table string) (Layout, error) {
	return tableLayout(model, table, false)
}

func tableLayout(model simcore.Schema, table string, params bool) (Layout, error) {
	t, ok := model.Table(table)
	if !ok {
		return Layout{}, fmt.Errorf("model declares no table %q", table)
	}
	if table == JobsTable || table == SummaryTable {
		return Layout{}, fmt.Errorf("extra table name %q is reserved", table)
	}
	l := Layout{Table: table}
	l.add(Column{Name: ColJobID, Type: String, Plain: true})
	l.add(Column{Name: ColJobIndex, Type: Int64})
	l.add(Column{Name: ColReplicate, Type: Int64})
	l.add(Column{Name: ColSeed, Type: Uint64})
	if params {
		l.addParams(model)
	}
	for _, c := range t.Columns {
		l.add(Column{Name: c.Name, Type: TypeOfKind(c.Kind)})
	}
	return l, l.check()
}

// SummaryMetrics returns the metrics the summary describes: those of kind
// Int or Float, in declaration order.
func SummaryMetrics(model simcore.Schema) []simcore.Column {
	var out []simcore.Column
	for _, m := range model.Metrics {
		if m.Kind == simcore.Int || m.Kind == simcore.Float {
			out = append(out, m)
		}
	}
	return out
}

// SummaryLayout returns the layout of summary.parquet: one REQUIRED column
// per parameter, n, n_failed, n_missing (int64), then for every numeric
// metric the OPTIONAL float64 columns <metric>_mean, _std, _ci95, _median,
// _q1, _q3, _min, _max.
func SummaryLayout(model simcore.Schema) (Layout, error) {
	l := Layout{Table: SummaryTable}
	l.addParams(model)
	l.add(Column{Name: ColN, Type: Int64})
	l.add(Column{Name: ColNFailed, Type: Int64})
	l.add(Column{Name: ColNMissing, Type: Int64})
	for _, m := range SummaryMetrics(model) {
		for _, s := range SummaryStats() {
			l.add(Column{Name: m.Name + "_" + s, Type: Float64, Nullable: true})
		}
	}
	return l, l.check()
}

// RowGroupRows is the maximum number of rows per Parquet row group.
const RowGroupRows = 64 * 1024

// Schema returns the Parquet schema of the layout, its columns in layout
// order (parquet.Group alone would sort them by name).
func (l Layout) Schema() *parquet.Schema {
	g := make(parquet.Group, len(l.Columns))
	for _, c := range l.Columns {
		g[c.Name] = columnNode(c)
	}
	byName := make(map[string]parquet.Field, len(l.Columns))
	for _, f := range g.Fields() {
		byName[f.Name()] = f
	}
	fields := make([]parquet.Field, len(l.Columns))
	for i, c := range l.Columns {
		fields[i] = byName[c.Name]
	}
	return parquet.NewSchema(l.Table, &orderedGroup{Group: g, fields: fields})
}

// orderedGroup is a parquet.Group whose fields keep a given order.
type orderedGroup struct {
	parquet.Group
	fields []parquet.Field
}

func (g *orderedGroup) Fields() []parquet.Field { return g.fields }

func columnNode(c Column) parquet.Node {
	var n parquet.Node
	switch c.Type {
	case Int64:
		n = parquet.Int(64)
	case Uint64:
		n = parquet.Uint(64)
	case Float64:
		n = parquet.Leaf(parquet.DoubleType)
	case String:
		n = parquet.String()
		if c.Plain {
			// PLAIN rather than parquet-go's default for strings
			// (DELTA_LENGTH_BYTE_ARRAY), for the widest reader support.
			n = parquet.Encoded(n, &parquet.Plain)
		} else {
			n = parquet.Encoded(n, &parquet.RLEDictionary)
		}
	case Bool:
		n = parquet.Leaf(parquet.BooleanType)
	case TimestampMs:
		n = parquet.Timestamp(parquet.Millisecond)
	}
	if c.Nullable {
		n = parquet.Optional(n)
	}
	return n
}
