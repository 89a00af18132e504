package dssp

import (
	"context"
	"math"
	"strings"
	"testing"

	"schedfarm/simcore"
	"schedfarm/simcore/check"
	"schedfarm/simcore/modeltest"
)

func TestModelFileHand(t *testing.T) {
	m := New(simcore.Dirs{"testdata"})
	base := simcore.Params{"workload": "file", "nights_file": "two_nights.csv", "processors": int64(1),
		"night_rank": int64(2), "budget_h": 14.0, "job_table": true}
	// Night 1 holds the two jobs of Figure 1 (linear rewards 450 and 250)
	// on one processor with D = 13: whoever goes first is the only one on
	// time (8 h + 6 h > 13 h).
	for _, c := range []struct {
		pol     string
		reward  float64
		endJob1 float64
	}{{"LCPF", 450, 8}, {"CPA", 450, 11}, {"STCPU", 250, 14}, {"FIRST", 450, 8}, {"PRIORITY", 450, 8}} {
		p := simcore.Params{"dispatcher": c.pol}
		for k, v := range base {
			p[k] = v
		}
		r := modeltest.Run(t, m, p, 1)
		if r.Metrics["aggregate_reward"] != c.reward || r.Metrics["completed"] != int64(1) || r.Metrics["late"] != int64(1) {
			t.Fatalf("%s: reward %v completed %v late %v, want %v 1 1", c.pol, r.Metrics["aggregate_reward"], r.Metrics["completed"], r.Metrics["late"], c.reward)
		}
		tab := r.Tables["completions"].Columns
		if got := tab["completion_h"].([]float64)[0]; got != c.endJob1 {
			t.Fatalf("%s: job 10 ends at %v, want %v", c.pol, got, c.endJob1)
		}
		if r.Metrics["makespan_h"] != 14.0 || math.Abs(r.Metrics["reward_frac"].(float64)-c.reward/700) > 1e-12 {
			t.Fatalf("%s: makespan %v reward_frac %v", c.pol, r.Metrics["makespan_h"], r.Metrics["reward_frac"])
		}
	}
	// Budget 13 h: greedy takes job 10 (ratio 450/8) and job 11 no longer
	// fits; the exact selectors agree.
	for _, sel := range []string{"greedy", "dp", "bnb"} {
		p := simcore.Params{"selector": sel, "budget_h": 13.0}
		for k, v := range base {
			if k != "budget_h" {
				p[k] = v
			}
		}
		r := modeltest.Run(t, m, p, 1)
		if r.Metrics["selected"] != int64(1) || r.Metrics["aggregate_reward"] != 450.0 || r.Metrics["selection_gap"] != 0.0 {
			t.Fatalf("%s: selected %v reward %v gap %v", sel, r.Metrics["selected"], r.Metrics["aggregate_reward"], r.Metrics["selection_gap"])
		}
	}
	// Night 2 (rank 1): job 1 has T∞ 13.5 h > D and is dropped before
	// selection; with no selection it is dispatched and late.
	p := simcore.Params{"workload": "file", "nights_file": "two_nights.csv", "processors": int64(2), "night_rank": int64(1)}
	r := modeltest.Run(t, m, p, 1)
	if r.Metrics["dropped_tinf"] != int64(1) || r.Metrics["selected"] != int64(1) || r.Metrics["completed"] != int64(1) {
		t.Fatalf("night 2: dropped %v selected %v completed %v", r.Metrics["dropped_tinf"], r.Metrics["selected"], r.Metrics["completed"])
	}
	p["selector"] = "none"
	r = modeltest.Run(t, m, p, 1)
	if r.Metrics["dropped_tinf"] != int64(0) || r.Metrics["selected"] != int64(2) || r.Metrics["late"] != int64(1) {
		t.Fatalf("night 2, no selection: dropped %v selected %v late %v", r.Metrics["dropped_tinf"], r.Metrics["selected"], r.Metrics["late"])
	}
	// drop_long: false keeps the long job for greedy selection (§3.1:
	// such jobs "may be discarded"): both fit the budget and are dispatched.
	p["selector"], p["drop_long"] = "greedy", false
	r = modeltest.Run(t, m, p, 1)
	if r.Metrics["dropped_tinf"] != int64(0) || r.Metrics["selected"] != int64(2) || r.Metrics["late"] != int64(1) {
		t.Fatalf("night 2, drop_long false: dropped %v selected %v late %v", r.Metrics["dropped_tinf"], r.Metrics["selected"], r.Metrics["late"])
	}
}

