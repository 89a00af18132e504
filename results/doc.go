// Package results is schedfarm's Parquet layer: the layout of result files,
// the encoding of the parts workers flush, the collector that merges the
// parts of a run into one folder per sweep, the per-point summary, and a
// small reader for figures and checks.
//
// # Folder layout
//
// The collector writes one folder per sweep and run:
//
//	results/<sweep-name>/<run-id>/
//	    jobs.parquet      one row per job of the sweep (with a result or a failure)
//	    <table>.parquet   one file per extra table the model declares (possibly empty)
//	    summary.parquet   one row per point
//	    summary.csv       the same as CSV
//
// The folder is written under a temporary name next to it and renamed into
// place, so a reader never sees half a run. Every file is Parquet with zstd
// compression, row groups of at most 65,536 rows, dictionary encoding for
// string columns (except job_id, all distinct, which is PLAIN), flat
// columns only (no JSON, maps or lists). Rows are sorted by job_index; extra-table rows by job_index, then
// in the order the model emitted them.
//
// # jobs.parquet
//
// Fixed columns, in order (REQUIRED unless marked nullable):
//
//	run_id         string
//	job_id         string     UUID text (sweep.Job.ID)
//	job_index      int64      position in the sweep's expansion order
//	sweep          string
//	model          string
//	model_version  string
//	replicate      int64
//	seed           uint64     INT64 annotated INT(64, unsigned): Arrow/pandas uint64,
//	                          polars UInt64, DuckDB UBIGINT
//	worker         string     empty when the job never reported (coordinator failure)
//	started_at     timestamp  INT64 TIMESTAMP(MILLIS, UTC); nullable
//	duration_ms    float64    wall-clock time of the run; nullable
//	status         string     "ok" or "failed"
//	error          string     empty when ok
//	attempts       int64      deliveries seen (largest of worker and coordinator counts)
//	cpu_ms         float64    CPU time of the run on its thread (Linux's thread clock);
//	                          nullable: null where not measured
//
// then one REQUIRED column per model parameter, named after it and typed by
// its kind (int → int64, float → float64, string → string, bool → bool), in
// the schema's declaration order; then one nullable column per metric
// (null for failed jobs). Jobs with neither a result nor a failure record
// have no row (Collected reports them as missing).
//
// # <table>.parquet
//
// job_id, job_index, replicate, seed, then every parameter column, then the
// table's declared columns (REQUIRED). Extra tables carry no run ID, worker
// or timing, so two runs of one sweep produce identical files.
//
// # summary.parquet and summary.csv
//
// One row per point, a point being a distinct combination of all parameter
// values (algorithm parameters included), ordered by the first job_index of
// the point. Columns: every parameter, n (ok jobs), n_failed, n_missing
// (int64), then for every Int or Float metric m the nullable float64
// columns m_mean, m_std (sample, n−1), m_ci95 (half-width
// t(0.975, n−1)·std/√n, Student's t from gonum), m_median, m_q1, m_q3
// (quantiles by linear interpolation, Hyndman–Fan type 7 as numpy's
// default), m_min, m_max. Statistics computed over the ok jobs only;
// undefined values (everything when n = 0; std and ci95 when n = 1) are
// null, and a NaN metric value makes its point's statistics NaN, written
// as null. String and bool metrics are not summarized. The CSV has a header
// row, CRLF line ends and RFC 4180 quoting; floats are written with
// strconv 'g' and the shortest precision that round-trips, nulls as empty
// fields. Identical input gives byte-identical files: summary.parquet,
// summary.csv and the extra tables of two runs of one sweep are identical
// when collected by the same build (the build's provenance is in their
// metadata; the run ID is not).
//
// # Key-value metadata
//
// Every Parquet file's footer carries:
//
//	schedfarm.sweep_file     the sweep file (YAML) text
//	schedfarm.sweep          the sweep's name
//	schedfarm.run_id         the run ID (jobs.parquet only)
//	schedfarm.version        schedfarm version of the collector ("unknown" if not known)
//	schedfarm.vcs_revision   VCS revision of the collector build
//	schedfarm.vcs_modified   "true"/"false": uncommitted changes at build time
//	schedfarm.go_version     Go toolchain version
//	schedfarm.model          model name
//	schedfarm.model_version  model version
//	schedfarm.measured_metrics  the model's Measured metrics (machine-dependent,
//	                         e.g. a scheduler's wall-clock time; comma-separated;
//	                         only when there are any): verify ignores them
//
// # Parts
//
// Workers flush buffered rows as parts: for part ID p, the object
// "p/jobs.parquet" (layout of jobs.parquet, rows in the worker's order) and
// "p/<table>.parquet" for each extra table that has rows (PartTableLayout:
// the extra table's layout without the parameter columns, which the
// collector fills in from the sweep; parts written before that carry them
// and still collect the same). Part objects carry
// run_id, model, model_version and the worker's provenance in their
// metadata (no sweep keys: a part may span sweeps of one model), and the
// jobs object lists the part's extra tables under schedfarm.part_tables.
// The farm stores the jobs object last; a part without one is ignored.
//
// When merging, each expected job takes exactly one result: an ok row
// before a failed one, among equals the part whose ID sorts first, and the
// first row within it; its extra-table rows come from that part only. A
// result matches a job by (job_id, seed). Parameter values are taken from
// the expected jobs, never from the parts. Parts of another model or model
// version are skipped.
//
// # Figures, claims and verify (sweep keys)
//
// A sweep's figures:, claims: and verify: keys (kept raw by package sweep)
// are validated by ParseDecls against the model's schema: every column
// named must exist in the table named, with file:line:col errors and
// did-you-mean hints (sweep.Error); `schedfarm validate` and every command
// loading a sweep file report them before anything is published. Keys
// starting with "x-" are ignored; YAML anchors and merge keys work.
//
//	figures:
//	  - id: value-by-size         # required; names figures/<id>.png and .svg
//	    kind: line                # line | scatter | box | cdf | hist | pareto
//	    title: "Value by size"    # default: the id
//	    table: summary            # summary (default for line, box, pareto) |
//	                              # jobs (default for scatter, cdf, hist) | an extra table
//	    x: size                   # a column of the table
//	    y: value                  # a column; in the summary a bare metric name is
//	                              # its mean (line: ± ci95 bars; box: min/q1/median/q3/max)
//	    series: variant           # one colour per value (optional)
//	    facet: noise              # one panel per value (optional)
//	    where: {fail: never, size: [1, 2, 5]}   # filters: value or list of values
//	    xscale: log               # linear (default) | log; yscale too
//	    xlabel: "...", ylabel: "..."  # default: the column name with its unit
//	    bins: 20                  # hist only; normalize: true plots fractions
//	    baseline: EDF-DLT         # pareto only (required): the reference series
//	    relative: ratio           # pareto: ratio (default) | diff
//	    legend: top-left          # top-right (default) | top-left | bottom-right | bottom-left | none
//	    width: 6, height: 4       # one panel, inches (PNG at 100 dpi)
//
// Kinds: line draws per series the value at each x — from the summary the
// metric's mean with its 95% CI as error bars, from a per-job table the
// mean and CI of the rows at each x; scatter one point per row; box one
// box-and-whiskers per x and series (min, quartiles, max; categorical x);
// cdf the empirical CDF of x per series; hist the counts (or fractions) of
// x in bins over the common range, as step outlines; pareto, for every
// series but the baseline, the point (x ÷ baseline's x, y ÷ baseline's y)
// at each point of the sweep (matched on every other parameter, and on the
// replicate in the jobs table), the non-dominated points (lower is better
// on both axes) linked by a dashed line. Each kind draws one legend entry
// per series. Facets are panels of one image, at most three per row, each
// width × height, sharing their axis ranges. A series value has the same colour in every figure of
// the file: values are numbered over the whole file (the series
// parameters' values over all its jobs, numbers in numeric order) and take
// Tableau's ten colours, then the same colours dashed.
//
//	claims:
//	  - id: dlt-beats-mn                  # default claim-<n>
//	    source: "Section 5.1, Fig. 3"
//	    text: "DLT rejects fewer tasks than OPR-MN at every load"
//	    compare: {metric: reject_ratio, series: algorithm, a: EDF-DLT, b: EDF-OPR-MN,
//	              op: lower, over: every_point,   # lower | higher; every_point | mean | "share >= 0.9" (or 90%)
//	              paired: false,                  # true: decide on paired differences from jobs.parquet
//	              ratio: 0.75}                    # optional: A against 0.75 × B ("more than 25% lower")
//	  - monotone: {metric: value, in: size, direction: increasing, series: variant, strict: false}
//	  - converge: {metric: reject_ratio, series: algorithm, a: X, b: Y, as: dc_ratio, eps: 0.01}
//	  - published: {metric: value, where: {size: 3}, value: 3.0, tol: 0.5}
//	  - published: {metric: value_max, below: 1800}  # or above:, or both: a bound, not a value
//	  - id: gap
//	    explained_by: {sweep: alt.yaml, claim: gap-alt, reading: "the alternative reading"}
//	    published: {metric: value, value: 0, tol: 0.5, precision: 0.25}
//	calibrated:
//	  noise: {against: [claim-id, other-*], why: "how the value was chosen"}
//	sensitivity: "the alternative reading this sweep runs"
//
// A claim's explained_by (Explanation) names a sweep file of the same
// folder and a claim it declares that passes under an alternative reading
// of the paper; CheckExplanations checks that it exists. precision
// (published with value) is the paper's own precision, the scoreboard's
// tolerance for that number. A sweep's calibrated: (Calibration) lists
// parameters whose value was chosen to reproduce some of its claims: those
// claims are calibration, not reproductions (BuildScoreboard). A sweep's
// sensitivity: says which alternative reading it runs: its claims are
// sensitivity, neither reproductions nor failures.
//
// Every claim has one of the four operators and an optional where:. Claims
// read the summary: metric is a bare metric (its mean, uncertain by its
// ci95; a null ci95 — one replicate — counts as 0, the value taken as
// exact) or any numeric summary column (value_median: no uncertainty).
// Points are matched on every parameter but series (and in/as). Verdicts:
//
//   - compare at a point: pass when the CIs separate the claimed way
//     (A.mean + A.ci95 < B.mean − B.ci95 for lower), fail when they
//     separate the other way, inconclusive when they overlap. every_point:
//     all pass → pass, any fail → fail, else inconclusive. share ≥ p: pass
//     when ⌈p·N⌉ points pass, fail when even the inconclusive ones could
//     not make it. mean: the paired differences A − B over the N points,
//     their mean ± t·sd/√N (N = 1: the two CIs combined in quadrature)
//     must lie below 0 (pass), above 0 (fail), or straddle it.
//   - compare with paired: true reads jobs.parquet rather than the summary
//     (metric must be a model metric): at each point, the differences A − B
//     of the ok replicates both series ran, matched by replicate and seed
//     (common random numbers: the same instance), their mean ± t·sd/√n
//     decides as above against 0; the aggregation is the same, and mean
//     averages the per-point mean differences.
//   - compare with ratio: r compares A with r × B. Unpaired, B's mean and
//     ci95 are scaled by r at each point. Paired, each instance gives the
//     ratio A/B instead of A − B, and their mean (per point, then over the
//     points for mean) is decided against r as the differences are against
//     0: the mean of per-scenario ratios a paper plots "relative to B".
//   - monotone, per series (group of the other parameters) sorted by in:
//     fail when a consecutive step separates the wrong way; pass when every
//     step of the mean goes the claimed way (or stays) and the first and
//     last points separate the claimed way (strict: every step separates);
//     else inconclusive. Groups aggregate as every_point.
//   - converge, per group: at the largest value of as, |A − B| with the
//     CIs combined in quadrature: |d| + ci < eps passes, |d| − ci > eps
//     fails, else inconclusive (the smallest as is reported alongside).
//   - published, per selected row: |mean − value| + ci ≤ tol passes,
//     |mean − value| − ci > tol fails, else inconclusive; no row → fail.
//     With above and/or below instead of value and tol: mean ± ci wholly
//     inside the bounds passes, wholly outside one of them fails, else
//     inconclusive.
//
// Every result carries the numbers that decided it (ClaimResult.Numbers,
// and per point in Points).
//
//	verify:
//	  tolerances:             # per metric (or extra-table column)
//	    value: 1e-9           # absolute
//	    makespan: {abs: 0, rel: 1e-6}
//
// # Reports
//
// WriteReport renders a collected sweep's figures into figures/<id>.png
// and .svg, evaluates its claims, and writes report.md, a self-contained
// report.html (figures as PNG data URIs, no external assets) and
// claims.json into the sweep's folder. Provenance comes from the Parquet
// metadata and run.json (RunInfo): schedfarm version and revision, Go
// version, model version, host, start and end, wall time (finished −
// created), model wall time (the sum of duration_ms), CPU time (the sum of cpu_ms), jobs ok/failed; failed jobs
// are listed with their errors (the first 500). The sweep file recorded in
// the metadata supplies the declarations, so a report can be rebuilt from
// the folder alone. Figures whose table is absent (a golden folder holds
// only summary.parquet) are listed as errors in the report.
//
// # Scoreboard
//
// A suite run's report (WriteSuiteReport) starts with a scoreboard, also
// written as scoreboard-<run>.json (BuildScoreboard): per paper (the
// sweeps of one config folder), the statements of the folder's CLAIMS.md
// (encoded / cannot check), the claims pass, fail explained (explained_by
// names a file whose sweep ran in the same run and whose claim passed),
// fail unexplained, inconclusive, calibration (named by a calibrated:
// of their sweep, whatever the verdict) and sensitivity (claims of a
// sensitivity: sweep), and the published cells within
// one rule: |ours − published| ≤ 10% of |published|, 10 points for a
// metric in % (0.1 for a metric in unit "share"), or the claim's precision.
//
// # Verification
//
// VerifyDirs compares a run with a golden run of the same sweep. When the
// golden has jobs.parquet, jobs are matched by job_id: the job sets must
// be identical and every column but run_id, worker, started_at,
// duration_ms, attempts and error equal. Otherwise summaries are matched
// by point (the parameter columns, those before n) and every other column
// compared. Floats must be bit-identical (null equals null, NaN equals
// NaN) when both files carry the same model version; across versions a
// column of a metric with a declared tolerance may differ by up to
// abs + rel·|golden| (summary columns m_mean, m_std, ... use metric m's).
// The result lists missing and extra rows and every difference (job or
// point, column, golden, got; the first MaxDiffs kept).
package results
