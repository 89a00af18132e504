package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go/jetstream"

	"schedfarm/broker"
	"schedfarm/results"
)

// store stores finished jobs as parts (one per run and sweep), then
// registers and acks their jobs.
func (w *Worker) store(ctx context.Context, buf []*finished) error {
	if len(buf) == 0 {
		return nil
	}
	type key struct{ run, sweep string }
	groups := map[key][]*finished{}
	var keys []key
	for _, f := range buf {
		k := key{f.run, f.row.Job.Sweep}
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], f)
	}
	sort.Slice(keys, func(i, j int) bool {
		return keys[i].run < keys[j].run || keys[i].run == keys[j].run && keys[i].sweep < keys[j].sweep
	})
	for _, k := range keys {
		if err := w.storePart(ctx, k.run, k.sweep, groups[k]); err != nil {
			// The jobs stay unacked and are redelivered: work repeats, nothing is lost.
			for _, f := range groups[k] {
				f.d.giveBack()
			}
			w.log.Error("cannot store results; stopping this worker (its jobs go back to the queue)", "run", k.run, "err", err)
			return fmt.Errorf("worker %s: store part of run %s: %w", w.cfg.Name, k.run, err)
		}
	}
	return nil
}

func (w *Worker) storePart(ctx context.Context, run, sweepName string, fs []*finished) error {
	part := uuid.NewString()
	rows := make([]results.JobResult, len(fs))
	modelMs := 0.0
	for i, f := range fs {
		rows[i] = f.row
		modelMs += f.row.DurationMs
	}
	schema := fs[0].model.Schema()
	info := results.PartInfo{RunID: run, Provenance: w.cfg.Provenance}
	encStart := time.Now()
	objects, err := results.EncodePart(schema, info, rows)
	encDur := time.Since(encStart)
	if err != nil {
		// A result that cannot be encoded is the job's failure, not the
		// worker's: fail those jobs (retried, then recorded with the reason)
		// and store the others.
		var good []*finished
		for _, f := range fs {
			if _, e := results.EncodePart(schema, info, []results.JobResult{f.row}); e != nil {
				w.fail(ctx, f.d, &broker.JobMsg{Run: run, Job: f.row.Job},
					fmt.Errorf("model %s returned a result that cannot be stored: %w", f.model.Name(), e))
				f.d.jobDropped()
				continue
			}
			good = append(good, f)
		}
		if len(good) == 0 {
			return nil
		}
		fs = good
		rows, modelMs = rows[:0], 0
		for _, f := range fs {
			rows = append(rows, f.row)
			modelMs += f.row.DurationMs
		}
		if objects, err = results.EncodePart(schema, info, rows); err != nil {
			return fmt.Errorf("encode part: %w", err)
		}
	}
	// The jobs object goes last: a part without it is ignored by the
	// collector, so a crash between two puts leaves nothing half-visible.
	names := make([]string, 0, len(objects))
	for table := range objects {
		if table != results.JobsTable {
			names = append(names, table)
		}
	}
	sort.Strings(names)
	names = append(names, results.JobsTable)
	// While storing is retried, the part's jobs are kept alive like running
	// ones, so that a slow store does not send them to another worker.
	keepAlive := func() {
		seen := map[*delivery]bool{}
		for _, f := range fs {
			if !seen[f.d] {
				seen[f.d] = true
				_ = f.d.msg.InProgress()
			}
		}
	}
	// A failed attempt is reported in the heartbeats (status shows it per
	// worker and per run) until a part is stored.
	noted := func(fn func(context.Context) error) func(context.Context) error {
		return func(ctx context.Context) error {
			err := fn(ctx)
			if err != nil {
				w.storeErr.Store(&storeProblem{run: run, err: err.Error()})
			}
			return err
		}
	}
	// Each object is written once (never over another) and its digest
	// goes into the create-only registry entry, which the collector checks
	// the bytes it reads against.
	var stored, digests []string
	for _, table := range names {
		name := run + "/" + results.PartObjectName(part, table)
		data := objects[table]
		if err := w.storeRetry(ctx, "store part object", keepAlive, noted(func(ctx context.Context) error {
			return w.farm.PutObject(ctx, name, data)
		})); err != nil {
			return err
		}
		stored = append(stored, name)
		digests = append(digests, broker.Digest(data))
	}
	rec := broker.PartRecord{Run: run, Part: part, Sweep: sweepName, Worker: w.cfg.Name, Objects: stored, SHA256: digests, ModelMs: modelMs}
	for i, f := range fs {
		rec.Jobs = append(rec.Jobs, f.row.Job.ID.String())
		if f.row.Attempts > 1 {
			rec.Redelivered++
			if rec.Attempts == nil {
				rec.Attempts = make([]int, len(fs))
				for j := range i {
					rec.Attempts[j] = 1
				}
			}
		}
		if rec.Attempts != nil {
			rec.Attempts[i] = max(f.row.Attempts, 1)
		}
	}
	data, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	if err := w.storeRetry(ctx, "register part", keepAlive, noted(func(ctx context.Context) error {
		return w.farm.Register(ctx, broker.DoneKey(run, part), data)
	})); err != nil {
		return err
	}
	w.storeErr.Store(nil)
	for _, f := range fs {
		f.d.jobStored()
	}
	w.log.Debug("stored part", "run", run, "sweep", sweepName, "part", part, "jobs", len(fs), "objects", len(stored), "encode", encDur)
	return nil
}

