package divisible

import (
	"math"

	"schedfarm/simcore/rng"
)

// Task is one aperiodic divisible task T = (A, σ, D) of Section 3 of the
// divisible-load paper (lin2007), with the node count a User-Split user
// would request for it.
type Task struct {
	ID    int
	A     float64 // arrival time
	Sigma float64 // data size σ
	D     float64 // relative deadline; the absolute deadline is A + D
	// SplitU is the uniform draw in [0, 1) that picks the User-Split node
	// count n in [N_min, N]; drawn for every task so that every algorithm at
	// a point sees the same instance (common random numbers).
	SplitU float64
}

// Deadline returns the absolute deadline A + D.
func (t *Task) Deadline() float64 { return t.A + t.D }

// Workload holds the generator settings of Section 5 of lin2007.
type Workload struct {
	Load      float64 // SystemLoad
	AvgSigma  float64 // Avgσ
	DCRatio   float64 // DCRatio
	TotalTime float64 // TotalSimulationTime
	SigmaDist string  // "normal" (paper) or "uniform" (authors' code)
	Deadlines string  // "average" (paper) or "per_task" (authors' code)
	// Integer draws integer arrivals (rounded up), sizes (rounded, >= 1)
	// and relative deadlines (rounded up), as the authors' generator
	// writes them (option integer_time).
	Integer bool
}

// Generate draws the task set of one run. Streams: "arrivals" for the
// inter-arrival gaps, "sizes" for σ, "deadlines" for D, "split" for the
// User-Split draw; a change to one never shifts the others.
//
// Section 5 ("Workload Generation") of the divisible-load paper (lin2007):
//   - inter-arrival times are exponential with mean 1/λ = E(Avgσ, N)/SystemLoad
//     (the paper prints the inverse; docs/models/divisible.md A1);
//   - σ ~ Normal(Avgσ, Avgσ), redrawn while σ <= 0 (docs/models/divisible.md
//     A2), or Uniform{1..2Avgσ−1} (authors' code);
//   - AvgD = DCRatio·E(Avgσ, N), D ~ Uniform[AvgD/2, 3AvgD/2], redrawn until
//     D > E(σ, N) (at most 100 draws, then D = E(σ, N)·(1 + 1e−9)); the
//     "per_task" rule centres the window on DCRatio·E(σ_i, N) instead.
func Generate(c Cluster, w Workload, st rng.Streams) []Task {
	arr := st.Stream("arrivals")
	siz := st.Stream("sizes")
	dls := st.Stream("deadlines")
	spl := st.Stream("split")
	eAvg := c.E(w.AvgSigma, c.N)
	meanGap := eAvg / w.Load
	var tasks []Task
	if est := w.TotalTime / meanGap; est < 1e8 {
		tasks = make([]Task, 0, int(est*1.05)+16)
	}
	a := 0.0
	for {
		a += arr.Exp(meanGap)
		if a >= w.TotalTime {
			break
		}
		var sigma float64
		if w.SigmaDist == "uniform" {
			hi := int(max(1, math.Round(2*w.AvgSigma-1)))
			sigma = float64(siz.IntRange(1, hi))
		} else {
			sigma = siz.NormalAbove(w.AvgSigma, w.AvgSigma, 0)
			if w.Integer {
				sigma = max(1, math.Round(sigma))
			}
		}
		eMin := c.E(sigma, c.N)
		avgD := w.DCRatio * eAvg
		if w.Deadlines == "per_task" {
			avgD = w.DCRatio * eMin
		}
		d := 0.0
		for try := 0; ; try++ {
			if try == 100 {
				d = eMin * (1 + 1e-9)
				break
			}
			d = dls.Uniform(avgD/2, 3*avgD/2)
			if d > eMin {
				break
			}
		}
		at := a
		if w.Integer {
			at, d = math.Ceil(a), math.Ceil(d)
		}
		tasks = append(tasks, Task{ID: len(tasks), A: at, Sigma: sigma, D: d, SplitU: spl.Float64()})
	}
	return tasks
}
