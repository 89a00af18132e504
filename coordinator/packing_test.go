package coordinator

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"schedfarm/sweep"
)

func TestParsePacking(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Packing
		err  bool
	}{
		{in: "auto", want: Packing{Mode: PackAuto}},
		{in: " AUTO ", want: Packing{Mode: PackAuto}},
		{in: "off", want: Packing{Mode: PackOff}},
		{in: "", want: Packing{Mode: PackOff}},
		{in: "1", want: Packing{Mode: PackOff}},
		{in: "16", want: Packing{Mode: PackFixed, K: 16}},
		{in: "1024", want: Packing{Mode: PackFixed, K: 1024}},
		{in: "1025", err: true},
		{in: "0", err: true},
		{in: "-3", err: true},
		{in: "many", err: true},
	} {
		got, err := ParsePacking(tc.in)
		if (err != nil) != tc.err || (!tc.err && got != tc.want) {
			t.Errorf("ParsePacking(%q) = %+v, %v; want %+v (error %v)", tc.in, got, err, tc.want, tc.err)
		}
		if err == nil {
			if back, _ := ParsePacking(got.String()); back != got {
				t.Errorf("ParsePacking(%q).String() = %q does not read back", tc.in, got.String())
			}
		}
	}
}

func TestPackingDecide(t *testing.T) {
	auto := Packing{Mode: PackAuto}.withDefaults() // 30 ms target, at most 256, DefaultProbeJobs probe jobs
	for _, tc := range []struct {
		name   string
		pol    Packing
		n      int
		probe  *probeResult
		k      int
		reason string
	}{
		{"off", Packing{}.withDefaults(), 10_000, nil, 1, "packing off"},
		{"fixed", Packing{Mode: PackFixed, K: 8}.withDefaults(), 10_000, nil, 8, "fixed"},
		{"fixed over the message limit", Packing{Mode: PackFixed, K: 5000}.withDefaults(), 10_000, nil, 1024, "fixed"},
		{"small sweep", auto, 2 * DefaultProbeJobs, nil, 1, "too few"},
		{"zero-ms jobs: the cap", auto, 10_000, &probeResult{Sent: 32, N: 32, ModelMs: 0}, 256, "at most 256"},
		{"0.01-ms jobs: the cap", auto, 10_000, &probeResult{Sent: 32, N: 32, ModelMs: 0.32}, 256, "0.01 ms"},
		{"1-ms jobs", auto, 10_000, &probeResult{Sent: 32, N: 32, ModelMs: 32}, 30, "30 per message"},
		{"7-ms jobs", auto, 10_000, &probeResult{Sent: 32, N: 32, ModelMs: 224}, 5, "5 per message"},
		{"14-ms jobs", auto, 10_000, &probeResult{Sent: 32, N: 32, ModelMs: 448}, 3, "3 per message"},
		{"15-ms jobs: half the target", auto, 10_000, &probeResult{Sent: 32, N: 32, ModelMs: 480}, 1, "one per message"},
		{"long jobs, partial probe", auto, 10_000, &probeResult{Sent: 32, N: 5, ModelMs: 5000, TimedOut: true}, 1, "one per message"},
		{"nothing came back", auto, 10_000, &probeResult{Sent: 32, TimedOut: true}, 1, "no result"},
		{"all probe jobs failed", auto, 10_000, &probeResult{Sent: 32}, 1, "no result"},
		{"smaller target", Packing{Mode: PackAuto, Target: 5 * time.Millisecond}.withDefaults(), 10_000,
			&probeResult{Sent: 32, N: 32, ModelMs: 32}, 5, "5 per message"},
		{"smaller cap", Packing{Mode: PackAuto, Max: 10}.withDefaults(), 10_000,
			&probeResult{Sent: 32, N: 32, ModelMs: 0}, 10, "at most 10"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.pol.decide("s", tc.n, tc.probe)
			if c.K != tc.k || !strings.Contains(c.Reason, tc.reason) || c.Sweep != "s" || c.Policy != tc.pol.String() {
				t.Errorf("decide = %+v; want k %d and a reason with %q", c, tc.k, tc.reason)
			}
			if tc.probe != nil && c.Probed != tc.probe.N {
				t.Errorf("Probed = %d, want %d", c.Probed, tc.probe.N)
			}
		})
	}
}

func TestPackingProbes(t *testing.T) {
	auto := Packing{Mode: PackAuto}.withDefaults()
	for _, tc := range []struct {
		pol  Packing
		n    int
		want bool
	}{
		{auto, 2 * DefaultProbeJobs, false}, {auto, 2*DefaultProbeJobs + 1, true}, {auto, 0, false},
		{Packing{}.withDefaults(), 10_000, false}, {Packing{Mode: PackFixed, K: 4}.withDefaults(), 10_000, false},
	} {
		if got := tc.pol.probes(tc.n); got != tc.want {
			t.Errorf("%v.probes(%d) = %v, want %v", tc.pol, tc.n, got, tc.want)
		}
	}
}

func TestPacksOf(t *testing.T) {
	jobs := make([]*sweep.Job, 7)
	for i := range jobs {
		jobs[i] = &sweep.Job{Index: i}
	}
	for _, tc := range []struct {
		k     int
		sizes []int
	}{{1, []int{1, 1, 1, 1, 1, 1, 1}}, {3, []int{3, 3, 1}}, {7, []int{7}}, {100, []int{7}}, {0, []int{1, 1, 1, 1, 1, 1, 1}}} {
		sizes, next := packSizes(t, packsOf(jobs, tc.k))
		if next != len(jobs) || len(sizes) != len(tc.sizes) {
			t.Errorf("k=%d: sizes %v, want %v", tc.k, sizes, tc.sizes)
		}
	}
	if packsOf(nil, 4) == nil || len(packsOf(nil, 4)) != 0 {
		t.Error("packsOf(nil) should be empty")
	}
}

