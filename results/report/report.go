package report

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"schedfarm/results"
	"schedfarm/results/claims"
	"schedfarm/results/decl"
	"schedfarm/results/figure"
	"schedfarm/simcore"
	"schedfarm/sweep"
)

// Files of a report, in the run's folder.
const (
	ReportMarkdown = "report.md"
	ReportHTML     = "report.html"
	ClaimsJSON     = "claims.json"
	FiguresDir     = "figures"
)

// FailedJob is one row of the report's failed-jobs table.
type FailedJob struct {
	JobID    string
	Index    int64
	Attempts int64
	Params   string
	Error    string
}

// Report is what Write found and wrote.
type Report struct {
	Dir, Sweep, Model, ModelVersion, Doc string
	SweepFile                            string
	Run                                  *results.RunInfo
	Prov                                 results.Provenance
	Jobs, OK, Failed                     int
	// ModelWall sums the jobs' wall-clock run times (duration_ms), which
	// contention for the cores inflates; CPU sums their measured CPU times
	// (cpu_ms, the thread's clock), over CPUJobs jobs that have one.
	ModelWall, CPU, Wall time.Duration
	CPUJobs              int
	Points               int
	Figures              []*figure.Files
	FigureErrors         []string
	Claims               []claims.Result
	FailedJobs           []FailedJob
	// SweepPath is the file that declared the sweep (an included file of a
	// suite); Calibrations its calibrated: parameters; Cells its published
	// numbers under the scoreboard's one tolerance rule.
	SweepPath    string
	Calibrations []*decl.Calibration
	Cells        []claims.CellResult
	// Sensitivity is the sweep's sensitivity: (its claims are counted apart).
	Sensitivity string
	// Statuses are the claims' scoreboard statuses, parallel to Claims
	// (Classify sets them, over the reports of the run).
	Statuses  []ScoreClaim
	Generated time.Time
}

// FailedClaims returns the number of claims whose verdict is fail.
func (r *Report) FailedClaims() int {
	n := 0
	for _, c := range r.Claims {
		if c.Verdict == claims.Fail {
			n++
		}
	}
	return n
}

// maxFailedRows bounds the failed-jobs table of a report.
const maxFailedRows = 500

// Write renders the figures of a collected sweep into
// dir/figures/, evaluates its claims on summary.parquet, and writes
// report.md, report.html (self-contained: figures embedded as PNG data
// URIs) and claims.json into dir. The sweep's declarations come from the
// sweep file recorded in the Parquet metadata; reg must know its model.
func Write(dir string, reg *simcore.Registry) (*Report, error) {
	return WriteContext(context.Background(), dir, reg)
}

// WriteContext is Write that stops when ctx ends: in the expansion of the
// sweep file (for the palette), before each figure and before the claims,
// with an error wrapping ctx.Err(). It then writes none of report.md,
// report.html and claims.json (figures already rendered stay). The
// claims' statuses are the scoreboard's of this sweep alone (Classify);
// for the sweeps of a run of several, Evaluate each, Classify them
// together, then WriteFiles.
func WriteContext(ctx context.Context, dir string, reg *simcore.Registry) (*Report, error) {
	r, err := Evaluate(ctx, dir, reg)
	if err != nil {
		return nil, err
	}
	Classify([]*Report{r})
	if err := r.WriteFiles(); err != nil {
		return nil, err
	}
	return r, nil
}

