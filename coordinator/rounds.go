package coordinator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/google/uuid"

	"schedfarm/broker"
	"schedfarm/results"
	"schedfarm/results/claims"
	"schedfarm/results/decl"
	"schedfarm/sweep"
)

// Adaptive replicates.
//
// A sweep with replicates: {min, max} is first published with min
// replicates per point. When every job of the run is done, the
// coordinator collects the adaptive sweeps, evaluates their claims
// (decided on anytime-valid confidence sequences, results.Claim.Anytime)
// and adds a round of replicates to the points the undecided claims read
// (results.RoundPoints): a point of n replicates gets replicates n …
// min(2n, max)−1. Rounds are stored in the run's record before their jobs
// are published, and a decision reads complete rounds only, so the run's
// final jobs, and its results, are the same whatever the number of
// workers or the order jobs ran in. The rounds stop when every claim is
// decided, when the undecided claims' points are at max, or at the run's
// job limit; RunRecord.Adaptive says which.

// maxRoundErrors is how many times a round's evaluation may fail before
// the run completes without more rounds.
const maxRoundErrors = 5

// startRound evaluates the next round of an adaptive run in the
// background; settle calls it, with c.mu held, when every job of the run
// is done. It returns false when the run has no round left to evaluate.
func (c *Coordinator) startRound(ctx context.Context, run string, r *runEntry) bool {
	if !r.adaptive || r.roundsDone {
		return false
	}
	if !r.rounding {
		r.rounding = true
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			c.nextRound(ctx, run)
		}()
	}
	return true
}

// nextRound plans the run's next round and publishes it, or ends the
// rounds; then settles the run.
func (c *Coordinator) nextRound(ctx context.Context, run string) {
	c.mu.Lock()
	r := c.runs[run]
	if r == nil {
		c.mu.Unlock()
		return
	}
	rec := r.rec
	c.mu.Unlock()
	rounds, note, verdicts, err := c.planRound(ctx, rec)
	if err != nil {
		if ctx.Err() != nil {
			return // stopping: the next coordinator evaluates the round again
		}
		c.mu.Lock()
		r.roundErrors++
		tries := r.roundErrors
		c.mu.Unlock()
		if tries < maxRoundErrors {
			// Often transient (JetStream): settle plans the round again
			// within 5 s, so that the run's jobs do not depend on a hiccup.
			c.log.Warn("adaptive replicates: cannot evaluate the round; trying again", "run", run, "try", tries, "err", err)
			c.stopRounding(run)
			return
		}
		// The results stand as they are: the run completes without more
		// rounds rather than never, and its record says why.
		c.log.Error("adaptive replicates: cannot evaluate the round; the run completes without more replicates", "run", run, "err", err)
		note = "stopped: " + err.Error()
	}
	c.mu.Lock()
	if r := c.runs[run]; r != nil && verdicts != nil {
		r.claims = verdicts
	}
	c.mu.Unlock()
	if len(rounds) == 0 {
		c.endRounds(ctx, run, note)
		return
	}
	if err := c.addRounds(ctx, run, rounds); err != nil {
		c.log.Error("adaptive replicates: add round", "run", run, "err", err)
		c.stopRounding(run) // settle tries again (every 5 s)
		return
	}
	c.settle(ctx, run)
}

// endRounds records how the rounds ended and lets the run complete.
func (c *Coordinator) endRounds(ctx context.Context, run, note string) {
	c.mu.Lock()
	r := c.runs[run]
	if r == nil {
		c.mu.Unlock()
		return
	}
	r.rec.Adaptive = note
	r.roundsDone, r.rounding = true, false
	n := len(r.rec.Rounds)
	c.mu.Unlock()
	c.log.Info("adaptive replicates: done", "run", run, "rounds", n, "note", note)
	c.settle(ctx, run)
}

