package results

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// Frame is a table read back into memory, column by column.
type Frame struct {
	// Names and Types describe the columns, in file order.
	Names []string
	Types []Type
	// Cols holds one slice per column, by type: []int64 (Int64), []uint64
	// (Uint64), []float64 (Float64), []string (String), []bool (Bool) or
	// []time.Time (TimestampMs, in UTC). A null holds the zero value.
	// Timestamps in microseconds or nanoseconds (as DuckDB, pandas and
	// polars write them) are read too, into TimestampMs columns: their
	// values keep the file's precision.
	Cols []any
	// Nulls marks null cells: Nulls[i] is nil when column i has no null,
	// otherwise Nulls[i][row] is true for a null.
	Nulls [][]bool
	// Nullable tells, per column, whether the file declares it OPTIONAL.
	Nullable []bool
	// Meta is the file's key-value metadata.
	Meta map[string]string
}

// Len returns the number of rows.
func (f *Frame) Len() int {
	if len(f.Cols) == 0 {
		return 0
	}
	return colLen(f.Cols[0])
}

// Index returns the position of the named column, or -1.
func (f *Frame) Index(name string) int {
	for i, n := range f.Names {
		if n == name {
			return i
		}
	}
	return -1
}

// Col returns the named column's slice, or nil.
func (f *Frame) Col(name string) any {
	if i := f.Index(name); i >= 0 {
		return f.Cols[i]
	}
	return nil
}

// IsNull reports whether the cell at (column i, row r) is null.
func (f *Frame) IsNull(i, r int) bool {
	return f.Nulls[i] != nil && f.Nulls[i][r]
}

// Value returns the cell at (column c, row r) as a Go value: int64,
// uint64, float64, string, bool or time.Time, nil for a null.
func (f *Frame) Value(c, r int) any {
	if f.IsNull(c, r) {
		return nil
	}
	switch x := f.Cols[c].(type) {
	case []int64:
		return x[r]
	case []uint64:
		return x[r]
	case []float64:
		return x[r]
	case []string:
		return x[r]
	case []bool:
		return x[r]
	case []time.Time:
		return x[r]
	}
	return nil
}

func colLen(c any) int {
	switch x := c.(type) {
	case []int64:
		return len(x)
	case []uint64:
		return len(x)
	case []float64:
		return len(x)
	case []string:
		return len(x)
	case []bool:
		return len(x)
	case []time.Time:
		return len(x)
	}
	return 0
}

// ReadTable reads a whole results file (or any flat Parquet file of the
// supported types) into a Frame.
func ReadTable(path string) (*Frame, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read table: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read table %s: %w", path, err)
	}
	fr, err := ReadFrame(f, st.Size())
	if err != nil {
		return nil, fmt.Errorf("read table %s: %w", path, err)
	}
	return fr, nil
}

// ReadFrame reads a flat Parquet file of the given size into a Frame.
func ReadFrame(r io.ReaderAt, size int64) (*Frame, error) {
	pf, err := parquet.OpenFile(r, size, parquet.SkipBloomFilters(true))
	if err != nil {
		return nil, err
	}
	cols, err := FileColumns(pf)
	if err != nil {
		return nil, err
	}
	n := int(pf.NumRows())
	fr := &Frame{
		Names:    make([]string, len(cols)),
		Types:    make([]Type, len(cols)),
		Cols:     make([]any, len(cols)),
		Nulls:    make([][]bool, len(cols)),
		Nullable: make([]bool, len(cols)),
		Meta:     make(map[string]string),
	}
	for _, kv := range pf.Metadata().KeyValueMetadata {
		fr.Meta[kv.Key] = kv.Value
	}
	units := make([]func(int64) time.Time, len(cols))
	for i, c := range cols {
		fr.Names[i] = c.Name
		fr.Types[i] = c.Type
		fr.Nullable[i] = c.Nullable
		switch c.Type {
		case Int64:
			fr.Cols[i] = make([]int64, 0, n)
		case Uint64:
			fr.Cols[i] = make([]uint64, 0, n)
		case Float64:
			fr.Cols[i] = make([]float64, 0, n)
		case String:
			fr.Cols[i] = make([]string, 0, n)
		case Bool:
			fr.Cols[i] = make([]bool, 0, n)
		case TimestampMs:
			fr.Cols[i] = make([]time.Time, 0, n)
			units[i] = timestampDecoder(pf.Schema().Fields()[i])
		}
	}
	row := 0
	err = ScanRows(pf, func(values parquet.Row) error {
		for i, v := range values {
			if v.IsNull() {
				if fr.Nulls[i] == nil {
					fr.Nulls[i] = make([]bool, n)
				}
				fr.Nulls[i][row] = true
			}
			switch c := fr.Cols[i].(type) {
			case []int64:
				fr.Cols[i] = append(c, ValueInt(v))
			case []uint64:
				fr.Cols[i] = append(c, v.Uint64())
			case []float64:
				fr.Cols[i] = append(c, ValueFloat(v))
			case []string:
				fr.Cols[i] = append(c, string(v.ByteArray()))
			case []bool:
				fr.Cols[i] = append(c, v.Boolean())
			case []time.Time:
				var t time.Time
				if !v.IsNull() {
					t = units[i](v.Int64())
				}
				fr.Cols[i] = append(c, t)
			}
		}
		row++
		return nil
	})
	if err != nil {
		return nil, err
	}
	return fr, nil
}

