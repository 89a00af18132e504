// Package figure draws a sweep's declared figures from its tables, as PNG
// and SVG, with gonum/plot:
//
//	decl.Figure (kind, table, x, y, series, facet, where) ─┐
//	Frame (summary, jobs or an extra table) ───────────────┼─► Render ─► <id>.png, <id>.svg
//	Palette (one colour per series value, file-wide) ──────┘            (Files)
//
// It owns the drawing: kinds, facets and shared ranges, tick labels that
// do not overlap (plotlabels.go), and the palette. Which figures a sweep
// has, and their validation, are package decl's; package report calls
// Render for each.
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
// Tableau's ten colours, then the same colours dashed. Every text drawn
// (titles, labels, legend entries, whether from the sweep file or the
// data) has its control characters drawn as spaces, so the SVG stays
// well-formed XML.
package figure
