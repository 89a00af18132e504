package divisible

import "schedfarm/simcore"

// Representatives implements simcore.Benchmarked: one 10,000,000-time-unit
// run of the baseline at SystemLoad 1.0 (the heaviest point of Fig. 3) for
// each partitioning rule under EDF.
func (*Model) Representatives() []simcore.Representative {
	var out []simcore.Representative
	for _, alg := range []string{"EDF-DLT", "EDF-OPR-MN", "EDF-USERSPLIT", "EDF-OPR-AN"} {
		out = append(out, simcore.Representative{
			Params: simcore.Params{"algorithm": alg, "load": 1.0},
			Seed:   1,
			Doc:    alg + ", Fig. 3 baseline at SystemLoad 1.0, 10⁷ time units (≈7,400 tasks)",
			Paper:  "not reported",
		})
	}
	return out
}
