package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"schedfarm/results/claims"
	"schedfarm/results/decl"
)

// Scoreboard statuses of a claim.
const (
	ScorePass = "pass"
	// ScorePassLoose is a pass of a claim declared loose: (it checks less
	// than its sentence): never counted as a pass.
	ScorePassLoose     = "pass-loose"
	ScoreFailExplained = "fail-explained"
	// ScoreFailShown is a failure whose explained_by why_not claim ran and
	// passed: a sweep shows why the statement cannot hold in the model.
	ScoreFailShown    = "fail-shown"
	ScoreFailUnexpl   = "fail-unexplained"
	ScoreInconclusive = "inconclusive"
	ScoreCalibration  = "calibration"
	ScoreSensitivity  = "sensitivity"
	// ScoreInvariant is a claim declared invariant: (a theorem's bound or
	// a model constraint, not a printed result), whatever its verdict.
	ScoreInvariant = "invariant"
)

// ScoreClaim is one claim on the scoreboard.
type ScoreClaim struct {
	Sweep   string         `json:"sweep"`
	ID      string         `json:"id"`
	Verdict claims.Verdict `json:"verdict"`
	Status  string         `json:"status"`
	// By is the explanation (sweep/claim) of a fail-explained or
	// fail-shown claim, or the calibrated parameter of a calibration claim.
	By string `json:"by,omitempty"`
	// Note says why a failure with explained_by is still unexplained.
	Note string `json:"note,omitempty"`
	// numbers are the claim's numbers, shown in the markdown for the
	// inconclusive ones (not in the JSON: they hold measured values).
	numbers string
	// reading is the declared reading that explains a fail-explained
	// claim, or would explain an unexplained one whose explanation awaits
	// a sweep not in the run.
	reading string
	// awaits is, for a failure whose explained_by names a sweep file not
	// in the run, that file's claim ("paper/file:claim"): the failure is
	// unexplained here, explained (or shown why not) if that sweep passes.
	awaits string
}

// PaperScore is one paper's line of the scoreboard: the sweeps of one
// config folder (configs/<paper>/).
type PaperScore struct {
	Paper string `json:"paper"`
	// Register: statements in the folder's CLAIMS.md, those with claims
	// (encoded) and those that cannot be checked; RegisterError when the
	// register could not be read.
	Statements  int `json:"statements"`
	Encoded     int `json:"encoded"`
	Uncheckable int `json:"uncheckable"`
	// CheckedHere counts the encoded statements that a claim of this run
	// checks (a reference matches a claim of a sweep that ran).
	CheckedHere   int      `json:"checked_here"`
	RegisterError string   `json:"register_error,omitempty"`
	Sweeps        []string `json:"sweeps"`
	Claims        int      `json:"claims"`
	Pass          int      `json:"pass"`
	// PassLoose counts the passes of claims declared loose: never passes.
	PassLoose     int `json:"pass_loose"`
	FailExplained int `json:"fail_explained"`
	// FailShown counts failures a why_not claim of this run shows cannot
	// hold in the model under the readings the paper allows.
	FailShown    int `json:"fail_shown"`
	FailUnexpl   int `json:"fail_unexplained"`
	Inconclusive int `json:"inconclusive"`
	Calibration  int `json:"calibration"`
	// Sensitivity counts the claims of sensitivity sweeps (an alternative
	// reading): neither reproductions nor failures.
	Sensitivity int `json:"sensitivity"`
	// Cells: published numbers (not calibration) and those within the one
	// tolerance rule; CalibrationCells were fitted and are not counted.
	Cells            int `json:"cells"`
	CellsWithin      int `json:"cells_within"`
	CalibrationCells int `json:"calibration_cells"`
	// Invariants counts the claims declared invariant: (a theorem's bound,
	// a model constraint) of the paper's own sweeps, InvariantsHeld those
	// that pass: kept apart from the results the paper prints.
	Invariants     int          `json:"invariants"`
	InvariantsHeld int          `json:"invariants_held"`
	ClaimList      []ScoreClaim `json:"claim_list"`
	// Readings are the folder's declared readings (readings.yaml), each
	// judged as a whole model; ReadingsError when the file does not parse.
	Readings      []ReadingScore `json:"readings,omitempty"`
	ReadingsError string         `json:"readings_error,omitempty"`
	// Calibrations are the paper's calibrated parameters, each with the
	// claims it was fitted on and its held-out check (checked_on).
	Calibrations []CalibrationScore `json:"calibrations,omitempty"`
}

