package stretch

import (
	"context"
	"fmt"
	"math"

	"schedfarm/simcore"
	"schedfarm/simcore/workload"
)

// trace returns the first jobs of a log as rigid jobs: the allocated size,
// the actual run time (not capped by the request), zero-length or
// zero-size records repaired to zeroRun seconds on 1 processor.
func (m *Model) trace(name string, P int, zeroRun float64) ([]workload.Job, error) {
	return workload.Derived(m.traces, fmt.Sprintf("%s\x00%d\x00%v", name, P, zeroRun), func() ([]workload.Job, error) {
		t, err := m.traces.Trace(name, workload.ReadOptions{})
		if err != nil {
			return nil, err
		}
		jobs, _, err := workload.Convert(t.Records, workload.Conventions{Size: "alloc", Estimate: "exact", Invalid: "repair", RepairRun: zeroRun, MaxSize: P})
		if err != nil {
			return nil, fmt.Errorf("trace %s: %w", name, err)
		}
		return jobs, nil
	})
}

func (m *Model) runMold(ctx context.Context, p simcore.Params, seed uint64) (*simcore.Result, error) {
	P := orDefault(p.Int("m"), 512)
	n := orDefault(p.Int("n_tasks"), 8000)
	var tasks []MoldTask
	var err error
	target := math.NaN()
	switch wl := p.String("workload"); wl {
	case "ssm":
		target = p.Float("load")
		if hi := p.Float("load_hi"); hi > target {
			target = rngBand(seed, target, hi)
		}
		if err = checkMoldSize(n, P); err == nil {
			tasks, err = SSMInstance(n, P, target, DefaultSSM.Scaled(p.Float("ssm_scale")), seed)
		}
	default:
		var jobs []workload.Job
		jobs, err = m.trace(traceFiles[wl], P, p.Float("zero_run"))
		if err == nil {
			err = checkMoldSize(min(n, len(jobs)), P)
		}
		if err == nil {
			tasks, err = DowneyInstance(jobs, n, P, seed)
		}
	}
	if err != nil {
		return nil, err
	}
	cfg := MoldConfig{P: P, Algorithm: p.String("algorithm"), Rho: p.Float("rho"), Tol: p.Float("tol"),
		RelaxSchedule: p.String("dbos_relax") == "schedule", BisectEps: dbosEps(p), ScojoShrinkAny: p.String("scojo_shrink") == "any",
		ScojoLoadBusy: p.String("scojo_load") == "busy", ScojoSizeAtStart: p.String("scojo_size_at") == "start",
		ImprovedSelectTotal: p.String("improved_select") == "total"}
	// The scheduling, timed on the caller's clock (sched_wall_ms only).
	out, wall, err := simcore.TimedValue(ctx, func() (*MoldOutcome, error) { return SimulateMoldable(ctx, tasks, cfg) })
	if err != nil {
		return nil, err
	}
	nt := len(tasks)
	rel, size := make([]float64, nt), make([]float64, nt)
	lo, hi, bound, meanBound := math.Inf(1), 0.0, 0.0, 0.0
	for i := range tasks {
		rel[i], size[i] = tasks[i].Release, tasks[i].Seq()
		lo, hi = math.Min(lo, size[i]), math.Max(hi, size[i])
		fastest := tasks[i].Times[P-1] // Times is non-increasing
		bound = math.Max(bound, fastest)
		meanBound += fastest / float64(nt)
	}
	st := Measure(rel, size, out.End)
	if math.IsNaN(target) {
		target = MoldLoad(tasks)
	}
	wr := WorkRatio(size, out)
	res := &simcore.Result{Metrics: map[string]any{
		"tasks_run": int64(nt), "max_stretch": st.MaxStretch, "mean_stretch": st.MeanStretch,
		"max_flow": st.MaxFlow, "mean_flow": st.MeanFlow, "realised_load": MoldLoad(tasks),
		"target_load": target, "realised_delta": hi / lo, "work_ratio": wr, "mean_procs": MeanProcs(out.Procs), "used_load": MoldLoad(tasks) * wr, "aux_tasks": int64(0),
		"best_x": int64(0), "best_t": 0.0, "decisions": int64(out.Decisions), "sched_wall_ms": wall,
		"flow_bound": bound, "max_flow_to_bound": st.MaxFlow / bound,
		"mean_flow_bound": meanBound, "mean_flow_to_bound": st.MeanFlow / meanBound,
	}}
	for k, v := range Runtimes(out.Start, out.End) {
		res.Metrics[k] = v
	}
	for k, v := range Fairness(rel, size, out.End) {
		res.Metrics[k] = v
	}
	setFloor(res.Metrics, Floor(tasks), st.MaxFlow)
	node, part := make([]int64, nt), make([]int64, nt)
	for i := range node {
		node[i] = -1
	}
	res.Tables = tables(p, rel, size, out.Start, out.End, intsOf(out.Procs), node, part)
	return res, nil
}

// checkMoldSize refuses, before anything is allocated, a moldable
// instance of n tasks on P processors whose runtimes (one per task and
// processor count) would not fit in a worker's memory: no single
// parameter's maximum bounds their product.
func checkMoldSize(n, P int) error {
	if cells := int64(n) * int64(P); cells > MaxMoldableCells {
		return fmt.Errorf("moldable tasks: n_tasks × m = %d × %d = %d runtimes, over the maximum of %d (about 13 bytes each in a worker's memory); lower n_tasks or m",
			n, P, cells, MaxMoldableCells)
	}
	return nil
}

// setFloor records the SpeedupFloor of the instance as metrics, with the
// schedule's maximum flow time over the step flow floor.
func setFloor(m map[string]any, f SpeedupFloor, maxFlow float64) {
	m["stretch_floor"], m["step_stretch_floor"], m["first_step_median"] = f.Stretch, f.StepStretch, int64(f.StepMedian)
	m["step_below_11"], m["speedup_below_10"] = f.StepBelow11, f.SpeedupBelow10
	m["step_flow_floor"], m["max_flow_to_step_floor"] = f.StepFlow, maxFlow/f.StepFlow
}

// WorkRatio is the processor time out uses, Σ n_i·(C_i − σ_i), over the
// sequential work Σ p_{i,1} (size): 1 when every task runs on one processor,
// above 1 by the parallel overhead of the allocations. The machine keeps up
// with arrivals only while realised_load × work_ratio stays below P.
func WorkRatio(size []float64, out *MoldOutcome) float64 {
	var used, seq float64
	for i, s := range size {
		used += float64(out.Procs[i]) * (out.End[i] - out.Start[i])
		seq += s
	}
	return used / seq
}

// Runtimes returns mean_runtime and max_runtime: the average and the
// largest C_i − σ_i, the time the tasks run on their allocations. A
// schedule's mean_flow and max_flow are at least these, whatever the waits.
func Runtimes(start, end []float64) map[string]any {
	sum, hi := 0.0, 0.0
	for i := range start {
		d := end[i] - start[i]
		sum += d
		hi = math.Max(hi, d)
	}
	return map[string]any{"mean_runtime": sum / float64(len(start)), "max_runtime": hi}
}

// MeanProcs is the average number of processors a task runs on.
func MeanProcs(procs []int) float64 {
	sum := 0
	for _, n := range procs {
		sum += n
	}
	return float64(sum) / float64(len(procs))
}

// dbosEps is MoldConfig.BisectEps for the parameters: dbos_eps under
// dbos_search: bisect, 0 (the bound search) otherwise.
func dbosEps(p simcore.Params) float64 {
	if p.String("dbos_search") == "bisect" {
		return p.Float("dbos_eps")
	}
	return 0
}
