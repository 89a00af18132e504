// Package figure draws a sweep's declared figures from its tables, as PNG,
// SVG and PDF, with gonum/plot:
//
//	decl.Figure (kind, table, x, y, series, facet, where) ─┐
//	Frame (summary, jobs or an extra table) ───────────────┤
//	Palette (one colour and marker per series value) ──────┼─► Render ─► <id>.png, .svg, .pdf
//	[]Published (the paper's values: published claims) ────┘            (Files)
//
// It owns the drawing: the style (style.go: sizes, fonts, palette,
// ticks), the layout of a figure (compose.go: title, panels, one legend
// beside them), kinds, facets and their ranges, tick labels that do not
// overlap (plotlabels.go), and the paper's values beside ours
// (published.go). Which figures a sweep has, and their validation, are
// package decl's; package report calls Render for each.
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
// on both axes) linked by a dashed line, and the baseline's 1:1 lines
// where they do not crowd the marks. Facets are panels of one image, at
// most three per row, each width × height, sharing an axis's range where
// their ranges are alike. A series value has the same colour and marker in
// every figure of the file that splits by the same parameter: values are
// numbered per series parameter over the whole file (the model's declared
// values first, then the values of its jobs, numbers in numeric order).
// Every text drawn (titles, labels, legend entries, whether from the sweep
// file or the data) has its control characters drawn as spaces, so the
// SVG stays well-formed XML. The PDF's dates are fixed, so that the same
// tables give the same files.
package figure
