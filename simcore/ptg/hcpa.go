package ptg

// HCPAOptions are the open readings of the improved HCPA allocation
// (docs/models/ptg.md A1–A2).
type HCPAOptions struct {
	// SeedRule selects the task on the critical path with the smallest
	// T(v, p+1)/(p+1) (casanova2010 §4.1's wording) instead of the largest gain
	// T(v, p)/p − T(v, p+1)/(p+1) (CPA's reference code, the default).
	SeedRule bool
	// LevelCap refuses an increase that makes the allocations of one
	// precedence level exceed the processor bound (MCPA-style guard).
	LevelCap bool
	// MaxInflation refuses an increase with T(v, p+1)·(p+1) > MaxInflation·T(v, 1)
	// (0 disables the guard).
	MaxInflation float64
	// AreaProcs, when > 0, is the processor count of the average area
	// T_A = Σ p·T(p)/AreaProcs instead of the allocation bound (the
	// cra_area = cluster reading of a share-bounded HCPA).
	AreaProcs int
}

// DefaultHCPA is the improved HCPA used by default: the level cap of
// docs/models/ptg.md A2 (a), and the work-inflation guard (b) at 3 rather than
// the 1.5 first proposed — calibrated on the quartiles casanova2010 quotes (see
// docs/models/ptg.md, Reproduction notes).
var DefaultHCPA = HCPAOptions{LevelCap: true, MaxInflation: 3}

// allocate is the (improved) HCPA allocation phase on a homogeneous
// cluster of P processors (docs/models/ptg.md A1, casanova2010 §4.1): every task starts
// on one processor; while the critical path T_CP exceeds the average area
// T_A = Σ p_v·T(v, p_v)/P, the task of the current critical path with the
// best benefit from one more processor gets it. A problem with several
// entry tasks (several PTGs side by side, C1's composite) has the critical
// path of its longest entry. Each iteration costs O(V + E); the number of
// iterations is the number of processors handed out.
func allocate(pb *problem, P int, opt HCPAOptions) []int {
	return hcpa(pb, P, opt, nil, nil, nil)
}

// hcpaTrace records one allocation run: the task picked at each step, and
// T_CP and Σ p·T(p) before each step (one more entry: the final state).
// need[k] is the smallest processor bound under which steps 0..k are all
// allowed (the largest allocation or, with the level cap, level total they
// create).
type hcpaTrace struct {
	picks     []int
	tcp, area []float64
	need      []int
}

// hcpaBuf holds hcpa's working slices, so that allocateAll's runs (one per
// bound) allocate them once. pos and entries depend on the problem only.
type hcpaBuf struct {
	pb                           *problem
	pos, entries, levelUse, heir []int
	blocked, inflated, dirty     []bool
	bl, cur, next, gain          []float64
}

// reset sizes the slices for pb and clears those hcpa accumulates into.
func (b *hcpaBuf) reset(pb *problem) {
	n := pb.len()
	if b.pb != pb {
		b.pb = pb
		b.pos = grow(b.pos, n) // position in the topological order
		for i, v := range pb.topo {
			b.pos[v] = i
		}
		b.entries = b.entries[:0] // in topological order, so ties go as over pb.topo
		for _, v := range pb.topo {
			if len(pb.pred[v]) == 0 {
				b.entries = append(b.entries, v)
			}
		}
	}
	b.levelUse = grow(b.levelUse, n)
	clear(b.levelUse)
	b.heir = grow(b.heir, n)
	b.blocked = grow(b.blocked, n)
	clear(b.blocked)
	b.inflated = grow(b.inflated, n)
	b.dirty = grow(b.dirty, n)
	clear(b.dirty)
	b.bl = grow(b.bl, n)
	b.next = grow(b.next, n)
	b.gain = grow(b.gain, n)
	b.cur = grow(b.cur, n)
}

