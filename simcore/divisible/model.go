package divisible

import (
	"context"
	"fmt"

	"schedfarm/simcore"
	"schedfarm/simcore/rng"
)

// Model is the divisible-load model of lin2007. The zero value is ready.
type Model struct{}

// New returns the divisible-load model.
func New() *Model { return &Model{} }

// Name implements simcore.Model.
func (*Model) Name() string { return "divisible" }

// Version implements simcore.Model.
func (*Model) Version() string { return "3" }

// Doc implements simcore.Model.
func (*Model) Doc() string {
	return "real-time divisible loads on a cluster with inserted idle times (Lin, Lu, Deogun, Goddard 2007; lin2007)"
}

// Schema implements simcore.Model.
func (*Model) Schema() simcore.Schema {
	pos := simcore.Bound(1e-9)
	return simcore.Schema{
		Params: []simcore.Param{
			{Name: "algorithm", Kind: simcore.String, Enum: AlgorithmNames(), Default: "EDF-DLT", Algorithm: true,
				Doc: "policy (EDF, FIFO) × partitioning (DLT with IITs, USERSPLIT, OPR-MN, OPR-AN), lin2007 §4–5"},
			{Name: "load", Kind: simcore.Float, Min: pos, Max: simcore.Bound(100), Default: 0.5,
				Doc: "SystemLoad = E(Avgσ, N)·λ (lin2007 §5)"},
			{Name: "dc_ratio", Kind: simcore.Float, Min: simcore.Bound(1), Default: 2.0,
				Doc: "DCRatio: mean relative deadline over E(Avgσ, N) (lin2007 §5)"},
			{Name: "n_nodes", Kind: simcore.Int, Unit: "nodes", Min: simcore.Bound(1), Max: simcore.Bound(4096), Default: int64(16),
				Doc: "N, processing nodes in the cluster (not 'n': the results reserve it for the replicate count)"},
			{Name: "cms", Kind: simcore.Float, Unit: "time units per data unit", Min: pos, Default: 1.0,
				Doc: "Cms, time to transmit a unit of data from the head node"},
			{Name: "cps", Kind: simcore.Float, Unit: "time units per data unit", Min: pos, Default: 100.0,
				Doc: "Cps, time to compute a unit of data on one node"},
			{Name: "avg_sigma", Kind: simcore.Float, Unit: "data units", Min: pos, Default: 200.0,
				Doc: "Avgσ, mean task data size"},
			{Name: "total_time", Kind: simcore.Float, Unit: "time units", Min: pos, Max: simcore.Bound(1e12), Default: 10_000_000.0,
				Doc: "TotalSimulationTime: tasks arrive in [0, total_time)"},
			{Name: "sigma_dist", Kind: simcore.String, Enum: []string{"normal", "uniform"}, Default: "normal",
				Doc: "normal: σ ~ Normal(Avgσ, Avgσ) redrawn while <= 0 (paper); uniform: Uniform{1..2Avgσ−1} (authors' code)"},
			{Name: "deadline_rule", Kind: simcore.String, Enum: []string{"average", "per_task"}, Default: "average",
				Doc: "average: D ~ U[AvgD/2, 3AvgD/2], AvgD = DCRatio·E(Avgσ,N) (paper); per_task: centred on DCRatio·E(σ_i,N) (code)"},
			{Name: "planning", Kind: simcore.String, Enum: []string{"point_scan", "per_task"}, Default: "point_scan", Algorithm: true,
				Doc: "point_scan: every waiting task tried at each availability point (authors' code); per_task: Fig. 2 literally"},
			{Name: "user_split", Kind: simcore.String, Enum: []string{"paper", "code"}, Default: "paper", Algorithm: true,
				Doc: "paper: N_min = ⌈σCps/(D−σCms)⌉, n in [N_min, N]; code: denominator −Cps, n in [N_min, N−1]"},
			{Name: "node_release", Kind: simcore.String, Enum: []string{"estimate", "actual", "rtgrid"}, Default: "estimate", Algorithm: true,
				Doc: "a node returns to the scheduler at the task's estimated completion (Fig. 2, Thm. 4), at its actual finish, or, for DLT tasks with an IIT, at r_n (rtgrid's SchMN_IIT stores the duration Ê as end time: a code defect, not a reading)"},
			{Name: "integer_time", Kind: simcore.Bool, Default: false, Algorithm: true,
				Doc: "round as the authors' simulator: integer arrivals, σ and D; E, Ê, Cps_i and User-Split piece times rounded up"},
			simcore.Output("task_table", "output option: emit the per-task table 'tasks'"),
			simcore.Output("schedule", "output option: emit the executed schedule as the table 'schedule' (one row per sub-task)"),
		},
		Metrics: []simcore.Column{
			simcore.FloatColumn("reject_ratio", "", "Task Reject Ratio: rejected / arrivals (lin2007 §5)"),
			simcore.IntColumn("arrivals", "tasks", "tasks that arrived"),
			simcore.IntColumn("accepted", "tasks", "tasks admitted by the schedulability test"),
			simcore.FloatColumn("mean_nodes", "nodes", "mean number of nodes per accepted task"),
			simcore.FloatColumn("iit_share", "", "tasks dispatched with an inserted idle time (nodes' reserved starts differ, r_1 < r_n; never for OPR) / arrivals"),
			simcore.FloatColumn("utilisation", "", "node-time spent receiving or computing over N·max(total_time, last finish)"),
			simcore.FloatColumn("reserved_utilisation", "", "node-time reserved (incl. idle waits) over N·max(total_time, last finish)"),
			simcore.FloatColumn("mean_estimate_slack", "time units", "mean over accepted tasks of estimated − actual completion"),
			simcore.FloatColumn("mean_exec_time", "time units", "mean over accepted tasks of the task execution time as lin2007 counts it: actual completion − r_n, the available time of the last of its nodes, the task's start time of Eq. 7 (C(n) = r_n + Ê); E(σ, n) for OPR, at most Ê for DLT"),
			simcore.IntColumn("deadline_misses", "tasks", "accepted tasks that finished late (must be 0)"),
			simcore.IntColumn("thm4_violations", "nodes", "DLT nodes that finished after the estimate (Theorem 4; must be 0)"),
		},
		Tables: []simcore.Table{
			{Name: "tasks", Doc: "one row per arrived task", Columns: []simcore.Column{
				simcore.IntColumn("task", "", "task ID (arrival order)"),
				simcore.FloatColumn("arrival", "time units", "A"),
				simcore.FloatColumn("sigma", "data units", "σ"),
				simcore.FloatColumn("deadline", "time units", "absolute deadline A + D"),
				simcore.BoolColumn("admitted", "accepted by the schedulability test"),
				simcore.IntColumn("nodes", "nodes", "nodes used (0 if rejected)"),
				simcore.FloatColumn("est_completion", "time units", "estimated completion (−1 if rejected)"),
				simcore.FloatColumn("act_completion", "time units", "actual completion (−1 if rejected)"),
			}},
			{Name: "schedule", Doc: "the executed schedule, one row per sub-task (chunk on one node)", Columns: []simcore.Column{
				simcore.IntColumn("task", "", "task ID"),
				simcore.IntColumn("part", "", "chunk index (transmission order)"),
				simcore.IntColumn("node", "", "processing node, 0..N−1"),
				simcore.FloatColumn("arrival", "time units", "task arrival (release)"),
				simcore.FloatColumn("deadline", "time units", "absolute deadline"),
				simcore.FloatColumn("alpha", "", "fraction of σ in this chunk"),
				simcore.FloatColumn("reserved_from", "time units", "r_i, the node's planned availability"),
				simcore.FloatColumn("start", "time units", "transmission start"),
				simcore.FloatColumn("tx_end", "time units", "transmission end"),
				simcore.FloatColumn("end", "time units", "computation end"),
				simcore.FloatColumn("reserved_until", "time units", "node handed back to the scheduler"),
			}},
		},
	}
}

