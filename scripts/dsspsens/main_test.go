package main

import "testing"

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
