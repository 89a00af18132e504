package simcore

import (
	"fmt"
	"io"
	"math"
)

// WriteDigest writes every non-measured metric and every non-measured table
// column of r to w in the schema's order, floats as their exact IEEE bits,
// so that a hash of the output pins a result bit for bit. Tests use it to
// prove that performance work changed no decision; measured columns
// (wall-clock times) are left out because they differ run to run.
func WriteDigest(w io.Writer, s Schema, r *Result) {
	put := func(name string, v any) {
		switch x := v.(type) {
		case float64:
			fmt.Fprintf(w, "%s=%x;", name, math.Float64bits(x))
		case []float64:
			fmt.Fprintf(w, "%s=[", name)
			for _, f := range x {
				fmt.Fprintf(w, "%x,", math.Float64bits(f))
			}
			fmt.Fprint(w, "];")
		default:
			fmt.Fprintf(w, "%s=%v;", name, x)
		}
	}
	for _, c := range s.Metrics {
		if !c.Measured {
			put(c.Name, r.Metrics[c.Name])
		}
	}
	for _, t := range s.Tables {
		tab, ok := r.Tables[t.Name]
		if !ok {
			continue
		}
		for _, c := range t.Columns {
			if !c.Measured {
				put(t.Name+"."+c.Name, tab.Columns[c.Name])
			}
		}
	}
}
