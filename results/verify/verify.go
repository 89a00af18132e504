package verify

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"schedfarm/results"
	"schedfarm/results/decl"
	"schedfarm/simcore"
	"schedfarm/sweep"
)

// Verification modes: runs are compared job by job when both have
// jobs.parquet, point by point (summary.parquet) otherwise.
const (
	ModeJobs    = "jobs"
	ModeSummary = "summary"
)

// volatileJobColumns differ between two runs of one sweep by design.
var volatileJobColumns = []string{results.ColRunID, results.ColWorker, results.ColStartedAt, results.ColDurationMs, results.ColCPUMs, results.ColAttempts, results.ColError}

// Diff is one difference found by Dirs or Frames.
type Diff struct {
	// Key is the job ID (jobs mode) or the point (summary mode), or "*"
	// for a difference of the tables' columns.
	Key    string
	Column string
	Golden string
	Got    string
}

// Result is the outcome of comparing a run with a golden run.
type Result struct {
	Sweep string
	Mode  string
	// Rows compared (rows of the golden).
	Rows int
	// SameModelVersion: metrics must be bit-identical; otherwise the
	// declared tolerances apply.
	SameModelVersion          bool
	GoldenVersion, GotVersion string
	Missing, Extra            []string // keys only in the golden / only in the run
	Diffs                     []Diff   // the first MaxDiffs differences
	NDiffs                    int      // all differences
	Tolerances                map[string]decl.Tol
}

// MaxDiffs bounds the differences a Result keeps.
const MaxDiffs = 1000

// OK reports whether the run matches the golden.
func (v *Result) OK() bool {
	return len(v.Missing) == 0 && len(v.Extra) == 0 && v.NDiffs == 0
}

func (v *Result) add(d Diff) {
	v.NDiffs++
	if len(v.Diffs) < MaxDiffs {
		v.Diffs = append(v.Diffs, d)
	}
}

// Dirs compares the results folder got with golden. The golden may
// hold only summary.parquet (as under configs/golden/); then the summaries
// are compared point by point, otherwise the jobs job by job. Tolerances
// come from the verify: key of got's sweep, read from its recorded sweep
// file; reg must know the model.
func Dirs(got, golden string, reg *simcore.Registry) (*Result, error) {
	gs, err := results.ReadTable(filepath.Join(got, results.SummaryTable+".parquet"))
	if err != nil {
		return nil, fmt.Errorf("verify: %w", err)
	}
	tol, err := sweepTolerances(gs.Meta, reg)
	if err != nil {
		return nil, fmt.Errorf("verify %s: %w", got, err)
	}
	gj, errG := results.ReadTable(filepath.Join(golden, results.JobsTable+".parquet"))
	if errG == nil {
		rj, err := results.ReadTable(filepath.Join(got, results.JobsTable+".parquet"))
		if err != nil {
			return nil, fmt.Errorf("verify: %w", err)
		}
		return Frames(rj, gj, ModeJobs, tol), nil
	}
	if !errors.Is(errG, fs.ErrNotExist) {
		return nil, fmt.Errorf("verify: %w", errG)
	}
	golds, err := results.ReadTable(filepath.Join(golden, results.SummaryTable+".parquet"))
	if err != nil {
		return nil, fmt.Errorf("verify: golden: %w", err)
	}
	return Frames(gs, golds, ModeSummary, tol), nil
}

// sweepTolerances reads the tolerances of the sweep a file was written for.
func sweepTolerances(meta map[string]string, reg *simcore.Registry) (map[string]decl.Tol, error) {
	text, name := meta[results.MetaSweepFile], meta[results.MetaSweep]
	if text == "" || reg == nil {
		return nil, nil
	}
	f, err := sweep.Parse(name+".yaml", []byte(text), reg)
	if err != nil {
		return nil, fmt.Errorf("the recorded sweep file: %w", err)
	}
	for _, s := range f.Sweeps {
		if s.Name == name {
			d, err := decl.Parse(s)
			if err != nil {
				return nil, err
			}
			return d.Verify.Tolerances, nil
		}
	}
	return nil, nil
}

