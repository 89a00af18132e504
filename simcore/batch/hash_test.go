package batch

import (
	"context"
	"testing"

	"schedfarm/internal/datatest"
	"schedfarm/simcore/modeltest"
	"schedfarm/simcore/workload"
)

// scheduleHash is an FNV-64a hash of every job's start time (bit pattern),
// in input order.
func scheduleHash(o *Outcome) uint64 {
	h := modeltest.NewHash()
	h.Float(o.Start...)
	return h.Sum()
}

// hashCase is one pinned schedule: a scheduler and the hash of its start
// times.
type hashCase struct {
	name     string
	order    string
	depth    int
	weighted bool
	each     bool
	arrival  bool // compress_order: arrival
	want     uint64
}

// checkHashes simulates jobs under every case and compares the schedule
// hashes with the pinned ones (modeltest.Pins: SCHEDFARM_PIN_PRINT=1 logs
// them instead).
func checkHashes(t *testing.T, jobs []workload.Job, cases []hashCase) {
	t.Helper()
	want, got := map[string]uint64{}, map[string]uint64{}
	for _, c := range cases {
		out, err := Simulate(context.Background(), jobs, Config{Nodes: 256, Order: c.order, Depth: c.depth,
			Weighted: c.weighted, EachEvent: c.each, CompressArrival: c.arrival, Recompute: RecomputeNew})
		if err != nil {
			t.Fatal(err)
		}
		want[c.name], got[c.name] = c.want, scheduleHash(out)
	}
	modeltest.Pins(t, want, got)
}

// TestCTCScheduleHash pins the schedules of the whole CTC trace for a few
// order × backfilling cases: the hashes were recorded before the executor
// was optimised, so any change of a start time fails here (but those of
// event_order each, re-pinned when it became the one-event-at-a-time rule
// that pyss follows, and compress_order arrival, pinned when it was added). Set
// SCHEDFARM_PIN_PRINT=1 to log the hashes instead of comparing them.
func TestCTCScheduleHash(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped by -short: the whole CTC log's schedules (run without -short)")
	}
	checkHashes(t, ctcJobs(t, "requested"), []hashCase{
		{"FCFS/none", FCFS, 0, false, false, false, 0xd4985e09fc3e0f86},
		{"FCFS/EASY", FCFS, 1, false, false, false, 0xce95ae94e78422f0},
		{"FCFS/conservative", FCFS, All, false, false, false, 0x845090c9cf060035},
		{"FCFS/depth4/each", FCFS, 4, false, true, false, 0xfa7991d6a2ec487b},
		{"FCFS/EASY/each", FCFS, 1, false, true, false, 0x47bb2d55e5b37562},
		{"FCFS/conservative/each", FCFS, All, false, true, false, 0xd164872ae82185ba},
		{"FCFS/conservative/arrival", FCFS, All, false, false, true, 0xae258c1d760091f8},
		{"FCFS/conservative/arrival/each", FCFS, All, false, true, true, 0x9bdfe2c5b9d2acd5},
		{"GareyGraham", GareyGraham, 0, false, false, false, 0x7aebee8166f66790},
		{"PSRS/EASY", PSRS, 1, false, false, false, 0xb7167f2fcc7a5043},
		{"PSRS/conservative", PSRS, All, false, false, false, 0x2ab4bf34179e83c0},
		{"SMART-FFIA/conservative", SmartFFIA, All, false, false, false, 0x9c8c064cafb8afb4},
		{"SMART-NFIW/EASY/weighted", SmartNFIW, 1, true, false, false, 0x6a311fe14445e325},
	})
}

// TestCTCFixtureScheduleHash pins the same cases on the CTC fixture (the
// first 5,000 jobs of the log, in every clone), so a changed start time
// fails without the whole log too. The hashes were recorded with the code
// whose whole-log hashes above match the pre-optimisation ones.
func TestCTCFixtureScheduleHash(t *testing.T) {
	checkHashes(t, traceJobs(t, datatest.Fixtures(t), ctcFixture, "requested"), []hashCase{
		{"FCFS/none", FCFS, 0, false, false, false, 0x195834ebafd6dd3a},
		{"FCFS/EASY", FCFS, 1, false, false, false, 0xfc07d3130db5243e},
		{"FCFS/conservative", FCFS, All, false, false, false, 0x82641f014f035efa},
		{"FCFS/depth4/each", FCFS, 4, false, true, false, 0x3dfa3851e92987c7},
		{"FCFS/EASY/each", FCFS, 1, false, true, false, 0x4febcec67bfb48dd},
		{"FCFS/conservative/each", FCFS, All, false, true, false, 0x5fdc6b9bdf638af0},
		{"FCFS/conservative/arrival", FCFS, All, false, false, true, 0x106d79002108a019},
		{"FCFS/conservative/arrival/each", FCFS, All, false, true, true, 0xcb4d2a165ea73e26},
		{"SMART-FFIA/conservative/arrival", SmartFFIA, All, false, false, true, 0x953b9dd4932c263b},
		{"GareyGraham", GareyGraham, 0, false, false, false, 0xa1416c0e2d7e2385},
		{"PSRS/EASY", PSRS, 1, false, false, false, 0x6dc6193d789d68f6},
		{"PSRS/conservative", PSRS, All, false, false, false, 0xb3f54601fcfd70e1},
		{"SMART-FFIA/conservative", SmartFFIA, All, false, false, false, 0x43ff395e56b3db10},
		{"SMART-NFIW/EASY/weighted", SmartNFIW, 1, true, false, false, 0x64a0d4eb8e1c7ad5},
	})
}

// TestRandomizedScheduleHash pins the schedules of Table 2's randomized
// workload (3,000 jobs, conservative backfilling), whose queue and profile
// grow long (over 1,000 steps): the hashes were recorded before the
// profile kept redundant steps in long profiles (commit f877e21), so any
// change of a start time fails here. SCHEDFARM_PIN_PRINT=1 logs them instead.
func TestRandomizedScheduleHash(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped by -short: Table 2's randomized workload (run without -short)")
	}
	checkHashes(t, workload.Randomized(3000, 256, 19990416), []hashCase{
		{"FCFS/conservative", FCFS, All, false, false, false, 0x6aa67ba9bc9d225e},
		{"PSRS/conservative/weighted", PSRS, All, true, false, false, 0x20a0d1a385bba19f},
		{"SMART-FFIA/conservative", SmartFFIA, All, false, false, false, 0x7e9bed154ffe026f},
	})
}
