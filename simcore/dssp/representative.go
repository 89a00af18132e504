package dssp

import "schedfarm/simcore"

// Representatives implements simcore.Benchmarked: the heaviest overloaded
// synthetic night (P = 1,000, D = 13 h) after greedy selection, with LCPF
// and with CPA (the costliest dispatcher), and the exact DP selection of
// Section 5.2 on the same night.
func (*Model) Representatives() []simcore.Representative {
	const paper = "selection \"in under one second\" (§5.2); dispatch times not reported"
	night := func(extra simcore.Params, doc string) simcore.Representative {
		p := simcore.Params{"min_demand": 1.0, "night_rank": int64(1)}
		for k, v := range extra {
			p[k] = v
		}
		return simcore.Representative{Params: p, Seed: 1, Doc: "heaviest overloaded night, " + doc, Paper: paper}
	}
	return []simcore.Representative{
		night(simcore.Params{"selector": "greedy", "dispatcher": "LCPF"}, "greedy selection + LCPF"),
		night(simcore.Params{"selector": "greedy", "dispatcher": "CPA"}, "greedy selection + CPA"),
		night(simcore.Params{"selector": "dp", "dispatcher": "LCPF", "reward": "banded"}, "exact DP selection (banded) + LCPF"),
	}
}
