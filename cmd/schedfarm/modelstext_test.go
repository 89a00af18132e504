package main

import (
	"reflect"
	"testing"
)

func TestWrap(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name        string
		text        string
		first, rest int
		want        []string
	}{
		{"fits", "a bb ccc", 20, 20, []string{"a bb ccc"}},
		{"breaks at spaces", "aa bb cc dd", 5, 5, []string{"aa bb", "cc dd"}},
		{"first line narrower", "aa bb cc dd", 2, 8, []string{"aa", "bb cc dd"}},
		{"long word stays whole", "x abcdefghij y", 4, 4, []string{"x", "abcdefghij", "y"}},
		{"enumeration breaks after a bar", "one of aa|bb|cc|dd", 10, 7, []string{"one of aa|", "bb|cc|", "dd"}},
		{"short enumeration stays whole", "aa|bb", 10, 10, []string{"aa|bb"}},
		{"runes, not bytes", "§§ §§ §§", 5, 5, []string{"§§ §§", "§§"}},
		{"empty", "  ", 10, 10, nil},
	} {
		if got := wrap(tc.text, tc.first, tc.rest); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: wrap(%q, %d, %d) = %q, want %q", tc.name, tc.text, tc.first, tc.rest, got, tc.want)
		}
	}
}
