package ptg

import (
	"context"
	"fmt"
	"math"
	"sort"

	"schedfarm/simcore/ptg/dag"
	"schedfarm/simcore/rng"
)

// Algorithm names, casanova2010 §4.
const (
	Selfish        = "SELFISH"
	SelfishOrder   = "SELFISH_ORDER"
	SelfishWeight  = "SELFISH_WEIGHT"
	C1             = "C1"
	C4             = "C4"
	F1             = "F1"
	F2             = "F2"
	CRANdags       = "CRA_NDAGS"
	CRANdagsWeight = "CRA_NDAGS_WEIGHT"
	CRAWork        = "CRA_WORK"
	CRAWorkWeight  = "CRA_WORK_WEIGHT"
	CRAWidth       = "CRA_WIDTH"
	CRAWidthWeight = "CRA_WIDTH_WEIGHT"
	CAFMCRA        = "CAFM_CRA"
	CAFMCRAWeight  = "CAFM_CRA_WEIGHT"
	CAFMSAF        = "CAFM_SAF"
	CAFMSPTF       = "CAFM_SPTF"
	CAFMLPTF       = "CAFM_LPTF"
	CAFMKShelves   = "CAFM_K_SHELVES"
)

// Algorithms are the 19 algorithms of casanova2010, in the order of its
// figures and Table 2.
var Algorithms = []string{Selfish, SelfishOrder, SelfishWeight, C1, C4, F1, F2,
	CRANdags, CRANdagsWeight, CRAWork, CRAWorkWeight, CRAWidth, CRAWidthWeight,
	CAFMCRA, CAFMCRAWeight, CAFMSAF, CAFMSPTF, CAFMLPTF, CAFMKShelves}

// Instance is one scenario: N PTGs on one cluster.
type Instance struct {
	Graphs  []*dag.Graph
	Cluster Cluster
}

// Outcome is the schedule an algorithm built, with the per-PTG numbers the
// metrics need.
type Outcome struct {
	// Tasks is every task of every PTG; PTG i's task v is Tasks[Offset[i]+v].
	Alloc      []int
	Start, End []float64
	Procs      [][]int
	PTG, Local []int
	Offset     []int
	// Edges are the precedence edges of the PTGs (global task indices).
	Edges [][2]int
	// CStar is each PTG's makespan alone on the cluster (HCPA), C its
	// completion in the shared schedule (all PTGs are released at 0).
	CStar, C []float64
	// Moved counts the tasks the backfilling compaction started earlier.
	Moved int
}

// state is what every algorithm starts from.
type state struct {
	inst   Instance
	P      int
	opt    HCPAOptions
	opts   Options
	parts  []*problem
	u      *problem
	off    []int
	tie    []float64 // per global task
	ptgTie []float64 // per PTG
	alone  []*alone  // each PTG alone on P processors
	cstar  []float64
}

