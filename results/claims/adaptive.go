package claims

import (
	"schedfarm/results"
	"schedfarm/results/decl"
	"schedfarm/simcore"
)

// Adaptive replicates.
//
// A sweep with replicates: {min, max} runs min replicates per point; after
// each complete round the coordinator evaluates the sweep's claims and
// adds replicates to the points that undecided claims read (RoundPoints),
// until every claim is decided or the points reach max. The claims of such
// a sweep are decided on anytime-valid confidence sequences
// (Claim.Anytime), so stopping when they are decided does not inflate
// their error rate, and the decision depends only on complete rounds, so
// the jobs a run ends with do not depend on the order jobs ran in.

// drivesRounds reports whether more replicates can decide the claim: it
// is decided point by point on intervals over replicates.
func drivesRounds(c *decl.Claim) bool {
	if c == nil || !c.Anytime || c.Spread != "" {
		return false // a spread is one value over every point: no point to add replicates to
	}
	return c.Kind != decl.ClaimCompare || (c.Over != decl.OverMean && !c.PerInstance)
}

// groupExcludes returns the parameters a claim's points (or groups) do
// not tell apart: the point keys of its PointResults are the other
// parameters' values (claimFrame.key).
func (cf *claimFrame) groupExcludes(c *decl.Claim) []string {
	switch c.Kind {
	case decl.ClaimCompare:
		return append([]string{c.Series}, c.SideCols()...)
	case decl.ClaimMonotone:
		return append(cf.tiedTo(c.In), c.In)
	case decl.ClaimArgBest:
		return append(cf.tiedTo(c.In), c.In, c.Of)
	case decl.ClaimConverge:
		return []string{c.As, c.Series}
	}
	return nil
}

// RoundPoints returns the job IDs (column job_id of jobs, jobs.parquet's
// frame) of the jobs whose points the undecided claims of res read: at
// each undecided point (or group) of an inconclusive claim that more
// replicates can decide (Claim.Anytime, point by point), the rows its
// filter keeps, restricted to the compared series for a compare claim.
// res is Evaluate over sum and jobs. The IDs come in jobs' row
// order, each once.
func RoundPoints(sum, jobs *results.Frame, schema *simcore.Schema, res []Result) []string {
	if jobs == nil || jobs.Len() == 0 {
		return nil
	}
	ji := jobs.Index(results.ColJobID)
	if ji < 0 {
		return nil
	}
	sf := newClaimFrame(sum, schema)
	jf := newClaimFrame(jobs, schema)
	need := make([]bool, jobs.Len())
	for _, r := range res {
		c := r.Claim
		if r.Verdict != Inconclusive || !drivesRounds(c) {
			continue
		}
		undecided := map[string]bool{}
		for _, p := range r.Points {
			if p.Verdict != Pass && p.Verdict != Fail {
				undecided[p.Point] = true
			}
		}
		excl := sf.groupExcludes(c)
		si := jobs.Index(c.Series)
		for _, row := range c.Where.Rows(jobs) {
			if c.Kind == decl.ClaimCompare {
				if si < 0 {
					continue
				}
				if side(c, jobs, si, row) == sideNone {
					continue
				}
			}
			if undecided[jf.key(row, excl...)] {
				need[row] = true
			}
		}
	}
	var out []string
	seen := map[string]bool{}
	for row, ok := range need {
		if !ok {
			continue
		}
		id := jobs.CellLabel(ji, row)
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}
