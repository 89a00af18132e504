// Package decl reads what a sweep file declares about its results: the
// figures:, claims:, calibrated:, sensitivity: and verify: keys of each
// sweep, and the claim register (CLAIMS.md) of a config folder: a paper's
// (configs/<paper>/, each entry quoting the paper) or a study's
// (configs/studies/<name>/, each entry naming its source).
//
//	sweep file ─► package sweep (YAML kept raw, sweep.Nodes) ─► Parse ─► Decls
//	                                                              │    Figures ─► figure, report
//	                        the model's schema: columns, units ───┘    Claims ──► claims, report
//	                                                                   Verify ──► verify
//	CLAIMS.md ─► FolderKind(dir).Parse ─► Register.Check(FolderClaims) ◄── every sweep of the folder
//	configs/ ─► ConfigLayout.Check: the papers' folders, the studies, the folders without claims
//
// It owns validation (file:line:col errors with did-you-mean hints, every
// problem at once) and the declarations' types; it walks the YAML with
// sweep.Nodes' helpers (mappings, lists, scalars, merge keys). Drawing, deciding and comparing are the packages
// that consume the declarations.
//
// A sweep's figures:, claims: and verify: keys (kept raw by package sweep)
// are validated by Parse against the model's schema: every column
// named must exist in the table named, with file:line:col errors and
// did-you-mean hints (sweep.Error); `schedfarm validate` and every command
// loading a sweep file report them before anything is published. Keys
// starting with "x-" are ignored; YAML anchors and merge keys work.
//
//	figures:
//	  - id: value-by-size         # required; names figures/<id>.png, .svg and .pdf
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
//	    width: 4, height: 3       # one panel, inches (the default; PNG at 200 dpi)
//
// (package figure draws the kinds)
//
//	claims:
//	  - id: dlt-beats-mn                  # default claim-<n>
//	    source: "Section 5.1, Fig. 3"
//	    text: "DLT rejects fewer tasks than OPR-MN at every load"
//	    compare: {metric: reject_ratio, series: algorithm, a: EDF-DLT, b: EDF-OPR-MN,
//	              op: lower, over: every_point,   # lower | higher; every_point | mean | "share >= 0.9" (or 90%)
//	              paired: false,                  # true: decide on paired differences from jobs.parquet
//	              ratio: 0.75}                    # optional: A against 0.75 × B ("more than 25% lower")
//	  - compare: {metric: awrt, series: order, a: gareygraham, b: psrs,
//	              a_where: {executor: list}, b_where: {executor: easy}}  # each side's own cell
//	  - monotone: {metric: value, in: size, direction: increasing, series: variant, strict: false}
//	  - converge: {metric: reject_ratio, series: algorithm, a: X, b: Y, as: dc_ratio, eps: 0.01}
//	  - published: {metric: value, where: {size: 3}, value: 3.0, tol: 0.5}
//	  - published: {metric: value_max, below: 1800}  # or above:, or both: a bound, not a value
//	  - published: {metric: value_median, spread: variant, value: 0.4, tol: 0.04}  # mean |Δ| between two variants
//	  - id: gap
//	    explained_by: {sweep: alt.yaml, claim: gap-alt, reading: "the alternative reading"}
//	                  # or {sweep: why.yaml, claim: bound, why_not: "what the bound shows"}
//	    published: {metric: value, value: 0, tol: 0.5, precision: 0.25}
//	calibrated:
//	  noise: {against: [claim-id, other-*], why: "how the value was chosen"}
//	sensitivity: "the alternative reading this sweep runs"
//
// A claim's explained_by (Explanation) names a sweep file of the same
// folder and a claim it declares that passes under an alternative reading
// of the paper (reading), or that shows why the statement cannot hold in
// the model (why_not); CheckExplanations checks that it exists. precision
// (published with value) is the paper's own precision, the scoreboard's
// tolerance for that number. A sweep's calibrated: (Calibration) lists
// parameters whose value was chosen to reproduce some of its claims: those
// claims are calibration, not reproductions (BuildScoreboard). A sweep's
// sensitivity: says which alternative reading it runs: its claims are
// sensitivity, neither reproductions nor failures.
//
//	verify:
//	  tolerances:             # per metric (or extra-table column)
//	    value: 1e-9           # absolute
//	    makespan: {abs: 0, rel: 1e-6}
package decl
