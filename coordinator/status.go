package coordinator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"schedfarm/broker"
)

// RunProgress is the state of one run.
type RunProgress struct {
	ID      string           `json:"id"`
	File    string           `json:"file"`
	Status  broker.RunStatus `json:"status"`
	Created time.Time        `json:"created"`
	Total   int              `json:"total"`
	Skipped int              `json:"skipped"`
	Done    int              `json:"done"`
	Failed  int              `json:"failed"`
	// Queued counts the jobs not yet done or failed (0 once the run is
	// cancelled: its queued jobs were purged).
	Queued int `json:"queued"`
	// Redelivered counts deliveries beyond the first, summed over jobs:
	// failed attempts that were retried, and deliveries that followed a
	// worker that died, hung or handed a job back — whichever delivery's
	// result was kept.
	Redelivered int `json:"redelivered"`
	// ModelMs is the summed model time (duration_ms) of the jobs done in
	// this run; Ended when it ended (zero while it runs). With the
	// number of workers they give the farm's efficiency: ModelMs ÷
	// ((Ended − Created) × workers).
	ModelMs float64   `json:"model_ms"`
	Ended   time.Time `json:"ended,omitzero"`
	// Failures lists failed jobs with their last error: at most 100 for
	// one run (`status RUN`), at most 5 per run in the list of every run
	// (errors shortened to 300 bytes there); FailuresCut is how many of
	// the run's Failed it leaves out. Of a run in progress the jobs are
	// the coordinator's first in memory; of a finished run the first
	// recorded; either way sorted by index.
	Failures    []JobFailure `json:"failures,omitempty"`
	FailuresCut int          `json:"failures_cut,omitempty"`
	// Retrying lists queued jobs that have failed at least once (as
	// many as Failures); RetryingNow counts them all, RetryingCut those
	// not listed.
	Retrying    []JobFailure `json:"retrying,omitempty"`
	RetryingNow int          `json:"retrying_now,omitempty"`
	RetryingCut int          `json:"retrying_cut,omitempty"`
	// Packing is how the run's jobs are sent, per sweep (once decided).
	Packing []broker.PackChoice `json:"packing,omitempty"`
	// StoreErrors lists the workers whose last attempt to store this
	// run's results failed, while the run is not finished (filled by
	// Status).
	StoreErrors []WorkerStoreError `json:"store_errors,omitempty"`
	// StoreErrorsCut is how many such workers StoreErrors leaves out
	// (it lists at most 10).
	StoreErrorsCut int `json:"store_errors_cut,omitempty"`
	// Rounds is the number of rounds of adaptive replicates added so far;
	// RoundClaims the adaptive sweeps' claims as the last round's
	// evaluation decided them (while the run is tracked in memory), and
	// Adaptive how the rounds ended.
	Rounds      int          `json:"rounds,omitempty"`
	RoundClaims []RoundClaim `json:"round_claims,omitempty"`
	Adaptive    string       `json:"adaptive,omitempty"`
}

// WorkerStoreError is a worker's failure to store a run's results.
type WorkerStoreError struct {
	Worker string `json:"worker"`
	Error  string `json:"error"`
}

// Finished reports whether nothing is left to do in the run.
func (p *RunProgress) Finished() bool {
	return p.Status == broker.RunComplete || p.Status == broker.RunCancelled
}

// JobFailure is a failed job with its last error.
type JobFailure struct {
	Job      string `json:"job"`
	Sweep    string `json:"sweep"`
	Index    int    `json:"index"`
	Attempts int    `json:"attempts"`
	Worker   string `json:"worker"`
	Error    string `json:"error"`
	// ErrorCut is how many bytes of the error were cut off the end of
	// Error (which then ends with "…") to keep the reply small.
	ErrorCut int `json:"error_cut,omitempty"`
}

