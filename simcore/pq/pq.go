// Package pq is the priority queue the simulator core shares: a binary
// heap of values ordered by a Key (a time, then a secondary integer such
// as an event class or a task id), with equal keys popped in the order
// they were pushed. That last rule is what makes a simulation reproducible
// when two events share a time: the order does not depend on how the heap
// happened to arrange them.
//
// Push, Pop and ReplaceTop are O(log n); Peek and Len O(1). The keys are
// compared inline (no comparison callback), so the queue costs what a
// hand-written heap costs. The zero Queue is ready to use.
package pq

// Key orders the queue: by At, then by Sub, then by push order. A max-heap
// pushes −At.
type Key struct {
	At  float64
	Sub int64
}

// Queue is a min-priority queue of V by Key.
type Queue[V any] struct {
	items []item[V]
	seq   uint64
}

type item[V any] struct {
	k   Key
	seq uint64
	v   V
}

// New returns an empty queue with room for capacity elements.
func New[V any](capacity int) *Queue[V] {
	return &Queue[V]{items: make([]item[V], 0, capacity)}
}

// Len returns the number of elements.
func (q *Queue[V]) Len() int { return len(q.items) }

// Push adds v with key k.
func (q *Queue[V]) Push(k Key, v V) {
	q.seq++
	q.items = append(q.items, item[V]{k, q.seq, v})
	q.up(len(q.items) - 1)
}

// Peek returns the first element and its key without removing it; ok is
// false when the queue is empty.
func (q *Queue[V]) Peek() (k Key, v V, ok bool) {
	if len(q.items) == 0 {
		return k, v, false
	}
	it := &q.items[0]
	return it.k, it.v, true
}

// Pop removes and returns the first element and its key; ok is false when
// the queue is empty.
func (q *Queue[V]) Pop() (k Key, v V, ok bool) {
	n := len(q.items)
	if n == 0 {
		return k, v, false
	}
	k, v = q.items[0].k, q.items[0].v
	q.items[0] = q.items[n-1]
	q.items[n-1] = item[V]{}
	q.items = q.items[:n-1]
	if n > 1 {
		q.down(0)
	}
	return k, v, true
}

// ReplaceTop replaces the first element by v with key k, as a Pop then a
// Push in one sift. It panics on an empty queue.
func (q *Queue[V]) ReplaceTop(k Key, v V) {
	q.seq++
	q.items[0] = item[V]{k, q.seq, v}
	q.down(0)
}

// Shift adds d to every key's At (a preemption delays everything that
// runs). Adding one number to every key keeps their order (rounding can
// make two keys equal, never swap them), so the heap stays valid.
func (q *Queue[V]) Shift(d float64) {
	for i := range q.items {
		q.items[i].k.At += d
	}
}

// Reset empties the queue, keeping its storage.
func (q *Queue[V]) Reset() {
	clear(q.items)
	q.items = q.items[:0]
}

// Values appends the elements to dst in the heap's own order and returns
// it. That order is a function of the pushes and pops alone (no map, no
// address), so a floating-point sum over it is reproducible; for keys
// that never tie it is container/heap's order for the same operations.
func (q *Queue[V]) Values(dst []V) []V {
	for i := range q.items {
		dst = append(dst, q.items[i].v)
	}
	return dst
}

// Each calls f on every element, in the heap's own order (see Values).
func (q *Queue[V]) Each(f func(Key, V)) {
	for i := range q.items {
		f(q.items[i].k, q.items[i].v)
	}
}

func before[V any](a, b *item[V]) bool {
	if a.k.At != b.k.At {
		return a.k.At < b.k.At
	}
	if a.k.Sub != b.k.Sub {
		return a.k.Sub < b.k.Sub
	}
	return a.seq < b.seq
}

func (q *Queue[V]) up(i int) {
	h := q.items
	for i > 0 {
		p := (i - 1) / 2
		if !before(&h[i], &h[p]) {
			return
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func (q *Queue[V]) down(i int) {
	h := q.items
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && before(&h[r], &h[l]) {
			m = r
		}
		if !before(&h[m], &h[i]) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}
