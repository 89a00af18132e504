// Package ptg is the model of casanova2010: Casanova, Desprez and Suter, "On
// Cluster Resource Allocation for Multiple Parallel Task Graphs" (INRIA
// RR-7224, 2010): N parallel task graphs (PTGs) of moldable data-parallel
// tasks, submitted together, share one homogeneous cluster; 19 algorithms
// decide how many processors each task gets and when it runs.
//
// Pipeline of one run (a pure function of the parameters and the seed; the
// scheduling time is the only measured number):
//
//	Scenario (§5.1)                 cluster of Table 1, N, PTG class (drawn when "mixed"/0)
//	  │ dag.Random / dag.FFT / dag.Strassen + dag.Costs    stream "ptgs" (shared by all
//	  │ (a·d, a·d·log d, d^1.5; Amdahl α ~ U[0, 0.25))      algorithms: common random numbers)
//	  ▼
//	alone: improved HCPA on all P (§4.1)    C*_i, the dedicated-cluster makespan
//	  ▼
//	allocate ─────────────── per family ───────────────────────────────────────────┐
//	  SELFISH[_ORDER|_WEIGHT] (§4.1)  alone allocations; all tasks by bl, C* then bl, or bl/C*²
//	  C1, C4 (§4.2)                   HCPA on the composite (C4: PTGs grafted on the longest)
//	  F1, F2 (§4.2)                   alone allocations; task by task from the PTG of worst stretch
//	  CRA_* (§4.3)                    HCPA bounded by the PTG's share (1/N, Eq. 1 work, Eq. 2 width)
//	  CAFM_* (§4.4)                   each PTG a moldable job (HCPA on p = 1..P, allocateAll);
//	                                  Mounié–Rapine–Trystram 3/2 dual approximation → C*max, allotments;
//	                                  CRA bounds | boxes by SAF/SPTF/LPTF | K shelves of growing length
//	  ▼                                                                              │
//	map: mapStatic (free-time list scheduling) or mapReady (CRA: ready tasks only)
//	  ▼
//	compact: backfilling, each task as early as possible without delaying any other (§4.1)
//	  ▼
//	assignProcessors → metrics (§3.2: Σ C_i/Σ C*_i, makespan, max C_i/C*_i; §5.2.6 utilisation)
//	                   + tables "ptgs" and "schedule"
//
// Scheduling is offline: every PTG is submitted at time 0, so the mapping
// is list scheduling on an availability profile (simcore/profile), not an
// event simulation; only mapReady, CRA's list over ready tasks, advances a
// clock, on simcore/engine, from completion to completion.
//
// Files: problem.go (clusters, task times, bottom levels), hcpa.go
// (allocation and its replay for every processor bound), schedule.go
// (mapping, compaction, processor assignment), moldable.go (moldable jobs,
// MRT, K-shelves, box list scheduling), algorithms.go (the 19 algorithms),
// workload.go (the PTG populations), model.go (schema, metrics, tables).
// The graphs themselves, their generators and their file formats are in
// the sub-package dag.
//
// Readings the seed leaves open are parameters with the default first:
// hcpa_rule (gain | seed), hcpa_level_cap (true | false),
// hcpa_max_inflation (3 | 0 = off | any value ≥ 1), mapping (paper | ready
// | insertion), backfill (once | none | repeat), cra_area (share | cluster)
// (options.go); docs/models/ptg.md gives the source of every choice and the
// sensitivity sweeps over them (configs/casanova2010/sens-*.yaml).
package ptg