// Evaluate is WriteContext but for the report's own files: it renders the
// figures into dir/figures/ and evaluates the claims, and writes none of
// report.md, report.html and claims.json (WriteFiles does).
func Evaluate(ctx context.Context, dir string, reg *simcore.Registry) (*Report, error) {
	sum, err := results.ReadTable(filepath.Join(dir, results.SummaryTable+".parquet"))
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	r := &Report{Dir: dir, Generated: time.Now().UTC(), Points: sum.Len()}
	var info results.RunInfo
	if b, err := os.ReadFile(filepath.Join(dir, results.RunInfoFile)); err == nil {
		if err := json.Unmarshal(b, &info); err != nil {
			return nil, fmt.Errorf("report: %s: %w", results.RunInfoFile, err)
		}
		r.Run = &info
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("report: %w", err)
	}
	tables := map[string]*results.Frame{results.SummaryTable: sum}
	jobs, err := results.ReadTable(filepath.Join(dir, results.JobsTable+".parquet"))
	switch {
	case err == nil:
		tables[results.JobsTable] = jobs
	case errors.Is(err, fs.ErrNotExist):
		jobs = nil
	default:
		return nil, fmt.Errorf("report: %w", err)
	}
	meta := sum.Meta
	if jobs != nil {
		meta = jobs.Meta
	}
	r.Sweep, r.Model, r.ModelVersion = meta[results.MetaSweep], meta[results.MetaModel], meta[results.MetaModelVersion]
	r.SweepFile = meta[results.MetaSweepFile]
	r.Prov = results.Provenance{Version: meta[results.MetaVersion], VCSRevision: meta[results.MetaVCSRevision], VCSModified: meta[results.MetaVCSModified], GoVersion: meta[results.MetaGoVersion]}.WithDefaults()
	if r.Run != nil && !r.Run.Created.IsZero() && !r.Run.Finished.IsZero() {
		r.Wall = r.Run.Finished.Sub(r.Run.Created)
	}
	fileName := r.Sweep + ".yaml"
	if r.Run != nil && r.Run.File != "" {
		fileName = r.Run.File
	}
	f, err := sweep.Parse(fileName, []byte(r.SweepFile), reg)
	if err != nil {
		return nil, fmt.Errorf("report: the recorded sweep file: %w", err)
	}
	var s *sweep.Sweep
	for _, x := range f.Sweeps {
		if x.Name == r.Sweep {
			s = x
		}
	}
	if s == nil {
		return nil, fmt.Errorf("report: sweep %q is not in the recorded sweep file", r.Sweep)
	}
	r.Doc = s.Doc
	if jobs != nil {
		r.jobStats(jobs, s.Schema())
	}
	decls, err := decl.Parse(s)
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	pal := filePalette(ctx, f)
	pub := publishedValues(decls.Claims, s.Schema())
	figDir := filepath.Join(dir, FiguresDir)
	for i, fig := range decls.Figures {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("report of sweep %s: %d of %d figures rendered: %w", r.Sweep, i, len(decls.Figures), err)
		}
		fr, ok := tables[fig.Table]
		if !ok {
			fr, err = results.ReadTable(filepath.Join(dir, fig.Table+".parquet"))
			if err != nil {
				r.FigureErrors = append(r.FigureErrors, fmt.Sprintf("figure %s: %v", fig.ID, err))
				continue
			}
			tables[fig.Table] = fr
		}
		ff, err := figure.Render(fig, fr, pal, figDir, pub)
		if err != nil {
			r.FigureErrors = append(r.FigureErrors, err.Error())
			continue
		}
		r.Figures = append(r.Figures, ff)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("report of sweep %s: %w", r.Sweep, err)
	}
	r.Claims = claims.Evaluate(sum, jobs, s.Schema(), decls.Claims, claims.Seeds(s.UsesSeed))
	r.SweepPath, r.Calibrations, r.Sensitivity = s.File, decls.Calibrations, decls.Sensitivity
	r.Cells = claims.PublishedCells(sum, s.Schema(), decls.Claims)
	return r, nil
}

// WriteFiles writes report.md, report.html and claims.json into the
// report's folder, each claim with its status in Statuses (those of the
// sweep alone, Classify, when they are not set).
func (r *Report) WriteFiles() error {
	if len(r.Statuses) != len(r.Claims) {
		Classify([]*Report{r})
	}
	if err := r.write(); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}

