package report

import (
	"bytes"
	"fmt"
	"html/template"
	"path/filepath"
	"slices"
	"time"
)

// SuiteName is the base name of a run's combined report in the
// results directory: <results-dir>/report-<run>.md and .html, written when
// a run holds more than one sweep (a suite such as configs/all.yaml).
// Sweep results are folders, so the two files cannot collide with them.
func SuiteName(run string) string { return "report-" + run }

// Suite is the combined report of a run of several sweeps: one row per
// sweep, the model wall time and CPU time per model, and every claim.
type Suite struct {
	Run, File string
	Sweeps    []*Report
	Wall      time.Duration
	Generated time.Time
}

// modelTotal is one model's share of a suite.
type modelTotal struct {
	Model            string
	Sweeps, Jobs, OK int
	Failed           int
	ModelWall, CPU   time.Duration
	CPUJobs          int
	Pass, Fail, Inc  int
}

func (s *Suite) models() []modelTotal {
	var out []modelTotal
	for _, r := range s.Sweeps {
		i := slices.IndexFunc(out, func(m modelTotal) bool { return m.Model == r.Model })
		if i < 0 {
			out = append(out, modelTotal{Model: r.Model})
			i = len(out) - 1
		}
		m := &out[i]
		p, f, inc := r.claimCounts()
		m.Sweeps++
		m.Jobs += r.Jobs
		m.OK += r.OK
		m.Failed += r.Failed
		m.ModelWall, m.CPU, m.CPUJobs = m.ModelWall+r.ModelWall, m.CPU+r.CPU, m.CPUJobs+r.CPUJobs
		m.Pass, m.Fail, m.Inc = m.Pass+p, m.Fail+f, m.Inc+inc
	}
	return out
}

func (s *Suite) totals() (jobs, ok, failed int, mt modelTotal, pass, fail, inc int) {
	for _, r := range s.Sweeps {
		p, f, i := r.claimCounts()
		jobs, ok, failed = jobs+r.Jobs, ok+r.OK, failed+r.Failed
		mt.ModelWall, mt.CPU, mt.CPUJobs = mt.ModelWall+r.ModelWall, mt.CPU+r.CPU, mt.CPUJobs+r.CPUJobs
		pass, fail, inc = pass+p, fail+f, inc+i
	}
	return
}

// link is the path of a sweep's report relative to the results directory.
func (s *Suite) link(resultsDir string, r *Report) string {
	rel, err := filepath.Rel(resultsDir, filepath.Join(r.Dir, ReportHTML))
	if err != nil {
		return filepath.Join(r.Dir, ReportHTML)
	}
	return filepath.ToSlash(rel)
}

// WriteSuite writes the combined report of the sweeps of one run into
// resultsDir (report-<run>.md and report-<run>.html) and returns the
// path of the HTML file. reports are the sweeps' own reports, as
// Write returned them; they keep their order. Each claim shows its
// status, Statuses (Classify of the suite's reports when a report's are
// not set).
func WriteSuite(resultsDir string, s *Suite) (string, error) {
	if s.Generated.IsZero() {
		s.Generated = time.Now().UTC()
	}
	if slices.ContainsFunc(s.Sweeps, func(r *Report) bool { return len(r.Statuses) != len(r.Claims) }) {
		Classify(s.Sweeps)
	}
	sb := BuildScoreboard(s)
	js, err := sb.JSON()
	if err != nil {
		return "", fmt.Errorf("suite report: %w", err)
	}
	if err := writeFileAtomic(filepath.Join(resultsDir, ScoreboardName(s.Run)), js); err != nil {
		return "", fmt.Errorf("suite report: %w", err)
	}
	var md bytes.Buffer
	s.markdown(resultsDir, sb, &md)
	base := filepath.Join(resultsDir, SuiteName(s.Run))
	if err := writeFileAtomic(base+".md", md.Bytes()); err != nil {
		return "", fmt.Errorf("suite report: %w", err)
	}
	var h bytes.Buffer
	v := s.view(resultsDir)
	v.Score = sb
	if err := suiteTmpl.Execute(&h, v); err != nil {
		return "", fmt.Errorf("suite report: %w", err)
	}
	if err := writeFileAtomic(base+".html", h.Bytes()); err != nil {
		return "", fmt.Errorf("suite report: %w", err)
	}
	return base + ".html", nil
}

