package decl

import (
	"go.yaml.in/yaml/v3"

	"schedfarm/sweep"
)

// Tol is the tolerance of one metric when verify compares runs of
// different model versions: |got − golden| ≤ Abs + Rel·|golden|.
type Tol struct {
	Abs, Rel float64
}

// VerifySpec is a sweep's verify: key.
type VerifySpec struct {
	// Tolerances by metric name. A metric without one must stay
	// bit-identical even across model versions.
	Tolerances map[string]Tol
}

func (p *declParser) verify(n *yaml.Node, key string) VerifySpec {
	var vs VerifySpec
	m, ok := p.Fields(n, key, []string{"tolerances"})
	if !ok {
		return vs
	}
	e, ok := m["tolerances"]
	if !ok {
		return vs
	}
	var metrics []string
	for _, c := range p.schema.Metrics {
		metrics = append(metrics, c.Name)
	}
	for _, t := range p.schema.Tables {
		for _, c := range t.Columns {
			metrics = append(metrics, c.Name)
		}
	}
	tk := sweep.Join(key, "tolerances")
	tm, ok := p.Fields(e.V, tk, metrics)
	if !ok {
		return vs
	}
	vs.Tolerances = map[string]Tol{}
	for _, name := range metrics {
		e, ok := tm[name]
		if !ok {
			continue
		}
		k := sweep.Join(tk, name)
		v := sweep.Resolve(e.V)
		var t Tol
		if v.Kind == yaml.MappingNode {
			tol, ok := p.Fields(v, k, []string{"abs", "rel"})
			if !ok {
				continue
			}
			if a, ok := tol["abs"]; ok {
				t.Abs, _ = p.Number(a.V, sweep.Join(k, "abs"))
			}
			if r, ok := tol["rel"]; ok {
				t.Rel, _ = p.Number(r.V, sweep.Join(k, "rel"))
			}
		} else {
			t.Abs, _ = p.Number(v, k)
		}
		if t.Abs < 0 || t.Rel < 0 {
			p.Errf(v, k, "", "tolerances must not be negative")
		}
		vs.Tolerances[name] = t
	}
	return vs
}
