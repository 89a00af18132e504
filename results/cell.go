package results

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Label renders a value as figures, claims and filters compare it: integers
// in base 10, floats with the shortest 'g' form, strings as they are.
func Label(v any) string {
	switch x := v.(type) {
	case int64:
		return strconv.FormatInt(x, 10)
	case uint64:
		return strconv.FormatUint(x, 10)
	case float64:
		if x == 0 {
			x = 0
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case time.Time:
		return x.Format(time.RFC3339Nano)
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}

// CellLabel returns the label of a cell ("" for a null).
func (f *Frame) CellLabel(col, row int) string {
	if f.IsNull(col, row) {
		return ""
	}
	switch c := f.Cols[col].(type) {
	case []int64:
		return Label(c[row])
	case []uint64:
		return Label(c[row])
	case []float64:
		return Label(c[row])
	case []string:
		return c[row]
	case []bool:
		return Label(c[row])
	case []time.Time:
		return Label(c[row])
	}
	return ""
}

// CellFloat returns a numeric cell as float64; ok is false for a null, a
// NaN or a non-numeric column.
func (f *Frame) CellFloat(col, row int) (float64, bool) {
	if col < 0 || f.IsNull(col, row) {
		return 0, false
	}
	var x float64
	switch c := f.Cols[col].(type) {
	case []int64:
		x = float64(c[row])
	case []uint64:
		x = float64(c[row])
	case []float64:
		x = c[row]
	case []bool:
		if c[row] {
			x = 1
		}
	case []time.Time:
		x = float64(c[row].UnixMilli())
	default:
		return 0, false
	}
	return x, !math.IsNaN(x)
}

// CompareLabels orders labels numerically when both are numbers, else as
// strings (numbers first).
func CompareLabels(a, b string) int {
	fa, ea := strconv.ParseFloat(a, 64)
	fb, eb := strconv.ParseFloat(b, 64)
	switch {
	case ea == nil && eb == nil:
		if fa < fb {
			return -1
		}
		if fa > fb {
			return 1
		}
		return strings.Compare(a, b)
	case ea == nil:
		return -1
	case eb == nil:
		return 1
	}
	return strings.Compare(a, b)
}

// CSVText neutralises a text cell of a CSV file that a spreadsheet would
// read as a formula (CSV injection): one that starts with =, +, -, @, a
// tab or a carriage return gets a leading single quote, as OWASP
// recommends. Numbers are never text cells, so a negative one stays a
// number.
func CSVText(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}
