package main

import (
	"strconv"
	"strings"
	"testing"
)

// paperT4 is Table 4 as published (a part of configs/published).
var paperT4 = map[string]float64{
	"unweighted/FCFS/list": 6.17e6, "unweighted/FCFS/conservative": 1.06e6, "unweighted/FCFS/easy": 1.03e6,
	"unweighted/PSRS/list": 2.86e5, "unweighted/PSRS/conservative": 1.71e5, "unweighted/PSRS/easy": 1.55e5,
	"unweighted/SMART-FFIA/list": 2.67e5, "unweighted/SMART-FFIA/conservative": 1.74e5, "unweighted/SMART-FFIA/easy": 1.57e5,
	"unweighted/SMART-NFIW/list": 2.85e5, "unweighted/SMART-NFIW/conservative": 1.65e5, "unweighted/SMART-NFIW/easy": 1.64e5,
	"unweighted/GareyGraham/list": 2.78e5,
	"weighted/FCFS/list":          6.17e11, "weighted/FCFS/conservative": 3.03e11, "weighted/FCFS/easy": 2.96e11,
	"weighted/PSRS/list": 5.10e11, "weighted/PSRS/conservative": 3.05e11, "weighted/PSRS/easy": 2.91e11,
	"weighted/SMART-FFIA/list": 4.84e11, "weighted/SMART-FFIA/conservative": 3.33e11, "weighted/SMART-FFIA/easy": 2.97e11,
	"weighted/SMART-NFIW/list": 4.86e11, "weighted/SMART-NFIW/conservative": 3.31e11, "weighted/SMART-NFIW/easy": 3.03e11,
	"weighted/GareyGraham/list": 2.72e11,
}

// summaryOf builds a krallmann1999-table4-arrivals summary: one reading with
// the paper's values times scale, FCFS+EASY kept at the paper's.
func summaryOf(scale float64) (*summary, map[string]float64) {
	s := &summary{col: map[string]int{}}
	for i, h := range []string{"weibull_fit", "bin_values", "arrivals", "weighted", "order", "backfill", "offered_load_mean", "art_mean", "art_ci95", "awrt_mean", "awrt_ci95"} {
		s.col[h] = i
	}
	pub := map[string]float64{}
	bf := map[string]string{"list": "none", "conservative": "conservative", "easy": "easy"}
	for k, v := range paperT4 {
		pub["4/"+k] = v
		p := strings.Split(k, "/")
		w, m := "false", v*scale
		if p[1] == "FCFS" && p[2] == "easy" {
			m = v
		}
		art, awrt := strconv.FormatFloat(m, 'g', -1, 64), ""
		if p[0] == "weighted" {
			w, art, awrt = "true", "", art
		}
		s.rows = append(s.rows, []string{"plot", "trace", "fit", w, p[1], bf[p[2]], "1.42", art, "0", awrt, "0"})
	}
	return s, pub
}

// TestTable4Counts: a reading equal to the paper has every change and value
// within tolerance; one whose cells are 20 % higher (FCFS+EASY unchanged)
// moves a change c by 0.2·(100 + c) points, so only the 10 cells at −50 %
// or below stay within 10 points, and only FCFS+EASY within 10 %.
func TestTable4Counts(t *testing.T) {
	tests := []struct {
		name  string
		scale float64
		want  string
	}{
		{"paper", 1, "| plot, trace, fit | 1.42 | 1.03e+06 ± 0.00e+00 | 2.96e+11 ± 0.00e+00 | 24 / 24 | 26 / 26 | 26 / 26 |"},
		{"20% higher", 1.2, "| 10 / 24 | 2 / 26 | 26 / 26 |"},
	}
	for _, c := range tests {
		t.Run(c.name, func(t *testing.T) {
			s, pub := summaryOf(c.scale)
			var b strings.Builder
			table4(&b, s, nil, pub)
			if !strings.Contains(b.String(), c.want) {
				t.Errorf("output lacks %q:\n%s", c.want, b.String())
			}
		})
	}
}
