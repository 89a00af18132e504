// Package sweep reads sweep files, validates them against the models'
// parameter schemas, and expands them into jobs with stable IDs and seeds.
//
// The pipeline:
//
//	YAML text → yaml.Node tree (positions kept) → Parse: format, model,
//	  parameter names, every value, expressions, one-place rule → *File
//	*Sweep → Count (cheap) → Expand: points × replicates → []Job
//	  (params completed, derived values computed, exclusions applied,
//	  duplicate points refused, Index, ID = JobID, Seed = InstanceSeed)
//
// API: Load or Parse a file; Sweep.Count and Sweep.Expand or File.Expand
// (limit in jobs, checked before anything is built; ErrTooManyJobs);
// WriteTable and WriteJSON render jobs for `schedfarm expand`. Every
// problem is an *Error with FILE:LINE:COL, the key and a hint; Parse
// returns all problems of a file as an ErrorList.
//
// # Sweep file reference
//
// A sweep file is one YAML document: either a single sweep mapping, or a
// mapping with a "sweeps" list of them. Keys starting with "x-" at the top
// level and in a sweep are ignored, which makes them a place for YAML
// anchors; merge keys ("<<: *anchor") work in every mapping.
//
//	x-common: &common          # ignored; an anchor to merge below
//	  model: divisible
//	  seed: 20070101
//	sweeps:
//	  - <<: *common
//	    name: fig3             # required, [a-z0-9_-]+, unique in the file
//	    doc: reject ratio vs load, baseline   # optional free text
//	    replicates: 10         # default 1
//	    params:                # fixed values
//	      n: 16
//	    axes:                  # cartesian product, first axis outermost
//	      - name: load
//	        range: {from: 0.1, to: 1.0, step: 0.1}
//	      - name: algorithm
//	        values: [EDF-DLT, FIFO-DLT]
//	    derive:
//	      avg_d: "dc_ratio * 2"
//	    exclude:
//	      - {load: 0.1, algorithm: FIFO-DLT}
//	    figures: ...           # kept raw for the results package
//	    claims: ...            # kept raw for the results package
//	    verify: ...            # kept raw for the results package
//
// Keys of a sweep:
//
//   - name (required): the sweep's name, lower-case letters, digits, '_' and
//     '-', at most 64 characters, unique in the file. It names the sweep's
//     results folder.
//   - model (required): a model of the registry ("bench", "divisible", ...).
//   - seed (required): the master seed, an unsigned 64-bit integer (decimal,
//     or 0x hexadecimal).
//   - replicates: how many times each point runs, with different instance
//     seeds; 1 to 1,000,000, default 1.
//   - doc: free text.
//   - params: parameter → one value, fixed for the whole sweep.
//   - axes: a non-empty list of axes (below).
//   - derive: parameter → expression (below).
//   - exclude: a list of mappings parameter → value; a point whose
//     parameters match every entry of one mapping is dropped. The
//     mappings may name at most 16 distinct sets of parameters: a point
//     is checked with one lookup per set, however many mappings there are.
//   - figures, claims, verify: not read by this package; kept as raw YAML
//     nodes (go doc schedfarm/results: figures, claims, verify).
//
// Any other key is an error, with the closest valid key suggested.
//
// # Axes
//
// Each item of "axes" is a mapping of one of these forms:
//
//	axes:
//	  - name: load                                  # explicit values
//	    values: [0.1, 0.2, 0.5]
//	  - name: load                                  # arithmetic range
//	    range: {from: 0.1, to: 1.0, step: 0.1}
//	  - name: x                                     # num points, linear or log
//	    range: {from: 1, to: 1000, num: 4, scale: log}
//	  - name: y                                     # geometric by a factor
//	    range: {from: 1, to: 64, factor: 2}
//	  - zip:                                        # lists that vary together
//	      load: [0.1, 0.5]
//	      dc_ratio: {from: 2, to: 3, step: 1}
//	  - name: algorithm                             # conditional sub-axes
//	    values: [FCFS, DASEDF]
//	    when:
//	      DASEDF:
//	        - name: X
//	          values: [1, 2, 5]
//
// Ranges. A range has "from" and "to" and exactly one of:
//
//   - step: from + i·step for i = 0, 1, ... while the point does not pass
//     "to" (a negative step counts down). Each point is computed from i,
//     never accumulated, and rounded to the decimals of "from" and "step",
//     so {from: 0.1, to: 1.0, step: 0.1} is exactly 0.1, 0.2, ..., 1.0 (ten
//     values); "to" is included when it is reached within a relative 1e-9.
//   - num: that many points, both ends included; "scale: linear" (default)
//     spaces them evenly, "scale: log" geometrically (from and to > 0), so
//     {from: 1, to: 1000, num: 4, scale: log} is 1, 10, 100, 1000. Inner
//     points are rounded to 12 significant digits. Into an int parameter
//     they are rounded to the nearest integer (a repeat then makes a
//     duplicate point, an error).
//   - factor: from, from·factor, from·factor², ... up to "to" (from and to
//     > 0, factor > 0 and not 1; a factor below 1 counts down), rounded to
//     12 significant digits.
//
// A range feeds a numeric parameter only; a step or factor range into an
// int parameter must land on integers. An axis holds at most 100,000
// values, a file's axes 1,000,000 in all.
//
// Zip. "zip" maps parameter names to lists (or range mappings) of equal
// length; the i-th point sets the i-th value of every list. It takes no
// other key.
//
// When. "when" maps values of a plain axis to lists of sub-axes swept only
// under that value. The sub-axes nest right inside their axis: for
// axes [algorithm (when DASEDF: X), load], the order is FCFS×load, then
// DASEDF×X×load. A parameter set only under some branches takes its default
// elsewhere. Sibling branches may set the same parameter (they never both
// apply); nothing else may.
//
// Order. Points are enumerated with the first axis outermost; for each
// point the replicates 0..R-1 are consecutive (point-major). Job.Index
// counts jobs in this order from 0 within each sweep, after exclusions.
// The same file always gives the same jobs in the same order.
//
// # Values and types
//
// Values are checked against the model's schema: kind, Min/Max, enum. A
// YAML integer is accepted for a float parameter; a float is accepted for
// an int parameter only when integral (4.0), so 1.5 is an error. Strings
// must be YAML strings (quote "1" for a string parameter) and bools must
// be true or false. Null is never a value. Every value an axis produces is
// checked; a range that strays out of bounds is reported at the range.
//
// One place. A parameter is set in at most one place: params, one axis
// (plain or zip), or derive. A second setting is an error naming both
// lines. A parameter set nowhere takes its schema default; a parameter
// without a default must be set.
//
// # Derived parameters
//
// "derive" maps parameters to expressions evaluated for each point after
// the axes, fixed values and defaults are in place. An expression may read
// any parameter, including other derived ones: they are evaluated in
// dependency order, and a cycle is an error. The language:
//
//	expr    = cond
//	cond    = or [ "?" cond ":" cond ]
//	or      = and { "||" and }
//	and     = cmp { "&&" cmp }
//	cmp     = sum [ ("==" | "!=" | "<" | "<=" | ">" | ">=") sum ]
//	sum     = product { ("+" | "-") product }
//	product = unary { ("*" | "/" | "%") unary }
//	unary   = ("-" | "+" | "!") unary | power
//	power   = primary [ "^" unary ]        (right-associative: -2^2 = -4, 2^-1 = 0.5)
//	primary = number | string | "true" | "false" | name
//	        | name "(" [ expr { "," expr } ] ")" | "(" expr ")"
//
// Numbers are decimal (1, 0.5, 1e-3); strings are in '...' or "..."
// without escapes; names are parameter names. Values are typed: numbers
// (int and float parameters), strings and bools; arithmetic and <, <=, >,
// >= take numbers, && || ! and the condition of ?: take bools, == and !=
// take two values of one type. Functions (numbers only): abs, ceil, exp,
// floor, log (natural), log2, log10, round (half away from zero), sqrt,
// pow(x, y), min(a, b, ...), max(a, b, ...). Types, names and functions
// are checked when the file is parsed; errors point at the column in the
// expression.
//
// The result is checked against the parameter like any value. A float
// result is rounded to 15 significant digits (0.1*3 gives 0.3, so float
// drift does not leak into job IDs); an int parameter takes a result
// within a relative 1e-9 of an integer and refuses any other (use round,
// floor or ceil); a non-finite result is an error. These checks run per
// point, when the sweep is expanded.
//
// Limits. An expression is at most 4 KiB, and the expressions of one sweep
// hold at most 1,000 nodes in all (each number, string, name, operator and
// call is a node), so that a point costs at most 1,000 evaluation steps;
// expressions are compiled once, when the file is parsed. A file past
// either limit is refused at the expression.
//
// # Expansion, identity and limits
//
// Each job has complete parameters (every schema parameter, defaults
// filled), ID = JobID(model, version, params, replicate, seed) and Seed =
// InstanceSeed(master seed, replicate, schema, params): algorithm
// parameters do not enter the seed, so every algorithm at one point runs
// the same instance. Two points of one sweep with identical parameters are
// an error naming both points' axis values. An exclude entry that drops
// no point is an error (it is almost always a typo). Identical jobs in two
// different sweeps (same model, parameters, replicate and seed) share one
// ID: the farm runs such a job once and both sweeps' results take its row.
// Sweeps that differ only in their master seed run different instances,
// so their jobs have different IDs.
//
// Count gives the number of jobs without building them (from the axis
// sizes, or by enumerating points when there are exclusions). Expand
// refuses, before building anything, a sweep (or, for File.Expand, a file)
// of more jobs than its limit, DefaultMaxJobs (1,000,000) unless the
// caller passes another; the error wraps ErrTooManyJobs and suggests
// "pass --max-jobs N".
//
// # Errors
//
// Every error reads FILE:LINE:COL: KEY: MESSAGE; HINT, where KEY is the
// path of the offending key ("fig3.axes[1].name") and the hint, where
// there is one, names the closest valid name: format keys, parameter
// names, model names, enum values, function names ("did you mean
// \"dc_ratio\"?"). Parse reports all the errors of a file; Expand stops at
// the first.
package sweep
