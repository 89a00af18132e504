package batch

import (
	"sort"

	"schedfarm/simcore/pq"
)

// psrs orders q by PSRS (krallmann1999 §5.5):
//
//  1. modified Smith ratio w/(m·p̂), largest first (ties: submission order);
//  2. the preemptive schedule of that list on an empty machine, all jobs
//     available at 0: strict list order; a job wider than half the machine
//     that does not fit waits at the head for its own length p̂, then
//     preempts every running job, runs alone, and they resume after it;
//  3. conversion: jobs that caused a preemption ("wide") go to bins of
//     their preemptive completion time C in (1.5·2^(k-1), 1.5·2^k], the
//     others to (2^(k-1), 2^k]; bins are taken alternately, small first
//     (sorting by upper bound gives exactly that), the Smith order kept
//     inside a bin.
func (r *reorder) psrs(q []int) {
	ratio := func(j int) float64 {
		return r.weight(j) / (float64(r.jobs[j].Size) * r.jobs[j].Estimate)
	}
	sort.SliceStable(q, func(x, y int) bool {
		a, b := ratio(q[x]), ratio(q[y])
		if a != b {
			return a > b
		}
		return q[x] < q[y]
	})
	n := len(q)
	if cap(r.key) < n {
		r.key = make([]float64, n)
		r.rank = make([]int, n)
	}
	pos := r.key[:n] // bin position, indexed by list position
	N := r.cfg.Nodes
	var run pq.Queue[endItem] // running jobs by (end, list position)
	t, free := 0.0, N
	headSince := -1.0
	h := 0
	for h < n || run.Len() > 0 {
		for h < n {
			j := q[h]
			m, p := r.jobs[j].Size, r.jobs[j].Estimate
			if m <= free {
				run.Push(pq.Key{At: t + p, Sub: int64(h)}, endItem{h, m})
				free -= m
				h++
				headSince = -1
				continue
			}
			if 2*m > N {
				if headSince < 0 {
					headSince = t
				}
				if headSince+p <= t {
					// preempt everything: J runs alone on [t, t+p)
					run.Shift(p)
					t += p
					pos[h] = smallOrWide(t, true)
					h++
					headSince = -1
					continue
				}
			}
			break
		}
		if run.Len() == 0 {
			if h < n { // a waiting wide job on an empty machine: it fits
				continue
			}
			break
		}
		k, _, _ := run.Peek()
		next := k.At
		if h < n && headSince >= 0 {
			if d := headSince + r.jobs[q[h]].Estimate; d < next {
				next = d
			}
		}
		t = next
		for run.Len() > 0 {
			if k, _, _ := run.Peek(); k.At > t {
				break
			}
			k, it, _ := run.Pop()
			free += it.m
			pos[it.pos] = smallOrWide(k.At, false)
		}
	}
	idx := r.rank[:n]
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(x, y int) bool { return pos[idx[x]] < pos[idx[y]] })
	r.sc = append(r.sc[:0], q...)
	for i, k := range idx {
		q[i] = r.sc[k]
	}
}

// smallOrWide is the bin position of a preemptive completion time c: 2k
// for a small job's bin (2^(k-1), 2^k], 2k+1 for a wide job's bin
// (1.5·2^(k-1), 1.5·2^k]; bin 0 holds c <= 1 (resp. 1.5).
func smallOrWide(c float64, wide bool) float64 {
	if wide {
		return float64(2*lengthBin(c/1.5) + 1)
	}
	return float64(2 * lengthBin(c))
}

// endItem is a running job of the preemptive schedule: its list position
// and width (its end is its key).
type endItem struct {
	pos int
	m   int
}