// addRounds stores the rounds in the run's record, adds their jobs to the
// run and publishes those not already done.
func (c *Coordinator) addRounds(ctx context.Context, run string, rounds []sweep.Round) error {
	c.mu.Lock()
	r := c.runs[run]
	if r == nil {
		c.mu.Unlock()
		return nil
	}
	rec := r.rec
	c.mu.Unlock()
	f, err := sweep.Parse(rec.File, []byte(rec.Text), c.reg)
	if err != nil {
		return err
	}
	before, err := f.ExpandRun(rec.MaxJobs, rec.Rounds)
	if err != nil {
		return err
	}
	rec.Rounds = append(slices.Clone(rec.Rounds), rounds...)
	all, err := f.ExpandRun(rec.MaxJobs, rec.Rounds)
	if err != nil {
		return err
	}
	added := all[len(before):]
	skip := c.alreadyDone(added, rec.Force)
	rec.Total += len(added)
	rec.Skipped += len(skip)
	rec.Status = broker.RunPublishing
	// The record first: a coordinator that takes over re-expands the run
	// with these rounds and publishes what is not done. It is written only
	// over the record the round was planned on: a run cancelled meanwhile
	// stays cancelled.
	stored, err := c.farm.Runs.Get(ctx, run)
	if err != nil {
		return fmt.Errorf("run %s: %w", run, err)
	}
	var now broker.RunRecord
	if err := json.Unmarshal(stored.Value(), &now); err != nil {
		return fmt.Errorf("run %s: decode record: %w", run, err)
	}
	if now.Status != broker.RunRunning || len(now.Rounds) != len(rec.Rounds)-len(rounds) {
		c.log.Info("adaptive replicates: the run changed while its round was planned; no round added", "run", run, "status", now.Status)
		c.stopRounding(run)
		return nil
	}
	data, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	if _, err := c.farm.Runs.Update(ctx, run, data, stored.Revision()); err != nil {
		c.log.Info("adaptive replicates: the run's record changed (cancelled?); no round added", "run", run, "err", err)
		c.stopRounding(run)
		return nil
	}
	c.mu.Lock()
	r.rec = rec
	r.extend(added, skip)
	r.publishing, r.rounding = true, false
	k := 1
	for _, ch := range rec.Packing {
		for _, a := range added {
			if ch.Sweep == a.Sweep {
				k = max(k, ch.K)
			}
		}
	}
	c.mu.Unlock()
	order, bySweep := toPublish(added, skip)
	var units [][]*sweep.Job
	for _, s := range order {
		packs, _ := taperedPacksOf(bySweep[s], k)
		units = append(units, packs...)
	}
	n, err := c.publish(ctx, run, units)
	c.setPublishing(run, false)
	if err != nil {
		return fmt.Errorf("publish round: %d of %d jobs sent: %w", n, len(added)-len(skip), err)
	}
	c.log.Info("adaptive replicates: round published", "run", run, "rounds", len(rec.Rounds), "jobs", len(added), "skipped", len(skip), "published", n)
	return c.markRunning(ctx, run)
}

// stopRounding lets settle plan the run's round again (a run still in
// memory whose round could not be added).
func (c *Coordinator) stopRounding(run string) {
	c.mu.Lock()
	if r := c.runs[run]; r != nil {
		r.rounding = false
	}
	c.mu.Unlock()
}

// extend adds jobs to a run in memory (those in skip count as done
// already). c.mu must be held.
func (r *runEntry) extend(jobs []sweep.Job, skip map[uuid.UUID]bool) {
	for i := range jobs {
		j := &jobs[i]
		if _, dup := r.ids[j.ID]; dup {
			continue
		}
		idx := int32(len(r.status))
		r.ids[j.ID] = idx
		code := codeQueued
		if skip[j.ID] {
			code = codeDone
			r.counts.Skipped++
		}
		r.status = append(r.status, code)
		r.attempts = append(r.attempts, 0)
		k := slices.Index(r.sweeps, j.Sweep)
		if k < 0 {
			r.sweeps = append(r.sweeps, j.Sweep)
			k = len(r.sweeps) - 1
		}
		r.sweepOf = append(r.sweepOf, int32(k))
		r.counts.Total++
	}
}

// planRound collects the run's adaptive sweeps into a temporary folder,
// evaluates their claims and returns the next rounds (none when the
// rounds are over, with a note saying why).
func (c *Coordinator) planRound(ctx context.Context, rec broker.RunRecord) ([]sweep.Round, string, []RoundClaim, error) {
	f, err := sweep.Parse(rec.File, []byte(rec.Text), c.reg)
	if err != nil {
		return nil, "", nil, err
	}
	jobs, err := f.ExpandRun(rec.MaxJobs, rec.Rounds)
	if err != nil {
		return nil, "", nil, err
	}
	var names []string
	for _, s := range f.Sweeps {
		if s.MaxReplicates > 0 {
			names = append(names, s.Name)
		}
	}
	if len(names) == 0 {
		return nil, "", nil, nil
	}
	dir, err := os.MkdirTemp("", "schedfarm-round-*")
	if err != nil {
		return nil, "", nil, err
	}
	defer os.RemoveAll(dir)
	collected, err := Collect(ctx, c.farm, c.reg, rec.ID, CollectOptions{ResultsDir: dir, Partial: true, Sweeps: names})
	if err != nil {
		return nil, "", nil, err
	}
	dirs := map[string]string{}
	for _, sc := range collected {
		dirs[sc.Sweep] = sc.Dir
	}
	return PlanRound(f, jobs, dirs, rec.MaxJobs)
}