// stageEdges are the precedence edges of a night's schedule table: every
// task of stage g of a job precedes every task of its stage g+1.
func stageEdges(t testing.TB, tab *simcore.TableData, rows []int) []check.Edge {
	c := tab.Columns
	id, job, stage := c["id"].([]int64), c["job"].([]int64), c["stage"].([]int64)
	type key struct{ job, stage int64 }
	groups := map[key][]int64{}
	var keys []key // in table order, so the edges come out in one order
	for _, i := range rows {
		k := key{job[i], stage[i]}
		if _, ok := groups[k]; !ok {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], id[i])
	}
	var edges []check.Edge
	for _, k := range keys {
		for _, a := range groups[k] {
			for _, b := range groups[key{k.job, k.stage + 1}] {
				edges = append(edges, check.Edge{Before: a, After: b})
			}
		}
	}
	return edges
}

// scheduleLayout reads the schedule table, one night at a time.
var scheduleLayout = modeltest.Layout{Task: "id", Node: "processor", Procs: "procs", Release: "release",
	Start: "start", End: "end", Group: "night", Edges: stageEdges}

func TestScheduleTableValid(t *testing.T) {
	m := New(nil)
	for _, pol := range Policies {
		r := modeltest.Run(t, m, simcore.Params{"dispatcher": pol, "night_rank": int64(3), "schedule_table": true, "proc_table": true, "job_table": true}, 9)
		tab := r.Tables["schedule"]
		// Task numbers are 0..n−1, each once.
		seen := make([]bool, tab.Len())
		for _, id := range tab.Columns["id"].([]int64) {
			if id < 0 || id >= int64(len(seen)) || seen[id] {
				t.Fatalf("%s: task number %d out of range or repeated", pol, id)
			}
			seen[id] = true
		}
		if s := modeltest.Schedule(t, r, 1000, scheduleLayout, 1e-9); len(s.Edges) == 0 {
			t.Fatalf("%s: no precedence edges", pol)
		}
		// Processor releases agree with the schedule.
		last := map[int64]float64{}
		c := tab.Columns
		for i, p := range c["processor"].([]int64) {
			last[p] = math.Max(last[p], c["end"].([]float64)[i])
		}
		rel := r.Tables["releases"].Columns["release_h"].([]float64)
		for p, v := range rel {
			if last[int64(p)] != v {
				t.Fatalf("%s: processor %d released at %v, schedule says %v", pol, p, v, last[int64(p)])
			}
		}
	}
}

func TestDeterminism(t *testing.T) {
	m := New(nil)
	for _, p := range []simcore.Params{
		{"dispatcher": "RANDOM", "min_demand": 1.0, "job_table": true, "proc_table": true},
		{"dispatcher": "LCPF", "workload": "subsets", "tinf_max_h": 4.0, "schedule_table": true},
		{"dispatcher": "PRIORITY", "estimates": "predicted", "selector": "dp", "reward": "banded", "top": int64(3)},
	} {
		modeltest.RoundTrip(t, m, p, 77)
	}
	// RANDOM depends on the seed, the others do not.
	a := modeltest.Run(t, m, simcore.Params{"dispatcher": "RANDOM", "night_rank": int64(1)}, 1)
	b := modeltest.Run(t, m, simcore.Params{"dispatcher": "RANDOM", "night_rank": int64(1)}, 2)
	if a.Metrics["median_completion_h"] == b.Metrics["median_completion_h"] {
		t.Fatal("RANDOM ignores the seed")
	}
	// trace_from_seed: the nights follow the seed (LCPF is deterministic
	// on given nights), and seed s is the trace of trace_seed s.
	c := modeltest.Run(t, m, simcore.Params{"dispatcher": "LCPF", "night_rank": int64(1), "trace_from_seed": true}, 1)
	d := modeltest.Run(t, m, simcore.Params{"dispatcher": "LCPF", "night_rank": int64(1), "trace_from_seed": true}, 2)
	e := modeltest.Run(t, m, simcore.Params{"dispatcher": "LCPF", "night_rank": int64(1), "trace_seed": int64(2)}, 9)
	if c.Metrics["demand"] == d.Metrics["demand"] || d.Metrics["demand"] != e.Metrics["demand"] {
		t.Fatalf("trace_from_seed: demand %v (seed 1), %v (seed 2), %v (trace_seed 2)", c.Metrics["demand"], d.Metrics["demand"], e.Metrics["demand"])
	}
}