// WorkerInfo is the last known state of a worker.
type WorkerInfo struct {
	Name     string    `json:"name"`
	Host     string    `json:"host"`
	PID      int       `json:"pid"`
	Started  time.Time `json:"started"`
	AgeMs    int64     `json:"heartbeat_age_ms"`
	Lost     bool      `json:"lost"`
	InFlight []string  `json:"in_flight,omitempty"`
	// InFlightCut is how many of the jobs in flight InFlight leaves out
	// (a status reply lists at most 16 per worker).
	InFlightCut int `json:"in_flight_cut,omitempty"`
	// Current is the job the worker runs now, by run, sweep and
	// parameters, as its last heartbeat described it (the reply drops it
	// with the jobs in flight when it must be cut to fit).
	Current  *broker.CurrentJob `json:"current,omitempty"`
	Buffered int                `json:"buffered"`
	Done     int64              `json:"done"`
	Errors   int64              `json:"errors"`
	Draining bool               `json:"draining"`
	// StoreError is the worker's last failure to store results (of run
	// StoreRun), until it stores a part again: a full JetStream store
	// shows here rather than as a run that stalls.
	StoreError string `json:"store_error,omitempty"`
	StoreRun   string `json:"store_run,omitempty"`
}

// Status is what `schedfarm status` shows: one run (`status RUN`), or a
// page of the farm's runs, and the workers. A reply is bounded by
// construction (runs per page, failures listed per run, error bytes, jobs
// in flight per worker, workers not seen for WorkerForget dropped) and then
// cut to fit the NATS server's max_payload with room to spare (fit); Cut
// says what it leaves out.
type Status struct {
	Coordinator string `json:"coordinator"`
	// Runs are the runs listed, oldest first: for `status RUN` that run;
	// otherwise the newest runs created before the request's Before (all
	// of them when it is empty), at most its Limit.
	Runs    []RunProgress `json:"runs"`
	Workers []WorkerInfo  `json:"workers"`
	// TotalRuns is how many runs the farm has (in a page of runs; absent
	// for `status RUN`); Older, when some are older than those listed, is
	// the run to give as Before (`status --before`) for the next page.
	TotalRuns int    `json:"total_runs,omitempty"`
	Older     string `json:"older,omitempty"`
	// Cut says what the reply leaves out; nil when nothing.
	Cut *StatusCut `json:"cut,omitempty"`
}

// StatusCut is what a status reply leaves out, as counts and as notes a
// reader can show (the status page and `status` print Notes).
type StatusCut struct {
	// Runs is how many runs older than those listed the reply leaves
	// out (Status.Older continues the list).
	Runs int `json:"runs,omitempty"`
	// Failures and Retrying are the failed and retrying jobs not listed,
	// summed over the runs listed (each run's counts stay exact).
	Failures int `json:"failures,omitempty"`
	Retrying int `json:"retrying,omitempty"`
	// Errors is how many error texts were shortened (JobFailure.ErrorCut).
	Errors int `json:"errors,omitempty"`
	// Workers is how many workers are not listed; InFlight how many jobs
	// in flight of the workers listed; StoreErrors how many workers'
	// store errors of the runs listed.
	Workers     int `json:"workers,omitempty"`
	InFlight    int `json:"in_flight,omitempty"`
	StoreErrors int `json:"store_errors,omitempty"`
	// Fitted: the reply was cut further than its usual bounds to fit
	// Budget, its bound in bytes (three quarters of the NATS server's
	// max_payload).
	Fitted bool `json:"fitted,omitempty"`
	Budget int  `json:"budget,omitempty"`
	// Notes say the same in words, one line each.
	Notes []string `json:"notes"`
}

// StatusRequest is the body of a status request. Every field may be
// absent: {} (or an empty body) asks for the newest DefaultStatusRuns runs.
type StatusRequest struct {
	// Run asks for one run, with up to 100 of its failed and retrying
	// jobs; empty: a page of runs, each with up to 5 of each.
	Run string `json:"run"`
	// Before lists the runs created before this one (Status.Older of the
	// previous page); empty: the newest.
	Before string `json:"before,omitempty"`
	// Limit is the most runs listed (0: DefaultStatusRuns; at most
	// MaxStatusRuns).
	Limit int `json:"limit,omitempty"`
}

