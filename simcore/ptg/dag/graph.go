// Package dag holds the parallel task graphs (PTGs) of casanova2010 (Casanova,
// Desprez, Suter 2010, §3.1 and §5.1.2): their structure, their task costs,
// the generators of the paper's three PTG classes (random daggen-style DAGs,
// FFT and Strassen graphs), and import/export in DOT and in the text format
// of the original generator (daggen, reference [29] of the seed).
//
//	Random / FFT / Strassen (shape)  ──▶  Costs (a·d, a·d·log d, d^1.5; α)  ──▶  Graph
//	ReadNative / ReadDOT (user files) ─────────────────────────────────────────▶  Graph
//	Graph ──▶ WriteNative / WriteDOT, Stats (levels, widths, edges, jumps)
//
// A Graph has no communication costs (casanova2010 §3.1: data go through files,
// their cost is part of each task's time) and may have several entry and
// exit tasks; the zero-cost ROOT and END of daggen are not represented.
package dag

import (
	"fmt"
)

// Task is one data-parallel task: Ops floating-point operations on one
// processor, of which the fraction Alpha is sequential (Amdahl's law).
type Task struct {
	Ops   float64
	Alpha float64
}

// Graph is a PTG: tasks 0..V−1 and precedence edges. Succ and Pred hold
// each task's successors and predecessors in insertion order, without
// duplicates.
type Graph struct {
	Tasks []Task
	Succ  [][]int
	Pred  [][]int
}

// New returns a graph of n tasks and no edges.
func New(n int) *Graph {
	return &Graph{Tasks: make([]Task, n), Succ: make([][]int, n), Pred: make([][]int, n)}
}

// Len returns the number of tasks.
func (g *Graph) Len() int { return len(g.Tasks) }

// AddEdge adds u → v and reports whether it was new (a duplicate is ignored).
func (g *Graph) AddEdge(u, v int) bool {
	for _, w := range g.Succ[u] {
		if w == v {
			return false
		}
	}
	g.Succ[u] = append(g.Succ[u], v)
	g.Pred[v] = append(g.Pred[v], u)
	return true
}

// Edges returns the number of edges.
func (g *Graph) Edges() int {
	n := 0
	for _, s := range g.Succ {
		n += len(s)
	}
	return n
}

// Topo returns the tasks in a topological order (Kahn's algorithm, lowest
// index first among the ready), or an error naming a task on a cycle.
// O(V + E).
func (g *Graph) Topo() ([]int, error) {
	n := g.Len()
	indeg := make([]int, n)
	for v := range n {
		indeg[v] = len(g.Pred[v])
	}
	order := make([]int, 0, n)
	for v := range n {
		if indeg[v] == 0 {
			order = append(order, v)
		}
	}
	for i := 0; i < len(order); i++ {
		for _, w := range g.Succ[order[i]] {
			indeg[w]--
			if indeg[w] == 0 {
				order = append(order, w)
			}
		}
	}
	if len(order) != n {
		for v := range n {
			if indeg[v] > 0 {
				return nil, fmt.Errorf("dag: task %d is on a cycle", v)
			}
		}
	}
	return order, nil
}

// Depth returns each task's precedence level: the number of edges of the
// longest path from an entry task to it (entries are level 0).
func (g *Graph) Depth() []int {
	order, err := g.Topo()
	if err != nil {
		panic(err)
	}
	d := make([]int, g.Len())
	for _, v := range order {
		for _, w := range g.Succ[v] {
			d[w] = max(d[w], d[v]+1)
		}
	}
	return d
}

// Validate checks that the graph is a DAG with consistent edge lists, at
// least one task, and finite non-negative costs with α in [0, 1].
func (g *Graph) Validate() error {
	if g.Len() == 0 {
		return fmt.Errorf("dag: empty graph")
	}
	if len(g.Succ) != g.Len() || len(g.Pred) != g.Len() {
		return fmt.Errorf("dag: %d tasks but %d successor and %d predecessor lists", g.Len(), len(g.Succ), len(g.Pred))
	}
	for v, t := range g.Tasks {
		if !(t.Ops >= 0) || t.Ops > 1e30 {
			return fmt.Errorf("dag: task %d has cost %v flop (want a finite value >= 0)", v, t.Ops)
		}
		if !(t.Alpha >= 0 && t.Alpha <= 1) {
			return fmt.Errorf("dag: task %d has alpha %v (want 0 <= alpha <= 1)", v, t.Alpha)
		}
		for _, w := range g.Succ[v] {
			if w < 0 || w >= g.Len() || w == v {
				return fmt.Errorf("dag: task %d has an edge to %d", v, w)
			}
		}
	}
	_, err := g.Topo()
	return err
}

// Clone returns a deep copy.
func (g *Graph) Clone() *Graph {
	c := New(g.Len())
	copy(c.Tasks, g.Tasks)
	for v := range g.Succ {
		c.Succ[v] = append([]int(nil), g.Succ[v]...)
		c.Pred[v] = append([]int(nil), g.Pred[v]...)
	}
	return c
}

// Stats are the shape statistics the generator test compares with the
// reference samples.
type Stats struct {
	Tasks, Edges int
	// Levels is the number of precedence levels (longest path + 1).
	Levels int
	// MaxWidth is the number of tasks of the largest level.
	MaxWidth int
	// JumpEdges counts edges that skip at least one level (depth(v) − depth(u) > 1).
	JumpEdges int
	// Entries and Exits count tasks without predecessors / successors.
	Entries, Exits int
}

// Stats computes the graph's shape statistics. O(V + E).
func (g *Graph) Stats() Stats {
	d := g.Depth()
	s := Stats{Tasks: g.Len(), Edges: g.Edges()}
	width := map[int]int{}
	for v := range g.Len() {
		width[d[v]]++
		s.Levels = max(s.Levels, d[v]+1)
		if len(g.Pred[v]) == 0 {
			s.Entries++
		}
		if len(g.Succ[v]) == 0 {
			s.Exits++
		}
		for _, w := range g.Succ[v] {
			if d[w]-d[v] > 1 {
				s.JumpEdges++
			}
		}
	}
	for _, c := range width {
		s.MaxWidth = max(s.MaxWidth, c)
	}
	return s
}

// Width returns the number of tasks of the largest precedence level (the
// width(i) of Eq. 2 of casanova2010).
func (g *Graph) Width() int { return g.Stats().MaxWidth }
