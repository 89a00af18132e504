package batch

import (
	"fmt"
	"math"
	"sort"

	"schedfarm/simcore/workload"
)

// The orders (krallmann1999 §5).
const (
	FCFS        = "FCFS"
	PSRS        = "PSRS"
	SmartFFIA   = "SMART-FFIA"
	SmartNFIW   = "SMART-NFIW"
	GareyGraham = "GareyGraham"
)

// Orders lists the orders in the paper's table order.
var Orders = []string{FCFS, PSRS, SmartFFIA, SmartNFIW, GareyGraham}

// Recomputation rules for SMART and PSRS (krallmann1999 §5.4: "the schedule is
// recalculated when the ratio between the already scheduled jobs in the
// wait queue to all the jobs in this queue exceeds a certain value", 2/3;
// the sentence has two readings).
const (
	// RecomputeNew: recompute when the jobs ordered by the last run make
	// up less than 2/3 of the queue (more than 1/3 is new).
	RecomputeNew = "new_fraction"
	// RecomputeDispatched: recompute when more than 2/3 of the jobs
	// ordered by the last run have been started.
	RecomputeDispatched = "dispatched_fraction"
	// RecomputeAlways: recompute at every pass with a new job (step 1 of
	// the online adaptation without the saving rule).
	RecomputeAlways = "every_arrival"
)

// orderer keeps the wait queue in its order. arrange may permute queue in
// place (new arrivals sit at its end) and reports whether it did;
// started tells it a job left the queue.
type orderer interface {
	arrange(queue []int) bool
	started(j int)
}

type fcfs struct{}

func (fcfs) arrange([]int) bool { return false }
func (fcfs) started(int)        {}

func newOrderer(cfg Config, jobs []workload.Job) (o orderer, greedy bool, err error) {
	switch cfg.Order {
	case FCFS:
		return fcfs{}, false, nil
	case GareyGraham:
		return fcfs{}, true, nil
	case PSRS, SmartFFIA, SmartNFIW:
	default:
		return nil, false, fmt.Errorf("batch: unknown order %q (want one of %v)", cfg.Order, Orders)
	}
	switch cfg.Recompute {
	case RecomputeNew, RecomputeDispatched, RecomputeAlways:
	default:
		return nil, false, fmt.Errorf("batch: unknown recompute rule %q", cfg.Recompute)
	}
	switch cfg.SmartWeight {
	case "", SmartWeightArea, SmartWeightUnit, SmartWeightSmith:
	default:
		return nil, false, fmt.Errorf("batch: unknown SMART weight %q (want %s, %s or %s)", cfg.SmartWeight, SmartWeightArea, SmartWeightUnit, SmartWeightSmith)
	}
	r := &reorder{cfg: cfg, jobs: jobs, covered: make([]bool, len(jobs))}
	return r, false, nil
}

// reorder is the online adaptation of an offline order (SMART, PSRS):
// waiting jobs keep the order of the last computation, new jobs are
// appended, and the order is recomputed over the whole queue when the
// recomputation rule fires.
type reorder struct {
	cfg          Config
	jobs         []workload.Job
	covered      []bool
	nCovered     int // covered jobs still waiting
	lastRun      int // queue length at the last computation
	startedSince int // covered jobs started since then
	key          []float64
	rank         []int
	sc           []int // scratch
}

func (r *reorder) started(j int) {
	if r.covered[j] {
		r.covered[j] = false
		r.nCovered--
		r.startedSince++
	}
}

func (r *reorder) arrange(q []int) bool {
	if r.nCovered == len(q) {
		return false // nothing new
	}
	switch r.cfg.Recompute {
	case RecomputeNew:
		if 3*r.nCovered >= 2*len(q) && r.nCovered > 0 {
			return false
		}
	case RecomputeDispatched:
		if r.lastRun > 0 && 3*r.startedSince <= 2*r.lastRun {
			return false
		}
	}
	switch r.cfg.Order {
	case PSRS:
		r.psrs(q)
	default:
		r.smart(q, r.cfg.Order == SmartFFIA)
	}
	for _, j := range q {
		r.covered[j] = true
	}
	r.nCovered, r.lastRun, r.startedSince = len(q), len(q), 0
	return true
}

func (r *reorder) weight(j int) float64 {
	if r.cfg.Weighted {
		return float64(r.jobs[j].Size) * r.jobs[j].Estimate
	}
	return 1
}