// Schedule runs one algorithm on an instance with the given modelling
// options. ties seeds the random tie-breaking (casanova2010 §4.1), shared by
// all algorithms of one instance.
func Schedule(ctx context.Context, inst Instance, alg string, opts Options, ties *rng.Rand) (*Outcome, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	opt := opts.HCPA
	if len(inst.Graphs) == 0 {
		return nil, fmt.Errorf("ptg: no PTG to schedule")
	}
	P := inst.Cluster.Procs
	if P < 1 || !(inst.Cluster.GFlops > 0) {
		return nil, fmt.Errorf("ptg: cluster %q has %d processors at %v GFlop/s", inst.Cluster.Name, P, inst.Cluster.GFlops)
	}
	speed := inst.Cluster.GFlops * 1e9
	st := &state{inst: inst, P: P, opt: opt, opts: opts}
	for i, g := range inst.Graphs {
		if err := g.Validate(); err != nil {
			return nil, fmt.Errorf("ptg: PTG %d: %w", i, err)
		}
		st.parts = append(st.parts, newProblem(g, speed, i))
	}
	st.u, st.off = union(st.parts)
	st.tie = make([]float64, st.u.len())
	for v := range st.tie {
		st.tie[v] = ties.Float64()
	}
	st.ptgTie = make([]float64, len(st.parts))
	for i := range st.ptgTie {
		st.ptgTie[i] = ties.Float64()
	}
	for i, pb := range st.parts {
		a, err := scheduleAlone(pb, P, opt, st.tieOf(i))
		if err != nil {
			return nil, err
		}
		st.alone = append(st.alone, a)
		st.cstar = append(st.cstar, a.makespan)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var pl *plan
	var err error
	pb := st.u
	switch alg {
	case Selfish, SelfishOrder, SelfishWeight:
		pl, err = st.selfish(alg)
	case C1:
		pl, err = st.combined(st.u)
	case C4:
		pb = st.grafted()
		pl, err = st.combined(pb)
	case F1, F2:
		pl = st.fairness(alg == F2)
	case CRANdags, CRANdagsWeight, CRAWork, CRAWorkWeight, CRAWidth, CRAWidthWeight:
		pl = st.cra(alg)
	case CAFMCRA, CAFMCRAWeight, CAFMSAF, CAFMSPTF, CAFMLPTF, CAFMKShelves:
		pl, err = st.cafm(ctx, alg)
	default:
		return nil, fmt.Errorf("ptg: unknown algorithm %q (want one of %v)", alg, Algorithms)
	}
	if err != nil {
		return nil, fmt.Errorf("ptg: %s: %w", alg, err)
	}
	moved, err := st.backfill(pb, pl)
	if err != nil {
		return nil, fmt.Errorf("ptg: %s: %w", alg, err)
	}
	procs, err := assignProcessors(pl, P)
	if err != nil {
		return nil, fmt.Errorf("ptg: %s: %w", alg, err)
	}
	out := &Outcome{Alloc: pl.alloc, Start: pl.start, End: pl.end, Procs: procs, PTG: st.u.ptg, Local: st.u.local,
		Offset: st.off, CStar: st.cstar, C: make([]float64, len(st.parts)), Moved: moved}
	for v := range st.u.len() {
		out.C[st.u.ptg[v]] = max(out.C[st.u.ptg[v]], pl.end[v])
		for _, w := range st.u.succ[v] {
			out.Edges = append(out.Edges, [2]int{v, w})
		}
	}
	return out, nil
}

func (st *state) tieOf(i int) []float64 {
	return st.tie[st.off[i] : st.off[i]+st.parts[i].len()]
}

// aloneAlloc is every task's allocation in its PTG's dedicated schedule.
func (st *state) aloneAlloc() []int {
	alloc := make([]int, 0, st.u.len())
	for _, a := range st.alone {
		alloc = append(alloc, a.pl.alloc...)
	}
	return alloc
}

// selfish is SELFISH and its ORDER and WEIGHT variants (casanova2010 §4.1):
// dedicated-cluster HCPA allocations, tasks of all PTGs by decreasing bottom
// level (ORDER: by increasing C*max of their PTG first; WEIGHT: by
// decreasing bl/(C*max)²), mapped as early as possible.
func (st *state) selfish(alg string) (*plan, error) {
	alloc := st.aloneAlloc()
	bl := st.u.bottomLevels(alloc, nil)
	var k1, k2 func(int) float64
	switch alg {
	case Selfish:
		k1 = func(v int) float64 { return -bl[v] }
	case SelfishOrder:
		k1 = func(v int) float64 { return st.cstar[st.u.ptg[v]] }
		k2 = func(v int) float64 { return -bl[v] }
	case SelfishWeight:
		k1 = st.weighted(bl)
	}
	order := sortedTasks(st.u, k1, k2, st.tie)
	return st.mapList(st.u, alloc, order)
}

// weighted is the WEIGHT priority key: −bl/(C*max)².
func (st *state) weighted(bl []float64) func(int) float64 {
	return func(v int) float64 {
		c := st.cstar[st.u.ptg[v]]
		if c <= 0 {
			return -bl[v]
		}
		return -bl[v] / (c * c)
	}
}

// combined schedules a composite graph as one PTG with improved HCPA on the
// whole cluster: C1 (all PTGs side by side, casanova2010 §4.2) and C4 (after
// grafting).
func (st *state) combined(pb *problem) (*plan, error) {
	alloc := allocate(pb, st.P, st.opt)
	bl := pb.bottomLevels(alloc, nil)
	order := sortedTasks(pb, func(v int) float64 { return -bl[v] }, nil, st.tie)
	return st.mapList(pb, alloc, order)
}

// grafted is C4's composite (grafting rule: docs/models/ptg.md A5):
// PTGs by decreasing C*max; the longest is the base; every other PTG i
// starts after the task g of the base's critical path (alone schedule) with
// the latest finish f_g such that C*max_base − f_g ≥ C*max_i, or at time 0
// if there is none.
func (st *state) grafted() *problem {
	n := len(st.parts)
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return st.cstar[idx[a]] > st.cstar[idx[b]] })
	base := idx[0]
	bpb, bpl := st.parts[base], st.alone[base].pl
	bl := bpb.bottomLevels(bpl.alloc, nil)
	var cp []int
	start, best := -1, -1.0
	for v := range bpb.len() {
		if len(bpb.pred[v]) == 0 && bl[v] > best {
			start, best = v, bl[v]
		}
	}
	for v := start; v >= 0; {
		cp = append(cp, v)
		next, b := -1, -1.0
		for _, w := range bpb.succ[v] {
			if bl[w] > b {
				next, b = w, bl[w]
			}
		}
		v = next
	}
	pb := cloneProblem(st.u)
	for _, i := range idx[1:] {
		g, gf := -1, -1.0
		for _, v := range cp {
			f := bpl.end[v]
			if st.cstar[base]-f >= st.cstar[i] && f > gf {
				g, gf = v, f
			}
		}
		if g < 0 {
			continue
		}
		for v := range st.parts[i].len() {
			if len(st.parts[i].pred[v]) == 0 {
				pb.addEdge(st.off[base]+g, st.off[i]+v)
			}
		}
	}
	pb.finish()
	return pb
}

