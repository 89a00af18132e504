package ptg

import (
	"strconv"
	"strings"

	"context"
	"fmt"
	"schedfarm/simcore"
	"testing"

	"schedfarm/simcore/check"
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

// validateTable checks the emitted schedule table on its own: processor
// lists, times and predecessor lists as written.
func validateTable(tab *simcore.TableData, P int) error {
	s := check.Schedule{Capacity: P}
	task := tab.Columns["task"].([]int64)
	start, end := tab.Columns["start"].([]float64), tab.Columns["end"].([]float64)
	rel := tab.Columns["release"].([]float64)
	plist, preds := tab.Columns["proc_list"].([]string), tab.Columns["preds"].([]string)
	nprocs := tab.Columns["processors"].([]int64)
	for i := range task {
		var ids []int
		for _, r := range strings.Split(plist[i], ",") {
			a, b, found := strings.Cut(r, "-")
			lo, err := strconv.Atoi(a)
			if err != nil {
				return err
			}
			hi := lo
			if found {
				if hi, err = strconv.Atoi(b); err != nil {
					return err
				}
			}
			for q := lo; q <= hi; q++ {
				ids = append(ids, q)
			}
		}
		if len(ids) != int(nprocs[i]) {
			return fmt.Errorf("task %d: %d processors listed, %d allocated", task[i], len(ids), nprocs[i])
		}
		for k, q := range ids {
			s.Entries = append(s.Entries, check.Entry{Task: task[i], Part: k, Node: q, Release: rel[i], Start: start[i], End: end[i], Deadline: check.NoDeadline})
		}
		if preds[i] != "" {
			for _, u := range strings.Split(preds[i], ",") {
				x, err := strconv.Atoi(u)
				if err != nil {
					return err
				}
				s.Edges = append(s.Edges, check.Edge{Before: int64(x), After: task[i]})
			}
		}
	}
	return check.Validate(s, 1e-9)
}
