package batch

import (
	"context"
	"testing"

	"schedfarm/internal/datatest"
	"schedfarm/simcore"
)

// TestModelRunQuick runs the model on the CTC fixture (the first 5,000
// jobs of the log; 3,000 of them, as configs/krallmann1999/quick.yaml
// does on the whole log) and validates its result against the schema.
func TestModelRunQuick(t *testing.T) {
	m := New(datatest.Fixtures(t))
	for _, o := range []string{FCFS, PSRS} {
		p, err := schema.Complete(simcore.Params{"trace": ctcFixture, "jobs": int64(3000), "order": o, "backfill": "none"})
		if err != nil {
			t.Fatal(err)
		}
		res, err := m.Run(context.Background(), p, 1)
		if err != nil {
			t.Fatal(err)
		}
		s := m.Schema()
		if err := s.Validate(res); err != nil {
			t.Fatal(err)
		}
	}
}
