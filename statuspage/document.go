// Package statuspage is the farm's live status page: one self-contained
// HTML page embedded in the binary (no CDN, no external fonts) that polls
// a JSON document, and that document, which is also what
// `schedfarm status --json` prints.
//
//	coordinator.Status ──Build──▶ Document ──Watcher (polls, notes outages
//	   (runs, workers)     ▲         │        and failovers) ──Handler──▶ /status.json
//	   claims.json under ──┘         └──▶ `status --json`                 / (page.html)
//	   --results-dir
//
// The page is read-only: the handler answers GET and HEAD only, and every
// string from the wire is put into the page with textContent, never as
// markup.
package statuspage

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"schedfarm/coordinator"
	"schedfarm/results/claims"
	"schedfarm/results/report"
)

// Document is what `schedfarm status --json` prints and what the status
// page polls (/status.json): the coordinator's status, each run with its
// progress, rate, ETA and claim verdicts, and, on the page only, what the
// watcher saw of the coordinator (an outage, failovers).
type Document struct {
	// Coordinator is the name of the coordinator that answered.
	Coordinator string                   `json:"coordinator"`
	Runs        []Run                    `json:"runs"`
	Workers     []coordinator.WorkerInfo `json:"workers"`
	// TotalRuns, Older and Cut are the coordinator's (coordinator.Status):
	// how many runs the farm has, the run before which the next page of
	// runs starts, and what the reply leaves out to stay small.
	TotalRuns int                    `json:"total_runs,omitempty"`
	Older     string                 `json:"older,omitempty"`
	Cut       *coordinator.StatusCut `json:"cut,omitempty"`
	// ObservedAt is when the coordinator answered with this state.
	ObservedAt time.Time `json:"observed_at"`
	// Unreachable is set while the coordinator does not answer: the
	// runs and workers above are then the last state it gave.
	Unreachable *Outage `json:"unreachable,omitempty"`
	// Events are the outages and failovers the watcher saw, oldest first
	// (at most MaxEvents).
	Events []Event `json:"events,omitempty"`
}

// Run is one run's progress, with what the page shows beside it.
type Run struct {
	coordinator.RunProgress
	// Percent is the share of the run's jobs to do (total − skipped)
	// that finished, done or failed, in percent (100 with nothing to do).
	Percent float64 `json:"percent"`
	// RatePerS is the mean rate since submission, in jobs finished per
	// second (until the run's end once it ended).
	RatePerS float64 `json:"rate_per_s"`
	// ETASeconds is the queued jobs over RatePerS, while the run is in
	// progress and the rate is known.
	ETASeconds *float64 `json:"eta_s,omitempty"`
	// Claims are the verdicts of the run's claims, read from the
	// claims.json of its reports under the results directory (written
	// by `run`, `report` or `collect` then `report`); empty until a
	// report exists.
	Claims []Claim `json:"claims,omitempty"`
	// Reports are the paths of the run's reports under the results
	// directory, one per sweep (its report.html, else its report.md),
	// sorted; empty until a report exists. A run with reports and no
	// Claims has no claims.
	Reports []string `json:"reports,omitempty"`
	// ClaimsError says why a claims.json could not be read.
	ClaimsError string `json:"claims_error,omitempty"`
	// ClaimsProvisional: no report exists yet, and Claims are the
	// coordinator's evaluation at the last round of adaptive replicates
	// (RunProgress.RoundClaims), which later rounds may decide further.
	ClaimsProvisional bool `json:"claims_provisional,omitempty"`
}

// Claim is the verdict of one claim of one sweep of a run.
type Claim struct {
	Sweep   string         `json:"sweep"`
	ID      string         `json:"id"`
	Verdict claims.Verdict `json:"verdict"`
	// Numbers is the line of numbers that decided the verdict.
	Numbers string `json:"numbers"`
	Text    string `json:"text"`
}

// Outage is a time the coordinator did not answer.
type Outage struct {
	Since time.Time `json:"since"`
	Error string    `json:"error"`
}

// Kinds of Event.
const (
	EventUnreachable = "unreachable" // the coordinator stopped answering
	EventRecovered   = "recovered"   // the same coordinator answers again
	EventFailover    = "failover"    // another coordinator answers
)

