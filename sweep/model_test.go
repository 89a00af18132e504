package sweep

import (
	"context"
	"testing"

	"schedfarm/simcore"
	"schedfarm/simcore/bench"
)

// toy is a test-only model with the parameter kinds the bench model lacks:
// a bounded Int, a required bounded Float, an Enum and a Bool, named like
// the papers' parameters.
type toy struct{}

func (toy) Name() string    { return "toy" }
func (toy) Version() string { return "3" }
func (toy) Doc() string     { return "test model" }
func (toy) Schema() simcore.Schema {
	return simcore.Schema{Params: []simcore.Param{
		{Name: "load", Kind: simcore.Float, Min: simcore.Bound(0), Max: simcore.Bound(1), Doc: "system load"},
		{Name: "n", Kind: simcore.Int, Min: simcore.Bound(1), Max: simcore.Bound(1024), Default: int64(16), Doc: "nodes"},
		{Name: "dc_ratio", Kind: simcore.Float, Min: simcore.Bound(1), Default: 2.0, Doc: "deadline/cost ratio"},
		{Name: "avg_d", Kind: simcore.Float, Min: simcore.Bound(0), Default: 0.0, Doc: "average deadline"},
		{Name: "algorithm", Kind: simcore.String, Enum: []string{"FCFS", "EDF", "DASEDF"}, Default: "FCFS", Algorithm: true, Doc: "scheduler"},
		{Name: "X", Kind: simcore.Int, Min: simcore.Bound(0), Default: int64(0), Algorithm: true, Doc: "reserved machines"},
		{Name: "verbose", Kind: simcore.Bool, Default: false, Doc: "a bool"},
	}}
}
func (toy) Run(context.Context, simcore.Params, uint64) (*simcore.Result, error) {
	return &simcore.Result{}, nil
}

func testRegistry(tb testing.TB) *simcore.Registry {
	tb.Helper()
	reg, err := simcore.NewRegistry(bench.New(), toy{})
	if err != nil {
		tb.Fatal(err)
	}
	return reg
}
