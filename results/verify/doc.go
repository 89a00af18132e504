// Package verify checks a run against a golden run of the same sweep:
//
//	golden <sweep>/<run>/ ─┐                        job by job (jobs.parquet)
//	                       ├─► Dirs ─► Frames ─► or point by point (summary) ─► Result:
//	run    <sweep>/<run>/ ─┘     ▲                                              missing, extra,
//	                             └─ decl: the sweep's verify: tolerances        differences
//
// It owns the comparison: which columns are volatile by design, bit
// identity within one model version and the declared tolerances across
// versions. `schedfarm verify` and scripts/nightly.sh use it on
// configs/golden/.
//
// Dirs compares a run with a golden run of the same sweep. When the
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
package verify
