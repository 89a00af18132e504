package batch

import (
	"context"
	"fmt"
	"math"

	"schedfarm/simcore"
	"schedfarm/simcore/workload"
)

// Model is the batch-scheduling model of krallmann1999.
type Model struct {
	// traces caches parsed logs by (name, lenient): parsing CTC costs more
	// than simulating it, and a sweep runs it many times; and the
	// probabilistic workload's model fitted on a log (by log, conventions
	// and Weibull fit): fitting the arrivals costs a third of a
	// probabilistic job, and the fit is the same for every job of a sweep.
	traces *workload.TraceCache
}

// New returns the model; data is where traces are opened (may be nil when
// only synthetic workloads are used).
func New(data simcore.DataDir) *Model {
	return &Model{traces: workload.NewTraceCache(data)}
}

func (*Model) Name() string    { return "batch" }
func (*Model) Version() string { return "1" }
func (*Model) Doc() string {
	return "rigid parallel jobs on a batch machine: FCFS, Garey&Graham, PSRS, SMART with list scheduling or backfilling of any reservation depth (Krallmann et al. 1999)"
}

// Schema is the model's parameters and metrics. Every reading of a log is
// a parameter with its default stated (see doc.go).
func (*Model) Schema() simcore.Schema { return schema }

// DataFiles implements simcore.DataReader: every workload but randomized
// reads the trace.
func (*Model) DataFiles(p simcore.Params) []simcore.DataFile {
	if p.String("workload") == "randomized" {
		return nil
	}
	return []simcore.DataFile{{Param: "trace", Name: p.String("trace")}}
}

// Run simulates one point.
func (m *Model) Run(ctx context.Context, p simcore.Params, seed uint64) (*simcore.Result, error) {
	nodes := int(p.Int("nodes"))
	jobs, st, err := m.workload(p, seed, nodes)
	if err != nil {
		return nil, err
	}
	depth, err := Depth(p.String("backfill"), int(p.Int("depth")))
	if err != nil {
		return nil, err
	}
	cfg := Config{Nodes: nodes, Order: p.String("order"), Depth: depth, Weighted: p.Bool("weighted"),
		SmartWeight: p.String("smart_weight"), Recompute: p.String("recompute"), EachEvent: p.String("event_order") == "each",
		CompressArrival: p.String("compress_order") == "arrival"}
	// The simulation, timed on the caller's clock (sched_wall_ms only).
	out, wall, err := simcore.TimedValue(ctx, func() (*Outcome, error) { return Simulate(ctx, jobs, cfg) })
	if err != nil {
		return nil, err
	}
	met := Measure(jobs, out, nodes)
	res := &simcore.Result{Metrics: map[string]any{
		"n_jobs": int64(len(jobs)), "offered_load": workload.OfferedLoad(jobs, nodes), "art": met.ART, "awrt": met.AWRT, "makespan": met.Makespan,
		"utilization": met.Utilization, "bsld": met.BSLD, "max_wait": met.MaxWait,
		"max_wait_wide": met.MaxWaitWide, "killed": int64(st.Capped), "invalid": int64(st.Invalid),
		"too_wide": int64(st.TooWide), "rebuilds": int64(out.Rebuilds), "overruns": int64(out.Overruns),
		"sched_wall_ms": wall,
	}}
	if p.Bool("schedule_table") {
		n := len(jobs)
		id, nd := make([]int64, n), make([]int64, n)
		sub, est := make([]float64, n), make([]float64, n)
		for i, j := range jobs {
			id[i], nd[i], sub[i], est[i] = j.ID, int64(j.Size), j.Submit, j.Estimate
		}
		res.Tables = map[string]*simcore.TableData{"schedule": {Columns: map[string]any{
			"job": id, "submit": sub, "start": out.Start, "end": out.End, "width": nd, "est_runtime": est,
		}}}
	}
	return res, nil
}

func (m *Model) trace(name string, lenient bool) (*workload.Trace, error) {
	return m.traces.Trace(name, workload.ReadOptions{Lenient: lenient})
}

// fit returns the probabilistic model fitted on jobs (the log converted
// as key says) with the given Weibull fit, from the cache when a job of
// the same key fitted it before. A fitted model is only read afterwards.
func (m *Model) fit(jobs []workload.Job, key, method string) (*workload.Model, error) {
	return workload.Derived(m.traces, key, func() (*workload.Model, error) {
		fm := workload.Fit(jobs)
		if err := fm.Refit(jobs, method); err != nil {
			return nil, err
		}
		return fm, nil
	})
}

