package batch

import "math"

// waitTree indexes the waiting jobs of an FCFS queue (queue order = job
// index) by minimum size and estimate, so that an EASY pass finds the next
// job that may fit without looking at the others.
type waitTree struct {
	n    int
	node []wtNode
}

// wtNode is a node's bounds: the least size and the least estimate of the
// jobs below it (side by side: a test reads both).
type wtNode struct {
	size int32
	est  float64
}

func newWaitTree(n int) *waitTree {
	m := 1
	for m < n {
		m <<= 1
	}
	t := &waitTree{n: m, node: make([]wtNode, 2*m)}
	for i := range t.node {
		t.node[i] = wtNode{math.MaxInt32, math.Inf(1)}
	}
	return t
}

func (t *waitTree) set(j int, size int32, est float64) {
	i := j + t.n
	t.node[i] = wtNode{size, est}
	for i >>= 1; i > 0; i >>= 1 {
		l, r := &t.node[2*i], &t.node[2*i+1]
		v := wtNode{min(l.size, r.size), min(l.est, r.est)}
		if v == t.node[i] {
			break // the ancestors' bounds do not change either
		}
		t.node[i] = v
	}
}

// ok reports whether node i's bounds allow size <= f and (est <= d or
// size <= e): for a leaf, whether its job passes that test; for an inner
// node, whether one of its leaves may (a leaf that passes has ancestors
// that pass).
func (t *waitTree) ok(i int, f int32, d float64, e int32) bool {
	nd := &t.node[i]
	return nd.size <= f && (nd.size <= e || nd.est <= d)
}

// next returns the first waiting job j >= lo whose bounds allow size <= f
// and (est <= d or size <= e), -1 if none; the caller tests the job
// itself with the exact expression. It climbs from leaf lo to the first
// subtree on its right that may hold one and descends into it, leftmost
// child first, climbing on when both children of a node fail: O(log
// distance) nodes for a job found near lo.
func (t *waitTree) next(lo int, f int32, d float64, e int32) int {
	if lo >= t.n {
		return -1
	}
	i := lo + t.n
	for {
		// climb: the next subtree to the right that may hold one
		for !t.ok(i, f, d, e) {
			for i&1 == 1 {
				i >>= 1
			}
			if i == 0 {
				return -1 // climbed past the root: none on the right
			}
			i++
		}
		// descend, leftmost first
		for i < t.n {
			i <<= 1
			if !t.ok(i, f, d, e) {
				i++
				if !t.ok(i, f, d, e) {
					break
				}
			}
		}
		if i >= t.n && t.ok(i, f, d, e) {
			return i - t.n
		}
	}
}
