package coordinator

import (
	"github.com/google/uuid"
)

// doneJobs is the registry of finished jobs (SCHEDFARM_DONE) in memory,
// checked before publishing: for each job a stored part holds, the newest
// run whose parts hold it and how many of that run's parts holding it are
// valid. A job is done when that count is positive. The newest run's
// result is the job's current one (collect.go: a forced rerun supersedes
// the results it reran), so when every part of it holding the job is
// invalidated (damaged, or by `schedfarm parts invalidate`) the job is
// not done, even if an older run's part still holds it: that result was
// superseded, and the job runs again.
//
// Runs are numbered in the order their first part was seen; the registry
// is watched in revision order, so a larger number is a newer run, as
// collect.go's runRanks orders them.
type doneJobs struct {
	jobs map[uuid.UUID]doneJob
	runs map[string]int32
	// invalid holds the registry keys (<run>.<part>) of invalidated parts.
	invalid map[string]struct{}
}

type doneJob struct {
	run   int32 // the newest run holding the job (an index into runs)
	valid int32 // that run's valid parts holding it
}

func newDoneJobs() doneJobs {
	return doneJobs{jobs: map[uuid.UUID]doneJob{}, runs: map[string]int32{}, invalid: map[string]struct{}{}}
}

// runIndex numbers run, once.
func (d *doneJobs) runIndex(run string) int32 {
	i, ok := d.runs[run]
	if !ok {
		i = int32(len(d.runs))
		d.runs[run] = i
	}
	return i
}

// part records a registered part of run (registry key key) holding ids.
func (d *doneJobs) part(run, key string, ids []uuid.UUID) {
	r := d.runIndex(run)
	_, bad := d.invalid[key]
	for _, id := range ids {
		cur, ok := d.jobs[id]
		switch {
		case !ok || r > cur.run:
			cur = doneJob{run: r}
		case r < cur.run:
			continue // superseded by a newer run
		}
		if !bad {
			cur.valid++
		}
		d.jobs[id] = cur
	}
}

// invalidate records that the part of run with registry key key, holding
// ids, is invalid. It reports false when it was already.
func (d *doneJobs) invalidate(run, key string, ids []uuid.UUID) bool {
	if _, ok := d.invalid[key]; ok {
		return false
	}
	d.invalid[key] = struct{}{}
	r, ok := d.runs[run]
	if !ok {
		return true // its part comes later (part sees the key)
	}
	for _, id := range ids {
		if cur, ok := d.jobs[id]; ok && cur.run == r && cur.valid > 0 {
			cur.valid--
			d.jobs[id] = cur
		}
	}
	return true
}

// has reports whether a job is done: its current result is in a valid
// part.
func (d *doneJobs) has(id uuid.UUID) bool {
	return d.jobs[id].valid > 0
}
