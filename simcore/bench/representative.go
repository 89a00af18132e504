package bench

import "schedfarm/simcore"

// Representatives implements simcore.Benchmarked: a 0 ms job (pure farm
// overhead when run through the farm) and a 20 ms one.
func (*Model) Representatives() []simcore.Representative {
	return []simcore.Representative{
		{Params: simcore.Params{"work_ms": 0.0}, Seed: 1, Doc: "0 ms of work"},
		{Params: simcore.Params{"work_ms": 20.0}, Seed: 1, Doc: "20 ms of work"},
	}
}
