// Package claims decides a sweep's claims on its collected tables: each
// claim declared in the sweep file (package decl) gets a verdict, pass,
// fail or inconclusive, with the numbers that decided it.
//
//	decl.Claim (compare, monotone, converge, published, argbest) ─┐
//	summary.parquet (means, ci95, std, n) ────────────────────────┼─► Evaluate ─► []Result:
//	jobs.parquet (paired claims: replicates matched by seed) ─────┘    verdict, numbers, points
//	                                                                              │
//	RoundPoints ◄── the undecided points, where an adaptive run adds replicates ◄─┘
//	PublishedCells ◄── published claims on the summary: the scoreboard's cells
//
// It owns the statistics of a verdict: confidence intervals of means and
// of paired differences, the anytime-valid confidence sequences of
// sequential claims (sequential.go), the points an adaptive run adds
// replicates to (adaptive.go) and the published cells the scoreboard
// checks under the one tolerance rule (cells.go).
//
// Every claim has one of the four operators and an optional where:. Claims
// read the summary: metric is a bare metric (its mean, uncertain by its
// ci95) or any numeric summary column (value_median: no uncertainty). A
// null ci95 — one replicate — counts as 0, the value taken as exact, only
// where the point's jobs do not use their seed (a whole trace, fixed
// nights: simcore.SeedUser, given to Evaluate by Seeds); one replicate of
// an instance drawn from the seed has no interval and decides nothing
// (inconclusive), its statistics (value_median) neither — except for an
// invariant: checked on each instance, it is exact on the one it ran.
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
// Every result carries the numbers that decided it (Result.Numbers,
// and per point in Points).
package claims
