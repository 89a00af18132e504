package sweep

import (
	"errors"
	"fmt"
	"strings"
)

// ErrTooManyJobs is returned (wrapped, with the count) when a sweep or a
// file expands to more jobs than the caller's limit. The check runs before
// any job is materialised.
var ErrTooManyJobs = errors.New("too many jobs")

// DefaultMaxJobs is the job limit Expand applies when the caller passes a
// limit of zero or less.
const DefaultMaxJobs = 1_000_000

// Error is one problem in a sweep file, at a position in it.
type Error struct {
	File string
	// Line and Col are 1-based; Col is 0 when only the line is known
	// (YAML syntax errors).
	Line, Col int
	// Key is the dotted path of the offending key or value inside the file
	// ("fig3.axes[1].name"), or the sweep name alone.
	Key string
	Msg string
	// Hint is what to do about it, typically `did you mean "dc_ratio"?`.
	Hint string

	err error // what the error wraps, for errors.Is (ErrTooManyJobs)
}

// Unwrap returns the sentinel the error wraps, if any.
func (e *Error) Unwrap() error { return e.err }

// Error renders FILE:LINE:COL: KEY: MSG; HINT on one line.
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
		if e.Col > 0 {
			fmt.Fprintf(&b, ":%d", e.Col)
		}
	}
	b.WriteString(": ")
	if e.Key != "" {
		b.WriteString(e.Key)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	if e.Hint != "" {
		b.WriteString("; ")
		b.WriteString(e.Hint)
	}
	return b.String()
}

// ErrorList is every problem found in one sweep file, in file order. Parse
// returns it as its error so that a validator can print all of them.
type ErrorList []*Error

// Error renders one error per line.
func (l ErrorList) Error() string {
	lines := make([]string, len(l))
	for i, e := range l {
		lines[i] = e.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap lets errors.As find the individual *Error values.
func (l ErrorList) Unwrap() []error {
	out := make([]error, len(l))
	for i, e := range l {
		out[i] = e
	}
	return out
}

// DidYouMean returns `did you mean "x"?` naming the valid name closest to
// got, or "" when none is close enough to be a plausible typo. Other
// packages validating parts of a sweep file (figures, claims) use it to
// give the same hints.
func DidYouMean(got string, valid []string) string { return didYouMean(got, valid) }

// didYouMean returns a hint naming the valid name closest to got, or "" when
// none is close enough to be a plausible typo.
func didYouMean(got string, valid []string) string {
	if s := closest(got, valid); s != "" {
		return fmt.Sprintf("did you mean %q?", s)
	}
	return ""
}

// closest returns the candidate nearest to got by optimal-string-alignment
// distance (case-insensitive, transpositions count once), provided the
// distance is small relative to the name's length.
func closest(got string, valid []string) string {
	best, bestD := "", -1
	lg := strings.ToLower(got)
	for _, v := range valid {
		if v == got {
			continue
		}
		d := osaDistance(lg, strings.ToLower(v))
		if bestD < 0 || d < bestD {
			best, bestD = v, d
		}
	}
	if bestD < 0 {
		return ""
	}
	n := len([]rune(got))
	if m := len([]rune(best)); m > n {
		n = m
	}
	// Two edits are a typo in any name longer than two characters; beyond
	// that only a third of the name may differ, or every short name would
	// "suggest" every other.
	if (bestD <= 2 && bestD < n-1) || bestD*3 <= n {
		return best
	}
	return ""
}

// osaDistance is the Levenshtein distance extended with adjacent
// transpositions (optimal string alignment).
func osaDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	if len(ra) > 64 || len(rb) > 64 {
		// Long strings are not names; skip the quadratic table.
		if a == b {
			return 0
		}
		return len(ra) + len(rb)
	}
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
