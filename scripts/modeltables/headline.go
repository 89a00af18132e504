package main

import (
	"encoding/csv"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// A headline table puts a model's main results, as its page summarises
// them, beside the paper's: each row a declared result (headlines.go), the
// paper's value typed as the paper states it (a quote), ours read from the
// run's summary.csv of the sweep it comes from, the verdict from the
// run's scoreboard. Nothing measured is typed.

// headlineBlock names the block of the headline tables in the pages.
const headlineBlock = "scripts/model_tables.sh PAPER_SCALE_DIR (headline results)"

// notInRun marks a cell whose sweep the run did not make (a run older
// than the sweep): the row stays, saying so, instead of failing the
// regeneration of every page.
const notInRun = "*not in this run*"

// headlineRow is one declared row of a headline table.
type headlineRow struct {
	// Result says what the row shows; Paper is the paper's value, quoted.
	Result, Paper string
	// Ours are the measured values, read from the run.
	Ours []value
	// Claims are the claims that decide the row; their statuses make the
	// verdict cell.
	Claims []claimRef
	// Note is typed text ending the verdict cell (no measurement in it).
	Note string
}

// claimRef names a claim of a sweep; Label, if set, precedes its status.
type claimRef struct {
	Label, Sweep, ID string
}

// query selects cells of one column of a sweep's summary.csv.
type query struct {
	// Sweep is the sweep's name (its folder under results/), Col a column
	// of its summary.csv (e.g. makespan_h_mean).
	Sweep, Col string
	// Where is "param=value, …": the rows whose columns equal those
	// values (compared as written in the CSV).
	Where string
	// Op folds the matching rows: "" wants exactly one row, "max" and
	// "min" take the extreme, "count" counts the rows, "count>X" the
	// rows whose value exceeds X.
	Op string
}

// value is one measured value of a row.
type value struct {
	// Label precedes the value (a dispatcher, a reward).
	Label string
	// A is the value; with Kind "gain", A/B − 1 in percent; with Kind
	// "range", "A–B".
	A, B query
	// Kind is "" (A alone), "gain", "range" or "of" ("A of B").
	Kind string
	// More are further values of the same kind as A, shown "A / M1 / M2"
	// (Kind "" only).
	More []query
	// Unit, if set, follows the value.
	Unit string
	// Fmt formats a number (not a gain): "h" hours, "pct" a fraction in
	// percent, "int" a count, "" three significant digits.
	Fmt string
}

// runData is what the headline tables read from a paper-scale run.
type runData struct {
	results, run string
	status       map[string]scoreClaim // sweep/id → its scoreboard entry
	claims       map[string]claim      // sweep/id → its claims.json entry
	summaries    map[string][]map[string]string
	sweeps       map[string][]string // paper key → its sweeps
}

// scoreClaim is a claim's scoreboard entry.
type scoreClaim struct {
	Verdict, Status, By string
}

// errNotInRun: the sweep was not made by the run.
var errNotInRun = errors.New("not in this run")

// headlineBlocks returns each model's headline block (for the models that
// declare one) from the scripts/paper-scale.sh folder dir.
func headlineBlocks(dir string) (map[string]string, error) {
	rd, err := newRunData(dir)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, p := range papers {
		rows, ok := headlines[p.Model]
		if !ok {
			continue
		}
		text, err := rd.headlineTable(rows)
		if err != nil {
			return nil, fmt.Errorf("headline table of %s: %w", p.Model, err)
		}
		commit := "?"
		if sw := rd.sweeps[p.Key]; len(sw) > 0 {
			if commit, err = runCommit(filepath.Join(rd.results, sw[0], rd.run, "report.md")); err != nil {
				return nil, err
			}
		}
		out[p.Model] = fmt.Sprintf("\nRun `%s` at commit `%s` (`scripts/paper-scale.sh`): the paper's values as the paper states them, ours read from the sweeps' `summary.csv`, the verdicts from the run's scoreboard; a cell reads *not in this run* when the run did not make the sweep.\n\n%s\n", rd.run, commit, text)
	}
	return out, nil
}

// newRunData opens the run of the scripts/paper-scale.sh folder dir.
func newRunData(dir string) (*runData, error) {
	results, run, sb, err := loadScoreboard(dir)
	if err != nil {
		return nil, err
	}
	rd := &runData{results: results, run: run, status: map[string]scoreClaim{}, claims: map[string]claim{}, summaries: map[string][]map[string]string{}, sweeps: map[string][]string{}}
	for _, p := range sb.Papers {
		rd.sweeps[todayName(p.Paper)] = p.Sweeps
		for _, c := range p.Claims {
			rd.status[todayName(c.Sweep)+"/"+c.ID] = scoreClaim{c.Verdict, c.Status, todayName(c.By)}
		}
	}
	return rd, nil
}

// headlineTable renders rows.
func (rd *runData) headlineTable(rows []headlineRow) (string, error) {
	var b strings.Builder
	b.WriteString("| result | paper | ours | verdict |\n|---|---|---|---|\n")
	for _, r := range rows {
		var ours []string
		for _, v := range r.Ours {
			s, err := markNotInRun(rd.value(v))
			if err != nil {
				return "", fmt.Errorf("row %q: %w", r.Result, err)
			}
			if v.Label != "" {
				s = cell(v.Label) + " " + s
			}
			if v.Unit != "" {
				s += " " + cell(v.Unit)
			}
			ours = append(ours, s)
		}
		var verdicts []string
		for _, c := range r.Claims {
			s, err := markNotInRun(rd.verdict(c))
			if err != nil {
				return "", fmt.Errorf("row %q: %w", r.Result, err)
			}
			if c.Label != "" {
				s = cell(c.Label) + ": " + s
			}
			verdicts = append(verdicts, s)
		}
		if r.Note != "" {
			verdicts = append(verdicts, cell(r.Note))
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", cell(r.Result), cell(r.Paper), strings.Join(ours, "; "), strings.Join(verdicts, "; "))
	}
	return b.String(), nil
}

// markNotInRun turns errNotInRun into the cell that says so.
func markNotInRun(s string, err error) (string, error) {
	if errors.Is(err, errNotInRun) {
		return notInRun, nil
	}
	return s, err
}

// pointCount finds "k/n points" (or series) in a claim's numbers.
var pointCount = regexp.MustCompile(`\b(\d+)/(\d+) (points|series)\b`)

// verdict is a claim's status, with how many of its points pass when it
// has more than one.
func (rd *runData) verdict(c claimRef) (string, error) {
	if err := rd.sweepIn(c.Sweep); err != nil {
		return "", err
	}
	key := c.Sweep + "/" + c.ID
	st, ok := rd.status[key]
	if !ok {
		return "", fmt.Errorf("claim %s: not in the run's scoreboard", key)
	}
	s := statusText(st.Status, st.Verdict, st.By)
	if err := rd.loadClaims(c.Sweep); err != nil {
		return "", err
	}
	cl, ok := rd.claims[key]
	if !ok {
		return "", fmt.Errorf("claim %s: not in its claims.json", key)
	}
	if m := pointCount.FindStringSubmatch(cl.Numbers); m != nil && m[2] != "1" {
		s += fmt.Sprintf(" (%s/%s %s)", m[1], m[2], m[3])
	}
	return s, nil
}

// sweepIn says whether the run made the sweep: errNotInRun if it did not.
func (rd *runData) sweepIn(sweep string) error {
	if _, err := os.Stat(filepath.Join(rd.results, sweep, rd.run)); err != nil {
		if os.IsNotExist(err) {
			return fmt.Errorf("sweep %s: %w", sweep, errNotInRun)
		}
		return fmt.Errorf("sweep %s: %w", sweep, err)
	}
	return nil
}

func (rd *runData) loadClaims(sweep string) error {
	if _, ok := rd.claims[sweep+"/"]; ok {
		return nil
	}
	var claims []claim
	if err := readJSON(filepath.Join(rd.results, sweep, rd.run, "claims.json"), &claims); err != nil {
		return err
	}
	for _, c := range claims {
		rd.claims[sweep+"/"+c.ID] = c
	}
	rd.claims[sweep+"/"] = claim{} // loaded
	return nil
}

// value renders v.
func (rd *runData) value(v value) (string, error) {
	a, err := rd.fold(v.A)
	if err != nil {
		return "", err
	}
	switch v.Kind {
	case "":
		parts := []string{format(a, v.Fmt)}
		for _, q := range v.More {
			m, err := rd.fold(q)
			if err != nil {
				return "", err
			}
			parts = append(parts, format(m, v.Fmt))
		}
		return strings.Join(parts, " / "), nil
	case "gain", "range", "of":
		b, err := rd.fold(v.B)
		if err != nil {
			return "", err
		}
		switch v.Kind {
		case "range":
			return format(a, v.Fmt) + "–" + format(b, v.Fmt), nil
		case "of":
			return format(a, v.Fmt) + " of " + format(b, v.Fmt), nil
		}
		if b == 0 {
			return "", fmt.Errorf("gain over %s: zero", v.B.describe())
		}
		return fmt.Sprintf("%+.1f%%", 100*(a/b-1)), nil
	}
	return "", fmt.Errorf("value kind %q: want \"\", gain, range or of", v.Kind)
}

// format writes x as fmt says.
func format(x float64, f string) string {
	switch f {
	case "h":
		return sig3(x) + " h"
	case "pct":
		return sig3(100*x) + "%"
	case "int":
		return strconv.FormatFloat(math.Round(x), 'f', 0, 64)
	}
	return sig3(x)
}

// sig3 writes x with three significant digits, never in e-notation.
func sig3(x float64) string {
	if x == 0 {
		return "0"
	}
	digits := 2 - int(math.Floor(math.Log10(math.Abs(x))))
	if digits < 0 {
		digits = 0
	}
	return strconv.FormatFloat(x, 'f', digits, 64)
}

func (q query) describe() string {
	s := q.Sweep + " " + q.Col
	if q.Where != "" {
		s += " where " + q.Where
	}
	if q.Op != "" {
		s += " (" + q.Op + ")"
	}
	return s
}

// fold computes q over the run's summary.csv of its sweep.
func (rd *runData) fold(q query) (float64, error) {
	if err := rd.sweepIn(q.Sweep); err != nil {
		return 0, err
	}
	rows, err := rd.summary(q.Sweep)
	if err != nil {
		return 0, err
	}
	var conds [][2]string
	for _, c := range strings.Split(q.Where, ",") {
		c = strings.TrimSpace(c)
		if c == "" {
			continue
		}
		k, v, ok := strings.Cut(c, "=")
		if !ok {
			return 0, fmt.Errorf("%s: condition %q is not param=value", q.describe(), c)
		}
		conds = append(conds, [2]string{strings.TrimSpace(k), strings.TrimSpace(v)})
	}
	if len(rows) == 0 {
		return 0, fmt.Errorf("%s: summary.csv has no rows", q.describe())
	}
	for _, c := range conds {
		if _, ok := rows[0][c[0]]; !ok {
			return 0, fmt.Errorf("%s: summary.csv has no column %q", q.describe(), c[0])
		}
	}
	if _, ok := rows[0][q.Col]; !ok {
		return 0, fmt.Errorf("%s: summary.csv has no column %q", q.describe(), q.Col)
	}
	var xs []float64
	for _, r := range rows {
		match := true
		for _, c := range conds {
			if r[c[0]] != c[1] {
				match = false
				break
			}
		}
		if !match {
			continue
		}
		x, err := strconv.ParseFloat(r[q.Col], 64)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", q.describe(), err)
		}
		xs = append(xs, x)
	}
	if len(xs) == 0 {
		return 0, fmt.Errorf("%s: no row matches", q.describe())
	}
	switch {
	case q.Op == "":
		if len(xs) != 1 {
			return 0, fmt.Errorf("%s: %d rows match, want one", q.describe(), len(xs))
		}
		return xs[0], nil
	case q.Op == "max", q.Op == "min":
		m := xs[0]
		for _, x := range xs[1:] {
			if (q.Op == "max" && x > m) || (q.Op == "min" && x < m) {
				m = x
			}
		}
		return m, nil
	case q.Op == "count":
		return float64(len(xs)), nil
	case strings.HasPrefix(q.Op, "count>"):
		t, err := strconv.ParseFloat(strings.TrimPrefix(q.Op, "count>"), 64)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", q.describe(), err)
		}
		n := 0
		for _, x := range xs {
			if x > t {
				n++
			}
		}
		return float64(n), nil
	}
	return 0, fmt.Errorf("%s: op %q: want \"\", max, min, count or count>X", q.describe(), q.Op)
}

// summary reads (once) a sweep's summary.csv as rows of column → cell.
func (rd *runData) summary(sweep string) ([]map[string]string, error) {
	if rows, ok := rd.summaries[sweep]; ok {
		return rows, nil
	}
	path := filepath.Join(rd.results, sweep, rd.run, "summary.csv")
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("summary of %s: %w", sweep, err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	var rows []map[string]string
	for i := 1; i < len(recs); i++ {
		r := map[string]string{}
		for j, h := range recs[0] {
			if j < len(recs[i]) {
				r[h] = recs[i][j]
			}
		}
		rows = append(rows, r)
	}
	rd.summaries[sweep] = rows
	return rows, nil
}
