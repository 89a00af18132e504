package coordinator

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go/jetstream"

	"schedfarm/broker"
	"schedfarm/sweep"
)

// SubmitRequest asks the coordinator to start a run of a sweep file.
type SubmitRequest struct {
	// File is the sweep file's name (for messages and provenance); Text its content.
	File string `json:"file"`
	Text string `json:"text"`
	// MaxJobs bounds the run's size (0: sweep.DefaultMaxJobs).
	MaxJobs int `json:"max_jobs"`
	// Force reruns jobs the registry already holds results for.
	Force bool `json:"force"`
	// Run is the run ID to use (of the form NewRunID gives); empty picks a
	// new one. A client that chooses it can send the same submission again
	// after a lost reply and get the same run.
	Run string `json:"run,omitempty"`
}

// SubmitReply says what a submission did.
type SubmitReply struct {
	Run       string   `json:"run"`
	Sweeps    []string `json:"sweeps"`
	Total     int      `json:"total"`
	Skipped   int      `json:"skipped"`
	Published int      `json:"published"`
	// Existing: the submission was one the farm already had (the same run
	// ID, or the same sweep as a run in progress); the reply describes that
	// run, of status Status, and nothing was published again.
	Existing bool             `json:"existing,omitempty"`
	Status   broker.RunStatus `json:"status,omitempty"`
}

// submission is a submission being worked on, which an identical one
// waits for.
type submission struct {
	done chan struct{}
	rep  *SubmitReply
	err  error
}

// submissionKey identifies a sweep as submitted: its text, job limit and
// Force. Two runs of one key are the same work.
func submissionKey(text string, maxJobs int, force bool) string {
	h := sha256.New()
	fmt.Fprintf(h, "%d\x00%t\x00", maxJobs, force)
	h.Write([]byte(text))
	return hex.EncodeToString(h.Sum(nil))
}

// Submit checks the request (SubmitRequest.Validate) and the sweep, which
// must fit the server's max_payload (CheckSubmitSize); expands it, skips
// the jobs already done (unless Force), records the run and publishes its
// jobs. Nothing is published when the request is invalid, the sweep does
// not validate or is over its job limit.
//
// Submitting again is safe: a submission whose Run names an existing run
// of the same sweep (text, MaxJobs and Force), or whose sweep is that of a
// run still in progress, is answered with that run (Existing) and
// publishes nothing; an identical submission arriving while the first is
// being worked on waits for it and gets its run. A Run that names a run of
// another sweep is refused.
func (c *Coordinator) Submit(ctx context.Context, req SubmitRequest) (*SubmitReply, error) {
	return c.SubmitParsed(ctx, req, nil, nil)
}

// SubmitParsed is Submit for a caller in the same process that has
// already parsed req.Text (f, with this coordinator's registry) and
// possibly expanded it within req.MaxJobs (jobs): the sweep is then not
// parsed and expanded a second time. f nil parses req.Text; jobs nil
// expands f. Requests from the wire go through Submit.
func (c *Coordinator) SubmitParsed(ctx context.Context, req SubmitRequest, f *sweep.File, jobs []sweep.Job) (*SubmitReply, error) {
	if err := req.Validate(); err != nil {
		return nil, err
	}
	if req.MaxJobs == 0 {
		req.MaxJobs = sweep.DefaultMaxJobs
	}
	if f == nil {
		var err error
		if f, err = sweep.Parse(req.File, []byte(req.Text), c.reg); err != nil {
			return nil, err
		}
		jobs = nil
	}
	if err := CheckSubmitSize(req, len(f.Sweeps), c.farm.NC.MaxPayload()); err != nil {
		return nil, err
	}
	key := submissionKey(req.Text, req.MaxJobs, req.Force)
	s, resume, rep := c.beginSubmission(ctx, key, req.Run, f)
	if s == nil {
		if rep == nil {
			return nil, ctx.Err()
		}
		return rep, nil
	}
	if resume != "" {
		// The same sweep's run, left half published by a submission that
		// failed: publish the rest.
		s.err = c.republish(ctx, resume)
		if s.err == nil {
			var rec broker.RunRecord
			if rec, s.err = c.getRun(ctx, resume); s.err == nil {
				s.rep = existingReply(rec, f)
			}
		}
	} else {
		s.rep, s.err = c.submit(ctx, req, f, jobs, key)
	}
	c.mu.Lock()
	delete(c.submitting, key)
	if req.Run != "" {
		delete(c.submitting, "run:"+req.Run)
	}
	close(s.done)
	c.mu.Unlock()
	return s.rep, s.err
}

