// Command krallreadings summarises the runs of scripts/krall_readings.sh
// (Krallmann et al. 1999, model batch, issue #28 §1–2) as the markdown
// tables of docs/models/batch.md:
//
//	go run ./scripts/krallreadings OUT_DIR
//
// OUT_DIR/<sweep>/<run>/summary.csv holds each sweep's summary (the newest
// run folder is read). The sweeps: krallmann-table4-arrivals (Table 4 under
// readings of §6.2's generator) and krallmann-table6-smart-recompute
// (weighted SMART with backfilling, exact against requested run times). The
// published values come from configs/published/krallmann1999_art.csv (run
// from the repository's root).
package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// summary is one sweep's summary.csv: header and rows.
type summary struct {
	col  map[string]int
	rows [][]string
}

func (s *summary) get(row []string, name string) string {
	if i, ok := s.col[name]; ok && i < len(row) {
		return row[i]
	}
	return ""
}

func (s *summary) num(row []string, name string) float64 {
	v, err := strconv.ParseFloat(s.get(row, name), 64)
	if err != nil {
		return math.NaN()
	}
	return v
}

// find returns the first row whose columns equal where's values.
func (s *summary) find(where map[string]string) []string {
	for _, r := range s.rows {
		ok := true
		for k, v := range where {
			if s.get(r, k) != v {
				ok = false
				break
			}
		}
		if ok {
			return r
		}
	}
	return nil
}

func readCSV(path string, comment rune) ([][]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comment = comment
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return recs, nil
}

