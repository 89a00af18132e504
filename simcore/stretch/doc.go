// Package stretch is the model of saule2012: Saule, Bozdağ and Çatalyürek,
// "Optimizing the stretch of independent tasks on a cluster: from
// sequential tasks to moldable tasks".
//
// Sequential tasks (§2–4), one run = one instance × one algorithm:
//
//	SeqWorkload.Generate (§4.1)        N tasks, sizes U[a, Δa], exponential gaps for a target load
//	  │  streams: load, sizes, arrivals (common random numbers across algorithms)
//	  ▼
//	SimulateSeq: events = releases and completions (§2.1)
//	  │  release ─▶ reservation scheme (§4): main part (m−X) unless its new
//	  │             schedule has max stretch ≥ T and the auxiliary part (X) does better
//	  │  each part, when a processor is idle and tasks wait:
//	  │    FCFS   (§3.1)  release order
//	  │    DASEDF (§3.2)  bisection on S with the Lemma 3.2 property (dasedf.go),
//	  │                   start the earliest deadlines r_i + S·p_i
//	  ▼
//	Measure: max/mean stretch and flow time, realised load; tables schedule, tasks
//
// reservation: best runs the paper's (X, T) grid (§4.1) on the instance and
// reports the run with the lowest max stretch.
//
// Moldable tasks (§5–7), p_{i,j} for j = 1..P, stretch (C − r)/p_{i,1}:
//
//	DowneyInstance (§7)       first 8,000 jobs of SDSC Par96 / OSC, A ~ U[p, P], σ ~ U[0, 2]
//	SSMInstance (§7)        short-sequence mapping, x·y·z partition runtimes, exponential gaps
//	  ▼
//	SimulateMoldable: events = releases and completions
//	  │  profile of the running tasks (a staircase, moldable.go)
//	  │  planner.arrive (SCOJO-P fixes the size here, or at start), planner.plan:
//	  │    DBOS (Alg. 2)            bisection on S over MoldableEDF, then MoldableEDF(ρS)   dbos.go
//	  │    Iterative / Improved     sizes grown while the average flow improves (§5.4)   iterative.go
//	  │    SCOJO-P (approximation)  n* scaled to 95 % predicted use (§5.5)              scojo.go
//	  │    FCFS                     one processor each, release order (§7.2)            moldable.go
//	  │  the tasks planned at the current time start
//	  ▼
//	Measure + Fairness (size classes of Figs. 3(e)–5(e)); tables schedule, tasks
//
// SimulateSeq and SimulateMoldable are event simulations that do not run
// on simcore/engine: their events are the releases, read in order from the
// sorted tasks, and the completions of each part's running tasks, whose
// queue (simcore/pq) is also the state the planners read in the heap's own
// order (residual work, running stretches); a separate event queue would
// keep the running tasks twice.
//
// Where the paper leaves a choice, the alternatives are parameters with the
// published reading as default (dasedf_check, dasedf_target,
// reservation_side, dbos_relax, scojo_shrink, scojo_load, scojo_size_at,
// improved_select; load_exact and
// load_mid for the instances of Table 1(b); zero_run for the logs' zero-length
// records); docs/models/stretch.md quotes
// the sentence each rests on. dbos_search is the exception: its default,
// bound, meets DBOS's target exactly, since §3.2's bisection (bisect) stops
// at a precision, dbos_eps, that the paper does not give. flow_bound (max_i min_j p_{i,j}) is the floor
// of every schedule's max flow, beside the metrics of the paper.
package stretch
