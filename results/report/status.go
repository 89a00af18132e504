package report

import (
	"fmt"
	"strings"
	"unicode"

	"schedfarm/results/claims"
	"schedfarm/results/decl"
)

// Classify gives every claim of the reports of one run its scoreboard
// status, as BuildScoreboard gives it for the same reports (it is the
// same classification): each report's Statuses, parallel to its Claims,
// so that a sweep's own report and the suite scoreboard cannot disagree.
// A failure whose explained_by names a sweep file that is not among
// reports stays unexplained, with a note saying what would explain it.
// It returns the scoreboard of the reports.
func Classify(reports []*Report) *Scoreboard {
	statuses := map[*Report][]ScoreClaim{}
	sb := buildScoreboard(&Suite{Sweeps: reports}, statuses)
	for _, r := range reports {
		r.Statuses = statuses[r]
	}
	return sb
}

// classify gives claim c of report r its scoreboard status. after is the
// reading declared after its result was seen that r's file runs (nil if
// none); byFile the suite's reports by sweep file; rs and rerr the paper's
// readings and the error reading them.
func classify(c claims.Result, r *Report, after *decl.Reading, byFile map[string][]*Report, rs *decl.Readings, rerr error) ScoreClaim {
	sc := ScoreClaim{Sweep: r.Sweep, ID: c.ID, Verdict: c.Verdict, numbers: c.Numbers}
	cal := r.calibration(c.ID)
	loose := c.Claim != nil && c.Claim.Loose != ""
	switch {
	case cal != nil:
		sc.Status, sc.By = ScoreCalibration, cal.Param
	case after != nil:
		sc.Status, sc.By = ScoreCalibration, "reading "+after.Name+" (declared after its result was seen)"
	case r.Sensitivity != "":
		sc.Status = ScoreSensitivity
	case c.Claim != nil && c.Claim.Invariant != "":
		sc.Status, sc.By = ScoreInvariant, c.Claim.Invariant
	case c.Verdict == claims.Pass && loose:
		sc.Status, sc.Note = ScorePassLoose, c.Claim.Loose
	case c.Verdict == claims.Pass:
		sc.Status = ScorePass
	case c.Verdict == claims.Fail:
		sc.Status = ScoreFailUnexpl
		if c.Claim != nil && c.Claim.ExplainedBy != nil {
			explainFailure(&sc, c.Claim.ExplainedBy, r, byFile, rs, rerr)
		}
	default:
		sc.Status = ScoreInconclusive
	}
	return sc
}

// explainFailure classifies a failure whose claim declares explanation e:
// explained when e's reading is an explaining one that runs in e's sweep
// file and that file's claim ran in the suite and passed, shown why not
// when e is a why_not whose claim ran and passed, unexplained otherwise
// (with a note saying why, and awaits set when e's file is not in the
// suite but would count if its claim passed).
func explainFailure(sc *ScoreClaim, e *decl.Explanation, r *Report, byFile map[string][]*Report, rs *decl.Readings, rerr error) {
	by, note, ran := explained(e, r, byFile)
	if e.Reading != "" && note == "" {
		if rn := readingNote(e, rs, rerr); rn != "" {
			sc.Note = rn
			return
		}
	}
	switch {
	case !ran:
		sc.awaits, sc.reading = by, e.Reading
		switch {
		case e.WhyNot != "":
			sc.Note = fmt.Sprintf("shown why not if its sweep %s passes (claim %s); %s is not in this run", e.Sweep, e.Claim, e.Sweep)
		case e.Reading != "":
			sc.Note = fmt.Sprintf("explained by reading %s if its sweep %s passes (claim %s); %s is not in this run", e.Reading, e.Sweep, e.Claim, e.Sweep)
		default:
			sc.Note = fmt.Sprintf("explained if its sweep %s passes (claim %s); %s is not in this run", e.Sweep, e.Claim, e.Sweep)
		}
	case note != "":
		sc.Note = note
	case e.WhyNot != "":
		sc.Status, sc.By = ScoreFailShown, by
	default:
		sc.Status, sc.By, sc.reading = ScoreFailExplained, by, e.Reading
	}
}

// count adds a classified claim to the paper's columns.
func (ps *PaperScore) count(sc ScoreClaim) {
	ps.Claims++
	switch sc.Status {
	case ScoreCalibration:
		ps.Calibration++
	case ScoreSensitivity:
		ps.Sensitivity++
	case ScoreInvariant:
		ps.Invariants++
		if sc.Verdict == claims.Pass {
			ps.InvariantsHeld++
		}
	case ScorePassLoose:
		ps.PassLoose++
	case ScorePass:
		ps.Pass++
	case ScoreFailExplained:
		ps.FailExplained++
	case ScoreFailShown:
		ps.FailShown++
	case ScoreFailUnexpl:
		ps.FailUnexpl++
	default:
		ps.Inconclusive++
	}
}