// CalibrationScore is one calibrated parameter on the scoreboard: the
// claims its value was chosen on (calibration, not reproductions) and the
// held-out claims of its checked_on, which ran with the value but did not
// choose it (counted as reproductions or failures).
type CalibrationScore struct {
	Sweep   string       `json:"sweep"`
	Param   string       `json:"param"`
	Why     string       `json:"why"`
	Fitted  []ScoreClaim `json:"fitted"`
	HeldOut []ScoreClaim `json:"held_out"`
	// NoHeldOut says why no held-out claim can check the value.
	NoHeldOut string `json:"no_held_out,omitempty"`
	// Missing are checked_on references that matched no claim of this run
	// (their sweep did not run, or a typo).
	Missing []string `json:"missing,omitempty"`
}

// ReadingScore is one declared reading judged as a whole model: every
// claim of its sweeps that ran (Pass, Fail, Inconclusive), and, claim id by
// claim id, beside the default sweeps it names: Matched claims of both,
// the defaults' verdicts on them, the claims the defaults pass and the
// reading fails (Broken) and those the defaults do not pass and the
// reading passes (Rescued). Explained counts the paper's failures it
// explains in this run.
type ReadingScore struct {
	Name     string   `json:"name"`
	Declared string   `json:"declared"`
	Explains bool     `json:"explains"`
	Sweeps   []string `json:"sweeps"`
	Defaults []string `json:"defaults,omitempty"`
	// Ran is false when no sweep of the reading ran in this suite.
	Ran          bool `json:"ran"`
	Claims       int  `json:"claims"`
	Pass         int  `json:"pass"`
	Fail         int  `json:"fail"`
	Inconclusive int  `json:"inconclusive"`
	Matched      int  `json:"matched"`
	DefaultsPass int  `json:"defaults_pass"`
	DefaultsFail int  `json:"defaults_fail"`
	DefaultsInc  int  `json:"defaults_inconclusive"`
	Broken       int  `json:"broken"`
	Rescued      int  `json:"rescued"`
	Explained    int  `json:"explained"`
}

// tally counts verdicts.
func tally(cs []ScoreClaim) (pass, fail, inc int) {
	return claims.CountVerdicts(cs, func(c ScoreClaim) claims.Verdict { return c.Verdict })
}

// Scoreboard is a suite run's per-paper account: scoreboard-<run>.json.
type Scoreboard struct {
	File      string       `json:"file"`
	Tolerance string       `json:"tolerance"`
	Papers    []PaperScore `json:"papers"`
}

// ScoreboardName is the base name of a suite run's scoreboard in the
// results directory, beside its report: scoreboard-<run>.json.
func ScoreboardName(run string) string { return "scoreboard-" + run + ".json" }

// paperOf returns a sweep's paper: the folder of its sweep file, for a
// study's sweep "studies/<name>".
func paperOf(r *Report) string {
	if r.SweepPath == "" {
		return r.Model
	}
	dir := filepath.Dir(r.SweepPath)
	if decl.FolderKind(dir) == decl.StudyRegister {
		return decl.StudiesDir + "/" + filepath.Base(dir)
	}
	return filepath.Base(dir)
}

// BuildScoreboard groups the suite's sweeps by paper (their sweep file's
// folder) and classifies every claim. A failure counts as explained only
// when the sweep file its explained_by names ran in this suite and the
// named claim passed there. The register of each paper is read from
// <folder>/CLAIMS.md beside the sweep files, if present.
func BuildScoreboard(s *Suite) *Scoreboard { return buildScoreboard(s, nil) }