// Frames compares got with golden: jobs tables by job_id (ignoring
// run_id, worker, started_at, duration_ms, attempts and error, and the
// metrics the files' metadata lists as measured), summaries
// by point (the parameter columns, before n). Floats must be bit-identical
// (NaN equals NaN, null equals null) when the two files carry the same
// model version; otherwise a column whose metric has a tolerance may
// differ by up to abs + rel·|golden|.
func Frames(got, golden *results.Frame, mode string, tol map[string]decl.Tol) *Result {
	v := &Result{Sweep: golden.Meta[results.MetaSweep], Mode: mode, Rows: golden.Len(), Tolerances: tol,
		GoldenVersion: golden.Meta[results.MetaModelVersion], GotVersion: got.Meta[results.MetaModelVersion]}
	if v.Sweep == "" {
		v.Sweep = got.Meta[results.MetaSweep]
	}
	v.SameModelVersion = v.GoldenVersion == v.GotVersion
	var keyCols []string
	var skip []string
	switch mode {
	case ModeJobs:
		keyCols = []string{results.ColJobID}
		skip = slices.Clone(volatileJobColumns)
	default:
		if n := golden.Index(results.ColN); n >= 0 {
			keyCols = slices.Clone(golden.Names[:n])
		}
	}
	// Measured metrics (machine-dependent by declaration) and their
	// summary statistics are not compared.
	for _, meta := range []map[string]string{golden.Meta, got.Meta} {
		for _, m := range strings.Split(meta[results.MetaMeasured], ",") {
			if m == "" {
				continue
			}
			skip = append(skip, m)
			for _, st := range results.SummaryStats() {
				skip = append(skip, m+"_"+st)
			}
		}
	}
	keyOf := func(f *results.Frame) func(r int) string {
		idx := make([]int, len(keyCols))
		for i, c := range keyCols {
			idx[i] = f.Index(c)
		}
		return func(r int) string {
			if len(idx) == 1 && idx[0] >= 0 {
				return f.CellLabel(idx[0], r)
			}
			var b strings.Builder
			for i, c := range idx {
				if i > 0 {
					b.WriteString(", ")
				}
				b.WriteString(keyCols[i])
				b.WriteByte('=')
				if c >= 0 {
					b.WriteString(f.CellLabel(c, r))
				}
			}
			return b.String()
		}
	}
	gKey, rKey := keyOf(golden), keyOf(got)
	for _, c := range keyCols {
		if got.Index(c) < 0 {
			v.add(Diff{Key: "*", Column: c, Golden: "present", Got: "missing"})
			return v
		}
	}
	gotRow := make(map[string]int, got.Len())
	for r := 0; r < got.Len(); r++ {
		gotRow[rKey(r)] = r
	}
	// Columns: the golden's, minus keys and volatile ones.
	type pair struct {
		name   string
		gi, ri int
		tol    decl.Tol
		hasTol bool
	}
	var cols []pair
	for gi, name := range golden.Names {
		if slices.Contains(keyCols, name) || slices.Contains(skip, name) {
			continue
		}
		ri := got.Index(name)
		if ri < 0 {
			v.add(Diff{Key: "*", Column: name, Golden: "present", Got: "missing"})
			continue
		}
		p := pair{name: name, gi: gi, ri: ri}
		if !v.SameModelVersion {
			p.tol, p.hasTol = tolFor(tol, name, mode)
		}
		cols = append(cols, p)
	}
	for _, name := range got.Names {
		if golden.Index(name) < 0 && !slices.Contains(skip, name) {
			v.add(Diff{Key: "*", Column: name, Golden: "missing", Got: "present"})
		}
	}
	seen := make([]bool, got.Len())
	for g := 0; g < golden.Len(); g++ {
		k := gKey(g)
		r, ok := gotRow[k]
		if !ok {
			v.Missing = append(v.Missing, k)
			continue
		}
		seen[r] = true
		for _, c := range cols {
			if !cellEqual(golden, c.gi, g, got, c.ri, r, c.tol, c.hasTol) {
				v.add(Diff{Key: k, Column: c.name, Golden: cellText(golden, c.gi, g), Got: cellText(got, c.ri, r)})
			}
		}
	}
	for r := 0; r < got.Len(); r++ {
		if !seen[r] {
			v.Extra = append(v.Extra, rKey(r))
		}
	}
	return v
}

