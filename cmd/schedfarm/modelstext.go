package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/term"

	"schedfarm/simcore"
)

// defaultWidth is the width models' text is wrapped to when the output is
// not a terminal and $COLUMNS does not say otherwise.
const defaultWidth = 100

// minWidth is the narrowest width the text is wrapped to.
const minWidth = 40

// outputWidth returns the width to wrap text written to w to: the
// terminal's when w is one, else $COLUMNS when set, else defaultWidth.
func outputWidth(w io.Writer) int {
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols > 0 {
			return max(cols, minWidth)
		}
	}
	if c, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && c > 0 {
		return max(c, minWidth)
	}
	return defaultWidth
}

// writeModelsText prints models' schemas for people, every line within
// width columns (but for a single word longer than a line): per
// parameter and metric one aligned row of the short fields, then its
// range and description wrapped beneath it.
func writeModelsText(out io.Writer, models []simcore.Model, width int) {
	width = max(width, minWidth)
	const indent, detail = "  ", "      "
	for _, m := range models {
		s := m.Schema()
		writeWrapped(out, fmt.Sprintf("%s (version %s): %s", m.Name(), m.Version(), m.Doc()), "", indent, width)
		rows := [][]string{{"PARAMETER", "TYPE", "UNIT", "DEFAULT", "ROLE"}}
		var notes [][]string
		for _, p := range s.Params {
			role := "workload"
			if p.Algorithm {
				role = "algorithm"
			}
			def := "(required)"
			if p.Default != nil {
				def = simcore.FormatValue(p.Default)
			}
			rows = append(rows, []string{p.Name, p.Kind.String(), p.Unit, def, role})
			var n []string
			if r := rangeText(p); r != "" {
				if len(p.Enum) > 0 {
					r = "one of " + r
				} else {
					r = "range " + r
				}
				n = append(n, r)
			}
			if p.Doc != "" {
				n = append(n, p.Doc)
			}
			notes = append(notes, n)
		}
		if rowsWidth(rows, indent) > width {
			// Long defaults (file names) move beneath their rows.
			for i := 1; i < len(rows); i++ {
				notes[i-1] = append([]string{"default " + rows[i][3]}, notes[i-1]...)
				rows[i] = slices.Delete(rows[i], 3, 4)
			}
			rows[0] = slices.Delete(rows[0], 3, 4)
		}
		writeRows(out, rows, notes, indent, detail, width)
		rows = [][]string{{"METRIC", "TYPE", "UNIT"}}
		notes = notes[:0]
		for _, c := range s.Metrics {
			rows = append(rows, []string{c.Name, c.Kind.String(), c.Unit})
			notes = append(notes, []string{c.Doc})
		}
		writeRows(out, rows, notes, indent, detail, width)
		for _, t := range s.Tables {
			names := make([]string, len(t.Columns))
			for i, c := range t.Columns {
				names[i] = c.Name
			}
			writeWrapped(out, fmt.Sprintf("TABLE %s: %s (columns: %s)", t.Name, t.Doc, strings.Join(names, ", ")), indent, indent+detail, width)
		}
		fmt.Fprintln(out)
	}
}

// rowsWidth is the width of rows printed by writeRows.
func rowsWidth(rows [][]string, indent string) int {
	w := 0
	for _, c := range columnWidths(rows) {
		w += c + 2
	}
	return utf8.RuneCountInString(indent) + w - 2
}

// columnWidths is the widest cell of each column of rows, in runes.
func columnWidths(rows [][]string) []int {
	cols := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			cols[i] = max(cols[i], utf8.RuneCountInString(c))
		}
	}
	return cols
}

// writeRows prints rows (the first is the header) as aligned columns,
// each data row i followed by notes[i-1] wrapped at the detail indent.
func writeRows(out io.Writer, rows [][]string, notes [][]string, indent, detail string, width int) {
	if len(rows) < 2 {
		return
	}
	cols := columnWidths(rows)
	for k, r := range rows {
		var b strings.Builder
		b.WriteString(indent)
		for i, c := range r {
			b.WriteString(c)
			if i < len(r)-1 {
				b.WriteString(strings.Repeat(" ", cols[i]-utf8.RuneCountInString(c)+2))
			}
		}
		fmt.Fprintln(out, strings.TrimRight(b.String(), " "))
		if k > 0 {
			for _, n := range notes[k-1] {
				writeWrapped(out, n, detail, detail, width)
			}
		}
	}
}

// writeWrapped prints text word-wrapped to width: the first line after
// first, the others after rest. Words break at spaces, and a word longer
// than a line also after its '|' (an enumeration).
func writeWrapped(out io.Writer, text, first, rest string, width int) {
	for _, l := range wrap(text, width-utf8.RuneCountInString(first), width-utf8.RuneCountInString(rest)) {
		fmt.Fprintln(out, first+l)
		first = rest
	}
}

// wrap splits text into lines of at most firstWidth runes for the first
// and restWidth for the others, breaking at spaces, and inside a longer
// word after a '|'. A piece with no break opportunity stays whole.
func wrap(text string, firstWidth, restWidth int) []string {
	var lines []string
	var cur strings.Builder
	curLen, limit := 0, max(firstWidth, 1)
	for _, w := range strings.Fields(text) {
		for i, p := range splitAfterBar(w, restWidth) {
			n := utf8.RuneCountInString(p)
			sep := 1
			if i > 0 {
				sep = 0 // the rest of a word split after a '|'
			}
			if curLen > 0 && curLen+sep+n > limit {
				lines = append(lines, cur.String())
				cur.Reset()
				curLen, limit = 0, max(restWidth, 1)
			}
			if curLen > 0 && sep == 1 {
				cur.WriteByte(' ')
				curLen++
			}
			cur.WriteString(p)
			curLen += n
		}
	}
	if curLen > 0 {
		lines = append(lines, cur.String())
	}
	return lines
}

// splitAfterBar splits a word longer than width after each '|' (an
// enumeration); a shorter word, or one without '|', stays whole.
func splitAfterBar(w string, width int) []string {
	if utf8.RuneCountInString(w) <= width || !strings.Contains(w, "|") {
		return []string{w}
	}
	parts := strings.SplitAfter(w, "|")
	if parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	return parts
}
