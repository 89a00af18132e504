package decl

import (
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"schedfarm/simcore"
	"schedfarm/sweep"
)

// Calibration is one entry of a sweep's calibrated: mapping: a parameter
// whose value was chosen because it reproduces some of the sweep's claims.
// Those claims are calibration, not reproductions: the scoreboard counts
// them apart whatever their verdict.
//
//	calibrated:
//	  hcpa_max_inflation:
//	    against: [max-stretch-selfish-median, makespan-cafm-cra-*]
//	    why: "3 was chosen because it reproduces the quoted quartiles"
//
// against lists claim ids of the same sweep (a * is a glob; each must match
// a claim); why says how the value was chosen. checked_on, optional, lists
// held-out claims, "sweep-name/claim-id" (a glob too) of any sweep of the
// suite, that run with the calibrated value but were not used to choose
// it: they count as reproductions (or failures), and the scoreboard reports
// them beside the calibration as its out-of-sample check.
//
//	checked_on: [casanova2010-paper/utilisation-*]
type Calibration struct {
	Param     string
	Against   []string
	CheckedOn []string
	Why       string
	// NoHeldOut (no_held_out:), instead of CheckedOn, says why no held-out
	// claim can check the value: every calibration names its held-out
	// check or says why there is none.
	NoHeldOut string
	// Line locates the parameter's key in the sweep file.
	Line int
}

// Covers reports whether the calibration names the claim id.
func (c *Calibration) Covers(id string) bool {
	for _, pat := range c.Against {
		if ok, _ := path.Match(pat, id); ok {
			return true
		}
	}
	return false
}

// Explanation is a failing claim's explained_by: a sensitivity sweep file
// (Sweep, relative to the declaring file's folder) and a claim Claim it
// declares, with exactly one of two kinds of evidence:
//
//   - Reading: the same statement passes there under the stated
//     alternative reading of the paper (the scoreboard's "fail, explained");
//   - WhyNot: the claim there passes and shows why the paper's statement
//     cannot hold in the model under the readings the paper allows (a
//     measured bound or mechanism; the scoreboard's "fail, shown why not",
//     still a failure).
//
// The scoreboard counts the failure as explained (or shown) only when a
// sweep of that file ran in the same suite run and that claim passed.
type Explanation struct {
	Sweep, Claim string
	// Reading is the alternative reading under which Claim reproduces the
	// statement; empty when WhyNot is given.
	Reading string
	// WhyNot says what Claim shows about why the statement cannot hold;
	// empty when Reading is given.
	WhyNot string
}

var explanationKeys = []string{"sweep", "claim", "reading", "why_not"}

