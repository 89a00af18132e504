package results

import "github.com/parquet-go/parquet-go"

// Internals that the external tests (package results_test) exercise.
var (
	HasTableRows = hasTableRows
	SetSliceElem = setSliceElem
)

// ColumnNode is columnNode, for tests that write files of their own.
var ColumnNode = columnNode

// OrderedSchema is a schema of g's fields in the given order, as layouts
// build theirs.
func OrderedSchema(name string, g parquet.Group, fields []parquet.Field) *parquet.Schema {
	return parquet.NewSchema(name, &orderedGroup{Group: g, fields: fields})
}
