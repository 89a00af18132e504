// Package worker runs jobs. A worker is stateless: it pulls one message at
// a time from the shared durable consumer (one job, or a pack of tiny jobs
// the coordinator sent together), runs the model with in-progress
// heartbeats so a long job is not redelivered while it runs, buffers the
// result rows, and every few hundred rows or fraction of a second stores
// them as one Parquet part in the object store. Only after its part is
// stored does a job get its registry entry (the completion event) and its
// ack, so a crash can repeat work but never lose a result. A job that
// errors or panics is nak'ed with a delay and its error reported; on its
// last delivery it is recorded as failed. A pack is acked once all its
// results are stored; a job of a pack that errors is sent again in a
// message of its own that carries its attempt count, so it is retried and
// recorded as failed alone while the others keep their single result.
// Nothing a model does takes the worker down.
package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"schedfarm/broker"
	"schedfarm/results"
	"schedfarm/simcore"
	"schedfarm/sweep"
)

// Config configures a worker.
type Config struct {
	// Name identifies the worker in results, heartbeats and status.
	Name     string
	Registry *simcore.Registry
	Logger   *slog.Logger
	// FlushRows and FlushEvery bound how long results wait in the buffer:
	// a part is stored when either is reached.
	FlushRows int
	// FlushTableRows stores a part early when the buffered jobs' extra
	// tables reach this many rows, so that a model emitting large per-task
	// tables does not hold hundreds of them in memory.
	FlushTableRows int
	FlushEvery     time.Duration
	// Heartbeat is the interval of the worker's liveness messages.
	Heartbeat time.Duration
	// JobTimeout bounds one job's run time (default 12 h; negative: no
	// bound). In-progress heartbeats stop with it, so a job stuck past it
	// (a model that ignores its context) is redelivered to another worker.
	JobTimeout time.Duration
	// Provenance goes into every Parquet part's metadata.
	Provenance results.Provenance
	// StoreFullWait bounds how long the worker retries a part that the
	// server refuses for lack of storage (JetStream's "insufficient
	// resources", a full --max-store) before it gives the part's jobs
	// back and stops with that reason (default 10 s). Other store errors
	// (a server restarting) are retried for two minutes.
	StoreFullWait time.Duration
}

// Worker pulls and runs jobs. Create it with New and call Run.
type Worker struct {
	farm *broker.Farm
	cfg  Config
	log  *slog.Logger

	started time.Time
	// ackWait and maxDeliver are the consumer's, as the coordinator set
	// them: read when the farm was bound and again every deliveryRefresh.
	ackWait    atomic.Int64
	maxDeliver atomic.Int64
	done       atomic.Int64
	errs       atomic.Int64
	modelNs    atomic.Int64

	mu       sync.Mutex
	running  string // job ID in flight, for heartbeats
	buffered []*finished
	// tableRows counts the extra-table rows of the buffered jobs.
	tableRows int
	oldest    time.Time
	draining  atomic.Bool
	// flushFailed stops the worker when a part could not be stored even
	// after retries (its jobs were nak'ed and will run elsewhere).
	flushFailed atomic.Bool
	// parts hands buffered results to the flusher goroutine (set by Run).
	parts chan []*finished
	// storeErr is the last error of storing a part, until a part is
	// stored: heartbeats carry it to `schedfarm status`.
	storeErr atomic.Pointer[storeProblem]
	// Used by Run's goroutine only: ahead delivers the message pulled
	// while the last one ran (prefetch), lastMsg is how long the last
	// message took.
	ahead   <-chan jetstream.Msg
	lastMsg time.Duration
}

// GCPercent is the garbage collector's GOGC for a process that runs
// workers (`schedfarm run` and `worker` set it unless GOGC is set). At Go's
// default of 100 the collector runs every time the heap doubles: its mark
// work on the workers' cores and its assists inside the models cost the
// quick suite about a percent of its efficiency, for heaps that stay
// small. The price is memory: the heap may grow to about four times the
// live data instead of two.
const GCPercent = 300