func (s *Suite) markdown(resultsDir string, sb *Scoreboard, b *bytes.Buffer) {
	jobs, ok, failed, mt, pass, fail, inc := s.totals()
	fmt.Fprintf(b, "# Suite report: run %s\n\n", s.Run)
	fmt.Fprintf(b, "File `%s`: %d sweeps, %d jobs (%d ok, %d failed), wall time %s, model wall time %s (sum of the jobs' duration_ms, which contention inflates), CPU time %s (sum of the jobs' cpu_ms, the thread's clock). Claims: %d pass, %d fail, %d inconclusive.\n\n",
		s.File, len(s.Sweeps), jobs, ok, failed, s.Wall.Round(time.Millisecond), mt.ModelWall.Round(time.Millisecond), cpuText(mt.CPU, mt.CPUJobs, jobs), pass, fail, inc)
	sb.markdown(b)
	b.WriteString("## Per model\n\n| model | sweeps | jobs | failed | model wall time | CPU time | claims pass / fail / inconclusive |\n|---|---|---|---|---|---|---|\n")
	for _, m := range s.models() {
		fmt.Fprintf(b, "| %s | %d | %d | %d | %s | %s | %d / %d / %d |\n", m.Model, m.Sweeps, m.Jobs, m.Failed, m.ModelWall.Round(time.Millisecond), cpuText(m.CPU, m.CPUJobs, m.Jobs), m.Pass, m.Fail, m.Inc)
	}
	b.WriteString("\n## Per sweep\n\n| sweep | model | jobs | failed | points | model wall time | CPU time | claims pass / fail / inconclusive | report |\n|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range s.Sweeps {
		p, f, i := r.claimCounts()
		fmt.Fprintf(b, "| %s | %s | %d | %d | %d | %s | %s | %d / %d / %d | [report](%s) |\n",
			r.Sweep, r.Model, r.Jobs, r.Failed, r.Points, r.ModelWall.Round(time.Millisecond), cpuText(r.CPU, r.CPUJobs, r.Jobs), p, f, i, s.link(resultsDir, r))
	}
	b.WriteString("\n## Claims\n\n" + statusLegend + "\n\n| sweep | claim | source | verdict | status | numbers |\n|---|---|---|---|---|---|\n")
	for _, r := range s.Sweeps {
		for k, c := range r.Claims {
			fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s |\n", r.Sweep, c.ID, mdEscape(c.Source), verdictMark(c.Verdict), mdEscape(r.status(k).statusText()), mdEscape(c.Numbers))
		}
	}
	fmt.Fprintf(b, "\nGenerated %s.\n", s.Generated.Format(time.RFC3339))
}

type suiteView struct {
	S                                 *Suite
	Models                            []modelTotal
	Rows                              []suiteRow
	Score                             *Scoreboard
	Jobs, OK, Failed, Pass, Fail, Inc int
	ModelWall, CPU, Wall, Legend      string
}

type suiteRow struct {
	R               *Report
	Claims          []htmlClaim
	Link            string
	ModelWall, CPU  string
	Pass, Fail, Inc int
}

func (s *Suite) view(resultsDir string) suiteView {
	v := suiteView{S: s, Models: s.models(), Wall: s.Wall.Round(time.Millisecond).String(), Legend: statusLegend}
	var mt modelTotal
	v.Jobs, v.OK, v.Failed, mt, v.Pass, v.Fail, v.Inc = s.totals()
	v.ModelWall, v.CPU = mt.ModelWall.Round(time.Millisecond).String(), cpuText(mt.CPU, mt.CPUJobs, v.Jobs)
	for _, r := range s.Sweeps {
		p, f, i := r.claimCounts()
		v.Rows = append(v.Rows, suiteRow{R: r, Claims: r.htmlClaims(), Link: s.link(resultsDir, r), ModelWall: r.ModelWall.Round(time.Millisecond).String(),
			CPU: cpuText(r.CPU, r.CPUJobs, r.Jobs), Pass: p, Fail: f, Inc: i})
	}
	return v
}

