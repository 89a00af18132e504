package coordinator

import (
	"context"
	"fmt"
	"sort"
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
	// Run is the run ID to use; empty picks a new one.
	Run string `json:"run,omitempty"`
}

// SubmitReply says what a submission did.
type SubmitReply struct {
	Run       string   `json:"run"`
	Sweeps    []string `json:"sweeps"`
	Total     int      `json:"total"`
	Skipped   int      `json:"skipped"`
	Published int      `json:"published"`
}

// Submit expands the sweep, skips the jobs already done (unless Force),
// records the run and publishes its jobs. Nothing is published when the
// sweep does not validate or is over its job limit.
func (c *Coordinator) Submit(ctx context.Context, req SubmitRequest) (*SubmitReply, error) {
	if req.MaxJobs <= 0 {
		req.MaxJobs = sweep.DefaultMaxJobs
	}
	f, err := sweep.Parse(req.File, []byte(req.Text), c.reg)
	if err != nil {
		return nil, err
	}
	jobs, err := f.Expand(req.MaxJobs)
	if err != nil {
		return nil, err
	}
	if req.Run == "" {
		req.Run = NewRunID()
	}
	rec := broker.RunRecord{
		ID: req.Run, File: req.File, Text: req.Text, MaxJobs: req.MaxJobs, Force: req.Force,
		Created: time.Now().UTC(), Total: uniqueJobs(jobs), Status: broker.RunPublishing, Owner: c.name,
	}
	if _, err := c.farm.Runs.Get(ctx, rec.ID); err == nil {
		return nil, fmt.Errorf("run %s already exists", rec.ID)
	}
	skip := map[uuid.UUID]bool{}
	if !req.Force {
		c.mu.Lock()
		for i := range jobs {
			if _, ok := c.done[jobs[i].ID]; ok {
				skip[jobs[i].ID] = true
			}
		}
		c.mu.Unlock()
	}
	rec.Skipped = len(skip)
	if err := c.putRun(ctx, rec); err != nil {
		return nil, err
	}
	c.addRun(rec, jobs, skip)
	published, err := c.publish(ctx, rec.ID, jobs, skip)
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

// publish sends the jobs not in skip, asynchronously with a bounded number
// in flight; each message carries Nats-Msg-Id = run.job so that a republish
// inside the dedup window is dropped by the server.
func (c *Coordinator) publish(ctx context.Context, run string, jobs []sweep.Job, skip map[uuid.UUID]bool) (int, error) {
	subject := c.farm.Names.JobSubject(run)
	type pending struct {
		fut jetstream.PubAckFuture
		job int
	}
	var inflight []pending
	sent := 0
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
				sent++
			case err := <-p.fut.Err():
				// Retry once synchronously: a transient error must not lose a job.
				j := &jobs[p.job]
				data, _ := broker.EncodeJob(run, j)
				if _, err2 := c.farm.JS.Publish(ctx, subject, data, jetstream.WithMsgID(broker.MsgID(run, j.ID.String()))); err2 != nil {
					return fmt.Errorf("publish job %s: %w (retry: %v)", j.ID, err, err2)
				}
				sent++
			}
		}
		inflight = inflight[:0]
		return nil
	}
	queued := make(map[uuid.UUID]bool, len(jobs))
	for i := range jobs {
		j := &jobs[i]
		if skip[j.ID] || queued[j.ID] {
			continue
		}
		queued[j.ID] = true
		data, err := broker.EncodeJob(run, j)
		if err != nil {
			return sent, err
		}
		fut, err := c.farm.JS.PublishAsync(subject, data, jetstream.WithMsgID(broker.MsgID(run, j.ID.String())))
		if err != nil {
			return sent, fmt.Errorf("publish job %s: %w", j.ID, err)
		}
		inflight = append(inflight, pending{fut: fut, job: i})
		if len(inflight) >= 2048 {
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
	c.mu.Unlock()
	if r == nil {
		return nil
	}
	jobs, err := c.expand(r.rec)
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
	n, err := c.publish(ctx, run, jobs, skip)
	if err != nil {
		return fmt.Errorf("resume run %s: %w", run, err)
	}
	c.log.Info("resumed publication", "run", run, "republished", n)
	return c.markRunning(ctx, run)
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
		rec.Done, rec.Failed, rec.Redelivered = r.counts.Done, r.counts.Failed, r.counts.Redeliver
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

// RunIDs returns the IDs of the runs this coordinator tracks, sorted.
func (c *Coordinator) RunIDs() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	ids := make([]string, 0, len(c.runs))
	for id := range c.runs {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}
