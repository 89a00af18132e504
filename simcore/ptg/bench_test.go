package ptg

import (
	"testing"
)

// BenchmarkModel_Gdx10Random is the paper's heaviest case (§5.2.7): 10
// random PTGs on gdx (216 processors), one sub-benchmark per algorithm.
func BenchmarkModel_Gdx10Random(b *testing.B) {
	cl, _ := FindCluster("gdx")
	inst := randomInstance(11, "random", 10, cl)
	for _, alg := range Algorithms {
		b.Run(alg, func(b *testing.B) {
			for b.Loop() {
				run(b, inst, alg)
			}
		})
	}
}
