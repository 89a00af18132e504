package divisible

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"schedfarm/simcore"
	"schedfarm/simcore/check"
	"schedfarm/simcore/modeltest"
	"schedfarm/simcore/rng"
)

func complete(t testing.TB, p simcore.Params) simcore.Params {
	t.Helper()
	s := New().Schema()
	full, err := s.Complete(p)
	if err != nil {
		t.Fatal(err)
	}
	return full
}

// validate runs the independent checker on an executed schedule: the nodes
// (capacity N, one chunk at a time, after arrival, by the deadline), the
// head node's link (one transmission at a time), and the reservations the
// planner made (never two on one node at once).
func validate(c Cluster, tasks []Task, run *Run) error {
	var nodes, link, reserved check.Schedule
	nodes.Capacity, link.Capacity, reserved.Capacity = c.N, 1, c.N
	for _, p := range run.Pieces {
		t := tasks[p.Task]
		id := int64(p.Task)
		nodes.Entries = append(nodes.Entries, check.Entry{Task: id, Part: p.Part, Node: p.Node,
			Release: t.A, Start: p.Start, End: p.End, Deadline: t.Deadline()})
		link.Entries = append(link.Entries, check.Entry{Task: id, Part: p.Part, Node: 0,
			Release: t.A, Start: p.Start, End: p.TxEnd, Deadline: t.Deadline()})
		reserved.Entries = append(reserved.Entries, check.Entry{Task: id, Part: p.Part, Node: p.Node,
			Release: t.A, Start: p.ReservedFrom, End: p.ReservedUntil, Deadline: check.NoDeadline})
		if p.Start < p.ReservedFrom || p.End > p.ReservedUntil+1e-9*math.Max(1, p.End) {
			return fmt.Errorf("task %d part %d runs [%v, %v] outside its reservation [%v, %v]",
				p.Task, p.Part, p.Start, p.End, p.ReservedFrom, p.ReservedUntil)
		}
	}
	want := 0
	for _, o := range run.Outcomes {
		if o.Accepted {
			want += o.Nodes
		}
	}
	if want != len(run.Pieces) || want == 0 {
		return fmt.Errorf("%d pieces recorded, accepted tasks use %d nodes", len(run.Pieces), want)
	}
	for _, name := range []string{"nodes", "link", "reservations"} {
		s := map[string]check.Schedule{"nodes": nodes, "link": link, "reservations": reserved}[name]
		if err := check.Validate(s, 1e-6); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return nil
}

// Property test over random instances: every algorithm, both planning
// readings, both release rules. Theorem 4 (every node of every DLT task
// ends by the estimate), every accepted task meets its deadline, and the
// executed schedule passes the independent checker.
func TestPropertiesRandomInstances(t *testing.T) {
	for seed := uint64(1); seed <= 60; seed++ {
		r := rand.New(rand.NewPCG(seed, 2007))
		c := Cluster{N: 1 + r.IntN(12), Cms: 0.2 + 3*r.Float64(), Cps: 1 + 200*r.Float64()}
		w := Workload{Load: 0.1 + 1.4*r.Float64(), AvgSigma: 10 + 300*r.Float64(), DCRatio: 1.5 + 20*r.Float64(),
			SigmaDist: []string{"normal", "uniform"}[r.IntN(2)], Deadlines: []string{"average", "per_task"}[r.IntN(2)]}
		w.TotalTime = 300 * c.E(w.AvgSigma, c.N) / w.Load
		w.Integer = seed%3 == 0
		tasks := Generate(c, w, rng.New(seed))
		for _, name := range AlgorithmNames() {
			alg, _ := ParseAlgorithm(name)
			opt := Options{PerTask: r.IntN(2) == 0, SplitCode: r.IntN(2) == 0, ReleaseActual: r.IntN(2) == 0, IntegerTime: w.Integer}
			run, err := Simulate(context.Background(), c, alg, opt, tasks, true)
			if err != nil {
				t.Fatalf("seed %d %s %+v %+v: %v", seed, name, c, opt, err)
			}
			if run.DeadlineMisses != 0 || run.Thm4Violations != 0 {
				t.Fatalf("seed %d %s %+v: %d deadline misses, %d Theorem 4 violations", seed, name, opt, run.DeadlineMisses, run.Thm4Violations)
			}
			for _, p := range run.Pieces {
				if o := run.Outcomes[p.Task]; alg.Part == DLT && p.End > o.Est*(1+1e-12) {
					t.Fatalf("seed %d %s: task %d node %d ends %v after estimate %v (Theorem 4)", seed, name, p.Task, p.Node, p.End, o.Est)
				}
			}
			if err := validate(c, tasks, run); err != nil {
				t.Fatalf("seed %d %s %+v: %v", seed, name, opt, err)
			}
		}
	}
}

// TestRunDeterministicValidAndCommonRandomNumbers: every algorithm's
// result round-trips through the schema and repeats bit for bit, its
// schedule table passes the checker (nodes, the head node's link, the
// reservations), and all algorithms see one instance.
func TestRunDeterministicValidAndCommonRandomNumbers(t *testing.T) {
	m := New()
	arrivals := int64(-1)
	for _, name := range AlgorithmNames() {
		a := modeltest.RoundTrip(t, m, simcore.Params{"algorithm": name, "load": 0.8, "total_time": 200_000.0,
			"task_table": true, "schedule": true}, 7)
		n := 16 // n_nodes' default
		modeltest.Schedule(t, a, n, modeltest.Layout{Task: "task", Part: "part", Node: "node", Release: "arrival",
			Start: "start", End: "end", Deadline: "deadline"}, 1e-6)
		modeltest.Schedule(t, a, 1, modeltest.Layout{Task: "task", Part: "part", Release: "arrival",
			Start: "start", End: "tx_end", Deadline: "deadline"}, 1e-6)
		modeltest.Schedule(t, a, n, modeltest.Layout{Task: "task", Part: "part", Node: "node", Release: "arrival",
			Start: "reserved_from", End: "reserved_until"}, 1e-6)
		if arrivals >= 0 && a.Metrics["arrivals"] != arrivals {
			t.Errorf("%s: %v arrivals, other algorithms %d", name, a.Metrics["arrivals"], arrivals)
		}
		arrivals = a.Metrics["arrivals"].(int64)
		if a.Tables["tasks"].Len() != int(arrivals) {
			t.Errorf("%s: tasks table has %d rows", name, a.Tables["tasks"].Len())
		}
		if a.Metrics["deadline_misses"].(int64) != 0 || a.Metrics["thm4_violations"].(int64) != 0 {
			t.Errorf("%s: %v", name, a.Metrics)
		}
	}
}

// The paper's qualitative results at the baseline (lin2007 §5.1, Fig. 3):
// EDF-DLT rejects no more than EDF-OPR-MN, on a shortened run.
func TestBaselineDLTBeatsOPRMN(t *testing.T) {
	m := New()
	ratio := func(alg string) float64 {
		p := complete(t, simcore.Params{"algorithm": alg, "load": 1.0, "total_time": 2_000_000.0})
		r, err := m.Run(context.Background(), p, 3)
		if err != nil {
			t.Fatal(err)
		}
		return r.Metrics["reject_ratio"].(float64)
	}
	if dlt, mn := ratio("EDF-DLT"), ratio("EDF-OPR-MN"); dlt > mn {
		t.Errorf("EDF-DLT rejects %.4f, EDF-OPR-MN %.4f", dlt, mn)
	}
}

func TestRunStopsOnCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := New().Run(ctx, complete(t, simcore.Params{"load": 1.0}), 1)
	if err == nil {
		t.Fatal("no error from a cancelled run")
	}
}

