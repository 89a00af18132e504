package batch

import "schedfarm/simcore"

// Representatives implements simcore.Benchmarked: the whole CTC SP2 trace
// (77,222 jobs on 256 nodes) for the combinations the issues give targets
// for, and FCFS with backfilling under every setting of the event and
// compression orders (issue #28 §4).
func (*Model) Representatives() []simcore.Representative {
	const ref = "relative times only (Tables 7-8); other simulators: 30 s to minutes with EASY, a Python loop ≈ 2 s"
	var out []simcore.Representative
	for _, c := range []struct{ order, backfill, events, compress string }{
		{FCFS, "easy", "", ""}, {FCFS, "conservative", "", ""}, {PSRS, "easy", "", ""},
		{SmartFFIA, "conservative", "", ""}, {GareyGraham, "none", "", ""},
		{FCFS, "easy", "each", ""}, {FCFS, "conservative", "each", ""},
		{FCFS, "conservative", "", "arrival"}, {FCFS, "conservative", "each", "arrival"},
	} {
		r := simcore.Representative{
			Params: simcore.Params{"order": c.order, "backfill": c.backfill},
			Seed:   1,
			Doc:    "CTC SP2 trace (77,222 jobs, 256 nodes), " + c.order + " + " + c.backfill,
			Paper:  ref,
		}
		if c.events != "" {
			r.Params["event_order"] = c.events
			r.Doc += ", event_order " + c.events
		}
		if c.compress != "" {
			r.Params["compress_order"] = c.compress
			r.Doc += ", compress_order " + c.compress
		}
		if c.order == FCFS && c.backfill == "easy" && c.events == "" {
			r.PaperSeconds = 2 // the Python event loop of the issue, the fastest reference
		}
		out = append(out, r)
	}
	return out
}
