package batch

import (
	"context"
	"testing"

	"schedfarm/simcore"
)

func TestModelRunQuick(t *testing.T) {
	m := New(testData)
	for _, o := range []string{FCFS, PSRS} {
		p, err := schema.Complete(simcore.Params{"jobs": int64(3000), "order": o, "backfill": "none"})
		if err != nil {
			t.Fatal(err)
		}
		res, err := m.Run(context.Background(), p, 1)
		if err != nil {
			t.Skip(err)
		}
		s := m.Schema()
		if err := s.Validate(res); err != nil {
			t.Fatal(err)
		}
	}
}