// beginSubmission registers a submission of key (and run, if set) and
// returns it, or returns the reply that answers it: that of an identical
// submission in progress (waited for), or that of the same sweep's run in
// progress. If that run is left half published and nobody publishes it,
// the submission is registered to resume it (resume is its ID). Neither is
// returned if ctx ends while waiting.
func (c *Coordinator) beginSubmission(ctx context.Context, key, run string, f *sweep.File) (s *submission, resume string, rep *SubmitReply) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for {
		s := c.submitting[key]
		sameSweep := s != nil
		if s == nil && run != "" {
			s = c.submitting["run:"+run]
		}
		if s == nil {
			break
		}
		c.mu.Unlock()
		select {
		case <-s.done:
		case <-ctx.Done():
			c.mu.Lock()
			return nil, "", nil
		}
		c.mu.Lock()
		if s.err == nil && sameSweep {
			rep := *s.rep
			rep.Existing = true
			return nil, "", &rep
		}
	}
	for _, r := range c.runs {
		if r.key != key || (r.rec.Status != broker.RunPublishing && r.rec.Status != broker.RunRunning) {
			continue
		}
		if r.rec.Status == broker.RunRunning || r.publishing {
			return nil, "", existingReply(r.rec, f)
		}
		resume = r.rec.ID
		break
	}
	s = &submission{done: make(chan struct{})}
	c.submitting[key] = s
	if run != "" {
		c.submitting["run:"+run] = s
	}
	return s, resume, nil
}

// existingReply describes a run a submission found already there.
func existingReply(rec broker.RunRecord, f *sweep.File) *SubmitReply {
	names := make([]string, len(f.Sweeps))
	for i, s := range f.Sweeps {
		names[i] = s.Name
	}
	return &SubmitReply{Run: rec.ID, Sweeps: names, Total: rec.Total, Skipped: rec.Skipped, Published: rec.Total - rec.Skipped,
		Existing: true, Status: rec.Status}
}

// submit does the work of Submit for a checked request of sweep f, whose
// expansion is jobs (nil: not expanded yet).
func (c *Coordinator) submit(ctx context.Context, req SubmitRequest, f *sweep.File, jobs []sweep.Job, key string) (*SubmitReply, error) {
	if req.Run != "" {
		// A run of this ID (not in progress here: beginSubmission looked)
		// is the same submission sent again, or a mistake.
		e, err := c.farm.Runs.Get(ctx, req.Run)
		switch {
		case err == nil:
			var rec broker.RunRecord
			if err := json.Unmarshal(e.Value(), &rec); err != nil {
				return nil, fmt.Errorf("run %s: decode record: %w", req.Run, err)
			}
			if submissionKey(rec.Text, rec.MaxJobs, rec.Force) != key {
				return nil, &RequestError{Verb: "submit", Err: fmt.Errorf("run %s already exists, of another sweep (or other --max-jobs or --force); leave the run ID out to start a new run", req.Run)}
			}
			return existingReply(rec, f), nil
		case !broker.IsNotFound(err):
			return nil, fmt.Errorf("run %s: %w", req.Run, err)
		}
	}
	if jobs == nil {
		var err error
		if jobs, err = f.Expand(req.MaxJobs); err != nil {
			return nil, err
		}
	}
	if req.Run == "" {
		req.Run = NewRunID()
	}
	rec := broker.RunRecord{
		ID: req.Run, File: req.File, Text: req.Text, MaxJobs: req.MaxJobs, Force: req.Force,
		Created: time.Now().UTC(), Total: uniqueJobs(jobs), Status: broker.RunPublishing, Owner: c.name,
	}
	c.syncInvalid(ctx)
	skip := c.alreadyDone(jobs, req.Force)
	rec.Skipped = len(skip)
	if err := c.putRun(ctx, rec); err != nil {
		return nil, err
	}
	c.addRun(rec, jobs, skip, f.Adaptive())
	c.setPublishing(rec.ID, true)
	published, err := c.publishRun(ctx, rec.ID, jobs, skip)
	c.setPublishing(rec.ID, false)
	if err != nil {
		return nil, fmt.Errorf("run %s: published %d of %d jobs, then: %w (resubmitting or restarting the coordinator resumes it)",
			rec.ID, published, len(jobs)-len(skip), err)
	}
	if err := c.markRunning(ctx, rec.ID); err != nil {
		return nil, err
	}
	names := make([]string, len(f.Sweeps))
	for i, s := range f.Sweeps {
		names[i] = s.Name
	}
	c.log.Info("run submitted", "run", rec.ID, "file", req.File, "jobs", len(jobs), "skipped", len(skip), "published", published)
	return &SubmitReply{Run: rec.ID, Sweeps: names, Total: rec.Total, Skipped: len(skip), Published: published}, nil
}

