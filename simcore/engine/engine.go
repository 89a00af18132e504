// Package engine is the discrete-event core shared by the models: a
// time-ordered event queue with deterministic tie-breaking and a clock.
//
// Events are ordered by (Time, Class, insertion order): at one instant, a
// lower Class runs first (a model gives, say, completions class 0 and
// arrivals class 1), and events of one class run in the order they were
// scheduled. No map, pointer address or random source is consulted, so a
// run is reproducible bit for bit.
package engine

import "fmt"

// Event is one scheduled occurrence carrying a model-defined payload.
type Event[T any] struct {
	Time    float64
	Class   int
	Payload T
	seq     uint64
}

// Sim is an event queue with a clock. The zero value is ready to use, with
// the clock at 0.
type Sim[T any] struct {
	heap []Event[T]
	seq  uint64
	now  float64
}

// Now returns the time of the event last popped (0 before the first).
func (s *Sim[T]) Now() float64 { return s.now }

// Len returns the number of pending events.
func (s *Sim[T]) Len() int { return len(s.heap) }

// Schedule adds an event. Scheduling before Now is a programming error and
// panics: a model must never rewrite its past. O(log n).
func (s *Sim[T]) Schedule(t float64, class int, p T) {
	if t < s.now {
		panic(fmt.Sprintf("engine: event at %v scheduled at time %v", t, s.now))
	}
	s.seq++
	s.heap = append(s.heap, Event[T]{Time: t, Class: class, Payload: p, seq: s.seq})
	s.up(len(s.heap) - 1)
}

// Next removes and returns the earliest event and advances the clock to its
// time; ok is false when no event is pending. O(log n).
func (s *Sim[T]) Next() (ev Event[T], ok bool) {
	n := len(s.heap)
	if n == 0 {
		return ev, false
	}
	ev = s.heap[0]
	s.heap[0] = s.heap[n-1]
	s.heap = s.heap[:n-1]
	if n > 1 {
		s.down(0)
	}
	s.now = ev.Time
	return ev, true
}

// Peek returns the earliest event without removing it.
func (s *Sim[T]) Peek() (ev Event[T], ok bool) {
	if len(s.heap) == 0 {
		return ev, false
	}
	return s.heap[0], true
}

func less[T any](a, b *Event[T]) bool {
	if a.Time != b.Time {
		return a.Time < b.Time
	}
	if a.Class != b.Class {
		return a.Class < b.Class
	}
	return a.seq < b.seq
}

func (s *Sim[T]) up(i int) {
	h := s.heap
	for i > 0 {
		p := (i - 1) / 2
		if !less(&h[i], &h[p]) {
			return
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func (s *Sim[T]) down(i int) {
	h := s.heap
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && less(&h[r], &h[l]) {
			m = r
		}
		if !less(&h[m], &h[i]) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}
