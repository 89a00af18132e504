package check

import (
	"strings"
	"testing"
)

func TestValidScheduleAndEachViolation(t *testing.T) {
	ok := []Entry{
		{Task: 1, Part: 0, Node: 0, Release: 0, Start: 0, End: 5, Deadline: 5},
		{Task: 1, Part: 1, Node: 1, Release: 0, Start: 1, End: 5, Deadline: 5},
		{Task: 2, Part: 0, Node: 0, Release: 2, Start: 5, End: 9, Deadline: NoDeadline},
		{Task: 3, Part: 0, Node: -1, Procs: 1, Release: 0, Start: 5, End: 7, Deadline: NoDeadline},
	}
	if err := Validate(Schedule{Capacity: 2, Entries: ok, Edges: []Edge{{1, 2}}}, 1e-9); err != nil {
		t.Fatal(err)
	}
	cases := map[string]func(es []Entry) ([]Entry, []Edge, int){
		"before its release": func(es []Entry) ([]Entry, []Edge, int) { es[2].Release = 6; return es, nil, 2 },
		"after its deadline": func(es []Entry) ([]Entry, []Edge, int) { es[1].End = 6; return es, nil, 2 },
		"more than once": func(es []Entry) ([]Entry, []Edge, int) {
			return append(es, Entry{Task: 2, Part: 0, Node: 1, Start: 9, End: 10, Deadline: NoDeadline}), nil, 2
		},
		"at once":           func(es []Entry) ([]Entry, []Edge, int) { es[2].Start = 4; return es, nil, 2 },
		"processors in use": func(es []Entry) ([]Entry, []Edge, int) { es[3].Procs = 2; return es, nil, 2 },
		"predecessor":       func(es []Entry) ([]Entry, []Edge, int) { return es, []Edge{{2, 3}}, 2 },
		"before it starts":  func(es []Entry) ([]Entry, []Edge, int) { es[0].End = -1; return es, nil, 2 },
	}
	for want, mutate := range cases {
		es, edges, capacity := mutate(append([]Entry(nil), ok...))
		err := Validate(Schedule{Capacity: capacity, Entries: es, Edges: edges}, 1e-9)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v", want, err)
		}
	}
}