// Bounds of a status reply.
const (
	// DefaultStatusRuns is how many runs a status reply lists by
	// default, the newest; MaxStatusRuns how many a request may ask for.
	DefaultStatusRuns = 50
	MaxStatusRuns     = 1000
	// listLimit bounds the failed jobs, and the retrying ones, listed
	// for one run (status RUN, Progress); summaryLimit per run in a page
	// of runs, with their errors cut to summaryErrorBytes.
	listLimit         = 100
	summaryLimit      = 5
	detailErrorBytes  = 4096
	summaryErrorBytes = 300
	// maxInFlightListed bounds the jobs in flight listed per worker,
	// maxStoreErrorsListed the workers' store errors per run and
	// maxWorkersListed the workers listed.
	maxInFlightListed    = 16
	maxStoreErrorsListed = 10
	maxWorkersListed     = 2000
	// maxCachedBytes bounds the memory of the finished runs' summaries
	// (statusCache).
	maxCachedBytes = 16 << 20
)

// validate checks a status request: run IDs of the farm's form, Before
// only for a page of runs, a Limit of 0 to MaxStatusRuns.
func (r *StatusRequest) validate() error {
	bad := func(err error) error { return &RequestError{Verb: "status", Err: err} }
	if r.Run != "" {
		if err := CheckRunID(r.Run); err != nil {
			return bad(err)
		}
	}
	if r.Before != "" {
		if r.Run != "" {
			return bad(errors.New("before: a page of runs starts before a run; give run or before, not both"))
		}
		if err := CheckRunID(r.Before); err != nil {
			return bad(fmt.Errorf("before: %w", err))
		}
	}
	if r.Limit < 0 || r.Limit > MaxStatusRuns {
		return bad(fmt.Errorf("limit: %d; give 0 (the default, %d) to %d runs", r.Limit, DefaultStatusRuns, MaxStatusRuns))
	}
	return nil
}

// listing is how much of a run's failed and retrying jobs a reply lists.
type listing struct{ jobs, errorBytes int }

var (
	detailListing  = listing{listLimit, detailErrorBytes}
	summaryListing = listing{summaryLimit, summaryErrorBytes}
)

// statusCache holds the summaries (summaryListing) of finished runs, whose
// state no longer changes, so that a page of runs reads no run record (a
// run record carries its sweep's text) and no failure record of a run it
// has shown before. Its memory is bounded by maxCachedBytes.
type statusCache struct {
	mu    sync.Mutex
	runs  map[string]cachedRun
	bytes int
}

type cachedRun struct {
	p    RunProgress
	size int
}

func (sc *statusCache) get(id string) (RunProgress, bool) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	e, ok := sc.runs[id]
	return e.p, ok
}

func (sc *statusCache) put(p RunProgress) {
	b, err := json.Marshal(p)
	if err != nil {
		return
	}
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if sc.runs == nil {
		sc.runs = map[string]cachedRun{}
	}
	if old, ok := sc.runs[p.ID]; ok {
		sc.bytes -= old.size
	}
	for id, e := range sc.runs { // evict any entries over the bound
		if sc.bytes+len(b) <= maxCachedBytes {
			break
		}
		delete(sc.runs, id)
		sc.bytes -= e.size
	}
	sc.runs[p.ID] = cachedRun{p: p, size: len(b)}
	sc.bytes += len(b)
}

// Progress returns the state of one run, from memory when this coordinator
// tracks it and from its run record otherwise, with up to 100 of its
// failed and of its retrying jobs. It reads at most that many failure
// records, however many the run has.
func (c *Coordinator) Progress(ctx context.Context, run string) (*RunProgress, error) {
	return c.progress(ctx, run, detailListing)
}

