package ptg

import (
	"fmt"
	"math"
	"slices"

	"schedfarm/simcore/profile"
)

// Options are the modelling choices of one run that the seed leaves open
// (each a model parameter; docs/models/ptg.md gives the source of every
// value). The zero value of each string field is the default reading.
type Options struct {
	// HCPA are the readings of the improved HCPA allocation.
	HCPA HCPAOptions
	// Mapping is how the list-scheduled algorithms (SELFISH and its
	// variants, C1, C4, CAFM_CRA and CAFM_CRA_WEIGHT) put their tasks on
	// the processors: MapPaper (""), MapReady or MapInsertion.
	Mapping string
	// Backfill is the compaction: BackfillOnce (""), BackfillNone or
	// BackfillRepeat.
	Backfill string
	// CRAArea is the processor count of HCPA's average area T_A in the
	// allocations bounded by a share (CRA, CAFM_CRA): CRAAreaShare ("")
	// or CRAAreaCluster.
	CRAArea string
}

// Values of Options.Mapping.
const (
	// MapPaper is the mapping each algorithm's description gives: Suter's
	// free-time list scheduling for SELFISH, C1, C4, F1, F2
	// and CAFM_CRA; ready-task list scheduling for CRA (casanova2010 §4.3).
	MapPaper = "paper"
	// MapReady list-schedules ready tasks in simulated time (the CRA
	// mapping of casanova2010 §4.3) for every list-scheduled algorithm.
	MapReady = "ready"
	// MapInsertion places each task, in the list order, at the earliest
	// hole of the availability profile that holds it (insertion-based list
	// scheduling, as iCASLB [31] and conservative backfilling [19] place
	// tasks).
	MapInsertion = "insertion"
)

// Values of Options.Backfill.
const (
	// BackfillOnce is one pass in mapping order (casanova2010 §4.1).
	BackfillOnce = "once"
	// BackfillNone leaves the mapping as it is (to measure the compaction).
	BackfillNone = "none"
	// BackfillRepeat repeats the pass until no task moves (a fixed point;
	// Mu'alem and Feitelson [19] reschedule at every event).
	BackfillRepeat = "repeat"
)

// Values of Options.CRAArea.
const (
	// CRAAreaShare divides the area by the PTG's share (the bounded HCPA
	// treats the share as its cluster).
	CRAAreaShare = "share"
	// CRAAreaCluster divides the area by the whole cluster's P, the share
	// bounding only each allocation and level.
	CRAAreaCluster = "cluster"
)

// maxBackfillPasses bounds BackfillRepeat (each pass only moves tasks
// earlier, so it converges; the bound guards against float dithering).
const maxBackfillPasses = 100

// DefaultOptions are the defaults of every option.
var DefaultOptions = Options{HCPA: DefaultHCPA}

// validate names the option that has an unknown value.
func (o Options) validate() error {
	for _, c := range []struct {
		name, v string
		known   []string
	}{
		{"mapping", o.Mapping, []string{"", MapPaper, MapReady, MapInsertion}},
		{"backfill", o.Backfill, []string{"", BackfillOnce, BackfillNone, BackfillRepeat}},
		{"cra_area", o.CRAArea, []string{"", CRAAreaShare, CRAAreaCluster}},
	} {
		if !slices.Contains(c.known, c.v) {
			return fmt.Errorf("ptg: option %s = %q is not one of %q", c.name, c.v, c.known[1:])
		}
	}
	return nil
}

// mapList maps the tasks of pb in the given list order (a parent before its
// children) with the option's mapping.
func (st *state) mapList(pb *problem, alloc, order []int) (*plan, error) {
	pl := newPlan(pb.len())
	switch st.opts.Mapping {
	case MapReady:
		rank := make([]int, pb.len())
		for i, v := range order {
			rank[v] = i
		}
		mapReady(pb, alloc, func(a, b int) bool { return rank[a] < rank[b] }, st.P, pl)
	case MapInsertion:
		if err := mapInsertion(pb, alloc, order, st.P, pl); err != nil {
			return nil, err
		}
	default:
		mapStatic(pb, alloc, order, st.P, 0, pl)
	}
	return pl, nil
}

// mapInsertion places every task, in order, at the earliest time after its
// predecessors' ends at which its processors are free for its whole
// duration, holes included.
func mapInsertion(pb *problem, alloc, order []int, P int, pl *plan) error {
	prof := profile.New(P, 0)
	for _, v := range order {
		p := min(alloc[v], P)
		d := pb.dur(v, p)
		t, ok := prof.EarliestFit(p, d, pl.readyTime(pb, v))
		if !ok || math.IsInf(t, 1) {
			return fmt.Errorf("insertion mapping: task %d of %d processors fits nowhere on %d", v, p, P)
		}
		if err := prof.Reserve(t, t+d, p); err != nil {
			return fmt.Errorf("insertion mapping: task %d: %w", v, err)
		}
		pl.alloc[v], pl.start[v], pl.end[v] = p, t, t+d
		pl.order = append(pl.order, v)
	}
	return nil
}

// backfill runs the compaction the option names and returns the number
// of task moves.
func (st *state) backfill(pb *problem, pl *plan) (int, error) {
	switch st.opts.Backfill {
	case BackfillNone:
		return 0, nil
	case BackfillRepeat:
		total := 0
		for range maxBackfillPasses {
			moved, err := compact(pb, st.P, 0, pl)
			if err != nil {
				return 0, err
			}
			if total += moved; moved == 0 {
				break
			}
		}
		return total, nil
	}
	return compact(pb, st.P, 0, pl)
}

// craHCPA is the HCPA options of an allocation bounded by a share.
func (st *state) craHCPA() HCPAOptions {
	o := st.opt
	if st.opts.CRAArea == CRAAreaCluster {
		o.AreaProcs = st.P
	}
	return o
}
