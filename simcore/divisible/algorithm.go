package divisible

import (
	"fmt"
	"strings"
)

// Policy is the task execution order of the schedulability test (decision
// #1 of Figure 2, lin2007 §4.2).
type Policy int

// The two orders of lin2007.
const (
	EDF  Policy = iota // ascending absolute deadline, then task ID
	FIFO               // ascending arrival, then task ID
)

// Partitioning is the partitioning and node-assignment rule (decisions #2
// and #3 of Figure 2).
type Partitioning int

// The four rules compared in lin2007 §5.
const (
	DLT       Partitioning = iota // heterogeneous model using IITs, ñ_min nodes (§4.1.1)
	UserSplit                     // n equal pieces, n drawn in [N_min, N] (§4.1.2)
	OPRMN                         // OPR, all nodes start together, n_min nodes (RTAS 2007; docs/models/divisible.md A5)
	OPRAN                         // OPR on all N nodes (RTAS 2007; docs/models/divisible.md A6)
)

// Algorithm is one of the eight algorithms of lin2007: a policy and a
// partitioning rule.
type Algorithm struct {
	Policy Policy
	Part   Partitioning
}

var policyNames = []string{"EDF", "FIFO"}
var partNames = []string{"DLT", "USERSPLIT", "OPR-MN", "OPR-AN"}

// String returns the algorithm's name as used in sweep files ("EDF-DLT").
func (a Algorithm) String() string { return policyNames[a.Policy] + "-" + partNames[a.Part] }

// AlgorithmNames lists the eight algorithm names in a fixed order.
func AlgorithmNames() []string {
	var out []string
	for p := range policyNames {
		for q := range partNames {
			out = append(out, Algorithm{Policy(p), Partitioning(q)}.String())
		}
	}
	return out
}

// ParseAlgorithm reads a name such as "EDF-DLT" or "fifo-opr-mn".
func ParseAlgorithm(s string) (Algorithm, error) {
	for p := range policyNames {
		for q := range partNames {
			a := Algorithm{Policy(p), Partitioning(q)}
			if strings.EqualFold(a.String(), s) {
				return a, nil
			}
		}
	}
	return Algorithm{}, fmt.Errorf("divisible: unknown algorithm %q (want one of %s)", s, strings.Join(AlgorithmNames(), ", "))
}
