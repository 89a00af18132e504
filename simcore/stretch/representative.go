package stretch

import "schedfarm/simcore"

// Representatives implements simcore.Benchmarked: one paper-scale instance
// of each part, beside the runtimes the paper measured for the same size.
func (*Model) Representatives() []simcore.Representative {
	seq := func(alg string, paper float64) simcore.Representative {
		return simcore.Representative{
			Params:       simcore.Params{"problem": "sequential", "algorithm": alg, "delta": 100.0, "load": 290.0},
			Seed:         1,
			Doc:          alg + ", 20,000 sequential tasks on 300 processors, Δ = 100, load 290",
			Paper:        "average over instances " + simcore.FormatValue(paper) + " s (§4.2)",
			PaperSeconds: paper,
		}
	}
	mold := func(alg string, paper float64, text string) simcore.Representative {
		return simcore.Representative{
			Params:       simcore.Params{"problem": "moldable", "algorithm": alg, "workload": "sdsc"},
			Seed:         1,
			Doc:          alg + ", 8,000 SDSC Par96 tasks (Downey) on 512 processors",
			Paper:        text + " (§7, 2.4 GHz Core2)",
			PaperSeconds: paper,
		}
	}
	return []simcore.Representative{
		seq(FCFS, 15),
		seq(DASEDF, 40),
		mold(DBOS, 60, "about a minute"),
		mold(Iterative, 90, "a minute and a half"),
	}
}
