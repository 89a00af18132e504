package coordinator

import (
	"context"
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"schedfarm/broker"
	"schedfarm/sweep"
)

func newTestCoordinator(t *testing.T) *Coordinator {
	t.Helper()
	db, err := newDB()
	if err != nil {
		t.Fatal(err)
	}
	return &Coordinator{db: db, log: slog.Default(), runs: map[string]*runEntry{}, done: newDoneJobs()}
}

func testJobs(n int, sweeps ...string) []sweep.Job {
	jobs := make([]sweep.Job, n)
	for i := range jobs {
		jobs[i] = sweep.Job{ID: uuid.New(), Index: i, Sweep: sweeps[i%len(sweeps)]}
	}
	return jobs
}

// A job's state moves between the status byte and memdb: details only
// while it has a failed attempt, and lookup sees one merged state.
func TestJobStateTransitions(t *testing.T) {
	c := newTestCoordinator(t)
	jobs := testJobs(4, "a", "b")
	jobs[3].ID = jobs[1].ID // the same job in two sweeps: tracked once
	c.addRun(broker.RunRecord{ID: "r"}, jobs, map[uuid.UUID]bool{jobs[2].ID: true}, false)
	if got := c.TrackedJobs(); got != 3 {
		t.Fatalf("tracked %d jobs, want 3 (one duplicate)", got)
	}
	rows := func() int {
		it, err := c.db.Txn(false).Get("jobs", "id")
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for raw := it.Next(); raw != nil; raw = it.Next() {
			n++
		}
		return n
	}
	check := func(id uuid.UUID, status, sweep string, wantRows int) *jobState {
		t.Helper()
		st := c.lookup(c.db.Txn(false), "r", id)
		if st == nil || st.Status != status || st.Sweep != sweep || st.Job != id {
			t.Fatalf("lookup = %+v, want status %s sweep %s", st, status, sweep)
		}
		if n := rows(); n != wantRows {
			t.Fatalf("%d memdb rows, want %d", n, wantRows)
		}
		return st
	}
	check(jobs[0].ID, StatusQueued, "a", 0)
	check(jobs[1].ID, StatusQueued, "b", 0)
	check(jobs[2].ID, StatusDone, "a", 0) // skipped at submission
	if c.lookup(c.db.Txn(false), "r", uuid.New()) != nil || c.lookup(c.db.Txn(false), "other", jobs[0].ID) != nil {
		t.Fatal("lookup of an unknown job or run must be nil")
	}

	update := func(id uuid.UUID, f func(*jobState)) {
		txn := c.db.Txn(true)
		st := c.lookup(txn, "r", id)
		f(st)
		c.store(txn, "r", st)
		txn.Commit()
	}
	update(jobs[1].ID, func(st *jobState) { st.Status, st.Error, st.Worker, st.Attempts = StatusRetrying, "boom", "w1", 1 })
	st := check(jobs[1].ID, StatusRetrying, "b", 1)
	if st.Error != "boom" || st.Worker != "w1" || st.Attempts != 1 {
		t.Fatalf("details lost: %+v", st)
	}
	update(jobs[1].ID, func(st *jobState) { st.Status, st.Error = StatusFailed, "boom twice" })
	if st := check(jobs[1].ID, StatusFailed, "b", 1); st.Error != "boom twice" || st.Attempts != 1 {
		t.Fatalf("details lost: %+v", st)
	}
	update(jobs[1].ID, func(st *jobState) { st.Status, st.Error = StatusDone, "" })
	check(jobs[1].ID, StatusDone, "b", 0) // done: the details go
	update(jobs[0].ID, func(st *jobState) { st.Status = StatusDone })
	check(jobs[0].ID, StatusDone, "a", 0)
}

