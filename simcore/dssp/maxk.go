package dssp

import "schedfarm/simcore/rng"

// MaxK is the offline MAXK algorithm of §4.1: the largest K such that the K
// jobs of highest R/T1 all complete by the deadline when dispatched with
// pol using their true task lengths. Since non-delay schedules have
// anomalies (adding a job can help an earlier one), every K is simulated
// and the largest that works is kept (the paper's linear search). newRand
// returns a fresh copy of the dispatch stream for each trial, so the
// dispatch that follows the selection reproduces the winning trial. It
// returns the selection flags over jobs.
func MaxK(jobs []Job, keys []JobKey, items []Item, p int, deadline float64, pol Policy, newRand func() *rng.Rand) ([]bool, error) {
	order := ratioOrder(items)
	bestK := 0
	in := make([]bool, len(jobs))
	sub := make([]Job, 0, len(jobs))
	subKeys := make([]JobKey, 0, len(jobs))
	for k := 1; k <= len(order); k++ {
		// The trial dispatches the first k jobs in their night order, as
		// the final dispatch will.
		in[order[k-1]] = true
		sub, subKeys = sub[:0], subKeys[:0]
		for i, ok := range in {
			if ok {
				sub = append(sub, jobs[i])
				subKeys = append(subKeys, keys[i])
			}
		}
		var r *rng.Rand
		if pol == Random {
			r = newRand()
		}
		d, err := Simulate(sub, subKeys, p, pol, r, false)
		if err != nil {
			return nil, err
		}
		if d.Makespan <= deadline*(1+1e-12) {
			bestK = k
		}
	}
	sel := make([]bool, len(jobs))
	for _, i := range order[:bestK] {
		sel[i] = true
	}
	return sel, nil
}