// tolFor finds the tolerance of a column: its metric's (summary columns
// m_mean, m_std, ... take metric m's).
func tolFor(tol map[string]decl.Tol, col, mode string) (decl.Tol, bool) {
	if t, ok := tol[col]; ok {
		return t, true
	}
	if mode == ModeSummary {
		for _, s := range results.SummaryStats() {
			if m, ok := strings.CutSuffix(col, "_"+s); ok {
				if t, ok := tol[m]; ok {
					return t, true
				}
			}
		}
	}
	return decl.Tol{}, false
}

func cellText(f *results.Frame, c, r int) string {
	if f.IsNull(c, r) {
		return "null"
	}
	if x, ok := f.Cols[c].([]float64); ok {
		return fmt.Sprintf("%v", x[r])
	}
	return f.CellLabel(c, r)
}

func cellEqual(a *results.Frame, ai, ar int, b *results.Frame, bi, br int, tol decl.Tol, hasTol bool) bool {
	an, bn := a.IsNull(ai, ar), b.IsNull(bi, br)
	if an || bn {
		return an == bn
	}
	af, aok := a.Cols[ai].([]float64)
	bf, bok := b.Cols[bi].([]float64)
	if aok && bok {
		x, y := af[ar], bf[br]
		if math.Float64bits(x) == math.Float64bits(y) || (math.IsNaN(x) && math.IsNaN(y)) {
			return true
		}
		return hasTol && math.Abs(x-y) <= tol.Abs+tol.Rel*math.Abs(x)
	}
	if hasTol {
		x, okx := a.CellFloat(ai, ar)
		y, oky := b.CellFloat(bi, br)
		if okx && oky {
			return math.Abs(x-y) <= tol.Abs+tol.Rel*math.Abs(x)
		}
	}
	return a.Types[ai] == b.Types[bi] && a.CellLabel(ai, ar) == b.CellLabel(bi, br)
}

// WriteText prints the verification: a one-line verdict, then the
// differences as a table (job or point, column, golden, got), at most
// limit rows (0: all kept).
func (v *Result) WriteText(w io.Writer, limit int) {
	what := "job"
	if v.Mode == ModeSummary {
		what = "point"
	}
	how := "bit-identical (same model version " + v.GotVersion + ")"
	if !v.SameModelVersion {
		how = fmt.Sprintf("model version %s vs golden %s: declared tolerances apply", v.GotVersion, v.GoldenVersion)
	}
	if v.OK() {
		fmt.Fprintf(w, "verify %s: ok, %d %ss compared by %s, %s\n", v.Sweep, v.Rows, what, v.Mode, how)
		return
	}
	fmt.Fprintf(w, "verify %s: DRIFT, %d %ss compared by %s, %s: %d missing, %d extra, %d differing values\n",
		v.Sweep, v.Rows, what, v.Mode, how, len(v.Missing), len(v.Extra), v.NDiffs)
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "%s\tCOLUMN\tGOLDEN\tGOT\n", strings.ToUpper(what))
	n := 0
	emit := func(k, c, g, r string) bool {
		if limit > 0 && n >= limit {
			return false
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", k, c, g, r)
		n++
		return true
	}
	for _, k := range v.Missing {
		if !emit(k, "(row)", "present", "missing") {
			break
		}
	}
	for _, k := range v.Extra {
		if !emit(k, "(row)", "missing", "present") {
			break
		}
	}
	for _, d := range v.Diffs {
		if !emit(d.Key, d.Column, d.Golden, d.Got) {
			break
		}
	}
	tw.Flush()
	if total := len(v.Missing) + len(v.Extra) + v.NDiffs; total > n {
		fmt.Fprintf(w, "... %d more\n", total-n)
	}
}
