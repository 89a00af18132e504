package sweep

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"schedfarm/simcore"
)

// rangeTol is the relative tolerance with which a range's end point counts
// as reached despite floating-point drift (0.1 + 9*0.1 is not 1.0).
const rangeTol = 1e-9

// rangeSpec is a parsed range mapping.
type rangeSpec struct {
	from, to float64
	step     float64 // step mode when hasStep
	num      int     // num mode when hasNum
	factor   float64 // factor mode when hasFactor
	log      bool
	hasStep  bool
	hasNum   bool
	hasFac   bool
}

// rangeValues parses a range mapping and returns its points checked against
// the parameter: every point must satisfy the schema, and the first that
// does not is reported at the range.
func (p *parser) rangeValues(s *Sweep, slot int, n *yaml.Node, key string) ([]any, bool) {
	n = p.Resolve(n)
	before := len(p.Errs)
	pairs, ok := p.Mapping(n, key, rangeKeys, nil)
	if !ok || len(p.Errs) > before {
		// A misspelt key would also show up as a missing one; one
		// error is enough.
		return nil, false
	}
	get := map[string]Pair{}
	for _, kv := range pairs {
		get[kv.Name] = kv
	}
	var r rangeSpec
	good := true
	for _, req := range []string{"from", "to"} {
		kv, ok := get[req]
		if !ok {
			p.Errf(n, key, "", "missing required key %q", req)
			good = false
			continue
		}
		v, ok := p.Number(kv.V, Join(key, req))
		good = good && ok
		if req == "from" {
			r.from = v
		} else {
			r.to = v
		}
	}
	var modes []string
	for _, m := range []string{"step", "num", "factor"} {
		if _, ok := get[m]; ok {
			modes = append(modes, m)
		}
	}
	if len(modes) != 1 {
		msg := "range needs one of \"step\", \"num\" or \"factor\""
		if len(modes) > 1 {
			msg = fmt.Sprintf("range takes one of \"step\", \"num\" or \"factor\", got %s", strings.Join(modes, " and "))
		}
		p.Errf(n, key, "", "%s", msg)
		return nil, false
	}
	switch modes[0] {
	case "step":
		r.hasStep = true
		r.step, ok = p.Number(get["step"].V, Join(key, "step"))
		good = good && ok
	case "num":
		r.hasNum = true
		num, ok := p.Integer(get["num"].V, Join(key, "num"))
		if ok && (num < 1 || num > maxAxisPoints) {
			p.Errf(p.Resolve(get["num"].V), Join(key, "num"), "", "num must be between 1 and %d, got %d", maxAxisPoints, num)
			ok = false
		}
		r.num = int(num)
		good = good && ok
	case "factor":
		r.hasFac = true
		r.factor, ok = p.Number(get["factor"].V, Join(key, "factor"))
		good = good && ok
	}
	if kv, ok := get["scale"]; ok {
		sc, ok := p.Str(kv.V, Join(key, "scale"))
		switch {
		case !ok:
			good = false
		case !r.hasNum:
			p.Errf(kv.K, Join(key, "scale"), "", "\"scale\" goes with \"num\" only (\"step\" is linear, \"factor\" geometric)")
			good = false
		case sc == "log":
			r.log = true
		case sc == "linear":
		default:
			p.Errf(p.Resolve(kv.V), Join(key, "scale"), didYouMean(sc, []string{"linear", "log"}), "unknown scale %q (want linear or log)", sc)
			good = false
		}
	}
	if !good {
		return nil, false
	}
	prm := s.schema.Params[slot]
	if prm.Kind != simcore.Int && prm.Kind != simcore.Float {
		p.Errf(n, key, "list its values under \"values\"", "a range needs a numeric parameter; %q is %s", prm.Name, prm.Kind)
		return nil, false
	}
	xs, err := r.points()
	if err != nil {
		p.Errf(n, key, "", "%v", err)
		return nil, false
	}
	if !p.spend(len(xs), n, key) {
		return nil, false
	}
	out := make([]any, len(xs))
	for i, x := range xs {
		var raw any = x
		if prm.Kind == simcore.Int && r.hasNum {
			// num and log spacing rarely land on integers; an integer
			// parameter takes the nearest one.
			raw = math.Round(x)
		}
		v, err := prm.Check(raw)
		if err != nil {
			p.Errf(n, key, "", "parameter %q: range point %d: %v", prm.Name, i, err)
			return nil, false
		}
		out[i] = v
	}
	return out, true
}

// points computes a range's values.
func (r *rangeSpec) points() ([]float64, error) {
	switch {
	case r.hasStep:
		return r.stepPoints()
	case r.hasNum:
		return r.numPoints()
	default:
		return r.factorPoints()
	}
}

