package worker

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"schedfarm/broker"
)

// Process is what the worker loops of one OS process share. A job that
// crashes its process (a Go fatal error such as running out of memory, or
// a kill) ends every loop of it, and the results they hold in their
// buffers die with it: without isolation one crashing job took
// its neighbours down with it on every delivery, until they all ran out
// of deliveries. So a message that may crash — one delivered before
// without settling (NumDelivered > 1), or marked broker.AloneHeader —
// runs alone in its process: it waits until the other loops have run the
// messages they hold, every result buffered in the process is stored (and
// its job acked) before it starts, no loop pulls a message while it runs,
// and its own result is stored before anything else is pulled. Such a
// message found while another one runs alone (or waits to) is not held
// meanwhile but sent again (see requeue). A crasher then costs its
// neighbours at most the one delivery they shared with its first,
// unisolated, attempt.
//
// Create one with NewProcess and give it to every Worker of the process
// (Config.Process); a Worker without one has a Process of its own.
type Process struct {
	mu sync.Mutex
	// readers counts the loops that pull or hold messages that run along
	// with others; idle is closed when it drops to zero.
	readers int
	idle    chan struct{}
	// alone: a loop runs a message alone, or waits to; free is closed
	// when it is done, and readers may enter again.
	alone bool
	free  chan struct{}

	// loopsMu guards loops, the running loops, and is held while storeAll
	// stores their buffers.
	loopsMu sync.Mutex
	loops   []*Worker
}

// NewProcess returns the shared state of the worker loops of one process.
func NewProcess() *Process {
	closed := make(chan struct{})
	close(closed)
	return &Process{idle: closed, free: closed}
}

// enter counts a loop as a reader, which may pull messages and run them
// along with others; it waits while a message runs alone, or until ctx
// ends.
func (p *Process) enter(ctx context.Context) error {
	for {
		p.mu.Lock()
		if !p.alone {
			if p.readers == 0 {
				p.idle = make(chan struct{})
			}
			p.readers++
			p.mu.Unlock()
			return nil
		}
		free := p.free
		p.mu.Unlock()
		select {
		case <-free:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// exit undoes enter.
func (p *Process) exit() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.readers--
	if p.readers == 0 {
		close(p.idle)
	}
}

// claim makes the caller the loop that runs a message alone, unless
// another one is; from then on no loop enters.
func (p *Process) claim() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.alone {
		return false
	}
	p.alone = true
	p.free = make(chan struct{})
	return true
}

// unclaim ends a claim: readers may enter again.
func (p *Process) unclaim() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.alone = false
	close(p.free)
}

