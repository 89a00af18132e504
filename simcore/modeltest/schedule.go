package modeltest

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"schedfarm/simcore"
	"schedfarm/simcore/check"
)

// Layout says how to read a model's schedule table (one row per task, or
// per part of a task) as the checker's record. Each field names a column;
// an empty name is a column the table does not have.
type Layout struct {
	// Table is the table's name ("schedule" when empty).
	Table string
	// Task (Int) identifies a task: the parts of one task share it, and
	// precedence edges name it. Part (Int) numbers a task's parts (0 when
	// absent).
	Task, Part string
	// Node (Int) is the processor a row runs on; a row with Node < 0, or a
	// table without Node, runs on Procs (Int) processors of the pool (1
	// when absent).
	Node, Procs string
	// NodeList (String) lists a row's processors as comma-separated IDs
	// and ranges "a-b": the row is one part per processor.
	NodeList string
	// Release, Start, End and Deadline (Float) are the row's times; no
	// Release is 0, no Deadline is none.
	Release, Start, End, Deadline string
	// Preds (String) lists the tasks that must end before the row's task
	// starts, comma-separated Task values.
	Preds string
	// Group (Int) splits the table into independent schedules, one per
	// value (the nights of a DSSP run), checked one by one.
	Group string
	// Edges adds precedence edges the table implies without listing them
	// (a job's stages), from the rows of one group.
	Edges func(t testing.TB, tab *simcore.TableData, rows []int) []check.Edge
}

// Schedule reads r's schedule table through l and validates every group
// of it with check.Validate on capacity processors, tol of slack on time
// comparisons. A missing or empty table, a column of another type, or a
// violation fails t. It returns the record checked (of the first group,
// when the table has groups), for further checks.
func Schedule(t testing.TB, r *simcore.Result, capacity int, l Layout, tol float64) check.Schedule {
	t.Helper()
	name := l.Table
	if name == "" {
		name = "schedule"
	}
	tab := r.Tables[name]
	if tab == nil || tab.Len() == 0 {
		t.Fatalf("no %s table, or an empty one", name)
	}
	task, part := columnOr(t, r, name, l.Task, int64(0)), columnOr(t, r, name, l.Part, int64(0))
	node, procs := columnOr(t, r, name, l.Node, int64(-1)), columnOr(t, r, name, l.Procs, int64(1))
	group := columnOr(t, r, name, l.Group, int64(0))
	rel, start := columnOr(t, r, name, l.Release, 0.0), columnOr(t, r, name, l.Start, 0.0)
	end, dl := columnOr(t, r, name, l.End, 0.0), columnOr(t, r, name, l.Deadline, check.NoDeadline)
	var lists, preds []string
	if l.NodeList != "" {
		lists = Column[string](t, r, name, l.NodeList)
	}
	if l.Preds != "" {
		preds = Column[string](t, r, name, l.Preds)
	}
	var order []int64 // groups in order of first appearance
	rows := map[int64][]int{}
	for i, g := range group {
		if _, ok := rows[g]; !ok {
			order = append(order, g)
		}
		rows[g] = append(rows[g], i)
	}
	var first check.Schedule
	for k, g := range order {
		s := check.Schedule{Capacity: capacity}
		for _, i := range rows[g] {
			e := check.Entry{Task: task[i], Part: int(part[i]), Node: int(node[i]), Procs: int(procs[i]),
				Release: rel[i], Start: start[i], End: end[i], Deadline: dl[i]}
			if lists == nil {
				s.Entries = append(s.Entries, e)
			} else {
				ids, err := ParseIDs(lists[i])
				if err != nil {
					t.Fatalf("table %s row %d: %s: %v", name, i, l.NodeList, err)
				}
				if l.Procs != "" && len(ids) != int(procs[i]) {
					t.Fatalf("table %s: task %d lists %d processors, uses %d", name, task[i], len(ids), procs[i])
				}
				for p, q := range ids {
					e.Part, e.Node = p, q
					s.Entries = append(s.Entries, e)
				}
			}
			if preds != nil {
				ids, err := ParseIDs(preds[i])
				if err != nil {
					t.Fatalf("table %s row %d: %s: %v", name, i, l.Preds, err)
				}
				for _, b := range ids {
					s.Edges = append(s.Edges, check.Edge{Before: int64(b), After: task[i]})
				}
			}
		}
		if l.Edges != nil {
			s.Edges = append(s.Edges, l.Edges(t, tab, rows[g])...)
		}
		if err := check.Validate(s, tol); err != nil {
			if l.Group != "" {
				t.Fatalf("table %s, %s %d: %v", name, l.Group, g, err)
			}
			t.Fatalf("table %s: %v", name, err)
		}
		if k == 0 {
			first = s
		}
	}
	return first
}

// columnOr is the named column of the table, or def in every row when
// col is "" (a column the table does not have).
func columnOr[T any](t testing.TB, r *simcore.Result, table, col string, def T) []T {
	t.Helper()
	if col != "" {
		return Column[T](t, r, table, col)
	}
	v := make([]T, r.Tables[table].Len())
	for i := range v {
		v[i] = def
	}
	return v
}

// ParseIDs reads a comma-separated list of non-negative integers and
// ranges "a-b" (both ends included); "" is the empty list.
func ParseIDs(s string) ([]int, error) {
	if s == "" {
		return nil, nil
	}
	var ids []int
	for _, r := range strings.Split(s, ",") {
		a, b, isRange := strings.Cut(r, "-")
		lo, err := strconv.Atoi(a)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", r, err)
		}
		hi := lo
		if isRange {
			if hi, err = strconv.Atoi(b); err != nil {
				return nil, fmt.Errorf("%q: %w", r, err)
			}
		}
		for q := lo; q <= hi; q++ {
			ids = append(ids, q)
		}
	}
	return ids, nil
}