var suiteTmpl = template.Must(template.New("suite").Funcs(template.FuncMap{
	"mark": verdictMark,
	"ms":   func(d time.Duration) string { return d.Round(time.Millisecond).String() },
	"cpu":  func(m modelTotal) string { return cpuText(m.CPU, m.CPUJobs, m.Jobs) },
}).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Suite report: run {{.S.Run}}</title>
<style>
body{font-family:system-ui,sans-serif;max-width:1200px;margin:2em auto;padding:0 1em;color:#222}
` + tableCSS + `
</style></head><body>
<h1>Suite report: run {{.S.Run}}</h1>
<p>File <code>{{.S.File}}</code>: {{len .S.Sweeps}} sweeps, {{.Jobs}} jobs ({{.OK}} ok, {{.Failed}} failed), wall time {{.Wall}}, model wall time {{.ModelWall}} (sum of the jobs' duration_ms, which contention inflates), CPU time {{.CPU}} (sum of the jobs' cpu_ms, the thread's clock). Claims: {{.Pass}} pass, {{.Fail}} fail, {{.Inc}} inconclusive.</p>
{{with .Score}}<h2>Scoreboard</h2>
<p>Per paper (the sweeps of one config folder). Statements: entries of the folder's CLAIMS.md (encoded / cannot check, and those a claim of this run checks). Pass, loose: a claim declared <code>loose:</code> checks less than its sentence and never counts as a pass. Fail, explained: by one of the paper's (at most three) declared readings (<code>readings.yaml</code>), in a sensitivity sweep of this run whose claim passed. Calibration: claims a declared <code>calibrated:</code> value, or a reading declared after its result was seen, was chosen to reproduce; not reproductions. Sensitivity: claims of sweeps declared <code>sensitivity:</code> (an alternative reading), neither reproductions nor failures. Published cells within the rule: {{.Tolerance}}, calibration and sensitivity cells left out. Invariants: claims declared <code>invariant:</code> (a theorem's bound or a constraint) that hold / were checked.</p>
<div class="scroll"><table class="board"><tr><th>paper</th><th>statements</th><th>encoded / cannot check</th><th>checked in this run</th><th>claims</th><th>pass</th><th>pass, loose</th><th>fail, explained</th><th>fail, shown why not</th><th>fail, unexplained</th><th>inconclusive</th><th>calibration</th><th>sensitivity</th><th>published cells within the rule</th><th>invariants held</th></tr>
{{range .Papers}}<tr><td>{{.Paper}}</td><td>{{if .RegisterError}}{{.RegisterError}}{{else}}{{.Statements}}{{end}}</td><td>{{.Encoded}} / {{.Uncheckable}}</td><td>{{.CheckedHere}}</td><td>{{.Claims}}</td><td>{{.Pass}}</td><td>{{.PassLoose}}</td><td>{{.FailExplained}}</td><td>{{.FailShown}}</td><td>{{.FailUnexpl}}</td><td>{{.Inconclusive}}</td><td>{{.Calibration}}</td><td>{{.Sensitivity}}</td><td>{{if .Cells}}{{.CellsWithin}} / {{.Cells}}{{else}}–{{end}}{{if .CalibrationCells}} (+{{.CalibrationCells}} calibration){{end}}</td><td>{{if .Invariants}}{{.InvariantsHeld}} / {{.Invariants}}{{else}}–{{end}}</td></tr>{{end}}
</table></div>
{{range .Papers}}{{if .Readings}}<p>Readings of {{.Paper}} as whole models (each over every claim of its sweeps, beside the default sweeps' verdicts on the same claim ids):</p>
<div class="scroll"><table><tr><th>reading</th><th>declared</th><th>explains</th><th>its claims: pass / fail / inconclusive</th><th>matched with the defaults</th><th>defaults: pass / fail / inconclusive</th><th>defaults pass, reading fails</th><th>defaults do not pass, reading passes</th><th>failures it explains</th></tr>
{{range .Readings}}<tr><td>{{.Name}}</td><td>{{.Declared}}</td><td>{{if .Explains}}yes{{else}}no{{end}}</td><td>{{if .Ran}}{{.Pass}} / {{.Fail}} / {{.Inconclusive}}{{else}}did not run{{end}}</td><td>{{.Matched}}</td><td>{{.DefaultsPass}} / {{.DefaultsFail}} / {{.DefaultsInc}}</td><td>{{.Broken}}</td><td>{{.Rescued}}</td><td>{{.Explained}}</td></tr>{{end}}
</table></div>{{end}}{{end}}
<ul>{{range .Papers}}{{range .ClaimList}}{{if eq .Status "fail-explained"}}<li>{{.Sweep}}/{{.ID}}: fail, explained by {{.By}}</li>{{else if eq .Status "fail-shown"}}<li>{{.Sweep}}/{{.ID}}: fail, shown why not by {{.By}}</li>{{else if eq .Status "calibration"}}<li>{{.Sweep}}/{{.ID}}: calibration ({{.By}}), verdict {{.Verdict}}</li>{{else if eq .Status "pass-loose"}}<li>{{.Sweep}}/{{.ID}}: pass, loose ({{.Note}})</li>{{else if and (eq .Status "fail-unexplained") .Note}}<li>{{.Sweep}}/{{.ID}}: fail, unexplained ({{.Note}})</li>{{end}}{{end}}{{end}}</ul>
{{end}}<h2>Per model</h2>
<div class="scroll"><table><tr><th>model</th><th>sweeps</th><th>jobs</th><th>failed</th><th>model wall time</th><th>CPU time</th><th>claims pass / fail / inconclusive</th></tr>
{{range .Models}}<tr><td>{{.Model}}</td><td>{{.Sweeps}}</td><td>{{.Jobs}}</td><td>{{.Failed}}</td><td>{{ms .ModelWall}}</td><td>{{cpu .}}</td><td>{{.Pass}} / {{.Fail}} / {{.Inc}}</td></tr>{{end}}
</table></div>
<h2>Per sweep</h2>
<div class="scroll"><table><tr><th>sweep</th><th>model</th><th>jobs</th><th>failed</th><th>points</th><th>model wall time</th><th>CPU time</th><th>claims pass / fail / inconclusive</th><th>report</th></tr>
{{range .Rows}}<tr><td>{{.R.Sweep}}</td><td>{{.R.Model}}</td><td>{{.R.Jobs}}</td><td>{{.R.Failed}}</td><td>{{.R.Points}}</td><td>{{.ModelWall}}</td><td>{{.CPU}}</td><td>{{.Pass}} / {{.Fail}} / {{.Inc}}</td><td><a href="{{.Link}}">report</a></td></tr>{{end}}
</table></div>
<h2>Claims</h2>
<p>{{.Legend}}</p>
<div class="scroll"><table><tr><th>sweep</th><th>claim</th><th>source</th><th>verdict</th><th>status</th><th>numbers</th></tr>
{{range .Rows}}{{$s := .R.Sweep}}{{range .Claims}}<tr><td>{{$s}}</td><td>{{.C.ID}}</td><td>{{.C.Source}}</td><td class="verdict {{.C.Verdict}}">{{mark .C.Verdict}}</td><td>{{.Status}}</td><td>{{.C.Numbers}}</td></tr>{{end}}{{end}}
</table></div>
<p><small>Generated {{.S.Generated.Format "2006-01-02T15:04:05Z07:00"}}.</small></p>
</body></html>
`))
