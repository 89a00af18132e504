package claims

// Verdict is the outcome of a claim.
type Verdict string

// Verdicts.
const (
	Pass         Verdict = "pass"
	Fail         Verdict = "fail"
	Inconclusive Verdict = "inconclusive"
)

func count(ps []PointResult) (pass, fail, inc int) {
	return CountVerdicts(ps, func(p PointResult) Verdict { return p.Verdict })
}

// CountVerdicts counts the pass, fail and other verdicts of xs.
func CountVerdicts[T any](xs []T, verdict func(T) Verdict) (pass, fail, inc int) {
	for _, x := range xs {
		switch verdict(x) {
		case Pass:
			pass++
		case Fail:
			fail++
		default:
			inc++
		}
	}
	return
}

// aggregate: all pass → pass, any fail → fail, otherwise inconclusive.
func aggregate(pass, fail, inc int) Verdict {
	switch {
	case fail > 0:
		return Fail
	case inc == 0 && pass > 0:
		return Pass
	}
	return Inconclusive
}

// worse returns the worse of two verdicts: fail, then inconclusive, then pass.
func worse(a, b Verdict) Verdict {
	switch {
	case a == Fail || b == Fail:
		return Fail
	case a == Inconclusive || b == Inconclusive:
		return Inconclusive
	}
	return Pass
}