// Prefetch: while a message runs, the worker pulls the next one when the
// last message took under prefetchShort and at least prefetchPending more
// wait in the queue, so that short messages do not each wait for a pull
// request's round trip; near the end of the queue it does not, so that the
// last messages go to whichever worker is free first. At most one message
// is held ahead. It is kept alive while it waits, and if the message
// running turns out long (every prefetchHold) while some worker waits for
// work, it is handed back (nak) for that worker to take: that counts as a
// delivery, so it is done only when it saves a worker's time.
const (
	prefetchShort   = 50 * time.Millisecond
	prefetchPending = 8
	prefetchHold    = time.Second
)

// finished is a job whose result waits in the buffer for its part.
type finished struct {
	d     *delivery
	run   string
	model simcore.Model
	row   results.JobResult
}

// New returns a worker.
func New(farm *broker.Farm, cfg Config) (*Worker, error) {
	if cfg.Registry == nil {
		return nil, errors.New("worker: no model registry")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Name == "" {
		host, _ := os.Hostname()
		cfg.Name = fmt.Sprintf("%s-%d-%s", host, os.Getpid(), uuid.NewString()[:8])
	}
	cfg.Name = broker.SafeName(cfg.Name)
	if cfg.FlushTableRows <= 0 {
		cfg.FlushTableRows = 200_000
	}
	if cfg.FlushRows <= 0 {
		cfg.FlushRows = 500
	}
	if cfg.FlushEvery <= 0 {
		cfg.FlushEvery = 250 * time.Millisecond
	}
	if cfg.JobTimeout == 0 {
		cfg.JobTimeout = 12 * time.Hour
	}
	if cfg.Heartbeat <= 0 {
		cfg.Heartbeat = 2 * time.Second
	}
	if cfg.StoreFullWait <= 0 {
		cfg.StoreFullWait = 10 * time.Second
	}
	w := &Worker{farm: farm, cfg: cfg, log: cfg.Logger.With("worker", cfg.Name)}
	w.setDelivery(farm.Settings.AckWait, farm.Settings.MaxDeliver)
	return w, nil
}

// deliveryRefresh is how often a worker reads the consumer's AckWait and
// MaxDeliver again, so that a coordinator restarted with other values is
// followed.
const deliveryRefresh = 10 * time.Second

func (w *Worker) setDelivery(ackWait time.Duration, maxDeliver int) {
	if ackWait <= 0 {
		ackWait = broker.DefaultSettings().AckWait
	}
	if maxDeliver <= 0 {
		maxDeliver = broker.DefaultSettings().MaxDeliver
	}
	if old := time.Duration(w.ackWait.Swap(int64(ackWait))); old != 0 && old != ackWait {
		w.log.Info("the consumer's ack wait changed", "from", old, "to", ackWait)
	}
	if old := w.maxDeliver.Swap(int64(maxDeliver)); old != 0 && old != int64(maxDeliver) {
		w.log.Info("the consumer's max deliver changed", "from", old, "to", maxDeliver)
	}
}

// followDelivery reads the consumer's AckWait and MaxDeliver every
// deliveryRefresh until ctx ends.
func (w *Worker) followDelivery(ctx context.Context) {
	t := time.NewTicker(deliveryRefresh)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		ictx, cancel := context.WithTimeout(ctx, 5*time.Second)
		if info, err := w.farm.Workers.Info(ictx); err == nil {
			w.setDelivery(info.Config.AckWait, info.Config.MaxDeliver)
		}
		cancel()
	}
}

// beat is the interval of in-progress heartbeats: a third of AckWait.
func (w *Worker) beat() time.Duration {
	return max(time.Duration(w.ackWait.Load())/3, 10*time.Millisecond)
}