// publishedValues are the values the paper prints that the figures draw
// beside ours: the published claims with a value (not bounds, invariants
// or spreads, as the published cells of the report), each with the
// scoreboard's tolerance for it.
func publishedValues(cs []*decl.Claim, schema *simcore.Schema) []figure.Published {
	var out []figure.Published
	for _, c := range cs {
		if c.Kind != decl.ClaimPublished || c.Above != nil || c.Below != nil || c.Invariant != "" || c.Spread != "" {
			continue
		}
		tol := decl.RuleTolerance(c.Value, decl.Unit(schema, c.Metric))
		if c.Precision != nil {
			tol = *c.Precision
		}
		out = append(out, figure.Published{Claim: c.ID, Metric: c.Metric, Where: c.Where, Value: c.Value, Tol: tol})
	}
	return out
}

// FilePalette numbers the values every figure of the file's sweeps may
// draw as series (the values of the series parameters over the file's
// jobs, plus Pareto baselines), so that a value has one colour in every
// figure of the file.
func FilePalette(f *sweep.File) *figure.Palette { return filePalette(context.Background(), f) }

// filePalette is FilePalette; its expansion of f stops when ctx ends
// (the palette then lacks the values of the jobs).
func filePalette(ctx context.Context, f *sweep.File) *figure.Palette {
	series := map[string]map[string]bool{} // sweep → series params
	declared := map[string][]string{}      // series param → the model's values, in order
	extra := map[string][]string{}         // series param → baselines
	var params []string
	for _, s := range f.Sweeps {
		d, err := decl.Parse(s)
		if err != nil {
			continue
		}
		for _, fig := range d.Figures {
			if fig.Series == "" {
				continue
			}
			if series[s.Name] == nil {
				series[s.Name] = map[string]bool{}
			}
			series[s.Name][fig.Series] = true
			if !slices.Contains(params, fig.Series) {
				params = append(params, fig.Series)
			}
			// Values the model declares keep one colour in every file
			// of the paper, whichever subset a file sweeps.
			if p, ok := s.Schema().Param(fig.Series); ok {
				declared[fig.Series] = append(declared[fig.Series], p.Enum...)
			}
			if fig.Baseline != "" {
				extra[fig.Series] = append(extra[fig.Series], fig.Baseline)
			}
		}
	}
	values := map[string][]string{}
	seen := map[string]map[string]bool{}
	if jobs, err := f.ExpandContext(ctx, sweep.DefaultMaxJobs); err == nil {
		for i := range jobs {
			for _, p := range params {
				if !series[jobs[i].Sweep][p] {
					continue
				}
				if v, ok := jobs[i].Params[p]; ok {
					l := results.Label(v)
					if seen[p] == nil {
						seen[p] = map[string]bool{}
					}
					if !seen[p][l] {
						seen[p][l] = true
						values[p] = append(values[p], l)
					}
				}
			}
		}
	}
	pal := figure.NewPalette(nil, nil)
	for _, p := range params {
		pal.WithParam(p, declared[p], append(values[p], extra[p]...))
	}
	return pal
}

// sumMs sums a nullable milliseconds column as a duration, with the count
// of rows that have a value.
func sumMs(f *results.Frame, col string) (time.Duration, int) {
	v, _ := f.Col(col).([]float64)
	i := f.Index(col)
	var sum float64
	n := 0
	for r := range v {
		if !f.IsNull(i, r) && !math.IsNaN(v[r]) {
			sum += v[r]
			n++
		}
	}
	return time.Duration(sum * float64(time.Millisecond)), n
}

// cpuText is a CPU-time total for a report: "n/a" when no job of jobs was
// measured, and how many were when only some were.
func cpuText(d time.Duration, measured, jobs int) string {
	switch {
	case measured == 0:
		return "n/a"
	case measured < jobs:
		return fmt.Sprintf("%s (%d of %d jobs measured)", d.Round(time.Millisecond), measured, jobs)
	}
	return d.Round(time.Millisecond).String()
}