// storeRetry is retry for the puts of a part, which gives up after
// Config.StoreFullWait once the server says it has no storage left: that
// needs an operator (free space, raise max_store), and a worker that
// waits minutes for it shows nothing but a stalled run. It gives up at
// once on broker.ErrExists (a name or key that holds another part's).
func (w *Worker) storeRetry(ctx context.Context, what string, onRetry func(), fn func(context.Context) error) error {
	var fullSince time.Time
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	return retry(ctx, w.log, what, onRetry, func(callCtx context.Context) error {
		err := fn(callCtx)
		switch {
		case errors.Is(err, broker.ErrExists):
			cancel(err) // another part's name or key: retrying cannot help
		case err == nil || !storeFull(err):
			fullSince = time.Time{}
		case fullSince.IsZero():
			fullSince = time.Now()
		case time.Since(fullSince) >= w.cfg.StoreFullWait:
			err = fmt.Errorf("%w: the NATS server has no storage left for results (free space on it or raise its max_store); "+
				"this worker stops and its jobs go back to the queue", err)
			cancel(err)
		}
		return err
	})
}

// truncate cuts s to at most n bytes, at a rune boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// storeFull reports whether err is JetStream's refusal for lack of storage.
func storeFull(err error) bool {
	var api *jetstream.APIError
	if errors.As(err, &api) && (api.ErrorCode == 10023 || api.ErrorCode == 10047) {
		return true // insufficient resources; insufficient storage resources
	}
	msg := err.Error()
	return strings.Contains(msg, "insufficient resources") || strings.Contains(msg, "insufficient storage")
}

// retry runs fn with exponential backoff (100 ms doubling to 5 s) until it
// succeeds, ctx ends, or two minutes have passed: an object store that is
// full or briefly unavailable must not lose a result. onRetry, if not nil,
// runs before every attempt after the first.
func retry(ctx context.Context, log *slog.Logger, what string, onRetry func(), fn func(context.Context) error) error {
	delay := 100 * time.Millisecond
	deadline := time.Now().Add(2 * time.Minute)
	for attempt := 1; ; attempt++ {
		callCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
		err := fn(callCtx)
		cancel()
		if err == nil {
			return nil
		}
		if ctx.Err() != nil || time.Now().After(deadline) {
			return fmt.Errorf("%s: %w (after %d attempts)", what, err, attempt)
		}
		log.Warn("retrying", "what", what, "attempt", attempt, "err", err)
		sleep(ctx, delay)
		delay = min(delay*2, 5*time.Second)
		if onRetry != nil {
			onRetry()
		}
	}
}

// setRunning records the job the worker runs now (job nil: none), for its
// heartbeats.
func (w *Worker) setRunning(job *broker.JobMsg) {
	w.mu.Lock()
	w.running, w.current = "", nil
	if job != nil {
		w.running, w.current = job.Job.ID.String(), broker.DescribeJob(job.Run, &job.Job)
	}
	w.mu.Unlock()
}

func (w *Worker) heartbeats(ctx context.Context) {
	host, _ := os.Hostname()
	t := time.NewTicker(w.cfg.Heartbeat)
	defer t.Stop()
	for {
		w.mu.Lock()
		hb := broker.Heartbeat{Worker: w.cfg.Name, Host: host, PID: os.Getpid(), Started: w.started, Sent: time.Now(),
			Buffered: len(w.buffered), Done: w.done.Load(), Errors: w.errs.Load(), Draining: w.draining.Load()}
		if p := w.storeErr.Load(); p != nil {
			hb.StoreRun, hb.StoreError = p.run, truncate(p.err, broker.MaxStoreError)
		}
		if w.running != "" {
			hb.Running, hb.Current = []string{w.running}, w.current
		}
		w.mu.Unlock()
		if data, err := json.Marshal(hb); err == nil {
			_ = w.farm.NC.Publish(w.farm.Names.HeartbeatSubject(w.cfg.Name), data)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

func firstLine(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			return s[:i]
		}
	}
	return s
}
