package results

import (
	"fmt"
	"io"
	"time"
)

// WriteFrame writes f as a Parquet file encoded as every results file is
// (zstd, row groups of at most RowGroupRows rows, dictionary-encoded
// strings): its columns in order, OPTIONAL where f.Nullable says (or where
// a column holds a null), meta as the footer's key-value metadata. table
// names the schema. A TimestampMs column is written in milliseconds.
func WriteFrame(w io.Writer, table string, f *Frame, meta map[string]string) error {
	l := Layout{Table: table}
	for i, name := range f.Names {
		nullable := f.Nulls[i] != nil || (i < len(f.Nullable) && f.Nullable[i])
		l.add(Column{Name: name, Type: f.Types[i], Nullable: nullable})
	}
	if err := l.check(); err != nil {
		return err
	}
	tw := NewTableWriter(w, l, meta, f.Len())
	for r := range f.Len() {
		for i := range l.Columns {
			if f.IsNull(i, r) {
				tw.SetNull(i)
				continue
			}
			switch c := f.Cols[i].(type) {
			case []int64, []float64, []string, []bool:
				setSliceElem(tw, i, c, r)
			case []uint64:
				tw.SetInt(i, int64(c[r]))
			case []time.Time:
				tw.SetInt(i, c[r].UnixMilli())
			default:
				return fmt.Errorf("write %s: column %q of type %T", table, f.Names[i], f.Cols[i])
			}
		}
		if err := tw.EndRow(); err != nil {
			return err
		}
	}
	return tw.Close()
}