func (r *Report) jobStats(jobs *results.Frame, schema *simcore.Schema) {
	r.Jobs = jobs.Len()
	st, _ := jobs.Col(results.ColStatus).([]string)
	r.ModelWall, _ = sumMs(jobs, results.ColDurationMs)
	r.CPU, r.CPUJobs = sumMs(jobs, results.ColCPUMs)
	ids, _ := jobs.Col(results.ColJobID).([]string)
	idx, _ := jobs.Col(results.ColJobIndex).([]int64)
	att, _ := jobs.Col(results.ColAttempts).([]int64)
	errs, _ := jobs.Col(results.ColError).([]string)
	var params []int
	for _, p := range schema.Params {
		if i := jobs.Index(p.Name); i >= 0 {
			params = append(params, i)
		}
	}
	for i, s := range st {
		if s == results.StatusOK {
			r.OK++
			continue
		}
		r.Failed++
		if len(r.FailedJobs) < maxFailedRows {
			fj := FailedJob{}
			if ids != nil {
				fj.JobID = ids[i]
			}
			if idx != nil {
				fj.Index = idx[i]
			}
			if att != nil {
				fj.Attempts = att[i]
			}
			if errs != nil {
				fj.Error = errs[i]
			}
			var ps []string
			for _, c := range params {
				ps = append(ps, jobs.Names[c]+"="+jobs.CellLabel(c, i))
			}
			fj.Params = strings.Join(ps, " ")
			r.FailedJobs = append(r.FailedJobs, fj)
		}
	}
}

func (r *Report) write() error {
	var md bytes.Buffer
	r.markdown(&md)
	if err := writeFileAtomic(filepath.Join(r.Dir, ReportMarkdown), md.Bytes()); err != nil {
		return err
	}
	html, err := r.html()
	if err != nil {
		return err
	}
	if err := writeFileAtomic(filepath.Join(r.Dir, ReportHTML), html); err != nil {
		return err
	}
	cj, err := json.MarshalIndent(r.Claims, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(r.Dir, ClaimsJSON), append(cj, '\n'))
}

func writeFileAtomic(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// provenance rows: label, value.
func (r *Report) provenance() [][2]string {
	rows := [][2]string{
		{"sweep", r.Sweep},
		{"model", r.Model + " (version " + r.ModelVersion + ")"},
		{"schedfarm", fmt.Sprintf("%s, revision %s (modified: %s)", r.Prov.Version, r.Prov.VCSRevision, r.Prov.VCSModified)},
		{"Go", r.Prov.GoVersion},
	}
	if r.Run != nil {
		host := r.Run.CollectedBy
		if r.Run.Owner != "" && r.Run.Owner != host {
			host += " (coordinator " + r.Run.Owner + ")"
		}
		rows = append(rows,
			[2]string{"run", r.Run.Run + " (" + r.Run.Status + ")"},
			[2]string{"file", r.Run.File},
			[2]string{"host", host},
			[2]string{"start", r.Run.Created.UTC().Format(time.RFC3339)},
			[2]string{"end", r.Run.Finished.UTC().Format(time.RFC3339)},
			[2]string{"wall time", r.Wall.Round(time.Millisecond).String()},
		)
	}
	if r.Run != nil && (len(r.Run.Rounds) > 0 || r.Run.Adaptive != "") {
		added := 0
		for _, rd := range r.Run.Rounds {
			added += len(rd.Points) * (rd.To - rd.From)
		}
		rows = append(rows, [2]string{"adaptive replicates", fmt.Sprintf("%d round(s) added %d jobs; %s", len(r.Run.Rounds), added, r.Run.Adaptive)})
	}
	rows = append(rows,
		[2]string{"jobs", fmt.Sprintf("%d: %d ok, %d failed", r.Jobs, r.OK, r.Failed)},
		[2]string{"points", fmt.Sprint(r.Points)},
		[2]string{"model wall time (sum of duration_ms)", r.ModelWall.Round(time.Millisecond).String()},
		[2]string{"CPU time (sum of cpu_ms, thread clock)", cpuText(r.CPU, r.CPUJobs, r.Jobs)},
	)
	return rows
}

// mdEscape makes text from a file or a job one line of Markdown text, as
// report.html's template makes it text of HTML: a "<" becomes "&lt;" (no
// raw HTML element, comment or autolink can start), a "|" is escaped (no
// table cell ends) and line breaks become spaces (no block starts).
func mdEscape(s string) string {
	s = strings.ReplaceAll(s, "<", "&lt;")
	s = strings.ReplaceAll(s, "|", `\|`)
	s = strings.ReplaceAll(s, "\r", "")
	return strings.ReplaceAll(s, "\n", " ")
}

// mdParagraph is mdEscape for a paragraph of its own: trimmed, and a
// leading fence character escaped so that it opens no code block.
func mdParagraph(s string) string {
	s = strings.TrimSpace(mdEscape(s))
	if strings.HasPrefix(s, "`") || strings.HasPrefix(s, "~") {
		s = `\` + s
	}
	return s
}

// codeFence returns a fence of backticks longer than any run of backticks
// in s, and at least three, so that no line of s closes it.
func codeFence(s string) string {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] != '`' {
			run = 0
			continue
		}
		run++
		longest = max(longest, run)
	}
	return strings.Repeat("`", max(3, longest+1))
}

