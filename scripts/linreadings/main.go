// Command linreadings summarises the runs of scripts/lin_readings.sh (Lin et
// al. 2007, model divisible, under several readings) as the markdown tables
// of docs/models/divisible.md:
//
//	go run ./scripts/linreadings OUT_DIR
//
// OUT_DIR/<reading>/<sweep>/<run>/ holds each run's claims.json and
// summary.csv (one run per folder). The tables: every claim's verdict under
// the two node_release readings, the gap between DLT and the algorithm it is
// compared with per figure, and Section 5.2's DLT-vs-User-Split statistics
// under every reading.
package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// claim is the part of a claims.json entry used here.
type claim struct {
	ID           string `json:"id"`
	Verdict      string `json:"verdict"`
	Passed       int    `json:"passed"`
	Failed       int    `json:"failed"`
	Inconclusive int    `json:"inconclusive"`
}

// run is one collected sweep: its claims and its summary rows.
type run struct {
	claims []claim
	header []string
	rows   [][]string
}

// readingOrder lists the readings in the order of the tables; unknown
// folders follow in name order.
var readingOrder = []string{"default", "rtgrid", "release-actual", "deadline-per-task", "sigma-uniform",
	"split-code", "plan-per-task", "integer-time", "authors-code", "authors-generator"}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: linreadings OUT_DIR")
		os.Exit(2)
	}
	runs, err := load(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "linreadings:", err)
		os.Exit(1)
	}
	if err := write(os.Stdout, runs); err != nil {
		fmt.Fprintln(os.Stderr, "linreadings:", err)
		os.Exit(1)
	}
}

// load reads OUT_DIR/<reading>/<sweep>/<run>/{claims.json,summary.csv}.
func load(dir string) (map[string]map[string]*run, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*", "*", "*", "claims.json"))
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", dir, err)
	}
	out := map[string]map[string]*run{}
	for _, f := range files {
		runDir := filepath.Dir(f)
		sweep := filepath.Base(filepath.Dir(runDir))
		reading := filepath.Base(filepath.Dir(filepath.Dir(runDir)))
		r := &run{}
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, fmt.Errorf("reading claims: %w", err)
		}
		if err := json.Unmarshal(b, &r.claims); err != nil {
			return nil, fmt.Errorf("parsing %s: %w", f, err)
		}
		sf, err := os.Open(filepath.Join(runDir, "summary.csv"))
		if err != nil {
			return nil, fmt.Errorf("opening summary: %w", err)
		}
		recs, err := csv.NewReader(sf).ReadAll()
		sf.Close()
		if err != nil || len(recs) == 0 {
			return nil, fmt.Errorf("reading summary of %s: %v", runDir, err)
		}
		r.header, r.rows = recs[0], recs[1:]
		if out[reading] == nil {
			out[reading] = map[string]*run{}
		}
		if out[reading][sweep] != nil {
			return nil, fmt.Errorf("two runs of %s under %s: use a fresh OUT_DIR", sweep, reading)
		}
		out[reading][sweep] = r
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no claims.json under %s/<reading>/<sweep>/<run>/", dir)
	}
	return out, nil
}

// diffs are the paired point differences other − DLT of the mean reject
// ratios of one comparison, positive where DLT is better.
type diffs struct {
	other string // the partitioning compared with DLT: OPR-MN, USERSPLIT, OPR-AN
	d     []float64
	label []string // the point of each difference: policy and the workload/cluster values
}

// labelCols are the parameters that name a point in the tables.
var labelCols = []string{"dc_ratio", "avg_sigma", "cms", "cps", "n_nodes", "load"}

// pairs returns, per partitioning compared with DLT, the differences
// other − DLT over every point (a point: all parameters but the algorithm,
// and the policy).
func (r *run) pairs() ([]diffs, error) {
	col := map[string]int{}
	for i, h := range r.header {
		col[h] = i
	}
	ia, ok1 := col["algorithm"]
	in, ok2 := col["n"]
	im, ok3 := col["reject_ratio_mean"]
	if !ok1 || !ok2 || !ok3 {
		return nil, fmt.Errorf("summary lacks algorithm, n or reject_ratio_mean")
	}
	type key struct{ point, part string }
	val := map[key]float64{}
	label := map[string]string{}
	var points []string
	seen := map[string]bool{}
	parts := map[string]bool{}
	for _, row := range r.rows {
		pol, part, ok := strings.Cut(row[ia], "-")
		if !ok {
			return nil, fmt.Errorf("algorithm %q: no policy", row[ia])
		}
		var p []string
		for i := 0; i < in; i++ {
			if i != ia {
				p = append(p, row[i])
			}
		}
		point := pol + "|" + strings.Join(p, "|")
		v, err := strconv.ParseFloat(row[im], 64)
		if err != nil {
			return nil, fmt.Errorf("reject_ratio_mean %q: %w", row[im], err)
		}
		val[key{point, part}] = v
		if !seen[point] {
			l := []string{pol}
			for _, c := range labelCols {
				if i, ok := col[c]; ok {
					l = append(l, c+"="+row[i])
				}
			}
			label[point] = strings.Join(l, " ")
			seen[point] = true
			points = append(points, point)
		}
		parts[part] = true
	}
	var out []diffs
	for _, other := range []string{"OPR-MN", "USERSPLIT", "OPR-AN"} {
		if !parts[other] || !parts["DLT"] {
			continue
		}
		d := diffs{other: other}
		for _, p := range points {
			a, okA := val[key{p, "DLT"}]
			b, okB := val[key{p, other}]
			if okA && okB {
				d.d = append(d.d, b-a)
				d.label = append(d.label, label[p])
			}
		}
		out = append(out, d)
	}
	return out, nil
}

