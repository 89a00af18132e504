package stretch

import "sort"

// SpeedupFloor summarises what the tasks' runtime tables p_{i,j} leave to
// any schedule, before any scheduling (saule2012 §7.2 explains Iterative's
// average stretch by "a step around 11 or 13 processors" in the speedup).
type SpeedupFloor struct {
	// Stretch is the mean over tasks of min_j p_{i,j}/p_{i,1}: every task
	// started at its release on its fastest size. No schedule's average
	// stretch is below it.
	Stretch float64
	// StepStretch is the mean over tasks of p_{i,s_i}/p_{i,1}, where s_i is
	// the task's first step (FirstStep). A scheme that grows a task one
	// processor at a time and stops when one more is no faster (Iterative,
	// §5.4: it "never tries to assign an additional processor to that task
	// again") never runs a task on more than s_i processors, so its average
	// stretch is not below it.
	StepStretch float64
	// StepFlow is max_i p_{i,s_i}: the longest task runtime on the first
	// step. Iterative runs no task on more than s_i processors, so no task's
	// flow time under it is below p_{i,s_i}, and its maximum flow time is
	// not below StepFlow.
	StepFlow float64
	// StepMedian is the median of s_i over the tasks (the lower of the two
	// middle values for an even count).
	StepMedian int
	// StepBelow11 is the share of the tasks whose first step s_i is below
	// 11 processors.
	StepBelow11 float64
	// SpeedupBelow10 is the share of the tasks whose best speedup
	// p_{i,1}/min_j p_{i,j} is below 10.
	SpeedupBelow10 float64
}

// FirstStep is the task's first step: the smallest j with p_{i,j+1} ≥
// p_{i,j} (one more processor no faster), or P when the runtime falls all
// the way to P processors.
func FirstStep(times []float64) int {
	for j := 1; j < len(times); j++ {
		if times[j] >= times[j-1] {
			return j
		}
	}
	return len(times)
}

// Floor computes the SpeedupFloor of tasks (Times non-increasing, as
// MoldTask requires); O(n·P).
func Floor(tasks []MoldTask) SpeedupFloor {
	var f SpeedupFloor
	if len(tasks) == 0 {
		return f
	}
	steps := make([]int, len(tasks))
	below11, below10 := 0, 0
	for i := range tasks {
		t := tasks[i].Times
		seq, best := t[0], t[len(t)-1]
		s := FirstStep(t)
		steps[i] = s
		f.Stretch += best / seq
		f.StepStretch += t[s-1] / seq
		f.StepFlow = max(f.StepFlow, t[s-1])
		if s < 11 {
			below11++
		}
		if seq < 10*best {
			below10++
		}
	}
	n := float64(len(tasks))
	f.Stretch /= n
	f.StepStretch /= n
	f.StepBelow11 = float64(below11) / n
	f.SpeedupBelow10 = float64(below10) / n
	sort.Ints(steps)
	f.StepMedian = steps[(len(steps)-1)/2]
	return f
}