// progress is Progress listing l of the run's failed and retrying jobs.
func (c *Coordinator) progress(ctx context.Context, run string, l listing) (*RunProgress, error) {
	c.mu.Lock()
	r := c.runs[run]
	var p RunProgress
	if r != nil {
		p = RunProgress{ID: run, File: r.rec.File, Status: r.rec.Status, Created: r.rec.Created, Total: r.counts.Total,
			Skipped: r.counts.Skipped, Done: r.counts.Done, Failed: r.counts.Failed, Redelivered: r.counts.Redeliver,
			ModelMs: r.counts.ModelMs, Packing: r.rec.Packing, Rounds: len(r.rec.Rounds), Adaptive: r.rec.Adaptive,
			RoundClaims: slices.Clone(r.claims)}
	}
	c.mu.Unlock()
	if r == nil {
		rec, err := c.getRun(ctx, run)
		if err != nil {
			return nil, err
		}
		p = RunProgress{ID: run, File: rec.File, Status: rec.Status, Created: rec.Created, Total: rec.Total,
			Skipped: rec.Skipped, Done: rec.Done, Failed: rec.Failed, Redelivered: rec.Redelivered, Packing: rec.Packing,
			ModelMs: rec.ModelMs, Ended: rec.Finished, Rounds: len(rec.Rounds), Adaptive: rec.Adaptive}
	}
	if p.Status != broker.RunCancelled { // a cancelled run's queued jobs were purged
		p.Queued = p.Total - p.Skipped - p.Done - p.Failed
	}
	if r != nil {
		// In memory: the first l.jobs of each list, and every retrying
		// job counted (memory only; the failed ones have their counter).
		txn := c.db.Txn(false)
		for _, status := range []string{StatusFailed, StatusRetrying} {
			it, err := txn.Get("jobs", "status", r.alias, status)
			if err != nil {
				return nil, err
			}
			n := 0
			for raw := it.Next(); raw != nil; raw = it.Next() {
				n++
				if status == StatusFailed && n > l.jobs {
					break
				}
				if n > l.jobs {
					continue // counted, not listed
				}
				st := raw.(*jobState)
				f := JobFailure{Job: st.Job.String(), Sweep: st.Sweep, Index: int(st.Index), Attempts: int(st.Attempts), Worker: st.Worker, Error: st.Error}
				if status == StatusFailed {
					p.Failures = append(p.Failures, f)
				} else {
					p.Retrying = append(p.Retrying, f)
				}
			}
			if status == StatusRetrying {
				p.RetryingNow = n
			}
		}
	} else if p.Failed > 0 {
		fails, err := SampleFailures(ctx, c.farm, run, l.jobs)
		if err != nil {
			return nil, err
		}
		for _, f := range fails {
			p.Failures = append(p.Failures, JobFailure{Job: f.Job, Sweep: f.Sweep, Index: f.Index, Attempts: f.Attempts, Worker: f.Worker, Error: f.Error})
		}
	}
	sort.Slice(p.Failures, func(i, j int) bool { return p.Failures[i].Index < p.Failures[j].Index })
	sort.Slice(p.Retrying, func(i, j int) bool { return p.Retrying[i].Index < p.Retrying[j].Index })
	p.FailuresCut = max(p.Failed-len(p.Failures), 0)
	p.RetryingCut = max(p.RetryingNow-len(p.Retrying), 0)
	for i := range p.Failures {
		p.Failures[i].cutError(l.errorBytes)
	}
	for i := range p.Retrying {
		p.Retrying[i].cutError(l.errorBytes)
	}
	return &p, nil
}

