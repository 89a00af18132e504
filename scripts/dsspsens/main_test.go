package main

import (
	"strings"
	"testing"
)

func TestFormat(t *testing.T) {
	tests := []struct {
		n    int
		want string
	}{
		{0, "0"}, {999, "999"}, {1000, "1,000"}, {280011, "280,011"}, {1234567, "1,234,567"},
	}
	for _, tc := range tests {
		if got := thousands(tc.n); got != tc.want {
			t.Errorf("thousands(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
	if mark("1.0", true) != "**1.0**" || mark("1.0", false) != "1.0" || code("–") != "–" || code("a.yaml") != "`a.yaml`" {
		t.Error("mark or code")
	}
}

func TestHeader(t *testing.T) {
	var b strings.Builder
	header(&b, "Caption.", "a", "b c")
	if want := "Caption.\n\n| a | b c |\n|---|---|\n"; b.String() != want {
		t.Errorf("header = %q, want %q", b.String(), want)
	}
}
