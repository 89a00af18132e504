package sweep

// Exclusions, indexed so that a point is checked in bounded work: one hash
// lookup per distinct set of parameters the entries name, whatever the
// number of entries (a scan of every entry made 20,000 entries × 100,000
// points take half a minute).

import (
	"encoding/binary"
	"math"
	"slices"
	"strings"
)

// maxExcludeKeySets bounds the distinct sets of parameters a sweep's
// exclude entries name: a point costs one lookup per set. Real files use
// one or two (krallmann1999 names {order, backfill} in every entry).
const maxExcludeKeySets = 16

// excludeIndex finds the first exclude entry (in file order) that matches a
// point. Entries are grouped by the set of parameters they name; per group,
// a map from the entry's values, encoded by appendValueKey in slot order,
// to the index of the first entry with those values.
type excludeIndex struct {
	groups []excludeGroup
}

// excludeGroup is the entries that name one set of parameters.
type excludeGroup struct {
	slots []int          // the parameters, ascending
	first map[string]int // encoded values → index of the first such entry
}

// add indexes entry i. It returns false, and adds nothing, when the entry
// names a new set of parameters and the index already has
// maxExcludeKeySets of them.
func (x *excludeIndex) add(i int, e *exclusion) bool {
	order := make([]int, len(e.slots))
	for j := range order {
		order[j] = j
	}
	slices.SortFunc(order, func(a, b int) int { return e.slots[a] - e.slots[b] })
	slots := make([]int, len(order))
	var key []byte
	for j, o := range order {
		slots[j] = e.slots[o]
		var ok bool
		if key, ok = appendValueKey(key, e.vals[o]); !ok {
			return true // matches no point; run reports it
		}
	}
	g := x.group(slots)
	if g == nil {
		if len(x.groups) == maxExcludeKeySets {
			return false
		}
		x.groups = append(x.groups, excludeGroup{slots: slots, first: map[string]int{}})
		g = &x.groups[len(x.groups)-1]
	}
	if _, dup := g.first[string(key)]; !dup {
		g.first[string(key)] = i
	}
	return true
}

// group returns the group of the given (ascending) slots, or nil.
func (x *excludeIndex) group(slots []int) *excludeGroup {
	for gi := range x.groups {
		if slices.Equal(x.groups[gi].slots, slots) {
			return &x.groups[gi]
		}
	}
	return nil
}

// match returns the index of the first entry that matches the complete
// point vals, or -1. It makes one lookup per group, counted in
// work.excludeProbes; buf is scratch space, returned for reuse.
func (x *excludeIndex) match(vals []any, buf []byte, work *workCount) (int, []byte) {
	best := -1
	for gi := range x.groups {
		g := &x.groups[gi]
		work.excludeProbes++
		buf = buf[:0]
		ok := true
		for _, slot := range g.slots {
			if buf, ok = appendValueKey(buf, vals[slot]); !ok {
				break
			}
		}
		if !ok {
			continue
		}
		if i, hit := g.first[string(buf)]; hit && (best < 0 || i < best) {
			best = i
		}
	}
	return best, buf
}

// appendValueKey appends an encoding of a parameter value (int64, float64,
// string or bool, as Param.Check returns them) such that two values encode
// alike exactly when they are equal as Go interface values: the type is
// part of the key, and -0 encodes as 0. It returns false for any other
// value (and for NaN), which equals nothing.
func appendValueKey(buf []byte, v any) ([]byte, bool) {
	switch x := v.(type) {
	case int64:
		buf = append(buf, 'i')
		return binary.BigEndian.AppendUint64(buf, uint64(x)), true
	case float64:
		if math.IsNaN(x) {
			return buf, false
		}
		if x == 0 {
			x = 0 // -0 == 0
		}
		buf = append(buf, 'f')
		return binary.BigEndian.AppendUint64(buf, math.Float64bits(x)), true
	case string:
		buf = append(buf, 's')
		buf = binary.AppendUvarint(buf, uint64(len(x)))
		return append(buf, x...), true
	case bool:
		if x {
			return append(buf, 'T'), true
		}
		return append(buf, 'F'), true
	}
	return buf, false
}

// keySetError reports the entry that names one set of parameters too many.
func (p *parser) keySetError(s *Sweep, e *exclusion) {
	var names []string
	for _, slot := range e.slots {
		names = append(names, s.schema.Params[slot].Name)
	}
	slices.Sort(names)
	p.ErrAt(e.line, e.col, e.key,
		"make the entries name the same parameters, or use when: sub-axes or several sweeps instead",
		"exclusion names {%s}, a set of parameters beyond the limit of %d distinct sets per sweep (a point is looked up once per set)",
		strings.Join(names, ", "), maxExcludeKeySets)
}
