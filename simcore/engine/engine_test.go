package engine

import (
	"math/rand/v2"
	"sort"
	"testing"
)

func TestOrderIsTimeClassThenInsertion(t *testing.T) {
	var s Sim[string]
	s.Schedule(5, 1, "arrive-a")
	s.Schedule(5, 0, "finish")
	s.Schedule(1, 3, "early")
	s.Schedule(5, 1, "arrive-b")
	var got []string
	for ev, ok := s.Next(); ok; ev, ok = s.Next() {
		got = append(got, ev.Payload)
	}
	want := []string{"early", "finish", "arrive-a", "arrive-b"}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("order %v, want %v", got, want)
		}
	}
	if s.Now() != 5 {
		t.Fatalf("Now = %v", s.Now())
	}
}

func TestRandomScheduleMatchesStableSort(t *testing.T) {
	const seed = 99
	r := rand.New(rand.NewPCG(seed, 1))
	type item struct {
		t     float64
		c, id int
	}
	var s Sim[int]
	var items []item
	for i := 0; i < 5000; i++ {
		it := item{float64(r.IntN(100)), r.IntN(3), i}
		items = append(items, it)
		s.Schedule(it.t, it.c, i)
	}
	sort.SliceStable(items, func(a, b int) bool {
		if items[a].t != items[b].t {
			return items[a].t < items[b].t
		}
		return items[a].c < items[b].c
	})
	for i, it := range items {
		ev, _ := s.Next()
		if ev.Payload != it.id {
			t.Fatalf("seed %d: event %d is %d, want %d", seed, i, ev.Payload, it.id)
		}
	}
}

func TestSchedulingInThePastPanics(t *testing.T) {
	var s Sim[int]
	s.Schedule(3, 0, 1)
	s.Next()
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	s.Schedule(2, 0, 2)
}

func BenchmarkEngine_PushPop(b *testing.B) {
	var s Sim[int]
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 1000; i++ {
		s.Schedule(r.Float64()*1000, 0, i)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ev, _ := s.Next()
		s.Schedule(ev.Time+r.Float64()*1000, 0, i)
	}
}

// TestNextAtIsTheNextEventsTime: NextAt tells the time of the event Next
// returns, and nothing once the queue is empty.
func TestNextAtIsTheNextEventsTime(t *testing.T) {
	var s Sim[int]
	if _, ok := s.NextAt(); ok {
		t.Fatal("NextAt on an empty Sim")
	}
	for i, at := range []float64{3, 1, 2, 1} {
		s.Schedule(at, 0, i)
	}
	for s.Len() > 0 {
		at, ok := s.NextAt()
		ev, _ := s.Next()
		if !ok || at != ev.Time {
			t.Fatalf("NextAt %v (%v), then Next at %v", at, ok, ev.Time)
		}
	}
	if _, ok := s.NextAt(); ok {
		t.Fatal("NextAt after the last event")
	}
}