// BenchmarkModel_Divisible: one 10,000,000-time-unit run at SystemLoad 1.0,
// baseline cluster, per algorithm (target < 200 ms each).
func BenchmarkModel_Divisible(b *testing.B) {
	m := New()
	for _, name := range AlgorithmNames() {
		p := complete(b, simcore.Params{"algorithm": name, "load": 1.0})
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := m.Run(context.Background(), p, uint64(i)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestRtgridReleaseOnlyHelpsDLT: the rtgrid bookkeeping (node_release =
// rtgrid) frees the nodes of DLT tasks with an IIT at r_n, so EDF-DLT rejects
// fewer tasks than with the faithful release; other algorithms are unchanged.
func TestRtgridReleaseOnlyHelpsDLT(t *testing.T) {
	c := Cluster{N: 16, Cms: 1, Cps: 100}
	w := Workload{Load: 1, AvgSigma: 200, DCRatio: 2, TotalTime: 1e6, SigmaDist: "normal", Deadlines: "average"}
	tasks := Generate(c, w, rng.New(5))
	rej := func(name string, opt Options) int {
		alg, _ := ParseAlgorithm(name)
		run, err := Simulate(context.Background(), c, alg, opt, tasks, false)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, o := range run.Outcomes {
			if !o.Accepted {
				n++
			}
		}
		return n
	}
	if a, b := rej("EDF-DLT", Options{ReleaseRtgrid: true}), rej("EDF-DLT", Options{}); a >= b {
		t.Errorf("EDF-DLT rejects %d with rtgrid release, %d with the estimate; want fewer", a, b)
	}
	if a, b := rej("EDF-OPR-MN", Options{ReleaseRtgrid: true}), rej("EDF-OPR-MN", Options{}); a != b {
		t.Errorf("EDF-OPR-MN rejects %d with rtgrid release, %d with the estimate; want equal", a, b)
	}
}

// TestIITShare: iit_share counts the accepted tasks whose nodes' reserved
// starts differ (an inserted idle time), over the arrivals. OPR-MN and
// OPR-AN start a task's nodes together, so theirs is 0; the count agrees with
// the schedule table; and a DLT run that dispatches no task with an IIT takes
// exactly OPR-MN's decisions (the paper's DLT differs from OPR-MN only
// through IITs, §4.2).
func TestIITShare(t *testing.T) {
	m := New()
	run := func(alg string, load, dc float64) *simcore.Result {
		p := complete(t, simcore.Params{"algorithm": alg, "load": load, "dc_ratio": dc,
			"total_time": 300_000.0, "schedule": true, "task_table": true})
		r, err := m.Run(context.Background(), p, 11)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	for _, tc := range []struct {
		alg      string
		load, dc float64
		positive bool // some task must use an IIT
	}{
		{"EDF-OPR-MN", 1, 2, false},
		{"FIFO-OPR-AN", 1, 2, false},
		{"EDF-DLT", 1, 2, true},
		{"FIFO-DLT", 1, 10, true},
		{"EDF-USERSPLIT", 1, 2, true},
		{"EDF-DLT", 0.1, 100, false},
	} {
		t.Run(fmt.Sprintf("%s/load=%g/dc=%g", tc.alg, tc.load, tc.dc), func(t *testing.T) {
			r := run(tc.alg, tc.load, tc.dc)
			share := r.Metrics["iit_share"].(float64)
			arrivals := r.Metrics["arrivals"].(int64)
			sch := r.Tables["schedule"].Columns
			task, from := sch["task"].([]int64), sch["reserved_from"].([]float64)
			lo, hi := map[int64]float64{}, map[int64]float64{}
			for i, id := range task {
				if v, ok := lo[id]; !ok || from[i] < v {
					lo[id] = from[i]
				}
				hi[id] = max(hi[id], from[i])
			}
			iit := 0
			for id := range lo {
				if lo[id] < hi[id] {
					iit++
				}
			}
			if want := float64(iit) / float64(arrivals); share != want {
				t.Errorf("iit_share %v, schedule table gives %d/%d = %v", share, iit, arrivals, want)
			}
			if tc.positive != (share > 0) {
				t.Errorf("iit_share %v, want positive: %v", share, tc.positive)
			}
		})
	}
	t.Run("no IIT means OPR-MN's decisions", func(t *testing.T) {
		dlt, mn := run("EDF-DLT", 0.1, 100), run("EDF-OPR-MN", 0.1, 100)
		if dlt.Metrics["iit_share"].(float64) != 0 {
			t.Fatalf("EDF-DLT dispatched %v of the arrivals with an IIT at DCRatio 100, load 0.1", dlt.Metrics["iit_share"])
		}
		a, b := dlt.Tables["tasks"].Columns["admitted"].([]bool), mn.Tables["tasks"].Columns["admitted"].([]bool)
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("task %d: EDF-DLT admitted %v, EDF-OPR-MN %v, with no IIT", i, a[i], b[i])
			}
		}
	})
}

// TestMeanExecTimeByHand pins mean_exec_time on two tasks, Cms = 1,
// Cps = 3, N = 2 (β = 3/4). The execution time is counted as lin2007
// does: from r_n, the available time of the task's last node (the start
// time of Eq. 7, C(n) = r_n + Ê), to the task's actual completion.
//
// Task 0 (A = 0, σ = 1, D = 6): γ = 5/6, ñ_min = 1; one node from 0,
// E(1, 1) = 4, so it completes at 4 and its execution time is 4. The head
// node is free at 1, node 0 at 4 (the estimate).
//
// Task 1 (A = 2, σ = 4, D = 12, deadline 14): at τ = 2 one node is free
// and ñ_min = ⌈ln(2/3)/ln(3/4)⌉ = 2, so it waits for τ = 4 (γ = 0.6,
// ñ_min = 2) with r = (2, 4). DLT: the two-node case of
// TestDLTPartitionByHand shifted by 2, α = (13/21, 8/21), Ê = 60/7,
// estimate 88/7 <= 14; the chunks end at 2 + 208/21 and 2 + 180/21, so it
// completes at 250/21 and its execution time is 250/21 − 4 = 166/21 < Ê.
// OPR-MN: both nodes from 4, E(4, 2) = 64/7, completion 4 + 64/7 <= 14,
// execution time 64/7.
//
// mean_exec_time: DLT (4 + 166/21)/2 = 125/21, OPR-MN (4 + 64/7)/2 = 46/7.
// Counted from the first transmission instead, task 1 would take
// 250/21 − 2 = 208/21 under DLT, longer than OPR-MN's 64/7: the IIT's early
// node works before r_n, which the paper's count leaves out.
func TestMeanExecTimeByHand(t *testing.T) {
	c := Cluster{N: 2, Cms: 1, Cps: 3}
	tasks := []Task{{ID: 0, A: 0, Sigma: 1, D: 6}, {ID: 1, A: 2, Sigma: 4, D: 12}}
	cfg := Config{Cluster: c, Workload: Workload{TotalTime: 20}}
	for _, tc := range []struct {
		alg         string
		start, exec []float64 // per task: r_n, completion − r_n
		mean        float64
	}{
		{"EDF-DLT", []float64{0, 4}, []float64{4, 166.0 / 21}, 125.0 / 21},
		{"FIFO-DLT", []float64{0, 4}, []float64{4, 166.0 / 21}, 125.0 / 21},
		{"EDF-OPR-MN", []float64{0, 4}, []float64{4, 64.0 / 7}, 46.0 / 7},
	} {
		t.Run(tc.alg, func(t *testing.T) {
			alg, err := ParseAlgorithm(tc.alg)
			if err != nil {
				t.Fatal(err)
			}
			run, err := Simulate(context.Background(), c, alg, Options{}, tasks, false)
			if err != nil {
				t.Fatal(err)
			}
			for i, o := range run.Outcomes {
				if !o.Accepted || o.Nodes != i+1 {
					t.Fatalf("task %d: accepted %v on %d nodes, want %d nodes", i, o.Accepted, o.Nodes, i+1)
				}
				approx(t, fmt.Sprintf("task %d r_n", i), o.Start, tc.start[i], 1e-12)
				approx(t, fmt.Sprintf("task %d execution time", i), o.Act-o.Start, tc.exec[i], 1e-12)
			}
			if alg.Part == DLT {
				approx(t, "task 1 estimate r_n + Ê", run.Outcomes[1].Est, 4+60.0/7, 1e-12)
			}
			got := result(cfg, tasks, run).Metrics["mean_exec_time"].(float64)
			approx(t, "mean_exec_time", got, tc.mean, 1e-12)
		})
	}
}

// TestMeanExecTimeBounds checks mean_exec_time on random instances
// against the schedule table and the paper's bounds. It is the mean over
// the accepted tasks of completion − r_n, r_n the latest reserved start of
// the task's sub-tasks. Per task, an OPR task's execution time is
// E(σ, n) (its nodes start together at r_n, Eq. 9), at least E(σ, N), the
// minimum execution time of §5; a DLT task's is positive and at most its
// estimate's Ê, hence at most E(σ, n) (Theorem 4, Eq. 9). Every algorithm,
// every reading.
func TestMeanExecTimeBounds(t *testing.T) {
	m := New()
	for _, inst := range []simcore.Params{
		{"load": 1.0, "total_time": 300_000.0},
		{"load": 0.5, "dc_ratio": 10.0, "cms": 2.0, "cps": 500.0, "total_time": 2_000_000.0},
		{"load": 0.9, "avg_sigma": 400.0, "planning": "per_task", "node_release": "actual", "total_time": 300_000.0},
		{"load": 0.8, "user_split": "code", "node_release": "rtgrid", "sigma_dist": "uniform",
			"deadline_rule": "per_task", "total_time": 300_000.0},
		{"load": 1.0, "integer_time": true, "n_nodes": int64(32), "cps": 50.0, "total_time": 300_000.0},
	} {
		for _, name := range AlgorithmNames() {
			p := simcore.Params{"algorithm": name, "schedule": true, "task_table": true}
			for k, v := range inst {
				p[k] = v
			}
			full := complete(t, p)
			cfg, err := Decode(full)
			if err != nil {
				t.Fatal(err)
			}
			r, err := m.Run(context.Background(), full, 17)
			if err != nil {
				t.Fatal(err)
			}
			sch, tab := r.Tables["schedule"].Columns, r.Tables["tasks"].Columns
			task, from := sch["task"].([]int64), sch["reserved_from"].([]float64)
			rn := make([]float64, len(tab["task"].([]int64)))
			for i := range rn {
				rn[i] = math.Inf(-1)
			}
			for i, id := range task {
				rn[id] = max(rn[id], from[i])
			}
			sigma, nodes := tab["sigma"].([]float64), tab["nodes"].([]int64)
			est, act := tab["est_completion"].([]float64), tab["act_completion"].([]float64)
			c := cfg.Cluster
			sum, accepted := 0.0, 0
			for i, ok := range tab["admitted"].([]bool) {
				if !ok {
					continue
				}
				exec, n := act[i]-rn[i], int(nodes[i])
				sum += exec
				accepted++
				e := c.E(sigma[i], n)
				switch cfg.Algorithm.Part {
				case OPRMN, OPRAN:
					if math.Abs(exec-e) > 1e-9*e || exec < c.E(sigma[i], c.N)*(1-1e-12) {
						t.Fatalf("%s %v: task %d on %d nodes: execution time %v, E(σ, n) = %v, E(σ, N) = %v",
							name, inst, i, n, exec, e, c.E(sigma[i], c.N))
					}
				case DLT:
					ehat := est[i] - rn[i]
					if exec <= 0 || exec > ehat+1e-9*ehat || !cfg.Options.IntegerTime && ehat > e*(1+1e-9) {
						t.Fatalf("%s %v: task %d on %d nodes: execution time %v, Ê = %v, E(σ, n) = %v",
							name, inst, i, n, exec, ehat, e)
					}
				default:
					if exec <= 0 {
						t.Fatalf("%s %v: task %d: execution time %v", name, inst, i, exec)
					}
				}
			}
			if accepted == 0 {
				t.Fatalf("%s %v: no task accepted", name, inst)
			}
			got, want := r.Metrics["mean_exec_time"].(float64), sum/float64(accepted)
			if math.Abs(got-want) > 1e-9*want {
				t.Errorf("%s %v: mean_exec_time %v, the tables give %v", name, inst, got, want)
			}
		}
	}
}