// syncInvalid applies the registry's invalidation markers that the watch
// has not delivered yet: a submission right after a collection found a
// part bad (or after `schedfarm parts invalidate`) must run its jobs,
// and the watch may deliver the marker a moment later (much later while
// it recovers from a lost connection). Markers are few, and the server
// lists their keys alone. A failure to list is logged: the watch
// delivers the markers later all the same.
func (c *Coordinator) syncInvalid(ctx context.Context) {
	lister, err := c.farm.Done.ListKeysFiltered(ctx, "*.*"+broker.InvalidSuffix)
	if err != nil {
		c.log.Warn("cannot list the registry's invalidation markers; a part invalidated a moment ago may be counted valid", "err", err)
		return
	}
	for k := range lister.Keys() {
		run, part, _, ok := broker.ParseDoneKey(k)
		if !ok {
			continue
		}
		c.mu.Lock()
		_, seen := c.done.invalid[broker.DoneKey(run, part)]
		c.mu.Unlock()
		if seen {
			continue
		}
		e, err := c.farm.Done.Get(ctx, k)
		if err != nil {
			c.log.Warn("cannot read an invalidation marker", "key", k, "err", err)
			continue
		}
		c.onInvalid(e)
	}
}

// alreadyDone returns the jobs whose current results the registry holds
// in a valid part (doneJobs), which a submission skips; none with force.
func (c *Coordinator) alreadyDone(jobs []sweep.Job, force bool) map[uuid.UUID]bool {
	skip := map[uuid.UUID]bool{}
	if force {
		return skip
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range jobs {
		if c.done.has(jobs[i].ID) {
			skip[jobs[i].ID] = true
		}
	}
	return skip
}

// Pending returns the jobs whose results the registry does not hold: the
// ones a submission without Force would publish. After Start it reflects
// the whole registry.
func (c *Coordinator) Pending(jobs []sweep.Job) []sweep.Job {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []sweep.Job
	for _, j := range jobs {
		if !c.done.has(j.ID) {
			out = append(out, j)
		}
	}
	return out
}

// uniqueJobs counts distinct job IDs: a job that two sweeps of a file share
// runs once.
func uniqueJobs(jobs []sweep.Job) int {
	seen := make(map[uuid.UUID]struct{}, len(jobs))
	for i := range jobs {
		seen[jobs[i].ID] = struct{}{}
	}
	return len(seen)
}

func (c *Coordinator) markRunning(ctx context.Context, run string) error {
	c.mu.Lock()
	r := c.runs[run]
	if r == nil || r.rec.Status != broker.RunPublishing {
		c.mu.Unlock()
		return nil
	}
	rec := r.rec
	rec.Status = broker.RunRunning
	c.mu.Unlock()
	// Store first, then show: settle (which may complete the run right
	// after) must never be overwritten by this older record.
	if err := c.putRun(ctx, rec); err != nil {
		return err
	}
	c.mu.Lock()
	r.rec.Status = broker.RunRunning
	c.mu.Unlock()
	c.settle(ctx, run)
	return nil
}

// publishRun publishes a new run's jobs (those not in skip) in messages
// sized by the packing policy: under PackAuto, each large enough sweep's
// first jobs go alone as a probe, followed at once by the sweeps too small
// to probe (one job per message), and the rest in packs sized from the
// probe's results, the sweeps of the longest jobs first. The choices are
// stored in the run record before the packs are published (a run resumed
// before that sends one job per message, which is what the small sweeps
// got). It returns the number of jobs published.
func (c *Coordinator) publishRun(ctx context.Context, run string, jobs []sweep.Job, skip map[uuid.UUID]bool) (int, error) {
	pol := c.cfg.Packing.withDefaults()
	order, bySweep := toPublish(jobs, skip)
	published := 0
	var pr *probe
	var probes, small [][]*sweep.Job
	early := map[string]bool{} // sweeps published in full with the probes
	if pol.Mode == PackAuto {
		pr = newProbe(pol.Target)
		for _, j := range probeJobs(order, bySweep, pol) {
			pr.add(j.Sweep, j.ID)
			probes = append(probes, []*sweep.Job{j})
		}
		if len(probes) > 0 {
			// The sweeps too small to probe need no decision: they go
			// right behind the probes, so that the workers have them to
			// run while the probes' results come back.
			for _, s := range order {
				if !pol.probes(len(bySweep[s])) {
					early[s] = true
					small = append(small, packsOf(bySweep[s], 1)...)
				}
			}
		}
	}
	results := map[string]*probeResult{}
	if len(probes) > 0 {
		c.mu.Lock()
		r := c.runs[run]
		if r != nil {
			r.probe = pr // before publishing: a probe result may come back at once
		}
		c.mu.Unlock()
		n, err := c.publish(ctx, run, append(probes, small...))
		published += n
		if err != nil {
			return published, err
		}
		timer := time.NewTimer(pol.ProbeWait)
		timedOut := false
	wait:
		for {
			select {
			case <-pr.done:
				break wait
			case <-pr.progress:
				// a result came back: ProbeWait again for the next one
				timer.Reset(pol.ProbeWait)
			case <-timer.C:
				timedOut = true
				break wait
			case <-ctx.Done():
				timer.Stop()
				return published, ctx.Err()
			}
		}
		timer.Stop()
		c.mu.Lock()
		if r != nil {
			r.probe = nil
		}
		for s, res := range pr.results {
			cp := *res
			cp.TimedOut = timedOut && cp.N < cp.Sent
			results[s] = &cp
		}
		c.mu.Unlock()
	}
	choices := make([]broker.PackChoice, len(order))
	for i, s := range order {
		choices[i] = pol.decide(s, len(bySweep[s]), results[s])
	}
	// Under PackAuto the probed sweeps go longest jobs first, so that the
	// run ends with the sweep of the shortest jobs, whose last jobs go in
	// shrinking packs: the run's end is then fine-grained. Sweeps whose
	// probe told nothing count as longest.
	pub := make([]int, 0, len(order))
	for i, s := range order {
		if !early[s] && len(bySweep[s]) > 0 {
			pub = append(pub, i)
		}
	}
	if pol.Mode == PackAuto {
		mean := func(i int) float64 {
			if choices[i].Probed == 0 {
				return math.Inf(1)
			}
			return choices[i].ProbeMeanMs
		}
		slices.SortStableFunc(pub, func(a, b int) int { return cmp.Compare(mean(b), mean(a)) })
	}
	var units [][]*sweep.Job
	for n, i := range pub {
		s := order[i]
		rest := bySweep[s]
		if res := results[s]; res != nil {
			rest = rest[res.Sent:]
		}
		if ch := &choices[i]; pol.Mode == PackAuto && n == len(pub)-1 && ch.K > 1 {
			packs, tail := taperedPacksOf(rest, ch.K)
			units = append(units, packs...)
			ch.Reason += fmt.Sprintf("; published last (the shortest jobs), its last %d jobs in shrinking packs, down to one job", tail)
		} else {
			units = append(units, packsOf(rest, ch.K)...)
		}
	}
	if err := c.recordPacking(ctx, run, choices); err != nil {
		return published, err
	}
	n, err := c.publish(ctx, run, units)
	return published + n, err
}

// recordPacking stores the packing choices in the run's record.
func (c *Coordinator) recordPacking(ctx context.Context, run string, choices []broker.PackChoice) error {
	c.mu.Lock()
	r := c.runs[run]
	if r == nil {
		c.mu.Unlock()
		return nil
	}
	r.rec.Packing = choices
	rec := r.rec
	c.mu.Unlock()
	for _, ch := range choices {
		c.log.Info("packing", "run", run, "sweep", ch.Sweep, "k", ch.K, "reason", ch.Reason)
	}
	return c.putRun(ctx, rec)
}

// toPublish returns the jobs to publish (each distinct job once, those in
// skip left out) by sweep, and the sweeps in order of first appearance.
func toPublish(jobs []sweep.Job, skip map[uuid.UUID]bool) ([]string, map[string][]*sweep.Job) {
	var order []string
	by := map[string][]*sweep.Job{}
	queued := make(map[uuid.UUID]bool, len(jobs))
	for i := range jobs {
		j := &jobs[i]
		if _, ok := by[j.Sweep]; !ok {
			order = append(order, j.Sweep)
			by[j.Sweep] = nil
		}
		if skip[j.ID] || queued[j.ID] {
			continue
		}
		queued[j.ID] = true
		by[j.Sweep] = append(by[j.Sweep], j)
	}
	return order, by
}

// probeJobs returns the probe jobs of the sweeps that are probed: the first
// ProbeJobs of each, taken in turn from every sweep (the first job of each
// sweep, then the second, …), so that every sweep has results early even
// when another's jobs are long enough to keep the workers busy past
// ProbeWait.
func probeJobs(order []string, bySweep map[string][]*sweep.Job, pol Packing) []*sweep.Job {
	var out []*sweep.Job
	for i := 0; i < pol.ProbeJobs; i++ {
		for _, s := range order {
			if pol.probes(len(bySweep[s])) {
				out = append(out, bySweep[s][i])
			}
		}
	}
	return out
}

// taperedPacksOf cuts jobs into messages of k jobs like packsOf, except
// the last ones, which go in packs of shrinking size (two of each power of
// two below k, largest first, then four of one job): the end of a run's
// queue is short messages, so that no worker is left running a whole pack
// while the others have nothing to do. It also returns how many jobs went
// in the shrinking packs.
func taperedPacksOf(jobs []*sweep.Job, k int) ([][]*sweep.Job, int) {
	if k <= 1 {
		return packsOf(jobs, 1), 0
	}
	tail := []int{1, 1, 1, 1} // sizes, the run's last message first
	for s := 2; s < k; s *= 2 {
		tail = append(tail, s, s)
	}
	n := 0
	for i, s := range tail {
		if n+s > len(jobs) {
			tail = tail[:i]
			break
		}
		n += s
	}
	out := packsOf(jobs[:len(jobs)-n], k)
	rest := jobs[len(jobs)-n:]
	for i := len(tail) - 1; i >= 0; i-- {
		s := tail[i]
		out = append(out, rest[:s:s])
		rest = rest[s:]
	}
	return out, n
}

// packsOf cuts jobs into messages of k jobs (the last may hold fewer).
func packsOf(jobs []*sweep.Job, k int) [][]*sweep.Job {
	k = max(k, 1)
	out := make([][]*sweep.Job, 0, (len(jobs)+k-1)/k)
	for len(jobs) > 0 {
		n := min(k, len(jobs))
		out = append(out, jobs[:n:n])
		jobs = jobs[n:]
	}
	return out
}

// maxInflightBytes bounds the encoded job messages awaiting JetStream's
// acknowledgement.
const maxInflightBytes = 4 << 20

// publish sends messages of one job or a pack of jobs each, asynchronously
// with a bounded number in flight; each carries Nats-Msg-Id = run.job (for
// a pack: its first job and size), so that a republish inside the dedup
// window is dropped by the server. It returns the number of jobs sent.
func (c *Coordinator) publish(ctx context.Context, run string, units [][]*sweep.Job) (int, error) {
	subject := c.farm.Names.JobSubject(run)
	type pending struct {
		fut  jetstream.PubAckFuture
		unit []*sweep.Job
	}
	var inflight []pending
	inflightBytes, sent := 0, 0
	drain := func() error {
		select {
		case <-c.farm.JS.PublishAsyncComplete():
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Minute):
			return fmt.Errorf("publish: no acknowledgement from JetStream within a minute")
		}
		for _, p := range inflight {
			select {
			case <-p.fut.Ok():
				sent += len(p.unit)
			case err := <-p.fut.Err():
				// Retry once synchronously: a transient error must not lose a job.
				data, _ := broker.EncodePack(run, p.unit)
				if _, err2 := c.farm.JS.Publish(ctx, subject, data, jetstream.WithMsgID(broker.PackMsgID(run, p.unit))); err2 != nil {
					return fmt.Errorf("publish job %s: %w (retry: %v)", p.unit[0].ID, err, err2)
				}
				sent += len(p.unit)
			}
		}
		inflight, inflightBytes = inflight[:0], 0
		return nil
	}
	for len(units) > 0 {
		u := units[0]
		units = units[1:]
		data, err := broker.EncodePack(run, u)
		if errors.Is(err, broker.ErrPackTooLarge) && len(u) > 1 {
			// Large parameters: the same jobs in two smaller packs.
			h := len(u) / 2
			units = append([][]*sweep.Job{u[:h:h], u[h:]}, units...)
			continue
		}
		if err != nil {
			return sent, err
		}
		fut, err := c.farm.JS.PublishAsync(subject, data, jetstream.WithMsgID(broker.PackMsgID(run, u)))
		if err != nil {
			return sent, fmt.Errorf("publish job %s: %w", u[0].ID, err)
		}
		inflight = append(inflight, pending{fut: fut, unit: u})
		inflightBytes += len(data)
		// Bounded by count and by bytes: packs of large jobs would
		// otherwise hold a whole run's encoding in memory at once.
		if len(inflight) >= 2048 || inflightBytes >= maxInflightBytes {
			if err := drain(); err != nil {
				return sent, err
			}
		}
	}
	if err := drain(); err != nil {
		return sent, err
	}
	return sent, nil
}

