package ptg

import (
	"fmt"

	"schedfarm/simcore/ptg/dag"
)

// Cluster is one platform of Table 1 of casanova2010: P identical processors of
// the given speed.
type Cluster struct {
	Name  string
	Procs int
	// GFlops is the HPL speed of one processor, in GFlop/s.
	GFlops float64
}

// Clusters are the four Grid'5000 clusters of Table 1 of casanova2010.
var Clusters = []Cluster{
	{"grelon", 120, 3.185},
	{"grillon", 47, 3.379},
	{"chti", 20, 4.311},
	{"gdx", 216, 3.388},
}

// ClusterNames are the parameter spellings, in Table 1's order.
func ClusterNames() []string {
	out := make([]string, len(Clusters))
	for i, c := range Clusters {
		out[i] = c.Name
	}
	return out
}

// FindCluster returns the named cluster of Table 1.
func FindCluster(name string) (Cluster, error) {
	for _, c := range Clusters {
		if c.Name == name {
			return c, nil
		}
	}
	return Cluster{}, fmt.Errorf("cluster %q is not one of %v", name, ClusterNames())
}

// problem is a set of tasks with precedence (one PTG, or several side by
// side, or a composite with extra edges) and its execution-time model.
type problem struct {
	seq   []float64 // T(v, 1), seconds
	alpha []float64 // Amdahl sequential fraction
	succ  [][]int
	pred  [][]int
	topo  []int // a topological order
	depth []int // precedence level: longest path in edges from an entry
	ptg   []int // the PTG each task belongs to (0 for a single PTG)
	local []int // the task's index in its PTG
}

// dur is the Amdahl execution time of task v on p processors (casanova2010
// §5.1.2): T(v, p) = T(v, 1)·(α + (1 − α)/p).
func (pb *problem) dur(v, p int) float64 {
	a := pb.alpha[v]
	return pb.seq[v] * (a + (1-a)/float64(p))
}

func (pb *problem) len() int { return len(pb.seq) }

// newProblem builds the problem of one PTG on processors of the given speed
// (flop/s).
func newProblem(g *dag.Graph, speed float64, ptg int) *problem {
	n := g.Len()
	pb := &problem{seq: make([]float64, n), alpha: make([]float64, n), succ: make([][]int, n), pred: make([][]int, n),
		ptg: make([]int, n), local: make([]int, n)}
	for v, t := range g.Tasks {
		pb.seq[v] = t.Ops / speed
		pb.alpha[v] = t.Alpha
		pb.succ[v] = append([]int(nil), g.Succ[v]...)
		pb.pred[v] = append([]int(nil), g.Pred[v]...)
		pb.ptg[v] = ptg
		pb.local[v] = v
	}
	pb.finish()
	return pb
}

// union concatenates problems; offsets[i] is the first task of parts[i].
func union(parts []*problem) (*problem, []int) {
	pb := &problem{}
	offsets := make([]int, len(parts))
	for i, q := range parts {
		off := pb.len()
		offsets[i] = off
		pb.seq = append(pb.seq, q.seq...)
		pb.alpha = append(pb.alpha, q.alpha...)
		for v := range q.seq {
			pb.succ = append(pb.succ, shift(q.succ[v], off))
			pb.pred = append(pb.pred, shift(q.pred[v], off))
			pb.ptg = append(pb.ptg, i)
			pb.local = append(pb.local, v)
		}
	}
	pb.finish()
	return pb, offsets
}

func shift(xs []int, off int) []int {
	out := make([]int, len(xs))
	for i, x := range xs {
		out[i] = x + off
	}
	return out
}

// addEdge adds u → v (if new); the caller calls finish afterwards.
func (pb *problem) addEdge(u, v int) {
	for _, w := range pb.succ[u] {
		if w == v {
			return
		}
	}
	pb.succ[u] = append(pb.succ[u], v)
	pb.pred[v] = append(pb.pred[v], u)
}

// finish computes the topological order and depths.
func (pb *problem) finish() {
	n := pb.len()
	indeg := make([]int, n)
	pb.topo = pb.topo[:0]
	for v := range n {
		indeg[v] = len(pb.pred[v])
		if indeg[v] == 0 {
			pb.topo = append(pb.topo, v)
		}
	}
	for i := 0; i < len(pb.topo); i++ {
		for _, w := range pb.succ[pb.topo[i]] {
			if indeg[w]--; indeg[w] == 0 {
				pb.topo = append(pb.topo, w)
			}
		}
	}
	if len(pb.topo) != n {
		panic("ptg: cycle in a problem graph")
	}
	pb.depth = make([]int, n)
	for _, v := range pb.topo {
		for _, w := range pb.succ[v] {
			pb.depth[w] = max(pb.depth[w], pb.depth[v]+1)
		}
	}
}

// bottomLevels returns bl(v) = T(v, p_v) + max over successors bl (casanova2010
// §4.1; no communication), into bl (reused if long enough).
func (pb *problem) bottomLevels(alloc []int, bl []float64) []float64 {
	if len(bl) < pb.len() {
		bl = make([]float64, pb.len())
	}
	bl = bl[:pb.len()]
	for i := len(pb.topo) - 1; i >= 0; i-- {
		v := pb.topo[i]
		m := 0.0
		for _, w := range pb.succ[v] {
			m = max(m, bl[w])
		}
		bl[v] = pb.dur(v, alloc[v]) + m
	}
	return bl
}
