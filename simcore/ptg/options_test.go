package ptg

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"schedfarm/simcore"
	"schedfarm/simcore/rng"
)

// optionGrid is every value of every modelling option of docs/models/ptg.md, with
// the HCPA readings that change allocations (guards on and off).
func optionGrid() []Options {
	var out []Options
	for _, hc := range []HCPAOptions{DefaultHCPA, {LevelCap: true}, {}, {SeedRule: true, LevelCap: true, MaxInflation: 1.5}} {
		for _, m := range []string{MapPaper, MapReady, MapInsertion} {
			for _, b := range []string{BackfillOnce, BackfillNone, BackfillRepeat} {
				for _, a := range []string{CRAAreaShare, CRAAreaCluster} {
					out = append(out, Options{HCPA: hc, Mapping: m, Backfill: b, CRAArea: a})
				}
			}
		}
	}
	return out
}

// TestPropertiesOptions: under every option value, every algorithm's
// schedule of random PTG sets (each class, three clusters) passes the
// independent checker, respects the makespan lower bounds, and keeps the
// utilisation at most 1; backfilling never lengthens a schedule.
func TestPropertiesOptions(t *testing.T) {
	type inst struct {
		seed  uint64
		class string
		n     int
		cl    string
	}
	insts := []inst{{1, "random", 4, "chti"}, {2, "fft", 6, "grillon"}, {3, "strassen", 3, "grelon"}, {4, "random", 8, "grillon"}}
	grid := optionGrid()
	if testing.Short() {
		insts = insts[:2]
	}
	for _, in := range insts {
		cl, err := FindCluster(in.cl)
		if err != nil {
			t.Fatal(err)
		}
		is := randomInstance(in.seed+900, in.class, in.n, cl)
		lbCP, lbArea := bounds(is)
		for _, opts := range grid {
			for _, alg := range Algorithms {
				name := fmt.Sprintf("%s %s N=%d %s %+v", in.cl, in.class, in.n, alg, opts)
				o, err := Schedule(context.Background(), is, alg, opts, rng.New(7).Stream("ties"))
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if err := validate(o, cl.Procs); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				m := o.Measure(cl.Procs)
				if m.Makespan < lbCP*(1-1e-9) || m.Makespan < lbArea*(1-1e-9) || m.Utilisation > 1+1e-9 {
					t.Errorf("%s: makespan %v (bounds CP %v, area %v), utilisation %v", name, m.Makespan, lbCP, lbArea, m.Utilisation)
				}
				if opts.Backfill == BackfillNone {
					with := opts
					with.Backfill = BackfillOnce
					o2, err := Schedule(context.Background(), is, alg, with, rng.New(7).Stream("ties"))
					if err != nil {
						t.Fatal(err)
					}
					if m2 := o2.Measure(cl.Procs); m2.Makespan > m.Makespan*(1+1e-9) {
						t.Errorf("%s: backfilling lengthened the schedule from %v to %v", name, m.Makespan, m2.Makespan)
					}
				}
			}
		}
	}
}

// bounds are the makespan lower bounds of an instance: the longest critical
// path with every task on all P processors, and the least work over P.
func bounds(is Instance) (cp, area float64) {
	speed := is.Cluster.GFlops * 1e9
	for i, g := range is.Graphs {
		pb := newProblem(g, speed, i)
		full := make([]int, pb.len())
		for v := range full {
			full[v] = is.Cluster.Procs
		}
		cp = max(cp, criticalPath(pb, full))
		for _, s := range pb.seq {
			area += s
		}
	}
	return cp, area / float64(is.Cluster.Procs)
}

// TestOptionDefaultsAreThePaperReading: the default of every option
// parameter gives the same outcome as the zero Options (the paper's
// reading), and a bad value is refused naming the option.
func TestOptionDefaultsAreThePaperReading(t *testing.T) {
	cl, _ := FindCluster("grillon")
	is := randomInstance(5, "random", 5, cl)
	for _, alg := range []string{Selfish, C4, CRAWork, CAFMCRA} {
		a, err := Schedule(context.Background(), is, alg, DefaultOptions, rng.New(7).Stream("ties"))
		if err != nil {
			t.Fatal(err)
		}
		b, err := Schedule(context.Background(), is, alg, Options{HCPA: DefaultHCPA, Mapping: MapPaper, Backfill: BackfillOnce, CRAArea: CRAAreaShare},
			rng.New(7).Stream("ties"))
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(a.Start, a.End, a.Alloc) != fmt.Sprint(b.Start, b.End, b.Alloc) {
			t.Errorf("%s: the named defaults differ from the zero options", alg)
		}
	}
	s := New(nil).Schema()
	for _, tc := range []struct{ param, value string }{{"mapping", "eager"}, {"backfill", "twice"}, {"cra_area", "half"}} {
		_, err := s.Complete(simcore.Params{tc.param: tc.value})
		if err == nil || !strings.Contains(err.Error(), tc.param) {
			t.Errorf("%s = %s: error %v, want one naming the parameter", tc.param, tc.value, err)
		}
	}
	if _, err := Schedule(context.Background(), is, Selfish, Options{Mapping: "eager"}, rng.New(7).Stream("ties")); err == nil ||
		!strings.Contains(err.Error(), "mapping") {
		t.Errorf("Options{Mapping: eager}: error %v, want one naming mapping", err)
	}
}
