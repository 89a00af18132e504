package simcore

import (
	"slices"
	"testing"
)

func TestProcSet(t *testing.T) {
	tests := []struct {
		ids        []int
		comma, spc string
	}{
		{[]int{}, "", ""},
		{[]int{7}, "7", "7"},
		{[]int{0, 1, 2, 3, 7}, "0-3,7", "0-3 7"},
		{[]int{1, 3, 5}, "1,3,5", "1 3 5"},
		{[]int{4, 5, 9, 10, 11}, "4-5,9-11", "4-5 9-11"},
	}
	for _, tc := range tests {
		if got := FormatProcSet(tc.ids, ","); got != tc.comma {
			t.Errorf("FormatProcSet(%v, \",\") = %q, want %q", tc.ids, got, tc.comma)
		}
		if got := FormatProcSet(tc.ids, " "); got != tc.spc {
			t.Errorf("FormatProcSet(%v, \" \") = %q, want %q", tc.ids, got, tc.spc)
		}
		if got, err := ParseProcSet(tc.comma, ","); err != nil || !slices.Equal(got, tc.ids) {
			t.Errorf("ParseProcSet(%q) = %v, %v", tc.comma, got, err)
		}
	}
	for _, bad := range []string{"a", "3-1", "1,,2", "-1", "1-"} {
		if _, err := ParseProcSet(bad, ","); err == nil {
			t.Errorf("ParseProcSet(%q) accepted", bad)
		}
	}
}