// RoundClaim is a claim of an adaptive sweep as the last round's
// evaluation decided it, shown by the run's progress while it runs.
type RoundClaim struct {
	Sweep   string         `json:"sweep"`
	ID      string         `json:"id"`
	Verdict claims.Verdict `json:"verdict"`
	Numbers string         `json:"numbers"`
	Text    string         `json:"text"`
}

// PlanRound returns the next rounds of a run of f whose jobs are jobs
// (its expansion and rounds so far), from the collected folders of its
// adaptive sweeps (dirs, by sweep name): for each adaptive sweep, the
// points the undecided claims read that are below the sweep's maximum,
// grouped by their replicate count n, get replicates n … min(2n, max)−1.
// Rounds that would take the run over maxJobs are left out. With no
// round, note says why the rounds are over. verdicts are the adaptive
// sweeps' claims as this evaluation decided them.
func PlanRound(f *sweep.File, jobs []sweep.Job, dirs map[string]string, maxJobs int) (rounds []sweep.Round, note string, verdicts []RoundClaim, err error) {
	if maxJobs <= 0 {
		maxJobs = sweep.DefaultMaxJobs
	}
	undecided, atCap := 0, 0
	total := len(jobs)
	limited := false
	for _, s := range f.Sweeps {
		if s.MaxReplicates == 0 {
			continue
		}
		dir, ok := dirs[s.Name]
		if !ok {
			return nil, "", nil, fmt.Errorf("sweep %s was not collected", s.Name)
		}
		sum, err := results.ReadTable(filepath.Join(dir, results.SummaryTable+".parquet"))
		if err != nil {
			return nil, "", nil, err
		}
		jf, err := results.ReadTable(filepath.Join(dir, results.JobsTable+".parquet"))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, "", nil, err
		}
		decls, err := decl.Parse(s)
		if err != nil {
			return nil, "", nil, err
		}
		res := claims.Evaluate(sum, jf, s.Schema(), decls.Claims, claims.Seeds(s.UsesSeed))
		for _, cr := range res {
			verdicts = append(verdicts, RoundClaim{Sweep: s.Name, ID: cr.ID, Verdict: cr.Verdict, Numbers: cr.Numbers, Text: cr.Text})
		}
		for _, cr := range res {
			if cr.Verdict == claims.Inconclusive && cr.Claim.Anytime {
				undecided++
			}
		}
		ids := claims.RoundPoints(sum, jf, s.Schema(), res)
		pointOf := map[string]int{}
		reps := map[int]int{}
		for i := range jobs {
			if j := &jobs[i]; j.Sweep == s.Name {
				pointOf[j.ID.String()] = j.Point
				reps[j.Point]++
			}
		}
		byN := map[int][]int{} // replicate count → points
		capped := map[int]bool{}
		for _, id := range ids {
			pt, ok := pointOf[id]
			if !ok {
				continue
			}
			n := reps[pt]
			if n >= s.MaxReplicates {
				if !capped[pt] {
					capped[pt] = true
					atCap++
				}
				continue
			}
			if !slices.Contains(byN[n], pt) {
				byN[n] = append(byN[n], pt)
			}
		}
		var ns []int
		for n := range byN {
			ns = append(ns, n)
		}
		slices.Sort(ns)
		for _, n := range ns {
			pts := byN[n]
			slices.Sort(pts)
			to := min(2*n, s.MaxReplicates)
			if total+len(pts)*(to-n) > maxJobs {
				limited = true
				continue
			}
			total += len(pts) * (to - n)
			rounds = append(rounds, sweep.Round{Sweep: s.Name, From: n, To: to, Points: pts})
		}
	}
	if len(rounds) > 0 {
		return rounds, "", verdicts, nil
	}
	switch {
	case limited:
		note = fmt.Sprintf("the job limit (%d) stopped the rounds with %d claim(s) undecided", maxJobs, undecided)
	case undecided == 0:
		note = "every claim decided"
	case atCap == 0:
		note = strconv.Itoa(undecided) + " claim(s) undecided that more replicates cannot decide"
	default:
		note = fmt.Sprintf("the replicate cap reached with %d claim(s) undecided (%d point(s) at the maximum)", undecided, atCap)
	}
	return nil, note, verdicts, nil
}
