package main

import (
	"strings"
	"testing"

	"schedfarm/broker"
	"schedfarm/coordinator"
)

func TestSafe(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"w-1", "w-1"},
		{"host.example.org", "host.example.org"},
		{"Ümit", "Ümit"},
		{"\x1b[31mred\x1b[0m", `\x1b[31mred\x1b[0m`},
		{"a\nb\rc\td", `a\x0ab\x0dc\x09d`},
		{"x\x7fy", `x\x7fy`},
		{"\u202eevil", `\u202eevil`},
		{"\u009bcsi", `\u009bcsi`},
		{"bad\xffutf8", `bad\xffutf8`},
		{strings.Repeat("a", 100), strings.Repeat("a", 80) + "…"},
	} {
		if got := safe(c.in, 80); got != c.want {
			t.Errorf("safe(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := safeLine("first \x1b]0;title\x07\nsecond"); got != `first \x1b]0;title\x07` {
		t.Errorf("safeLine = %q", got)
	}
	// Tabs become four spaces, and the line is not cut for it (cobra's
	// "Did you mean this?\n\trun" lost its suggestion).
	if got, want := safeLines("Did you mean this?\n\trun\n\t\x1b"), "Did you mean this?\n    run\n    \\x1b"; got != want {
		t.Errorf("safeLines = %q, want %q", got, want)
	}
}

// FuzzSafe: whatever comes in, nothing a terminal interprets comes out,
// and the output is valid UTF-8 of bounded length.
func FuzzSafe(f *testing.F) {
	f.Add("\x1b[2J\x1b[H")
	f.Add("\u202e\u2066x\xc3")
	f.Fuzz(func(t *testing.T, s string) {
		out := safe(s, 20)
		for _, r := range out {
			if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || r == 0x202e || r == 0xfffd && !strings.ContainsRune(s, 0xfffd) {
				t.Fatalf("safe(%q) = %q keeps %U", s, out, r)
			}
		}
		if n := len([]rune(out)); n > 20*6+1 {
			t.Fatalf("safe(%q) is %d runes", s, n)
		}
	})
}

// TestPrintStatusEscapesWireText: whatever the coordinator relays from
// workers (names, hosts, errors) reaches the terminal escaped, on one line.
func TestPrintStatusEscapesWireText(t *testing.T) {
	evil := "\x1b[2J\x1b[31mred\nsecond line\r\u202e"
	st := &coordinator.Status{
		Runs:    []coordinator.RunProgress{{ID: "r1", File: evil, Failures: []coordinator.JobFailure{{Job: "j", Sweep: evil, Worker: evil, Error: evil}}}},
		Workers: []coordinator.WorkerInfo{{Name: evil, Host: evil, InFlight: []string{evil}}},
	}
	var b strings.Builder
	printStatus(&b, st, true)
	out := b.String()
	if strings.ContainsAny(out, "\x1b\r\u202e") || strings.Contains(out, "\nsecond line") {
		t.Fatalf("raw control text in status output:\n%q", out)
	}
	if !strings.Contains(out, `\x1b[31mred\x0asecond line`) {
		t.Errorf("escaped text missing:\n%s", out)
	}
}

// TestPrintStatusCurrentJob: a worker's current job is printed as its
// heartbeat describes it (sweep, index, parameters), escaped; without a
// description, its jobs' IDs; with none, idle.
func TestPrintStatusCurrentJob(t *testing.T) {
	st := &coordinator.Status{Workers: []coordinator.WorkerInfo{
		{Name: "w1", InFlight: []string{"j1"}, Current: &broker.CurrentJob{Run: "r", Sweep: "lin2007-fig3", Index: 4, Params: "load=0.5 \x1b[2Jm=16"}},
		{Name: "w2", InFlight: []string{"j2", "j3"}},
		{Name: "w3"},
	}}
	var b strings.Builder
	printStatus(&b, st, false)
	out := b.String()
	for _, want := range []string{"CURRENT JOB", `lin2007-fig3 #4: load=0.5 \x1b[2Jm=16`, "j2,j3", "idle"} {
		if !strings.Contains(out, want) {
			t.Errorf("status output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b") {
		t.Errorf("raw escape in status output:\n%q", out)
	}
}
