package ptg

import (
	"fmt"
	"math"
	"sort"

	"schedfarm/simcore/engine"
	"schedfarm/simcore/profile"
)

// plan is a schedule of a problem's tasks: task v runs on alloc[v]
// processors during [start[v], end[v]). order is the order in which the
// tasks were placed (the compaction visits them in that order).
type plan struct {
	alloc      []int
	start, end []float64
	order      []int
}

func newPlan(n int) *plan {
	return &plan{alloc: make([]int, n), start: make([]float64, n), end: make([]float64, n), order: make([]int, 0, n)}
}

func (pl *plan) makespan() float64 {
	m := 0.0
	for _, e := range pl.end {
		m = max(m, e)
	}
	return m
}

// readyTime is the latest end among v's predecessors.
func (pl *plan) readyTime(pb *problem, v int) float64 {
	t := 0.0
	for _, u := range pb.pred[v] {
		t = max(t, pl.end[u])
	}
	return t
}

// mapper is the list-scheduling mapping of docs/models/ptg.md A3 (Suter's
// map_allocations): every processor has one "free at" time (no hole
// insertion; holes are the compaction's job). A task takes, among the
// processors free by its ready time, those free latest (least idle gap),
// then those free soonest after it. Processors are interchangeable until
// assignProcessors names them, so the mapper keeps only the sorted free
// times: the chosen processors are always a contiguous window around the
// ready time.
type mapper struct {
	free []float64 // non-decreasing
}

func newMapper(P int, origin float64) *mapper {
	m := &mapper{free: make([]float64, P)}
	for i := range m.free {
		m.free[i] = origin
	}
	return m
}

// place puts a task of p processors and duration d, ready at tr, and
// returns its start. O(log P + P).
func (m *mapper) place(p int, d, tr float64) float64 {
	f := m.free
	// k = sort.Search(len(f), func(i int) bool { return f[i] > tr }),
	// without the closure.
	k, hi0 := 0, len(f)
	for k < hi0 {
		h := int(uint(k+hi0) >> 1)
		if f[h] > tr {
			hi0 = h
		} else {
			k = h + 1
		}
	}
	lo := k - min(p, k)
	hi := lo + p
	start := max(tr, f[hi-1])
	end := start + d
	// Remove the window [lo, hi) and insert p copies of end in order.
	j := hi
	for j < len(f) && f[j] < end {
		j++
	}
	copy(f[lo:], f[hi:j])
	for i := j - p; i < j; i++ {
		f[i] = end
	}
	return start
}

// mapStatic places the tasks in the given order (a parent before its
// children) on P processors from time origin, with the given allocations.
func mapStatic(pb *problem, alloc []int, order []int, P int, origin float64, pl *plan) {
	mapStaticOn(newMapper(P, origin), pb, alloc, order, P, origin, pl)
}

// mapStaticOn is mapStatic on a fresh mapper m of P processors free from
// origin (a caller mapping many times reuses one buffer).
func mapStaticOn(m *mapper, pb *problem, alloc []int, order []int, P int, origin float64, pl *plan) {
	for _, v := range order {
		p := min(alloc[v], P)
		d := pb.dur(v, p)
		tr := max(origin, pl.readyTime(pb, v))
		s := m.place(p, d, tr)
		pl.alloc[v], pl.start[v], pl.end[v] = p, s, s+d
		pl.order = append(pl.order, v)
	}
}

// mapReady is the CRA mapping of N'takpé et al. (casanova2010 §4.3): list
// scheduling over ready tasks only, in simulated time. Whenever processors
// free up, the ready tasks (all predecessors finished) are visited by
// priority (less comes first) and each one that fits in the free
// processors starts now.
func mapReady(pb *problem, alloc []int, less func(a, b int) bool, P int, pl *plan) {
	n := pb.len()
	waiting := make([]int, n)
	var ready []int
	for v := range n {
		waiting[v] = len(pb.pred[v])
		if waiting[v] == 0 {
			ready = append(ready, v)
		}
	}
	// The completions, on the event engine: the task is the event's
	// class, so the tasks ending at one instant end in task order.
	var ends engine.Sim[int]
	free, now, done := P, 0.0, 0
	for done < n {
		sort.Slice(ready, func(i, j int) bool { return less(ready[i], ready[j]) })
		kept := ready[:0]
		for _, v := range ready {
			p := min(alloc[v], P)
			if p > free {
				kept = append(kept, v)
				continue
			}
			free -= p
			d := pb.dur(v, p)
			pl.alloc[v], pl.start[v], pl.end[v] = p, now, now+d
			pl.order = append(pl.order, v)
			ends.Schedule(now+d, v, v)
		}
		ready = kept
		if ends.Len() == 0 {
			break
		}
		now, _ = ends.NextAt()
		for {
			if t, ok := ends.NextAt(); !ok || t > now {
				break
			}
			ev, _ := ends.Next()
			v := ev.Payload
			free += pl.alloc[v]
			done++
			for _, w := range pb.succ[v] {
				if waiting[w]--; waiting[w] == 0 {
					ready = append(ready, w)
				}
			}
		}
	}
}

