package dssp

import (
	"fmt"
	"math"
	"sort"
)

// Job is one DSSP job (§2): a chain of stages, each a set of tasks that may
// run in parallel; every task of stage g ends before any task of stage g+1
// starts. Lengths are in hours.
type Job struct {
	// ID identifies the job within its night (FIRST dispatches in ID order).
	ID int
	// Priority is the studio's ordinal priority, 0..499, lower is more
	// important (§5.1).
	Priority int
	// Team owns the job; per-team CPU-hour caps of the branch-and-bound
	// selector apply to it (a side constraint of §1 and §3.1).
	Team int
	// Stages holds the task lengths of each stage, in task-ID order.
	Stages [][]float64
	// T1Est and TInfEst are the "predicted" estimates of T1 and T∞ (§A); 0
	// when the night carries none.
	T1Est, TInfEst float64
}

// T1 is the total processing demand Σ L_i over all tasks (§2).
func (j *Job) T1() float64 {
	s := 0.0
	for _, st := range j.Stages {
		for _, l := range st {
			s += l
		}
	}
	return s
}

// TInf is the critical path length Σ_g max_{i∈S_gj} L_i (§2).
func (j *Job) TInf() float64 {
	s := 0.0
	for _, st := range j.Stages {
		m := 0.0
		for _, l := range st {
			m = max(m, l)
		}
		s += m
	}
	return s
}

// NTasks returns the number of tasks of the job.
func (j *Job) NTasks() int {
	n := 0
	for _, st := range j.Stages {
		n += len(st)
	}
	return n
}

// Night is one night's set of jobs (the paper's unit of experiment, §5).
type Night struct {
	ID   int
	Jobs []Job
}

// Demand is Σ T1 over the night's jobs, in CPU-hours.
func (n *Night) Demand() float64 {
	s := 0.0
	for i := range n.Jobs {
		s += n.Jobs[i].T1()
	}
	return s
}

// NTasks returns the number of tasks of the night.
func (n *Night) NTasks() int {
	t := 0
	for i := range n.Jobs {
		t += n.Jobs[i].NTasks()
	}
	return t
}

// Validate checks that the night is a well-formed DSSP instance.
func (n *Night) Validate() error {
	seen := make(map[int]bool, len(n.Jobs))
	for i := range n.Jobs {
		j := &n.Jobs[i]
		if seen[j.ID] {
			return fmt.Errorf("night %d: job %d appears twice", n.ID, j.ID)
		}
		seen[j.ID] = true
		if len(j.Stages) == 0 {
			return fmt.Errorf("night %d job %d: no stages", n.ID, j.ID)
		}
		for g, st := range j.Stages {
			if len(st) == 0 {
				return fmt.Errorf("night %d job %d stage %d: no tasks", n.ID, j.ID, g+1)
			}
			for _, l := range st {
				if !(l > 0) || math.IsInf(l, 0) {
					return fmt.Errorf("night %d job %d stage %d: task length %v, want a positive finite number of hours", n.ID, j.ID, g+1, l)
				}
			}
		}
		if j.Priority < 0 || j.Priority > 499 {
			return fmt.Errorf("night %d job %d: priority %d outside 0..499", n.ID, j.ID, j.Priority)
		}
		if j.T1Est < 0 || j.TInfEst < 0 || math.IsNaN(j.T1Est) || math.IsNaN(j.TInfEst) {
			return fmt.Errorf("night %d job %d: negative or NaN estimate", n.ID, j.ID)
		}
	}
	return nil
}

// SortByDemand returns the nights ordered by decreasing demand (ties: lower
// night ID first), the order "the ten nights with the greatest total
// processor demand" of §5.4 refers to.
func SortByDemand(nights []Night) []Night {
	out := append([]Night(nil), nights...)
	d := make(map[int]float64, len(out))
	for i := range out {
		d[out[i].ID] = out[i].Demand()
	}
	sort.SliceStable(out, func(a, b int) bool {
		da, db := d[out[a].ID], d[out[b].ID]
		if da != db {
			return da > db
		}
		return out[a].ID < out[b].ID
	})
	return out
}
