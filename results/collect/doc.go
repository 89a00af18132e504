// Package collect merges the parts of a run into one folder per sweep:
//
//	part objects (PartSource) ─┐
//	expected jobs, failures ───┼─► Collect ─► <dir>/jobs.parquet       one row per job
//	sweep file, provenance ────┘      │       <dir>/<table>.parquet    extra tables
//	  (Input)                         │       <dir>/summary.parquet    one row per point
//	                                  │       <dir>/summary.csv
//	                                  └─► Collected: counts, missing jobs
//
// It owns the merge (which row a job takes), the per-point summary and
// the folder's atomic publication; the file layouts, the part encoding and
// the statistics are package results'. The folder is written under a
// temporary name next to it and renamed into place, so a reader never
// sees half a run.
//
// When merging, each expected job takes exactly one result: an ok row
// before a failed one, among equals the part whose ID sorts first, and the
// first row within it; its extra-table rows come from that part only. A
// result matches a job by (job_id, seed). Parameter values are taken from
// the expected jobs, never from the parts. Parts of another model or model
// version are skipped.
package collect