// summary returns a run's progress as a page of runs lists it: from the
// cache when it finished and was read before, else from progress (and
// then cached if finished).
func (c *Coordinator) summary(ctx context.Context, id string) (RunProgress, error) {
	if p, ok := c.cache.get(id); ok {
		return p, nil
	}
	p, err := c.progress(ctx, id, summaryListing)
	if err != nil {
		return RunProgress{}, err
	}
	c.mu.Lock()
	_, tracked := c.runs[id]
	c.mu.Unlock()
	if p.Finished() && !tracked {
		c.cache.put(*p)
	}
	return *p, nil
}

// Workers returns the workers seen within WorkerForget, sorted by name,
// after dropping the others (pruneWorkers).
func (c *Coordinator) Workers() []WorkerInfo {
	now := c.now()
	c.pruneWorkers(now)
	txn := c.db.Txn(false)
	it, err := txn.Get("workers", "id")
	if err != nil {
		return nil
	}
	var out []WorkerInfo
	for raw := it.Next(); raw != nil; raw = it.Next() {
		w := raw.(*workerState)
		age := now.Sub(w.Seen)
		out = append(out, WorkerInfo{Name: w.Name, Host: w.Host, PID: w.PID, Started: w.Started, AgeMs: age.Milliseconds(),
			Lost: age > c.cfg.WorkerTimeout, InFlight: w.Running, Current: w.Current, Buffered: w.Buffered, Done: w.Done, Errors: w.Errors, Draining: w.Draining,
			StoreError: w.StoreError, StoreRun: w.StoreRun})
	}
	return out
}

// pruneWorkers forgets the workers whose last heartbeat is older than
// WorkerForget at now (the coordinator's clock): lost for long, they would
// otherwise be listed forever. A worker that heartbeats again is back.
func (c *Coordinator) pruneWorkers(now time.Time) {
	txn := c.db.Txn(true)
	it, err := txn.Get("workers", "id")
	if err != nil {
		txn.Abort()
		return
	}
	var old []*workerState
	for raw := it.Next(); raw != nil; raw = it.Next() {
		if w := raw.(*workerState); now.Sub(w.Seen) > c.cfg.WorkerForget {
			old = append(old, w)
		}
	}
	for _, w := range old {
		_ = txn.Delete("workers", w)
	}
	txn.Commit()
	if len(old) > 0 {
		c.log.Info("forgot workers not seen for a while", "workers", len(old), "not_seen_for", c.cfg.WorkerForget)
	}
}

// now is the coordinator's clock (Config.Now).
func (c *Coordinator) now() time.Time { return c.cfg.Now() }

// Status returns the state of one run, or of the newest runs when run is
// empty (StatusFor).
func (c *Coordinator) Status(ctx context.Context, run string) (*Status, error) {
	return c.StatusFor(ctx, StatusRequest{Run: run})
}

