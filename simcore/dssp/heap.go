package dssp

// minHeap is a binary heap ordered by less; the dispatcher keeps its idle
// processors, running tasks and runnable jobs or tasks in them.
type minHeap[T any] struct {
	items []T
	less  func(a, b T) bool
}

func (h *minHeap[T]) Len() int { return len(h.items) }

func (h *minHeap[T]) Top() T { return h.items[0] }

func (h *minHeap[T]) Push(x T) {
	h.items = append(h.items, x)
	i := len(h.items) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(h.items[i], h.items[p]) {
			break
		}
		h.items[i], h.items[p] = h.items[p], h.items[i]
		i = p
	}
}

func (h *minHeap[T]) Pop() T {
	top := h.items[0]
	last := len(h.items) - 1
	h.items[0] = h.items[last]
	h.items = h.items[:last]
	i := 0
	for {
		l, r, m := 2*i+1, 2*i+2, i
		if l < last && h.less(h.items[l], h.items[m]) {
			m = l
		}
		if r < last && h.less(h.items[r], h.items[m]) {
			m = r
		}
		if m == i {
			break
		}
		h.items[i], h.items[m] = h.items[m], h.items[i]
		i = m
	}
	return top
}

// running is a task in progress on a processor.
type running struct {
	end  float64
	proc int
	task int
}

// runHeap is minHeap[running] by (end, proc) with the comparison inlined:
// the dispatcher pops it once per task. (end, proc) is unique among the
// running tasks, so the pop order does not depend on the heap's shape.
type runHeap struct{ items []running }

func runLess(a, b running) bool {
	if a.end != b.end {
		return a.end < b.end
	}
	return a.proc < b.proc
}

func (h *runHeap) Len() int { return len(h.items) }

func (h *runHeap) Top() running { return h.items[0] }

func (h *runHeap) Push(x running) {
	h.items = append(h.items, x)
	s := h.items
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !runLess(s[i], s[p]) {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

func (h *runHeap) Pop() running {
	s := h.items
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	s = s[:last]
	h.items = s
	i := 0
	for {
		l, r, m := 2*i+1, 2*i+2, i
		if l < last && runLess(s[l], s[m]) {
			m = l
		}
		if r < last && runLess(s[r], s[m]) {
			m = r
		}
		if m == i {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	return top
}

// procHeap is minHeap[int] by value (the idle processors, lowest first),
// with the comparison inlined.
type procHeap struct{ items []int }

func (h *procHeap) Len() int { return len(h.items) }

func (h *procHeap) Push(x int) {
	h.items = append(h.items, x)
	s := h.items
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 2
		if s[i] >= s[p] {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

func (h *procHeap) Pop() int {
	s := h.items
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	s = s[:last]
	h.items = s
	i := 0
	for {
		l, r, m := 2*i+1, 2*i+2, i
		if l < last && s[l] < s[m] {
			m = l
		}
		if r < last && s[r] < s[m] {
			m = r
		}
		if m == i {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	return top
}
