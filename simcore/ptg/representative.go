package ptg

import "schedfarm/simcore"

// Representatives implements simcore.Benchmarked: the paper's "most
// demanding scenario" of §5.2.7 (10 random PTGs on gdx, 216 processors)
// for one algorithm of each family, beside the scheduling times the paper
// measured for it (Intel 2.20 GHz, averages over 5 samples).
func (*Model) Representatives() []simcore.Representative {
	var out []simcore.Representative
	for _, a := range []struct {
		alg   string
		paper float64
	}{{"SELFISH", 0.29}, {"CRA_WORK", 0.09}, {"F2", 0.20}, {"C4", 2.22}, {"CAFM_K_SHELVES", 50}} {
		out = append(out, simcore.Representative{
			Params:       simcore.Params{"algorithm": a.alg, "cluster": "gdx", "ptg_class": "random", "n_ptgs": int64(10)},
			Seed:         1,
			Doc:          a.alg + ", 10 random PTGs on gdx (216 processors)",
			Paper:        "scheduling time " + simcore.FormatValue(a.paper) + " s (§5.2.7)",
			PaperSeconds: a.paper,
		})
	}
	return out
}
