package stretch

import (
	"context"
	"fmt"
	"math"
	"sort"

	"schedfarm/simcore"
	"schedfarm/simcore/workload"
)

// Model is the stretch model of saule2012.
type Model struct {
	// traces caches the logs, converted: parsing costs more than a short
	// run.
	traces *workload.TraceCache
}

// New returns the model; data is where the SDSC and OSC logs are opened
// (may be nil when only synthetic workloads are used).
func New(data simcore.DataDir) *Model {
	return &Model{traces: workload.NewTraceCache(data)}
}

// Trace files of the moldable workloads (saule2012 §7).
var traceFiles = map[string]string{
	"sdsc": "traces/SDSC-Par-1996-3.1-cln.swf.gz",
	"osc":  "traces/OSC-Clust-2000-3.1-cln.swf.gz",
}

// Name is the model's key in sweep files.
func (*Model) Name() string { return "stretch" }

// Version changes whenever a change can alter results.
func (*Model) Version() string { return "5" }

// Doc is a one-line description.
func (*Model) Doc() string {
	return "max stretch of online non-preemptive tasks: FCFS, DASEDF and the reservation scheme (sequential); DBOS, Iterative, SCOJO-P (moldable) (Saule, Bozdağ, Çatalyürek)"
}

// Schema is the model's parameters, metrics and tables.
func (*Model) Schema() simcore.Schema { return schema }

// DataFiles implements simcore.DataReader: moldable tasks drawn from a
// log (workload sdsc or osc) read it.
func (*Model) DataFiles(p simcore.Params) []simcore.DataFile {
	if p.String("problem") != "moldable" {
		return nil
	}
	if f, ok := traceFiles[p.String("workload")]; ok {
		return []simcore.DataFile{{Param: "workload", Name: f}}
	}
	return nil
}

// Run simulates one instance with one algorithm.
func (m *Model) Run(ctx context.Context, p simcore.Params, seed uint64) (*simcore.Result, error) {
	alg := p.String("algorithm")
	if p.String("problem") == "moldable" {
		if alg == DASEDF {
			return nil, fmt.Errorf("algorithm %s is for sequential tasks; with problem: moldable use %s, %s, %s, %s or %s", alg, DBOS, Iterative, ImprovedIter, SCOJOP, FCFSSeq)
		}
		return m.runMold(ctx, p, seed)
	}
	if alg != FCFS && alg != DASEDF {
		return nil, fmt.Errorf("algorithm %s is for moldable tasks; set problem: moldable, or use %s or %s", alg, FCFS, DASEDF)
	}
	return m.runSeq(ctx, p, seed)
}

func orDefault(v int64, def int) int {
	if v == 0 {
		return def
	}
	return int(v)
}

func (m *Model) runSeq(ctx context.Context, p simcore.Params, seed uint64) (*simcore.Result, error) {
	w := SeqWorkload{N: orDefault(p.Int("n_tasks"), 20000), A: p.Float("size_min"), Delta: p.Float("delta"),
		Load: p.Float("load"), LoadHi: p.Float("load_hi"), LoadMid: p.Float("load_mid"),
		ShareHi: p.Float("load_share_hi"), Exact: p.Bool("load_exact")}
	tasks, target, err := w.Generate(seed)
	if err != nil {
		return nil, err
	}
	procs := orDefault(p.Int("m"), 300)
	alg := p.String("algorithm")
	cfg := SeqConfig{M: procs, Algorithm: alg, Tol: p.Float("tol"), Check: p.String("dasedf_check"),
		KeepMax: p.String("dasedf_target") == "keep_max", Side: p.String("reservation_side")}
	trials := []Trial{{0, 0}}
	switch p.String("reservation") {
	case "fixed":
		x := int(p.Int("reservation_x"))
		if x < 1 || x >= procs {
			return nil, fmt.Errorf("reservation_x = %d: want 1..m-1 = 1..%d with reservation: fixed (or reservation: none)", x, procs-1)
		}
		trials = []Trial{{x, p.Float("reservation_t")}}
	case "best":
		grid := GridTFCFS
		if alg == DASEDF {
			grid = GridTEDF
		}
		trials = trials[:0]
		for _, x := range GridX {
			if x >= procs {
				continue
			}
			for _, t := range grid {
				trials = append(trials, Trial{x, t})
			}
		}
		if len(trials) == 0 {
			return nil, fmt.Errorf("reservation: best needs m > 1 (m = %d)", procs)
		}
	}
	rel, size := make([]float64, len(tasks)), make([]float64, len(tasks))
	for i, tk := range tasks {
		rel[i], size[i] = tk.Release, tk.Size
	}
	// The scheduling, timed on the caller's clock (sched_wall_ms only).
	var best *SeqOutcome
	var bi int
	wall, err := simcore.Timed(ctx, func() error {
		var err error
		best, bi, err = bestTrial(ctx, tasks, cfg, trials)
		return err
	})
	if err != nil {
		return nil, err
	}
	bestTrial := trials[bi]
	bestStats := Measure(rel, size, best.End)
	decisions := best.Decisions
	aux := 0
	for _, k := range best.Part {
		aux += k
	}
	lo, hi, meanSize := math.Inf(1), 0.0, 0.0
	for _, s := range size {
		lo, hi = math.Min(lo, s), math.Max(hi, s)
		meanSize += s / float64(len(size))
	}
	res := &simcore.Result{Metrics: map[string]any{
		"tasks_run": int64(len(tasks)), "max_stretch": bestStats.MaxStretch, "mean_stretch": bestStats.MeanStretch,
		"max_flow": bestStats.MaxFlow, "mean_flow": bestStats.MeanFlow, "realised_load": Load(tasks),
		"target_load": target, "realised_delta": hi / lo, "work_ratio": 1.0, "mean_procs": 1.0, "used_load": Load(tasks), "aux_tasks": int64(aux),
		"best_x": int64(bestTrial.X), "best_t": bestTrial.T, "decisions": int64(decisions), "sched_wall_ms": wall,
		"flow_bound": hi, "max_flow_to_bound": bestStats.MaxFlow / hi,
		"mean_flow_bound": meanSize, "mean_flow_to_bound": bestStats.MeanFlow / meanSize,
	}}
	for k, v := range Runtimes(best.Start, best.End) {
		res.Metrics[k] = v
	}
	for k, v := range Fairness(rel, size, best.End) {
		res.Metrics[k] = v
	}
	// A sequential task runs on one processor: its floor is its own size.
	setFloor(res.Metrics, SpeedupFloor{Stretch: 1, StepStretch: 1, StepFlow: hi, StepMedian: 1, StepBelow11: 1, SpeedupBelow10: 1}, bestStats.MaxFlow)
	procsCol := make([]int64, len(tasks))
	for i := range procsCol {
		procsCol[i] = 1
	}
	res.Tables = tables(p, rel, size, best.Start, best.End, procsCol, intsOf(best.Node), intsOf(best.Part))
	return res, nil
}

