package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"runtime"
	"runtime/debug"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"schedfarm/broker"
	"schedfarm/results"
	"schedfarm/simcore"
	"schedfarm/sweep"
)

// delivery is one delivered message: a job, or a pack of jobs. Its fate
// (ack, nak, term) is decided once every job has either failed or had its
// result stored: a pack is acked only when all its results are stored.
// When some of its jobs failed on a non-final attempt, those are sent again
// in a message of their own (resend) and the pack is acked, so that the
// others do not run again; when that is not possible (nothing stored, or a
// job this worker cannot even decode) the whole message is retried.
type delivery struct {
	msg     jetstream.Msg
	attempt int
	// resend publishes jobs that failed here as a new message that
	// carries this delivery's attempt count.
	resend func(jobs []*sweep.Job) error

	mu      sync.Mutex
	pending int  // results not yet stored
	stored  int  // results stored
	retry   bool // a job failed on a non-final attempt: retried when settled
	again   []*sweep.Job
	whole   bool // a failed job cannot be resent alone: retry the message
	hold    bool // a final failure could not be recorded: leave unacked
	settled bool
}

// jobStored counts one of the delivery's results as stored, and settles
// the delivery after its last.
func (d *delivery) jobStored() {
	d.mu.Lock()
	d.pending--
	d.stored++
	last := d.pending == 0
	d.mu.Unlock()
	if last {
		d.settle()
	}
}

// jobDropped counts one of the delivery's results as not stored (it
// failed after running); it settles the delivery after its last.
func (d *delivery) jobDropped() {
	d.mu.Lock()
	d.pending--
	last := d.pending == 0
	d.mu.Unlock()
	if last {
		d.settle()
	}
}

// settle acks, naks or terminates the message once: jobs that failed on a
// non-final attempt are retried (resent alone when the others' results are
// stored, otherwise with the whole message, whose stored results' repeats
// are then ignored), a job whose final failure could not be recorded is
// left to the max-deliveries advisory, and otherwise the message is done.
func (d *delivery) settle() {
	d.mu.Lock()
	if d.settled {
		d.mu.Unlock()
		return
	}
	d.settled = true
	retry, hold, stored, again, whole := d.retry, d.hold, d.stored, d.again, d.whole
	d.mu.Unlock()
	switch {
	case hold:
	case retry && !whole && stored > 0 && len(again) > 0 && d.resend != nil:
		if err := d.resend(again); err != nil {
			_ = d.msg.NakWithDelay(retryDelay(d.attempt))
			return
		}
		_ = d.msg.Ack()
	case retry:
		_ = d.msg.NakWithDelay(retryDelay(d.attempt))
	case stored > 0:
		_ = d.msg.Ack()
	default:
		_ = d.msg.Term()
	}
}

// giveBack hands the message back for immediate redelivery (shutdown, or
// results that could not be stored).
func (d *delivery) giveBack() {
	d.mu.Lock()
	already := d.settled
	d.settled = true
	d.mu.Unlock()
	if !already {
		_ = d.msg.Nak()
	}
}

func retryDelay(attempt int) time.Duration {
	return time.Duration(1<<min(attempt-1, 5)) * 500 * time.Millisecond
}