// explanation parses a claim's explained_by mapping.
func (p *declParser) explanation(n *yaml.Node, key string) *Explanation {
	m, ok := p.Fields(n, key, explanationKeys)
	if !ok {
		return nil
	}
	e := &Explanation{}
	before := len(p.Errs)
	_, hasReading := m["reading"]
	_, hasWhyNot := m["why_not"]
	switch {
	case hasReading && hasWhyNot:
		p.Errf(sweep.Resolve(n), key, "reading: the same statement passes under another reading; why_not: another claim shows why it cannot hold", "give either reading or why_not, not both")
	case !hasReading && !hasWhyNot:
		p.Errf(sweep.Resolve(n), key, "reading: the same statement passes under another reading; why_not: another claim shows why it cannot hold", `missing required key "reading" (or "why_not")`)
	}
	for _, k := range explanationKeys {
		v, ok := m[k]
		if !ok {
			if k == "sweep" || k == "claim" {
				p.Errf(sweep.Resolve(n), key, "", "missing required key %q", k)
			}
			continue
		}
		s, ok := p.Text(v.V, sweep.Join(key, k))
		if !ok {
			continue
		}
		if strings.TrimSpace(s) == "" {
			p.Errf(sweep.Resolve(v.V), sweep.Join(key, k), "", "%s must not be empty", k)
		}
		switch k {
		case "sweep":
			e.Sweep = s
			if !filepath.IsLocal(s) || !strings.HasSuffix(s, ".yaml") || strings.Contains(s, `\`) {
				p.Errf(sweep.Resolve(v.V), sweep.Join(key, k), "name a sweep file of the same folder, e.g. fig3-rtgrid.yaml", "%q is not a relative .yaml path inside the folder", s)
			}
		case "claim":
			e.Claim = s
			if s != "" && !idRE.MatchString(s) {
				p.Errf(sweep.Resolve(v.V), sweep.Join(key, k), "", "bad claim id %q", s)
			}
		case "reading":
			e.Reading = s
		case "why_not":
			e.WhyNot = s
		}
	}
	if len(p.Errs) > before {
		return nil
	}
	return e
}

// sensitivity parses a sweep's sensitivity: the alternative reading (or
// setting) of the paper the sweep runs, in words.
func (p *declParser) sensitivity(n *yaml.Node, key string) string {
	s, ok := p.Text(n, key)
	if ok && strings.TrimSpace(s) == "" {
		p.Errf(sweep.Resolve(n), key, "say which reading of the paper the sweep runs", "sensitivity must not be empty")
	}
	return s
}

var calibrationKeys = []string{"against", "checked_on", "no_held_out", "why"}

// calibrations parses a sweep's calibrated: mapping, parameter name →
// {against, why}, against the sweep's claims.
func (p *declParser) calibrations(n *yaml.Node, key string, claims []*Claim) []*Calibration {
	n = sweep.Resolve(n)
	if n == nil || n.Kind != yaml.MappingNode {
		p.Errf(n, key, "", "want a mapping of parameter names to {against, why}, got %s", sweep.Describe(n))
		return nil
	}
	var params []string
	for _, pr := range p.schema.Params {
		params = append(params, pr.Name)
	}
	pairs, _ := p.Mapping(n, key, nil, nil)
	var out []*Calibration
	for _, e := range pairs {
		k, v := e.K, e.V
		if strings.HasPrefix(k.Value, "x-") {
			continue
		}
		pk := sweep.Join(key, k.Value)
		if _, ok := p.schema.Param(k.Value); !ok {
			p.Errf(k, pk, didYouMeanOr(k.Value, params), "%q is not a parameter of the model", k.Value)
			continue
		}
		m, ok := p.Fields(v, pk, calibrationKeys)
		if !ok {
			continue
		}
		c := &Calibration{Param: k.Value, Line: k.Line}
		before := len(p.Errs)
		if e, ok := m["why"]; !ok {
			p.Errf(sweep.Resolve(v), pk, "say how the value was chosen", "missing required key \"why\"")
		} else if c.Why, ok = p.Text(e.V, sweep.Join(pk, "why")); ok && strings.TrimSpace(c.Why) == "" {
			p.Errf(sweep.Resolve(e.V), sweep.Join(pk, "why"), "say how the value was chosen", "why must not be empty")
		}
		if e, ok := m["against"]; !ok {
			p.Errf(sweep.Resolve(v), pk, "list the claim ids the value was chosen to reproduce", "missing required key \"against\"")
		} else if items, ok := p.Sequence(e.V, sweep.Join(pk, "against")); ok {
			if len(items) == 0 {
				p.Errf(sweep.Resolve(e.V), sweep.Join(pk, "against"), "list the claim ids the value was chosen to reproduce", "against is empty")
			}
			var ids []string
			for _, c := range claims {
				ids = append(ids, c.ID)
			}
			for j, it := range items {
				s, ok := p.Text(it, sweep.Index(sweep.Join(pk, "against"), j))
				if !ok {
					continue
				}
				if _, err := path.Match(s, ""); err != nil {
					p.Errf(it, sweep.Index(sweep.Join(pk, "against"), j), "", "bad pattern %q: %v", s, err)
					continue
				}
				n := 0
				for _, id := range ids {
					if ok, _ := path.Match(s, id); ok {
						n++
					}
				}
				if n == 0 {
					p.Errf(it, sweep.Index(sweep.Join(pk, "against"), j), didYouMeanOr(s, ids), "%q matches no claim of the sweep", s)
					continue
				}
				c.Against = append(c.Against, s)
			}
		}
		e1, hasChecked := m["checked_on"]
		e2, hasNone := m["no_held_out"]
		switch {
		case hasChecked && hasNone:
			p.Errf(sweep.Resolve(e2.V), sweep.Join(pk, "no_held_out"), "keep checked_on (the held-out claims) or no_held_out (why there are none), not both", "both checked_on and no_held_out")
		case !hasChecked && !hasNone:
			p.Errf(sweep.Resolve(v), pk, "list the held-out claims that ran with the value but did not choose it as checked_on:, or say why none exists as no_held_out:", "a calibration needs checked_on or no_held_out")
		case hasChecked:
			c.CheckedOn = p.heldOut(e1.V, sweep.Join(pk, "checked_on"), c)
		default:
			if c.NoHeldOut, _ = p.Text(e2.V, sweep.Join(pk, "no_held_out")); strings.TrimSpace(c.NoHeldOut) == "" {
				p.Errf(sweep.Resolve(e2.V), sweep.Join(pk, "no_held_out"), "say why no held-out claim can check the value", "no_held_out must not be empty")
			}
		}
		if len(p.Errs) == before {
			out = append(out, c)
		}
	}
	return out
}

// heldOut parses a calibration's checked_on: references "sweep/claim"; a
// reference to the sweep's own claims must not name one it was fitted on.
func (p *declParser) heldOut(n *yaml.Node, key string, c *Calibration) []string {
	items, ok := p.Sequence(n, key)
	if !ok {
		return nil
	}
	if len(items) == 0 {
		p.Errf(sweep.Resolve(n), key, "list the held-out claims, or leave checked_on out", "checked_on is empty")
	}
	var out []string
	for j, it := range items {
		k := sweep.Index(key, j)
		s, ok := p.Text(it, k)
		if !ok {
			continue
		}
		m := heldOutRE.FindStringSubmatch(s)
		if m == nil {
			p.Errf(sweep.Resolve(it), k, "e.g. casanova2010-paper/utilisation-*", "%q is not sweep-name/claim-id", s)
			continue
		}
		if _, err := path.Match(m[2], ""); err != nil {
			p.Errf(sweep.Resolve(it), k, "", "bad pattern %q: %v", m[2], err)
			continue
		}
		if m[1] == p.key {
			for _, a := range c.Against {
				if a == m[2] {
					p.Errf(sweep.Resolve(it), k, "a claim the value was chosen on cannot also check it", "%q is in against too", m[2])
				}
			}
		}
		out = append(out, s)
	}
	return out
}

// readingProblem checks an explained_by's reading against the folder's
// declared readings: it must name one with explains: true (declared
// before its result was seen) whose sweeps include the explanation's.
func readingProblem(e *Explanation, rs *Readings, err error) (msg, hint string) {
	switch r := rs.Find(e.Reading); {
	case err != nil:
		return fmt.Sprintf("the folder's %s does not load: %s", ReadingsFile, firstLine(err)), ""
	case rs == nil:
		return fmt.Sprintf("reading %q is not declared: the folder has no %s", e.Reading, ReadingsFile),
			"declare the reading once in " + ReadingsFile + " (name, params, quote, source, declared, explains, sweeps) and name it here"
	case r == nil:
		return fmt.Sprintf("reading %q is not declared in %s", e.Reading, ReadingsFile), didYouMeanOr(e.Reading, rs.Names())
	case !r.Explains:
		why := "it is not one of the paper's (at most three) explaining readings"
		if r.Declared == DeclaredAfter {
			why = "it was declared after the result it explains was seen: a calibration"
		}
		return fmt.Sprintf("reading %q cannot explain a failure: %s", e.Reading, why), "drop explained_by (the failure is unexplained), or name an explaining reading"
	case !slices.Contains(r.Sweeps, e.Sweep):
		return fmt.Sprintf("reading %q does not run in %s (its sweeps: %s)", e.Reading, e.Sweep, strings.Join(r.Sweeps, ", ")), "name one of the reading's sweeps, or add the file to its sweeps"
	}
	return "", ""
}

var heldOutRE = regexp.MustCompile(`^([a-z0-9_-]+)/([A-Za-z0-9_.*-]+)$`)

// Calibrated returns the calibration that names the claim id, or nil.
func (d *Decls) Calibrated(id string) *Calibration {
	for _, c := range d.Calibrations {
		if c.Covers(id) {
			return c
		}
	}
	return nil
}

// CheckExplanations checks that every explained_by of the file's sweeps
// names a sweep file that loads (relative to the declaring file's folder)
// and that declares the named claim, in a sensitivity sweep for a why_not
// (evidence of why a statement cannot hold is no statement of the paper,
// so it must not count as a reproduction). The error is a sweep.ErrorList, each
// at the claim's declaration. Declarations with errors of their own are
// left to ValidateFile.
func CheckExplanations(f *sweep.File, models *simcore.Registry) error {
	var errs sweep.ErrorList
	loaded := map[string][]string{} // file → the claim ids its own sweeps declare
	sens := map[string]bool{}       // file + "\x00" + claim id → declared by a sensitivity sweep
	loadErr := map[string]error{}
	readings := map[string]*Readings{} // folder → its readings file
	readingsErr := map[string]error{}
	for _, s := range f.Sweeps {
		d, err := Parse(s)
		if err != nil {
			continue
		}
		for _, c := range d.Claims {
			e := c.ExplainedBy
			if e == nil {
				continue
			}
			target := filepath.Clean(filepath.Join(filepath.Dir(c.File), e.Sweep))
			ids, seen := loaded[target]
			if !seen && loadErr[target] == nil {
				g, err := sweep.Load(target, models)
				if err != nil {
					loadErr[target] = err
				} else {
					for _, s2 := range g.Sweeps {
						if filepath.Clean(s2.File) != target {
							continue
						}
						d2, err := Parse(s2)
						if err != nil {
							loadErr[target] = err
							break
						}
						for _, c2 := range d2.Claims {
							ids = append(ids, c2.ID)
							sens[target+"\x00"+c2.ID] = d2.Sensitivity != ""
						}
					}
					if loadErr[target] == nil {
						loaded[target] = ids
					}
				}
			}
			key := sweep.Join(sweep.Join(s.Name, "claims"), c.ID) + ".explained_by"
			switch {
			case loadErr[target] != nil:
				errs = append(errs, &sweep.Error{File: c.File, Line: c.Line, Col: c.Col, Key: key,
					Msg: fmt.Sprintf("sweep file %s does not load: %s", e.Sweep, strings.SplitN(loadErr[target].Error(), "\n", 2)[0]), Hint: "name a sweep file of the claim's folder"})
			case !slices.Contains(ids, e.Claim):
				errs = append(errs, &sweep.Error{File: c.File, Line: c.Line, Col: c.Col, Key: key,
					Msg: fmt.Sprintf("%s declares no claim %q", e.Sweep, e.Claim), Hint: sweep.DidYouMean(e.Claim, ids)})
			case e.WhyNot != "" && !sens[target+"\x00"+e.Claim]:
				errs = append(errs, &sweep.Error{File: c.File, Line: c.Line, Col: c.Col, Key: key,
					Msg: fmt.Sprintf("why_not claim %q of %s is not in a sensitivity sweep", e.Claim, e.Sweep), Hint: `give that sweep a sensitivity: "what it runs and shows", so its claims are not counted as reproductions`})
			case e.Reading != "":
				dir := filepath.Dir(c.File)
				rs, seen := readings[dir]
				if !seen && readingsErr[dir] == nil {
					rs, readingsErr[dir] = FolderReadings(dir)
					readings[dir] = rs
				}
				if msg, hint := readingProblem(e, rs, readingsErr[dir]); msg != "" {
					errs = append(errs, &sweep.Error{File: c.File, Line: c.Line, Col: c.Col, Key: key + ".reading", Msg: msg, Hint: hint})
				}
			}
		}
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}