// StatusFor answers a status request: one run with up to 100 of its failed
// and retrying jobs, or a page of runs (the newest Limit created before
// Before), each with up to 5; and the workers seen within WorkerForget. The
// reply is then cut to fit three quarters of the NATS server's
// max_payload (fit). Its work is bounded too: a page reads the run keys
// and, per run not read before, its record and up to 5 failure records;
// one run, its record and up to 100 failure records.
func (c *Coordinator) StatusFor(ctx context.Context, req StatusRequest) (*Status, error) {
	if err := req.validate(); err != nil {
		return nil, err
	}
	st := &Status{Coordinator: c.name}
	cut := &StatusCut{}
	workers := c.Workers()
	if len(workers) > maxWorkersListed {
		cut.Workers += len(workers) - maxWorkersListed
		workers = keepWorkers(workers, maxWorkersListed)
	}
	if req.Run != "" {
		p, err := c.Progress(ctx, req.Run)
		if err != nil {
			return nil, err
		}
		st.Runs = []RunProgress{*p}
	} else {
		lister, err := c.farm.Runs.ListKeys(ctx)
		if err != nil {
			return nil, fmt.Errorf("status: list runs: %w", err)
		}
		var ids []string
		for k := range lister.Keys() {
			ids = append(ids, k)
		}
		for _, id := range ids {
			p, err := c.summary(ctx, id)
			if err != nil {
				return nil, err
			}
			st.Runs = append(st.Runs, p)
		}
		sort.Slice(st.Runs, func(i, j int) bool { return runBefore(&st.Runs[i], &st.Runs[j]) })
		st.TotalRuns = len(st.Runs)
		if req.Before != "" {
			i := slices.IndexFunc(st.Runs, func(p RunProgress) bool { return p.ID == req.Before })
			if i < 0 {
				return nil, &RequestError{Verb: "status", Err: fmt.Errorf("before: run %s not found", req.Before)}
			}
			st.Runs = st.Runs[:i]
		}
		limit := req.Limit
		if limit == 0 {
			limit = DefaultStatusRuns
		}
		if n := len(st.Runs) - limit; n > 0 {
			st.Runs = st.Runs[n:]
			cut.Runs = n
		}
		if cut.Runs > 0 {
			st.Older = st.Runs[0].ID
		}
	}
	for i := range st.Runs {
		p := &st.Runs[i]
		for _, w := range workers {
			if w.StoreError != "" && w.StoreRun == p.ID && !p.Finished() {
				if len(p.StoreErrors) == maxStoreErrorsListed {
					p.StoreErrorsCut++
					continue
				}
				p.StoreErrors = append(p.StoreErrors, WorkerStoreError{Worker: w.Name, Error: w.StoreError})
			}
		}
	}
	for i := range workers {
		if w := &workers[i]; len(w.InFlight) > maxInFlightListed {
			w.InFlightCut = len(w.InFlight) - maxInFlightListed
			w.InFlight = w.InFlight[:maxInFlightListed:maxInFlightListed]
		}
	}
	st.Workers = workers
	st.Cut = cut
	if err := fit(st, ReplyBudget(c.farm.NC.MaxPayload()), req.Run != ""); err != nil {
		return nil, err
	}
	return st, nil
}

// runBefore orders runs by creation, then ID.
func runBefore(a, b *RunProgress) bool {
	if !a.Created.Equal(b.Created) {
		return a.Created.Before(b.Created)
	}
	return a.ID < b.ID
}

// SampleFailures returns up to n of the failures recorded for a run, the
// first recorded, sorted by job index. It reads at most n failure records
// (one fetch from an ephemeral consumer of the failure bucket's stream,
// last value per key), however many the run has; ListFailures reads them
// all.
func SampleFailures(ctx context.Context, farm *broker.Farm, run string, n int) ([]broker.FailRecord, error) {
	if n <= 0 {
		return nil, nil
	}
	stream := "KV_" + farm.Names.FailedBucket
	cons, err := farm.JS.CreateConsumer(ctx, stream, jetstream.ConsumerConfig{
		FilterSubject: "$KV." + farm.Names.FailedBucket + "." + run + ".*",
		DeliverPolicy: jetstream.DeliverLastPerSubjectPolicy, AckPolicy: jetstream.AckNonePolicy,
		MemoryStorage: true, InactiveThreshold: time.Minute,
	})
	if err != nil {
		return nil, fmt.Errorf("failures of run %s: %w", run, err)
	}
	defer func() {
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = farm.JS.DeleteConsumer(dctx, stream, cons.CachedInfo().Name) // else it ends after InactiveThreshold
	}()
	batch, err := cons.FetchNoWait(n)
	if err != nil {
		return nil, fmt.Errorf("failures of run %s: %w", run, err)
	}
	var out []broker.FailRecord
	for m := range batch.Messages() {
		if op := m.Headers().Get("KV-Operation"); op == "DEL" || op == "PURGE" {
			continue
		}
		var f broker.FailRecord
		if err := json.Unmarshal(m.Data(), &f); err != nil {
			return nil, fmt.Errorf("failure %s: %w", m.Subject(), err)
		}
		out = append(out, f)
	}
	if err := batch.Error(); err != nil {
		return nil, fmt.Errorf("failures of run %s: %w", run, err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Index < out[j].Index })
	return out, nil
}