// handle runs one delivered message: one job, or a pack of jobs run one
// after the other. Each job of a pack has its own result row, its own
// error events and its own failure record. A pack delivered again is
// split instead (split); requeue sends a message that must run alone
// again rather than run it (requeue).
func (w *Worker) handle(ctx context.Context, msg jetstream.Msg, requeue bool) {
	meta, err := msg.Metadata()
	attempt, delivered := 1, 1
	var seq uint64
	if err == nil {
		attempt, delivered = int(meta.NumDelivered), int(meta.NumDelivered)
		seq = meta.Sequence.Stream
	}
	d := &delivery{msg: msg, attempt: attempt}
	run, entries, err := broker.DecodeJobs(msg.Data(), w.cfg.Registry)
	if err == nil {
		// Deliveries of the jobs in an earlier message count too.
		attempt += entries[0].Msg.Attempts
		d.attempt = attempt
		d.resend = func(jobs []*sweep.Job) error { return w.resend(msg, run, seq, attempt, jobs, false) }
	}
	if err != nil {
		// Not a job message at all: it will never run anywhere.
		w.reject(ctx, d, peek(msg.Data()), err)
		d.settle()
		return
	}
	if attempt > 1 {
		w.reportDelivery(run, attempt, entries)
	}
	if attempt > int(w.maxDeliver.Load()) {
		// A message sent again (after an error, or split from a pack)
		// counts its deliveries from one: its jobs' own budget is spent,
		// every delivery since the last error having ended without a
		// result.
		w.crashed(ctx, d, entries, attempt-1)
		d.settle()
		return
	}
	if delivered > 1 && len(entries) > 1 && w.split(msg, run, seq, attempt, entries) {
		return
	}
	if requeue {
		w.requeue(msg, run, seq, attempt, entries)
		return
	}
	// One keep-alive for the whole message: in-progress heartbeats every
	// AckWait/3 while its jobs run, stopped by JobTimeout (counted from
	// the message's start) so a stuck model is redelivered elsewhere.
	msgCtx, cancel := w.jobContext(ctx)
	defer cancel()
	stopKeepAlive := w.keepAlive(msgCtx, msg)
	var rows []*finished
	tableRows := 0
	for _, e := range entries {
		if e.Err != nil {
			if errors.Is(e.Err, broker.ErrNotRunnableHere) {
				// Another worker (with that model version) may run it.
				w.fail(ctx, d, e.Msg, e.Err)
			} else {
				// Malformed: it will never run anywhere, so it is recorded
				// as failed at once rather than redelivered.
				w.reject(ctx, d, e.Msg, e.Err)
			}
			continue
		}
		job, model := e.Msg, e.Model
		w.setRunning(job)
		started := time.Now()
		res, cpuMs, runErr := w.runModel(msgCtx, model, job)
		elapsed := time.Since(started)
		w.modelNs.Add(int64(elapsed))
		w.setRunning(nil)
		if runErr != nil {
			if ctx.Err() != nil {
				// Shutting down: hand the message back so another worker
				// takes it now (the results of its finished jobs go too:
				// a pack is short, and they run again there).
				stopKeepAlive()
				d.giveBack()
				return
			}
			if msgCtx.Err() != nil {
				// The job timeout ended it: the record says so.
				runErr = fmt.Errorf("%w: %v", context.Cause(msgCtx), runErr)
			}
			w.fail(ctx, d, job, runErr)
			continue
		}
		schema := model.Schema()
		if err := schema.Validate(res); err != nil {
			w.fail(ctx, d, job, fmt.Errorf("model %s returned an invalid result: %w", model.Name(), err))
			continue
		}
		rows = append(rows, &finished{d: d, run: job.Run, model: model, row: results.JobResult{
			Job: job.Job, Worker: w.cfg.Name, StartedAt: started.UTC(), DurationMs: float64(elapsed.Microseconds()) / 1000,
			CPUMs: cpuMs, Status: results.StatusOK, Attempts: attempt, Result: res,
		}})
		for _, t := range res.Tables {
			tableRows += t.Len()
		}
	}
	stopKeepAlive()
	if len(rows) == 0 {
		d.settle()
		return
	}
	d.mu.Lock()
	d.pending = len(rows)
	d.mu.Unlock()
	w.mu.Lock()
	if len(w.buffered) == 0 {
		w.oldest = time.Now()
	}
	w.buffered = append(w.buffered, rows...)
	w.tableRows += tableRows
	w.mu.Unlock()
	w.done.Add(int64(len(rows)))
}

