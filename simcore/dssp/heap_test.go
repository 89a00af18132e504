package dssp

import (
	"math/rand/v2"
	"testing"
)

// TestRunHeapMatchesMinHeap: the specialised running-task heap pops in the order
// of the generic binary heap under random interleaved pushes and pops, with
// tied end times (broken by processor).
func TestRunHeapMatchesMinHeap(t *testing.T) {
	r := rand.New(rand.NewPCG(2005, 7))
	for trial := range 200 {
		var h runHeap
		ref := &minHeap[running]{less: runLess}
		proc := 0
		for step := range 500 {
			if h.Len() == 0 || r.IntN(3) > 0 {
				x := running{end: float64(r.IntN(20)), proc: proc, task: step}
				proc++
				h.Push(x)
				ref.Push(x)
				continue
			}
			if got, want := h.Pop(), ref.Pop(); got != want {
				t.Fatalf("trial %d step %d: popped %+v, want %+v", trial, step, got, want)
			}
		}
		for h.Len() > 0 {
			if got, want := h.Pop(), ref.Pop(); got != want {
				t.Fatalf("trial %d drain: popped %+v, want %+v", trial, got, want)
			}
		}
	}
}
