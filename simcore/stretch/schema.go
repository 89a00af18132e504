package stretch

import "schedfarm/simcore"

// Paper grids of the reservation scheme (seed 003 §4.1).
var (
	GridX     = []int{1, 2, 5, 10, 15, 20, 30}
	GridTFCFS = []float64{1.2, 1.5, 1.8, 2, 2.5, 3, 4, 6, 8, 10}
	GridTEDF  = []float64{1.2, 1.3, 1.4, 1.5, 1.6, 1.8, 2, 2.5, 3}
)

var schema = simcore.Schema{
	Params: []simcore.Param{
		{Name: "problem", Kind: simcore.String, Enum: []string{"sequential", "moldable"}, Default: "sequential",
			Doc: "sequential tasks (§2-4) or moldable tasks (§5-7)"},
		{Name: "n_tasks", Kind: simcore.Int, Min: simcore.Bound(0), Default: int64(0),
			Doc: "tasks per instance; 0: the paper's 20,000 (sequential, §4.1) or 8,000 (moldable, §7)"},
		{Name: "m", Kind: simcore.Int, Unit: "processors", Min: simcore.Bound(0), Default: int64(0),
			Doc: "processors; 0: the paper's 300 (sequential) or 512 (moldable)"},
		{Name: "delta", Kind: simcore.Float, Min: simcore.Bound(1), Default: 20.0,
			Doc: "Δ = b/a, sizes uniform on [a, b] (sequential, §4.1)"},
		{Name: "size_min", Kind: simcore.Float, Unit: "s", Min: simcore.Bound(1e-9), Default: 1.0,
			Doc: "a, the smallest size (sequential; stretch is scale-free, so only Δ matters)"},
		{Name: "load", Kind: simcore.Float, Min: simcore.Bound(1e-9), Default: 280.0,
			Doc: "target load Σp/(max r − min r) (§4); the realised load is the metric realised_load"},
		{Name: "load_hi", Kind: simcore.Float, Min: simcore.Bound(0), Default: 0.0,
			Doc: "if > load, each instance draws its target load uniformly in [load, load_hi] (a band of instances, Table 1(b))"},
		{Name: "load_mid", Kind: simcore.Float, Min: simcore.Bound(0), Default: 0.0,
			Doc: "if in (load, load_hi), the band is split: the target load is drawn in [load_mid, load_hi] with probability load_share_hi, else in [load, load_mid]; 0: one band"},
		{Name: "load_share_hi", Kind: simcore.Float, Min: simcore.Bound(0), Max: simcore.Bound(1), Default: 0.5,
			Doc: "share of the instances drawn in [load_mid, load_hi] (with load_mid)"},
		{Name: "load_exact", Kind: simcore.Bool, Default: false,
			Doc: "rescale the release times so that the realised load equals the target exactly (the gaps stay exponential): a band of target loads is then the paper's selection by load (§4.2, Table 1(b))"},
		{Name: "algorithm", Kind: simcore.String, Enum: []string{FCFS, DASEDF, DBOS, Iterative, ImprovedIter, SCOJOP}, Default: DASEDF, Algorithm: true,
			Doc: "sequential: FCFS (§3.1) or DASEDF (§3.2); moldable: DBOS (§6), Iterative, ImprovedIterative (§5.4), SCOJO-P (§5.5) or FCFS (one processor each, §7.2)"},
		{Name: "rho", Kind: simcore.Float, Min: simcore.Bound(1), Default: 1.5, Algorithm: true,
			Doc: "ρ, DBOS's online factor (Algorithm 2); 1 disables it"},
		{Name: "workload", Kind: simcore.String, Enum: []string{"sdsc", "osc", "ssm"}, Default: "sdsc",
			Doc: "moldable: the SDSC Par96 or OSC Cluster log with Downey's speedup model, or synthetic short-sequence-mapping tasks (§7)"},
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
		{Name: "reservation_side", Kind: simcore.String, Enum: []string{"plan", "with_running"}, Default: "plan", Algorithm: true,
			Doc: "what the reservation scheme (§4) compares with T and between the parts: plan, the max stretch of the part's plan of its waiting tasks plus the new one; with_running, also its running tasks' stretches (\"the maximum stretch in the resulting schedule\")"},
		{Name: "schedule_table", Kind: simcore.Bool, Default: false, Algorithm: true,
			Doc: "emit the schedule table (one row per task)"},
		{Name: "task_table", Kind: simcore.Bool, Default: false, Algorithm: true,
			Doc: "emit the tasks table (size, release, start, stretch per task: fairness histograms)"},
	},
	Metrics: []simcore.Column{
		{Name: "tasks_run", Kind: simcore.Int, Doc: "tasks simulated"},
		{Name: "max_stretch", Kind: simcore.Float, Doc: "max_i (C_i − r_i)/p_i (§2.1; p_{i,1} for moldable tasks, §5)"},
		{Name: "mean_stretch", Kind: simcore.Float, Doc: "average stretch"},
		{Name: "max_flow", Kind: simcore.Float, Unit: "s", Doc: "max_i C_i − r_i"},
		{Name: "mean_flow", Kind: simcore.Float, Unit: "s", Doc: "average flow time"},
		{Name: "realised_load", Kind: simcore.Float, Doc: "Σ p_i / (max r_i − min r_i) of the instance (§4; p_{i,1} for moldable)"},
		{Name: "target_load", Kind: simcore.Float, Doc: "the target load the instance was drawn for"},
		{Name: "realised_delta", Kind: simcore.Float, Doc: "max p / min p of the instance"},
		{Name: "aux_tasks", Kind: simcore.Int, Doc: "tasks sent to the auxiliary part (reservation scheme)"},
		{Name: "best_x", Kind: simcore.Int, Doc: "X of the reported run (0 without reservation)"},
		{Name: "best_t", Kind: simcore.Float, Doc: "T of the reported run (0 without reservation)"},
		{Name: "stretched_seconds", Kind: simcore.Float, Unit: "%", Doc: "fairness (Figs. 3(e)-5(e)): % of the tasks with p_{i,1} < 1 min whose stretch exceeds 1 (0 if there are none)"},
		{Name: "stretched_minutes", Kind: simcore.Float, Unit: "%", Doc: "same, 1 min ≤ p_{i,1} < 1 h"},
		{Name: "stretched_hours", Kind: simcore.Float, Unit: "%", Doc: "same, 1 h ≤ p_{i,1} < 1 day"},
		{Name: "stretched_days", Kind: simcore.Float, Unit: "%", Doc: "same, 1 day ≤ p_{i,1} < 1 week"},
		{Name: "stretched_weeks", Kind: simcore.Float, Unit: "%", Doc: "same, p_{i,1} ≥ 1 week"},
		{Name: "decisions", Kind: simcore.Int, Doc: "DASEDF binary searches (or DBOS invocations) performed in the reported run (under reservation: best, the winning (X, T) only: the other grid trials may be abandoned early)"},
		{Name: "sched_wall_ms", Kind: simcore.Float, Unit: "ms", Measured: true,
			Doc: "wall-clock time of the simulation (all grid runs under reservation: best); measured, so verify ignores it"},
	},
	Tables: []simcore.Table{
		{Name: "schedule", Doc: "one row per task (schedule_table: true)", Columns: []simcore.Column{
			{Name: "task", Kind: simcore.Int}, {Name: "release", Kind: simcore.Float, Unit: "s"},
			{Name: "start", Kind: simcore.Float, Unit: "s"}, {Name: "end", Kind: simcore.Float, Unit: "s"},
			{Name: "processors", Kind: simcore.Int}, {Name: "node", Kind: simcore.Int, Doc: "processor (sequential); -1 for moldable tasks"},
			{Name: "part", Kind: simcore.Int, Doc: "0 main, 1 auxiliary (reservation scheme)"},
		}},
		{Name: "tasks", Doc: "one row per task (task_table: true)", Columns: []simcore.Column{
			{Name: "task", Kind: simcore.Int}, {Name: "size", Kind: simcore.Float, Unit: "s", Doc: "p_i (p_{i,1} for moldable)"},
			{Name: "release", Kind: simcore.Float, Unit: "s"}, {Name: "start", Kind: simcore.Float, Unit: "s"},
			{Name: "stretch", Kind: simcore.Float}, {Name: "log10_size", Kind: simcore.Float, Doc: "log10 of size, for histograms"},
			{Name: "stretched", Kind: simcore.Bool, Doc: "stretch > 1 (fairness study, Figs. 3(e)-5(e))"},
		}},
	},
}
