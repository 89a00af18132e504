package batch

import (
	"fmt"

	"schedfarm/simcore"
)

// Representatives implements simcore.Benchmarked: the whole CTC SP2 trace
// (77,222 jobs on 256 nodes) for the combinations with published or measured
// targets, and FCFS with backfilling under every setting of the event and
// compression orders (docs/models/batch.md).
func (*Model) Representatives() []simcore.Representative {
	const ref = "relative times only (Tables 7-8); other simulators: 30 s to minutes with EASY, a Python loop ≈ 2 s"
	var out []simcore.Representative
	for _, c := range []struct {
		order, backfill, events, compress string
		nodes                             int64
	}{
		{FCFS, "easy", "", "", 256}, {FCFS, "conservative", "", "", 256}, {PSRS, "easy", "", "", 256},
		{SmartFFIA, "conservative", "", "", 256}, {GareyGraham, "none", "", "", 256},
		{FCFS, "easy", "each", "", 256}, {FCFS, "conservative", "each", "", 256},
		{FCFS, "conservative", "", "arrival", 256}, {FCFS, "conservative", "each", "arrival", 256},
		// the nodes CTC's batch jobs used, as in the comparison with pyss
		// (TestCTCConventionsMatchPyss)
		{FCFS, "conservative", "", "", 338}, {FCFS, "conservative", "", "arrival", 338},
		{FCFS, "conservative", "each", "arrival", 338},
	} {
		r := simcore.Representative{
			Params: simcore.Params{"order": c.order, "backfill": c.backfill},
			Seed:   1,
			Doc:    fmt.Sprintf("CTC SP2 trace (77,222 jobs, %d nodes), %s + %s", c.nodes, c.order, c.backfill),
			Paper:  ref,
		}
		if c.nodes != 256 {
			r.Params["nodes"] = c.nodes
		}
		if c.events != "" {
			r.Params["event_order"] = c.events
			r.Doc += ", event_order " + c.events
		}
		if c.compress != "" {
			r.Params["compress_order"] = c.compress
			r.Doc += ", compress_order " + c.compress
		}
		if c.order == FCFS && c.backfill == "easy" && c.events == "" && c.nodes == 256 {
			r.PaperSeconds = 2 // a Python event loop (pyss), the fastest reference
		}
		out = append(out, r)
	}
	return out
}
