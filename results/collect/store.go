package collect

import (
	"github.com/parquet-go/parquet-go"

	"schedfarm/results"
)

// colStore holds one typed column in memory: either a fixed number of slots
// set by index (the collector's per-job state) or a growing list (extra
// table rows).
type colStore struct {
	typ    results.Type
	ints   []int64 // Int64, Uint64 (bits), TimestampMs
	floats []float64
	strs   []string
	bools  []bool
	null   []bool // nil for a column that cannot hold nulls
	intern map[string]string
}

func newColStore(t results.Type, n int, nullable bool, intern map[string]string) *colStore {
	c := &colStore{typ: t, intern: intern}
	switch t {
	case results.Int64, results.Uint64, results.TimestampMs:
		c.ints = make([]int64, n)
	case results.Float64:
		c.floats = make([]float64, n)
	case results.String:
		c.strs = make([]string, n)
	case results.Bool:
		c.bools = make([]bool, n)
	}
	if nullable {
		c.null = make([]bool, n)
	}
	return c
}

// str copies b into a string, sharing equal values through the intern map.
func (c *colStore) str(b []byte) string {
	if c.intern == nil {
		return string(b)
	}
	if s, ok := c.intern[string(b)]; ok {
		return s
	}
	s := string(b)
	c.intern[s] = s
	return s
}

// set stores v (which may alias reader buffers) in slot i.
func (c *colStore) set(i int, v parquet.Value) {
	if c.null != nil {
		c.null[i] = v.IsNull()
	}
	switch c.typ {
	case results.Int64:
		c.ints[i] = results.ValueInt(v)
	case results.Uint64, results.TimestampMs:
		c.ints[i] = v.Int64()
	case results.Float64:
		c.floats[i] = results.ValueFloat(v)
	case results.String:
		c.strs[i] = c.str(v.ByteArray())
	case results.Bool:
		c.bools[i] = v.Boolean()
	}
}

// grow appends one zero slot and returns its index.
func (c *colStore) grow() int {
	if c.null != nil {
		c.null = append(c.null, false)
	}
	switch c.typ {
	case results.Int64, results.Uint64, results.TimestampMs:
		c.ints = append(c.ints, 0)
		return len(c.ints) - 1
	case results.Float64:
		c.floats = append(c.floats, 0)
		return len(c.floats) - 1
	case results.String:
		c.strs = append(c.strs, "")
		return len(c.strs) - 1
	case results.Bool:
		c.bools = append(c.bools, false)
		return len(c.bools) - 1
	}
	return -1
}

func (c *colStore) isNull(i int) bool { return c.null != nil && c.null[i] }

// write writes slot i into column col of the current row of tw.
func (c *colStore) write(tw *results.TableWriter, col, i int) {
	if c.isNull(i) {
		tw.SetNull(col)
		return
	}
	switch c.typ {
	case results.Int64, results.Uint64, results.TimestampMs:
		tw.SetInt(col, c.ints[i])
	case results.Float64:
		tw.SetFloat(col, c.floats[i])
	case results.String:
		tw.SetString(col, c.strs[i])
	case results.Bool:
		tw.SetBool(col, c.bools[i])
	}
}

// float returns slot i as a float64 (numeric columns only).
func (c *colStore) float(i int) float64 {
	if c.typ == results.Float64 {
		return c.floats[i]
	}
	return float64(c.ints[i])
}
