package coordinator

import (
	"testing"

	"github.com/google/uuid"
)

// TestDoneJobs: a job is done while its newest run's parts holding it
// are not all invalid; an older run's part does not make it done again,
// a newer run's does.
func TestDoneJobs(t *testing.T) {
	d := newDoneJobs()
	a, b := uuid.New(), uuid.New()
	d.part("r1", "r1.p1", []uuid.UUID{a, b})
	if !d.has(a) || !d.has(b) {
		t.Fatal("a registered job is not done")
	}
	d.part("r2", "r2.p1", []uuid.UUID{a}) // a forced rerun of a
	if !d.invalidate("r2", "r2.p1", []uuid.UUID{a}) {
		t.Fatal("a first invalidation reported as repeated")
	}
	if d.has(a) {
		t.Error("a job whose newest result is invalid is done (the superseded r1 result counted)")
	}
	if !d.has(b) {
		t.Error("a job of another part lost its result")
	}
	if d.invalidate("r2", "r2.p1", []uuid.UUID{a}) {
		t.Error("a repeated invalidation reported as new")
	}
	d.part("r1", "r1.p2", []uuid.UUID{a}) // a late duplicate of the older run
	if d.has(a) {
		t.Error("an older run's part made a superseded job done again")
	}
	d.part("r3", "r3.p1", []uuid.UUID{a}) // the rerun
	if !d.has(a) {
		t.Error("a newer run's part does not make the job done")
	}
	// Two parts of one run hold c: one invalid leaves it done.
	c := uuid.New()
	d.part("r4", "r4.p1", []uuid.UUID{c})
	d.part("r4", "r4.p2", []uuid.UUID{c})
	d.invalidate("r4", "r4.p1", []uuid.UUID{c})
	if !d.has(c) {
		t.Error("a job held by another valid part of its run is not done")
	}
	// A marker seen before its part (a watch that lags the listing).
	e := uuid.New()
	d.invalidate("r5", "r5.p1", []uuid.UUID{e})
	d.part("r5", "r5.p1", []uuid.UUID{e})
	if d.has(e) {
		t.Error("a part invalidated before it was seen counts as valid")
	}
}