// Stats are a worker's counters since it started.
type Stats struct {
	// Done counts jobs finished (their results buffered or stored); Errors
	// counts failed attempts.
	Done, Errors int64
	// ModelTime is the time spent inside Model.Run, the pure compute time
	// against which the farm's overhead is measured.
	ModelTime time.Duration
}

// Stats returns the worker's counters.
func (w *Worker) Stats() Stats {
	return Stats{Done: w.done.Load(), Errors: w.errs.Load(), ModelTime: time.Duration(w.modelNs.Load())}
}

// Name returns the worker's name.
func (w *Worker) Name() string { return w.cfg.Name }

// Drain asks the worker to stop pulling, finish its current job, store its
// buffered results and return from Run.
func (w *Worker) Drain() { w.draining.Store(true) }

// Run pulls and runs jobs until ctx ends or the worker is drained. When ctx
// ends, the job in flight is handed back (nak'ed, so another worker takes it
// at once) and the buffered results are stored before Run returns.
func (w *Worker) Run(ctx context.Context) error {
	w.started = time.Now()
	hbCtx, stopHB := context.WithCancel(context.Background())
	defer stopHB()
	go w.heartbeats(hbCtx)
	go w.followDelivery(hbCtx)
	ctl, err := w.farm.NC.Subscribe(w.farm.Names.ControlSubject(w.cfg.Name), func(m *nats.Msg) {
		if string(m.Data) == "drain" {
			w.log.Info("drain requested")
			w.Drain()
		}
		_ = m.Respond([]byte("ok"))
	})
	if err != nil {
		return fmt.Errorf("worker: subscribe control: %w", err)
	}
	defer func() { _ = ctl.Unsubscribe() }()

	// Parts are stored by a flusher goroutine so that pulling and running
	// jobs goes on while a part is encoded and stored; at most one part
	// waits for it (backpressure). It stores even after ctx has ended:
	// those jobs are done, and dropping their results would only make
	// them run again; but for half the ack wait at most, so that a store
	// that cannot take them does not hold the shutdown past the point
	// where the server would redeliver them anyway (they are handed back).
	parts := make(chan []*finished, 1)
	w.parts = parts
	flushCtx, stopFlush := context.WithCancel(context.Background())
	defer stopFlush()
	go func() {
		select {
		case <-ctx.Done():
		case <-flushCtx.Done():
			return
		}
		t := time.NewTimer(w.shutdownStoreWait())
		defer t.Stop()
		select {
		case <-t.C:
			w.log.Warn("shutting down: results not stored within half the ack wait are handed back")
			stopFlush()
		case <-flushCtx.Done():
		}
	}()
	flushed := make(chan error, 1)
	go func() {
		var first error
		for buf := range parts {
			if err := w.store(flushCtx, buf); err != nil && first == nil {
				first = err
				w.flushFailed.Store(true)
			}
		}
		flushed <- first
	}()
	for ctx.Err() == nil && !w.draining.Load() && !w.flushFailed.Load() {
		// With results buffered, ask only for a job that is already
		// waiting: when the queue is empty the part is stored at once
		// rather than after FlushEvery, so the end of a run is not delayed.
		got, err := w.fetchOne(ctx, w.bufferedLen() > 0)
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			w.log.Warn("fetch", "err", err)
			sleep(ctx, 200*time.Millisecond)
			continue
		}
		if w.flushDue() || (!got && w.bufferedLen() > 0) {
			parts <- w.take()
		}
	}
	if w.ahead != nil {
		// pulled but not started: another worker takes it now
		if m, ok := <-w.ahead; ok {
			_ = m.Nak()
		}
		w.ahead = nil
	}
	if buf := w.take(); len(buf) > 0 {
		parts <- buf
	}
	close(parts)
	runErr := <-flushed
	w.log.Info("worker stopped", "done", w.done.Load(), "errors", w.errs.Load())
	return runErr
}

