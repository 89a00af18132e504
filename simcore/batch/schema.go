package batch

import (
	"schedfarm/simcore"
	"schedfarm/simcore/workload"
)

// Size limits: a job's memory grows with its jobs and nodes, and a job
// that runs out of memory crashes its worker (a Go process does not
// survive it), so sizes past what a worker can hold are refused when the
// sweep is checked, before anything runs. A job of the workload takes a
// few hundred bytes (10^7 jobs, the synthetic workload's scale target, about
// 2 GB) and a node of the machine up to about 60 (conservative
// backfilling: 10^7 nodes, about 600 MB).
const (
	MaxJobs  = 10_000_000
	MaxNodes = 10_000_000
)

var schema = simcore.Schema{
	Params: []simcore.Param{
		{Name: "workload", Kind: simcore.String, Enum: []string{"trace", "probabilistic", "probabilistic-marginal", "randomized", "synthetic"}, Default: "trace",
			Doc: "trace: the log itself (§6.1); probabilistic: Weibull arrivals + joint empirical bins (nodes × requested class × run class) fitted on the log (§6.2); " +
				"probabilistic-marginal: the same arrivals, each attribute from its own marginal bins (the other reading of §6.2); randomized: Table 2; " +
				"synthetic: the probabilistic model of the log (trace) drawn for a machine of nodes nodes: jobs (0: the log's count), sizes mapped by synth_sizes, arrivals scaled to synth_load"},
		{Name: "trace", Kind: simcore.String, Default: "traces/CTC-SP2-1996-3.1-cln.swf.gz",
			Doc: "SWF log, relative to the data directory (plain or gzip)"},
		{Name: "jobs", Kind: simcore.Int, Min: simcore.Bound(0), Max: simcore.Bound(MaxJobs), Default: int64(0),
			Doc: "trace: keep the first N jobs (0: all); probabilistic(-marginal), synthetic: jobs generated (0: the log's count); randomized: 0 means 50,000 (Table 1)"},
		{Name: "bin_values", Kind: simcore.String, Enum: []string{workload.BinValuesLogUniform, workload.BinValuesUniform, workload.BinValuesTrace}, Default: workload.BinValuesLogUniform,
			Doc: "probabilistic(-marginal), synthetic: how requested and run times are drawn inside a job's bin: loguniform or uniform inside the power-of-two class (run redrawn, then clamped, to stay within the request), or trace: the (requested, run) pair of one of the log's jobs in the bin (marginal bins: a requested and a run time of the log's jobs in their classes; a reading of Table 4's workload)"},
		{Name: "run_past_request", Kind: simcore.Bool, Default: false,
			Doc: "probabilistic(-marginal), synthetic: keep a drawn run time that exceeds the drawn request (the job runs past its estimate; §3 rule 2: such a job \"may be cancelled\") instead of redrawing and clamping it (a reading of Table 4's workload)"},
		{Name: "weibull_fit", Kind: simcore.String, Enum: []string{workload.WeibullMLE, workload.WeibullPlot}, Default: workload.WeibullMLE,
			Doc: "probabilistic(-marginal), synthetic: how the Weibull inter-arrival times are fitted to the log's gaps (§6.2 names no method): mle = maximum likelihood; plot = least squares on the Weibull probability plot, median ranks (a reading of Table 4's workload)"},
		{Name: "arrivals", Kind: simcore.String, Enum: []string{workload.ArrivalsFit, workload.ArrivalsLogSpan}, Default: workload.ArrivalsFit,
			Doc: "probabilistic(-marginal): fit: the Weibull inter-arrival times fitted on the log's gaps; log_span: the same draws stretched so the jobs span the log's time frame (§7: \"the number of jobs in the same time frame is significantly less\"; a reading of Table 4's workload)"},
		{Name: "synth_sizes", Kind: simcore.String, Enum: []string{workload.SizesFraction, workload.SizesNodes}, Default: workload.SizesFraction, Algorithm: true,
			Doc: "synthetic: fraction: a job takes the share of the machine its bin's size took of the source machine (size·nodes/synth_source_nodes, rounded, at least 1); nodes: as many nodes as in the log (more jobs at once on a larger machine); outside the instance seed"},
		{Name: "synth_load", Kind: simcore.Float, Min: simcore.Bound(0), Default: 0.0, Algorithm: true,
			Doc: "synthetic: offered load Σ m·p / (nodes · span) the submit times are scaled to (the fitted Weibull rhythm, its mean gap set by the load); 0: the source log's on its own machine; outside the instance seed"},
		{Name: "synth_source_nodes", Kind: simcore.Int, Unit: "nodes", Min: simcore.Bound(0), Default: int64(0), Algorithm: true,
			Doc: "synthetic: the source log's machine size; 0: the log header's MaxProcs, else MaxNodes, else its widest job; wider jobs of the log are dropped before the fit (too_wide); outside the instance seed"},
		{Name: "nodes", Kind: simcore.Int, Unit: "nodes", Min: simcore.Bound(1), Max: simcore.Bound(MaxNodes), Default: int64(256),
			Doc: "machine size m; jobs wider than the machine are dropped (§6.1); synthetic: the target machine"},
		{Name: "size_field", Kind: simcore.String, Enum: []string{"alloc", "requested", "requested_or_alloc"}, Default: "alloc",
			Doc: "job size from SWF field 5 (allocated), 8 (requested) or 8 falling back to 5; CTC's field 8 is -1 everywhere"},
		{Name: "cap_runtime", Kind: simcore.Bool, Default: true,
			Doc: "actual run time = min(run, requested): jobs are killed at their limit (§3 rule 2); counted in killed"},
		{Name: "estimate", Kind: simcore.String, Enum: []string{"requested", "max", "exact"}, Default: "requested",
			Doc: "run time the scheduler sees: requested (§5.4), max(requested, actual), or exact (Table 6)"},
		{Name: "invalid_jobs", Kind: simcore.String, Enum: []string{"repair", "drop"}, Default: "repair",
			Doc: "jobs with run time or size <= 0: repair into 1 s / 1 node jobs, or drop them"},
		{Name: "drop_failed", Kind: simcore.Bool, Default: false, Doc: "drop jobs with status 0 (failed) or 5 (cancelled)"},
		{Name: "lenient", Kind: simcore.Bool, Default: false, Doc: "skip (and count) malformed log lines instead of failing"},
		{Name: "order", Kind: simcore.String, Enum: Orders, Default: FCFS, Algorithm: true,
			Doc: "queue order (§5): FCFS, PSRS, SMART-FFIA, SMART-NFIW, GareyGraham (greedy list scheduling)"},
		{Name: "backfill", Kind: simcore.String, Enum: []string{"none", "easy", "conservative", "depth"}, Default: "none", Algorithm: true,
			Doc: "none = list scheduling (depth 0), easy = depth 1, conservative = every queued job holds a reservation, depth = use the depth parameter"},
		{Name: "depth", Kind: simcore.Int, Min: simcore.Bound(0), Default: int64(2), Algorithm: true,
			Doc: "reservation depth when backfill = depth: the first k queued jobs hold reservations"},
		{Name: "weighted", Kind: simcore.Bool, Default: false, Algorithm: true,
			Doc: "SMART and PSRS weigh jobs by m·p̂ (the weighted case of §4), else 1"},
		{Name: "smart_weight", Kind: simcore.String, Enum: []string{SmartWeightArea, SmartWeightUnit, SmartWeightSmith}, Default: SmartWeightArea, Algorithm: true,
			Doc: "weighted SMART's job weight: area = m·p̂ (§4); unit = 1; smith = the modified Smith ratio m·p/(m·p̂) = p/p̂ (§5.5), 1 with exact estimates (a sensitivity reading of Table 6)"},
		{Name: "recompute", Kind: simcore.String, Enum: []string{RecomputeNew, RecomputeDispatched, RecomputeAlways}, Default: RecomputeNew, Algorithm: true,
			Doc: "when SMART/PSRS recompute their order (the 2/3 rule of §5.4)"},
		{Name: "event_order", Kind: simcore.String, Enum: []string{"batch", "each"}, Default: "batch", Algorithm: true,
			Doc: "batch: at one instant all completions, then all arrivals, then one pass; each: one event at a time, arrivals before completions, a pass after each, a job whose estimate expires at the instant free from its first pass (jobs still running at their estimate are noticed before anything else)"},
		{Name: "compress_order", Kind: simcore.String, Enum: []string{"start", "arrival"}, Default: "start", Algorithm: true,
			Doc: "reservation depth > 1: start: after an early end, reservations re-fitted in order of their start; arrival: after every end, each queued job's reservation re-fitted in queue order (pyss's conservative scheduler)"},
		simcore.Output("schedule_table", "emit the schedule table (one row per job)"),
	},
	Metrics: []simcore.Column{
		simcore.IntColumn("n_jobs", "", "jobs simulated"),
		simcore.FloatColumn("offered_load", "", "the workload's Σ m·p / (nodes · span of submissions)"),
		simcore.FloatColumn("art", "s", "average response time Σ(C−r)/n"),
		simcore.FloatColumn("awrt", "node·s²", "average weighted response time Σ m·p·(C−r)/n"),
		simcore.FloatColumn("makespan", "s", "last completion − first submission"),
		simcore.FloatColumn("utilization", "", "Σ m·p / (nodes · makespan)"),
		simcore.FloatColumn("bsld", "", "average bounded slowdown, τ = 10 s"),
		simcore.FloatColumn("max_wait", "s", "longest wait"),
		simcore.FloatColumn("max_wait_wide", "s", "longest wait of jobs wider than half the machine (starvation)"),
		simcore.IntColumn("killed", "", "jobs whose run time exceeded their request (killed under cap_runtime)"),
		simcore.IntColumn("invalid", "", "log jobs with run time or size <= 0 (repaired or dropped)"),
		simcore.IntColumn("too_wide", "", "log jobs dropped for being wider than the machine"),
		simcore.IntColumn("rebuilds", "", "SMART/PSRS order recomputations"),
		simcore.IntColumn("overruns", "", "jobs that ran past their estimate"),
		simcore.WallMs("sched_wall_ms", "wall-clock time of the simulation (the scheduler's computation, Tables 7-8); measured, so verify ignores it"),
	},
	Tables: []simcore.Table{{Name: "schedule", Doc: "one row per job (schedule_table: true)", Columns: []simcore.Column{
		simcore.IntColumn("job", "", ""), simcore.FloatColumn("submit", "s", ""),
		simcore.FloatColumn("start", "s", ""), simcore.FloatColumn("end", "s", ""),
		simcore.IntColumn("width", "nodes", ""), simcore.FloatColumn("est_runtime", "s", ""),
	}}},
}
