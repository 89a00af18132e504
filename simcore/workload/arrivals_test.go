package workload

import (
	"math"
	"slices"
	"testing"
)

// TestRefit: Refit sets the fit its method names, and refuses an unknown
// method.
func TestRefit(t *testing.T) {
	trace := synthTrace(3000)
	m := Fit(trace)
	mk, ml := m.Shape, m.Scale
	for _, c := range []struct {
		method string
		fit    func([]float64) (float64, float64)
	}{{WeibullPlot, FitWeibullPlot}, {WeibullMLE, FitWeibull}} {
		if err := m.Refit(trace, c.method); err != nil {
			t.Fatal(err)
		}
		k, l := c.fit(gaps(trace))
		if m.Shape != k || m.Scale != l {
			t.Errorf("%s: (%v, %v), want (%v, %v)", c.method, m.Shape, m.Scale, k, l)
		}
	}
	if m.Shape != mk || m.Scale != ml {
		t.Errorf("mle refit (%v, %v) differs from Fit's (%v, %v)", m.Shape, m.Scale, mk, ml)
	}
	if err := m.Refit(trace, "moments"); err == nil {
		t.Error("unknown method accepted")
	}
}

// TestScaleArrivals: scaling by f divides the offered load by f, keeps the
// first submission and the order, and refuses f <= 0.
func TestScaleArrivals(t *testing.T) {
	cases := []struct {
		name  string
		f     float64
		valid bool
	}{{"stretch", 2, true}, {"compress", 0.5, true}, {"zero", 0, false}, {"negative", -1, false}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			jobs := synthTrace(2000)
			first := jobs[0].Submit
			load := OfferedLoad(jobs, 256)
			err := ScaleArrivals(jobs, c.f)
			if (err == nil) != c.valid {
				t.Fatalf("err = %v, valid %v", err, c.valid)
			}
			if !c.valid {
				return
			}
			if jobs[0].Submit != first {
				t.Errorf("first submission moved to %v", jobs[0].Submit)
			}
			for i := 1; i < len(jobs); i++ {
				if jobs[i].Submit < jobs[i-1].Submit {
					t.Fatalf("job %d before job %d", i, i-1)
				}
			}
			if got := OfferedLoad(jobs, 256); math.Abs(got*c.f/load-1) > 1e-3 {
				t.Errorf("offered load %v, want %v", got, load/c.f)
			}
		})
	}
	if OfferedLoad(nil, 256) != 0 || Span(synthTrace(1)) != 0 {
		t.Error("empty or one-job workload: want 0")
	}
}

// TestGenerateWithReadings: every reading keeps Generate's arrivals;
// RunPastRequest keeps runs above their request (marginal bins draw many),
// where the default never does; marginal trace values are values of the
// log.
func TestGenerateWithReadings(t *testing.T) {
	trace := synthTrace(5000)
	logged := map[float64]bool{}
	for _, j := range trace {
		logged[j.Run], logged[j.Request] = true, true
	}
	m := Fit(trace)
	base := m.Generate(5000, 9)
	for _, c := range []struct {
		name string
		o    GenOptions
		past bool // runs above the request expected
	}{
		{"marginal loguniform", GenOptions{Values: BinValuesLogUniform, Marginal: true}, false},
		{"marginal loguniform past", GenOptions{Values: BinValuesLogUniform, Marginal: true, RunPastRequest: true}, true},
		{"marginal trace", GenOptions{Values: BinValuesTrace, Marginal: true}, false},
		{"marginal trace past", GenOptions{Values: BinValuesTrace, Marginal: true, RunPastRequest: true}, true},
		{"joint uniform past", GenOptions{Values: BinValuesUniform, RunPastRequest: true}, false},
	} {
		gen, err := m.GenerateWith(5000, 9, c.o)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		over := 0
		for i, j := range gen {
			if j.Submit != base[i].Submit {
				t.Fatalf("%s job %d: arrival differs from Generate's", c.name, i)
			}
			if j.Run > j.Request {
				over++
			}
			if c.o.Values == BinValuesTrace && (!logged[j.Request] || !c.o.RunPastRequest && !logged[j.Run] && j.Run != j.Request) {
				t.Fatalf("%s job %d: (%v, %v) not values of the log", c.name, i, j.Request, j.Run)
			}
		}
		if (over > 0) != c.past {
			t.Errorf("%s: %d runs above their request, want some: %v", c.name, over, c.past)
		}
	}
	if got := m.GenerateMarginal(100, 9); !slices.Equal(got, mustGen(t, m, 100, 9, GenOptions{Values: BinValuesLogUniform, Marginal: true})) {
		t.Error("GenerateMarginal differs from GenerateWith marginal loguniform")
	}
}

func mustGen(t *testing.T, m *Model, n int, seed uint64, o GenOptions) []Job {
	t.Helper()
	jobs, err := m.GenerateWith(n, seed, o)
	if err != nil {
		t.Fatal(err)
	}
	return jobs
}
