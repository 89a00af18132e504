package statuspage

import (
	"context"
	"sync"
	"time"

	"schedfarm/coordinator"
)

// MaxEvents bounds the outages and failovers a Watcher remembers.
const MaxEvents = 50

// DefaultEvery is how often a Watcher asks the coordinator.
const DefaultEvery = time.Second

// Watcher asks the coordinator for the farm's state every Every and keeps
// the last answer, so that the page can be served while the coordinator
// is away: it notes when the coordinator stops answering, when it answers
// again, and when another coordinator answers (a failover).
type Watcher struct {
	// Fetch returns the current document (Build of the coordinator's
	// status); an error means the coordinator did not answer.
	Fetch func(ctx context.Context) (*Document, error)
	// Every is the polling period (0: DefaultEvery).
	Every time.Duration

	mu     sync.Mutex
	last   *Document // the last answer
	down   *Outage   // set while the coordinator does not answer
	events []Event
	polled chan struct{} // closed at the first poll's end
}

// Run polls until ctx ends.
func (w *Watcher) Run(ctx context.Context) {
	every := w.Every
	if every <= 0 {
		every = DefaultEvery
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		w.Poll(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Poll asks the coordinator once and records the outcome.
func (w *Watcher) Poll(ctx context.Context) {
	doc, err := w.Fetch(ctx)
	if ctx.Err() != nil {
		return // stopping: not an outage
	}
	w.record(doc, err, time.Now())
}

// record notes one poll's outcome observed at now.
func (w *Watcher) record(doc *Document, err error, now time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.firstPoll()
	defer func() {
		select {
		case <-w.polled:
		default:
			close(w.polled)
		}
	}()
	if err != nil {
		if w.down == nil {
			w.down = &Outage{Since: now, Error: err.Error()}
			w.event(Event{At: now, Kind: EventUnreachable, Error: err.Error()})
		} else {
			w.down.Error = err.Error()
		}
		return
	}
	prev := ""
	if w.last != nil {
		prev = w.last.Coordinator
	}
	switch {
	case prev != "" && doc.Coordinator != prev:
		e := Event{At: now, Kind: EventFailover, Coordinator: doc.Coordinator, Previous: prev}
		if w.down != nil {
			e.DownSince = w.down.Since
		}
		w.event(e)
	case w.down != nil:
		w.event(Event{At: now, Kind: EventRecovered, Coordinator: doc.Coordinator, DownSince: w.down.Since})
	}
	w.down = nil
	w.last = doc
}

func (w *Watcher) event(e Event) {
	w.events = append(w.events, e)
	if len(w.events) > MaxEvents {
		w.events = append(w.events[:0:0], w.events[len(w.events)-MaxEvents:]...)
	}
}

func (w *Watcher) firstPoll() {
	if w.polled == nil {
		w.polled = make(chan struct{})
	}
}

// Polled returns a channel closed once the first poll has been recorded.
func (w *Watcher) Polled() <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.firstPoll()
	return w.polled
}

// Current returns the document to serve: the last answer (an empty
// document before any), with the outage in progress and the events seen.
func (w *Watcher) Current() *Document {
	w.mu.Lock()
	defer w.mu.Unlock()
	var d Document
	if w.last != nil {
		d = *w.last
	} else {
		d = Document{Runs: []Run{}, Workers: []coordinator.WorkerInfo{}}
	}
	if w.down != nil {
		o := *w.down
		d.Unreachable = &o
	}
	d.Events = append([]Event(nil), w.events...)
	return &d
}
