// Package coordinator drives runs: it expands a submitted sweep, skips jobs
// the finished-jobs registry already holds, publishes the rest on the
// JetStream work queue, tracks every job (a status byte per job; the jobs
// with failed attempts in go-memdb, indexed by run, status and worker) from
// the registry, the failure bucket and the workers' heartbeats, and records as failed the jobs that exhausted their
// deliveries. All durable state lives in JetStream (run records, the
// registry, failures), so a restarted coordinator resumes where the last
// one stood.
package coordinator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	memdb "github.com/hashicorp/go-memdb"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"schedfarm/broker"
	"schedfarm/simcore"
	"schedfarm/sweep"
)

// Config configures a coordinator.
type Config struct {
	// Name identifies this coordinator (default host-pid).
	Name     string
	Registry *simcore.Registry
	Logger   *slog.Logger
	// WorkerTimeout is the heartbeat age after which a worker is shown as lost.
	WorkerTimeout time.Duration
	// WorkerForget is the heartbeat age after which a lost worker is
	// forgotten: no longer listed by status until it heartbeats again
	// (default 20 × WorkerTimeout, 5 minutes).
	WorkerForget time.Duration
	// Now is the coordinator's clock, by which heartbeat ages are measured
	// (nil: time.Now); a test injects its own.
	Now func() time.Time
	// Packing sizes job messages: tiny jobs travel several to a message
	// (see Packing; the zero value sends one job per message).
	Packing Packing
}

// Coordinator tracks the farm's runs. Create it with New and start it with
// Start; it serves requests on schedfarm.api.* until its context ends.
type Coordinator struct {
	farm *broker.Farm
	reg  *simcore.Registry
	log  *slog.Logger
	name string
	db   *memdb.MemDB
	cfg  Config

	mu   sync.Mutex
	runs map[string]*runEntry
	// done holds every finished job ever registered, with whether its
	// current result is valid (doneJobs), checked before publishing.
	// Where each result is stored is read from the registry when collecting.
	done doneJobs
	// aliases numbers the runs this coordinator tracks, for short job keys.
	aliases int
	// ended is closed (and replaced) whenever a run leaves memory: it
	// completed or was cancelled (Ended).
	ended chan struct{}
	// submitting holds the submissions being worked on, by sweep key
	// (submissionKey) and by "run:" and their run ID.
	submitting map[string]*submission

	// cache holds the summaries of finished runs for status (status.go).
	cache statusCache

	subs []*nats.Subscription
	wg   sync.WaitGroup
	stop context.CancelFunc
	lost atomic.Bool
	// leaseVal is the value this coordinator wrote into the lease when it
	// took it (releaseLease knows its own entry by it). Written by
	// acquireLease before the lease keeper starts, then by the keeper alone.
	leaseVal []byte
}

type runEntry struct {
	rec    broker.RunRecord
	counts runCounts
	alias  string
	// ids maps job ID to its index in the run; status (one code per
	// index) and sweepOf (an index into sweeps) are the job's state and
	// sweep. Jobs that failed an attempt also have a jobState in memdb.
	ids     map[uuid.UUID]int32
	status  []uint8
	sweepOf []int32
	sweeps  []string
	// attempts is, per job, the latest delivery of it seen (0: none yet;
	// at most 255): counts.Redeliver sums the deliveries beyond the first.
	attempts []uint8
	// probe, while the run's packing is being measured, follows the
	// probe jobs' results.
	probe *probe
	// key identifies the run's sweep as submitted (submissionKey);
	// publishing is set while a submission or a resume publishes its jobs.
	key        string
	publishing bool
	// adaptive: the run has sweeps with adaptive replicates. rounding is
	// set while a round is evaluated or published, roundsDone once the
	// rounds are over (see rounds.go).
	adaptive, rounding, roundsDone bool
	roundErrors                    int // failed evaluations of the round
	// claims are the adaptive sweeps' claims as the last round decided
	// them (RunProgress.RoundClaims).
	claims []RoundClaim
}

