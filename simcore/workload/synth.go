package workload

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"schedfarm/simcore/rng"
)

// Model is the probabilistic workload of krallmann1999 §6.2: Weibull
// inter-arrival times fitted to a trace, and job attributes drawn from the
// trace's empirical bins. The paper names the bins (every node count
// 1..256, ranges of requested time, ranges of actual run time) but neither
// their bounds nor whether they are joint; we use one joint histogram over
// (nodes, requested-time class, run-time class) with power-of-two classes
// in seconds, which keeps the size/length and estimate/run correlations
// that backfilling depends on (an assumption).
type Model struct {
	Shape, Scale float64 // Weibull inter-arrival fit (s)
	cells        []cell
	cum          []int64 // cumulative counts
	Jobs         int     // jobs the model was fitted on
	// marginal distributions (GenerateMarginal): values and cumulative
	// counts of the size, the requested-time class and the run-time class
	size, req, run          []int
	sizeCum, reqCum, runCum []int64
	// members holds, per cell (in cells' order), the (requested, run)
	// times of the trace's jobs in it (BinValuesTrace).
	members [][][2]float64
	// reqVals and runVals hold, per class of the marginal bins, the
	// requested and run times of the trace's jobs in it (GenerateWith with
	// Marginal and BinValuesTrace).
	reqVals, runVals map[int][]float64
}

// GenOptions are the readings of krallmann1999 §6.2 that GenerateWith follows.
// The zero value with Values BinValuesLogUniform is Generate.
type GenOptions struct {
	// Values is how the requested and run times are drawn inside a bin
	// (BinValuesLogUniform, BinValuesUniform or BinValuesTrace).
	Values string
	// Marginal draws the size, the requested-time class and the run-time
	// class independently, each from its own bins (GenerateMarginal).
	Marginal bool
	// RunPastRequest keeps the run time as drawn even when it exceeds the
	// request: the job runs past its estimate instead of having its run
	// time redrawn and clamped to the request. krallmann1999 §3 rule 2 says
	// only that such a job "may be cancelled".
	RunPastRequest bool
}

// How Generate draws the requested and run times inside a job's bin
// (krallmann1999 §6.2 says only that "randomized values are used and associated to
// the bins according to their probability").
const (
	// BinValuesLogUniform: log-uniform inside the power-of-two class, the
	// run time redrawn (then clamped) until it does not exceed the request
	// (the default).
	BinValuesLogUniform = "loguniform"
	// BinValuesUniform: uniform inside the class, redrawn and clamped the
	// same way.
	BinValuesUniform = "uniform"
	// BinValuesTrace: the (requested, run) pair of a job of the trace drawn
	// uniformly from the bin's jobs, so the values inside a bin follow the
	// log (bins of one value each, the finest reading).
	BinValuesTrace = "trace"
)

type cell struct {
	size     int
	req, run int // power-of-two classes: [2^c, 2^(c+1)) s
}

// class returns floor(log2 x) for x >= 1, 0 below.
func class(x float64) int {
	if x < 1 {
		return 0
	}
	_, e := math.Frexp(x)
	return e - 1
}

// Fit builds the model from jobs sorted by submit time.
func Fit(jobs []Job) *Model {
	m := &Model{Jobs: len(jobs)}
	m.Shape, m.Scale = FitWeibull(gaps(jobs))
	count := map[cell]int64{}
	mem := map[cell][][2]float64{}
	m.reqVals, m.runVals = map[int][]float64{}, map[int][]float64{}
	for _, j := range jobs {
		c := cell{j.Size, class(j.Request), class(j.Run)}
		count[c]++
		mem[c] = append(mem[c], [2]float64{j.Request, j.Run})
		m.reqVals[c.req] = append(m.reqVals[c.req], j.Request)
		m.runVals[c.run] = append(m.runVals[c.run], j.Run)
	}
	for c := range count {
		m.cells = append(m.cells, c)
	}
	sort.Slice(m.cells, func(a, b int) bool {
		x, y := m.cells[a], m.cells[b]
		if x.size != y.size {
			return x.size < y.size
		}
		if x.req != y.req {
			return x.req < y.req
		}
		return x.run < y.run
	})
	var s int64
	for _, c := range m.cells {
		s += count[c]
		m.cum = append(m.cum, s)
		m.members = append(m.members, mem[c])
	}
	ms, mr, mp := map[int]int64{}, map[int]int64{}, map[int]int64{}
	for _, c := range m.cells {
		ms[c.size] += count[c]
		mr[c.req] += count[c]
		mp[c.run] += count[c]
	}
	m.size, m.sizeCum = marginal(ms)
	m.req, m.reqCum = marginal(mr)
	m.run, m.runCum = marginal(mp)
	return m
}

// marginal returns the values of a histogram in increasing order and their
// cumulative counts.
func marginal(h map[int]int64) ([]int, []int64) {
	vals := make([]int, 0, len(h))
	for v := range h {
		vals = append(vals, v)
	}
	sort.Ints(vals)
	cum := make([]int64, len(vals))
	var s int64
	for i, v := range vals {
		s += h[v]
		cum[i] = s
	}
	return vals, cum
}

