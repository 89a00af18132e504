package main

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Lengths at which text from the wire is cut before it is printed.
const (
	maxNameLen  = 80  // names: workers, hosts, sweeps, files, run and job IDs
	maxErrorLen = 400 // one line of a job's error
)

// safe returns s fit for a terminal: every control or format character
// (escape sequences, carriage returns, newlines, bidirectional overrides)
// and every invalid UTF-8 byte is shown escaped (\x1b, \u202e), and the
// result is cut at max runes with an ellipsis. Everything that reaches a
// terminal from the wire or a file (worker names and hosts from
// heartbeats, job errors, file names of submitted runs) goes through it:
// a forged heartbeat must not be able to move the cursor or recolour the
// screen of whoever runs `schedfarm status`.
func safe(s string, max int) string {
	var b strings.Builder
	n := 0
	for i := 0; i < len(s); {
		if n == max {
			b.WriteString("…")
			break
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r < 0x80 && (r < 0x20 || r == 0x7f):
			fmt.Fprintf(&b, `\x%02x`, r)
		case unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
		i += size
		n++
	}
	return b.String()
}

// safeLine is the first line of s (a job's error), made safe.
func safeLine(s string) string { return safe(firstLine(s), maxErrorLen) }
