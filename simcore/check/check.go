// Package check is the independent validity checker every model's tests run
// on the schedule the model produced. It knows nothing of any algorithm: it
// takes the schedule record (who ran where, when) and verifies
//
//   - capacity: at no instant do the running entries use more processors
//     than the resource has, and no processor runs two entries at once;
//   - release: no entry starts before its release time;
//   - non-preemption: every (task, part) runs as one interval, start ≤ end;
//   - precedence: every declared edge a → b has all of a end before any
//     part of b starts;
//   - deadlines: every part of a task with a deadline ends by it.
package check

import (
	"errors"
	"fmt"
	"math"
	"sort"
)

// Entry is one interval of a schedule: part Part of task Task ran from
// Start to End, on processor Node (when Node >= 0) or on Procs processors
// of the pool (when Node < 0).
type Entry struct {
	Task     int64
	Part     int
	Node     int
	Procs    int
	Release  float64
	Start    float64
	End      float64
	Deadline float64 // absolute; +Inf (or NaN) when the task has none
}

// Edge is a precedence constraint: task Before must end before task After
// starts.
type Edge struct{ Before, After int64 }

// Schedule is a record to check: the entries, the number of processors of
// the resource they run on, and the precedence edges, if any.
type Schedule struct {
	Capacity int
	Entries  []Entry
	Edges    []Edge
}

// MaxErrors is the number of violations Validate reports before it stops.
const MaxErrors = 20

// Validate checks the schedule, allowing tol of slack on every time
// comparison (floating-point rounding of the model's arithmetic). It returns
// nil or the joined violations (at most MaxErrors).
func Validate(s Schedule, tol float64) error {
	var errs []error
	add := func(format string, a ...any) bool {
		errs = append(errs, fmt.Errorf(format, a...))
		return len(errs) < MaxErrors
	}
	type key struct {
		task int64
		part int
	}
	seen := make(map[key]bool, len(s.Entries))
	ends := map[int64]float64{}
	starts := map[int64]float64{}
	for i, e := range s.Entries {
		k := key{e.Task, e.Part}
		ok := true
		switch {
		case seen[k]:
			ok = add("task %d part %d runs more than once (preempted or duplicated)", e.Task, e.Part)
		case !(e.End >= e.Start):
			ok = add("task %d part %d ends at %v before it starts at %v", e.Task, e.Part, e.End, e.Start)
		case e.Start < e.Release-tol:
			ok = add("task %d part %d starts at %v before its release %v", e.Task, e.Part, e.Start, e.Release)
		case e.End > e.Deadline+tol:
			ok = add("task %d part %d ends at %v after its deadline %v", e.Task, e.Part, e.End, e.Deadline)
		case e.Node >= s.Capacity:
			ok = add("task %d part %d on processor %d of %d", e.Task, e.Part, e.Node, s.Capacity)
		case e.Node < 0 && (e.Procs < 1 || e.Procs > s.Capacity):
			ok = add("task %d part %d uses %d processors of %d", e.Task, e.Part, e.Procs, s.Capacity)
		}
		if !ok {
			return errors.Join(errs...)
		}
		seen[k] = true
		if end, has := ends[e.Task]; !has || e.End > end {
			ends[e.Task] = e.End
		}
		if st, has := starts[e.Task]; !has || e.Start < st {
			starts[e.Task] = e.Start
		}
		_ = i
	}
	for _, ed := range s.Edges {
		if ends[ed.Before] > starts[ed.After]+tol {
			if !add("task %d starts at %v before its predecessor %d ends at %v", ed.After, starts[ed.After], ed.Before, ends[ed.Before]) {
				return errors.Join(errs...)
			}
		}
	}
	// Per processor: intervals must not overlap.
	byNode := map[int][]Entry{}
	for _, e := range s.Entries {
		if e.Node >= 0 {
			byNode[e.Node] = append(byNode[e.Node], e)
		}
	}
	nodes := make([]int, 0, len(byNode))
	for n := range byNode {
		nodes = append(nodes, n)
	}
	sort.Ints(nodes)
	for _, n := range nodes {
		es := byNode[n]
		sort.Slice(es, func(a, b int) bool { return es[a].Start < es[b].Start })
		for i := 1; i < len(es); i++ {
			if es[i].Start < es[i-1].End-tol {
				if !add("processor %d runs task %d part %d [%v, %v) and task %d part %d [%v, %v) at once", n,
					es[i-1].Task, es[i-1].Part, es[i-1].Start, es[i-1].End, es[i].Task, es[i].Part, es[i].Start, es[i].End) {
					return errors.Join(errs...)
				}
			}
		}
	}
	// Pool capacity: sweep starts and ends (ends first at one instant, with
	// the tolerance applied by shifting ends earlier).
	type ev struct {
		t float64
		d int
	}
	evs := make([]ev, 0, 2*len(s.Entries))
	for _, e := range s.Entries {
		if e.End-e.Start <= tol {
			continue
		}
		w := e.Procs
		if e.Node >= 0 {
			w = 1
		}
		evs = append(evs, ev{e.Start, w}, ev{e.End - tol, -w})
	}
	sort.Slice(evs, func(a, b int) bool {
		if evs[a].t != evs[b].t {
			return evs[a].t < evs[b].t
		}
		return evs[a].d < evs[b].d
	})
	used := 0
	for _, x := range evs {
		used += x.d
		if used > s.Capacity {
			add("%d processors in use at %v, capacity %d", used, x.t, s.Capacity)
			break
		}
	}
	return errors.Join(errs...)
}

// NoDeadline is the Deadline of an entry whose task has none.
var NoDeadline = math.Inf(1)