// TestProbeJobsInTurn: the probe takes the first ProbeJobs jobs of every
// sweep large enough, one sweep after the other for each rank, and none of
// a sweep too small to probe.
func TestProbeJobsInTurn(t *testing.T) {
	bySweep := map[string][]*sweep.Job{}
	for name, n := range map[string]int{"a": 100, "b": 6, "c": 70} {
		for i := 0; i < n; i++ {
			bySweep[name] = append(bySweep[name], &sweep.Job{Sweep: name, Index: i})
		}
	}
	pol := Packing{Mode: PackAuto, ProbeJobs: 3}.withDefaults()
	var got []string
	for _, j := range probeJobs([]string{"a", "b", "c"}, bySweep, pol) {
		got = append(got, fmt.Sprintf("%s%d", j.Sweep, j.Index))
	}
	if want := []string{"a0", "c0", "a1", "c1", "a2", "c2"}; !slices.Equal(got, want) {
		t.Errorf("probe jobs %v, want %v", got, want)
	}
}

// packSizes returns the sizes of packs and the number of jobs they hold,
// and fails unless they hold jobs 0, 1, 2, … in order.
func packSizes(t *testing.T, packs [][]*sweep.Job) ([]int, int) {
	t.Helper()
	next := 0
	var sizes []int
	for _, p := range packs {
		sizes = append(sizes, len(p))
		for _, j := range p {
			if j.Index != next {
				t.Fatalf("job %d where %d was due (packs %v)", j.Index, next, sizes)
			}
			next++
		}
	}
	return sizes, next
}

// TestTaperedPacksOf: the end of the run goes in shrinking packs (two of
// each power of two below k, largest first, then four single jobs), every
// job once and in order; with fewer jobs, the largest of those are left out.
func TestTaperedPacksOf(t *testing.T) {
	for _, tc := range []struct {
		n, k  int
		sizes []int
		tail  int
	}{
		{40, 8, []int{8, 8, 8, 4, 4, 2, 2, 1, 1, 1, 1}, 16},
		{41, 8, []int{8, 8, 8, 1, 4, 4, 2, 2, 1, 1, 1, 1}, 16},
		{10, 3, []int{2, 2, 2, 1, 1, 1, 1}, 8},
		{7, 4, []int{1, 2, 1, 1, 1, 1}, 6},
		{3, 16, []int{1, 1, 1}, 3},
		{5, 1, []int{1, 1, 1, 1, 1}, 0},
		{0, 8, nil, 0},
	} {
		jobs := make([]*sweep.Job, tc.n)
		for i := range jobs {
			jobs[i] = &sweep.Job{Index: i}
		}
		packs, tail := taperedPacksOf(jobs, tc.k)
		sizes, next := packSizes(t, packs)
		if next != tc.n || !slices.Equal(sizes, tc.sizes) || tail != tc.tail {
			t.Errorf("n=%d k=%d: sizes %v (%d jobs), %d in the tail; want %v, %d", tc.n, tc.k, sizes, next, tail, tc.sizes, tc.tail)
		}
	}
}

// TestProbeDone: the probe ends when every probe job came back, or early
// when every sweep still waiting has shown long jobs; failures count as
// back without a time.
func TestProbeDone(t *testing.T) {
	ids := func(n int, salt byte) []uuid.UUID {
		out := make([]uuid.UUID, n)
		for i := range out {
			out[i] = uuid.NewSHA1(uuid.Nil, []byte{salt, byte(i)})
		}
		return out
	}
	closed := func(pr *probe) bool {
		select {
		case <-pr.done:
			return true
		default:
			return false
		}
	}

	pr := newProbe(30 * time.Millisecond)
	a, b := ids(6, 'a'), ids(6, 'b')
	for _, id := range a {
		pr.add("a", id)
	}
	for _, id := range b {
		pr.add("b", id)
	}
	pr.registered(a[:3], 0.3, false)
	pr.registered(a[3:4], 0, true)
	pr.registered(ids(3, 'z'), 99, false) // not probe jobs
	pr.registered(a[4:], 0.2, false)
	if closed(pr) || pr.results["a"].N != 5 || pr.results["a"].Sent != 6 {
		t.Fatalf("after sweep a: closed %v, %+v", closed(pr), *pr.results["a"])
	}
	pr.registered(b, 0.6, false)
	if !closed(pr) || pr.left != 0 {
		t.Fatalf("every probe job back: closed %v, left %d", closed(pr), pr.left)
	}
	pr.registered(b, 0.6, false) // a duplicate registration changes nothing
	if r := pr.results["b"]; r.N != 6 || r.ModelMs < 0.599 || r.ModelMs > 0.601 {
		t.Fatalf("sweep b: %+v", *r)
	}

	long := newProbe(30 * time.Millisecond)
	for _, id := range a {
		long.add("a", id)
	}
	long.registered(a[:minProbe-1], 100*float64(minProbe-1), false)
	if closed(long) {
		t.Fatal("closed before minProbe results")
	}
	long.registered(a[minProbe-1:minProbe], 100, false)
	if !closed(long) {
		t.Fatal("long jobs: the probe should end early")
	}
}
