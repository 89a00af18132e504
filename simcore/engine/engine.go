// Package engine is the discrete-event core shared by the models: a
// time-ordered event queue with deterministic tie-breaking and a clock.
//
// Events are ordered by (Time, Class, insertion order): at one instant, a
// lower Class runs first (a model gives, say, completions class 0 and
// arrivals class 1), and events of one class run in the order they were
// scheduled. No map, pointer address or random source is consulted, so a
// run is reproducible bit for bit. The queue is simcore/pq's.
package engine

import (
	"fmt"

	"schedfarm/simcore/pq"
)

// Event is one scheduled occurrence carrying a model-defined payload.
type Event[T any] struct {
	Time    float64
	Class   int
	Payload T
}

// Sim is an event queue with a clock. The zero value is ready to use, with
// the clock at 0.
type Sim[T any] struct {
	q   pq.Queue[T]
	now float64
}

// Now returns the time of the event last popped (0 before the first).
func (s *Sim[T]) Now() float64 { return s.now }

// Len returns the number of pending events.
func (s *Sim[T]) Len() int { return s.q.Len() }

// Schedule adds an event. Scheduling before Now is a programming error and
// panics: a model must never rewrite its past. O(log n).
func (s *Sim[T]) Schedule(t float64, class int, p T) {
	if t < s.now {
		panic(fmt.Sprintf("engine: event at %v scheduled at time %v", t, s.now))
	}
	s.q.Push(pq.Key{At: t, Sub: int64(class)}, p)
}

// Next removes and returns the earliest event and advances the clock to its
// time; ok is false when no event is pending. O(log n).
func (s *Sim[T]) Next() (ev Event[T], ok bool) {
	k, p, ok := s.q.Pop()
	if !ok {
		return ev, false
	}
	s.now = k.At
	return Event[T]{Time: k.At, Class: int(k.Sub), Payload: p}, true
}

// NextAt returns the time of the earliest pending event (ok false when
// none), without building the event: the cheap test of a loop that takes
// every event of one instant. O(1).
func (s *Sim[T]) NextAt() (t float64, ok bool) {
	k, _, ok := s.q.Peek()
	return k.At, ok
}

// Peek returns the earliest event without removing it.
func (s *Sim[T]) Peek() (ev Event[T], ok bool) {
	k, p, ok := s.q.Peek()
	if !ok {
		return ev, false
	}
	return Event[T]{Time: k.At, Class: int(k.Sub), Payload: p}, true
}
