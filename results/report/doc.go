// Package report writes what people read of a run: per sweep, report.md,
// a self-contained report.html and claims.json beside the Parquet files;
// per suite run, one combined report that opens with the scoreboard.
//
//	<sweep>/<run>/ ──► Write ──► report.md, report.html, claims.json, figures/
//	 jobs, summary,     │ ▲
//	 run.json           │ ├── figure.Render: the declared figures
//	                    │ └── claims.Evaluate: the verdicts
//	                    ▼
//	 every sweep's Report, the folders' CLAIMS.md
//	                    │
//	                    ▼
//	               WriteSuite ──► report-<run>.md and .html, scoreboard-<run>.json
//
// It owns the report files, their provenance table and the scoreboard's
// statuses; figures are drawn by package figure, claims decided by package
// claims, and the declarations read by package decl.
//
// # Reports
//
// Write renders a collected sweep's figures into figures/<id>.png
// and .svg, evaluates its claims, and writes report.md, a self-contained
// report.html (figures as PNG data URIs, no external assets) and
// claims.json into the sweep's folder. Provenance comes from the Parquet
// metadata and run.json (RunInfo): schedfarm version and revision, Go
// version, model version, host, start and end, wall time (finished −
// created), model wall time (the sum of duration_ms), CPU time (the sum of cpu_ms), jobs ok/failed; failed jobs
// are listed with their errors (the first 500). The sweep file recorded in
// the metadata supplies the declarations, so a report can be rebuilt from
// the folder alone. Each claim also gets its scoreboard status (Classify,
// the classification BuildScoreboard counts, over the sweeps reported
// together): a failure explained by which reading, shown why not by which
// claim, or unexplained, saying what would explain it when the sweep its
// explained_by names is not among them; the sweeps of one run are
// evaluated first (Evaluate), classified together, then written
// (WriteFiles). Summarize gathers the run's claims for `--json`.
// Figures whose table is absent (a golden folder holds only
// summary.parquet) are listed as errors in the report. Text from the
// sweep file and the jobs is text in both: report.html escapes it as HTML,
// report.md writes "<" as "&lt;" (no raw HTML) and fences the sweep file
// with more backticks than any run of them in it.
//
// A verdict is a word (pass, fail, inconclusive), in HTML on its colour,
// never an emoji (Pictographs finds those): without an emoji font they
// render as empty boxes. Each table of the HTML reports sits in a box of
// its own that scrolls sideways, so a wide table (the scoreboard's
// fifteen columns) never makes the page wider than the window.
//
// # Scoreboard
//
// A suite run's report (WriteSuite) lists every claim with its verdict
// and its status (the same Statuses as the sweep's own report). It starts
// with a scoreboard, also
// written as scoreboard-<run>.json (BuildScoreboard): per paper (the
// sweeps of one config folder), the statements of the folder's CLAIMS.md
// (encoded / cannot check), the claims pass, fail explained (explained_by
// with a reading names a file whose sweep ran in the same run and whose
// claim passed), fail shown why not (the same with why_not: a passing
// claim shows why the statement cannot hold), fail unexplained, inconclusive, calibration (named by a calibrated:
// of their sweep, whatever the verdict) and sensitivity (claims of a
// sensitivity: sweep), and the published cells within
// one rule: |ours − published| ≤ 10% of |published|, 10 points for a
// metric in % (0.1 for a metric in unit "share"), or the claim's precision.
package report
