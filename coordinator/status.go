package coordinator

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/nats-io/nats.go"

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
	// Failures lists the failed jobs (at most 100), with their last error.
	Failures []JobFailure `json:"failures,omitempty"`
	// Retrying lists queued jobs that have failed at least once (at most 100).
	Retrying []JobFailure `json:"retrying,omitempty"`
	// Packing is how the run's jobs are sent, per sweep (once decided).
	Packing []broker.PackChoice `json:"packing,omitempty"`
	// StoreErrors lists the workers whose last attempt to store this
	// run's results failed, while the run is not finished (filled by
	// Status).
	StoreErrors []WorkerStoreError `json:"store_errors,omitempty"`
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
	Buffered int       `json:"buffered"`
	Done     int64     `json:"done"`
	Errors   int64     `json:"errors"`
	Draining bool      `json:"draining"`
	// StoreError is the worker's last failure to store results (of run
	// StoreRun), until it stores a part again: a full JetStream store
	// shows here rather than as a run that stalls.
	StoreError string `json:"store_error,omitempty"`
	StoreRun   string `json:"store_run,omitempty"`
}

// Status is what `schedfarm status` shows.
type Status struct {
	Coordinator string        `json:"coordinator"`
	Runs        []RunProgress `json:"runs"`
	Workers     []WorkerInfo  `json:"workers"`
}

const listLimit = 100

// Progress returns the state of one run, from memory when this coordinator
// tracks it and from its run record otherwise.
func (c *Coordinator) Progress(ctx context.Context, run string) (*RunProgress, error) {
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
	txn := c.db.Txn(false)
	alias := ""
	if r != nil {
		alias = r.alias
	}
	for _, status := range []string{StatusFailed, StatusRetrying} {
		if alias == "" {
			break
		}
		it, err := txn.Get("jobs", "status", alias, status)
		if err != nil {
			return nil, err
		}
		n := 0
		for raw := it.Next(); raw != nil && n < listLimit; raw = it.Next() {
			st := raw.(*jobState)
			f := JobFailure{Job: st.Job.String(), Sweep: st.Sweep, Index: int(st.Index), Attempts: int(st.Attempts), Worker: st.Worker, Error: st.Error}
			if status == StatusFailed {
				p.Failures = append(p.Failures, f)
			} else {
				p.Retrying = append(p.Retrying, f)
			}
			n++
		}
	}
	if r == nil && p.Failed > 0 {
		fails, err := ListFailures(ctx, c.farm, run)
		if err != nil {
			return nil, err
		}
		for i, f := range fails {
			if i == listLimit {
				break
			}
			p.Failures = append(p.Failures, JobFailure{Job: f.Job, Sweep: f.Sweep, Index: f.Index, Attempts: f.Attempts, Worker: f.Worker, Error: f.Error})
		}
	}
	sort.Slice(p.Failures, func(i, j int) bool { return p.Failures[i].Index < p.Failures[j].Index })
	sort.Slice(p.Retrying, func(i, j int) bool { return p.Retrying[i].Index < p.Retrying[j].Index })
	return &p, nil
}

// Workers returns the workers seen, sorted by name.
func (c *Coordinator) Workers() []WorkerInfo {
	txn := c.db.Txn(false)
	it, err := txn.Get("workers", "id")
	if err != nil {
		return nil
	}
	now := time.Now()
	var out []WorkerInfo
	for raw := it.Next(); raw != nil; raw = it.Next() {
		w := raw.(*workerState)
		age := now.Sub(w.Seen)
		out = append(out, WorkerInfo{Name: w.Name, Host: w.Host, PID: w.PID, Started: w.Started, AgeMs: age.Milliseconds(),
			Lost: age > c.cfg.WorkerTimeout, InFlight: w.Running, Buffered: w.Buffered, Done: w.Done, Errors: w.Errors, Draining: w.Draining,
			StoreError: w.StoreError, StoreRun: w.StoreRun})
	}
	return out
}

// Status returns the state of one run, or of every run when run is empty.
func (c *Coordinator) Status(ctx context.Context, run string) (*Status, error) {
	st := &Status{Coordinator: c.name, Workers: c.Workers()}
	var ids []string
	if run != "" {
		ids = []string{run}
	} else {
		lister, err := c.farm.Runs.ListKeys(ctx)
		if err != nil {
			return nil, err
		}
		for k := range lister.Keys() {
			ids = append(ids, k)
		}
		sort.Strings(ids)
	}
	for _, id := range ids {
		p, err := c.Progress(ctx, id)
		if err != nil {
			return nil, err
		}
		for _, w := range st.Workers {
			if w.StoreError != "" && w.StoreRun == id && !p.Finished() {
				p.StoreErrors = append(p.StoreErrors, WorkerStoreError{Worker: w.Name, Error: w.StoreError})
			}
		}
		st.Runs = append(st.Runs, *p)
	}
	sort.SliceStable(st.Runs, func(i, j int) bool { return st.Runs[i].Created.Before(st.Runs[j].Created) })
	return st, nil
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
			var req RunRequest
			if err = decodeRequest(verb, m.Data, &req, true); err == nil {
				if err = req.validate(verb, false); err == nil {
					result, err = c.Status(ctx, req.Run)
				}
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
		var rep apiReply
		if err != nil {
			rep.Error = err.Error()
		} else {
			rep.Result, err = json.Marshal(result)
			if err != nil {
				rep.Error = err.Error()
			}
		}
		data, _ := json.Marshal(rep)
		_ = m.Respond(data)
	}()
}