// verdictMark is a verdict as a report's verdict cell shows it: its word
// ("pass", "fail", "inconclusive"), which report.html also colours (CSS
// classes of the same names). Words, not emoji: without an emoji font an
// emoji renders as an empty box.
func verdictMark(v claims.Verdict) string {
	switch v {
	case claims.Pass, claims.Fail:
		return string(v)
	}
	return string(claims.Inconclusive)
}

func firstLineOf(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func (r *Report) markdown(b *bytes.Buffer) {
	fmt.Fprintf(b, "# Report: sweep %s\n\n", r.Sweep)
	if d := mdParagraph(r.Doc); d != "" {
		fmt.Fprintf(b, "%s\n\n", d)
	}
	b.WriteString("## Provenance\n\n| | |\n|---|---|\n")
	for _, row := range r.provenance() {
		fmt.Fprintf(b, "| %s | %s |\n", row[0], mdEscape(row[1]))
	}
	fmt.Fprintf(b, "\n## Claims\n\n")
	if len(r.Claims) == 0 {
		b.WriteString("The sweep declares no claims.\n\n")
	} else {
		p, f, i := r.claimCounts()
		fmt.Fprintf(b, "%d pass, %d fail, %d inconclusive.", p, f, i)
		if fc := r.failureCounts(); fc != "" {
			fmt.Fprintf(b, " The failures as the suite scoreboard counts them: %s.", fc)
		}
		b.WriteString(" " + statusLegend + "\n\n")
		b.WriteString("| claim | source | statement | verdict | status | numbers |\n|---|---|---|---|---|---|\n")
		for k, c := range r.Claims {
			fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s |\n", c.ID, mdEscape(c.Source), mdEscape(c.Text), verdictMark(c.Verdict), mdEscape(r.status(k).statusText()), mdEscape(c.Numbers))
		}
		b.WriteString("\n")
		for _, c := range r.Claims {
			if len(c.Points) <= 1 {
				continue
			}
			fmt.Fprintf(b, "<details><summary>%s: %d points</summary>\n\n| point | verdict | numbers |\n|---|---|---|\n", c.ID, len(c.Points))
			for _, p := range c.Points {
				fmt.Fprintf(b, "| %s | %s | %s |\n", mdEscape(p.Point), p.Verdict, mdEscape(p.Detail))
			}
			b.WriteString("\n</details>\n\n")
		}
	}
	b.WriteString("## Figures\n\n")
	if len(r.Figures) == 0 && len(r.FigureErrors) == 0 {
		b.WriteString("The sweep declares no figures.\n\n")
	}
	for _, f := range r.Figures {
		fmt.Fprintf(b, "### %s\n\n![%s](%s/%s.png)\n\n[SVG](%s/%s.svg) · [PDF](%s/%s.pdf)", mdEscape(f.Title), f.ID, FiguresDir, f.ID, FiguresDir, f.ID, FiguresDir, f.ID)
		if f.Note != "" {
			fmt.Fprintf(b, " — %s", mdEscape(f.Note))
		}
		b.WriteString("\n\n")
	}
	for _, e := range r.FigureErrors {
		fmt.Fprintf(b, "- warning: %s\n", mdEscape(e))
	}
	b.WriteString("## Failed jobs\n\n")
	if r.Failed == 0 {
		b.WriteString("None.\n")
	} else {
		if r.Failed > len(r.FailedJobs) {
			fmt.Fprintf(b, "The first %d of %d (all are in jobs.parquet, status = 'failed').\n\n", len(r.FailedJobs), r.Failed)
		}
		b.WriteString("| job_index | job_id | parameters | attempts | error |\n|---|---|---|---|---|\n")
		for _, j := range r.FailedJobs {
			fmt.Fprintf(b, "| %d | %s | %s | %d | %s |\n", j.Index, j.JobID, mdEscape(j.Params), j.Attempts, mdEscape(firstLineOf(j.Error)))
		}
	}
	// The file verbatim in a code block, whose fence no line of it closes.
	fence := codeFence(r.SweepFile)
	fmt.Fprintf(b, "\n## Sweep file\n\n%syaml\n%s\n%s\n", fence, strings.TrimRight(r.SweepFile, "\n"), fence)
}

// statusLegend says what a report's status column is.
const statusLegend = "Status: the claim as the suite scoreboard counts it over the sweeps of this run: a failure is explained by a reading, shown why not by a claim, or unexplained, saying what would explain it when the sweep its explained_by names is not in this run."

// status is the scoreboard status of the k-th claim (its verdict alone
// when Statuses were not set).
func (r *Report) status(k int) ScoreClaim {
	if k < len(r.Statuses) {
		return r.Statuses[k]
	}
	c := r.Claims[k]
	return ScoreClaim{Sweep: r.Sweep, ID: c.ID, Verdict: c.Verdict, Status: string(c.Verdict)}
}

func (r *Report) claimCounts() (p, f, i int) {
	for _, c := range r.Claims {
		switch c.Verdict {
		case claims.Pass:
			p++
		case claims.Fail:
			f++
		default:
			i++
		}
	}
	return
}

var reportTmpl = template.Must(template.New("report").Funcs(template.FuncMap{
	"mark":  verdictMark,
	"first": firstLineOf,
}).Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Report: sweep {{.R.Sweep}}</title>
<style>
body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}
` + tableCSS + `
img{max-width:100%;border:1px solid #eee}pre{background:#f6f8fa;padding:1em;overflow:auto}
</style></head><body>
<h1>Report: sweep {{.R.Sweep}}</h1>
{{with .R.Doc}}<p>{{.}}</p>{{end}}
<h2>Provenance</h2><div class="scroll"><table>{{range .Prov}}<tr><th>{{index . 0}}</th><td>{{index . 1}}</td></tr>{{end}}</table></div>
<h2>Claims</h2>
{{if .R.Claims}}<p>{{.Pass}} pass, {{.Fail}} fail, {{.Inc}} inconclusive.{{with .Failures}} The failures as the suite scoreboard counts them: {{.}}.{{end}} {{.Legend}}</p>
<div class="scroll"><table><tr><th>claim</th><th>source</th><th>statement</th><th>verdict</th><th>status</th><th>numbers</th></tr>
{{range .Claims}}<tr><td>{{.C.ID}}</td><td>{{.C.Source}}</td><td>{{.C.Text}}</td><td class="verdict {{.C.Verdict}}">{{mark .C.Verdict}}</td><td>{{.Status}}</td><td>{{.C.Numbers}}</td></tr>{{end}}
</table></div>
{{range .R.Claims}}{{if gt (len .Points) 1}}<details><summary>{{.ID}}: {{len .Points}} points</summary><div class="scroll"><table><tr><th>point</th><th>verdict</th><th>numbers</th></tr>
{{range .Points}}<tr><td>{{.Point}}</td><td class="verdict {{.Verdict}}">{{mark .Verdict}}</td><td>{{.Detail}}</td></tr>{{end}}</table></div></details>{{end}}{{end}}
{{else}}<p>The sweep declares no claims.</p>{{end}}
<h2>Figures</h2>
{{range .Figs}}<h3>{{.F.Title}}</h3><img alt="{{.F.ID}}" src="{{.Src}}" width="{{.F.DisplayWidth}}">{{with .F.Note}}<p>{{.}}</p>{{end}}
{{else}}<p>The sweep declares no figures.</p>{{end}}
{{range .R.FigureErrors}}<p class="fail">warning: {{.}}</p>{{end}}
<h2>Failed jobs</h2>
{{if .R.FailedJobs}}{{if gt .R.Failed (len .R.FailedJobs)}}<p>The first {{len .R.FailedJobs}} of {{.R.Failed}}.</p>{{end}}
<div class="scroll"><table><tr><th>job_index</th><th>job_id</th><th>parameters</th><th>attempts</th><th>error</th></tr>
{{range .R.FailedJobs}}<tr><td>{{.Index}}</td><td>{{.JobID}}</td><td>{{.Params}}</td><td>{{.Attempts}}</td><td>{{first .Error}}</td></tr>{{end}}
</table></div>{{else}}<p>None.</p>{{end}}
<h2>Sweep file</h2><pre>{{.R.SweepFile}}</pre>
<p><small>Generated {{.R.Generated.Format "2006-01-02T15:04:05Z07:00"}}.</small></p>
</body></html>
`))

// tableCSS styles the tables of report.html and the suite report: each
// table sits in its own box (class scroll) that scrolls sideways when the
// table is wider than the page, so that the page itself never is; a
// verdict cell (class verdict and the verdict) shows the verdict's word on
// its colour; the scoreboard (class board) is set tighter, so that its
// fifteen columns fit the page's width where their cells are short.
const tableCSS = `table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.3em .6em;text-align:left;vertical-align:top}
th{background:#f3f3f3}.pass{color:#1a7f37}.fail{color:#cf222e;font-weight:bold}.inconclusive{color:#9a6700}
.scroll{overflow-x:auto;max-width:100%;margin:1em 0}
table.board{font-size:.85em}table.board td,table.board th{padding:.25em .4em}
td.verdict{font-weight:bold;white-space:nowrap}td.verdict.pass{background:#dafbe1}td.verdict.fail{background:#ffebe9}td.verdict.inconclusive{background:#fff8c5}`

// htmlClaim is a row of report.html's claims table.
type htmlClaim struct {
	C      claims.Result
	Status string
}

// htmlClaims are the rows of the report's claims table: each claim with
// its status (statusText of status).
func (r *Report) htmlClaims() []htmlClaim {
	out := make([]htmlClaim, 0, len(r.Claims))
	for k, c := range r.Claims {
		out = append(out, htmlClaim{C: c, Status: r.status(k).statusText()})
	}
	return out
}

type htmlFig struct {
	F   *figure.Files
	Src template.URL
}

func (r *Report) html() ([]byte, error) {
	data := struct {
		R                *Report
		Prov             [][2]string
		Figs             []htmlFig
		Pass, Fail, Inc  int
		Failures, Legend string
		Claims           []htmlClaim
	}{R: r, Prov: r.provenance(), Failures: r.failureCounts(), Legend: statusLegend}
	data.Pass, data.Fail, data.Inc = r.claimCounts()
	data.Claims = r.htmlClaims()
	for _, f := range r.Figures {
		png, err := os.ReadFile(f.PNG)
		if err != nil {
			return nil, err
		}
		data.Figs = append(data.Figs, htmlFig{F: f, Src: template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(png))})
	}
	var b bytes.Buffer
	if err := reportTmpl.Execute(&b, data); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// FormatClaims renders the report's claim verdicts one per line, for a
// terminal: "claim <sweep>/<id>: <VERDICT>[, <status>] — <numbers>", the
// status (Phrase) as the scoreboard of the run gives it, where it says
// more than the verdict.
func (r *Report) FormatClaims() string {
	var b strings.Builder
	for k, c := range r.Claims {
		fmt.Fprintf(&b, "claim %s/%s: %s", r.Sweep, c.ID, strings.ToUpper(string(c.Verdict)))
		if p := r.status(k).Phrase(); p != "" {
			b.WriteString(", " + p)
		}
		fmt.Fprintf(&b, " — %s\n", c.Numbers)
	}
	return b.String()
}
