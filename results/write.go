package results

import (
	"fmt"
	"io"
	"math"
	"unsafe"

	"github.com/parquet-go/parquet-go"
)

// writeBatchRows is how many rows a tableWriter hands to parquet-go at once.
const writeBatchRows = 1024

// Page buffers of a table whose size is known: pageBytesPerRow per row, at
// least minPageBuffer (larger values only start a new page sooner).
const (
	pageBytesPerRow = 64
	minPageBuffer   = 16 << 10
)

// TableWriter writes rows of one Layout into a Parquet stream: set every
// column of the current row with the Set* methods, then call EndRow.
type TableWriter struct {
	layout Layout
	w      *parquet.Writer
	defs   []int // definition level of a non-null value, per column
	batch  []parquet.Row
	n      int // rows in batch, the current one being batch[n]
	rows   int64
}

// NewTableWriter returns a writer of layout's rows to out, with meta as
// the file's key-value metadata. rows, when positive, is the number of
// rows that will be written (a part knows it): a small table then gets a row batch and page buffers of its
// size instead of the defaults (1,024 rows, 256 KiB per column), which
// otherwise cost a worker about a millisecond and 2 MB of garbage per part.
func NewTableWriter(out io.Writer, layout Layout, meta map[string]string, rows int) *TableWriter {
	opts := []parquet.WriterOption{
		layout.Schema(),
		parquet.Compression(&parquet.Zstd),
		parquet.MaxRowsPerRowGroup(RowGroupRows),
	}
	batch := writeBatchRows
	if rows > 0 {
		batch = min(batch, rows)
		opts = append(opts, parquet.PageBufferSize(min(parquet.DefaultPageBufferSize, max(minPageBuffer, rows*pageBytesPerRow))))
	}
	for k, v := range meta {
		opts = append(opts, parquet.KeyValueMetadata(k, v))
	}
	t := &TableWriter{
		layout: layout,
		w:      parquet.NewWriter(out, opts...),
		defs:   make([]int, len(layout.Columns)),
		batch:  make([]parquet.Row, batch),
	}
	for i, c := range layout.Columns {
		if c.Nullable {
			t.defs[i] = 1
		}
	}
	for i := range t.batch {
		t.batch[i] = make(parquet.Row, len(layout.Columns))
	}
	return t
}

func (t *TableWriter) put(c int, v parquet.Value) {
	t.batch[t.n][c] = v.Level(0, t.defs[c], c)
}

// SetInt, SetFloat, SetBool and SetNull set column c of the current row.
func (t *TableWriter) SetInt(c int, v int64)     { t.put(c, parquet.Int64Value(v)) }
func (t *TableWriter) SetFloat(c int, v float64) { t.put(c, parquet.DoubleValue(v)) }
func (t *TableWriter) SetBool(c int, v bool)     { t.put(c, parquet.BooleanValue(v)) }
func (t *TableWriter) SetNull(c int)             { t.batch[t.n][c] = parquet.NullValue().Level(0, 0, c) }

// SetString stores s without copying: the writer only reads it, before
// EndRow's flush returns, while s is alive.
func (t *TableWriter) SetString(c int, s string) {
	t.put(c, parquet.ByteArrayValue(unsafe.Slice(unsafe.StringData(s), len(s))))
}

// SetFloatOrNull writes NaN as null (used for undefined statistics).
func (t *TableWriter) SetFloatOrNull(c int, v float64) {
	if math.IsNaN(v) {
		t.SetNull(c)
	} else {
		t.SetFloat(c, v)
	}
}

// SetAny writes a Go value of the column's type (int64, uint64, float64,
// string, bool); nil writes null.
func (t *TableWriter) SetAny(c int, v any) error {
	col := t.layout.Columns[c]
	switch x := v.(type) {
	case nil:
		if !col.Nullable {
			return fmt.Errorf("column %q: null in a required column", col.Name)
		}
		t.SetNull(c)
		return nil
	case int64:
		if col.Type == Int64 || col.Type == TimestampMs {
			t.SetInt(c, x)
			return nil
		}
	case uint64:
		if col.Type == Uint64 {
			t.SetInt(c, int64(x))
			return nil
		}
	case float64:
		if col.Type == Float64 {
			t.SetFloat(c, x)
			return nil
		}
	case string:
		if col.Type == String {
			t.SetString(c, x)
			return nil
		}
	case bool:
		if col.Type == Bool {
			t.SetBool(c, x)
			return nil
		}
	}
	return fmt.Errorf("column %q: want %s, got %T", col.Name, col.Type, v)
}

// Rows returns the number of rows completed so far.
func (t *TableWriter) Rows() int64 { return t.rows }

// EndRow completes the current row.
func (t *TableWriter) EndRow() error {
	t.n++
	t.rows++
	if t.n == len(t.batch) {
		return t.flushBatch()
	}
	return nil
}

func (t *TableWriter) flushBatch() error {
	if t.n == 0 {
		return nil
	}
	if _, err := t.w.WriteRows(t.batch[:t.n]); err != nil {
		return fmt.Errorf("write %s rows: %w", t.layout.Table, err)
	}
	t.n = 0
	return nil
}

// Close writes the pending rows and the file footer.
func (t *TableWriter) Close() error {
	if err := t.flushBatch(); err != nil {
		return err
	}
	if err := t.w.Close(); err != nil {
		return fmt.Errorf("close %s: %w", t.layout.Table, err)
	}
	return nil
}