// Config is a fully decoded parameter set.
type Config struct {
	Cluster   Cluster
	Workload  Workload
	Algorithm Algorithm
	Options   Options
	TaskTable bool
	Schedule  bool
}

// Decode reads a completed parameter set.
func Decode(p simcore.Params) (Config, error) {
	alg, err := ParseAlgorithm(p.String("algorithm"))
	if err != nil {
		return Config{}, err
	}
	return Config{
		Cluster: Cluster{N: int(p.Int("n_nodes")), Cms: p.Float("cms"), Cps: p.Float("cps")},
		Workload: Workload{Load: p.Float("load"), AvgSigma: p.Float("avg_sigma"), DCRatio: p.Float("dc_ratio"),
			TotalTime: p.Float("total_time"), SigmaDist: p.String("sigma_dist"), Deadlines: p.String("deadline_rule"),
			Integer: p.Bool("integer_time")},
		Algorithm: alg,
		Options: Options{PerTask: p.String("planning") == "per_task", SplitCode: p.String("user_split") == "code",
			ReleaseActual: p.String("node_release") == "actual", ReleaseRtgrid: p.String("node_release") == "rtgrid",
			IntegerTime: p.Bool("integer_time")},
		TaskTable: p.Bool("task_table"),
		Schedule:  p.Bool("schedule"),
	}, nil
}