func (r *rangeSpec) describe() string {
	switch {
	case r.hasStep:
		return fmt.Sprintf("range from %s to %s by step %s", fmtF(r.from), fmtF(r.to), fmtF(r.step))
	case r.hasNum:
		return fmt.Sprintf("range from %s to %s in %d points", fmtF(r.from), fmtF(r.to), r.num)
	}
	return fmt.Sprintf("range from %s to %s by factor %s", fmtF(r.from), fmtF(r.to), fmtF(r.factor))
}

func fmtF(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// stepPoints computes from + i*step (never by accumulation, which drifts),
// rounded to the decimals of from and step, so 0.1..1.0 by 0.1 gives exactly
// 0.1, 0.2, ..., 1.0: ten values.
func (r *rangeSpec) stepPoints() ([]float64, error) {
	if r.step == 0 {
		return nil, fmt.Errorf("%s: step must not be 0", r.describe())
	}
	q := (r.to - r.from) / r.step
	k := math.Floor(q + rangeTol*math.Max(1, math.Abs(q)))
	if k < 0 || math.IsNaN(k) {
		return nil, fmt.Errorf("%s has no points (the step goes away from \"to\")", r.describe())
	}
	if k+1 > maxAxisPoints {
		return nil, fmt.Errorf("%s has %.0f points: at most %d per axis", r.describe(), k+1, maxAxisPoints)
	}
	n := int(k) + 1
	d := max(decimals(r.from), decimals(r.step))
	out := make([]float64, n)
	for i := range out {
		out[i] = roundDecimals(r.from+float64(i)*r.step, d)
	}
	if last := out[n-1]; math.Abs(last-r.to) <= rangeTol*math.Max(math.Abs(r.to), math.Abs(r.step)) {
		out[n-1] = r.to
	}
	return out, nil
}

// numPoints computes num evenly spaced points, linearly or geometrically,
// with both end points exact.
func (r *rangeSpec) numPoints() ([]float64, error) {
	if r.log && (r.from <= 0 || r.to <= 0) {
		return nil, fmt.Errorf("%s: a log scale needs from > 0 and to > 0", r.describe())
	}
	out := make([]float64, r.num)
	out[0] = r.from
	for i := 1; i < r.num; i++ {
		t := float64(i) / float64(r.num-1)
		if r.log {
			out[i] = roundSignificant(r.from * math.Pow(r.to/r.from, t))
		} else {
			out[i] = roundSignificant(r.from + t*(r.to-r.from))
		}
	}
	if r.num > 1 {
		out[r.num-1] = r.to
	}
	return out, nil
}

// factorPoints computes from, from*factor, from*factor², ... up to to.
func (r *rangeSpec) factorPoints() ([]float64, error) {
	if r.factor <= 0 || r.factor == 1 {
		return nil, fmt.Errorf("%s: factor must be positive and not 1", r.describe())
	}
	if r.from <= 0 || r.to <= 0 {
		return nil, fmt.Errorf("%s: a geometric range needs from > 0 and to > 0", r.describe())
	}
	q := math.Log(r.to/r.from) / math.Log(r.factor)
	k := math.Floor(q + rangeTol*math.Max(1, math.Abs(q)))
	if k < 0 || math.IsNaN(k) {
		return nil, fmt.Errorf("%s has no points (the factor goes away from \"to\")", r.describe())
	}
	if k+1 > maxAxisPoints {
		return nil, fmt.Errorf("%s has %.0f points: at most %d per axis", r.describe(), k+1, maxAxisPoints)
	}
	n := int(k) + 1
	out := make([]float64, n)
	for i := range out {
		out[i] = roundSignificant(r.from * math.Pow(r.factor, float64(i)))
	}
	if last := out[n-1]; math.Abs(last-r.to) <= rangeTol*r.to {
		out[n-1] = r.to
	}
	return out, nil
}

// decimals returns the number of decimals in x's shortest exact form.
func decimals(x float64) int {
	s := strconv.FormatFloat(x, 'f', -1, 64)
	if i := strings.IndexByte(s, '.'); i >= 0 {
		return len(s) - i - 1
	}
	return 0
}

func roundDecimals(x float64, d int) float64 {
	if d > 17 {
		return x
	}
	v, err := strconv.ParseFloat(strconv.FormatFloat(x, 'f', d, 64), 64)
	if err != nil {
		return x
	}
	return v
}

// roundSignificant rounds to 12 significant digits: enough for any sweep,
// and it turns 99.99999999999997 back into 100.
func roundSignificant(x float64) float64 { return roundDigits(x, 12) }

// roundDigits rounds x to d significant digits.
func roundDigits(x float64, d int) float64 {
	v, err := strconv.ParseFloat(strconv.FormatFloat(x, 'g', d, 64), 64)
	if err != nil {
		return x
	}
	return v
}
