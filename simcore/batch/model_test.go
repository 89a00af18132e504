package batch

import (
	"testing"

	"schedfarm/simcore"
	"schedfarm/simcore/modeltest"
)

// TestUsesSeed: a trace replayed as it is gives the same results under two
// seeds, so one replicate of it is exact; a generated workload uses the seed.
func TestUsesSeed(t *testing.T) {
	m := New(simcore.Dirs{"testdata"})
	schema := m.Schema()
	for _, c := range []struct {
		params simcore.Params
		uses   bool
	}{
		{simcore.Params{"trace": "tiny.swf", "nodes": int64(10), "backfill": "easy"}, false},
		{simcore.Params{"trace": "tinycons.swf", "nodes": int64(10), "backfill": "conservative", "order": "SMART-FFIA"}, false},
		{simcore.Params{"workload": "randomized", "jobs": int64(50), "nodes": int64(16)}, true},
		{simcore.Params{"workload": "probabilistic", "trace": "gaps.swf", "nodes": int64(10)}, true},
	} {
		p, err := schema.Complete(c.params)
		if err != nil {
			t.Fatal(err)
		}
		if got := m.UsesSeed(p); got != c.uses {
			t.Errorf("%v: UsesSeed = %v, want %v", c.params, got, c.uses)
		}
		a, b := modeltest.Run(t, m, p, 1), modeltest.Run(t, m, p, 987654321)
		err = modeltest.Same(schema, a, b)
		if !c.uses && err != nil {
			t.Errorf("%v: said not to use its seed, but seeds 1 and 987654321 differ: %v", c.params, err)
		}
		if c.uses && err == nil {
			t.Errorf("%v: said to use its seed, but seeds 1 and 987654321 give the same results", c.params)
		}
	}
}