// pick returns the value whose cumulative-count interval holds a uniform
// draw over the total count.
func pick(r *rng.Rand, vals []int, cum []int64) int {
	u := int64(r.IntN(int(cum[len(cum)-1])))
	return vals[sort.Search(len(cum), func(k int) bool { return cum[k] > u })]
}

// FitWeibull returns the maximum-likelihood Weibull shape k and scale λ of
// positive samples: k solves 1/k + mean(ln x) − Σx^k ln x / Σx^k = 0
// (bisection on [0.01, 20]), λ = (mean x^k)^(1/k). With fewer than two
// samples it returns the fallback of docs/models/batch.md A4 (k = 0.6,
// λ = 239 s).
func FitWeibull(x []float64) (shape, scale float64) {
	if len(x) < 2 {
		return 0.6, 239
	}
	var ml float64
	for _, v := range x {
		ml += math.Log(v)
	}
	ml /= float64(len(x))
	g := func(k float64) float64 {
		var a, b float64
		for _, v := range x {
			p := math.Pow(v, k)
			a += p * math.Log(v)
			b += p
		}
		return 1/k + ml - a/b
	}
	lo, hi := 0.01, 20.0
	for range 60 {
		mid := (lo + hi) / 2
		if g(mid) > 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	shape = (lo + hi) / 2
	var s float64
	for _, v := range x {
		s += math.Pow(v, shape)
	}
	return shape, math.Pow(s/float64(len(x)), 1/shape)
}

// How the Weibull inter-arrival distribution is fitted to the log's gaps
// (krallmann1999 §6.2 says only that "a Weibull distribution matches best the
// submission times of the jobs in the trace").
const (
	// WeibullMLE: maximum likelihood (FitWeibull), the default.
	WeibullMLE = "mle"
	// WeibullPlot: least squares on the Weibull probability plot
	// (FitWeibullPlot), the textbook graphical fit.
	WeibullPlot = "plot"
)

// FitWeibullPlot returns the Weibull shape k and scale λ fitted by least
// squares on the Weibull probability plot of positive samples: with the
// samples sorted and Benard's median ranks F_i = (i − 0.3)/(n + 0.4), the
// line y = k·x − k·ln λ regressed through (ln x_i, ln(−ln(1 − F_i))).
// With fewer than two distinct samples it returns FitWeibull's.
func FitWeibullPlot(x []float64) (shape, scale float64) {
	s := slices.Clone(x)
	sort.Float64s(s)
	n := float64(len(s))
	var mx, my float64
	xs, ys := make([]float64, len(s)), make([]float64, len(s))
	for i, v := range s {
		f := (float64(i+1) - 0.3) / (n + 0.4)
		xs[i], ys[i] = math.Log(v), math.Log(-math.Log(1-f))
		mx += xs[i]
		my += ys[i]
	}
	mx /= n
	my /= n
	var sxy, sxx float64
	for i := range xs {
		sxy += (xs[i] - mx) * (ys[i] - my)
		sxx += (xs[i] - mx) * (xs[i] - mx)
	}
	if len(s) < 2 || sxx == 0 {
		return FitWeibull(x)
	}
	shape = sxy / sxx
	return shape, math.Exp(mx - my/shape)
}

// Refit replaces the model's Weibull inter-arrival fit with the one method
// gives (WeibullMLE or WeibullPlot) on the gaps of jobs, the log the model
// was fitted on.
func (m *Model) Refit(jobs []Job, method string) error {
	switch method {
	case WeibullMLE:
		m.Shape, m.Scale = FitWeibull(gaps(jobs))
	case WeibullPlot:
		m.Shape, m.Scale = FitWeibullPlot(gaps(jobs))
	default:
		return fmt.Errorf("workload: unknown Weibull fit %q (want %s or %s)", method, WeibullMLE, WeibullPlot)
	}
	return nil
}

// gaps returns the positive gaps between consecutive submissions of jobs
// sorted by submit time.
func gaps(jobs []Job) []float64 {
	var g []float64
	for i := 1; i < len(jobs); i++ {
		if d := jobs[i].Submit - jobs[i-1].Submit; d > 0 {
			g = append(g, d)
		}
	}
	return g
}

// Generate draws n jobs from the model, submit times from 0. Requested and
// run times are log-uniform inside their classes, rounded to whole seconds,
// with the run time redrawn (then clamped) until it does not exceed the
// request.
func (m *Model) Generate(n int, seed uint64) []Job {
	jobs, _ := m.GenerateValues(n, seed, BinValuesLogUniform)
	return jobs
}

// GenerateValues is Generate with the values inside a bin drawn as values
// says (BinValuesLogUniform, BinValuesUniform or BinValuesTrace). The
// arrivals and the bins drawn are the same for every values (the same
// seeded streams), so the readings compare pairwise.
func (m *Model) GenerateValues(n int, seed uint64, values string) ([]Job, error) {
	return m.GenerateWith(n, seed, GenOptions{Values: values})
}

// GenerateMarginal is Generate with the three attributes drawn
// independently, each from its own marginal bins (nodes, requested-time
// class, run-time class), the other reading of krallmann1999 §6.2: it loses the
// correlations between size, request and run time that the joint bins
// keep. The run time is redrawn (then clamped) as in Generate. Same seeded
// streams, so the arrivals equal Generate's.
func (m *Model) GenerateMarginal(n int, seed uint64) []Job {
	jobs, _ := m.GenerateWith(n, seed, GenOptions{Values: BinValuesLogUniform, Marginal: true})
	return jobs
}

// GenerateWith draws n jobs from the model under the readings o, submit
// times from 0. Every reading draws the same arrivals, and the same bins
// for the same Marginal (the same seeded streams: the values of the
// readings other than the default come from a stream of their own), so
// readings compare pairwise.
func (m *Model) GenerateWith(n int, seed uint64, o GenOptions) ([]Job, error) {
	switch o.Values {
	case BinValuesLogUniform, BinValuesUniform, BinValuesTrace:
	default:
		return nil, fmt.Errorf("workload: unknown bin values %q (want %s, %s or %s)", o.Values, BinValuesLogUniform, BinValuesUniform, BinValuesTrace)
	}
	st := rng.New(seed)
	arr, attr := st.Stream("arrivals"), st.Stream("attributes")
	// the other readings draw their values from a stream of their own
	val := st.Stream("bin values")
	jobs := make([]Job, n)
	t := 0.0
	total := m.cum[len(m.cum)-1]
	for i := range jobs {
		if i > 0 {
			t += math.Round(arr.Weibull(m.Shape, m.Scale))
		}
		var c cell
		k := -1
		if o.Marginal {
			c = cell{pick(attr, m.size, m.sizeCum), pick(attr, m.req, m.reqCum), pick(attr, m.run, m.runCum)}
		} else {
			u := int64(attr.IntN(int(total)))
			k = sort.Search(len(m.cum), func(k int) bool { return m.cum[k] > u })
			c = m.cells[k]
		}
		jobs[i] = m.job(i, t, c, attr) // drawn for every reading: the next bins stay the same
		switch {
		case o.Values == BinValuesTrace && !o.Marginal:
			mb := m.members[k]
			p := mb[val.IntN(len(mb))]
			jobs[i] = Job{ID: int64(i + 1), Submit: t, Size: c.size, Run: p[1], Estimate: p[0], Request: p[0]}
		case o.Values == BinValuesTrace:
			rq, rn := m.reqVals[c.req], m.runVals[c.run]
			req := rq[val.IntN(len(rq))]
			run := rn[val.IntN(len(rn))]
			for try := 0; run > req && !o.RunPastRequest && try < 20; try++ {
				run = rn[val.IntN(len(rn))]
			}
			if !o.RunPastRequest {
				run = math.Min(run, req)
			}
			jobs[i] = Job{ID: int64(i + 1), Submit: t, Size: c.size, Run: run, Estimate: req, Request: req}
		case o.Values == BinValuesUniform || o.RunPastRequest:
			jobs[i] = m.jobWith(i, t, c, val, o.Values == BinValuesUniform, o.RunPastRequest)
		}
	}
	return jobs, nil
}

// job draws the requested and run times of a job of cell c, log-uniform
// inside their classes.
func (m *Model) job(i int, t float64, c cell, attr *rng.Rand) Job {
	return m.jobWith(i, t, c, attr, false, false)
}

// jobWith draws the requested and run times of a job of cell c, uniform or
// log-uniform inside their classes; unless past, the run time is redrawn
// (then clamped) until it does not exceed the request.
func (m *Model) jobWith(i int, t float64, c cell, attr *rng.Rand, uniform, past bool) Job {
	in := func(cl int) float64 {
		lo := math.Ldexp(1, cl)
		if uniform {
			return math.Max(1, math.Round(attr.Uniform(lo, 2*lo)))
		}
		return math.Max(1, math.Round(attr.LogUniform(lo, 2*lo)))
	}
	req := in(c.req)
	run := in(c.run)
	if !past {
		for try := 0; run > req && try < 20; try++ {
			run = in(c.run)
		}
		run = math.Min(run, req)
	}
	return Job{ID: int64(i + 1), Submit: t, Size: c.size, Run: run, Estimate: req, Request: req}
}

// Randomized is the workload of krallmann1999 Table 2, every parameter uniform:
// inter-arrival in (0, 3600] s ("at least one job per hour"), nodes in
// 1..nodes, requested time in [300 s, 24 h], run time in [1 s, requested].
// Times are whole seconds.
func Randomized(n, nodes int, seed uint64) []Job {
	st := rng.New(seed)
	r := st.Stream("randomized")
	jobs := make([]Job, n)
	t := 0.0
	for i := range jobs {
		if i > 0 {
			t += float64(1 + r.IntN(3600))
		}
		req := float64(r.IntRange(300, 86400))
		run := float64(r.IntRange(1, int(req)))
		jobs[i] = Job{ID: int64(i + 1), Submit: t, Size: r.IntRange(1, nodes), Run: run, Estimate: req, Request: req}
	}
	return jobs
}
