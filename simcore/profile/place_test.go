package profile

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// run is a running task of the tests: its end and processors.
type run struct {
	end float64
	k   int
}

// sameSteps fails unless p and q hold the same steps.
func sameSteps(t *testing.T, what string, p, q *Profile) {
	t.Helper()
	if p.Len() != q.Len() {
		t.Fatalf("%s: %d steps, want %d", what, p.Len(), q.Len())
	}
	for i := range p.Len() {
		at, f := p.Step(i)
		wt, wf := q.Step(i)
		if at != wt || f != wf {
			t.Fatalf("%s: step %d (%v, %d), want (%v, %d)", what, i, at, f, wt, wf)
		}
	}
}

// The fast paths of the moldable planners (Rebuild, CopyFrom, Place,
// PlaceBy) against the general operations they stand for (New and one
// Reserve per running task, EarliestFit then Reserve) on random operation
// sequences with integer times, so breakpoints coincide often: the same
// answers and the same steps after every change.
func TestFastPathsMatchReserve(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 6))
	var p, c Profile // zero Profiles: Rebuild and CopyFrom make them
	for trial := range 300 {
		P := 1 + r.IntN(16)
		origin := float64(r.IntN(10))
		var ends []run
		used := 0
		for used < P && r.IntN(4) > 0 {
			k := 1 + r.IntN(P-used)
			used += k
			ends = append(ends, run{origin + float64(1+r.IntN(20)), k})
		}
		slices.SortStableFunc(ends, func(a, b run) int {
			if a.end < b.end {
				return -1
			}
			if a.end > b.end {
				return 1
			}
			return 0
		})
		rebuild(t, &p, P, origin, ends)
		q := New(P, origin)
		for _, e := range ends {
			if err := q.Reserve(origin, e.end, e.k); err != nil {
				t.Fatal(err)
			}
		}
		sameSteps(t, "rebuild", &p, q)
		now := origin
		for op := range 150 {
			k := 1 + r.IntN(P)
			d := float64(1 + r.IntN(15))
			after := now + float64(r.IntN(3))
			want, _ := q.EarliestFit(k, d, after)
			D := after + float64(r.IntN(30))
			switch r.IntN(4) {
			case 0:
				got, err := p.Place(k, d, after)
				if err != nil || got != want {
					t.Fatalf("trial %d op %d: Place(%d, %v, %v) = %v, %v; want %v", trial, op, k, d, after, got, err, want)
				}
				if err := q.Reserve(want, want+d, k); err != nil {
					t.Fatal(err)
				}
			case 1:
				x, ok := p.PlaceBy(k, d, after, D)
				if ok != (want+d <= D) || ok && x != want {
					t.Fatalf("trial %d op %d: PlaceBy(%d, %v, %v, %v) = %v, %v; fit %v", trial, op, k, d, after, D, x, ok, want)
				}
				if ok {
					if err := q.Reserve(want, want+d, k); err != nil {
						t.Fatal(err)
					}
				}
			case 2: // a copy, then a reservation on it
				c.CopyFrom(&p)
				sameSteps(t, "copy", &c, q)
				if err := c.Reserve(want, want+d, k); err != nil {
					t.Fatal(err)
				}
				p.CopyFrom(&c)
				if err := q.Reserve(want, want+d, k); err != nil {
					t.Fatal(err)
				}
			default:
				now += float64(r.IntN(4))
				p.Advance(now)
				q.Advance(now)
			}
			sameSteps(t, "after op", &p, q)
		}
	}
}

// rebuild makes p the profile of the running tasks ends (sorted by end)
// with Rebuild and one Rise per distinct end.
func rebuild(t *testing.T, p *Profile, capacity int, origin float64, ends []run) {
	t.Helper()
	used := 0
	for _, e := range ends {
		used += e.k
	}
	if err := p.Rebuild(capacity, origin, used); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(ends); {
		e, k := ends[i].end, 0
		for ; i < len(ends) && ends[i].end == e; i++ {
			k += ends[i].k
		}
		if err := p.Rise(e, k); err != nil {
			t.Fatal(err)
		}
	}
}

// Rebuild and Rise refuse what no set of running tasks makes: more busy
// processors than the capacity, a rise not after the last breakpoint, a
// count above the capacity.
func TestRebuildRefuses(t *testing.T) {
	var p Profile
	if err := p.Rebuild(4, 0, 6); !errors.Is(err, ErrCapacity) {
		t.Errorf("Rebuild of 6 busy processors on 4: %v", err)
	}
	if err := p.Rebuild(4, 0, 3); err != nil {
		t.Fatal(err)
	}
	if err := p.Rise(0, 1); err == nil {
		t.Error("a rise at the origin: no error")
	}
	if err := p.Rise(5, 4); !errors.Is(err, ErrCapacity) {
		t.Errorf("5 free of 4: %v", err)
	}
	if err := p.Rise(5, 3); err != nil || p.Len() != 2 || p.Free(5) != 4 {
		t.Errorf("Rise(5, 3): %v, %d steps, %d free at 5", err, p.Len(), p.Free(5))
	}
}

// A planner rebuilds the profile from its running tasks, then places a
// task at its earliest fit.
func ExampleProfile_Place() {
	var p Profile
	// 5 of 8 processors busy: 3 until 10, 2 until 20
	if err := p.Rebuild(8, 0, 5); err != nil {
		panic(err)
	}
	if err := errors.Join(p.Rise(10, 3), p.Rise(20, 2)); err != nil {
		panic(err)
	}
	t, err := p.Place(5, 4, 0) // 5 processors for 4 s: free from 10 on
	fmt.Println(t, err, p.Free(12), p.Free(14))
	// Output: 10 <nil> 1 6
}
