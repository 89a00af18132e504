package stretch

import "schedfarm/simcore"

// Paper grids of the reservation scheme (saule2012 §4.1).
var (
	GridX     = []int{1, 2, 5, 10, 15, 20, 30}
	GridTFCFS = []float64{1.2, 1.5, 1.8, 2, 2.5, 3, 4, 6, 8, 10}
	GridTEDF  = []float64{1.2, 1.3, 1.4, 1.5, 1.6, 1.8, 2, 2.5, 3}
)

// Size limits: a job's memory grows with its tasks and processors, and a
// job that runs out of memory crashes its worker (a Go process does not
// survive it), so sizes past what a worker can hold are refused when the
// sweep is checked, before anything runs. A task takes about 100 bytes and
// a processor about 200 (sequential tasks: 10^7 tasks, 50 times §4.1's
// 20,000, take about 1 GB); a moldable instance holds a runtime for every
// task and processor count, about 13 bytes each, so there n_tasks × m is
// bounded too (MaxMoldableCells, about 1.3 GB; §7's 8,000 × 512 is 4·10^6).
const (
	MaxTasks         = 10_000_000
	MaxProcessors    = 1_000_000
	MaxMoldableCells = 100_000_000
)

var schema = simcore.Schema{
	Params: []simcore.Param{
		{Name: "problem", Kind: simcore.String, Enum: []string{"sequential", "moldable"}, Default: "sequential",
			Doc: "sequential tasks (§2-4) or moldable tasks (§5-7)"},
		{Name: "n_tasks", Kind: simcore.Int, Min: simcore.Bound(0), Max: simcore.Bound(MaxTasks), Default: int64(0),
			Doc: "tasks per instance; 0: the paper's 20,000 (sequential, §4.1) or 8,000 (moldable, §7)"},
		{Name: "m", Kind: simcore.Int, Unit: "processors", Min: simcore.Bound(0), Max: simcore.Bound(MaxProcessors), Default: int64(0),
			Doc: "processors; 0: the paper's 300 (sequential) or 512 (moldable)"},
		{Name: "delta", Kind: simcore.Float, Min: simcore.Bound(1), Default: 20.0,
			Doc: "Δ = b/a, sizes uniform on [a, b] (sequential, §4.1)"},
		{Name: "size_min", Kind: simcore.Float, Unit: "s", Min: simcore.Bound(1e-9), Default: 1.0,
			Doc: "a, the smallest size (sequential; stretch is scale-free, so only Δ matters)"},
		{Name: "load", Kind: simcore.Float, Min: simcore.Bound(1e-9), Default: 280.0,
			Doc: "target load Σp/(max r − min r) (§4); the realised load is the metric realised_load"},
		{Name: "load_hi", Kind: simcore.Float, Min: simcore.Bound(0), Default: 0.0,
			Doc: "if > load, each instance draws its target load uniformly in [load, load_hi] (a band of instances, Table 1(b))"},
		{Name: "load_mid", Kind: simcore.Float, Min: simcore.Bound(0), Default: 0.0, Algorithm: true,
			Doc: "if in (load, load_hi), the band is split: the target load is drawn in [load_mid, load_hi] with probability load_share_hi, else in [load, load_mid]; 0: one band"},
		{Name: "load_share_hi", Kind: simcore.Float, Min: simcore.Bound(0), Max: simcore.Bound(1), Default: 0.5, Algorithm: true,
			Doc: "share of the instances drawn in [load_mid, load_hi] (with load_mid)"},
		{Name: "load_exact", Kind: simcore.Bool, Default: false, Algorithm: true,
			Doc: "rescale the release times so that the realised load equals the target exactly (the gaps stay exponential): a band of target loads is then the paper's selection by load (§4.2, Table 1(b))"},
		{Name: "algorithm", Kind: simcore.String, Enum: []string{FCFS, DASEDF, DBOS, Iterative, ImprovedIter, SCOJOP}, Default: DASEDF, Algorithm: true,
			Doc: "sequential: FCFS (§3.1) or DASEDF (§3.2); moldable: DBOS (§6), Iterative, ImprovedIterative (§5.4), SCOJO-P (§5.5) or FCFS (one processor each, §7.2)"},
		{Name: "rho", Kind: simcore.Float, Min: simcore.Bound(1), Default: 1.5, Algorithm: true,
			Doc: "ρ, DBOS's online factor (Algorithm 2); 1 disables it"},
		{Name: "dbos_relax", Kind: simcore.String, Enum: []string{"target", "schedule"}, Default: "target", Algorithm: true,
			Doc: "what DBOS multiplies by ρ (Algorithm 2 line 3): target, the S of its binary search; schedule, the maximum stretch of the schedule at that S (\"Let S be the maximum stretch of (π*, σ*)\")"},
		{Name: "dbos_search", Kind: simcore.String, Enum: []string{"bound", "bisect"}, Default: "bound", Algorithm: true,
			Doc: "how DBOS searches the smallest feasible target S (Algorithm 2 line 2, §3.2's search): bound, from the lower bound of every waiting task started now on its fastest size, returned when feasible, else to the relative precision tol (the target is met exactly); bisect, §3.2's binary search between the trivial bounds (every waiting task completing now; the machine freed, then the waiting tasks one after another) until the bracket is at most dbos_eps wide, its feasible upper end taken (the target is met with a slack of up to dbos_eps)"},
		{Name: "dbos_eps", Kind: simcore.Float, Min: simcore.Bound(1e-9), Max: simcore.Bound(1), Default: 1e-3, Algorithm: true,
			Doc: "dbos_search: bisect: the absolute precision (in units of stretch) at which the bisection stops; the paper gives none"},
		{Name: "scojo_shrink", Kind: simcore.String, Enum: []string{"half", "any"}, Default: "half", Algorithm: true,
			Doc: "SCOJO-P (§5.5): the smaller sizes tried to start a task now go down to half its size (half) or to one processor (any)"},
		{Name: "scojo_load", Kind: simcore.String, Enum: []string{"demand", "busy"}, Default: "demand", Algorithm: true,
			Doc: "SCOJO-P (§5.5): the predicted load Û that scales n* by 0.95/Û is the demand over the task's span (running, queued and expected work per processor-second; may exceed 1) or the fraction of processors predicted busy, at most 1 (busy: \"the percentage of processors that will be busy during the span of the task's execution\")"},
		{Name: "scojo_size_at", Kind: simcore.String, Enum: []string{"arrival", "start"}, Default: "arrival", Algorithm: true,
			Doc: "SCOJO-P: a task's size is decided at its arrival and kept while it waits (arrival, §5.5's order of steps) or decided again at every event until it starts (start: its source, Barsanti & Sodan 2006, \"decides resource allocation, i.e. the number of processors, at job start time\")"},
		{Name: "improved_select", Kind: simcore.String, Enum: []string{"per_processor", "total"}, Default: "per_processor", Algorithm: true,
			Doc: "Improved Iterative (§5.4): the task grown next has the largest runtime cut per processor of its best step (per_processor) or the largest cut (total, \"the most reduction in its processing time\")"},
		{Name: "workload", Kind: simcore.String, Enum: []string{"sdsc", "osc", "ssm"}, Default: "sdsc",
			Doc: "moldable: the SDSC Par96 or OSC Cluster log with Downey's speedup model, or synthetic short-sequence-mapping tasks (§7)"},
		{Name: "ssm_scale", Kind: simcore.Float, Min: simcore.Bound(1e-6), Max: simcore.Bound(1), Default: 1.0, Algorithm: true,
			Doc: "ssm workload: multiplies the constants a, b, d, e of the runtime model of docs/models/stretch.md A4 (the index build and genome scan that x·y·z replicates, the start-up overhead; c is kept), so more tasks scale almost linearly before their first step (§7.2: \"a step around 11 or 13 processors\"); 1: its constants. Marked algorithm so that the instance seed stays the same"},
		{Name: "zero_run", Kind: simcore.Float, Unit: "s", Min: simcore.Bound(1e-3), Max: simcore.Bound(60), Default: 1.0, Algorithm: true,
			Doc: "moldable logs: the run time a zero-length log record counts as (1: the repair of docs/models/stretch.md A3; 0.1 gives the paper's sequential-time ratios of §7, 1.6e8 and 6.2e7)"},
		{Name: "reservation", Kind: simcore.String, Enum: []string{"none", "fixed", "best"}, Default: "none", Algorithm: true,
			Doc: "reservation scheme of §4: none; fixed (reservation_x, reservation_t); best = the (X, T) of the paper's grids with the lowest max stretch on the instance"},
		{Name: "reservation_x", Kind: simcore.Int, Unit: "processors", Min: simcore.Bound(0), Default: int64(10), Algorithm: true,
			Doc: "X, auxiliary processors (reservation: fixed)"},
		{Name: "reservation_t", Kind: simcore.Float, Min: simcore.Bound(0), Default: 2.0, Algorithm: true,
			Doc: "T, threshold on the main part's max stretch above which the auxiliary part is tried (reservation: fixed)"},
		{Name: "tol", Kind: simcore.Float, Min: simcore.Bound(1e-12), Max: simcore.Bound(0.5), Default: 1e-4, Algorithm: true,
			Doc: "relative precision of DASEDF's binary search on S (§3.2)"},
		{Name: "dasedf_check", Kind: simcore.String, Enum: []string{"lemma", "strict_prefix", "no_running"}, Default: "lemma", Algorithm: true,
			Doc: "DASEDF's feasibility check (§3.2): lemma, ∀i t + (R + Σ_{i'≤i} p)/m ≤ d_i with R the running work (the proof of Lemma 3.2, corrected for the running tasks as the paper says it can be); strict_prefix, Σ_{i'<i} as the cost paragraph writes it; no_running, R left out as in the proof"},
		{Name: "dasedf_target", Kind: simcore.String, Enum: []string{"instant", "keep_max"}, Default: "instant", Algorithm: true,
			Doc: "DASEDF's target stretch at each invocation: instant, the smallest S of the search (§3.2); keep_max, at least the largest stretch reached so far (the rule §4.2 contrasts DASEDF with)"},
		{Name: "reservation_side", Kind: simcore.String, Enum: []string{SidePlan, SideWithRunning, SideWhole}, Default: SidePlan, Algorithm: true,
			Doc: "what the reservation scheme (§4) compares with T and between the parts: plan, the max stretch of the part's plan of its waiting tasks plus the new one; with_running, also its running tasks' stretches; whole, also every task it started before (its whole schedule so far) (\"the maximum stretch in the resulting schedule\")"},
		simcore.Output("schedule_table", "emit the schedule table (one row per task)"),
		simcore.Output("task_table", "emit the tasks table (size, release, start, stretch per task: fairness histograms)"),
	},
	Metrics: []simcore.Column{
		simcore.IntColumn("tasks_run", "", "tasks simulated"),
		simcore.FloatColumn("max_stretch", "", "max_i (C_i − r_i)/p_i (§2.1; p_{i,1} for moldable tasks, §5)"),
		simcore.FloatColumn("mean_stretch", "", "average stretch"),
		simcore.FloatColumn("max_flow", "s", "max_i C_i − r_i"),
		simcore.FloatColumn("mean_flow", "s", "average flow time"),
		simcore.FloatColumn("flow_bound", "s", "max_i min_j p_{i,j}: the longest task's shortest runtime (p_i for sequential tasks), below which no schedule's max_flow can go"),
		simcore.FloatColumn("max_flow_to_bound", "", "max_flow / flow_bound (≥ 1; 1: the max flow is the longest task started at its release on its fastest size)"),
		simcore.FloatColumn("mean_flow_bound", "s", "mean_i min_j p_{i,j}: the tasks' average shortest runtime (the average p_i for sequential tasks), below which no schedule's mean_flow can go"),
		simcore.FloatColumn("mean_flow_to_bound", "", "mean_flow / mean_flow_bound (≥ 1; 1: every task started at its release on its fastest size)"),
		simcore.FloatColumn("mean_runtime", "s", "mean_i C_i − σ_i: the average time a task runs on its allocation (p_i for sequential tasks), below which the schedule's mean_flow cannot go"),
		simcore.FloatColumn("max_runtime", "s", "max_i C_i − σ_i: the longest time a task runs on its allocation, below which the schedule's max_flow cannot go"),
		simcore.FloatColumn("realised_load", "", "Σ p_i / (max r_i − min r_i) of the instance (§4; p_{i,1} for moldable)"),
		simcore.FloatColumn("target_load", "", "the target load the instance was drawn for"),
		simcore.FloatColumn("realised_delta", "", "max p / min p of the instance"),
		simcore.FloatColumn("mean_procs", "processors", "average number of processors a task runs on (1 for sequential tasks)"),
		simcore.FloatColumn("used_load", "", "the load the schedule puts on the machine: Σ n_i·(C_i − σ_i) / (max r − min r), realised_load × work_ratio; above the processor count the schedule cannot keep up with the arrivals over the instance's span"),
		simcore.FloatColumn("work_ratio", "", "processor time the schedule uses over the sequential work: Σ n_i·(C_i − σ_i) / Σ p_{i,1} (1 for sequential tasks; above 1, the parallel overhead the allocations add to the load)"),
		simcore.FloatColumn("stretch_floor", "", "mean over tasks of min_j p_{i,j}/p_{i,1}: each task started at its release on its fastest size, the lowest average stretch any schedule can have (1 for sequential tasks)"),
		simcore.FloatColumn("step_stretch_floor", "", "mean over tasks of p_{i,s}/p_{i,1}, s the task's first step (the smallest j with p_{i,j+1} ≥ p_{i,j}): the lowest average stretch of Iterative (§5.4), which never grows a task past it (1 for sequential tasks)"),
		simcore.FloatColumn("step_flow_floor", "s", "max over tasks of p_{i,s}, s the task's first step: the lowest maximum flow time of Iterative (§5.4), which never runs a task on more than s processors (the longest task's p_i for sequential tasks)"),
		simcore.FloatColumn("max_flow_to_step_floor", "", "max_flow / step_flow_floor (≥ 1 for Iterative; below 1: a maximum flow time Iterative cannot reach on the instance)"),
		simcore.IntColumn("first_step_median", "processors", "median over tasks of the first step s (§7.2: \"a step around 11 or 13 processors\"; 1 for sequential tasks)"),
		simcore.FloatColumn("step_below_11", "", "share of the tasks whose first step s is below 11 processors"),
		simcore.FloatColumn("speedup_below_10", "", "share of the tasks whose best speedup p_{i,1}/min_j p_{i,j} is below 10"),
		simcore.IntColumn("aux_tasks", "", "tasks sent to the auxiliary part (reservation scheme)"),
		simcore.IntColumn("best_x", "", "X of the reported run (0 without reservation)"),
		simcore.FloatColumn("best_t", "", "T of the reported run (0 without reservation)"),
		simcore.FloatColumn("stretched_seconds", "%", "fairness (Figs. 3(e)-5(e)): % of the tasks with p_{i,1} < 1 min whose stretch exceeds 1 (0 if there are none)"),
		simcore.FloatColumn("stretched_minutes", "%", "same, 1 min ≤ p_{i,1} < 1 h"),
		simcore.FloatColumn("stretched_hours", "%", "same, 1 h ≤ p_{i,1} < 1 day"),
		simcore.FloatColumn("stretched_days", "%", "same, 1 day ≤ p_{i,1} < 1 week"),
		simcore.FloatColumn("stretched_weeks", "%", "same, p_{i,1} ≥ 1 week"),
		simcore.IntColumn("decisions", "", "DASEDF binary searches (or DBOS invocations) performed in the reported run (under reservation: best, the winning (X, T) only: the other grid trials may be abandoned early)"),
		simcore.WallMs("sched_wall_ms", "wall-clock time of the simulation (all grid runs under reservation: best); measured, so verify ignores it"),
	},
	Tables: []simcore.Table{
		{Name: "schedule", Doc: "one row per task (schedule_table: true)", Columns: []simcore.Column{
			simcore.IntColumn("task", "", ""), simcore.FloatColumn("release", "s", ""),
			simcore.FloatColumn("start", "s", ""), simcore.FloatColumn("end", "s", ""),
			simcore.IntColumn("processors", "", ""), simcore.IntColumn("node", "", "processor (sequential); -1 for moldable tasks"),
			simcore.IntColumn("part", "", "0 main, 1 auxiliary (reservation scheme)"),
		}},
		{Name: "tasks", Doc: "one row per task (task_table: true)", Columns: []simcore.Column{
			simcore.IntColumn("task", "", ""), simcore.FloatColumn("size", "s", "p_i (p_{i,1} for moldable)"),
			simcore.FloatColumn("release", "s", ""), simcore.FloatColumn("start", "s", ""),
			simcore.FloatColumn("stretch", "", ""), simcore.FloatColumn("log10_size", "", "log10 of size, for histograms"),
			simcore.BoolColumn("stretched", "stretch > 1 (fairness study, Figs. 3(e)-5(e))"),
		}},
	},
}