// Reading is the declared reading that explains a fail-explained claim,
// or would explain an unexplained one that awaits a sweep not in the run.
func (sc ScoreClaim) Reading() string { return sc.reading }

// Awaits is, for an unexplained failure whose explained_by names a sweep
// file not in the run, that file's claim ("paper/file:claim"); "" otherwise.
func (sc ScoreClaim) Awaits() string { return sc.awaits }

// Phrase is the claim's status in words after its verdict, for one line
// of a terminal or a table: "" for a plain pass or inconclusive claim;
// "explained by reading rtgrid (lin2007-fig7-rtgrid/x passes)", "shown
// why not by …", "unexplained", "unexplained in this run: explained by
// reading … if its sweep … passes …; … is not in this run", "calibration
// (k)", "sensitivity", "invariant", "loose". It holds no text of the
// sweep file but names (of sweeps, claims, files, readings, parameters).
func (sc ScoreClaim) Phrase() string {
	switch sc.Status {
	case ScorePassLoose:
		return "loose (never counted as a pass)"
	case ScoreFailExplained:
		return fmt.Sprintf("explained by reading %s (%s passes)", sc.reading, sc.By)
	case ScoreFailShown:
		return "shown why not by " + sc.By
	case ScoreFailUnexpl:
		switch {
		case sc.awaits != "":
			return "unexplained in this run: " + sc.Note
		case sc.Note != "":
			return "unexplained: " + sc.Note
		}
		return "unexplained"
	case ScoreCalibration:
		return "calibration (" + sc.By + ")"
	case ScoreSensitivity:
		return "sensitivity (counted apart)"
	case ScoreInvariant:
		return "invariant (counted apart)"
	}
	return ""
}

// statusText is the claim's verdict and status phrase, with the free text
// of a loose or invariant declaration: a report's status cell.
func (sc ScoreClaim) statusText() string {
	t := string(sc.Verdict)
	if p := sc.Phrase(); p != "" {
		t += ", " + p
	}
	switch sc.Status {
	case ScorePassLoose:
		t += ": " + sc.Note
	case ScoreInvariant:
		t += ": " + sc.By
	}
	return t
}

// failureCounts says how the report's failed claims are counted on the
// scoreboard: "2 explained by a reading, 5 shown why not, 20 unexplained
// (3 of them explained if a sweep not in this run passes), 2
// calibration"; "" without failures.
func (r *Report) failureCounts() string {
	var expl, shown, unexpl, awaiting, cal, sens, inv int
	for _, sc := range r.Statuses {
		if sc.Verdict != claims.Fail {
			continue
		}
		switch sc.Status {
		case ScoreFailExplained:
			expl++
		case ScoreFailShown:
			shown++
		case ScoreFailUnexpl:
			unexpl++
			if sc.awaits != "" {
				awaiting++
			}
		case ScoreCalibration:
			cal++
		case ScoreSensitivity:
			sens++
		case ScoreInvariant:
			inv++
		}
	}
	var parts []string
	add := func(n int, what string) {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, what))
		}
	}
	add(expl, "explained by a reading")
	add(shown, "shown why not")
	if unexpl > 0 {
		u := fmt.Sprintf("%d unexplained", unexpl)
		if awaiting > 0 {
			u += fmt.Sprintf(" (%d of them explained or shown why not if a sweep not in this run passes)", awaiting)
		}
		parts = append(parts, u)
	}
	add(cal, "calibration")
	add(sens, "sensitivity")
	add(inv, "invariant")
	return strings.Join(parts, ", ")
}

// Pictographs returns the runes of s that a page may render as empty
// boxes without an emoji font, in order ("" when there are none):
// emoji and other pictographic symbols (Unicode category So from U+2190
// on, arrows excepted, and everything from U+1F000 on), variation
// selector 16 and the zero-width joiner. Reports hold none: a verdict is
// a word and a colour.
func Pictographs(s string) string {
	var out []rune
	for _, r := range s {
		arrow := r >= 0x2190 && r <= 0x21FF
		if r == 0xFE0F || r == 0x200D || r >= 0x1F000 || (r >= 0x2190 && !arrow && unicode.Is(unicode.So, r)) {
			out = append(out, r)
		}
	}
	return string(out)
}
