package collect

import (
	"encoding/csv"
	"io"
	"math"
	"strconv"

	"schedfarm/results"
	"schedfarm/simcore"
	"schedfarm/sweep"
)

// summary is the content of summary.parquet / summary.csv.
type summary struct {
	model    *simcore.Schema
	jobs     []sweep.Job
	first    []int // per point: position (in jobs) of its first job
	n        []int64
	nFailed  []int64
	nMissing []int64
	stats    [][]results.Stats // per summary metric, per point
	points   int
}

func (c *collector) summarize() (*summary, error) {
	sm := results.SummaryMetrics(c.in.Model)
	sum := &summary{model: &c.in.Model, jobs: c.in.Jobs}
	pointIdx := make(map[string]int32)
	pointOf := make([]int32, len(c.order)) // per entry of c.order
	var okCount int
	for k, pos := range c.order {
		j := &c.in.Jobs[pos]
		key := j.Params.Canonical(nil)
		p, seen := pointIdx[key]
		if !seen {
			p = int32(len(sum.first))
			pointIdx[key] = p
			sum.first = append(sum.first, pos)
			sum.n = append(sum.n, 0)
			sum.nFailed = append(sum.nFailed, 0)
			sum.nMissing = append(sum.nMissing, 0)
		}
		pointOf[k] = p
		s := c.slotOf[pos]
		_, hasFail := c.in.Failures[j.ID]
		switch {
		case c.part[s] >= 0 && c.ok[s]:
			sum.n[p]++
			okCount++
		case c.part[s] >= 0 || hasFail:
			sum.nFailed[p]++
		default:
			sum.nMissing[p]++
		}
	}
	sum.points = len(sum.first)
	// Offsets of each point's values in a buffer of all ok values.
	start := make([]int, sum.points+1)
	for p, n := range sum.n {
		start[p+1] = start[p] + int(n)
	}
	tq := make(map[int]float64)
	t975 := func(dof int) float64 {
		q, ok := tq[dof]
		if !ok {
			q = results.TQuantile975(dof)
			tq[dof] = q
		}
		return q
	}
	buf := make([]float64, okCount)
	next := make([]int, sum.points)
	for _, m := range sm {
		st := c.stores[m.Name]
		copy(next, start[:sum.points])
		for k, pos := range c.order {
			s := int(c.slotOf[pos])
			if c.part[s] < 0 || !c.ok[s] {
				continue
			}
			p := pointOf[k]
			v := math.NaN()
			if !st.isNull(s) {
				v = st.float(s)
			}
			buf[next[p]] = v
			next[p]++
		}
		ps := make([]results.Stats, sum.points)
		for p := range ps {
			ps[p] = results.DescribeWith(buf[start[p]:start[p+1]], t975)
		}
		sum.stats = append(sum.stats, ps)
	}
	return sum, nil
}

func (sum *summary) writeParquet(w io.Writer, l results.Layout, meta map[string]string) error {
	tw := results.NewTableWriter(w, l, meta, 0)
	for p := 0; p < sum.points; p++ {
		j := &sum.jobs[sum.first[p]]
		col := 0
		for _, par := range sum.model.Params {
			if err := tw.SetAny(col, j.Params[par.Name]); err != nil {
				return err
			}
			col++
		}
		tw.SetInt(col, sum.n[p])
		tw.SetInt(col+1, sum.nFailed[p])
		tw.SetInt(col+2, sum.nMissing[p])
		col += 3
		for m := range sum.stats {
			for _, v := range sum.stats[m][p].Values() {
				tw.SetFloatOrNull(col, v)
				col++
			}
		}
		if err := tw.EndRow(); err != nil {
			return err
		}
	}
	return tw.Close()
}

// formatCSV renders a value for summary.csv: integers in base 10, floats
// with strconv 'g' and the shortest precision that round-trips, bools as
// true/false, strings as they are but neutralised (results.CSVText), nil (null)
// as the empty field.
func formatCSV(v any) string {
	switch x := v.(type) {
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case string:
		return results.CSVText(x)
	case bool:
		return strconv.FormatBool(x)
	}
	return ""
}

func (sum *summary) writeCSV(w io.Writer, l results.Layout) error {
	cw := csv.NewWriter(w)
	cw.UseCRLF = true
	if err := cw.Write(l.Names()); err != nil {
		return err
	}
	rec := make([]string, len(l.Columns))
	for p := 0; p < sum.points; p++ {
		j := &sum.jobs[sum.first[p]]
		col := 0
		for _, par := range sum.model.Params {
			rec[col] = formatCSV(j.Params[par.Name])
			col++
		}
		rec[col] = formatCSV(sum.n[p])
		rec[col+1] = formatCSV(sum.nFailed[p])
		rec[col+2] = formatCSV(sum.nMissing[p])
		col += 3
		for m := range sum.stats {
			for _, v := range sum.stats[m][p].Values() {
				if math.IsNaN(v) {
					rec[col] = ""
				} else {
					rec[col] = formatCSV(v)
				}
				col++
			}
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