// Event is an outage or a failover the watcher saw.
type Event struct {
	At   time.Time `json:"at"`
	Kind string    `json:"kind"`
	// Coordinator answers since At (recovered, failover); Previous
	// answered before (failover).
	Coordinator string `json:"coordinator,omitempty"`
	Previous    string `json:"previous,omitempty"`
	// Error is why the coordinator did not answer (unreachable).
	Error string `json:"error,omitempty"`
	// DownSince is when the outage that ended at At began (recovered,
	// failover after an outage).
	DownSince time.Time `json:"down_since,omitzero"`
}

// Build makes the document of st as observed at now, with the claim
// verdicts found under resultsDir (<resultsDir>/<sweep>/<run>/claims.json;
// none when resultsDir is empty).
func Build(st *coordinator.Status, resultsDir string, now time.Time) *Document {
	d := &Document{Coordinator: st.Coordinator, Workers: st.Workers, ObservedAt: now, Runs: make([]Run, 0, len(st.Runs)),
		TotalRuns: st.TotalRuns, Older: st.Older, Cut: st.Cut}
	if d.Workers == nil {
		d.Workers = []coordinator.WorkerInfo{}
	}
	for _, p := range st.Runs {
		r := Run{RunProgress: p}
		r.Percent, r.RatePerS, r.ETASeconds = pace(&p, now)
		if resultsDir != "" {
			var err error
			if r.Claims, err = readClaims(resultsDir, p.ID); err != nil {
				r.ClaimsError = err.Error()
			}
			r.Reports = findReports(resultsDir, p.ID)
		}
		if len(r.Claims) == 0 && len(p.RoundClaims) > 0 {
			for _, c := range p.RoundClaims {
				r.Claims = append(r.Claims, Claim{Sweep: c.Sweep, ID: c.ID, Verdict: c.Verdict, Numbers: c.Numbers, Text: c.Text})
			}
			r.ClaimsProvisional = true
		}
		d.Runs = append(d.Runs, r)
	}
	return d
}

// pace returns a run's percentage done, its mean rate since submission and
// the time left at that rate (nil when unknown or over).
func pace(p *coordinator.RunProgress, now time.Time) (percent, rate float64, eta *float64) {
	work := p.Total - p.Skipped
	finished := p.Done + p.Failed
	percent = 100
	if work > 0 {
		percent = 100 * float64(finished) / float64(work)
	}
	end := now
	if !p.Ended.IsZero() {
		end = p.Ended
	}
	if elapsed := end.Sub(p.Created).Seconds(); elapsed > 0 && finished > 0 {
		rate = float64(finished) / elapsed
	}
	if !p.Finished() && rate > 0 {
		left := float64(p.Queued) / rate
		eta = &left
	}
	return percent, rate, eta
}

// findReports returns the report of each sweep of run under root
// (<root>/<sweep>/<run>/report.html, else report.md), sorted. A run ID that
// is not one (from the wire) finds nothing.
func findReports(root, run string) []string {
	if coordinator.CheckRunID(run) != nil {
		return nil
	}
	dirs, err := filepath.Glob(filepath.Join(root, "*", run))
	if err != nil {
		return nil
	}
	sort.Strings(dirs)
	var out []string
	for _, dir := range dirs {
		for _, name := range []string{report.ReportHTML, report.ReportMarkdown} {
			if fi, err := os.Stat(filepath.Join(dir, name)); err == nil && fi.Mode().IsRegular() {
				out = append(out, filepath.Join(dir, name))
				break
			}
		}
	}
	return out
}

// readClaims reads the claim verdicts of every sweep of run under root,
// sorted by sweep. A run ID that is not one (from the wire) reads nothing.
func readClaims(root, run string) ([]Claim, error) {
	if coordinator.CheckRunID(run) != nil {
		return nil, nil
	}
	paths, err := filepath.Glob(filepath.Join(root, "*", run, report.ClaimsJSON))
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	var out []Claim
	var errs []error
	for _, path := range paths {
		b, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed since the glob
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		var cs []claims.Result
		if err := json.Unmarshal(b, &cs); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", path, err))
			continue
		}
		sweep := filepath.Base(filepath.Dir(filepath.Dir(path)))
		for _, c := range cs {
			out = append(out, Claim{Sweep: sweep, ID: c.ID, Verdict: c.Verdict, Numbers: c.Numbers, Text: c.Text})
		}
	}
	return out, errors.Join(errs...)
}