// waitIdle waits until no loop is a reader, or ctx ends. The caller holds
// the claim, so none can become one.
func (p *Process) waitIdle(ctx context.Context) error {
	p.mu.Lock()
	idle := p.idle
	p.mu.Unlock()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// join registers a running loop, whose buffered results storeAll stores.
func (p *Process) join(w *Worker) {
	p.loopsMu.Lock()
	defer p.loopsMu.Unlock()
	p.loops = append(p.loops, w)
}

// leave unregisters a loop before its flusher stops; it waits for a
// storeAll in progress.
func (p *Process) leave(w *Worker) {
	p.loopsMu.Lock()
	defer p.loopsMu.Unlock()
	for i, l := range p.loops {
		if l == w {
			p.loops = append(p.loops[:i], p.loops[i+1:]...)
			return
		}
	}
}

// storeAll stores the buffered results of every loop of the process and
// waits until they are stored and their jobs acked.
func (p *Process) storeAll() {
	p.loopsMu.Lock()
	defer p.loopsMu.Unlock()
	for _, w := range p.loops {
		w.storeNow()
	}
}

// pulled is a message pulled from the consumer; alone: it runs alone in
// its process (runsAlone).
type pulled struct {
	msg   jetstream.Msg
	alone bool
}

// runsAlone reports whether a message must run alone: it was delivered
// before without being settled (its worker crashed, hung, gave it back,
// or retries it after an error), or it carries broker.AloneHeader.
func runsAlone(msg jetstream.Msg) bool {
	if meta, err := msg.Metadata(); err == nil && meta.NumDelivered > 1 {
		return true
	}
	h := msg.Headers()
	return h != nil && h.Get(broker.AloneHeader) != ""
}

// pull makes this loop a reader of its Process (waiting while a message
// runs alone) and pulls at most one message (noWait: only one already
// waiting; otherwise waiting up to a second). Without a message, the loop
// stops being a reader.
func (w *Worker) pull(ctx context.Context, noWait bool) (pulled, error) {
	if err := w.read(ctx); err != nil {
		return pulled{}, err
	}
	msg, err := w.fetchMsg(ctx, noWait)
	if err != nil || msg == nil {
		w.unread()
		return pulled{}, err
	}
	return pulled{msg: msg, alone: runsAlone(msg)}, nil
}

// read makes this loop a reader of its Process (see Process.enter).
func (w *Worker) read(ctx context.Context) error {
	if w.isReading() {
		return nil
	}
	if err := w.proc.enter(ctx); err != nil {
		return err
	}
	w.readMu.Lock()
	w.reading = true
	w.readMu.Unlock()
	return nil
}

// isReading reports whether this loop counts as a reader.
func (w *Worker) isReading() bool {
	w.readMu.Lock()
	defer w.readMu.Unlock()
	return w.reading
}

// unread undoes read; a second call does nothing.
func (w *Worker) unread() {
	w.readMu.Lock()
	defer w.readMu.Unlock()
	if w.reading {
		w.reading = false
		w.proc.exit()
	}
}

// unreadAfter undoes read once the job timeout has passed, unless stop
// is called first: a model stuck past it (one that ignores its context)
// has its message redelivered elsewhere, and must not keep a message
// that runs alone waiting for it.
func (w *Worker) unreadAfter() (stop func()) {
	if w.cfg.JobTimeout <= 0 {
		return func() {}
	}
	t := time.AfterFunc(w.cfg.JobTimeout, w.unread)
	return func() { t.Stop() }
}

// runAlone runs a message alone in the process; the caller holds the
// claim, which it ends. It waits for the other loops to run the messages
// they hold (keeping this one alive meanwhile, for as long as a job may
// run), stores every buffered result of the process, runs the message
// and stores its results. If the others do not finish in that time (a
// model that ignores its context), the message is handed back for another
// worker.
func (w *Worker) runAlone(ctx context.Context, msg jetstream.Msg) {
	p := w.proc
	defer p.unclaim()
	w.unread()
	waitCtx, cancel := w.jobContext(ctx)
	defer cancel()
	stop := w.keepAlive(waitCtx, msg)
	err := p.waitIdle(waitCtx)
	if err == nil {
		p.storeAll()
	}
	stop()
	if err != nil {
		if ctx.Err() == nil {
			w.log.Warn("handing back a job that must run alone: other jobs of this process did not finish", "err", err)
		}
		_ = msg.Nak()
		return
	}
	w.handle(ctx, msg, false)
	w.storeNow()
}

// part is what the flusher is handed: buffered results to store, and done,
// if not nil, closed once they and everything handed before are stored
// (or given up).
type part struct {
	buf  []*finished
	done chan struct{}
}

// handOff gives the buffered results to the flusher, waiting for room.
func (w *Worker) handOff() {
	w.sendMu.Lock()
	defer w.sendMu.Unlock()
	if buf := w.take(); len(buf) > 0 {
		w.parts <- part{buf: buf}
	}
}

// storeNow gives the buffered results to the flusher and waits until
// every part handed to it so far is stored, then until the acks of their
// jobs have reached the server, so that a crash that follows loses none
// of them.
func (w *Worker) storeNow() {
	done := make(chan struct{})
	w.sendMu.Lock()
	w.parts <- part{buf: w.take(), done: done}
	w.sendMu.Unlock()
	<-done
	if err := w.farm.NC.FlushTimeout(10 * time.Second); err != nil {
		w.log.Warn("acks of stored results not confirmed by the server", "err", fmt.Errorf("flush: %w", err))
	}
}