// Forgetting a run drops exactly its jobs' details: a run whose alias is a
// prefix of another's ("1" and "10") keeps the other's.
func TestForgetDropsOnlyItsRun(t *testing.T) {
	c := newTestCoordinator(t)
	var first, tenth string
	var firstJobs, tenthJobs []sweep.Job
	for i := 1; i <= 36; i++ {
		run := uuid.NewString()
		jobs := testJobs(2, "s")
		c.addRun(broker.RunRecord{ID: run}, jobs, nil, false)
		switch c.runs[run].alias {
		case "1":
			first, firstJobs = run, jobs
		case "10":
			tenth, tenthJobs = run, jobs
		}
	}
	if first == "" || tenth == "" {
		t.Fatal("aliases 1 and 10 not handed out")
	}
	fail := func(run string, id uuid.UUID) {
		txn := c.db.Txn(true)
		st := c.lookup(txn, run, id)
		st.Status, st.Error = StatusFailed, "x"
		c.store(txn, run, st)
		txn.Commit()
	}
	fail(first, firstJobs[0].ID)
	fail(tenth, tenthJobs[1].ID)
	c.forget(first)
	if st := c.lookup(c.db.Txn(false), tenth, tenthJobs[1].ID); st == nil || st.Status != StatusFailed || st.Error != "x" {
		t.Fatalf("run 10's failed job after forgetting run 1: %+v", st)
	}
	if got, want := c.TrackedJobs(), 35*2; got != want {
		t.Fatalf("tracked %d jobs, want %d", got, want)
	}
	for run := range c.runs {
		c.forget(run)
	}
	if got := c.TrackedJobs(); got != 0 {
		t.Fatalf("tracked %d jobs after forgetting every run", got)
	}
}

// entry is a registry entry for onDone.
type entry struct {
	jetstream.KeyValueEntry
	key   string
	value []byte
}

func (e entry) Key() string   { return e.key }
func (e entry) Value() []byte { return e.value }

// Redeliveries are counted per job as the deliveries beyond the first that
// were seen, from any report and whichever result is kept: a job lost
// twice and done on its third delivery counts 2 (a stored result used to
// count 1, however late its delivery), a job whose first result was kept
// while a second delivery ran counts 1 (it used to count 0), and reports
// of one delivery from several sources count it once.
func TestRedeliveriesCountedPerJob(t *testing.T) {
	c := newTestCoordinator(t)
	jobs := testJobs(5, "a")
	c.addRun(broker.RunRecord{ID: "r"}, jobs, nil, false)
	ctx := context.Background()
	id := func(i int) string { return jobs[i].ID.String() }
	send := func(fn func(*nats.Msg), v any) {
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		fn(&nats.Msg{Data: data})
	}
	part := func(p broker.PartRecord) {
		data, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		c.onDone(ctx, entry{key: "r." + p.Part, value: data})
	}
	// Job 0: two deliveries lost, done on the third.
	part(broker.PartRecord{Run: "r", Part: "p0", Jobs: []string{id(0)}, Attempts: []int{3}, Redelivered: 1})
	// Job 1: done on the first delivery, while a second ran.
	send(c.onDelivery, broker.DeliveryEvent{Run: "r", Jobs: []string{id(1)}, Attempt: 2})
	part(broker.PartRecord{Run: "r", Part: "p1", Jobs: []string{id(1), id(4)}})
	part(broker.PartRecord{Run: "r", Part: "p1b", Jobs: []string{id(1)}, Attempts: []int{2}, Redelivered: 1}) // the late duplicate
	// Job 2: failed on deliveries 1 and 2, done on 3, each reported.
	send(c.onError, broker.ErrorEvent{Run: "r", Job: id(2), Attempt: 1})
	send(c.onDelivery, broker.DeliveryEvent{Run: "r", Jobs: []string{id(2)}, Attempt: 2})
	send(c.onError, broker.ErrorEvent{Run: "r", Job: id(2), Attempt: 2})
	send(c.onDelivery, broker.DeliveryEvent{Run: "r", Jobs: []string{id(2)}, Attempt: 3})
	part(broker.PartRecord{Run: "r", Part: "p2", Jobs: []string{id(2)}, Attempts: []int{3}, Redelivered: 1})
	// Job 3: a part stored by an earlier worker, which gave only a count.
	part(broker.PartRecord{Run: "r", Part: "p3", Jobs: []string{id(3)}, Redelivered: 1})
	p, err := c.Progress(ctx, "r")
	if err != nil {
		t.Fatal(err)
	}
	if p.Done != 5 || p.Redelivered != 2+1+2+1 {
		t.Fatalf("done %d, redelivered %d; want 5 and 6", p.Done, p.Redelivered)
	}
}
