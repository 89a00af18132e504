package sweep

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// hugeSweep has 10^7 points before exclusions and 10 after: counting or
// expanding it walks every point, in constant memory, for seconds.
func hugeSweep() string {
	var b strings.Builder
	b.WriteString("name: huge\nmodel: bench\nseed: 1\naxes:\n")
	b.WriteString("  - {name: size, range: {from: 0, to: 9, step: 1}}\n")
	for _, name := range []string{"rows", "work_ms"} {
		fmt.Fprintf(&b, "  - {name: %s, range: {from: 0, to: 999, step: 1}}\n", name)
	}
	b.WriteString("exclude:\n")
	for v := 1; v <= 999; v++ {
		fmt.Fprintf(&b, "  - {rows: %d}\n  - {work_ms: %d}\n", v, v)
	}
	return b.String()
}

// TestWalkStopsSoonAfterCancel cancels a walk's context at a point the
// test chooses (from inside the walk, as a signal would arrive between two
// points) and counts the points the walk visits after it: at most
// cancelEvery, whatever the sweep's size, and the walk ends with an error
// wrapping context.Canceled. Counted, never timed.
func TestWalkStopsSoonAfterCancel(t *testing.T) {
	s, err := parseOne(t, "big.yaml", `name: big
model: bench
seed: 1
axes:
  - {name: size, range: {from: 0, to: 999, step: 1}}
  - {name: rows, range: {from: 0, to: 999, step: 1}}
`)
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range []int{0, 1, cancelEvery - 1, cancelEvery, 5_000, 123_457} {
		ctx, cancel := context.WithCancel(t.Context())
		w := s.newWalker(ctx)
		visited := 0
		err := w.run(func(w *walker, _ []any) error {
			visited++
			if w.ordinal == at {
				cancel()
			}
			return nil
		}, 0)
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled at point %d: err = %v, want context.Canceled", at, err)
		}
		if after := visited - (at + 1); after > cancelEvery {
			t.Errorf("cancelled at point %d of 1,000,000: %d points visited after it, want at most %d", at, after, cancelEvery)
		}
	}
}

// TestExpandContextCancelled: a cancelled context stops ExpandContext,
// ExpandRunContext and CountContext of a sweep whose walk would take
// seconds (10^7 points, constant memory), with an error wrapping
// context.Canceled and no job; without cancellation they give Expand's
// jobs, in its order.
func TestExpandContextCancelled(t *testing.T) {
	reg := testRegistry(t)
	f, err := Parse("huge.yaml", []byte(hugeSweep()), reg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	const limit = 1_000_000 // under the 10^7 points before exclusions: the limit check enumerates them
	if jobs, err := f.ExpandContext(ctx, limit); !errors.Is(err, context.Canceled) || jobs != nil {
		t.Errorf("ExpandContext: %d jobs, err = %v; want none and context.Canceled", len(jobs), err)
	}
	if jobs, err := f.ExpandRunContext(ctx, limit, nil); !errors.Is(err, context.Canceled) || jobs != nil {
		t.Errorf("ExpandRunContext: %d jobs, err = %v; want none and context.Canceled", len(jobs), err)
	}
	if n, _, err := f.CountContext(ctx, limit); !errors.Is(err, context.Canceled) || n != 0 {
		t.Errorf("CountContext: %d, err = %v; want 0 and context.Canceled", n, err)
	}

	small, err := Parse("small.yaml", []byte(`name: small
model: bench
seed: 7
replicates: 3
axes:
  - {name: size, values: [1, 2, 3, 4]}
  - {name: rows, values: [10, 20]}
exclude:
  - {size: 2, rows: 10}
`), reg)
	if err != nil {
		t.Fatal(err)
	}
	want, err := small.Expand(0)
	if err != nil {
		t.Fatal(err)
	}
	got, err := small.ExpandContext(t.Context(), 0)
	if err != nil || !slices.EqualFunc(got, want, func(a, b Job) bool {
		return a.ID == b.ID && a.Index == b.Index && a.Point == b.Point && a.Seed == b.Seed
	}) {
		t.Errorf("ExpandContext: %d jobs, %v; want Expand's %d jobs in its order", len(got), err, len(want))
	}
	if n, _, err := small.CountContext(t.Context(), 0); err != nil || n != len(want) {
		t.Errorf("CountContext = %d, %v; want %d", n, err, len(want))
	}
}