func (m *Model) workload(p simcore.Params, seed uint64, nodes int) ([]workload.Job, workload.Stats, error) {
	conv := workload.Conventions{
		Size: p.String("size_field"), CapRuntime: p.Bool("cap_runtime"), Estimate: "requested",
		Invalid: p.String("invalid_jobs"), DropFailed: p.Bool("drop_failed"), MaxSize: nodes,
	}
	n := int(p.Int("jobs"))
	var jobs []workload.Job
	var st workload.Stats
	kind := p.String("workload")
	if kind == "randomized" {
		if n == 0 {
			n = 50000 // krallmann1999 Table 1
		}
		jobs = workload.Randomized(n, nodes, seed)
		st.Jobs = n
	} else if kind == "synthetic" {
		var err error
		if jobs, st, err = m.synthetic(p, seed, nodes, conv); err != nil {
			return nil, st, err
		}
	} else {
		t, err := m.trace(p.String("trace"), p.Bool("lenient"))
		if err != nil {
			return nil, st, err
		}
		if kind == "trace" {
			conv.FirstN = n
		}
		jobs, st, err = workload.Convert(t.Records, conv)
		if err != nil {
			return nil, st, err
		}
		if kind != "trace" {
			if n == 0 {
				n = len(jobs)
			}
			base := jobs
			o := workload.GenOptions{Values: p.String("bin_values"), Marginal: kind == "probabilistic-marginal", RunPastRequest: p.Bool("run_past_request")}
			fm, err := m.fit(jobs, fmt.Sprintf("%s\x00%v\x00%+v\x00%s", p.String("trace"), p.Bool("lenient"), conv, p.String("weibull_fit")), p.String("weibull_fit"))
			if err != nil {
				return nil, st, err
			}
			if jobs, err = fm.GenerateWith(n, seed, o); err != nil {
				return nil, st, err
			}
			st = workload.Stats{Jobs: n}
			if err := placeArrivals(jobs, base, p); err != nil {
				return nil, st, err
			}
		} else {
			jobs = append([]workload.Job(nil), jobs...)
		}
	}
	for i := range jobs {
		switch p.String("estimate") {
		case "exact":
			jobs[i].Estimate = jobs[i].Run
		case "max":
			jobs[i].Estimate = math.Max(jobs[i].Request, jobs[i].Run)
		}
	}
	return jobs, st, nil
}

// placeArrivals applies the arrival reading of a generated workload
// (krallmann1999 §7): arrivals: log_span stretches the submit times so the jobs span
// the log's (log) time frame.
func placeArrivals(jobs, log []workload.Job, p simcore.Params) error {
	if p.String("arrivals") == workload.ArrivalsLogSpan {
		if s := workload.Span(jobs); s > 0 {
			if err := workload.ScaleArrivals(jobs, workload.Span(log)/s); err != nil {
				return fmt.Errorf("arrivals log_span: %w", err)
			}
		}
	}
	return nil
}

// Metrics are the objectives of one schedule.
type Metrics struct {
	ART, AWRT, Makespan, Utilization, BSLD, MaxWait, MaxWaitWide float64
}

// BSLDTau is the bounded-slowdown threshold τ (s).
const BSLDTau = 10

// Measure computes the objectives (krallmann1999 §4): ART = Σ(C−r)/n; AWRT =
// Σ m·p·(C−r)/n with the actual run time p (divided by n, as the
// magnitudes of Tables 3-5 show); makespan = last end − first submit;
// utilisation = Σ m·p / (nodes · makespan); bounded slowdown
// max(1, (C−r)/max(p, τ)); MaxWaitWide is the longest wait of the jobs
// wider than half the machine (the starvation check).
func Measure(jobs []workload.Job, o *Outcome, nodes int) Metrics {
	var m Metrics
	if len(jobs) == 0 {
		return m
	}
	var area, end float64
	for i, j := range jobs {
		resp := o.End[i] - j.Submit
		m.ART += resp
		m.AWRT += float64(j.Size) * j.Run * resp
		m.BSLD += math.Max(1, resp/math.Max(j.Run, BSLDTau))
		w := o.Start[i] - j.Submit
		m.MaxWait = math.Max(m.MaxWait, w)
		if 2*j.Size > nodes {
			m.MaxWaitWide = math.Max(m.MaxWaitWide, w)
		}
		area += float64(j.Size) * j.Run
		end = math.Max(end, o.End[i])
	}
	n := float64(len(jobs))
	m.ART /= n
	m.AWRT /= n
	m.BSLD /= n
	m.Makespan = end - jobs[0].Submit
	if m.Makespan > 0 {
		m.Utilization = area / (float64(nodes) * m.Makespan)
	}
	return m
}

// UsesSeed implements simcore.SeedUser: only a generated workload
// (randomized, synthetic, or drawn from a model fitted on a trace) uses the
// seed; a trace replayed as it is, scheduled deterministically, does not.
func (*Model) UsesSeed(p simcore.Params) bool {
	w, ok := p["workload"].(string)
	return !ok || w != "trace"
}
