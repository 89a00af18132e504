package main

// headlines declares, per model, the rows of its headline table (model →
// rows); headline.go renders them from a paper-scale run. The paper's
// values are quotes of the paper; everything measured names the sweep,
// the summary.csv column and the points it is read from.
var headlines = map[string][]headlineRow{
	"dssp": dsspHeadlines,
}

// Shorthands for the declarations.

// at is the mean of metric at the one point of sweep matching where.
func at(sweep, metric, where string) query {
	return query{Sweep: sweep, Col: metric + "_mean", Where: where}
}

// best is the highest mean of metric over the points matching where.
func best(sweep, metric, where string) query {
	return query{Sweep: sweep, Col: metric + "_mean", Where: where, Op: "max"}
}

// worst is the lowest mean of metric over the points matching where.
func worst(sweep, metric, where string) query {
	return query{Sweep: sweep, Col: metric + "_mean", Where: where, Op: "min"}
}

// count is how many points match where (Op "count>X": whose mean of
// metric exceeds X).
func count(sweep, metric, where, op string) query {
	return query{Sweep: sweep, Col: metric + "_mean", Where: where, Op: op}
}

// gain is "label (a/b − 1 in percent)".
func gain(label string, a, b query) value {
	return value{Label: label, A: a, B: b, Kind: "gain"}
}

// num is "label a" formatted by f.
func num(label string, a query, f string) value {
	return value{Label: label, A: a, Fmt: f}
}

// perDispatcher is metric at each dispatcher's one point of sweep.
func perDispatcher(sweep, metric, f string, dispatchers ...string) []value {
	var out []value
	for _, d := range dispatchers {
		out = append(out, num(d, at(sweep, metric, "dispatcher="+d), f))
	}
	return out
}

// claims of one sweep, labelled by their ids' labels.
func claimsOf(sweep string, labelID ...string) []claimRef {
	var out []claimRef
	for i := 0; i+1 < len(labelID); i += 2 {
		out = append(out, claimRef{Label: labelID[i], Sweep: sweep, ID: labelID[i+1]})
	}
	return out
}

// The Anderson et al. 2005 sweeps (configs/anderson2005/).
const (
	aPooled  = "anderson2005-fig3-4-pooled" // Figs. 3–4, the 32 nights pooled
	aFig5    = "anderson2005-fig5"
	aBanded  = "anderson2005-fig6"  // banded rewards, actual run times
	aSize    = "anderson2005-fig7"  // size-dependent rewards, actual
	aLinear  = "anderson2005-fig9"  // linear rewards, actual and predicted
	aSizePr  = "anderson2005-fig10" // size-dependent, actual and predicted
	aSec52   = "anderson2005-sec52"
	aPooled2 = "anderson2005-sens-sec52-pooled"
	aMaxK    = "anderson2005-maxk"
	aThm4    = "anderson2005-theorem4"
)

