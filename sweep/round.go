package sweep

import (
	"context"
	"fmt"
	"slices"

	"schedfarm/simcore"
)

// Round is one addition of replicates to points of an adaptive sweep (one
// with MaxReplicates > 0): replicates From … To−1 of each listed point.
// A run's rounds, applied in order after its expansion, give its jobs
// (File.ExpandRun); a coordinator records them in the run's record.
type Round struct {
	Sweep string `json:"sweep"`
	From  int    `json:"from"`
	To    int    `json:"to"`
	// Points are point ordinals (Job.Point), ascending.
	Points []int `json:"points"`
}

// ExpandRun returns the jobs of a run of the file: Expand's jobs, then
// the jobs each round adds, in round order and, within a round, in point
// order then replicate order. A round's jobs take the sweep's next
// indexes. The jobs of a round reuse the identity scheme of Expand
// (job ID and instance seed from the point and the replicate), so a rerun
// of the same sweep finds them done.
//
// A round must name an adaptive sweep of the file, points of it that are
// not excluded, and start at each point's current replicate count without
// going beyond MaxReplicates; a round that does not is an error (a
// corrupt or foreign run record).
func (f *File) ExpandRun(maxJobs int, rounds []Round) ([]Job, error) {
	return f.ExpandRunContext(context.Background(), maxJobs, rounds)
}

// ExpandRunContext is ExpandRun that stops when ctx ends, as
// ExpandContext does.
func (f *File) ExpandRunContext(ctx context.Context, maxJobs int, rounds []Round) ([]Job, error) {
	if maxJobs <= 0 {
		maxJobs = DefaultMaxJobs
	}
	jobs, err := f.ExpandContext(ctx, maxJobs)
	if err != nil || len(rounds) == 0 {
		return jobs, err
	}
	// Per sweep: the replicate count of each point, and the job count.
	type state struct {
		reps map[int]int
		n    int
	}
	states := map[string]*state{}
	for i := range jobs {
		j := &jobs[i]
		st := states[j.Sweep]
		if st == nil {
			st = &state{reps: map[int]int{}}
			states[j.Sweep] = st
		}
		st.reps[j.Point]++
		st.n++
	}
	for ri, rd := range rounds {
		s := f.sweepNamed(rd.Sweep)
		st := states[rd.Sweep]
		switch {
		case s == nil || st == nil:
			return nil, fmt.Errorf("round %d: no sweep %q in the file", ri+1, rd.Sweep)
		case s.MaxReplicates == 0:
			return nil, fmt.Errorf("round %d: sweep %q has a fixed replicate count", ri+1, rd.Sweep)
		case rd.From < 1 || rd.To <= rd.From || rd.To > s.MaxReplicates:
			return nil, fmt.Errorf("round %d: replicates %d–%d of sweep %q are outside 1–%d", ri+1, rd.From, rd.To-1, rd.Sweep, s.MaxReplicates)
		case len(rd.Points) == 0 || !slices.IsSorted(rd.Points) || len(slices.Compact(slices.Clone(rd.Points))) != len(rd.Points):
			return nil, fmt.Errorf("round %d: sweep %q: points must be a non-empty ascending list without repeats", ri+1, rd.Sweep)
		}
		for _, pt := range rd.Points {
			if st.reps[pt] != rd.From {
				return nil, fmt.Errorf("round %d: sweep %q point %d has %d replicates, not %d", ri+1, rd.Sweep, pt, st.reps[pt], rd.From)
			}
		}
		if len(jobs)+len(rd.Points)*(rd.To-rd.From) > maxJobs {
			return nil, fmt.Errorf("round %d of sweep %q takes the run over its limit of %d jobs: %w", ri+1, rd.Sweep, maxJobs, ErrTooManyJobs)
		}
		if jobs, err = s.appendRound(ctx, jobs, rd, &st.n); err != nil {
			return nil, fmt.Errorf("round %d: %w", ri+1, err)
		}
		for _, pt := range rd.Points {
			st.reps[pt] = rd.To
		}
	}
	return jobs, nil
}

// Adaptive reports whether any sweep of the file has adaptive replicates.
func (f *File) Adaptive() bool {
	for _, s := range f.Sweeps {
		if s.MaxReplicates > 0 {
			return true
		}
	}
	return false
}

func (f *File) sweepNamed(name string) *Sweep {
	for _, s := range f.Sweeps {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// appendRound appends the jobs of one round of s; *n is the sweep's job
// count so far (the next index), advanced.
func (s *Sweep) appendRound(ctx context.Context, jobs []Job, rd Round, n *int) ([]Job, error) {
	version := s.model.Version()
	workload := s.schema.WorkloadParams()
	next := 0 // the next point of rd.Points to meet
	w := s.newWalker(ctx)
	err := w.run(func(w *walker, vals []any) error {
		if next == len(rd.Points) {
			return errStop
		}
		if w.ordinal != rd.Points[next] {
			return nil
		}
		next++
		params := make(simcore.Params, len(vals))
		for i, v := range vals {
			params[s.schema.Params[i].Name] = v
		}
		canon := params.Canonical(nil)
		wcanon := params.Canonical(workload)
		for r := rd.From; r < rd.To; r++ {
			seed := instanceSeedCanonical(s.Seed, r, wcanon)
			jobs = append(jobs, Job{
				ID:           jobIDCanonical(s.Model, version, canon, r, seed),
				Index:        *n,
				Sweep:        s.Name,
				Model:        s.Model,
				ModelVersion: version,
				Params:       params,
				Replicate:    r,
				Seed:         seed,
				Point:        w.ordinal,
			})
			*n++
		}
		return nil
	}, 0)
	if err != nil && err != errStop {
		return nil, err
	}
	if next < len(rd.Points) {
		return nil, fmt.Errorf("sweep %q has no point %d (or it is excluded)", s.Name, rd.Points[next])
	}
	return jobs, nil
}