// jobContext is ctx bounded by the job timeout (when there is one).
func (w *Worker) jobContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if w.cfg.JobTimeout > 0 {
		return context.WithTimeoutCause(ctx, w.cfg.JobTimeout,
			fmt.Errorf("the job exceeded the worker's job timeout of %s (counted from the start of its message)", w.cfg.JobTimeout))
	}
	return ctx, func() {}
}

// reportDelivery tells the coordinator that the jobs of a message came on
// their attempt-th delivery, so that the run counts the redelivery even
// when an earlier delivery's result is the one kept.
func (w *Worker) reportDelivery(run string, attempt int, entries []broker.Entry) {
	ev := broker.DeliveryEvent{Run: run, Worker: w.cfg.Name, Attempt: attempt}
	for _, e := range entries {
		if e.Msg.Job.ID != uuid.Nil {
			ev.Jobs = append(ev.Jobs, e.Msg.Job.ID.String())
		}
	}
	if data, err := json.Marshal(ev); err == nil && len(ev.Jobs) > 0 {
		_ = w.farm.NC.Publish(w.farm.Names.DeliverySubject(run), data)
	}
}

// keepAlive sends in-progress heartbeats for msg every AckWait/3 until the
// returned stop is called or ctx ends, and meanwhile hands results
// buffered before this message to the flusher: a long job would otherwise
// hold them past their AckWait.
//
// Nothing runs for a message shorter than the first of those intervals
// (nearly all): a timer starts the heartbeat goroutine when it fires, and
// stop only cancels the timer. On a machine whose cores all run models, a
// goroutine started and stopped per message would make the worker wait
// for the scheduler between every two messages.
func (w *Worker) keepAlive(ctx context.Context, msg jetstream.Msg) (stop func()) {
	beat := w.beat()
	stopCh := make(chan struct{})
	done := make(chan struct{})
	timer := time.AfterFunc(min(beat, w.cfg.FlushEvery), func() {
		defer close(done)
		t := time.NewTicker(beat)
		defer t.Stop()
		flush := time.NewTicker(w.cfg.FlushEvery)
		defer flush.Stop()
		// the first interval has passed: the message is a long one
		_ = msg.InProgress()
		if w.flushDue() {
			w.tryHandOff()
		}
		for {
			select {
			case <-stopCh:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				_ = msg.InProgress()
			case <-flush.C:
				if w.flushDue() {
					w.tryHandOff()
				}
			}
		}
	})
	var once sync.Once
	return func() {
		once.Do(func() {
			if !timer.Stop() {
				// the heartbeats started: end them before going on
				close(stopCh)
				<-done
			}
		})
	}
}

// runModel runs the model and turns a panic into an error.
// It returns the CPU time the model's run took on its OS thread (NaN
// where the OS has no thread CPU clock): unlike the wall-clock duration,
// it does not grow when other processes share the cores. Models run on
// the calling goroutine, which holds its thread meanwhile; CPU the Go
// runtime spends for the job elsewhere (background GC) is not counted.
func (w *Worker) runModel(ctx context.Context, model simcore.Model, job *broker.JobMsg) (res *simcore.Result, cpuMs float64, err error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	c0, ok0 := threadCPU()
	defer func() {
		cpuMs = math.NaN()
		if c1, ok1 := threadCPU(); ok0 && ok1 {
			cpuMs = float64((c1 - c0).Microseconds()) / 1000
		}
		if p := recover(); p != nil {
			err = fmt.Errorf("model %s panicked: %v\n%s", model.Name(), p, debug.Stack())
		}
	}()
	res, err = model.Run(simcore.WithClock(ctx, time.Now), job.Job.Params, job.Job.Seed)
	return res, 0, err
}

// peek recovers what it can of a job's identity from an undecodable message.
func peek(data []byte) *broker.JobMsg {
	run, id, sweepName, index := broker.PeekJob(data)
	m := &broker.JobMsg{Run: run}
	m.Job.ID, _ = uuid.Parse(id)
	m.Job.Sweep, m.Job.Index = sweepName, index
	return m
}