func cloneProblem(pb *problem) *problem {
	c := &problem{seq: pb.seq, alpha: pb.alpha, ptg: pb.ptg, local: pb.local,
		succ: make([][]int, pb.len()), pred: make([][]int, pb.len())}
	for v := range pb.succ {
		c.succ[v] = append([]int(nil), pb.succ[v]...)
		c.pred[v] = append([]int(nil), pb.pred[v]...)
	}
	return c
}

// fairness is F1 and F2 of Zhao & Sakellariou adapted to PTGs (casanova2010
// §4.2, docs/models/ptg.md A6): task by task, the PTG with the largest current
// stretch (ties: largest bottom level among its unscheduled tasks, then
// random) places its ready task of largest bottom level with its alone
// allocation; F1 updates that PTG's stretch to finish/alone-finish of the
// task, F2 every PTG's from the progress of its task running at that time.
func (st *state) fairness(f2 bool) *plan {
	n := len(st.parts)
	alloc := st.aloneAlloc()
	bl := st.u.bottomLevels(alloc, nil)
	aloneStart := make([]float64, st.u.len())
	aloneEnd := make([]float64, st.u.len())
	for i, a := range st.alone {
		copy(aloneStart[st.off[i]:], a.pl.start)
		copy(aloneEnd[st.off[i]:], a.pl.end)
	}
	sigma := make([]float64, n)
	waiting := make([]int, st.u.len())
	ready := make([][]int, n)
	left := make([]int, n)
	for v := range st.u.len() {
		waiting[v] = len(st.u.pred[v])
		left[st.u.ptg[v]]++
		if waiting[v] == 0 {
			ready[st.u.ptg[v]] = append(ready[st.u.ptg[v]], v)
		}
	}
	placed := make([]bool, st.u.len())
	maxBL := func(i int) float64 {
		m := 0.0
		for v := st.off[i]; v < st.off[i]+st.parts[i].len(); v++ {
			if !placed[v] {
				m = max(m, bl[v])
			}
		}
		return m
	}
	pl := newPlan(st.u.len())
	history := make([][]int, n)
	m := newMapper(st.P, 0)
	for len(pl.order) < st.u.len() {
		pick, pbl := -1, 0.0
		for i := range n {
			if left[i] == 0 {
				continue
			}
			b := maxBL(i)
			if pick < 0 || sigma[i] > sigma[pick] || sigma[i] == sigma[pick] && (b > pbl || b == pbl && st.ptgTie[i] < st.ptgTie[pick]) {
				pick, pbl = i, b
			}
		}
		r := ready[pick]
		k := 0
		for j := range r {
			if bl[r[j]] > bl[r[k]] || bl[r[j]] == bl[r[k]] && r[j] < r[k] {
				k = j
			}
		}
		v := r[k]
		ready[pick] = append(r[:k], r[k+1:]...)
		p := min(alloc[v], st.P)
		d := st.u.dur(v, p)
		s := m.place(p, d, pl.readyTime(st.u, v))
		pl.alloc[v], pl.start[v], pl.end[v] = p, s, s+d
		pl.order = append(pl.order, v)
		placed[v] = true
		left[pick]--
		history[pick] = append(history[pick], v)
		for _, w := range st.u.succ[v] {
			if waiting[w]--; waiting[w] == 0 {
				ready[st.u.ptg[w]] = append(ready[st.u.ptg[w]], w)
			}
		}
		ct := s + d
		if !f2 {
			if aloneEnd[v] > 0 {
				sigma[pick] = ct / aloneEnd[v]
			}
			continue
		}
		for i := range n {
			h := history[i]
			for j := len(h) - 1; j >= 0; j-- {
				t := h[j]
				if pl.start[t] <= ct && ct < pl.end[t] {
					phi := (ct - pl.start[t]) / (pl.end[t] - pl.start[t])
					tau := aloneStart[t] + phi*(aloneEnd[t]-aloneStart[t])
					if tau > 0 {
						sigma[i] = ct / tau
					}
					break
				}
			}
		}
	}
	return pl
}

