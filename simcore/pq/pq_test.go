package pq

import (
	"container/heap"
	"math/rand/v2"
	"slices"
	"testing"
)

type ev struct {
	k  Key
	id int // push order
}

// TestOrderAndTies pushes random keys with many ties, interleaved with
// pops and top replacements, and checks every pop against a reference:
// by At, then Sub, then push order.
func TestOrderAndTies(t *testing.T) {
	for seed := range uint64(50) {
		r := rand.New(rand.NewPCG(seed, 1))
		var q Queue[int]
		var ref []ev // pending, in push order
		id := 0
		key := func() Key { return Key{float64(r.IntN(6)), int64(r.IntN(3))} }
		popRef := func() ev {
			i := 0
			for j := range ref {
				a, b := ref[j].k, ref[i].k
				if a.At < b.At || a.At == b.At && a.Sub < b.Sub {
					i = j
				}
			}
			e := ref[i]
			ref = slices.Delete(ref, i, i+1)
			return e
		}
		check := func(what string, k Key, v int, ok bool, want ev) {
			t.Helper()
			if !ok || k != want.k || v != want.id {
				t.Fatalf("seed %d: %s %v %d %v, want %v", seed, what, k, v, ok, want)
			}
		}
		for range 2000 {
			switch op := r.IntN(10); {
			case op < 5 || len(ref) == 0:
				e := ev{key(), id}
				id++
				q.Push(e.k, e.id)
				ref = append(ref, e)
			case op < 8:
				k, v, ok := q.Pop()
				check("pop", k, v, ok, popRef())
			default:
				// ReplaceTop is a pop followed by a push.
				k, v, ok := q.Peek()
				check("peek", k, v, ok, popRef())
				e := ev{key(), id}
				id++
				q.ReplaceTop(e.k, e.id)
				ref = append(ref, e)
			}
			if q.Len() != len(ref) {
				t.Fatalf("seed %d: len %d, want %d", seed, q.Len(), len(ref))
			}
		}
		for len(ref) > 0 {
			k, v, ok := q.Pop()
			check("drain", k, v, ok, popRef())
		}
		if _, _, ok := q.Pop(); ok {
			t.Fatal("pop from an empty queue")
		}
	}
}

func TestEachAndReset(t *testing.T) {
	q := New[string](4)
	for i, v := range []string{"e", "a", "d"} {
		q.Push(Key{At: float64(i)}, v)
	}
	got := ""
	q.Each(func(_ Key, v string) { got += v })
	slicesSorted := []byte(got)
	slices.Sort(slicesSorted)
	if string(slicesSorted) != "ade" {
		t.Errorf("each saw %q", got)
	}
	q.Reset()
	if q.Len() != 0 {
		t.Errorf("len after reset %d", q.Len())
	}
	if _, _, ok := q.Peek(); ok {
		t.Error("peek after reset")
	}
}

func BenchmarkPushPop(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	keys := make([]float64, 1024)
	for i := range keys {
		keys[i] = r.Float64()
	}
	q := New[int](len(keys))
	b.ReportAllocs()
	for b.Loop() {
		for i, k := range keys {
			q.Push(Key{At: k}, i)
		}
		for q.Len() > 0 {
			q.Pop()
		}
	}
}

// refHeap is container/heap's heap of distinct keys, the reference for
// the queue's layout.
type refHeap []Key

func (h refHeap) Len() int { return len(h) }
func (h refHeap) Less(i, j int) bool {
	if h[i].At != h[j].At {
		return h[i].At < h[j].At
	}
	return h[i].Sub < h[j].Sub
}
func (h refHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *refHeap) Push(x any)   { *h = append(*h, x.(Key)) }
func (h *refHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// TestLayoutMatchesContainerHeap: with keys that never tie, pushes, pops
// and top replacements leave the queue in exactly container/heap's layout
// (Push, Pop, Fix at 0). Models sum floating-point numbers over Values, so
// replacing a container/heap by the queue keeps their results bit for bit.
func TestLayoutMatchesContainerHeap(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 1))
	var q Queue[Key]
	var ref refHeap
	for step := range 5000 {
		k := Key{At: float64(r.IntN(50)), Sub: int64(step)} // ties on At, never on the key
		switch op := r.IntN(6); {
		case ref.Len() == 0 || op < 3:
			q.Push(k, k)
			heap.Push(&ref, k)
		case op < 5:
			_, got, _ := q.Pop()
			if want := heap.Pop(&ref).(Key); got != want {
				t.Fatalf("step %d: pop %v, container/heap %v", step, got, want)
			}
		default:
			q.ReplaceTop(k, k)
			ref[0] = k
			heap.Fix(&ref, 0)
		}
		if got := q.Values(nil); !slices.Equal(got, []Key(ref)) {
			t.Fatalf("step %d: layouts differ", step)
		}
	}
}
