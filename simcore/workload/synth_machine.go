package workload

import (
	"fmt"
	"math"
)

// How a synthetic log maps the sizes of its source machine onto its own
// (Synthetic.Sizes).
const (
	// SizesFraction: a job takes the fraction of the target machine that
	// its bin's size took of the source machine, size·M/S rounded to the
	// nearest node (at least 1, at most M). The default: the log's
	// partitioning of its machine (half-machine jobs, single nodes of a
	// small machine) carries over, and so does its concurrency.
	SizesFraction = "fraction"
	// SizesNodes: a job takes as many nodes as its bin's size. On a larger
	// machine more jobs run at once (the load is kept by arriving faster):
	// the scale test of a scheduler's cost in the number of running jobs.
	SizesNodes = "nodes"
)

// Synthetic describes a log drawn from a Model fitted on a source log of
// SourceNodes nodes, for a machine of Nodes nodes (GenerateSynthetic).
type Synthetic struct {
	// Gen are the readings of the bins (GenerateWith's options).
	Gen GenOptions
	// SourceNodes is the source log's machine size S (> 0).
	SourceNodes int
	// Nodes is the target machine size M (> 0).
	Nodes int
	// Sizes is how sizes map from S onto M: SizesFraction or SizesNodes.
	Sizes string
	// Load is the offered load Σ m·p / (M · span) the submit times are
	// scaled to (OfferedLoad); 0 keeps the fitted arrivals as drawn.
	Load float64
}

// GenerateSynthetic draws n jobs from the model, as GenerateWith does
// (same seeded streams: the same arrivals and bins), for another machine:
// every size is mapped from SourceNodes onto Nodes as Sizes says, then the
// submit times, taken from the first, are scaled by OfferedLoad/Load (and
// rounded to whole seconds, ScaleArrivals) so that the jobs offer the load
// Load to the target machine: the fitted Weibull rhythm (its shape, the
// gaps' coefficient of variation) with the mean gap that load needs. Run
// times and requests are the bins' as drawn. It allocates the n jobs and
// nothing per job.
func (m *Model) GenerateSynthetic(n int, seed uint64, o Synthetic) ([]Job, error) {
	if o.SourceNodes <= 0 || o.Nodes <= 0 {
		return nil, fmt.Errorf("workload: synthetic log: source machine %d nodes, target %d; want both > 0", o.SourceNodes, o.Nodes)
	}
	if !(o.Load >= 0) || math.IsInf(o.Load, 1) {
		return nil, fmt.Errorf("workload: synthetic log: load %v; want >= 0 (0: as drawn)", o.Load)
	}
	switch o.Sizes {
	case SizesFraction, SizesNodes:
	default:
		return nil, fmt.Errorf("workload: synthetic log: unknown sizes %q (want %s or %s)", o.Sizes, SizesFraction, SizesNodes)
	}
	if o.Sizes == SizesNodes {
		if w := m.widest(); w > o.Nodes {
			return nil, fmt.Errorf("workload: synthetic log: sizes %s: the log's bins hold jobs of %d nodes, wider than the target's %d (use sizes %s)", SizesNodes, w, o.Nodes, SizesFraction)
		}
	}
	jobs, err := m.GenerateWith(n, seed, o.Gen)
	if err != nil {
		return nil, fmt.Errorf("workload: synthetic log: %w", err)
	}
	if o.Sizes == SizesFraction {
		s, t := int64(o.SourceNodes), int64(o.Nodes)
		for i := range jobs {
			// round(size·M/S), half up, in integers (exact)
			k := (2*int64(jobs[i].Size)*t + s) / (2 * s)
			jobs[i].Size = int(min(max(k, 1), t))
		}
	}
	if o.Load > 0 {
		if l := OfferedLoad(jobs, o.Nodes); l > 0 {
			if err := ScaleArrivals(jobs, l/o.Load); err != nil {
				return nil, fmt.Errorf("workload: synthetic log: %w", err)
			}
		}
	}
	return jobs, nil
}

// widest returns the largest size of the model's bins.
func (m *Model) widest() int {
	w := 0
	for _, c := range m.cells {
		w = max(w, c.size)
	}
	return w
}

// MachineSize returns the size of the machine a log ran on, from its
// header: MaxProcs (SWF sizes count processors) when set, else MaxNodes,
// else 0 (unknown).
func MachineSize(h Header) int {
	if h.MaxProcs > 0 {
		return h.MaxProcs
	}
	return max(h.MaxNodes, 0)
}
