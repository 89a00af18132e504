// Package dssp is the disconnected staged scheduling problem of anderson2005
// (Anderson, Beyer, Chaudhuri, Kelly, Salazar, Santos, Swaminathan, Tarjan,
// Wiener, Zhou, "Value-Maximizing Deadline Scheduling and its Application to
// Animation Rendering", SPAA 2005): J jobs, each a chain of stages, each
// stage a set of independent tasks; P identical processors; no preemption;
// a job earns its reward R_j only if all its tasks end by the global
// deadline D.
//
// Pipeline (one Run):
//
//	nights (night.go): the synthetic Shrek 2 generator calibrated to §5
//	  (docs/models/dssp.md A1–A4; generate.go) | a user's CSV of (night, job, stage, task)
//	  rows (csv.go) | random subsets with T∞ ≤ T∞max (§5.5, subset.go)
//	→ estimates (§A): actual T1, T∞, or "predicted" noisy per-job estimates
//	→ rewards (§5.1, reward.go): linear 500−priority | size T1 | banded | unit
//	→ drop jobs with T∞ > D (§3.1), then selection (§3.1, select.go):
//	  knapsack Σ T1 ≤ r·P·D solved greedily by R/T1 (equal ratios by a
//	  tie rule, decisive for size rewards), by DP by profits
//	  (exact, optional FPTAS scaling), by branch and bound with per-team
//	  CPU-hour caps, by MAXK (§4.1, maxk.go), or no selection at all
//	→ non-delay dispatch (§3.2, dispatch.go): RANDOM, FIRST, PRIORITY,
//	  STCPU, LCPF, CPA; every selected job runs to completion
//	→ metrics (§5.3–5.4): aggregate reward of jobs done by D, completion
//	  and processor-release profiles, idle shares, makespan.
//
// Dispatch does not run on simcore/engine: it is a list schedule, every job
// known at the start of the night, whose only events are task completions,
// kept in one simcore/pq queue by (end, processor), the order the engine
// would give them, without its layer in this hot loop.
//
// Selection runs per night on what the selector believes (true or
// predicted T1 and T∞); §5.2's gap of greedy to the optimum is measured on
// that knapsack. Time is in hours throughout; the paper's P = 1,000 and D = 13 h are the
// defaults. A selected job whose estimate was wrong still runs with its true
// task lengths: estimates steer selection and dispatch keys only.
package dssp
