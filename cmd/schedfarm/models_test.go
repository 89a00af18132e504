package main

import (
	"maps"
	"testing"

	"schedfarm/results"
	"schedfarm/simcore"
)

// TestEveryModelHasValidLayouts: every model built into the binary has a
// schema whose parameter, metric and table column names make valid
// jobs, summary and extra-table layouts (no clash with each other or with
// the farm's own columns), and a version. A clash would otherwise surface
// only when a worker tries to store the first result.
func TestEveryModelHasValidLayouts(t *testing.T) {
	reg := buildRegistry(simcore.Dirs{t.TempDir()}) // layouts only: no model reads a file here
	for _, m := range reg.Models() {
		s := m.Schema()
		if m.Version() == "" || m.Doc() == "" {
			t.Errorf("model %s: empty version or doc", m.Name())
		}
		if _, err := results.JobsLayout(s); err != nil {
			t.Errorf("model %s: jobs layout: %v", m.Name(), err)
		}
		if _, err := results.SummaryLayout(s); err != nil {
			t.Errorf("model %s: summary layout: %v", m.Name(), err)
		}
		for _, tb := range s.Tables {
			if _, err := results.TableLayout(s, tb.Name); err != nil {
				t.Errorf("model %s: table %s layout: %v", m.Name(), tb.Name, err)
			}
		}
		for _, p := range s.Params {
			if p.Default != nil {
				if _, err := p.Check(p.Default); err != nil {
					t.Errorf("model %s: default of %s: %v", m.Name(), p.Name, err)
				}
			}
		}
		// `schedfarm bench` times every model: each names representative
		// jobs whose parameters are valid.
		b, ok := m.(simcore.Benchmarked)
		if !ok || len(b.Representatives()) == 0 {
			t.Errorf("model %s names no representative job (simcore.Benchmarked)", m.Name())
			continue
		}
		for _, r := range b.Representatives() {
			if _, err := s.Complete(maps.Clone(r.Params)); err != nil || r.Doc == "" {
				t.Errorf("model %s: representative %q: %v", m.Name(), r.Doc, err)
			}
		}
	}
}