// buildScoreboard is BuildScoreboard; when statuses is not nil it also
// receives each report's claims as classified, in the report's order.
func buildScoreboard(s *Suite, statuses map[*Report][]ScoreClaim) *Scoreboard {
	sb := &Scoreboard{File: s.File, Tolerance: fmt.Sprintf("%g %% of the value, %g points on percentages (unit %%; 0.1 for a share), or the paper's own precision where a claim quotes it (precision_quote)", claims.CellRelTol*100, claims.CellPointsTol)}
	byFile := map[string][]*Report{}
	for _, r := range s.Sweeps {
		if r.SweepPath != "" {
			k := filepath.Clean(r.SweepPath)
			byFile[k] = append(byFile[k], r)
		}
	}
	idx := map[string]int{}
	var regs []*decl.Register
	var readings []*decl.Readings // per paper, nil without a readings file
	var readingErrs []error
	for _, r := range s.Sweeps {
		name := paperOf(r)
		i, ok := idx[name]
		if !ok {
			i = len(sb.Papers)
			idx[name] = i
			ps := PaperScore{Paper: name}
			var reg *decl.Register
			var rs *decl.Readings
			var rerr error
			if r.SweepPath != "" {
				reg = ps.registerCounts(filepath.Join(filepath.Dir(r.SweepPath), "CLAIMS.md"))
				if rs, rerr = decl.FolderReadings(filepath.Dir(r.SweepPath)); rerr != nil {
					ps.ReadingsError = strings.SplitN(rerr.Error(), "\n", 2)[0]
				}
			}
			sb.Papers = append(sb.Papers, ps)
			regs = append(regs, reg)
			readings = append(readings, rs)
			readingErrs = append(readingErrs, rerr)
		}
		ps := &sb.Papers[i]
		ps.Sweeps = append(ps.Sweeps, r.Sweep)
		after := afterReading(readings[i], r)
		for _, c := range r.Claims {
			sc := classify(c, r, after, byFile, readings[i], readingErrs[i])
			ps.count(sc)
			ps.ClaimList = append(ps.ClaimList, sc)
			if statuses != nil {
				statuses[r] = append(statuses[r], sc)
			}
		}
		for _, cell := range r.Cells {
			if r.Sensitivity != "" && after == nil {
				continue // not the paper's reading
			}
			if after != nil {
				ps.CalibrationCells++
				continue
			}
			if r.calibration(cell.Claim) != nil {
				ps.CalibrationCells++
				continue
			}
			ps.Cells++
			if cell.Within {
				ps.CellsWithin++
			}
		}
	}
	for i, reg := range regs {
		if reg != nil {
			sb.Papers[i].CheckedHere = checkedHere(reg, sb.Papers[i].ClaimList)
		}
		if readings[i] != nil {
			sb.Papers[i].Readings = readingScores(readings[i], s.Sweeps, sb.Papers[i].ClaimList)
		}
	}
	for _, r := range s.Sweeps {
		for _, cal := range r.Calibrations {
			ps := &sb.Papers[idx[paperOf(r)]]
			ps.Calibrations = append(ps.Calibrations, calibrationScore(r, cal, s.Sweeps))
		}
	}
	return sb
}

// afterReading returns the reading declared after its result was seen
// that the sweep's file runs (a calibration), or nil.
func afterReading(rs *decl.Readings, r *Report) *decl.Reading {
	if r.SweepPath == "" {
		return nil
	}
	for _, x := range rs.OfSweep(filepath.Base(r.SweepPath)) {
		if x.Declared == decl.DeclaredAfter {
			return x
		}
	}
	return nil
}

// readingNote says why an explained_by's reading does not explain the
// failure (not declared, not an explaining reading, not run by the sweep),
// or "" when it does.
func readingNote(e *decl.Explanation, rs *decl.Readings, err error) string {
	switch x := rs.Find(e.Reading); {
	case err != nil:
		return "the folder's readings file does not load"
	case x == nil:
		return "reading " + e.Reading + " is not declared in the folder's " + decl.ReadingsFile
	case !x.Explains:
		return "reading " + e.Reading + " is not one of the paper's explaining readings"
	case !slices.Contains(x.Sweeps, e.Sweep):
		return "reading " + e.Reading + " does not run in " + e.Sweep
	}
	return ""
}

