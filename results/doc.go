// Package results is schedfarm's Parquet layer: the layout of result
// files, the encoding of the parts workers flush, the reader that brings a
// table back as a Frame, the summary statistics, and the run record
// (run.json). Its subpackages do one job each on top of it:
//
//	sweep file ─► workers run jobs ─► EncodePart ─► part objects
//	                                                   │
//	                                  collect: merge the parts, summarize
//	                                                   ▼
//	            <sweep>/<run>/: jobs.parquet, <table>.parquet, summary.parquet
//	                                                   │ ReadTable → Frame
//	           ┌──────────────────┬────────────────────┼───────────────────┐
//	           ▼                  ▼                    ▼                   ▼
//	    decl: figures:,    claims: verdicts    figure: drawings    verify: against
//	    claims:, verify:          └─────────┬──────────┘           a golden run
//	                                        ▼
//	                   report: report.md and .html, suite, scoreboard
//
// results owns the boxes the others share: the file layouts (Layout,
// JobsLayout, SummaryLayout, TableLayout), the part objects (EncodePart,
// DecodePart, PartObjectName), the metadata keys and Provenance, the row
// writer (TableWriter, WriteFrame), the reader (ReadTable, Frame and its
// cells' labels), the summary statistics (Describe) and RunInfo. It imports
// none of its subpackages.
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
// fields; a text cell that starts with =, +, -, @, a tab or a carriage
// return, which a spreadsheet would read as a formula, gets a leading
// single quote (OWASP's CSV-injection rule). Identical input gives byte-identical files: summary.parquet,
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
package results