func TestBadParams(t *testing.T) {
	m := New(simcore.Dirs{"testdata"})
	s := m.Schema()
	cases := []struct {
		p    simcore.Params
		want string
	}{
		{simcore.Params{"dispatcher": "CPA", "estimates": "predicted"}, "parameter estimates: CPA needs"},
		{simcore.Params{"team_cap": 0.3}, "parameter team_cap"},
		{simcore.Params{"dp_epsilon": 0.1}, "parameter dp_epsilon"},
		{simcore.Params{"workload": "file"}, "parameter nights_file"},
		{simcore.Params{"nights_file": "two_nights.csv"}, "parameter nights_file: set only with workload: file"},
		{simcore.Params{"workload": "file", "nights_file": "missing.csv"}, "parameter nights_file"},
		{simcore.Params{"night_rank": int64(57)}, "parameter night_rank: 57, but only 56 nights"},
		{simcore.Params{"min_demand": 3.0}, "parameter min_demand"},
		{simcore.Params{"workload": "subsets", "tinf_max_h": 0.01}, "parameter tinf_max_h"},
		{simcore.Params{"workload": "subsets", "top": int64(3)}, "not used by workload subsets"},
		{simcore.Params{"budget_rule": "theorem4", "selector": "none"}, "parameter budget_rule"},
		{simcore.Params{"workload": "file", "nights_file": "two_nights.csv", "gen_lo": 0.3}, "parameters gen_*"},
		{simcore.Params{"workload": "file", "nights_file": "two_nights.csv", "trace_from_seed": true}, "parameter trace_from_seed"},
		{simcore.Params{"selector": "bnb", "reward": "size", "bnb_node_limit": int64(10), "night_rank": int64(1)}, "bnb_node_limit"},
	}
	for _, c := range cases {
		full, err := s.Complete(c.p)
		if err != nil {
			t.Fatal(err)
		}
		_, err = m.Run(context.Background(), full, 1)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err = %v, want %q", c.p, err, c.want)
		}
	}
}

func TestTeamCapsAndMaxK(t *testing.T) {
	m := New(nil)
	r := modeltest.Run(t, m, simcore.Params{"selector": "bnb", "team_cap": 0.3, "night_rank": int64(2), "job_table": true}, 1)
	team := map[int64]float64{}
	c := r.Tables["completions"].Columns
	for i, tm := range c["team"].([]int64) {
		team[tm] += c["t1_h"].([]float64)[i]
	}
	for tm, used := range team {
		if used > 0.3*13*1000*(1+1e-9) {
			t.Fatalf("team %d uses %.0f CPU-h, over its cap %.0f", tm, used, 0.3*13000)
		}
	}
	for _, pol := range Policies {
		r := modeltest.Run(t, m, simcore.Params{"selector": "maxk", "reward": "unit", "dispatcher": pol, "night_rank": int64(5)}, 3)
		if r.Metrics["late"] != int64(0) || r.Metrics["selected"].(int64) == 0 {
			t.Fatalf("MAXK with %s: %v selected, %v late", pol, r.Metrics["selected"], r.Metrics["late"])
		}
	}
}

func TestFig3Shape(t *testing.T) {
	// The dispatchers' completion profiles on the 32 overloaded nights after
	// greedy selection to 13,000 CPU-hours (§5.3): STCPU finishes half its
	// jobs early, CPA almost none by 8 h, LCPF and CPA leave no processor
	// busy an hour after D while STCPU does.
	if testing.Short() {
		t.Skip("skipped by -short: 32 nights × 4 dispatchers (run without -short)")
	}
	m := New(nil)
	met := map[string]map[string]any{}
	for _, pol := range []string{"STCPU", "PRIORITY", "LCPF", "CPA"} {
		met[pol] = modeltest.Run(t, m, simcore.Params{"dispatcher": pol, "min_demand": 1.0}, 1).Metrics
	}
	f := func(pol, k string) float64 { return met[pol][k].(float64) }
	if !(f("STCPU", "median_completion_h") < 6 && f("STCPU", "median_completion_h") < f("PRIORITY", "median_completion_h") &&
		f("PRIORITY", "median_completion_h") < f("LCPF", "median_completion_h")) {
		t.Errorf("median completion: STCPU %.2f PRIORITY %.2f LCPF %.2f", f("STCPU", "median_completion_h"), f("PRIORITY", "median_completion_h"), f("LCPF", "median_completion_h"))
	}
	if !(f("CPA", "done_by_8h") < 0.1 && f("STCPU", "busy_at_d1h") > f("LCPF", "busy_at_d1h")+0.1) {
		t.Errorf("CPA by 8 h %.3f; busy an hour after D: STCPU %.3f LCPF %.3f", f("CPA", "done_by_8h"), f("STCPU", "busy_at_d1h"), f("LCPF", "busy_at_d1h"))
	}
}

