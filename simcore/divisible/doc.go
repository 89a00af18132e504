// Package divisible is the model of lin2007: Lin, Lu, Deogun and Goddard,
// "Real-Time Divisible Load Scheduling with Different Processor Available
// Times" (UNL TR-2007-0013), with the OPR baselines of the authors' RTAS
// 2007 paper. A<k> below is an assumption of docs/models/divisible.md.
//
// Pipeline of one run (a pure function of the parameters and the seed):
//
//	Generate (§5 "Workload Generation")            tasks (A, σ, D), arrivals in [0, total_time)
//	  │  one rng stream per purpose: arrivals, sizes, deadlines, split;
//	  │  shared by all eight algorithms (common random numbers)
//	  ▼
//	engine: arrival events ──▶ schedulability test (§4.2, Figure 2)
//	  │    order L = waiting queue + new task      EDF (deadline) or FIFO (arrival)
//	  │    plan L on node availabilities           point scan (A7) or per task
//	  │      partition at each candidate point:
//	  │        DLT        Eq. 1–6 heterogeneous model, ñ_min of Eq. 14 (§4.1.1)
//	  │        USERSPLIT  n in [N_min, N] equal pieces, Eq. 15 (§4.1.2)
//	  │        OPR-MN     n_min nodes starting together (A4–A5)
//	  │        OPR-AN     all N nodes (A6)
//	  │    all planned: accept, replace the plans; else reject, keep them
//	  ▼
//	engine: dispatch events (planned first transmission)
//	  │    chunks to the nodes free earliest, real sequential transmissions
//	  │    (proof of Theorem 4, §4.1.1 C): actual vs estimated completion
//	  ▼
//	metrics (§5: Task Reject Ratio, ...) + tables "tasks", "schedule"
//
// Files: formulas.go (Eq. 1–15, E, n_min), workload.go (§5 generator),
// algorithm.go (the eight names), plan.go (Figure 2), sim.go (events and
// execution), model.go (schema and metrics).
//
// Readings of the paper that are open are parameters with the default named
// first: planning (point_scan | per_task), user_split (paper | code),
// node_release (estimate | actual | rtgrid), sigma_dist (normal | uniform),
// deadline_rule (average | per_task), integer_time (false | true).
//
// node_release = rtgrid is not a reading of the paper but the bookkeeping of
// the authors' simulator (knightseu/Research, rtgrid/scheduler/SchMN_IIT.java,
// recalculateTask): for a DLT task planned with an IIT it stores the duration
// Ê as the sub-tasks' completion time, which Machine.assignTask makes the
// node's end time, so the nodes count as free right after dispatch. Fig. 2
// and Theorem 4 hold a node until the task's completion (the default). On the
// baseline this bookkeeping multiplies the EDF-DLT vs EDF-OPR-MN gap by about
// eight (README, "Reproducing Lin et al. 2007"), which is the most likely
// source of the paper's larger published gap.
//
// integer_time = true rounds as the authors' simulator (int times: integer
// arrivals, σ and D; E, Ê, Cps_i and piece times rounded up). The paper's
// text uses continuous formulas and says nothing about rounding, so the
// default is continuous; the numbers barely move either way.
package divisible