// shutdownStoreWait is how long buffered results may take to store once
// the worker is told to stop: half the ack wait (a second at least).
func (w *Worker) shutdownStoreWait() time.Duration {
	return max(time.Duration(w.ackWait.Load())/2, time.Second)
}

// storeProblem is the last failure to store a part.
type storeProblem struct {
	run, err string
}

// tryHandOff gives the buffered results to the flusher if it has room,
// without waiting.
func (w *Worker) tryHandOff() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.buffered) == 0 || w.parts == nil {
		return
	}
	select {
	case w.parts <- w.buffered:
		w.buffered, w.tableRows = nil, 0
	default:
	}
}

// take empties the buffer and returns what it held.
func (w *Worker) take() []*finished {
	w.mu.Lock()
	defer w.mu.Unlock()
	buf := w.buffered
	w.buffered = nil
	w.tableRows = 0
	return buf
}

// fetchOne runs the message pulled ahead, if any, or pulls at most one
// job message and runs it. It reports whether a message was delivered.
// noWait returns at once when no job is waiting; otherwise it waits up to
// a second for one.
func (w *Worker) fetchOne(ctx context.Context, noWait bool) (bool, error) {
	var msg jetstream.Msg
	if w.ahead != nil {
		msg = <-w.ahead // nil: nothing was waiting, or it was handed back
		w.ahead = nil
	}
	if msg == nil {
		var batch jetstream.MessageBatch
		var err error
		if noWait {
			batch, err = w.farm.Workers.FetchNoWait(1)
		} else {
			fetchCtx, cancel := context.WithTimeout(ctx, time.Second)
			defer cancel()
			batch, err = w.farm.Workers.Fetch(1, jetstream.FetchContext(fetchCtx))
		}
		if err != nil {
			return false, err
		}
		for m := range batch.Messages() {
			msg = m
		}
		if err := batch.Error(); err != nil && !errors.Is(err, nats.ErrTimeout) && !errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			w.log.Debug("fetch batch", "err", err)
		}
		if msg == nil {
			return false, nil
		}
	}
	if w.lastMsg > 0 && w.lastMsg < prefetchShort {
		if meta, err := msg.Metadata(); err == nil && meta.NumPending >= prefetchPending {
			w.ahead = w.prefetch(ctx)
		}
	}
	start := time.Now()
	w.handle(ctx, msg)
	w.lastMsg = max(time.Since(start), time.Nanosecond)
	return true, nil
}

// prefetch pulls the next message, if one is waiting, and holds it for
// fetchOne: the channel delivers it, or closes without it when nothing was
// waiting, when ctx ended, or when it was handed back to an idle worker.
func (w *Worker) prefetch(ctx context.Context) <-chan jetstream.Msg {
	ch := make(chan jetstream.Msg)
	go func() {
		defer close(ch)
		batch, err := w.farm.Workers.FetchNoWait(1)
		if err != nil {
			return
		}
		var msg jetstream.Msg
		for m := range batch.Messages() {
			msg = m
		}
		if msg == nil {
			return
		}
		hold := time.NewTicker(prefetchHold)
		defer hold.Stop()
		alive := time.NewTicker(w.beat())
		defer alive.Stop()
		for {
			select {
			case ch <- msg:
				return
			case <-alive.C:
				_ = msg.InProgress()
			case <-hold.C:
				ictx, cancel := context.WithTimeout(ctx, time.Second)
				info, err := w.farm.Workers.Info(ictx)
				cancel()
				if err == nil && info.NumWaiting > 0 {
					_ = msg.Nak()
					return
				}
			case <-ctx.Done():
				_ = msg.Nak()
				return
			}
		}
	}()
	return ch
}

func (w *Worker) bufferedLen() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.buffered)
}