// The readings of SMART's job weight in the weighted case (Config.SmartWeight;
// a sensitivity setting for Table 6, not a reading the defaults use).
const (
	// SmartWeightArea weighs a job by m·p̂, the weight of §4 with the run
	// time the scheduler knows (the default).
	SmartWeightArea = "area"
	// SmartWeightUnit weighs every job 1 (SMART's unweighted order).
	SmartWeightUnit = "unit"
	// SmartWeightSmith weighs a job by its modified Smith ratio (§5.5),
	// w/(m·p̂) with the objective's weight w = m·p, i.e. p/p̂: 1 for every
	// job when the estimates are exact.
	SmartWeightSmith = "smith"
)

// smartWeight is the weight SMART's shelves and NFIW's order use.
func (r *reorder) smartWeight(j int) float64 {
	if !r.cfg.Weighted {
		return 1
	}
	switch r.cfg.SmartWeight {
	case SmartWeightUnit:
		return 1
	case SmartWeightSmith:
		if r.jobs[j].Estimate <= 0 {
			return 1
		}
		return r.jobs[j].Run / r.jobs[j].Estimate
	}
	return r.weight(j)
}

// lengthBin returns k with γ^(k-1) < x <= γ^k for γ = 2 (0 for x <= 1),
// exactly (no logarithm rounding). krallmann1999 §5.4 step 1.
func lengthBin(x float64) int {
	if x <= 1 {
		return 0
	}
	frac, exp := math.Frexp(x) // x = frac·2^exp, frac in [0.5, 1)
	if frac == 0.5 {
		return exp - 1
	}
	return exp
}

type shelf struct {
	bin, seq int
	free     int
	h, w     float64
	jobs     []int
}

// smart orders q by SMART (krallmann1999 §5.4): bins of estimated
// length with γ = 2, shelves per bin (FFIA: by increasing area, first fit
// over the bin's shelves; NFIW: by increasing nodes/weight, next fit),
// shelves by decreasing Σw / height (Smith's rule). Jobs inside a shelf
// keep their insertion order.
func (r *reorder) smart(q []int, ffia bool) {
	byBin := map[int][]int{}
	var bins []int
	for _, j := range q {
		b := lengthBin(r.jobs[j].Estimate)
		if _, ok := byBin[b]; !ok {
			bins = append(bins, b)
		}
		byBin[b] = append(byBin[b], j)
	}
	sort.Ints(bins)
	var shelves []*shelf
	for _, b := range bins {
		js := byBin[b]
		sort.SliceStable(js, func(x, y int) bool {
			a, c := js[x], js[y]
			var ka, kc float64
			if ffia {
				ka = float64(r.jobs[a].Size) * r.jobs[a].Estimate
				kc = float64(r.jobs[c].Size) * r.jobs[c].Estimate
			} else {
				ka = float64(r.jobs[a].Size) / r.smartWeight(a)
				kc = float64(r.jobs[c].Size) / r.smartWeight(c)
			}
			if ka != kc {
				return ka < kc
			}
			return a < c
		})
		first := len(shelves)
		for _, j := range js {
			m := r.jobs[j].Size
			var sh *shelf
			if ffia {
				for _, s := range shelves[first:] {
					if s.free >= m {
						sh = s
						break
					}
				}
			} else if len(shelves) > first && shelves[len(shelves)-1].free >= m {
				sh = shelves[len(shelves)-1]
			}
			if sh == nil {
				sh = &shelf{bin: b, seq: len(shelves), free: r.cfg.Nodes}
				shelves = append(shelves, sh)
			}
			sh.free -= m
			sh.h = max(sh.h, r.jobs[j].Estimate)
			sh.w += r.smartWeight(j)
			sh.jobs = append(sh.jobs, j)
		}
	}
	sort.SliceStable(shelves, func(x, y int) bool {
		a, b := shelves[x], shelves[y]
		// a.w/a.h > b.w/b.h without dividing (heights may be 0)
		l, rr := a.w*b.h, b.w*a.h
		if l != rr {
			return l > rr
		}
		if a.bin != b.bin {
			return a.bin < b.bin
		}
		return a.seq < b.seq
	})
	i := 0
	for _, s := range shelves {
		i += copy(q[i:], s.jobs)
	}
}
