package stretch

import (
	"fmt"
	"math"

	"schedfarm/simcore/rng"
	"schedfarm/simcore/workload"
)

// DowneyInstance turns the first n jobs of a log into moldable tasks
// (saule2012 §7, docs/models/stretch.md A2): for a job logged on p processors for tp seconds,
// the Downey parameters are A ~ U[p, P] ("maximum parallelism between p
// and 512") and σ ~ U[0, 2]; T(1) = tp·S(p) so the logged run is kept.
// Releases are shifted so the first job arrives at 0.
func DowneyInstance(jobs []workload.Job, n, P int, seed uint64) ([]MoldTask, error) {
	if n <= 0 || n > len(jobs) {
		n = len(jobs)
	}
	if n == 0 {
		return nil, fmt.Errorf("stretch: the log has no jobs")
	}
	st := rng.New(seed)
	ra, rs := st.Stream("downey_A"), st.Stream("downey_sigma")
	t0 := jobs[0].Submit
	tasks := make([]MoldTask, n)
	buf := make([]float64, n*P)
	for i, j := range jobs[:n] {
		if j.Size > P {
			return nil, fmt.Errorf("stretch: log job %d uses %d processors, more than m = %d", j.ID, j.Size, P)
		}
		A := ra.Uniform(float64(j.Size), float64(P))
		sigma := rs.Uniform(0, 2)
		run := j.Run // zero-length log runs were repaired by the trace's conventions (zero_run)
		if run <= 0 {
			run = 1 // docs/models/stretch.md A3
		}
		tasks[i] = MoldTask{Release: j.Submit - t0, Times: buf[i*P : (i+1)*P : (i+1)*P]}
		DowneyTimes(tasks[i].Times, A, sigma, j.Size, run)
	}
	return tasks, nil
}

// SSM workload bounds (saule2012 §7): sequential times from 30 s to 2.5 days.
const (
	ssmMinT1 = 30
	ssmMaxT1 = 2.5 * 86400
)

// SSMInstance draws n short-sequence-mapping tasks (saule2012 §7,
// docs/models/stretch.md A4): genome length G ~ log-U[3e5, 3e9] bp and read count R ~
// log-U[2e6, 4e8], redrawn until T(1) lies in [30 s, 2.5 days];
// exponential gaps with mean mean(T(1))/load, so the expected load is the
// target and the realised one varies around it (the paper's load ranges).
func SSMInstance(n, P int, load float64, model SSM, seed uint64) ([]MoldTask, error) {
	if n < 2 || !(load > 0) {
		return nil, fmt.Errorf("stretch: ssm workload needs n_tasks >= 2 and load > 0 (got %d, %v)", n, load)
	}
	st := rng.New(seed)
	rg, gaps := st.Stream("ssm_size"), st.Stream("arrivals")
	tasks := make([]MoldTask, n)
	buf := make([]float64, n*P)
	sum := 0.0
	grid := model.grid(P)
	for i := range tasks {
		times := buf[i*P : (i+1)*P : (i+1)*P]
		for {
			G, R := rg.LogUniform(3e5, 3e9), rg.LogUniform(2e6, 4e8)
			if t1 := model.T(G, R, 1, 1, 1); t1 < ssmMinT1 || t1 > ssmMaxT1 {
				continue
			}
			grid.times(model, times, G, R)
			break
		}
		tasks[i].Times = times
		sum += times[0]
	}
	meanGap := sum / float64(n) / load
	r := 0.0
	for i := range tasks {
		if i > 0 {
			r += gaps.Exp(meanGap)
		}
		tasks[i].Release = r
	}
	return tasks, nil
}

// MoldLoad is the load of §4 with p_{i,1}: Σ p_{i,1} / (max r − min r).
func MoldLoad(tasks []MoldTask) float64 {
	if len(tasks) < 2 {
		return math.NaN()
	}
	sum := 0.0
	for i := range tasks {
		sum += tasks[i].Seq()
	}
	return sum / (tasks[len(tasks)-1].Release - tasks[0].Release)
}

// rngBand draws an instance's target load uniformly in [lo, hi] from the
// instance's "load" stream (as SeqWorkload does).
func rngBand(seed uint64, lo, hi float64) float64 {
	return rng.New(seed).Stream("load").Uniform(lo, hi)
}