// ListFailures returns the failures recorded for a run, sorted by job index.
func ListFailures(ctx context.Context, farm *broker.Farm, run string) ([]broker.FailRecord, error) {
	lister, err := farm.Failed.ListKeysFiltered(ctx, run+".*")
	if err != nil {
		return nil, fmt.Errorf("list failures of run %s: %w", run, err)
	}
	var out []broker.FailRecord
	for k := range lister.Keys() {
		e, err := farm.Failed.Get(ctx, k)
		if err != nil {
			if broker.IsNotFound(err) {
				continue
			}
			return nil, err
		}
		var f broker.FailRecord
		if err := json.Unmarshal(e.Value(), &f); err != nil {
			return nil, fmt.Errorf("failure %s: %w", k, err)
		}
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Index < out[j].Index })
	return out, nil
}

// apiReply wraps every API answer.
type apiReply struct {
	Error  string          `json:"error,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
}

// onRequest serves <prefix>.api.{submit,status,cancel,ping}. Every
// request is decoded strictly and checked before it is acted on (api.go).
func (c *Coordinator) onRequest(m *nats.Msg) {
	verb := strings.TrimPrefix(m.Subject, c.farm.Names.APISubject(""))
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), MaxRequestTime)
		defer cancel()
		var result any
		var err error
		switch verb {
		case "submit":
			var req SubmitRequest
			if err = decodeRequest(verb, m.Data, &req, false); err == nil {
				result, err = c.Submit(ctx, req)
			}
		case "status":
			var req StatusRequest
			if err = decodeRequest(verb, m.Data, &req, true); err == nil {
				result, err = c.StatusFor(ctx, req)
			}
		case "cancel":
			var req RunRequest
			if err = decodeRequest(verb, m.Data, &req, false); err == nil {
				if err = req.validate(verb, true); err == nil {
					err = c.Cancel(ctx, req.Run)
					result = map[string]string{"cancelled": req.Run}
				}
			}
		case "ping":
			var req struct{}
			if err = decodeRequest(verb, m.Data, &req, true); err == nil {
				result = PingReply{Coordinator: c.name}
			}
		default:
			err = fmt.Errorf("unknown request subject %s: the coordinator serves %s, %s, %s and %s", quoteShort(m.Subject),
				c.farm.Names.APISubject("submit"), c.farm.Names.APISubject("status"), c.farm.Names.APISubject("cancel"), c.farm.Names.APISubject("ping"))
		}
		c.respond(m, verb, result, err)
	}()
}

// respond answers an API request with its result or error. A reply that
// would not fit the server's max_payload (a status reply is cut to fit
// before: fit) is replaced by an error saying so, so that the client
// learns of it instead of waiting; a reply that cannot be sent is logged.
func (c *Coordinator) respond(m *nats.Msg, verb string, result any, err error) {
	var rep apiReply
	if err != nil {
		rep.Error = err.Error()
	} else if rep.Result, err = json.Marshal(result); err != nil {
		rep.Error = err.Error()
	}
	data, err := json.Marshal(rep)
	if err != nil {
		data = []byte(`{"error":"the coordinator could not encode its reply"}`)
	}
	limit := c.farm.NC.MaxPayload()
	if limit > 0 && int64(len(data)) > limit {
		c.log.Error("API reply over the server's max_payload: answering with an error instead", "verb", verb, "bytes", len(data), "max_payload", limit)
		data, _ = json.Marshal(apiReply{Error: fmt.Sprintf("%s: the coordinator's reply of %s is over the NATS server's max_payload of %s",
			verb, bytesText(int64(len(data))), bytesText(limit))})
	}
	if err := m.Respond(data); err != nil {
		c.log.Error("cannot send the reply to an API request", "verb", verb, "subject", m.Subject, "bytes", len(data), "err", err)
	}
}