// lookup returns the state of a job of a run (a copy), or nil. Writers
// hold a write txn, which serialises them. c.mu must not be held.
func (c *Coordinator) lookup(txn *memdb.Txn, run string, job uuid.UUID) *jobState {
	c.mu.Lock()
	r := c.runs[run]
	if r == nil {
		c.mu.Unlock()
		return nil
	}
	idx, ok := r.ids[job]
	if !ok {
		c.mu.Unlock()
		return nil
	}
	code, sweep, alias := r.status[idx], r.sweeps[r.sweepOf[idx]], r.alias
	c.mu.Unlock()
	key := jobKey(alias, idx)
	if detailed(code) {
		if raw, _ := txn.First("jobs", "id", key); raw != nil {
			st := *raw.(*jobState)
			return &st
		}
	}
	return &jobState{Key: key, Run: alias, Job: job, Sweep: sweep, Index: idx, Status: statusNames[code]}
}

// store records a job's new state (st from lookup, modified) in txn, a
// write txn: its status code, and its details in memdb while it has a
// failed attempt. c.mu must not be held.
func (c *Coordinator) store(txn *memdb.Txn, run string, st *jobState) {
	code := statusCode(st.Status)
	c.mu.Lock()
	if r := c.runs[run]; r != nil && int(st.Index) < len(r.status) {
		r.status[st.Index] = code
	}
	c.mu.Unlock()
	if detailed(code) {
		if err := txn.Insert("jobs", st); err != nil {
			panic(fmt.Sprintf("memdb insert: %v", err)) // schema bug, not input
		}
		return
	}
	if raw, _ := txn.First("jobs", "id", st.Key); raw != nil {
		_ = txn.Delete("jobs", raw)
	}
}

// New returns a coordinator over the farm's resources.
func New(farm *broker.Farm, cfg Config) (*Coordinator, error) {
	if cfg.Registry == nil {
		return nil, errors.New("coordinator: no model registry")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Name == "" {
		host, _ := os.Hostname()
		cfg.Name = fmt.Sprintf("coordinator-%s-%d", host, os.Getpid())
	}
	if cfg.WorkerTimeout == 0 {
		cfg.WorkerTimeout = 15 * time.Second
	}
	if cfg.WorkerForget == 0 {
		cfg.WorkerForget = 20 * cfg.WorkerTimeout
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	db, err := newDB()
	if err != nil {
		return nil, err
	}
	return &Coordinator{
		farm: farm, reg: cfg.Registry, log: cfg.Logger.With("coordinator", cfg.Name), name: cfg.Name, db: db, cfg: cfg,
		runs: map[string]*runEntry{}, done: newDoneJobs(), submitting: map[string]*submission{},
	}, nil
}

// Start takes the farm's coordinator lease, sets the configuration of the
// farm's resources from its Settings (broker.Farm.Apply), loads the runs
// in progress, catches up with the registry of finished jobs and the
// failures, republishes what a previous coordinator had not finished
// publishing, and starts serving. It returns once the
// coordinator is ready; the background work stops when ctx ends (then call
// Wait).
func (c *Coordinator) Start(ctx context.Context) error {
	rev, err := c.acquireLease(ctx)
	if err != nil {
		return err
	}
	// The lease holder alone sets the farm's configuration (AckWait,
	// MaxDeliver, ...): a coordinator that was refused changed nothing.
	// Apply replaces the farm's bucket handles, which the lease keeper
	// reads, so it runs before the keeper starts (it takes far less than
	// the lease's TTL).
	if err := c.farm.Apply(ctx); err != nil {
		c.releaseLease(rev)
		return fmt.Errorf("coordinator: %w", err)
	}
	ctx, c.stop = context.WithCancel(ctx)
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		c.keepLease(ctx, rev, func() {
			c.lost.Store(true)
			c.stop()
		})
	}()
	if err := c.serve(ctx); err != nil {
		// Stop and wait: the lease is released before Start returns, so
		// the caller may close the connection at once (closed first, the
		// release never reached the server and the next coordinator
		// waited a whole TTL for a lease nobody held).
		c.stop()
		c.wg.Wait()
		return err
	}
	return nil
}

// serve loads the runs, catches up with the registries and subscribes.
func (c *Coordinator) serve(ctx context.Context) error {
	if err := c.loadRuns(ctx); err != nil {
		return err
	}
	if err := c.watch(ctx, c.farm.Done, c.onDone); err != nil {
		return err
	}
	if err := c.watch(ctx, c.farm.Failed, c.onFailed); err != nil {
		return err
	}
	for _, sub := range []struct {
		subj string
		cb   nats.MsgHandler
	}{
		{c.farm.Names.HeartbeatAll(), c.onHeartbeat},
		{c.farm.Names.ErrorAll(), c.onError},
		{c.farm.Names.DeliveryAll(), c.onDelivery},
		{c.farm.Names.MaxDeliveriesAdvisory(), c.onMaxDeliveries},
		{c.farm.Names.APIAll(), c.onRequest},
	} {
		s, err := c.farm.NC.Subscribe(sub.subj, sub.cb)
		if err != nil {
			return fmt.Errorf("coordinator: subscribe %s: %w", sub.subj, err)
		}
		c.subs = append(c.subs, s)
	}
	if err := c.farm.NC.Flush(); err != nil {
		return fmt.Errorf("coordinator: %w", err)
	}
	// Resume: republish the runs whose publication a previous coordinator
	// did not finish, and settle the runs that finished meanwhile.
	c.mu.Lock()
	var resume []string
	for id, r := range c.runs {
		if r.rec.Status == broker.RunPublishing {
			resume = append(resume, id)
		}
	}
	c.mu.Unlock()
	sort.Strings(resume)
	for _, id := range resume {
		if err := c.republish(ctx, id); err != nil {
			return err
		}
	}
	c.settleAll(ctx)
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		// A run whose completion could not be stored (a transient JetStream
		// error) is settled again here.
		t := time.NewTicker(5 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				for _, s := range c.subs {
					_ = s.Unsubscribe()
				}
				return
			case <-t.C:
				c.settleAll(ctx)
				c.pruneWorkers(c.now())
			}
		}
	}()
	c.log.Info("coordinator ready", "runs_in_progress", len(resume))
	return nil
}