// load reads the newest OUT_DIR/sweep/<run>/summary.csv.
func load(dir, sweep string) (*summary, error) {
	files, err := filepath.Glob(filepath.Join(dir, sweep, "*", "summary.csv"))
	if err != nil {
		return nil, fmt.Errorf("listing %s: %w", dir, err)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no %s/*/summary.csv under %s", sweep, dir)
	}
	sort.Slice(files, func(a, b int) bool {
		x, _ := os.Stat(files[a])
		y, _ := os.Stat(files[b])
		return x.ModTime().Before(y.ModTime())
	})
	recs, err := readCSV(files[len(files)-1], 0)
	if err != nil {
		return nil, err
	}
	if len(recs) < 2 {
		return nil, fmt.Errorf("%s: no rows", files[len(files)-1])
	}
	s := &summary{col: map[string]int{}, rows: recs[1:]}
	for i, h := range recs[0] {
		s.col[h] = i
	}
	return s, nil
}

// published maps "table/weighting/order/executor" to the paper's value.
func published(path string) (map[string]float64, error) {
	recs, err := readCSV(path, '#')
	if err != nil {
		return nil, err
	}
	out := map[string]float64{}
	for _, r := range recs {
		if len(r) < 6 || r[0] == "table" {
			continue
		}
		v, err := strconv.ParseFloat(r[4], 64)
		if err != nil {
			return nil, fmt.Errorf("%s: value %q: %w", path, r[4], err)
		}
		out[strings.Join(r[:4], "/")] = v
	}
	return out, nil
}

var (
	orders    = []string{"FCFS", "PSRS", "SMART-FFIA", "SMART-NFIW", "GareyGraham"}
	executors = []string{"list", "conservative", "easy"}
	weights   = []string{"unweighted", "weighted"}
)

// reading is one point of the zip axis of krallmann-table4-arrivals.
type reading struct{ fit, values, arrivals string }

func (r reading) String() string { return r.fit + ", " + r.values + ", " + r.arrivals }

func (r reading) where(w, order, backfill string) map[string]string {
	return map[string]string{"weibull_fit": r.fit, "bin_values": r.values, "arrivals": r.arrivals,
		"weighted": w, "order": order, "backfill": backfill}
}

func sci(v float64) string {
	if math.IsNaN(v) {
		return "n/a"
	}
	return strconv.FormatFloat(v, 'e', 2, 64)
}

func pct(v float64) string {
	if math.IsNaN(v) {
		return "n/a"
	}
	return fmt.Sprintf("%+.0f %%", v)
}

func table4(w io.Writer, s *summary, pub map[string]float64) error {
	var rs []reading
	seen := map[reading]bool{}
	for _, row := range s.rows {
		r := reading{s.get(row, "weibull_fit"), s.get(row, "bin_values"), s.get(row, "arrivals")}
		if !seen[r] {
			seen[r] = true
			rs = append(rs, r)
		}
	}
	// change[r][cell] = our change vs FCFS+EASY of the same weighting (%)
	type cellKey struct{ w, order, exec string }
	var cells []cellKey
	for _, wt := range weights {
		for _, o := range orders {
			for _, e := range executors {
				if o == "GareyGraham" && e != "list" {
					continue
				}
				cells = append(cells, cellKey{wt, o, e})
			}
		}
	}
	metric := map[string]string{"unweighted": "art", "weighted": "awrt"}
	flag := map[string]string{"unweighted": "false", "weighted": "true"}
	backfill := map[string]string{"list": "none", "conservative": "conservative", "easy": "easy"}
	value := func(r reading, c cellKey) (mean, ci float64) {
		row := s.find(r.where(flag[c.w], c.order, backfill[c.exec]))
		if row == nil {
			return math.NaN(), math.NaN()
		}
		return s.num(row, metric[c.w]+"_mean"), s.num(row, metric[c.w]+"_ci95")
	}
	change := func(r reading, c cellKey) float64 {
		v, _ := value(r, c)
		ref, _ := value(r, cellKey{c.w, "FCFS", "easy"})
		return 100 * (v/ref - 1)
	}
	paper := func(c cellKey) float64 { return pub["4/"+c.w+"/"+c.order+"/"+c.exec] }
	paperChange := func(c cellKey) float64 {
		return 100 * (paper(c)/paper(cellKey{c.w, "FCFS", "easy"}) - 1)
	}
	fmt.Fprintf(w, "Readings of §6.2 (`weibull_fit`, `bin_values`, `arrivals`), the offered load on 256 nodes and what each reproduces of Table 4. A change against FCFS+EASY counts when it lies within 10 points of the paper's (24 cells, FCFS+EASY excluded); a value when it lies within 10 %% or 30 %% of the paper's (26 cells). Means of the sweep's instances.\n\n")
	fmt.Fprintf(w, "| reading | offered load | FCFS+EASY ART (paper 1.03e+06) | FCFS+EASY AWRT (paper 2.96e+11) | changes within 10 points | values within 10 %% | within 30 %% |\n|---|---|---|---|---|---|---|\n")
	for _, r := range rs {
		within, v10, v30 := 0, 0, 0
		for _, c := range cells {
			v, _ := value(r, c)
			if rel := math.Abs(v/paper(c) - 1); rel <= 0.10 {
				v10++
				v30++
			} else if rel <= 0.30 {
				v30++
			}
			if c.order == "FCFS" && c.exec == "easy" {
				continue
			}
			if math.Abs(change(r, c)-paperChange(c)) <= 10 {
				within++
			}
		}
		load := s.num(s.find(r.where("false", "FCFS", "easy")), "offered_load_mean")
		u, uci := value(r, cellKey{"unweighted", "FCFS", "easy"})
		wv, wci := value(r, cellKey{"weighted", "FCFS", "easy"})
		fmt.Fprintf(w, "| %s | %.2f | %s ± %s | %s ± %s | %d / 24 | %d / 26 | %d / 26 |\n", r, load, sci(u), sci(uci), sci(wv), sci(wci), within, v10, v30)
	}
	fmt.Fprintf(w, "\nChange of every cell against FCFS+EASY of the same weighting, the paper's and ours under each reading (bold: within 10 points of the paper's).\n\n| case | order | executor | paper |")
	for _, r := range rs {
		fmt.Fprintf(w, " %s |", r)
	}
	fmt.Fprintf(w, "\n|---|---|---|---|%s\n", strings.Repeat("---|", len(rs)))
	for _, c := range cells {
		if c.order == "FCFS" && c.exec == "easy" {
			continue
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s |", c.w, c.order, c.exec, pct(paperChange(c)))
		for _, r := range rs {
			ch := change(r, c)
			if math.Abs(ch-paperChange(c)) <= 10 {
				fmt.Fprintf(w, " **%s** |", pct(ch))
			} else {
				fmt.Fprintf(w, " %s |", pct(ch))
			}
		}
		fmt.Fprintln(w)
	}
	best := reading{"plot", "trace", "fit"}
	if !seen[best] {
		return nil
	}
	fmt.Fprintf(w, "\nValues under (%s), mean ± 95 %% CI over the instances, against the paper's.\n\n| case | order | executor | ours | paper | ours / paper |\n|---|---|---|---|---|---|\n", best)
	for _, c := range cells {
		v, ci := value(best, c)
		fmt.Fprintf(w, "| %s | %s | %s | %s ± %s | %s | %.2f |\n", c.w, c.order, c.exec, sci(v), sci(ci), sci(paper(c)), v/paper(c))
	}
	return nil
}

func table6(w io.Writer, s *summary, pub map[string]float64) {
	type col struct{ order, backfill string }
	cols := []col{{"SMART-FFIA", "conservative"}, {"SMART-FFIA", "easy"}, {"SMART-NFIW", "conservative"}, {"SMART-NFIW", "easy"}}
	fmt.Fprintf(w, "Weighted SMART with backfilling on the CTC log: AWRT with exact run times / with the requested times, and the change exact against requested.\n\n| smart_weight | recompute | FFIA conservative | FFIA EASY | NFIW conservative | NFIW EASY |\n|---|---|---|---|---|---|\n")
	for _, sw := range []string{"unit", "smith"} {
		for _, rc := range []string{"new_fraction", "dispatched_fraction", "every_arrival"} {
			fmt.Fprintf(w, "| %s | %s |", sw, rc)
			for _, c := range cols {
				at := func(est string) float64 {
					row := s.find(map[string]string{"smart_weight": sw, "recompute": rc, "order": c.order, "backfill": c.backfill, "estimate": est})
					if row == nil {
						return math.NaN()
					}
					return s.num(row, "awrt_mean")
				}
				e, r := at("exact"), at("requested")
				fmt.Fprintf(w, " %s / %s (%s) |", sci(e), sci(r), pct(100*(e/r-1)))
			}
			fmt.Fprintln(w)
		}
	}
	fmt.Fprintf(w, "| paper (Table 6 / Table 3) | |")
	for _, c := range cols {
		e, r := pub["6/weighted/"+c.order+"/"+c.backfill], pub["3/weighted/"+c.order+"/"+c.backfill]
		fmt.Fprintf(w, " %s / %s (%s) |", sci(e), sci(r), pct(100*(e/r-1)))
	}
	fmt.Fprintln(w)
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: krallreadings OUT_DIR")
		os.Exit(2)
	}
	pub, err := published(filepath.Join("configs", "published", "krallmann1999_art.csv"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "krallreadings:", err)
		os.Exit(1)
	}
	s4, err := load(os.Args[1], "krallmann-table4-arrivals")
	if err != nil {
		fmt.Fprintln(os.Stderr, "krallreadings:", err)
		os.Exit(1)
	}
	s6, err := load(os.Args[1], "krallmann-table6-smart-recompute")
	if err != nil {
		fmt.Fprintln(os.Stderr, "krallreadings:", err)
		os.Exit(1)
	}
	fmt.Println("#### Table 4 under each reading (krallmann-table4-arrivals)")
	fmt.Println()
	if err := table4(os.Stdout, s4, pub); err != nil {
		fmt.Fprintln(os.Stderr, "krallreadings:", err)
		os.Exit(1)
	}
	fmt.Println()
	fmt.Println("#### Table 6: weighted SMART, exact against requested run times (krallmann-table6-smart-recompute)")
	fmt.Println()
	table6(os.Stdout, s6, pub)
}
