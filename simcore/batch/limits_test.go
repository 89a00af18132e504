package batch

import (
	"testing"

	"schedfarm/simcore"
)

// TestSizeLimits: sizes that would exhaust a worker's
// memory are refused by the schema, naming the parameter and its
// maximum, so that validate refuses the sweep before anything runs.
func TestSizeLimits(t *testing.T) {
	s := New(nil).Schema()
	for _, c := range []struct {
		params simcore.Params
		want   string
	}{
		{simcore.Params{"nodes": int64(1_000_000_000)}, `parameter "nodes": 1000000000 is above the maximum 10000000`},
		{simcore.Params{"jobs": int64(1_000_000_000)}, `parameter "jobs": 1000000000 is above the maximum 10000000`},
	} {
		if _, err := s.Complete(c.params); err == nil || err.Error() != c.want {
			t.Errorf("Complete(%v): %v, want %q", c.params, err, c.want)
		}
	}
	if _, err := s.Complete(simcore.Params{"nodes": int64(MaxNodes), "jobs": int64(MaxJobs)}); err != nil {
		t.Errorf("the maxima themselves: %v", err)
	}
}