// Trial is one (X, T) of the reservation scheme; X = 0: no reservation.
type Trial struct {
	X int
	T float64
}

// bestTrial simulates the trials and returns the outcome of the one with
// the lowest max stretch, ties to the first in the given (grid) order, and
// its index.
//
// The trials are simulated in evalOrder (likely winners first, so the bound
// below is tight early), and a trial is abandoned (SeqConfig.Abandon) as
// soon as it can no longer win: once its max stretch reaches the best final
// one so far, or strictly exceeds it for a trial before the best one in
// grid order (that one would win the tie). Only the winner is sure to be
// simulated to the end; its outcome is the same as without abandoning, and
// the winner is the same as simulating the grid in order.
func bestTrial(ctx context.Context, tasks []Task, cfg SeqConfig, trials []Trial) (*SeqOutcome, int, error) {
	return bestTrialIn(ctx, tasks, cfg, trials, evalOrder(trials))
}

// bestTrialIn is bestTrial simulating the trials in the given order (a
// permutation of their indices); the result does not depend on it.
func bestTrialIn(ctx context.Context, tasks []Task, cfg SeqConfig, trials []Trial, order []int) (*SeqOutcome, int, error) {
	// No trial's max stretch is below floor, every task's stretch when
	// started at its release (C = fl(r + p) at the earliest; rounding is
	// monotone): once the best reaches it, only trials before it in grid
	// order can still win (by a tie), the others need not run at all.
	floor := 0.0
	for _, tk := range tasks {
		if s := (tk.Release + tk.Size - tk.Release) / tk.Size; s > floor {
			floor = s
		}
	}
	var best *SeqOutcome
	bi := -1
	for _, j := range order {
		if best != nil && best.MaxStretch <= floor && j > bi {
			continue
		}
		tr := trials[j]
		cfg.X, cfg.T, cfg.Abandon = tr.X, tr.T, 0
		if best != nil {
			cfg.Abandon = best.MaxStretch
			if j < bi {
				cfg.Abandon = math.Nextafter(best.MaxStretch, math.Inf(1)) // a tie would win: only > loses
			}
		}
		out, err := SimulateSeq(ctx, tasks, cfg)
		if err != nil {
			return nil, 0, err
		}
		if out.Abandoned {
			continue
		}
		if best == nil || out.MaxStretch < best.MaxStretch || out.MaxStretch == best.MaxStretch && j < bi {
			best, bi = out, j
		}
	}
	return best, bi, nil
}

// evalOrder is the order bestTrial simulates the trials in: the first of
// the grid first (at light loads every trial reaches the floor, and the
// first one wins the tie: no other needs to run), then the smallest
// threshold T first (at high loads the best (X, T) is nearly always at the
// grid's smallest T, saule2012's 1.2), the largest X first among equal T.
func evalOrder(trials []Trial) []int {
	order := make([]int, len(trials))
	for j := range order {
		order[j] = j
	}
	rest := order[1:]
	sort.SliceStable(rest, func(a, b int) bool {
		ta, tb := trials[rest[a]], trials[rest[b]]
		if ta.T != tb.T {
			return ta.T < tb.T
		}
		return ta.X > tb.X
	})
	return order
}

func intsOf(x []int) []int64 {
	out := make([]int64, len(x))
	for i, v := range x {
		out[i] = int64(v)
	}
	return out
}

// tables builds the optional schedule and tasks tables.
func tables(p simcore.Params, rel, size, start, end []float64, procs, node, part []int64) map[string]*simcore.TableData {
	n := len(rel)
	ids := make([]int64, n)
	for i := range ids {
		ids[i] = int64(i)
	}
	out := map[string]*simcore.TableData{}
	if p.Bool("schedule_table") {
		out["schedule"] = &simcore.TableData{Columns: map[string]any{
			"task": ids, "release": rel, "start": start, "end": end, "processors": procs, "node": node, "part": part,
		}}
	}
	if p.Bool("task_table") {
		st, lg, over := make([]float64, n), make([]float64, n), make([]bool, n)
		for i := range st {
			st[i] = (end[i] - rel[i]) / size[i]
			lg[i] = math.Log10(size[i])
			over[i] = st[i] > 1+1e-9
		}
		out["tasks"] = &simcore.TableData{Columns: map[string]any{
			"task": ids, "size": size, "release": rel, "start": start, "stretch": st, "log10_size": lg, "stretched": over,
		}}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