// craShare is the resource constraint of each PTG (casanova2010 §4.3): an equal
// share (NDAGS), Eq. 1 (WORK: by sequential work) or Eq. 2 (WIDTH: by the
// largest precedence level), as a number of processors (at least 1).
func (st *state) craShare(alg string) []int {
	n := len(st.parts)
	w := make([]float64, n)
	tot := 0.0
	for i, pb := range st.parts {
		switch alg {
		case CRAWork, CRAWorkWeight:
			for _, s := range pb.seq {
				w[i] += s
			}
		case CRAWidth, CRAWidthWeight:
			w[i] = float64(st.inst.Graphs[i].Width())
		}
		tot += w[i]
	}
	share := make([]int, n)
	for i := range share {
		f := 1 / float64(n)
		if tot > 0 && alg != CRANdags && alg != CRANdagsWeight {
			f = 1/(2*float64(n)) + w[i]/(2*tot)
		}
		share[i] = max(1, int(math.Floor(f*float64(st.P)+1e-9)))
	}
	return share
}

// cra is the CRA family of N'takpé et al. (casanova2010 §4.3): each PTG's
// improved HCPA allocation is bounded by its share (tasks and precedence
// levels), then all tasks are list-scheduled over ready tasks only by
// decreasing bottom level (WEIGHT: bl/(C*max)²).
func (st *state) cra(alg string) *plan {
	share := st.craShare(alg)
	alloc := make([]int, 0, st.u.len())
	for i, pb := range st.parts {
		alloc = append(alloc, allocate(pb, share[i], st.craHCPA())...)
	}
	return st.readyList(alloc, alg == CRANdagsWeight || alg == CRAWorkWeight || alg == CRAWidthWeight)
}