// maxTasks bounds the workload of one run (memory).
const maxTasks = 20_000_000

// Run implements simcore.Model.
func (*Model) Run(ctx context.Context, p simcore.Params, seed uint64) (*simcore.Result, error) {
	cfg, err := Decode(p)
	if err != nil {
		return nil, err
	}
	c, w := cfg.Cluster, cfg.Workload
	if n := w.TotalTime * w.Load / c.E(w.AvgSigma, c.N); n > maxTasks {
		return nil, fmt.Errorf("divisible: about %.0f tasks per run, above the limit %d: lower total_time or load", n, maxTasks)
	}
	tasks := Generate(c, w, rng.New(seed))
	run, err := Simulate(ctx, c, cfg.Algorithm, cfg.Options, tasks, cfg.Schedule)
	if err != nil {
		return nil, err
	}
	return result(cfg, tasks, run), nil
}

func result(cfg Config, tasks []Task, run *Run) *simcore.Result {
	accepted, nodes, iit := 0, 0, 0
	slack, exec := 0.0, 0.0
	for _, o := range run.Outcomes {
		if o.Accepted {
			accepted++
			nodes += o.Nodes
			slack += o.Est - o.Act
			exec += o.Act - o.Start
			if o.IIT {
				iit++
			}
		}
	}
	ratio, meanNodes, meanSlack, iitShare, meanExec := 0.0, 0.0, 0.0, 0.0, 0.0
	if len(tasks) > 0 {
		ratio = float64(len(tasks)-accepted) / float64(len(tasks))
		iitShare = float64(iit) / float64(len(tasks))
	}
	if accepted > 0 {
		meanNodes = float64(nodes) / float64(accepted)
		meanSlack = slack / float64(accepted)
		meanExec = exec / float64(accepted)
	}
	horizon := max(cfg.Workload.TotalTime, run.LastFinish) * float64(cfg.Cluster.N)
	res := &simcore.Result{Metrics: map[string]any{
		"reject_ratio":         ratio,
		"arrivals":             int64(len(tasks)),
		"accepted":             int64(accepted),
		"mean_nodes":           meanNodes,
		"iit_share":            iitShare,
		"utilisation":          run.Work / horizon,
		"reserved_utilisation": run.Reserved / horizon,
		"mean_estimate_slack":  meanSlack,
		"mean_exec_time":       meanExec,
		"deadline_misses":      int64(run.DeadlineMisses),
		"thm4_violations":      int64(run.Thm4Violations),
	}}
	if cfg.TaskTable || cfg.Schedule {
		res.Tables = map[string]*simcore.TableData{}
	}
	if cfg.TaskTable {
		n := len(tasks)
		id, nd := make([]int64, n), make([]int64, n)
		arr, sig, dl, est, act := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
		acc := make([]bool, n)
		for i, t := range tasks {
			o := run.Outcomes[i]
			id[i], arr[i], sig[i], dl[i], acc[i], nd[i] = int64(t.ID), t.A, t.Sigma, t.Deadline(), o.Accepted, int64(o.Nodes)
			est[i], act[i] = -1, -1
			if o.Accepted {
				est[i], act[i] = o.Est, o.Act
			}
		}
		res.Tables["tasks"] = &simcore.TableData{Columns: map[string]any{"task": id, "arrival": arr, "sigma": sig,
			"deadline": dl, "admitted": acc, "nodes": nd, "est_completion": est, "act_completion": act}}
	}
	if cfg.Schedule {
		n := len(run.Pieces)
		task, part, node := make([]int64, n), make([]int64, n), make([]int64, n)
		cols := make([][]float64, 8)
		for k := range cols {
			cols[k] = make([]float64, n)
		}
		for i, pc := range run.Pieces {
			t := tasks[pc.Task]
			task[i], part[i], node[i] = int64(pc.Task), int64(pc.Part), int64(pc.Node)
			for k, v := range []float64{t.A, t.Deadline(), pc.Alpha, pc.ReservedFrom, pc.Start, pc.TxEnd, pc.End, pc.ReservedUntil} {
				cols[k][i] = v
			}
		}
		res.Tables["schedule"] = &simcore.TableData{Columns: map[string]any{"task": task, "part": part, "node": node,
			"arrival": cols[0], "deadline": cols[1], "alpha": cols[2], "reserved_from": cols[3], "start": cols[4],
			"tx_end": cols[5], "end": cols[6], "reserved_until": cols[7]}}
	}
	return res
}
