package batch

import (
	"context"
	"slices"
	"testing"

	"schedfarm/simcore"
)

// TestProbabilisticArrivalReadings: on a 40-job log (testdata/gaps.swf,
// submissions from 9 s to 16,546 s), the readings of §6.2's arrivals change only
// the submit times of the generated jobs: weibull_fit: plot draws other
// gaps than mle, arrivals: log_span makes 300 jobs span the log's time
// frame exactly, and the offered_load metric scales by the inverse of the
// stretch.
func TestProbabilisticArrivalReadings(t *testing.T) {
	m := New(simcore.Dirs{"testdata"})
	type out struct {
		submit, width, est []float64
		load               float64
	}
	run := func(params simcore.Params) out {
		t.Helper()
		p := simcore.Params{"workload": "probabilistic", "trace": "gaps.swf", "nodes": int64(16), "jobs": int64(300), "schedule_table": true}
		for k, v := range params {
			p[k] = v
		}
		p, err := schema.Complete(p)
		if err != nil {
			t.Fatal(err)
		}
		res, err := m.Run(context.Background(), p, 7)
		if err != nil {
			t.Fatal(err)
		}
		tab := res.Tables["schedule"].Columns
		var o out
		o.submit = tab["submit"].([]float64)
		for _, w := range tab["width"].([]int64) {
			o.width = append(o.width, float64(w))
		}
		o.est = tab["est_runtime"].([]float64)
		o.load = res.Metrics["offered_load"].(float64)
		return o
	}
	base := run(nil)
	for _, c := range []struct {
		name   string
		params simcore.Params
		span   float64 // 0: not checked
	}{
		{"weibull_fit plot", simcore.Params{"weibull_fit": "plot"}, 0},
		{"arrivals log_span", simcore.Params{"arrivals": "log_span"}, 16546 - 9},
	} {
		got := run(c.params)
		if !slices.Equal(got.width, base.width) || !slices.Equal(got.est, base.est) {
			t.Errorf("%s: sizes or estimates differ from the default's", c.name)
		}
		if slices.Equal(got.submit, base.submit) {
			t.Errorf("%s: the same submit times as the default", c.name)
		}
		if c.span > 0 {
			if s := got.submit[len(got.submit)-1] - got.submit[0]; s != c.span {
				t.Errorf("%s: jobs span %v s, want the log's %v s", c.name, s, c.span)
			}
			stretch := c.span / (base.submit[len(base.submit)-1] - base.submit[0])
			if r := got.load * stretch / base.load; r < 0.999 || r > 1.001 {
				t.Errorf("%s: offered load %v, want %v / %v", c.name, got.load, base.load, stretch)
			}
		}
	}
}
