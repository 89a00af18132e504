package simcore

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// FormatProcSet writes ascending processor ids compactly: maximal runs of
// consecutive ids as "a-b", a lone id alone, joined by sep. With sep ","
// it is the ptg model's proc_list ("0-3,7"); with " " Batsim's interval
// set ("0-3 7", as evalys reads allocated_resources).
func FormatProcSet(ids []int, sep string) string {
	var b strings.Builder
	for i := 0; i < len(ids); {
		j := i
		for j+1 < len(ids) && ids[j+1] == ids[j]+1 {
			j++
		}
		if b.Len() > 0 {
			b.WriteString(sep)
		}
		b.WriteString(strconv.Itoa(ids[i]))
		if j > i {
			b.WriteByte('-')
			b.WriteString(strconv.Itoa(ids[j]))
		}
		i = j + 1
	}
	return b.String()
}

// ParseProcSet reads what FormatProcSet writes (runs in any order,
// overlapping or not) back into ascending, distinct ids.
func ParseProcSet(s, sep string) ([]int, error) {
	ids := []int{}
	if s == "" {
		return ids, nil
	}
	for _, part := range strings.Split(s, sep) {
		lo, hi, isRange := strings.Cut(part, "-")
		a, err := strconv.Atoi(lo)
		b := a
		if err == nil && isRange {
			b, err = strconv.Atoi(hi)
		}
		if err != nil || b < a || a < 0 {
			return nil, fmt.Errorf("processor set %q: bad run %q", s, part)
		}
		for p := a; p <= b; p++ {
			ids = append(ids, p)
		}
	}
	slices.Sort(ids)
	return slices.Compact(ids), nil
}
