// Package stretch is the model of seed 003: Saule, Bozdağ and Çatalyürek,
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
package stretch
