package batch

import "schedfarm/simcore"

// Representatives implements simcore.Benchmarked: the whole CTC SP2 trace
// (77,222 jobs on 256 nodes) for the combinations the issue gives targets
// for.
func (*Model) Representatives() []simcore.Representative {
	const ref = "relative times only (Tables 7-8); other simulators: 30 s to minutes with EASY, a Python loop ≈ 2 s"
	var out []simcore.Representative
	for _, c := range []struct{ order, backfill string }{
		{FCFS, "easy"}, {FCFS, "conservative"}, {PSRS, "easy"}, {SmartFFIA, "conservative"}, {GareyGraham, "none"},
	} {
		r := simcore.Representative{
			Params: simcore.Params{"order": c.order, "backfill": c.backfill},
			Seed:   1,
			Doc:    "CTC SP2 trace (77,222 jobs, 256 nodes), " + c.order + " + " + c.backfill,
			Paper:  ref,
		}
		if c.order == FCFS && c.backfill == "easy" {
			r.PaperSeconds = 2 // the Python event loop of the issue, the fastest reference
		}
		out = append(out, r)
	}
	return out
}