// readingScores judges each declared reading as a whole model over the
// suite's sweeps: its sweeps' claims, beside its default sweeps' claims of
// the same ids (the first default claim of an id stands for it).
func readingScores(rs *decl.Readings, all []*Report, paperClaims []ScoreClaim) []ReadingScore {
	var out []ReadingScore
	for _, x := range rs.Readings {
		score := ReadingScore{Name: x.Name, Declared: x.Declared, Explains: x.Explains, Sweeps: x.Sweeps, Defaults: x.Defaults}
		defaults := map[string]claims.Verdict{}
		for _, r := range all {
			if r.SweepPath != "" && filepath.Dir(r.SweepPath) == filepath.Dir(rs.File) && slices.Contains(x.Defaults, filepath.Base(r.SweepPath)) {
				for _, c := range r.Claims {
					if _, seen := defaults[c.ID]; !seen {
						defaults[c.ID] = c.Verdict
					}
				}
			}
		}
		for _, r := range all {
			if r.SweepPath == "" || filepath.Dir(r.SweepPath) != filepath.Dir(rs.File) || !slices.Contains(x.Sweeps, filepath.Base(r.SweepPath)) {
				continue
			}
			score.Ran = true
			for _, c := range r.Claims {
				score.Claims++
				switch c.Verdict {
				case claims.Pass:
					score.Pass++
				case claims.Fail:
					score.Fail++
				default:
					score.Inconclusive++
				}
				d, ok := defaults[c.ID]
				if !ok {
					continue
				}
				score.Matched++
				switch d {
				case claims.Pass:
					score.DefaultsPass++
					if c.Verdict == claims.Fail {
						score.Broken++
					}
				case claims.Fail:
					score.DefaultsFail++
				default:
					score.DefaultsInc++
				}
				if d != claims.Pass && c.Verdict == claims.Pass {
					score.Rescued++
				}
			}
		}
		for _, c := range paperClaims {
			if c.Status == ScoreFailExplained && c.reading == x.Name {
				score.Explained++
			}
		}
		out = append(out, score)
	}
	return out
}

// calibrationScore gathers a calibration's fitted claims and its held-out
// check from the suite's sweeps.
func calibrationScore(r *Report, cal *decl.Calibration, all []*Report) CalibrationScore {
	cs := CalibrationScore{Sweep: r.Sweep, Param: cal.Param, Why: cal.Why, NoHeldOut: cal.NoHeldOut}
	for _, c := range r.Claims {
		if cal.Covers(c.ID) {
			cs.Fitted = append(cs.Fitted, ScoreClaim{Sweep: r.Sweep, ID: c.ID, Verdict: c.Verdict, Status: ScoreCalibration, By: cal.Param})
		}
	}
	for _, ref := range cal.CheckedOn {
		name, pattern, _ := strings.Cut(ref, "/")
		found := false
		for _, x := range all {
			if x.Sweep != name {
				continue
			}
			for _, c := range x.Claims {
				if ok, _ := path.Match(pattern, c.ID); !ok {
					continue
				}
				found = true
				sc := ScoreClaim{Sweep: x.Sweep, ID: c.ID, Verdict: c.Verdict, Status: string(c.Verdict)}
				if other := x.calibration(c.ID); other != nil {
					sc.Status, sc.By = ScoreCalibration, other.Param
					sc.Note = "itself calibration: it cannot check " + cal.Param
				}
				cs.HeldOut = append(cs.HeldOut, sc)
			}
		}
		if !found {
			cs.Missing = append(cs.Missing, ref)
		}
	}
	return cs
}

// checkedHere counts the register's entries that reference a claim of the list.
func checkedHere(reg *decl.Register, claims []ScoreClaim) int {
	n := 0
	for _, e := range reg.Entries {
	refs:
		for _, ref := range e.Refs {
			name, pattern, _ := strings.Cut(ref, "/")
			for _, c := range claims {
				if ok, _ := path.Match(pattern, c.ID); ok && c.Sweep == name {
					n++
					break refs
				}
			}
		}
	}
	return n
}

// explained checks an explanation against the suite's sweeps: it returns
// "sweep/claim" when the named claim ran and passed, else a note saying
// why the failure stays unexplained. ran is false, and note empty, when
// the named file's sweep is not in the suite (by is then
// "paper/file:claim"; explainFailure says what it would explain).
func explained(e *decl.Explanation, r *Report, byFile map[string][]*Report) (by, note string, ran bool) {
	file := filepath.Clean(filepath.Join(filepath.Dir(r.SweepPath), e.Sweep))
	by = filepath.ToSlash(filepath.Join(paperOf(r), e.Sweep)) + ":" + e.Claim
	reps := byFile[file]
	if len(reps) == 0 {
		return by, "", false
	}
	for _, x := range reps {
		for _, c := range x.Claims {
			if c.ID != e.Claim {
				continue
			}
			if x.calibration(c.ID) != nil {
				return by, "explained_by " + by + " is itself calibration (a value chosen so that it passes)", true
			}
			if c.Verdict == claims.Pass {
				return x.Sweep + "/" + c.ID, "", true
			}
			return by, fmt.Sprintf("explained_by %s ran but its claim is %s", by, c.Verdict), true
		}
	}
	return by, "explained_by " + by + ": no such claim in that file", true
}

