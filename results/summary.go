package results

import (
	"encoding/csv"
	"io"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/gonum/stat/distuv"

	"schedfarm/simcore"
	"schedfarm/sweep"
)

// Stats are the summary statistics of one metric at one point. Undefined
// values are NaN (written as null): all of them when N is 0, Std and CI95
// when N is 1.
type Stats struct {
	N int
	// Mean is the arithmetic mean, summed in job-index order.
	Mean float64
	// Std is the sample standard deviation (divisor n−1).
	Std float64
	// CI95 is the half-width of the 95% confidence interval of the mean:
	// t(0.975, n−1)·Std/√n, with Student's t quantile.
	CI95 float64
	// Median, Q1 and Q3 are the 0.5, 0.25 and 0.75 quantiles by linear
	// interpolation between order statistics (Hyndman–Fan type 7, the
	// default of numpy.quantile, pandas and R).
	Median, Q1, Q3 float64
	Min, Max       float64
}

// Describe computes the summary statistics of xs. It sorts xs in place.
func Describe(xs []float64) Stats { return describe(xs, TQuantile975) }

// describe is Describe with a given t-quantile function (the collector
// caches the quantiles by degrees of freedom).
func describe(xs []float64, t975 func(dof int) float64) Stats {
	n := len(xs)
	nan := math.NaN()
	s := Stats{N: n, Mean: nan, Std: nan, CI95: nan, Median: nan, Q1: nan, Q3: nan, Min: nan, Max: nan}
	if n == 0 {
		return s
	}
	var sum float64
	for _, x := range xs {
		sum += x
	}
	s.Mean = sum / float64(n)
	if n >= 2 {
		var ss float64
		for _, x := range xs {
			d := x - s.Mean
			ss += d * d
		}
		s.Std = math.Sqrt(ss / float64(n-1))
		s.CI95 = t975(n-1) * s.Std / math.Sqrt(float64(n))
	}
	slices.Sort(xs)
	s.Min, s.Max = xs[0], xs[n-1]
	s.Q1, s.Median, s.Q3 = Quantile7(xs, 0.25), Quantile7(xs, 0.5), Quantile7(xs, 0.75)
	return s
}

// TQuantile975 returns the 0.975 quantile of Student's t distribution with
// dof degrees of freedom (gonum's distuv.StudentsT).
func TQuantile975(dof int) float64 {
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(dof)}.Quantile(0.975)
}

// Quantile7 returns the p-quantile of sorted (ascending, non-empty) xs by
// linear interpolation: h = (n−1)p, x[⌊h⌋] + (h−⌊h⌋)(x[⌊h⌋+1] − x[⌊h⌋]).
func Quantile7(sorted []float64, p float64) float64 {
	h := float64(len(sorted)-1) * p
	lo := math.Floor(h)
	i := int(lo)
	if i+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (h-lo)*(sorted[i+1]-sorted[i])
}

// summary is the content of summary.parquet / summary.csv.
type summary struct {
	model    *simcore.Schema
	jobs     []sweep.Job
	first    []int // per point: position (in jobs) of its first job
	n        []int64
	nFailed  []int64
	nMissing []int64
	stats    [][]Stats // per summary metric, per point
	points   int
}

func (c *collector) summarize() (*summary, error) {
	sm := SummaryMetrics(c.in.Model)
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
			q = TQuantile975(dof)
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
		ps := make([]Stats, sum.points)
		for p := range ps {
			ps[p] = describe(buf[start[p]:start[p+1]], t975)
		}
		sum.stats = append(sum.stats, ps)
	}
	return sum, nil
}

func (s *Stats) values() [8]float64 {
	return [8]float64{s.Mean, s.Std, s.CI95, s.Median, s.Q1, s.Q3, s.Min, s.Max}
}

func (sum *summary) writeParquet(w io.Writer, l Layout, meta map[string]string) error {
	tw := newTableWriter(w, l, meta, 0)
	for p := 0; p < sum.points; p++ {
		j := &sum.jobs[sum.first[p]]
		col := 0
		for _, par := range sum.model.Params {
			if err := tw.setAny(col, j.Params[par.Name]); err != nil {
				return err
			}
			col++
		}
		tw.setInt(col, sum.n[p])
		tw.setInt(col+1, sum.nFailed[p])
		tw.setInt(col+2, sum.nMissing[p])
		col += 3
		for m := range sum.stats {
			for _, v := range sum.stats[m][p].values() {
				tw.setFloatOrNull(col, v)
				col++
			}
		}
		if err := tw.endRow(); err != nil {
			return err
		}
	}
	return tw.close()
}

// formatCSV renders a value for summary.csv: integers in base 10, floats
// with strconv 'g' and the shortest precision that round-trips, bools as
// true/false, strings as they are, nil (null) as the empty field.
func formatCSV(v any) string {
	switch x := v.(type) {
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	}
	return ""
}

func (sum *summary) writeCSV(w io.Writer, l Layout) error {
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
			for _, v := range sum.stats[m][p].values() {
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