// Wait blocks until the background work started by Start has stopped. It
// returns an error if the coordinator stopped because it lost its lease.
func (c *Coordinator) Wait() error {
	c.wg.Wait()
	if c.lost.Load() {
		return fmt.Errorf("coordinator %s stopped: it lost the farm's coordinator lease to another coordinator", c.name)
	}
	return nil
}

// watch delivers every entry of a bucket, old and new, to fn; it returns
// after the entries that existed at the call have been delivered.
func (c *Coordinator) watch(ctx context.Context, kv jetstream.KeyValue, fn func(context.Context, jetstream.KeyValueEntry)) error {
	w, err := kv.WatchAll(ctx, jetstream.IgnoreDeletes())
	if err != nil {
		return fmt.Errorf("coordinator: watch %s: %w", kv.Bucket(), err)
	}
	synced := make(chan struct{})
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		defer func() { _ = w.Stop() }()
		initial := true
		for {
			select {
			case <-ctx.Done():
				if initial {
					close(synced)
				}
				return
			case e, ok := <-w.Updates():
				if !ok {
					if initial {
						close(synced)
					}
					return
				}
				if e == nil {
					if initial {
						initial = false
						close(synced)
					}
					continue
				}
				fn(ctx, e)
			}
		}
	}()
	select {
	case <-synced:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// loadRuns reads the run records of runs still in progress and rebuilds
// their jobs from the sweep text they carry.
func (c *Coordinator) loadRuns(ctx context.Context) error {
	lister, err := c.farm.Runs.ListKeys(ctx)
	if err != nil {
		return fmt.Errorf("coordinator: list runs: %w", err)
	}
	var keys []string
	for k := range lister.Keys() {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		rec, err := c.getRun(ctx, k)
		if err != nil {
			return err
		}
		if rec.Status != broker.RunPublishing && rec.Status != broker.RunRunning {
			continue
		}
		jobs, adaptive, err := c.expand(rec)
		if err != nil {
			c.log.Error("cannot resume run: its sweep no longer expands", "run", rec.ID, "err", err)
			continue
		}
		c.addRun(rec, jobs, nil, adaptive)
		c.log.Info("resuming run", "run", rec.ID, "file", rec.File, "jobs", len(jobs), "status", rec.Status)
	}
	return nil
}

func (c *Coordinator) getRun(ctx context.Context, id string) (broker.RunRecord, error) {
	var rec broker.RunRecord
	e, err := c.farm.Runs.Get(ctx, id)
	if err != nil {
		if broker.IsNotFound(err) {
			return rec, fmt.Errorf("run %s not found", id)
		}
		return rec, fmt.Errorf("run %s: %w", id, err)
	}
	if err := json.Unmarshal(e.Value(), &rec); err != nil {
		return rec, fmt.Errorf("run %s: decode record: %w", id, err)
	}
	return rec, nil
}

func (c *Coordinator) putRun(ctx context.Context, rec broker.RunRecord) error {
	data, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	if _, err := c.farm.Runs.Put(ctx, rec.ID, data); err != nil {
		return fmt.Errorf("run %s: store record: %w", rec.ID, err)
	}
	return nil
}

// expand returns a run's jobs: its sweep file's expansion and its rounds
// of adaptive replicates; adaptive tells whether the file has sweeps with
// adaptive replicates.
func (c *Coordinator) expand(rec broker.RunRecord) (jobs []sweep.Job, adaptive bool, err error) {
	f, err := sweep.Parse(rec.File, []byte(rec.Text), c.reg)
	if err != nil {
		return nil, false, err
	}
	jobs, err = f.ExpandRun(rec.MaxJobs, rec.Rounds)
	return jobs, f.Adaptive(), err
}

// addRun registers a run and its jobs in memory. skip, when non-nil, marks
// the jobs already done by earlier runs.
func (c *Coordinator) addRun(rec broker.RunRecord, jobs []sweep.Job, skip map[uuid.UUID]bool, adaptive bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.aliases++
	e := &runEntry{rec: rec, alias: strconv.FormatInt(int64(c.aliases), 36), ids: make(map[uuid.UUID]int32, len(jobs)),
		status: make([]uint8, len(jobs)), sweepOf: make([]int32, len(jobs)), attempts: make([]uint8, len(jobs)),
		key: submissionKey(rec.Text, rec.MaxJobs, rec.Force), adaptive: adaptive}
	for i := range jobs {
		j := &jobs[i]
		if _, dup := e.ids[j.ID]; dup {
			// The same job in two sweeps of the file: it runs once, and
			// both sweeps' results take its row.
			continue
		}
		e.counts.Total++
		idx := int32(i)
		e.ids[j.ID] = idx
		if n := len(e.sweeps); n == 0 || e.sweeps[n-1] != j.Sweep {
			if k := slices.Index(e.sweeps, j.Sweep); k >= 0 {
				e.sweepOf[i] = int32(k)
			} else {
				e.sweeps = append(e.sweeps, j.Sweep)
				e.sweepOf[i] = int32(len(e.sweeps) - 1)
			}
		} else {
			e.sweepOf[i] = int32(n - 1)
		}
		if skip[j.ID] {
			e.status[i] = codeDone
			e.counts.Skipped++
		} else if c.done.has(j.ID) && !rec.Force && rec.Skipped > 0 {
			// A resumed run: jobs skipped at submission stay skipped.
			e.status[i] = codeDone
			e.counts.Skipped++
		}
	}
	c.runs[rec.ID] = e
}

// jobIDs parses the job IDs of a registry entry, logging bad ones.
func (c *Coordinator) jobIDs(key string, jobs []string) []uuid.UUID {
	ids := make([]uuid.UUID, 0, len(jobs))
	for _, s := range jobs {
		id, err := uuid.Parse(s)
		if err != nil {
			c.log.Error("bad job ID in registry entry", "key", key, "job", s)
			continue
		}
		ids = append(ids, id)
	}
	return ids
}

// onInvalid handles an invalidation marker of the registry: the part's
// jobs are no longer done unless another valid part of their newest run
// holds them, so that the next submission runs them again. Runs in
// progress keep their counts (a job of theirs that was done stays done
// in them; collecting such a run reports it missing).
func (c *Coordinator) onInvalid(e jetstream.KeyValueEntry) {
	var m broker.InvalidRecord
	if err := json.Unmarshal(e.Value(), &m); err != nil {
		c.log.Error("bad registry entry", "key", e.Key(), "err", err)
		return
	}
	run, part, _, _ := broker.ParseDoneKey(e.Key())
	ids := c.jobIDs(e.Key(), m.Jobs)
	c.mu.Lock()
	fresh := c.done.invalidate(run, broker.DoneKey(run, part), ids)
	c.mu.Unlock()
	if fresh {
		c.log.Info("part invalidated: its jobs run again when next submitted", "run", run, "part", part, "jobs", len(ids), "reason", m.Reason)
	}
}

// onDone handles one registry entry: a stored part and its jobs, or an
// invalidation marker (onInvalid).
func (c *Coordinator) onDone(ctx context.Context, e jetstream.KeyValueEntry) {
	if _, _, invalid, ok := broker.ParseDoneKey(e.Key()); ok && invalid {
		c.onInvalid(e)
		return
	}
	var p broker.PartRecord
	if err := json.Unmarshal(e.Value(), &p); err != nil {
		c.log.Error("bad registry entry", "key", e.Key(), "err", err)
		return
	}
	ids := c.jobIDs(e.Key(), p.Jobs)
	c.mu.Lock()
	c.done.part(p.Run, e.Key(), ids)
	r := c.runs[p.Run]
	if r != nil && len(p.Attempts) == len(p.Jobs) {
		// Every result counts, a late duplicate's too: it came from a
		// delivery of its own.
		for i, s := range p.Jobs {
			if id, err := uuid.Parse(s); err == nil {
				r.observe(id, p.Attempts[i])
			}
		}
	}
	if r != nil && r.probe != nil {
		r.probe.registered(ids, p.ModelMs, false)
	}
	c.mu.Unlock()
	if r == nil {
		return
	}
	txn := c.db.Txn(true)
	changed, fresh := false, 0
	for _, id := range ids {
		cur := c.lookup(txn, p.Run, id)
		if cur == nil {
			continue
		}
		st := *cur
		if st.Status == StatusDone {
			continue // a duplicate completion: harmless, results are keyed by job ID
		}
		c.mu.Lock()
		if st.Status == StatusFailed {
			r.counts.Failed--
		}
		r.counts.Done++
		c.mu.Unlock()
		changed = true
		fresh++
		st.Status, st.Error = StatusDone, ""
		c.store(txn, p.Run, &st)
	}
	txn.Commit()
	if fresh > 0 && len(ids) > 0 {
		// the part's model time, for the jobs this run had not seen done
		c.mu.Lock()
		r.counts.ModelMs += p.ModelMs * float64(fresh) / float64(len(ids))
		c.mu.Unlock()
	}
	if p.Redelivered > 0 && changed && len(p.Attempts) != len(p.Jobs) {
		// a part stored by an earlier worker, which told only how many of
		// its jobs came on a later delivery
		c.mu.Lock()
		r.counts.Redeliver += p.Redelivered
		c.mu.Unlock()
	}
	if changed {
		c.settle(ctx, p.Run)
	}
}

// onFailed handles a job that exhausted its deliveries.
func (c *Coordinator) onFailed(ctx context.Context, e jetstream.KeyValueEntry) {
	var f broker.FailRecord
	if err := json.Unmarshal(e.Value(), &f); err != nil {
		c.log.Error("bad failure entry", "key", e.Key(), "err", err)
		return
	}
	c.mu.Lock()
	r := c.runs[f.Run]
	c.mu.Unlock()
	if r == nil {
		return
	}
	id, err := uuid.Parse(f.Job)
	if err != nil {
		c.log.Error("bad job ID in failure entry", "key", e.Key())
		return
	}
	txn := c.db.Txn(true)
	cur := c.lookup(txn, f.Run, id)
	if cur == nil || (cur.Status != StatusQueued && cur.Status != StatusRetrying) {
		txn.Abort()
		return
	}
	st := *cur
	st.Status, st.Error, st.Attempts, st.Worker = StatusFailed, f.Error, int32(f.Attempts), f.Worker
	c.store(txn, f.Run, &st)
	txn.Commit()
	c.mu.Lock()
	r.counts.Failed++
	r.observe(id, f.Attempts)
	if r.probe != nil {
		r.probe.registered([]uuid.UUID{id}, 0, true)
	}
	c.mu.Unlock()
	c.log.Warn("job failed", "run", f.Run, "job", f.Job, "attempts", f.Attempts, "err", f.Error)
	c.settle(ctx, f.Run)
}

func (c *Coordinator) onError(m *nats.Msg) {
	var ev broker.ErrorEvent
	if err := json.Unmarshal(m.Data, &ev); err != nil {
		return
	}
	id, err := uuid.Parse(ev.Job)
	if err != nil {
		return
	}
	txn := c.db.Txn(true)
	cur := c.lookup(txn, ev.Run, id)
	if cur == nil || (cur.Status != StatusQueued && cur.Status != StatusRetrying) {
		txn.Abort()
		return
	}
	st := *cur
	st.Status, st.Error, st.Worker = StatusRetrying, ev.Error, ev.Worker
	if attempt := int32(ev.Attempt); attempt > st.Attempts {
		st.Attempts = attempt
	}
	c.mu.Lock()
	if r := c.runs[ev.Run]; r != nil {
		r.observe(id, ev.Attempt)
	}
	c.mu.Unlock()
	c.store(txn, ev.Run, &st)
	txn.Commit()
}

// onDelivery counts the jobs a worker received on a later delivery.
func (c *Coordinator) onDelivery(m *nats.Msg) {
	var ev broker.DeliveryEvent
	if err := json.Unmarshal(m.Data, &ev); err != nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	r := c.runs[ev.Run]
	if r == nil {
		return
	}
	for _, s := range ev.Jobs {
		if id, err := uuid.Parse(s); err == nil {
			r.observe(id, ev.Attempt)
		}
	}
}

// observe records that a job of the run was seen on its attempt-th
// delivery — by a worker's delivery report, an error report, a stored
// result or a failure record — and counts the deliveries beyond the first
// not counted yet. A job's redeliveries are counted whichever delivery's
// result is kept (the first worker's, when it finished after all). c.mu
// must be held.
func (r *runEntry) observe(job uuid.UUID, attempt int) {
	idx, ok := r.ids[job]
	if !ok || attempt <= 1 {
		return
	}
	attempt = min(attempt, math.MaxUint8)
	if seen := int(r.attempts[idx]); attempt > seen {
		r.counts.Redeliver += attempt - max(seen, 1)
		r.attempts[idx] = uint8(attempt)
	}
}

func (c *Coordinator) onHeartbeat(m *nats.Msg) {
	var hb broker.Heartbeat
	if err := json.Unmarshal(m.Data, &hb); err != nil {
		c.log.Warn("heartbeat dropped: not JSON", "subject", m.Subject, "err", err)
		return
	}
	if err := hb.Validate(c.farm.Names, m.Subject); err != nil {
		c.log.Warn("heartbeat dropped", "subject", m.Subject, "err", err)
		return
	}
	txn := c.db.Txn(true)
	_ = txn.Insert("workers", &workerState{
		Name: hb.Worker, Host: hb.Host, PID: hb.PID, Started: hb.Started, Seen: c.now(),
		Running: hb.Running, Current: hb.Current, Buffered: hb.Buffered, Done: hb.Done, Errors: hb.Errors, Draining: hb.Draining,
		StoreError: hb.StoreError, StoreRun: hb.StoreRun,
	})
	txn.Commit()
}

// onMaxDeliveries records a job whose deliveries ran out without a result
// (its worker crashed or hung on the last attempt): the server keeps such a
// message in the stream, so the coordinator records the failure and then
// removes the message.
func (c *Coordinator) onMaxDeliveries(m *nats.Msg) {
	var adv struct {
		StreamSeq  uint64 `json:"stream_seq"`
		Deliveries uint64 `json:"deliveries"`
	}
	if err := json.Unmarshal(m.Data, &adv); err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	raw, err := c.farm.Jobs.GetMsg(ctx, adv.StreamSeq)
	if err != nil {
		if !broker.IsNotFound(err) {
			c.log.Error("max-deliveries advisory: get message", "seq", adv.StreamSeq, "err", err)
		}
		return
	}
	run, entries, err := broker.DecodeJobs(raw.Data, c.reg)
	if err != nil {
		c.log.Error("max-deliveries advisory: undecodable job message", "seq", adv.StreamSeq, "err", err)
	}
	// Every job of the message (one, or a pack) without a result is
	// recorded as failed; a job of a pack that has one is left alone.
	for _, e := range entries {
		if e.Msg.Job.ID == uuid.Nil {
			continue
		}
		c.mu.Lock()
		isDone := c.done.has(e.Msg.Job.ID)
		c.mu.Unlock()
		if isDone {
			continue
		}
		errText := broker.CrashedError(int(adv.Deliveries), e.Msg.Job.Params)
		if e.Err != nil {
			errText = e.Err.Error()
		}
		if st := c.lookup(c.db.Txn(false), run, e.Msg.Job.ID); st != nil && st.Error != "" {
			errText = st.Error
		}
		id := e.Msg.Job.ID.String()
		rec := broker.FailRecord{Run: run, Job: id, Sweep: e.Msg.Job.Sweep, Index: e.Msg.Job.Index,
			Error: errText, Attempts: int(adv.Deliveries)}
		if err := PutFailure(ctx, c.farm, rec); err != nil {
			c.log.Error("record failure", "job", id, "err", err)
			return // keep the message: the advisory is not repeated, but a restart rescans nothing; log loudly
		}
	}
	if err := c.farm.Jobs.DeleteMsg(ctx, adv.StreamSeq); err != nil && !broker.IsNotFound(err) {
		c.log.Error("max-deliveries advisory: delete message", "seq", adv.StreamSeq, "err", err)
	}
}

// PutFailure records a job that exhausted its deliveries.
func PutFailure(ctx context.Context, farm *broker.Farm, rec broker.FailRecord) error {
	data, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	_, err = farm.Failed.Put(ctx, broker.FailKey(rec.Run, rec.Job), data)
	return err
}

// settle marks a run complete when every job is done or failed. The record
// is stored before the run leaves memory, so whoever sees it complete (a
// progress poll) can collect it at once.
func (c *Coordinator) settle(ctx context.Context, run string) {
	c.mu.Lock()
	r := c.runs[run]
	if r == nil || r.rec.Status != broker.RunRunning || r.counts.Skipped+r.counts.Done+r.counts.Failed < r.counts.Total {
		c.mu.Unlock()
		return
	}
	if c.startRound(ctx, run, r) {
		c.mu.Unlock()
		return
	}
	rec := r.rec
	rec.Status = broker.RunComplete
	rec.Finished = time.Now().UTC()
	rec.Done, rec.Failed, rec.Redelivered, rec.ModelMs = r.counts.Done, r.counts.Failed, r.counts.Redeliver, r.counts.ModelMs
	c.mu.Unlock()
	if err := c.putRun(ctx, rec); err != nil {
		c.log.Error("store completed run", "run", run, "err", err)
		return
	}
	// The stored record now tells the run's state; memory lets it go.
	c.forget(run)
	c.log.Info("run complete", "run", run, "done", rec.Done, "skipped", rec.Skipped, "failed", rec.Failed)
}

// forget drops a finished run from memory: its record in JetStream says
// all there is to know (counts, failures), and a long-lived coordinator
// must not grow with every run it has seen. A late duplicate result of the
// run only updates the registry of finished jobs.
func (c *Coordinator) forget(run string) {
	c.mu.Lock()
	r := c.runs[run]
	c.mu.Unlock()
	if r == nil {
		return
	}
	// Jobs first, then the run: while the run is still listed its progress
	// comes from memory, so nobody sees it finished with its jobs still held.
	txn := c.db.Txn(true)
	for _, status := range []string{StatusRetrying, StatusFailed} {
		if _, err := txn.DeleteAll("jobs", "status", r.alias, status); err != nil {
			c.log.Error("forget run", "run", run, "err", err)
		}
	}
	txn.Commit()
	c.mu.Lock()
	delete(c.runs, run)
	if c.ended != nil {
		close(c.ended)
	}
	c.ended = make(chan struct{})
	c.mu.Unlock()
}

// Ended returns a channel closed when the next run this coordinator
// tracks completes or is cancelled, so that a caller following a run
// learns of its end at once instead of at its next poll of Progress.
func (c *Coordinator) Ended() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended == nil {
		c.ended = make(chan struct{})
	}
	return c.ended
}

// TrackedJobs returns how many jobs of runs in progress the coordinator
// holds in memory.
func (c *Coordinator) TrackedJobs() int {
	c.mu.Lock()
	n := 0
	live := map[string]bool{}
	for _, r := range c.runs {
		n += len(r.ids)
		live[r.alias] = true
	}
	c.mu.Unlock()
	it, err := c.db.Txn(false).Get("jobs", "id")
	if err != nil {
		return n
	}
	for raw := it.Next(); raw != nil; raw = it.Next() {
		if !live[raw.(*jobState).Run] {
			n++ // details outliving their run: a leak, counted so tests see it
		}
	}
	return n
}

func (c *Coordinator) settleAll(ctx context.Context) {
	c.mu.Lock()
	ids := make([]string, 0, len(c.runs))
	for id := range c.runs {
		ids = append(ids, id)
	}
	c.mu.Unlock()
	sort.Strings(ids)
	for _, id := range ids {
		c.settle(ctx, id)
	}
}

// NewRunID returns a fresh run ID.
func NewRunID() string { return uuid.NewString() }