// calibration returns the calibration of the sweep that names the claim.
func (r *Report) calibration(id string) *decl.Calibration {
	for _, c := range r.Calibrations {
		if c.Covers(id) {
			return c
		}
	}
	return nil
}

// registerCounts reads a paper's claim register and returns it (nil when
// it cannot be read; RegisterError says why).
func (ps *PaperScore) registerCounts(file string) *decl.Register {
	f, err := os.Open(file)
	if err != nil {
		ps.RegisterError = "no register: " + filepath.Base(file) + " not found beside the sweep files"
		return nil
	}
	defer f.Close()
	reg, err := decl.FolderKind(filepath.Dir(file)).Parse(f, filepath.Base(file))
	if err != nil {
		ps.RegisterError = strings.SplitN(err.Error(), "\n", 2)[0]
		return nil
	}
	ps.Statements = len(reg.Entries)
	for _, e := range reg.Entries {
		if len(e.Refs) > 0 {
			ps.Encoded++
		} else {
			ps.Uncheckable++
		}
	}
	return reg
}

// JSON renders the scoreboard, indented, with a final newline.
func (sb *Scoreboard) JSON() ([]byte, error) {
	b, err := json.MarshalIndent(sb, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// markdown writes the scoreboard as the suite report's first section.
func (sb *Scoreboard) markdown(b *bytes.Buffer) {
	b.WriteString("## Scoreboard\n\n")
	fmt.Fprintf(b, "Per paper (the sweeps of one config folder). Statements: entries of the folder's CLAIMS.md, encoded (checked by claims) / cannot be checked, and those a claim of this run checks. Claims: pass / pass, loose (a claim declared `loose:` checks less than its sentence; never counted as a pass) / fail explained (the same statement passes under one of the paper's at most three declared readings, `readings.yaml`, in a sensitivity sweep of this run) / fail shown why not (a claim of a sensitivity sweep of this run passed that shows why the statement cannot hold in the model; still a failure) / fail unexplained / inconclusive / calibration (claims a declared `calibrated:` value, or a reading declared after its result was seen, was chosen to reproduce; not reproductions) / sensitivity (claims of sweeps declared `sensitivity:`, an alternative reading; neither reproductions nor failures). Published cells within the rule: numbers the paper prints, ours (the mean) within %s; calibration and sensitivity cells left out. Invariants: claims declared `invariant:` (a theorem's bound or a model constraint, not a printed result) that hold / were checked.\n\n", sb.Tolerance)
	b.WriteString("| paper | statements | encoded / cannot check | checked in this run | claims | pass | pass, loose | fail, explained | fail, shown why not | fail, unexplained | inconclusive | calibration | sensitivity | published cells within the rule | invariants held |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, p := range sb.Papers {
		st := fmt.Sprint(p.Statements)
		if p.RegisterError != "" {
			st = mdEscape(p.RegisterError)
		}
		cells := "–"
		if p.Cells > 0 {
			cells = fmt.Sprintf("%d / %d", p.CellsWithin, p.Cells)
		}
		if p.CalibrationCells > 0 {
			cells += fmt.Sprintf(" (+%d calibration)", p.CalibrationCells)
		}
		inv := "–"
		if p.Invariants > 0 {
			inv = fmt.Sprintf("%d / %d", p.InvariantsHeld, p.Invariants)
		}
		fmt.Fprintf(b, "| %s | %s | %d / %d | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d | %s | %s |\n", p.Paper, st, p.Encoded, p.Uncheckable, p.CheckedHere, p.Claims, p.Pass, p.PassLoose, p.FailExplained, p.FailShown, p.FailUnexpl, p.Inconclusive, p.Calibration, p.Sensitivity, cells, inv)
	}
	for _, p := range sb.Papers {
		if p.ReadingsError != "" {
			fmt.Fprintf(b, "\n%s: readings file not read: %s\n", p.Paper, mdEscape(p.ReadingsError))
		}
		if len(p.Readings) == 0 {
			continue
		}
		fmt.Fprintf(b, "\nReadings of %s as whole models (each over every claim of its sweeps, beside the default sweeps' verdicts on the same claim ids):\n\n", p.Paper)
		b.WriteString("| reading | declared | explains | its claims: pass / fail / inconclusive | matched with the defaults | defaults: pass / fail / inconclusive | defaults pass, reading fails | defaults do not pass, reading passes | failures it explains |\n|---|---|---|---|---|---|---|---|---|\n")
		for _, x := range p.Readings {
			own := "did not run"
			if x.Ran {
				own = fmt.Sprintf("%d / %d / %d", x.Pass, x.Fail, x.Inconclusive)
			}
			expl := "no"
			if x.Explains {
				expl = "yes"
			}
			fmt.Fprintf(b, "| %s | %s | %s | %s | %d | %d / %d / %d | %d | %d | %d |\n", x.Name, x.Declared, expl, own, x.Matched, x.DefaultsPass, x.DefaultsFail, x.DefaultsInc, x.Broken, x.Rescued, x.Explained)
		}
	}
	var notes []string
	for _, p := range sb.Papers {
		for _, c := range p.ClaimList {
			switch {
			case c.Status == ScoreFailExplained:
				notes = append(notes, fmt.Sprintf("- %s/%s: fail, explained by %s", c.Sweep, c.ID, c.By))
			case c.Status == ScoreFailShown:
				notes = append(notes, fmt.Sprintf("- %s/%s: fail, shown why not by %s", c.Sweep, c.ID, c.By))
			case c.Status == ScoreCalibration:
				notes = append(notes, fmt.Sprintf("- %s/%s: calibration (%s), verdict %s", c.Sweep, c.ID, c.By, c.Verdict))
			case c.Status == ScorePassLoose:
				notes = append(notes, fmt.Sprintf("- %s/%s: pass, loose (%s)", c.Sweep, c.ID, mdEscape(c.Note)))
			case c.Status == ScoreInvariant && c.Verdict != claims.Pass:
				notes = append(notes, fmt.Sprintf("- %s/%s: invariant %s (%s)", c.Sweep, c.ID, c.Verdict, mdEscape(c.By)))
			case c.Status == ScoreFailUnexpl && c.Note != "":
				notes = append(notes, fmt.Sprintf("- %s/%s: fail, unexplained (%s)", c.Sweep, c.ID, c.Note))
			case c.Status == ScoreInconclusive:
				notes = append(notes, fmt.Sprintf("- %s/%s: inconclusive — %s", c.Sweep, c.ID, mdEscape(c.numbers)))
			}
		}
	}
	if len(notes) > 0 {
		b.WriteString("\n" + strings.Join(slices.Compact(notes), "\n") + "\n")
	}
	var cals []string
	for _, p := range sb.Papers {
		for _, c := range p.Calibrations {
			fp, ff, fi := tally(c.Fitted)
			line := fmt.Sprintf("- %s `%s` (sweep %s): fitted on %d claim(s) (%d pass, %d fail, %d inconclusive); ", p.Paper, c.Param, c.Sweep, len(c.Fitted), fp, ff, fi)
			var counted []ScoreClaim
			for _, h := range c.HeldOut {
				if h.Status != ScoreCalibration {
					counted = append(counted, h)
				}
			}
			switch {
			case len(counted) == 0 && c.NoHeldOut != "":
				line += "no held-out check: " + mdEscape(c.NoHeldOut)
			case len(counted) == 0:
				line += "no held-out check"
			default:
				hp, hf, hi := tally(counted)
				line += fmt.Sprintf("held-out check on %d claim(s): %d pass, %d fail, %d inconclusive", len(counted), hp, hf, hi)
			}
			if len(c.Missing) > 0 {
				line += fmt.Sprintf(" (%d checked_on reference(s) did not run: %s)", len(c.Missing), mdEscape(strings.Join(c.Missing, ", ")))
			}
			cals = append(cals, line)
		}
	}
	if len(cals) > 0 {
		b.WriteString("\nCalibrations: each value was chosen on the claims it was fitted on (counted as calibration above); its held-out check is claims that ran with it but did not choose it (counted above as pass or fail).\n\n" + strings.Join(cals, "\n") + "\n")
	}
	b.WriteString("\n")
}
