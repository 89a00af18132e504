package coordinator

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"schedfarm/broker"
)

// bigStatus is a status as StatusFor builds it, far over the budgets of
// the test: runs runs of jobs failed and jobs retrying jobs listed with
// errors of errBytes bytes of multi-byte characters, and workers workers
// with 16 jobs in flight listed of 1,024, every other one lost.
func bigStatus(runs, jobs, errBytes, workers int) *Status {
	st := &Status{Coordinator: "c", TotalRuns: runs}
	created := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range runs {
		p := RunProgress{ID: fmt.Sprintf("run-%03d", i), Status: "complete", Created: created.Add(time.Duration(i) * time.Minute),
			Total: 500, Failed: 300, RetryingNow: 150}
		for j := range jobs {
			f := JobFailure{Job: fmt.Sprintf("job-%d", j), Index: j, Error: strings.Repeat("é", errBytes/2)}
			p.Failures = append(p.Failures, f)
			p.Retrying = append(p.Retrying, f)
		}
		p.FailuresCut, p.RetryingCut = 300-jobs, 150-jobs
		st.Runs = append(st.Runs, p)
	}
	for i := range workers {
		w := WorkerInfo{Name: fmt.Sprintf("w%04d", i), Host: strings.Repeat("h", 255), Lost: i%2 == 1}
		for j := range maxInFlightListed {
			w.InFlight = append(w.InFlight, fmt.Sprintf("00000000-0000-0000-0000-%012d", j))
		}
		w.InFlightCut = 1024 - maxInFlightListed
		w.Current = &broker.CurrentJob{Run: "run-000", Sweep: strings.Repeat("s", broker.MaxWorkerName), Params: strings.Repeat("p", broker.MaxCurrentParams)}
		st.Workers = append(st.Workers, w)
	}
	return st
}

// TestFitCutsToBudget: fit brings a status of many megabytes under a
// budget of 64 KiB and says what it cut, every count consistent with what
// is left (listed + cut = the run's count; workers listed + cut = all),
// errors still valid UTF-8, the oldest runs dropped first with Older on
// the oldest kept; a status that fits is left as it is, without Cut.
func TestFitCutsToBudget(t *testing.T) {
	for _, tc := range []struct {
		runs, jobs, errBytes, workers, budget int
	}{
		{40, summaryLimit, summaryErrorBytes, 300, 64 << 10},
		{3, summaryLimit, summaryErrorBytes, maxWorkersListed, 64 << 10},
		{MaxStatusRuns, summaryLimit, summaryErrorBytes, 0, 16 << 10},
		{1, listLimit, 4000, 1, ReplyBudget(1 << 20)},
		{1, listLimit, 4000, maxWorkersListed, ReplyBudget(1 << 20)},
	} {
		t.Run(fmt.Sprintf("%d-runs-%d-workers-%d", tc.runs, tc.workers, tc.budget), func(t *testing.T) {
			st := bigStatus(tc.runs, tc.jobs, tc.errBytes, tc.workers)
			if err := fit(st, tc.budget, false); err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(st)
			if err != nil {
				t.Fatal(err)
			}
			if len(b) > tc.budget {
				t.Fatalf("%d bytes, over the budget of %d", len(b), tc.budget)
			}
			cut := st.Cut
			if cut == nil || len(cut.Notes) == 0 {
				t.Fatalf("nothing says what was cut: %+v", cut)
			}
			t.Logf("%d bytes: %d runs, %d workers; %s", len(b), len(st.Runs), len(st.Workers), strings.Join(cut.Notes, "; "))
			if cut.Runs+len(st.Runs) != tc.runs || cut.Workers+len(st.Workers) != tc.workers {
				t.Errorf("runs %d + %d cut, workers %d + %d cut; want %d and %d", len(st.Runs), cut.Runs, len(st.Workers), cut.Workers, tc.runs, tc.workers)
			}
			if cut.Runs > 0 && (len(st.Runs) == 0 || st.Older != st.Runs[0].ID || st.Runs[len(st.Runs)-1].ID != fmt.Sprintf("run-%03d", tc.runs-1)) {
				t.Errorf("runs dropped: older %q, runs %d; want the newest kept, older the oldest kept", st.Older, len(st.Runs))
			}
			fails, retries, errs := 0, 0, 0
			for _, p := range st.Runs {
				if len(p.Failures)+p.FailuresCut != p.Failed || len(p.Retrying)+p.RetryingCut != p.RetryingNow {
					t.Errorf("run %s: %d + %d failures of %d, %d + %d retrying of %d", p.ID, len(p.Failures), p.FailuresCut, p.Failed,
						len(p.Retrying), p.RetryingCut, p.RetryingNow)
				}
				fails += p.FailuresCut
				retries += p.RetryingCut
				for _, f := range append(p.Failures, p.Retrying...) {
					if !utf8.ValidString(f.Error) || len(f.Error)+f.ErrorCut != tc.errBytes+len("…") && f.ErrorCut > 0 {
						t.Errorf("error of %d bytes, %d cut: not valid UTF-8 or not adding up", len(f.Error), f.ErrorCut)
					}
					if f.ErrorCut > 0 {
						errs++
					}
				}
			}
			if cut.Failures != fails || cut.Retrying != retries || cut.Errors != errs {
				t.Errorf("cut says %d failures, %d retrying, %d errors; the runs %d, %d, %d", cut.Failures, cut.Retrying, cut.Errors, fails, retries, errs)
			}
			inFlight := 0
			for _, w := range st.Workers {
				inFlight += w.InFlightCut
				if len(w.InFlight)+w.InFlightCut != 1024 || w.Lost && len(st.Workers) < tc.workers/2 || (w.Current == nil) != (len(w.InFlight) == 0) {
					t.Errorf("worker %s: %d + %d in flight, current job %+v", w.Name, len(w.InFlight), w.InFlightCut, w.Current)
				}
			}
			if cut.InFlight != inFlight {
				t.Errorf("cut says %d jobs in flight, the workers %d", cut.InFlight, inFlight)
			}
		})
	}
	small := &Status{Coordinator: "c", Runs: []RunProgress{{ID: "r", Failed: 1, Failures: []JobFailure{{Job: "j", Error: "boom"}}}}}
	if err := fit(small, 64<<10, false); err != nil || small.Cut != nil || small.Runs[0].Failures[0].Error != "boom" {
		t.Errorf("a status that fits was changed: %+v %v", small, err)
	}
	if err := fit(bigStatus(1, 1, 10, 1), 10, false); err == nil {
		t.Error("no error for a budget nothing fits in")
	}
}