func (st *state) readyList(alloc []int, weight bool) *plan {
	bl := st.u.bottomLevels(alloc, nil)
	key := func(v int) float64 { return -bl[v] }
	if weight {
		key = st.weighted(bl)
	}
	less := func(a, b int) bool {
		ka, kb := key(a), key(b)
		if ka != kb {
			return ka < kb
		}
		if st.tie[a] != st.tie[b] {
			return st.tie[a] < st.tie[b]
		}
		return a < b
	}
	pl := newPlan(st.u.len())
	mapReady(st.u, alloc, less, st.P, pl)
	return pl
}

// cafm is the CAFM family (casanova2010 §4.4): every PTG becomes a moldable job
// (its improved-HCPA schedule alone on p = 1..P processors); the
// Mounié–Rapine–Trystram dual approximation gives C*max and allotments.
// CAFM_CRA uses the allotments as CRA bounds; SAF, SPTF and LPTF
// list-schedule the PTGs' boxes; K_SHELVES packs them into shelves of
// increasing length. Boxed PTGs run their p-processor schedule inside their
// box.
func (st *state) cafm(ctx context.Context, alg string) (*plan, error) {
	n := len(st.parts)
	jobs := make([]*moldableJob, n)
	// Only the makespans of the P schedules of a PTG are kept; the few
	// schedules the boxes use are rebuilt at the end (same inputs, same
	// schedule), which spares holding P plans per PTG.
	allocs := make([][][]int, n)
	var w workspace
	for i, pb := range st.parts {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		j := &moldableJob{t: make([]float64, st.P), best: make([]int, st.P)}
		allocs[i] = allocateAll(pb, st.P, st.opt)
		for p := 1; p <= st.P; p++ {
			var makespan float64
			if p == st.P {
				makespan = st.alone[i].makespan
			} else {
				pl, err := w.schedule(pb, p, allocs[i][p-1], st.tieOf(i))
				if err != nil {
					return nil, err
				}
				makespan = pl.makespan()
			}
			j.t[p-1], j.best[p-1] = makespan, p
			if p > 1 && j.t[p-2] <= makespan {
				j.t[p-1], j.best[p-1] = j.t[p-2], j.best[p-2]
			}
		}
		jobs[i] = j
	}
	omega, allot := mrt(jobs, st.P)
	var boxes []box
	switch alg {
	case CAFMCRA, CAFMCRAWeight:
		alloc := make([]int, 0, st.u.len())
		for i, pb := range st.parts {
			alloc = append(alloc, allocate(pb, allot[i], st.craHCPA())...)
		}
		bl := st.u.bottomLevels(alloc, nil)
		k := func(v int) float64 { return -bl[v] }
		if alg == CAFMCRAWeight {
			k = st.weighted(bl)
		}
		return st.mapList(st.u, alloc, sortedTasks(st.u, k, nil, st.tie))
	case CAFMKShelves:
		boxes = kShelves(jobs, st.P, omega, allot)
	default:
		order := make([]int, n)
		for i := range order {
			order[i] = i
		}
		key := func(i int) float64 {
			t := jobs[i].time(allot[i])
			switch alg {
			case CAFMSAF:
				return float64(allot[i]) * t
			case CAFMLPTF:
				return -t
			}
			return t
		}
		sort.SliceStable(order, func(a, b int) bool { return key(order[a]) < key(order[b]) })
		boxes = listBoxes(jobs, allot, order, st.P)
	}
	pl := newPlan(st.u.len())
	for i, b := range boxes {
		q := jobs[i].best[b.procs-1]
		a := st.alone[i].pl
		if q < st.P {
			var err error
			if a, err = w.schedule(st.parts[i], q, allocs[i][q-1], st.tieOf(i)); err != nil {
				return nil, err
			}
		}
		for v := range st.parts[i].len() {
			g := st.off[i] + v
			pl.alloc[g] = a.alloc[v]
			pl.start[g] = b.start + a.start[v]
			pl.end[g] = b.start + a.end[v]
		}
	}
	pl.order = make([]int, st.u.len())
	for v := range pl.order {
		pl.order[v] = v
	}
	sort.SliceStable(pl.order, func(a, b int) bool { return pl.start[pl.order[a]] < pl.start[pl.order[b]] })
	return pl, nil
}