func (w *Worker) flushDue() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.buffered) >= w.cfg.FlushRows || w.tableRows >= w.cfg.FlushTableRows ||
		(len(w.buffered) > 0 && time.Since(w.oldest) >= w.cfg.FlushEvery)
}

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
// error events and its own failure record.
func (w *Worker) handle(ctx context.Context, msg jetstream.Msg) {
	meta, err := msg.Metadata()
	attempt := 1
	var seq uint64
	if err == nil {
		attempt = int(meta.NumDelivered)
		seq = meta.Sequence.Stream
	}
	d := &delivery{msg: msg, attempt: attempt}
	run, entries, err := broker.DecodeJobs(msg.Data(), w.cfg.Registry)
	if err == nil {
		// Deliveries of the jobs in an earlier message count too.
		attempt += entries[0].Msg.Attempts
		d.attempt = attempt
		d.resend = func(jobs []*sweep.Job) error { return w.resend(msg, run, seq, attempt, jobs) }
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
	// One keep-alive for the whole message: in-progress heartbeats every
	// AckWait/3 while its jobs run, stopped by JobTimeout (counted from
	// the message's start) so a stuck model is redelivered elsewhere.
	msgCtx := ctx
	if w.cfg.JobTimeout > 0 {
		var cancel context.CancelFunc
		msgCtx, cancel = context.WithTimeout(ctx, w.cfg.JobTimeout)
		defer cancel()
	}
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
		w.setRunning(job.Job.ID.String())
		started := time.Now()
		res, cpuMs, runErr := w.runModel(msgCtx, model, job)
		elapsed := time.Since(started)
		w.modelNs.Add(int64(elapsed))
		w.setRunning("")
		if runErr != nil {
			if ctx.Err() != nil {
				// Shutting down: hand the message back so another worker
				// takes it now (the results of its finished jobs go too:
				// a pack is short, and they run again there).
				stopKeepAlive()
				d.giveBack()
				return
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
func (w *Worker) resend(msg jetstream.Msg, run string, seq uint64, attempt int, jobs []*sweep.Job) error {
	data, err := broker.EncodeRetry(run, attempt, jobs)
	if err != nil {
		return err
	}
	id := broker.MsgID(run, fmt.Sprintf("%s.s%d", jobs[0].ID, seq))
	keepAlive := func() { _ = msg.InProgress() }
	return retry(context.Background(), w.log, "resend failed jobs", keepAlive, func(ctx context.Context) error {
		_, err := w.farm.JS.Publish(ctx, msg.Subject(), data, jetstream.WithMsgID(id))
		return err
	})
}

func (w *Worker) recordFailure(ctx context.Context, rec broker.FailRecord) bool {
	data, _ := json.Marshal(rec)
	return retry(ctx, w.log, "record failure", nil, func(ctx context.Context) error {
		_, err := w.farm.Failed.Put(ctx, broker.FailKey(rec.Run, rec.Job), data)
		return err
	}) == nil
}

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
	var stored []string
	for _, table := range names {
		name := run + "/" + results.PartObjectName(part, table)
		data := objects[table]
		if err := w.storeRetry(ctx, "store part object", keepAlive, noted(func(ctx context.Context) error {
			_, err := w.farm.Parts.PutBytes(ctx, name, data)
			return err
		})); err != nil {
			return err
		}
		stored = append(stored, name)
	}
	rec := broker.PartRecord{Run: run, Part: part, Sweep: sweepName, Worker: w.cfg.Name, Objects: stored, ModelMs: modelMs}
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
		_, err := w.farm.Done.Put(ctx, broker.DoneKey(run, part), data)
		return err
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
// waits minutes for it shows nothing but a stalled run.
func (w *Worker) storeRetry(ctx context.Context, what string, onRetry func(), fn func(context.Context) error) error {
	var fullSince time.Time
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	return retry(ctx, w.log, what, onRetry, func(callCtx context.Context) error {
		err := fn(callCtx)
		switch {
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

func (w *Worker) setRunning(id string) {
	w.mu.Lock()
	w.running = id
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
			hb.Running = []string{w.running}
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