// stats returns count, mean, max and min of the values v with sign(v) = s.
func stats(v []float64, s float64) (n int, mean, hi, lo float64) {
	hi, lo = math.Inf(-1), math.Inf(1)
	for _, x := range v {
		if x*s > 0 {
			n++
			mean += x * s
			hi = math.Max(hi, x*s)
			lo = math.Min(lo, x*s)
		}
	}
	if n == 0 {
		return 0, 0, 0, 0
	}
	return n, mean / float64(n), hi, lo
}

// cell makes a string from a file fit for a markdown table cell: control
// and format characters escaped, '|' escaped.
func cell(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '|':
			b.WriteString(`\|`)
		case unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp) || r == unicode.ReplacementChar:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// sweepOrder sorts sweep names by their figure number (sec52 last).
func sweepOrder(names []string) {
	num := func(s string) int {
		s = strings.TrimPrefix(s, "lin2007-fig")
		n, err := strconv.Atoi(s)
		if err != nil {
			return 1000
		}
		return n
	}
	sort.Slice(names, func(i, j int) bool {
		if num(names[i]) != num(names[j]) {
			return num(names[i]) < num(names[j])
		}
		return names[i] < names[j]
	})
}

func verdict(c claim) string {
	return fmt.Sprintf("%s %d/%d/%d", strings.ToUpper(cell(c.Verdict)), c.Passed, c.Failed, c.Inconclusive)
}

