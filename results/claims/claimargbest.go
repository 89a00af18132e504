package claims

import (
	"fmt"
	"slices"
	"strings"

	"schedfarm/results"
	"schedfarm/results/decl"
)

// argBest decides "the best value of Of moves with In" (e.g. "the optimal ρ
// grows with the load"). In each group of points (every other parameter
// fixed, but those zipped with In) and at each value of In, the best value of Of is the one whose
// metric mean is lowest (goal min) or highest (goal max); the values whose
// CI overlaps the best one's are the plausible bests (the data cannot tell
// them from the best). Values of Of are ordered like an axis (numerically
// when they are numbers).
//
// A group fails when no choice of one plausible best per value of In moves
// the claimed way (not even the CIs allow the claim); it passes when the
// best values themselves never move the other way and the plausible bests
// at the first and last value of In are separated the claimed way (every
// plausible best at the last is beyond every one at the first); otherwise
// it is inconclusive.
func (cf *claimFrame) argBest(c *decl.Claim) Result {
	var r Result
	keys, groups := cf.groups(c, append(cf.tiedTo(c.In), c.In, c.Of)...)
	ii, oi := cf.f.Index(c.In), cf.f.Index(c.Of)
	better := func(a, b est) bool { // a's mean strictly better than b's
		if c.Goal == "max" {
			return a.m > b.m
		}
		return a.m < b.m
	}
	overlaps := func(v, best est) bool {
		if c.Goal == "max" {
			return v.m+v.ci >= best.m-best.ci
		}
		return v.m-v.ci <= best.m+best.ci
	}
	for _, k := range keys {
		rows := groups[k]
		// the values of Of in axis order: their ranks
		var ofs []string
		for _, row := range rows {
			if l := cf.f.CellLabel(oi, row); !slices.Contains(ofs, l) {
				ofs = append(ofs, l)
			}
		}
		slices.SortFunc(ofs, results.CompareLabels)
		rank := func(l string) int { return slices.Index(ofs, l) }
		// per value of In: every (rank of Of, estimate)
		type cand struct {
			rank int
			e    est
		}
		var ins []string
		byIn := map[string][]cand{}
		for _, row := range rows {
			v := cf.valueFor(c, row)
			if !v.ok {
				continue
			}
			in := cf.f.CellLabel(ii, row)
			if _, seen := byIn[in]; !seen {
				ins = append(ins, in)
			}
			byIn[in] = append(byIn[in], cand{rank(cf.f.CellLabel(oi, row)), v})
		}
		slices.SortFunc(ins, results.CompareLabels)
		type step struct {
			in        string
			best      int
			plausible []int // ranks, ascending
		}
		var steps []step
		for _, in := range ins {
			cs := byIn[in]
			if len(cs) < 2 {
				continue // one value of Of: nothing to choose from
			}
			b := 0
			for i := 1; i < len(cs); i++ {
				if better(cs[i].e, cs[b].e) || cs[i].e.m == cs[b].e.m && cs[i].rank < cs[b].rank {
					b = i
				}
			}
			var pl []int
			for _, x := range cs {
				if overlaps(x.e, cs[b].e) {
					pl = append(pl, x.rank)
				}
			}
			slices.Sort(pl)
			steps = append(steps, step{in, cs[b].rank, pl})
		}
		if len(steps) < 2 {
			r.Points = append(r.Points, PointResult{k, Inconclusive, fmt.Sprintf("%d value(s) of %s with at least two values of %s", len(steps), c.In, c.Of)})
			continue
		}
		// Walk in the claimed direction on ranks: flip them for decreasing.
		dir := 1
		if c.Direction == "decreasing" {
			dir = -1
		}
		// feasible: a plausible best per step, never moving the wrong way
		// (greedy: the least advanced choice that keeps the order).
		feasible, at := true, -1<<31
		for _, s := range steps {
			next, found := 0, false
			for _, x := range s.plausible {
				if y := dir * x; y >= at && (!found || y < next) {
					next, found = y, true
				}
			}
			if !found {
				feasible = false
				break
			}
			at = next
		}
		ordered := true
		for i := 1; i < len(steps); i++ {
			if dir*steps[i].best < dir*steps[i-1].best {
				ordered = false
			}
		}
		first, last := steps[0], steps[len(steps)-1]
		// plausible ranks are ascending: compare the ends' nearest members
		var separated bool
		if dir > 0 {
			separated = last.plausible[0] > first.plausible[len(first.plausible)-1]
		} else {
			separated = last.plausible[len(last.plausible)-1] < first.plausible[0]
		}
		v := Inconclusive
		switch {
		case !feasible:
			v = Fail
		case ordered && separated:
			v = Pass
		}
		var seq []string
		for _, s := range steps {
			seq = append(seq, fmt.Sprintf("%s (%s=%s)", ofs[s.best], c.In, s.in))
		}
		labels := func(pl []int) string {
			out := make([]string, len(pl))
			for i, x := range pl {
				out[i] = ofs[x]
			}
			return "{" + strings.Join(out, ", ") + "}"
		}
		d := fmt.Sprintf("best %s by %s %s: %s; plausible bests (CI overlaps the best) %s at %s=%s, %s at %s=%s",
			c.Of, c.Goal, c.Metric, strings.Join(seq, ", "), labels(first.plausible), c.In, first.in, labels(last.plausible), c.In, last.in)
		switch {
		case !feasible:
			d += "; no choice of plausible bests moves " + c.Direction + "ly"
		case !ordered:
			d += "; the best values do not move " + c.Direction + "ly everywhere"
		case !separated:
			d += "; the ends' plausible bests overlap"
		}
		r.Points = append(r.Points, PointResult{k, v, d})
	}
	pass, fail, inc := count(r.Points)
	r.Verdict = aggregate(pass, fail, inc)
	r.Numbers = fmt.Sprintf("best %s %s in %s: %d/%d groups pass, %d fail, %d inconclusive", c.Of, c.Direction, c.In, pass, len(r.Points), fail, inc)
	if p := firstWith(r.Points, r.Verdict); p != nil {
		r.Numbers += "; e.g. " + pointLabel(p.Point) + ": " + p.Detail
	}
	if len(r.Points) == 0 {
		r.Numbers = "no points"
	}
	return r
}