// republish resumes the publication of a run a previous coordinator left
// half published: every job not yet done or failed is published again; the
// server drops those already in the stream (same message ID, inside the
// dedup window) and a job published twice is harmless.
func (c *Coordinator) republish(ctx context.Context, run string) error {
	c.mu.Lock()
	r := c.runs[run]
	if r != nil {
		r.publishing = true
	}
	c.mu.Unlock()
	if r == nil {
		return nil
	}
	defer c.setPublishing(run, false)
	jobs, _, err := c.expand(r.rec)
	if err != nil {
		return err
	}
	skip := map[uuid.UUID]bool{}
	txn := c.db.Txn(false)
	for i := range jobs {
		if st := c.lookup(txn, run, jobs[i].ID); st != nil && (st.Status == StatusDone || st.Status == StatusFailed) {
			skip[jobs[i].ID] = true
		}
	}
	// The packing decided at submission holds; a run whose packing was
	// not decided yet (its coordinator stopped during the probe) is sent
	// one job per message.
	k := map[string]int{}
	for _, ch := range r.rec.Packing {
		k[ch.Sweep] = ch.K
	}
	order, bySweep := toPublish(jobs, skip)
	var units [][]*sweep.Job
	for _, s := range order {
		units = append(units, packsOf(bySweep[s], k[s])...)
	}
	n, err := c.publish(ctx, run, units)
	if err != nil {
		return fmt.Errorf("resume run %s: %w", run, err)
	}
	c.log.Info("resumed publication", "run", run, "republished", n)
	return c.markRunning(ctx, run)
}

