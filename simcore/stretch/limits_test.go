package stretch

import (
	"context"
	"strings"
	"testing"

	"schedfarm/simcore"
)

// TestSizeLimits: sizes that would exhaust a worker's
// memory are refused by the schema, naming the parameter and its
// maximum (a sweep is refused by validate before anything runs), and a
// moldable instance whose n_tasks × m runtimes would not fit fails before
// it allocates them.
func TestSizeLimits(t *testing.T) {
	s := New(nil).Schema()
	for _, c := range []struct {
		params simcore.Params
		want   string
	}{
		{simcore.Params{"n_tasks": int64(1_000_000_000), "m": int64(4)}, `parameter "n_tasks": 1000000000 is above the maximum 10000000`},
		{simcore.Params{"n_tasks": int64(50), "m": int64(1_000_000_000)}, `parameter "m": 1000000000 is above the maximum 1000000`},
	} {
		if _, err := s.Complete(c.params); err == nil || err.Error() != c.want {
			t.Errorf("Complete(%v): %v, want %q", c.params, err, c.want)
		}
	}
	if _, err := s.Complete(simcore.Params{"n_tasks": int64(MaxTasks), "m": int64(MaxProcessors)}); err != nil {
		t.Errorf("the maxima themselves: %v", err)
	}
	p, err := s.Complete(simcore.Params{"problem": "moldable", "workload": "ssm", "algorithm": DBOS,
		"n_tasks": int64(200_000), "m": int64(1000), "load": 900.0})
	if err != nil {
		t.Fatal(err)
	}
	_, err = New(nil).Run(context.Background(), p, 1)
	if err == nil || !strings.Contains(err.Error(), "n_tasks × m = 200000 × 1000 = 200000000 runtimes, over the maximum of 100000000") {
		t.Errorf("moldable 200,000 tasks on 1,000 processors: %v", err)
	}
}