// compact is the backfilling post-processing of casanova2010 §4.1
// (docs/models/ptg.md A4, conservative backfilling): the tasks are visited in the order they
// were placed, and each one moves to the earliest time after its
// predecessors' (current) ends at which its processors are free for its
// whole duration given every other task's current placement, never later
// than where it is. No task is ever delayed. It returns the number of
// tasks moved. Complexity: O(n·s) with s the profile's steps (≤ 2n).
func compact(pb *problem, P int, origin float64, pl *plan) (moved int, err error) {
	prof := profile.New(P, origin)
	for _, v := range pl.order {
		if err := prof.Reserve(pl.start[v], pl.end[v], pl.alloc[v]); err != nil {
			return 0, fmt.Errorf("compaction: plan over capacity at task %d: %w", v, err)
		}
	}
	for _, v := range pl.order {
		s, e, k := pl.start[v], pl.end[v], pl.alloc[v]
		d := e - s
		tr := max(origin, pl.readyTime(pb, v))
		var t float64
		var ok bool
		if d > 0 && s+d == e {
			// Most tasks do not move: ask for a fit before s as if the
			// task's own reservation were released, without touching the
			// profile (releasing and re-reserving one interval leaves the
			// merged step function, hence the profile, unchanged).
			t, ok = prof.EarliestFitBefore(k, d, tr, s)
			if !ok {
				continue
			}
			if err := prof.Release(s, e, k); err != nil {
				return 0, fmt.Errorf("compaction: %w", err)
			}
		} else {
			// An empty task, or s + (e − s) rounding away from e (where
			// EarliestFitBefore would see [s, s+d) released): release and
			// refit as the definition says.
			if err := prof.Release(s, e, k); err != nil {
				return 0, fmt.Errorf("compaction: %w", err)
			}
			t, ok = prof.EarliestFit(k, d, tr)
			ok = ok && t < s
		}
		if ok {
			pl.start[v], pl.end[v] = t, t+d
			moved++
		}
		if err := prof.Reserve(pl.start[v], pl.end[v], k); err != nil {
			return 0, fmt.Errorf("compaction: task %d: %w", v, err)
		}
	}
	return moved, nil
}

// assignProcessors gives every task concrete processor IDs: tasks by start
// time take the lowest-numbered processors free at their start. It succeeds
// whenever no instant uses more than P processors (interval schedules of
// interchangeable processors can always be coloured this way).
func assignProcessors(pl *plan, P int) ([][]int, error) {
	n := len(pl.start)
	byStart := make([]int, n)
	for i := range byStart {
		byStart[i] = i
	}
	sort.Slice(byStart, func(a, b int) bool {
		x, y := byStart[a], byStart[b]
		if pl.start[x] != pl.start[y] {
			return pl.start[x] < pl.start[y]
		}
		return x < y
	})
	free := make([]float64, P)
	procs := make([][]int, n)
	for _, v := range byStart {
		got := make([]int, 0, pl.alloc[v])
		for i := 0; i < P && len(got) < pl.alloc[v]; i++ {
			if free[i] <= pl.start[v]+1e-9*max(1, math.Abs(pl.start[v])) {
				got = append(got, i)
			}
		}
		if len(got) < pl.alloc[v] {
			return nil, fmt.Errorf("processor assignment: task %d needs %d processors at %v, %d free", v, pl.alloc[v], pl.start[v], len(got))
		}
		for _, i := range got {
			if pl.end[v] > pl.start[v] {
				free[i] = pl.end[v]
			}
		}
		procs[v] = got
	}
	return procs, nil
}