// ValueInt returns an INT64 or INT32 value as int64 (0 for null).
func ValueInt(v parquet.Value) int64 {
	if v.Kind() == parquet.Int32 {
		return int64(v.Int32())
	}
	return v.Int64()
}

// ValueFloat returns a DOUBLE or FLOAT value as float64 (0 for null).
func ValueFloat(v parquet.Value) float64 {
	if v.Kind() == parquet.Float {
		return float64(v.Float())
	}
	return v.Double()
}

// FileColumns describes the leaf columns of a flat Parquet file.
func FileColumns(pf *parquet.File) ([]Column, error) {
	fields := pf.Schema().Fields()
	cols := make([]Column, len(fields))
	for i, f := range fields {
		if !f.Leaf() {
			return nil, fmt.Errorf("column %q: nested columns are not supported", f.Name())
		}
		if f.Repeated() {
			return nil, fmt.Errorf("column %q: repeated columns are not supported", f.Name())
		}
		t, err := leafType(f)
		if err != nil {
			return nil, fmt.Errorf("column %q: %w", f.Name(), err)
		}
		cols[i] = Column{Name: f.Name(), Type: t, Nullable: f.Optional()}
	}
	return cols, nil
}

func leafType(n parquet.Node) (Type, error) {
	t := n.Type()
	var lt format.LogicalTypeValue
	if l := t.LogicalType(); l != nil {
		lt = l.Value
	}
	switch t.Kind() {
	case parquet.Int64, parquet.Int32:
		switch x := lt.(type) {
		case *format.IntType:
			if !x.IsSigned {
				if x.BitWidth == 64 {
					return Uint64, nil
				}
			}
		case *format.TimestampType:
			if t.Kind() == parquet.Int64 && timestampDecoder(n) != nil {
				return TimestampMs, nil
			}
			return 0, fmt.Errorf("unsupported timestamp %s", x)
		case nil:
		default:
			return 0, fmt.Errorf("unsupported logical type %s", x)
		}
		return Int64, nil
	case parquet.Double, parquet.Float:
		return Float64, nil
	case parquet.ByteArray:
		return String, nil
	case parquet.Boolean:
		return Bool, nil
	}
	return 0, fmt.Errorf("unsupported type %s", t)
}

// timestampDecoder returns the function that turns the INT64 values of a
// TIMESTAMP column into UTC times, by the column's unit (MILLIS, what
// schedfarm writes; MICROS, what DuckDB and Arrow write by default;
// NANOS, pandas' default), or nil for another column. isAdjustedToUTC=false
// (a "local" timestamp) is read as UTC: schedfarm's times are UTC, and a
// tool that rewrote them without a zone kept the same numbers.
func timestampDecoder(n parquet.Node) func(int64) time.Time {
	l := n.Type().LogicalType()
	if l == nil {
		return nil
	}
	ts, ok := l.Value.(*format.TimestampType)
	if !ok {
		return nil
	}
	switch ts.Unit.Value.(type) {
	case *format.MilliSeconds:
		return func(v int64) time.Time { return time.UnixMilli(v).UTC() }
	case *format.MicroSeconds:
		return func(v int64) time.Time { return time.UnixMicro(v).UTC() }
	case *format.NanoSeconds:
		return func(v int64) time.Time { return time.Unix(0, v).UTC() }
	}
	return nil
}

// ScanRows calls fn for every row of pf, in order. The row's values alias
// the reader's buffers: fn must copy what it keeps (strings especially).
func ScanRows(pf *parquet.File, fn func(parquet.Row) error) error {
	buf := make([]parquet.Row, 256)
	for _, rg := range pf.RowGroups() {
		rows := rg.Rows()
		for {
			n, err := rows.ReadRows(buf)
			for _, r := range buf[:n] {
				if ferr := fn(r); ferr != nil {
					rows.Close()
					return ferr
				}
			}
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				rows.Close()
				return fmt.Errorf("read rows: %w", err)
			}
			if n == 0 {
				break
			}
		}
		if err := rows.Close(); err != nil {
			return fmt.Errorf("read rows: %w", err)
		}
	}
	return nil
}