// setPublishing records whether a run's jobs are being published.
func (c *Coordinator) setPublishing(run string, on bool) {
	c.mu.Lock()
	if r := c.runs[run]; r != nil {
		r.publishing = on
	}
	c.mu.Unlock()
}

// Cancel stops a run: its queued jobs are purged from the work queue and
// the run is marked cancelled. Jobs already running finish, and their
// results are kept.
func (c *Coordinator) Cancel(ctx context.Context, run string) error {
	rec, err := c.getRun(ctx, run)
	if err != nil {
		return err
	}
	if err := c.farm.Jobs.Purge(ctx, jetstream.WithPurgeSubject(c.farm.Names.JobSubject(run))); err != nil {
		return fmt.Errorf("cancel run %s: purge queued jobs: %w", run, err)
	}
	c.mu.Lock()
	if r := c.runs[run]; r != nil {
		rec = r.rec
		rec.Done, rec.Failed, rec.Redelivered, rec.ModelMs = r.counts.Done, r.counts.Failed, r.counts.Redeliver, r.counts.ModelMs
	}
	c.mu.Unlock()
	c.forget(run)
	if rec.Status == broker.RunComplete {
		return nil
	}
	rec.Status = broker.RunCancelled
	rec.Finished = time.Now().UTC()
	return c.putRun(ctx, rec)
}