// reject records a malformed job as failed (when it names a run and a
// job): it can never run, and redelivering it would only loop. If the
// record cannot be stored the message is left unacked: redelivered, and
// rejected again.
func (w *Worker) reject(ctx context.Context, d *delivery, job *broker.JobMsg, err error) {
	w.errs.Add(1)
	w.log.Error("rejected a malformed job message", "subject", d.msg.Subject(), "run", job.Run, "job", job.Job.ID, "err", err)
	if job.Run != "" && broker.SafeName(job.Run) == job.Run && job.Job.ID != uuid.Nil {
		rec := broker.FailRecord{Run: job.Run, Job: job.Job.ID.String(), Sweep: job.Job.Sweep, Index: job.Job.Index,
			Error: "malformed job message: " + err.Error(), Attempts: 1, Worker: w.cfg.Name}
		if !w.recordFailure(ctx, rec) {
			d.mu.Lock()
			d.hold = true
			d.mu.Unlock()
		}
	}
}

// fail reports a failed attempt of a job of d. On the message's last
// allowed delivery it records the job as failed; otherwise the message is
// retried with a growing delay once settled (perhaps on another worker).
func (w *Worker) fail(ctx context.Context, d *delivery, job *broker.JobMsg, err error) {
	w.errs.Add(1)
	attempt := d.attempt
	final := attempt >= int(w.maxDeliver.Load())
	text := err.Error()
	if len(text) > 4000 {
		text = text[:4000] + "…"
	}
	ev := broker.ErrorEvent{Run: job.Run, Job: job.Job.ID.String(), Worker: w.cfg.Name, Attempt: attempt, Error: text, Final: final}
	if data, mErr := json.Marshal(ev); mErr == nil {
		_ = w.farm.NC.Publish(w.farm.Names.ErrorSubject(job.Run), data)
	}
	w.log.Warn("job attempt failed", "run", job.Run, "job", ev.Job, "attempt", attempt, "final", final, "err", firstLine(text))
	if !final {
		d.mu.Lock()
		d.retry = true
		if job.Job.Model == "" {
			// Only the identity of a job this worker cannot decode is
			// known: the message itself must go round again.
			d.whole = true
		} else {
			d.again = append(d.again, &job.Job)
		}
		d.mu.Unlock()
		return
	}
	rec := broker.FailRecord{Run: job.Run, Job: ev.Job, Sweep: job.Job.Sweep, Index: job.Job.Index, Error: text, Attempts: attempt, Worker: w.cfg.Name}
	if !w.recordFailure(ctx, rec) {
		// Leave the message unacked: the max-deliveries advisory path records it.
		d.mu.Lock()
		d.hold = true
		d.mu.Unlock()
	}
}

// resend publishes jobs of a pack that failed on their attempt-th
// delivery as a new message of their own, after the pack's other results
// were stored. Its message ID names the pack's stream sequence, so a
// redelivered pack that resends them again is deduplicated by the server.
// alone marks the message with broker.AloneHeader.
func (w *Worker) resend(msg jetstream.Msg, run string, seq uint64, attempt int, jobs []*sweep.Job, alone bool) error {
	data, err := broker.EncodeRetry(run, attempt, jobs)
	if err != nil {
		return fmt.Errorf("resend jobs of run %s: %w", run, err)
	}
	out := nats.NewMsg(msg.Subject())
	out.Data = data
	if alone {
		out.Header.Set(broker.AloneHeader, "1")
	}
	id := broker.MsgID(run, fmt.Sprintf("%s.s%d", jobs[0].ID, seq))
	keepAlive := func() { _ = msg.InProgress() }
	return retry(context.Background(), w.log, "resend jobs", keepAlive, func(ctx context.Context) error {
		_, err := w.farm.JS.PublishMsg(ctx, out, jetstream.WithMsgID(id))
		return err
	})
}

