package main

import (
	"fmt"
	"io"
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

// safeLines is s with every line made safe (safe, uncut) and the line
// breaks kept: for multi-line text from a file or the wire, such as the
// list of a sweep file's errors (a key may hold an escape sequence).
func safeLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		l = strings.ReplaceAll(l, "\t", "    ") // before the bound: each tab is four runes now
		lines[i] = strings.ReplaceAll(safe(l, len(l)+1), `\x0d`, "")
	}
	return strings.Join(lines, "\n")
}

// termWriter writes text with safeLines: what `expand` prints of a file's
// parameter values reaches the terminal escaped, tabs kept as columns.
type termWriter struct{ w io.Writer }

func (t termWriter) Write(p []byte) (int, error) {
	var b strings.Builder
	start := 0
	for i, c := range p {
		if c == '\t' {
			b.WriteString(safeLines(string(p[start:i])))
			b.WriteByte('\t')
			start = i + 1
		}
	}
	b.WriteString(safeLines(string(p[start:])))
	if _, err := io.WriteString(t.w, b.String()); err != nil {
		return 0, err
	}
	return len(p), nil
}
