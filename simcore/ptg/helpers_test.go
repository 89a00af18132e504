package ptg

import (
	"context"
	"fmt"
	"testing"

	"schedfarm/simcore/check"
	"schedfarm/simcore/modeltest"
	"schedfarm/simcore/ptg/dag"
	"schedfarm/simcore/rng"
)

// validate runs the independent checker on an outcome: capacity, one
// processor for one task at a time, non-preemption, PTG precedence.
func validate(o *Outcome, P int) error {
	s := check.Schedule{Capacity: P}
	for v := range o.Start {
		if len(o.Procs[v]) != o.Alloc[v] {
			return fmt.Errorf("task %d: %d processors for an allocation of %d", v, len(o.Procs[v]), o.Alloc[v])
		}
		for k, q := range o.Procs[v] {
			s.Entries = append(s.Entries, check.Entry{Task: int64(v), Part: k, Node: q, Start: o.Start[v], End: o.End[v],
				Deadline: check.NoDeadline})
		}
	}
	for _, e := range o.Edges {
		s.Edges = append(s.Edges, check.Edge{Before: int64(e[0]), After: int64(e[1])})
	}
	return check.Validate(s, 1e-9)
}

func randomInstance(seed uint64, class string, n int, cl Cluster) Instance {
	r := rng.New(seed).Stream("ptgs")
	pop := Population{Class: class, Complexity: DrawComplexity, MaxAlpha: 0.25, Shape: dag.Shape{Fat: -1, Regular: -1, Density: -1}}
	gs, err := pop.Draw(n, r)
	if err != nil {
		panic(err)
	}
	return Instance{Graphs: gs, Cluster: cl}
}

func run(t testing.TB, inst Instance, alg string) *Outcome {
	t.Helper()
	o, err := Schedule(context.Background(), inst, alg, DefaultOptions, rng.New(7).Stream("ties"))
	if err != nil {
		t.Fatalf("%s: %v", alg, err)
	}
	return o
}

// scheduleLayout reads the emitted schedule table on its own: processor
// lists, times and predecessor lists as written.
var scheduleLayout = modeltest.Layout{Task: "task", Procs: "processors", NodeList: "proc_list", Release: "release",
	Start: "start", End: "end", Preds: "preds"}