// dsspHeadlines: docs/models/dssp.md's results of the configs/anderson2005
// runs, ours beside the paper's (§5.2–§5.5, Appendix A, §4.1, Theorem 4).
var dsspHeadlines = []headlineRow{
	{
		Result: "STCPU: half the jobs done by", Paper: "4.6 h",
		Ours:   []value{num("", at(aPooled, "median_completion_h", "dispatcher=STCPU"), "h")},
		Claims: claimsOf(aPooled, "", "stcpu-half-at-4.6h"),
	},
	{
		Result: "done by 10 h: STCPU / PRIORITY / LCPF / CPA", Paper: "> 80% / 62.5% / 30.7% / 2.4%",
		Ours:   perDispatcher(aPooled, "done_by_10h", "pct", "STCPU", "PRIORITY", "LCPF", "CPA"),
		Claims: claimsOf(aPooled, "STCPU", "stcpu-by-10h", "PRIORITY", "priority-by-10h", "LCPF", "lcpf-by-10h", "CPA", "cpa-by-10h"),
	},
	{
		Result: "CPA done by 8 h", Paper: "none",
		Ours:   []value{num("", at(aPooled, "done_by_8h", "dispatcher=CPA"), "pct")},
		Claims: claimsOf(aPooled, "", "cpa-none-by-8h"),
	},
	{
		Result: "processors busy at D + 1 h: LCPF / STCPU", Paper: "7.2% / 31.7%",
		Ours: perDispatcher(aPooled, "busy_at_d1h", "pct", "LCPF", "STCPU"),
		Claims: append(claimsOf(aPooled, "LCPF", "lcpf-busy-after-d", "STCPU", "stcpu-busy-after-d"),
			claimsOf(aPooled, "LCPF < STCPU", "lcpf-releases-together")...),
	},
	{
		Result: "worst makespan: LCPF / STCPU", Paper: "19 h / 26.8 h",
		Ours: perDispatcher(aPooled, "makespan_h", "h", "LCPF", "STCPU"),
		Claims: append(claimsOf(aPooled, "LCPF", "lcpf-worst-makespan", "STCPU", "stcpu-worst-makespan"),
			claimsOf(aPooled, "LCPF < STCPU", "lcpf-makespan")...),
	},
	{
		Result: "idle in the 13 h window: STCPU / LCPF", Paper: "13.5% / 5.5%",
		Ours: perDispatcher(aPooled, "idle_before_d", "pct", "STCPU", "LCPF"),
		Claims: append(claimsOf(aPooled, "STCPU", "idle-before-d-stcpu", "LCPF", "idle-before-d-lcpf"),
			claimsOf(aPooled, "LCPF < PRIORITY", "lcpf-less-idle-before-d")...),
	},
	{
		Result: "idle in the working span: LCPF / STCPU", Paper: "0.6% / > 3%",
		Ours: perDispatcher(aPooled, "idle_overall", "pct", "LCPF", "STCPU"),
		Claims: append(claimsOf(aPooled, "LCPF", "idle-overall-lcpf", "STCPU", "idle-overall-stcpu"),
			claimsOf(aPooled, "LCPF < STCPU", "lcpf-less-idle")...),
	},
	{
		Result: "release spread (IQR of release times): LCPF, CPA against STCPU, PRIORITY", Paper: "tidy against ragged",
		Ours:   perDispatcher(aPooled, "release_iqr_h", "h", "LCPF", "CPA", "STCPU", "PRIORITY"),
		Claims: claimsOf(aPooled, "LCPF < STCPU", "lcpf-tidy-edge", "CPA < PRIORITY", "cpa-tidy-edge"),
	},
	{
		Result: "best-r LCPF against best-r PRIORITY, banded (Fig. 6; claim at r·D = 11.5 h)", Paper: "+9%",
		Ours: []value{
			gain("LCPF", best(aBanded, "aggregate_reward", "selector=dp, dispatcher=LCPF"), best(aBanded, "aggregate_reward", "selector=dp, dispatcher=PRIORITY")),
			gain("CPA", best(aBanded, "aggregate_reward", "selector=dp, dispatcher=CPA"), best(aBanded, "aggregate_reward", "selector=dp, dispatcher=PRIORITY")),
			gain("at 11.5 h: LCPF", at(aBanded, "aggregate_reward", "selector=dp, budget_h=11.5, dispatcher=LCPF"), at(aBanded, "aggregate_reward", "selector=dp, budget_h=11.5, dispatcher=PRIORITY")),
		},
		Claims: claimsOf(aBanded, "", "lcpf-beats-priority-tuned"),
	},
	{
		Result: "same, size-dependent (Fig. 7)", Paper: "+32%",
		Ours: []value{
			gain("LCPF", best(aSize, "aggregate_reward", "selector=dp, dispatcher=LCPF"), best(aSize, "aggregate_reward", "selector=dp, dispatcher=PRIORITY")),
		},
		Claims: claimsOf(aSize, "", "lcpf-beats-priority-tuned"),
	},
	{
		Result: "same, linear (Fig. 9, actual run times)", Paper: "\"resembles banded\"",
		Ours: []value{
			gain("LCPF", best(aLinear, "aggregate_reward", "selector=dp, estimates=actual, dispatcher=LCPF"), best(aLinear, "aggregate_reward", "selector=dp, estimates=actual, dispatcher=PRIORITY")),
		},
		Claims: claimsOf(aLinear, "", "lcpf-beats-priority-tuned"),
	},
	{
		Result: "same, size-dependent, predicted run times (Appendix A, Fig. 10)", Paper: "≈ +9%, \"regardless of r\"",
		Ours: []value{
			gain("LCPF", best(aSizePr, "aggregate_reward", "selector=dp, estimates=predicted, dispatcher=LCPF"), best(aSizePr, "aggregate_reward", "selector=dp, estimates=predicted, dispatcher=PRIORITY")),
		},
		Claims: claimsOf(aSizePr, "at 11.5 h", "predicted-lcpf-beats-priority", "every budget", "predicted-lcpf-beats-priority-any-r"),
	},
	{
		Result: "highest reward with tuned r, actual run times: best-r CPA against best-r LCPF", Paper: "LCPF (\"CPA comparable if well tuned\")",
		Ours: []value{
			gain("banded", best(aBanded, "aggregate_reward", "selector=dp, dispatcher=CPA"), best(aBanded, "aggregate_reward", "selector=dp, dispatcher=LCPF")),
			gain("linear", best(aLinear, "aggregate_reward", "selector=dp, estimates=actual, dispatcher=CPA"), best(aLinear, "aggregate_reward", "selector=dp, estimates=actual, dispatcher=LCPF")),
			gain("size", best(aSize, "aggregate_reward", "selector=dp, dispatcher=CPA"), best(aSize, "aggregate_reward", "selector=dp, dispatcher=LCPF")),
		},
		Note: "not a claim (no \"within x%\" claim kind)",
	},
	{
		Result: "CPA against LCPF when over-selected (r·D = 15 h)", Paper: "CPA \"suffers far more than LCPF\"",
		Ours: []value{
			gain("banded", at(aBanded, "aggregate_reward", "selector=dp, budget_h=15, dispatcher=CPA"), at(aBanded, "aggregate_reward", "selector=dp, budget_h=15, dispatcher=LCPF")),
			gain("size", at(aSize, "aggregate_reward", "selector=dp, budget_h=15, dispatcher=CPA"), at(aSize, "aggregate_reward", "selector=dp, budget_h=15, dispatcher=LCPF")),
			gain("linear", at(aLinear, "aggregate_reward", "selector=dp, budget_h=15, estimates=actual, dispatcher=CPA"), at(aLinear, "aggregate_reward", "selector=dp, budget_h=15, estimates=actual, dispatcher=LCPF")),
		},
		Claims: []claimRef{
			{Label: "Fig. 6", Sweep: aBanded, ID: "cpa-suffers-overselection"},
			{Label: "Fig. 7", Sweep: aSize, ID: "cpa-suffers-overselection"},
			{Label: "Fig. 8", Sweep: "anderson2005-fig8", ID: "cpa-suffers-overselection"},
			{Label: "Fig. 9", Sweep: aLinear, ID: "cpa-suffers-overselection"},
			{Label: "Fig. 10", Sweep: aSizePr, ID: "cpa-suffers-overselection"},
		},
	},
	{
		Result: "LCPF with tuned selection (r·D = 11.5 h; and at its best r) against current practice (PRIORITY, no selection)", Paper: "\"substantially\" more",
		Ours: []value{
			gain("banded", at(aBanded, "aggregate_reward", "selector=dp, budget_h=11.5, dispatcher=LCPF"), at(aBanded, "aggregate_reward", "selector=none, dispatcher=PRIORITY")),
			gain("linear", at(aLinear, "aggregate_reward", "selector=dp, budget_h=11.5, estimates=actual, dispatcher=LCPF"), at(aLinear, "aggregate_reward", "selector=none, estimates=actual, dispatcher=PRIORITY")),
			gain("size", at(aSize, "aggregate_reward", "selector=dp, budget_h=11.5, dispatcher=LCPF"), at(aSize, "aggregate_reward", "selector=none, dispatcher=PRIORITY")),
			gain("best r: banded", best(aBanded, "aggregate_reward", "selector=dp, dispatcher=LCPF"), at(aBanded, "aggregate_reward", "selector=none, dispatcher=PRIORITY")),
			gain("linear", best(aLinear, "aggregate_reward", "selector=dp, estimates=actual, dispatcher=LCPF"), at(aLinear, "aggregate_reward", "selector=none, estimates=actual, dispatcher=PRIORITY")),
			gain("size", best(aSize, "aggregate_reward", "selector=dp, dispatcher=LCPF"), at(aSize, "aggregate_reward", "selector=none, dispatcher=PRIORITY")),
		},
		Claims: []claimRef{
			{Label: "banded", Sweep: aBanded, ID: "lcpf-tuned-beats-current-practice"},
			{Label: "linear", Sweep: aLinear, ID: "lcpf-tuned-beats-current-practice"},
			{Label: "size", Sweep: aSize, ID: "lcpf-tuned-beats-current-practice"},
		},
	},
	{
		Result: "Fig. 5: reward share, T∞max 1 h against 7.5 h, non-CPA policies", Paper: "+5–15%",
		Ours: []value{
			gain("PRIORITY", at(aFig5, "reward_frac", "tinf_max_h=1, dispatcher=PRIORITY"), at(aFig5, "reward_frac", "tinf_max_h=7.5, dispatcher=PRIORITY")),
			gain("STCPU", at(aFig5, "reward_frac", "tinf_max_h=1, dispatcher=STCPU"), at(aFig5, "reward_frac", "tinf_max_h=7.5, dispatcher=STCPU")),
			gain("FIRST", at(aFig5, "reward_frac", "tinf_max_h=1, dispatcher=FIRST"), at(aFig5, "reward_frac", "tinf_max_h=7.5, dispatcher=FIRST")),
			gain("LCPF", at(aFig5, "reward_frac", "tinf_max_h=1, dispatcher=LCPF"), at(aFig5, "reward_frac", "tinf_max_h=7.5, dispatcher=LCPF")),
		},
		Claims: claimsOf(aFig5, "PRIORITY", "short-paths-help-priority", "STCPU", "short-paths-help-stcpu", "FIRST", "short-paths-help-first", "LCPF", "short-paths-help-lcpf", "≥ 5%", "improves-at-least-5pct", "≤ 15%", "improves-at-most-15pct"),
	},
	{
		Result: "Fig. 5: CPA not helped by short critical paths", Paper: "\"all policies except CPA\"",
		Ours: []value{
			gain("CPA", at(aFig5, "reward_frac", "tinf_max_h=1, dispatcher=CPA"), at(aFig5, "reward_frac", "tinf_max_h=7.5, dispatcher=CPA")),
		},
		Claims: append(claimsOf(aFig5, "", "cpa-not-helped"),
			claimsOf("anderson2005-sens-fig5-close", "subsets 5–10% over 13,000 CPU-h, no selection", "cpa-not-helped")...),
	},
	{
		Result: "§5.2 greedy's gap to the optimum, banded (largest of 18 nights)", Paper: "≤ 0.25%",
		Ours:   []value{num("", best(aSec52, "selection_gap", "reward=banded, greedy_ties=large"), "pct")},
		Claims: claimsOf(aSec52, "", "greedy-banded"),
	},
	{
		Result: "§5.2 greedy's gap, linear: largest night; nights over 0.25%; the 18 nights together", Paper: "≤ 0.25%",
		Ours: []value{
			num("largest", best(aSec52, "selection_gap", "reward=linear, greedy_ties=large"), "pct"),
			{Label: "over 0.25%", A: count(aSec52, "selection_gap", "reward=linear, greedy_ties=large", "count>0.0025"), B: count(aSec52, "selection_gap", "reward=linear, greedy_ties=large", "count"), Kind: "of", Fmt: "int", Unit: "nights"},
			num("together", at(aPooled2, "selection_gap_pooled", "reward=linear"), "pct"),
		},
		Claims: append(claimsOf(aSec52, "night by night", "greedy-linear"),
			claimsOf(aPooled2, "together", "greedy-linear")...),
	},
	{
		Result: "§5.2 greedy's gap, size-dependent (largest night), by tie rule", Paper: "≤ 3%",
		Ours: []value{
			num("`large`", best(aSec52, "selection_gap", "reward=size, greedy_ties=large"), "pct"),
			num("`night`", best(aSec52, "selection_gap", "reward=size, greedy_ties=night"), "pct"),
			num("`small`", best(aSec52, "selection_gap", "reward=size, greedy_ties=small"), "pct"),
		},
		Claims: claimsOf(aSec52, "`large`", "greedy-size", "`night`", "greedy-size-night-order"),
	},
	{
		Result: "§4.1 MAXK (unit rewards, 10 nights): jobs completed by D, MAXK / greedy r·D 11.7 h / 13 h", Paper: "–",
		Ours: []value{
			maxkRow("LCPF"), maxkRow("CPA"), maxkRow("STCPU"), maxkRow("PRIORITY"),
		},
		Claims: claimsOf(aMaxK, "MAXK never late", "maxk-never-late", "MAXK > greedy (r = 1), LCPF", "maxk-at-least-greedy-r1"),
	},
	{
		Result: "Theorem 4 (also a property test: 400 random instances × 6 dispatchers): late selected jobs", Paper: "every selected job done by D",
		Ours: []value{
			num("theorem's r, points:", count(aThm4, "late", "budget_rule=theorem4", "count"), "int"),
			num("most late jobs in a subset:", query{Sweep: aThm4, Col: "late_max", Where: "budget_rule=theorem4", Op: "max"}, "int"),
			{Label: "r = 1, mean late jobs per subset, lowest–highest over T∞max: LCPF", A: worst(aThm4, "late", "budget_rule=fixed, dispatcher=LCPF"), B: best(aThm4, "late", "budget_rule=fixed, dispatcher=LCPF"), Kind: "range"},
			{Label: "CPA", A: worst(aThm4, "late", "budget_rule=fixed, dispatcher=CPA"), B: best(aThm4, "late", "budget_rule=fixed, dispatcher=CPA"), Kind: "range"},
		},
		Claims: claimsOf(aThm4, "", "theorem4-no-late-job"),
	},
}

// maxkRow: a dispatcher's jobs completed under MAXK and greedy at both
// budgets.
func maxkRow(dispatcher string) value {
	d := "dispatcher=" + dispatcher
	return value{
		Label: dispatcher,
		A:     at(aMaxK, "completed", "selector=maxk, "+d),
		More: []query{
			at(aMaxK, "completed", "selector=greedy, budget_h=11.7, "+d),
			at(aMaxK, "completed", "selector=greedy, budget_h=13, "+d),
		},
		Fmt: "int",
	}
}
