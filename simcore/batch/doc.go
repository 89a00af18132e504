// Package batch is the batch-scheduling model of krallmann1999 (Krallmann,
// Schwiegelshohn, Yahyapour, "On the Design and Evaluation of Job
// Scheduling Algorithms", JSSPP 1999): rigid jobs on a machine of
// identical nodes, exclusive partitions, no time sharing, jobs killed at
// their requested time.
//
// Pipeline (one Run):
//
//	workload (§6, package workload): SWF log → conventions → jobs
//	  | probabilistic model fitted on the log (§6.2; readings of its Weibull
//	    fit, time frame and values in a bin: weibull_fit, arrivals,
//	    bin_values, run_past_request) | randomized (Table 2)
//	  | synthetic: that model drawn for a machine of another size, sizes
//	    as fractions of the log's machine, arrivals scaled to a load
//	    (synthetic.go, workload.GenerateSynthetic)
//	→ order (§5): FCFS | Garey&Graham | PSRS (§5.5) | SMART-FFIA/NFIW (§5.4),
//	  SMART and PSRS recomputed over the queue by the 2/3 rule (order.go, psrs.go)
//	→ executor (§5.2): reservation depth k on the shared availability
//	  profile: k = 0 list scheduling, 1 = EASY, All = conservative (sim.go:
//	  events and passes; backfill.go: the pass, EASY's shortcuts;
//	  compress.go: re-fitting reservations after an early end, with
//	  stair.go's certificates; arrival.go: compress_order arrival;
//	  waittree.go: FCFS + EASY's candidates)
//	→ objectives (§4): ART, AWRT (w = m·p), makespan, utilisation,
//	  bounded slowdown, starvation (Measure)
//
// Executor contract: the first k waiting jobs in queue order hold
// reservations in the profile (placed at the earliest fit, never
// displacing another); any other job starts only if it fits now for its
// estimate without touching a reservation. When a job ends before its
// estimate, reservations are compressed one at a time in order of their
// start (each released and re-fitted, so none moves later). That gives the
// same starts as docs/models/batch.md A9 read literally (remove every reservation, then
// re-insert them one by one in that order): a reservation moving from r to
// t < r needs nodes in [t, r), where no later one holds any, and in
// [r, t+p̂), inside its own old reservation, where the later ones left it
// room; the tests' reference executor checks it at each of its
// compressions. When the order
// is recomputed, all reservations are dropped and placed again in the new
// order (docs/models/batch.md A10). A job running past its estimate
// (cap_runtime: false) holds its nodes open-endedly and every reservation
// is placed again; with per-event passes (event_order: each) the overruns
// of an instant are noticed before its arrivals and completions, so no pass
// takes their nodes for free. With compress_order: arrival (depth > 1),
// compression instead follows pyss's conservative scheduler: after every
// job end, early or not, each waiting job's reservation is re-fitted in
// queue order, its own released first (compressArrival).
//
// Every reading of a log is a parameter with a default (schema.go): size
// from allocated processors, run time capped at the request, requested
// time as estimate, invalid jobs repaired, no status filter, events at one
// instant batched (completions, arrivals, one pass), compression in order
// of reservation start. event_order: each is the one-event-at-a-time
// rule: arrivals before completions at one instant, a pass after each
// event, and a job whose estimate expires at the instant free from its
// first pass, for reservations and backfill candidates alike. What each
// value reproduces of other simulators: docs/models/batch.md. The metric
// sched_wall_ms is wall-clock time and therefore not reproducible.
package batch