// hcpa runs the allocation loop from init (all ones if nil), recording it
// in tr if not nil, in buf's slices (fresh ones if nil).
func hcpa(pb *problem, P int, opt HCPAOptions, init []int, tr *hcpaTrace, buf *hcpaBuf) []int {
	n := pb.len()
	alloc := make([]int, n)
	for v := range alloc {
		alloc[v] = 1
		if init != nil {
			alloc[v] = init[v]
		}
	}
	if n == 0 {
		return alloc
	}
	if buf == nil {
		buf = &hcpaBuf{}
	}
	buf.reset(pb)
	area := 0.0
	levelUse, pos := buf.levelUse, buf.pos
	for v := range n {
		area += pb.dur(v, alloc[v]) * float64(alloc[v])
		levelUse[pb.depth[v]] += alloc[v]
	}
	blocked := buf.blocked
	bl := pb.bottomLevels(alloc, buf.bl)
	// heir[v] is the successor the critical path takes from v: the first
	// one with the largest bottom level (-1 for an exit task).
	heir := buf.heir
	for v := range n {
		heir[v] = heaviest(pb.succ[v], bl)
	}
	// next[v], inflated[v] and gain[v] are what the candidate scan needs
	// of task v at its current allocation, computed when it changes.
	// cur[v] is T(v, p_v), next[v] T(v, p_v + 1).
	cur, next, inflated, gain := buf.cur, buf.next, buf.inflated, buf.gain
	score := func(v int) {
		p := alloc[v]
		cur[v] = pb.dur(v, p)
		next[v] = pb.dur(v, p+1)
		inflated[v] = opt.MaxInflation > 0 && next[v]*float64(p+1) > opt.MaxInflation*pb.seq[v]
		if opt.SeedRule {
			gain[v] = -next[v] / float64(p+1)
		} else {
			gain[v] = cur[v]/float64(p) - next[v]/float64(p+1)
		}
	}
	for v := range n {
		score(v)
	}
	// dirty marks the tasks whose bottom level must be recomputed: the
	// changed task, then the predecessors of every task whose bottom level
	// did change (the others keep theirs: same inputs, same value).
	dirty, entries := buf.dirty, buf.entries
	changed := -1
	need := 1
	den := P
	if opt.AreaProcs > 0 {
		den = opt.AreaProcs
	}
	for {
		if changed >= 0 {
			// Only the changed task and its ancestors, which all come
			// before it in topological order, can change bottom level.
			dirty[changed] = true
			pending := 1 // dirty tasks not yet recomputed
			for i := pos[changed]; pending > 0; i-- {
				v := pb.topo[i]
				if !dirty[v] {
					continue
				}
				dirty[v] = false
				pending--
				h := heaviest(pb.succ[v], bl)
				heir[v] = h
				m := 0.0
				if h >= 0 && bl[h] > m {
					m = bl[h]
				}
				if b := cur[v] + m; b != bl[v] {
					bl[v] = b
					for _, u := range pb.pred[v] {
						if !dirty[u] {
							dirty[u] = true
							pending++
						}
					}
				}
			}
		}
		// The critical path starts at the entry with the largest bottom level.
		start, tcp := -1, -1.0
		for _, v := range entries {
			if bl[v] > tcp {
				start, tcp = v, bl[v]
			}
		}
		if tr != nil {
			tr.tcp = append(tr.tcp, tcp)
			tr.area = append(tr.area, area)
		}
		if tcp <= area/float64(den) {
			return alloc
		}
		// Walk the critical path (from start along heir) and pick on it.
		pick, best := -1, 0.0
		for v := start; v >= 0; v = heir[v] {
			p := alloc[v]
			if blocked[v] || p >= P {
				continue
			}
			if opt.LevelCap && levelUse[pb.depth[v]]+1 > P {
				continue
			}
			if inflated[v] {
				blocked[v] = true // inflation only grows with p
				continue
			}
			if gain[v] > best || opt.SeedRule && pick < 0 {
				pick, best = v, gain[v]
			}
		}
		if pick < 0 {
			return alloc
		}
		area += next[pick]*float64(alloc[pick]+1) - cur[pick]*float64(alloc[pick])
		alloc[pick]++
		score(pick)
		levelUse[pb.depth[pick]]++
		changed = pick
		if tr != nil {
			need = max(need, alloc[pick])
			if opt.LevelCap {
				need = max(need, levelUse[pb.depth[pick]])
			}
			tr.picks = append(tr.picks, pick)
			tr.need = append(tr.need, need)
		}
	}
}

// heaviest returns the first of ws with the largest bottom level (-1 if
// ws is empty): the critical path's next task.
func heaviest(ws []int, bl []float64) int {
	h, best := -1, -1.0
	for _, w := range ws {
		if bl[w] > best {
			h, best = w, bl[w]
		}
	}
	return h
}

// allocateAll returns allocate(pb, p, opt) for every p = 1..P (index p−1)
// from one recorded run at P: under a bound p the greedy makes the same
// picks as under P for as long as those picks are allowed under p (a pick
// is the best of the allowed candidates, and p allows a subset of what P
// allows), so each p replays the recorded prefix up to its own stopping
// step (T_CP <= T_A(p)) or, if a recorded pick is refused first, resumes
// the loop from there. Same result as P separate runs.
func allocateAll(pb *problem, P int, opt HCPAOptions) [][]int {
	out := make([][]int, P)
	tr := &hcpaTrace{}
	var buf hcpaBuf
	out[P-1] = hcpa(pb, P, opt, nil, tr, &buf)
	for p := 1; p < P; p++ {
		k := 0
		for ; k < len(tr.picks); k++ {
			if tr.tcp[k] <= tr.area[k]/float64(p) || tr.need[k] > p {
				break
			}
		}
		alloc := make([]int, pb.len())
		for v := range alloc {
			alloc[v] = 1
		}
		for _, v := range tr.picks[:k] {
			alloc[v]++
		}
		if tr.tcp[k] <= tr.area[k]/float64(p) {
			out[p-1] = alloc
			continue
		}
		out[p-1] = hcpa(pb, p, opt, alloc, nil, &buf)
	}
	return out
}

// criticalPath returns the length of the longest path with the given
// allocations.
func criticalPath(pb *problem, alloc []int) float64 {
	bl := pb.bottomLevels(alloc, nil)
	m := 0.0
	for _, x := range bl {
		m = max(m, x)
	}
	return m
}
