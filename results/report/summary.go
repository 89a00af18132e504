package report

import (
	"math"
	"path/filepath"

	"schedfarm/results/claims"
	"schedfarm/results/decl"
)

// RunSummary is the machine-readable account of a run's claims that
// `schedfarm run --json` and `schedfarm report --json` print: where the
// results and reports are, and every claim with its verdict and its
// scoreboard status (docs/commands.md has the schema).
type RunSummary struct {
	// Run is the run ID and File the sweep file it ran ("" for a folder
	// without run.json).
	Run  string `json:"run"`
	File string `json:"file"`
	// Sweeps are the run's sweeps, in the order they were reported.
	Sweeps []SweepSummary `json:"sweeps"`
	// SuiteReport and Scoreboard are the combined report and the
	// scoreboard of a run of several sweeps ("" otherwise).
	SuiteReport string `json:"suite_report,omitempty"`
	Scoreboard  string `json:"scoreboard,omitempty"`
	// Verdicts counts the claims' verdicts; Statuses their scoreboard
	// statuses (only those that occur).
	Verdicts VerdictCounts  `json:"verdicts"`
	Statuses map[string]int `json:"statuses"`
	// Claims are every claim of every sweep, sweep by sweep in the
	// sweep file's order of declaration.
	Claims []ClaimSummary `json:"claims"`
}

// VerdictCounts counts claims by verdict.
type VerdictCounts struct {
	Pass         int `json:"pass"`
	Fail         int `json:"fail"`
	Inconclusive int `json:"inconclusive"`
}

// SweepSummary is one sweep of a run: its results folder, its report and
// its jobs.
type SweepSummary struct {
	Sweep string `json:"sweep"`
	// Dir is the results folder; Report its report.html, ClaimsJSON its
	// claims.json (every claim's per-point details).
	Dir        string        `json:"dir"`
	Report     string        `json:"report"`
	ClaimsJSON string        `json:"claims_json"`
	Jobs       int           `json:"jobs"`
	OK         int           `json:"ok"`
	Failed     int           `json:"failed"`
	Verdicts   VerdictCounts `json:"verdicts"`
}

// ClaimSummary is one claim: its verdict, its status on the scoreboard
// (ScorePass … ScoreInvariant) and what decided it.
type ClaimSummary struct {
	Sweep   string         `json:"sweep"`
	ID      string         `json:"id"`
	Verdict claims.Verdict `json:"verdict"`
	Status  string         `json:"status"`
	// StatusText is the status in words, as the report and the printed
	// verdicts give it.
	StatusText string `json:"status_text"`
	// By: the claim that explains a fail-explained or fail-shown failure
	// (sweep/claim), the calibrated parameter of a calibration claim, the
	// theorem or constraint of an invariant. Reading: the explaining
	// reading. Awaits: for an unexplained failure whose explanation names
	// a sweep not in this run, that claim (paper/file:claim). Note: why a
	// failure with explained_by is unexplained, or a loose claim's reason.
	By      string `json:"by,omitempty"`
	Reading string `json:"reading,omitempty"`
	Awaits  string `json:"awaits,omitempty"`
	Note    string `json:"note,omitempty"`
	// Reason is the line of numbers that decided the verdict; Passed,
	// Failed and Inconclusive count its points (or groups).
	Reason       string `json:"reason"`
	Passed       int    `json:"passed"`
	Failed       int    `json:"failed"`
	Inconclusive int    `json:"inconclusive"`
	Source       string `json:"source,omitempty"`
	Text         string `json:"text,omitempty"`
	// Metric, Expected and Values are those of a published claim: the
	// published number (or bounds) and ours at each point it names.
	Metric   string       `json:"metric,omitempty"`
	Expected *Expected    `json:"expected,omitempty"`
	Values   []ClaimValue `json:"values,omitempty"`
}

// Expected is a published claim's number with its tolerance, or its
// bounds.
type Expected struct {
	Value *float64 `json:"value,omitempty"`
	Tol   *float64 `json:"tol,omitempty"`
	Above *float64 `json:"above,omitempty"`
	Below *float64 `json:"below,omitempty"`
}

// ClaimValue is ours at one point of a published claim with a value:
// the mean (null when the point has none), and whether it lies within
// the scoreboard's one tolerance rule (RuleTol) of the published number.
type ClaimValue struct {
	Point      string   `json:"point,omitempty"`
	Value      *float64 `json:"value"`
	RuleTol    float64  `json:"rule_tol"`
	WithinRule bool     `json:"within_rule"`
}

// Summarize gathers the summary of the reports of one run, whose
// statuses Classify has set; suiteReport and scoreboard are the paths of
// the run's combined report and scoreboard ("" for none).
func Summarize(reports []*Report, suiteReport, scoreboard string) *RunSummary {
	s := &RunSummary{Sweeps: []SweepSummary{}, Claims: []ClaimSummary{}, Statuses: map[string]int{},
		SuiteReport: suiteReport, Scoreboard: scoreboard}
	for _, r := range reports {
		if s.Run == "" && r.Run != nil {
			s.Run, s.File = r.Run.Run, r.Run.File
		}
		dir := filepath.Clean(r.Dir)
		sw := SweepSummary{Sweep: r.Sweep, Dir: dir, Report: filepath.Join(dir, ReportHTML), ClaimsJSON: filepath.Join(dir, ClaimsJSON),
			Jobs: r.Jobs, OK: r.OK, Failed: r.Failed}
		sw.Verdicts.Pass, sw.Verdicts.Fail, sw.Verdicts.Inconclusive = r.claimCounts()
		s.Verdicts.Pass += sw.Verdicts.Pass
		s.Verdicts.Fail += sw.Verdicts.Fail
		s.Verdicts.Inconclusive += sw.Verdicts.Inconclusive
		s.Sweeps = append(s.Sweeps, sw)
		for k, c := range r.Claims {
			sc := r.status(k)
			s.Statuses[sc.Status]++
			cs := ClaimSummary{Sweep: r.Sweep, ID: c.ID, Verdict: c.Verdict, Status: sc.Status, StatusText: sc.statusText(),
				By: sc.By, Reading: sc.reading, Awaits: sc.awaits, Note: sc.Note,
				Reason: c.Numbers, Passed: c.Passed, Failed: c.Failed, Inconclusive: c.Undecided, Source: c.Source, Text: c.Text}
			if d := c.Claim; d != nil && d.Kind == decl.ClaimPublished {
				cs.Metric = d.Metric
				cs.Expected = expected(d)
				for _, cell := range r.Cells {
					if cell.Claim != c.ID {
						continue
					}
					v := ClaimValue{Point: cell.Point, RuleTol: cell.Tol, WithinRule: cell.Within}
					if !math.IsNaN(cell.Ours) && !math.IsInf(cell.Ours, 0) {
						v.Value = &cell.Ours
					}
					cs.Values = append(cs.Values, v)
				}
			}
			s.Claims = append(s.Claims, cs)
		}
	}
	return s
}

// expected is a published claim's number and tolerance, or its bounds.
func expected(d *decl.Claim) *Expected {
	if d.Above != nil || d.Below != nil {
		return &Expected{Above: finite(d.Above), Below: finite(d.Below)}
	}
	v, tol := d.Value, d.Tol
	return &Expected{Value: finite(&v), Tol: finite(&tol)}
}

// finite is p, or nil when it is nil or not a finite number (JSON has none).
func finite(p *float64) *float64 {
	if p == nil || math.IsNaN(*p) || math.IsInf(*p, 0) {
		return nil
	}
	return p
}