func write(w io.Writer, runs map[string]map[string]*run) error {
	var readings []string
	known := map[string]bool{}
	for _, r := range readingOrder {
		known[r] = true
		if runs[r] != nil {
			readings = append(readings, r)
		}
	}
	var extra []string
	for r := range runs {
		if !known[r] {
			extra = append(extra, r)
		}
	}
	sort.Strings(extra)
	readings = append(readings, extra...)

	def, rt := runs["default"], runs["rtgrid"]
	if def != nil && rt != nil {
		var sweeps []string
		for s := range def {
			sweeps = append(sweeps, s)
		}
		sweepOrder(sweeps)
		section(w, "Every figure under both node_release readings",
			"Verdict and points passed/failed/undecided of every claim. A figure is reproduced\n"+
				"under a reading when all its claims pass.",
			"figure", "claims", "`estimate` (default)", "`rtgrid`", "reproduced by")
		for _, s := range sweeps {
			a, b := def[s], rt[s]
			if b == nil {
				continue
			}
			allA, allB := true, true
			for i, c := range a.claims {
				var cb claim
				if i < len(b.claims) && b.claims[i].ID == c.ID {
					cb = b.claims[i]
				}
				allA = allA && c.Verdict == "pass"
				allB = allB && cb.Verdict == "pass"
				fmt.Fprintf(w, "| %s | %s | %s | %s | |\n", cell(s), cell(c.ID), verdict(c), verdict(cb))
			}
			var by []string
			if allA {
				by = append(by, "`estimate`")
			}
			if allB {
				by = append(by, "`rtgrid`")
			}
			if len(by) == 0 {
				by = append(by, "neither")
			}
			fmt.Fprintf(w, "| %s | **all %d** | | | %s |\n", cell(s), len(a.claims), strings.Join(by, ", "))
		}
		fmt.Fprintln(w)
		section(w, "Gap between DLT and the algorithm it is set against, per figure",
			"Difference of the mean Task Reject Ratios, other − DLT, over every point (load ×\n"+
				"the figure's axis × policy): mean / max / min, and the points where DLT is better.",
			"figure", "vs", "`estimate`: mean / max / min", "DLT better", "`rtgrid`: mean / max / min", "DLT better")
		for _, s := range sweeps {
			if rt[s] == nil {
				continue
			}
			pa, err := def[s].pairs()
			if err != nil {
				return fmt.Errorf("%s default: %w", s, err)
			}
			pb, err := rt[s].pairs()
			if err != nil {
				return fmt.Errorf("%s rtgrid: %w", s, err)
			}
			for i, d := range pa {
				if i >= len(pb) || pb[i].other != d.other {
					continue
				}
				fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s |\n", cell(s), d.other,
					mmm(d.d), better(d.d), mmm(pb[i].d), better(pb[i].d))
			}
		}
		fmt.Fprintln(w)
	}

	section(w, "Section 5.2 (DLT vs User-Split) under every reading",
		"Over `sec52.yaml`'s 340 comparisons (17 configurations × 10 loads × EDF and FIFO), a\n"+
			"point counted by the sign of its mean difference; gains are |difference| where that side\n"+
			"is better. \"significant\" is the claim `usersplit-sometimes-better` (EDF, and FIFO),\n"+
			"points whose paired 95% CI lies below zero. Fig. 5b: `usersplit-sometimes-better-at-dcratio-10`.",
		"reading", "DLT better", "User-Split better", "DLT gains mean / max / min",
		"User-Split gains mean / max / min", "User-Split significantly better (EDF; FIFO)", "Fig. 5b")
	var wins []string
	for _, rd := range readings {
		r := runs[rd]["lin2007-sec52"]
		if r == nil {
			continue
		}
		ps, err := r.pairs()
		if err != nil {
			return fmt.Errorf("sec52 %s: %w", rd, err)
		}
		var d []float64
		for _, p := range ps {
			if p.other == "USERSPLIT" {
				d = p.d
				for i, x := range p.d {
					if x < 0 {
						wins = append(wins, fmt.Sprintf("| %s | %s | %.4f |", cell(rd), cell(p.label[i]), -x))
					}
				}
			}
		}
		nD, mD, hD, lD := stats(d, 1)
		nU, mU, hU, lU := stats(d, -1)
		sig := map[string]string{}
		for _, c := range r.claims {
			sig[c.ID] = strconv.Itoa(c.Passed)
		}
		f5 := ""
		if r5 := runs[rd]["lin2007-fig5"]; r5 != nil {
			for _, c := range r5.claims {
				if c.ID == "usersplit-sometimes-better-at-dcratio-10" {
					f5 = verdict(c)
				}
			}
		}
		pct := func(n int) string {
			if len(d) == 0 {
				return "–"
			}
			return fmt.Sprintf("%d/%d (%.1f%%)", n, len(d), 100*float64(n)/float64(len(d)))
		}
		fmt.Fprintf(w, "| %s | %s | %s | %.4f / %.4f / %.4f | %s | %s; %s | %s |\n", cell(rd), pct(nD), pct(nU),
			mD, hD, lD, gains(nU, mU, hU, lU), sig["usersplit-sometimes-better"], sig["fifo-usersplit-sometimes-better"], f5)
	}
	fmt.Fprintln(w, "| paper | 91.78% | 8.22% | 0.121 / 0.224 / 0.003 | 0.016 / 0.028 / 0.003 | | \"sometimes\" |")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "The points of `sec52` where User-Split's mean Task Reject Ratio is the lower:")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| reading | point | User-Split gain |")
	fmt.Fprintln(w, "|---|---|---|")
	for _, l := range wins {
		fmt.Fprintln(w, l)
	}
	if len(wins) == 0 {
		fmt.Fprintln(w, "| (none) | | |")
	}
	return nil
}

// section writes a heading, a paragraph and a table's header row.
func section(w io.Writer, title, text string, cols ...string) {
	fmt.Fprintf(w, "### %s\n\n%s\n\n| %s |\n|%s\n", title, text, strings.Join(cols, " | "), strings.Repeat("---|", len(cols)))
}

func gains(n int, mean, hi, lo float64) string {
	if n == 0 {
		return "–"
	}
	return fmt.Sprintf("%.4f / %.4f / %.4f", mean, hi, lo)
}

func mmm(d []float64) string {
	if len(d) == 0 {
		return "–"
	}
	s, hi, lo := 0.0, math.Inf(-1), math.Inf(1)
	for _, x := range d {
		s += x
		hi, lo = math.Max(hi, x), math.Min(lo, x)
	}
	return fmt.Sprintf("%.4f / %.4f / %.4f", s/float64(len(d)), hi, lo)
}

func better(d []float64) string {
	n, _, _, _ := stats(d, 1)
	return fmt.Sprintf("%d/%d", n, len(d))
}
