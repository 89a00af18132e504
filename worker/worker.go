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
// Nothing a model does takes the worker down, short of crashing its
// process (a Go fatal error, such as running out of memory): a message
// delivered again after such a crash runs alone in the process, after
// every result buffered there is stored (see Process), so that a crashing
// job harms only itself; a pack delivered again is split into messages of
// one job each.
package worker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"schedfarm/broker"
	"schedfarm/results"
	"schedfarm/simcore"
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
	// Process is shared by the workers of one OS process (NewProcess): a
	// job that may crash the process runs alone in it. Nil: the worker
	// has a Process of its own.
	Process *Process
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
	proc *Process

	started time.Time
	// ackWait and maxDeliver are the consumer's, as the coordinator set
	// them: read when the farm was bound and again every deliveryRefresh.
	ackWait    atomic.Int64
	maxDeliver atomic.Int64
	done       atomic.Int64
	errs       atomic.Int64
	modelNs    atomic.Int64

	mu       sync.Mutex
	running  string             // job ID in flight, for heartbeats
	current  *broker.CurrentJob // the job in flight described, for heartbeats
	buffered []*finished
	// tableRows counts the extra-table rows of the buffered jobs.
	tableRows int
	oldest    time.Time
	draining  atomic.Bool
	// flushFailed stops the worker when a part could not be stored even
	// after retries (its jobs were nak'ed and will run elsewhere).
	flushFailed atomic.Bool
	// parts hands buffered results to the flusher goroutine (set by Run);
	// sendMu makes taking the buffer and handing it over one step, so
	// that storeNow's barrier follows every result taken before it.
	parts  chan part
	sendMu sync.Mutex
	// storeErr is the last error of storing a part, until a part is
	// stored: heartbeats carry it to `schedfarm status`.
	storeErr atomic.Pointer[storeProblem]
	// Used by Run's goroutine only: ahead delivers the message pulled
	// while the last one ran (prefetch), lastMsg is how long the last
	// message took.
	ahead   <-chan pulled
	lastMsg time.Duration
	// reading: the loop counts as a reader of its Process (guarded by
	// readMu: a stuck job's timer ends it too).
	readMu  sync.Mutex
	reading bool
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
	w := &Worker{farm: farm, cfg: cfg, log: cfg.Logger.With("worker", cfg.Name), proc: cfg.Process}
	if w.proc == nil {
		w.proc = NewProcess()
	}
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
	parts := make(chan part, 1)
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
		for pt := range parts {
			if err := w.store(flushCtx, pt.buf); err != nil && first == nil {
				first = err
				w.flushFailed.Store(true)
			}
			if pt.done != nil {
				close(pt.done)
			}
		}
		flushed <- first
	}()
	w.proc.join(w)
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
			w.handOff()
		}
	}
	if w.ahead != nil {
		// pulled but not started: another worker takes it now
		if got, ok := <-w.ahead; ok && got.msg != nil {
			_ = got.msg.Nak()
		}
		w.ahead = nil
	}
	w.unread()
	w.proc.leave(w)
	w.handOff()
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
	case w.parts <- part{buf: w.buffered}:
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
// a second for one. A message that may crash the process runs alone in it
// (runAlone).
func (w *Worker) fetchOne(ctx context.Context, noWait bool) (bool, error) {
	var got pulled
	if w.ahead != nil {
		got = <-w.ahead // none: nothing was waiting, or it was handed back
		w.ahead = nil
		if got.msg != nil && !w.isReading() {
			// the job before it was stuck past the job timeout, and this
			// loop stopped counting as a reader: hand it back rather
			// than run it along with a message that runs alone
			_ = got.msg.Nak()
			got = pulled{}
		}
	}
	if got.msg == nil {
		w.unread()
		var err error
		if got, err = w.pull(ctx, noWait); err != nil || got.msg == nil {
			return false, err
		}
	}
	start := time.Now()
	switch {
	case got.alone && w.proc.claim():
		w.runAlone(ctx, got.msg)
	case got.alone:
		// Another loop runs alone, or waits to: send this one again
		// rather than hold it meanwhile.
		w.handle(ctx, got.msg, true)
		w.unread()
	default:
		if w.lastMsg > 0 && w.lastMsg < prefetchShort {
			if meta, err := got.msg.Metadata(); err == nil && meta.NumPending >= prefetchPending {
				w.ahead = w.prefetch(ctx)
			}
		}
		stop := w.unreadAfter()
		w.handle(ctx, got.msg, false)
		stop()
		if w.ahead == nil {
			w.unread()
		}
	}
	w.lastMsg = max(time.Since(start), time.Nanosecond)
	return true, nil
}

// fetchMsg pulls at most one job message (noWait: only one already
// waiting; otherwise waiting up to a second). The caller is a reader of
// its Process.
func (w *Worker) fetchMsg(ctx context.Context, noWait bool) (jetstream.Msg, error) {
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
		return nil, err
	}
	var msg jetstream.Msg
	for m := range batch.Messages() {
		msg = m
	}
	if err := batch.Error(); err != nil && !errors.Is(err, nats.ErrTimeout) && !errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
		w.log.Debug("fetch batch", "err", err)
	}
	return msg, nil
}

// prefetch pulls the next message, if one is waiting, and holds it for
// fetchOne: the channel delivers it, or closes without it when nothing was
// waiting, when ctx ended, or when it was handed back to an idle worker.
// The loop stays a reader of its Process until it has run it.
func (w *Worker) prefetch(ctx context.Context) <-chan pulled {
	ch := make(chan pulled)
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
		got := pulled{msg: msg, alone: runsAlone(msg)}
		handBack := func() { _ = msg.Nak() }
		hold := time.NewTicker(prefetchHold)
		defer hold.Stop()
		alive := time.NewTicker(w.beat())
		defer alive.Stop()
		for {
			select {
			case ch <- got:
				return
			case <-alive.C:
				_ = msg.InProgress()
			case <-hold.C:
				ictx, cancel := context.WithTimeout(ctx, time.Second)
				info, err := w.farm.Workers.Info(ictx)
				cancel()
				if err == nil && info.NumWaiting > 0 {
					handBack()
					return
				}
			case <-ctx.Done():
				handBack()
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