// TestTheorem4Model is Theorem 4 through the model: unit rewards, greedy
// with budget_rule theorem4, every dispatcher, random §5.5 subsets with
// short critical paths: no selected job is late.
func TestTheorem4Model(t *testing.T) {
	m := New(nil)
	for _, pol := range Policies {
		for seed := uint64(1); seed <= 3; seed++ {
			r := modeltest.Run(t, m, simcore.Params{"workload": "subsets", "tinf_max_h": 2.0, "reward": "unit", "budget_rule": "theorem4", "dispatcher": pol}, seed)
			if r.Metrics["late"] != int64(0) || r.Metrics["selected"].(int64) < 10 {
				t.Fatalf("%s seed %d: %v selected, %v late", pol, seed, r.Metrics["selected"], r.Metrics["late"])
			}
			// r = 1 − 0.999·T∞max/13 ≥ 1 − 2/13: the budget is at least 11,000 CPU-h.
			if d := r.Metrics["selected_demand"].(float64); d < 10000 || d > 13000 {
				t.Fatalf("%s seed %d: selected demand %.0f", pol, seed, d)
			}
		}
	}
}

// TestPooledGap checks selection_gap_pooled against the nights run one by
// one: (Σ optimum − Σ greedy)/Σ optimum, with each night's optimum
// recovered from its own gap, and never above the largest nightly gap.
func TestPooledGap(t *testing.T) {
	m := New(nil)
	base := simcore.Params{"top": int64(3), "reward": "linear", "selector": "greedy", "budget_h": 13.0, "dispatcher": "STCPU"}
	with := func(rank int64) simcore.Params {
		p := simcore.Params{"night_rank": rank}
		for k, v := range base {
			p[k] = v
		}
		return p
	}
	var optSum, selSum, largest float64
	for rank := int64(1); rank <= 3; rank++ {
		r := modeltest.Run(t, m, with(rank), 1)
		sel, gap := r.Metrics["selected_reward"].(float64), r.Metrics["selection_gap"].(float64)
		optSum += sel / (1 - gap)
		selSum += sel
		largest = max(largest, gap)
	}
	all := modeltest.Run(t, m, with(0), 1)
	pooled := all.Metrics["selection_gap_pooled"].(float64)
	if want := (optSum - selSum) / optSum; math.Abs(pooled-want) > 1e-9 {
		t.Fatalf("selection_gap_pooled %v, want %v from the nights one by one", pooled, want)
	}
	if largest == 0 || pooled <= 0 || pooled > largest || all.Metrics["selection_gap"] != largest {
		t.Fatalf("pooled gap %v, largest nightly gap %v (run: %v): want 0 < pooled ≤ largest", pooled, largest, all.Metrics["selection_gap"])
	}
}

// TestUsesSeed: a job the model says ignores its seed gives the same
// results under two seeds (the fixed nights of a file, a deterministic
// dispatcher); RANDOM dispatch, a random subset and a trace generated from
// the seed use it.
func TestUsesSeed(t *testing.T) {
	m := New(simcore.Dirs{"testdata"})
	schema := m.Schema()
	for _, c := range []struct {
		params simcore.Params
		uses   bool
	}{
		{simcore.Params{"workload": "file", "nights_file": "two_nights.csv", "dispatcher": "LCPF"}, false},
		{simcore.Params{"workload": "file", "nights_file": "two_nights.csv", "dispatcher": "CPA", "selector": "greedy"}, false},
		{simcore.Params{"workload": "file", "nights_file": "two_nights.csv", "dispatcher": "RANDOM"}, true},
		{simcore.Params{"workload": "subsets"}, true},
		{simcore.Params{"trace_from_seed": true}, true},
	} {
		p, err := schema.Complete(c.params)
		if err != nil {
			t.Fatal(err)
		}
		if got := m.UsesSeed(p); got != c.uses {
			t.Errorf("%v: UsesSeed = %v, want %v", c.params, got, c.uses)
		}
		if !c.uses {
			a, b := modeltest.Run(t, m, p, 1), modeltest.Run(t, m, p, 987654321)
			if err := modeltest.Same(schema, a, b); err != nil {
				t.Errorf("%v: said not to use its seed, but seeds 1 and 987654321 differ: %v", c.params, err)
			}
		}
	}
}