// split sends each job of a pack delivered again as a message of its own,
// marked to run alone, and acks the pack: one of its jobs may have crashed
// its worker, and run together the jobs after it would never run at all.
// Each new message goes on from this delivery (its first delivery is this
// one's attempt). It reports whether the pack was split; when a job of it
// cannot be resent alone, or a publish fails, the pack runs as it is.
func (w *Worker) split(msg jetstream.Msg, run string, seq uint64, attempt int, entries []broker.Entry) bool {
	for _, e := range entries {
		if e.Err != nil || e.Msg.Job.Model == "" {
			return false
		}
	}
	for _, e := range entries {
		if err := w.resend(msg, run, seq, attempt-1, []*sweep.Job{&e.Msg.Job}, true); err != nil {
			w.log.Warn("cannot split a pack delivered again; it runs whole", "run", run, "err", err)
			return false
		}
	}
	w.log.Info("split a pack delivered again into messages of one job, each to run alone", "run", run, "jobs", len(entries), "attempt", attempt)
	w.ackNow(msg)
	return true
}

// requeue sends the jobs of a message that must run alone, pulled while
// another loop of the process runs alone (or waits to), again as a message
// marked to run alone, whose deliveries go on from this one, and acks it:
// held here meanwhile, it would lose a delivery should the other loop's
// job crash the process. A message that cannot be sent again is handed
// back.
func (w *Worker) requeue(msg jetstream.Msg, run string, seq uint64, attempt int, entries []broker.Entry) {
	jobs := make([]*sweep.Job, 0, len(entries))
	for _, e := range entries {
		if e.Err != nil || e.Msg.Job.Model == "" {
			_ = msg.Nak()
			return
		}
		jobs = append(jobs, &e.Msg.Job)
	}
	if err := w.resend(msg, run, seq, attempt-1, jobs, true); err != nil {
		w.log.Warn("cannot send again a job that must run alone; handing it back", "run", run, "err", err)
		_ = msg.Nak()
		return
	}
	w.log.Debug("sent again a job that must run alone while another runs alone", "run", run, "jobs", len(jobs), "attempt", attempt)
	w.ackNow(msg)
}

// ackNow acks a message and waits until the ack has reached the server,
// so that a crash that follows does not deliver it again.
func (w *Worker) ackNow(msg jetstream.Msg) {
	_ = msg.Ack()
	if err := w.farm.NC.FlushTimeout(10 * time.Second); err != nil {
		w.log.Warn("ack not confirmed by the server", "err", fmt.Errorf("flush: %w", err))
	}
}

// crashed records the jobs of a message whose deliveries ran out without
// a result or an error as failed (broker.CrashedError), deliveries of
// them being counted.
func (w *Worker) crashed(ctx context.Context, d *delivery, entries []broker.Entry, deliveries int) {
	for _, e := range entries {
		job := e.Msg
		if job.Job.ID == uuid.Nil {
			continue
		}
		w.errs.Add(1)
		text := broker.CrashedError(deliveries, job.Job.Params)
		w.log.Error("job failed: its deliveries ran out without a result", "run", job.Run, "job", job.Job.ID, "deliveries", deliveries)
		rec := broker.FailRecord{Run: job.Run, Job: job.Job.ID.String(), Sweep: job.Job.Sweep, Index: job.Job.Index,
			Error: text, Attempts: deliveries, Worker: w.cfg.Name}
		if !w.recordFailure(ctx, rec) {
			d.mu.Lock()
			d.hold = true
			d.mu.Unlock()
		}
	}
}

func (w *Worker) recordFailure(ctx context.Context, rec broker.FailRecord) bool {
	data, _ := json.Marshal(rec)
	return retry(ctx, w.log, "record failure", nil, func(ctx context.Context) error {
		_, err := w.farm.Failed.Put(ctx, broker.FailKey(rec.Run, rec.Job), data)
		return err
	}) == nil
}
