package dssp

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"

	"schedfarm/simcore"
	"schedfarm/simcore/rng"
	"schedfarm/simcore/workload"
)

// Model is the DSSP model of anderson2005.
type Model struct {
	data simcore.DataDir
	// cache keeps the generated traces and the parsed night files (each
	// read-only once stored), at most maxCached: with trace_from_seed
	// every replicate generates its own.
	cache *workload.TraceCache
}

type traceKey struct {
	seed uint64
	gen  genKey
}

// genKey is the part of the generator a run may set (Config.Gen); the
// other fields keep DefaultGenerator's values.
type genKey struct {
	estimateSigma, tinfSigma, tinfCap, lo, renderWeight, renderMedian, renderSigma, priorityT1Rho, topBand, demandMedian float64
}

// defaultGenKey is DefaultGenerator's key with the given estimate noise.
func defaultGenKey(estimateSigma float64) genKey {
	g := DefaultGenerator()
	return genKey{estimateSigma: estimateSigma, tinfSigma: g.TInfSigma, tinfCap: g.TInfCap, lo: g.LO,
		renderWeight: g.RenderWeight, renderMedian: g.RenderMedian, renderSigma: g.RenderSigma, priorityT1Rho: g.PriorityT1Rho,
		topBand: g.PriorityBands[0], demandMedian: g.DemandMedian}
}

// generator is DefaultGenerator with the run's settings.
func (k genKey) generator() Generator {
	g := DefaultGenerator()
	g.EstimateSigma, g.TInfSigma, g.TInfCap, g.LO = k.estimateSigma, k.tinfSigma, k.tinfCap, k.lo
	g.RenderWeight, g.RenderMedian, g.RenderSigma = k.renderWeight, k.renderMedian, k.renderSigma
	g.PriorityT1Rho, g.DemandMedian = k.priorityT1Rho, k.demandMedian
	if k.topBand != g.PriorityBands[0] {
		// The other bands keep their relative shares.
		rest := 1 - g.PriorityBands[0]
		bands := []float64{k.topBand}
		for _, b := range g.PriorityBands[1:] {
			bands = append(bands, b/rest*(1-k.topBand))
		}
		g.PriorityBands = bands
	}
	return g
}

// maxCached bounds the traces and files a Model keeps (together).
const maxCached = 16

// New returns the model; data is where night files are opened (may be nil
// when only synthetic workloads are run).
func New(data simcore.DataDir) *Model {
	return &Model{data: data, cache: workload.NewTraceCache(data).Limit(maxCached)}
}

// Name implements simcore.Model.
func (*Model) Name() string { return "dssp" }

// Version implements simcore.Model.
func (*Model) Version() string { return "2" }

// Doc implements simcore.Model.
func (*Model) Doc() string {
	return "value-maximizing deadline scheduling of staged jobs: selection + non-delay dispatch (Anderson et al. SPAA 2005; anderson2005)"
}

// Schema implements simcore.Model.
func (*Model) Schema() simcore.Schema { return schema() }

// Config is a decoded, checked parameter set.
type Config struct {
	Workload      string
	TraceSeed     uint64
	TraceFromSeed bool
	File          string
	P             int
	D             float64
	MinDemand     float64
	Top, Rank     int
	TInfMax       float64
	SubsetDemand  float64
	EstimateSigma float64
	// Gen holds the generator settings of the synthetic trace.
	Gen       genKey
	DropLong  bool
	Reward    Reward
	Selector  string
	Ties      Ties
	Budget    float64 // r·D, hours
	Theorem4  bool    // r from Theorem 4 instead of Budget
	Policy    Policy
	Predicted bool
	Epsilon   float64
	TeamCap   float64
	NodeLimit int
	JobTable  bool
	ProcTable bool
	Schedule  bool
}

// Decode reads a completed parameter set and refuses inconsistent ones
// with an error naming the parameter.
func Decode(p simcore.Params) (Config, error) {
	c := Config{
		Workload: p.String("workload"), TraceSeed: uint64(p.Int("trace_seed")), TraceFromSeed: p.Bool("trace_from_seed"), File: p.String("nights_file"),
		P: int(p.Int("processors")), D: p.Float("deadline_h"), MinDemand: p.Float("min_demand"),
		Top: int(p.Int("top")), Rank: int(p.Int("night_rank")), TInfMax: p.Float("tinf_max_h"),
		SubsetDemand: p.Float("subset_demand"), EstimateSigma: p.Float("estimate_sigma"),
		Gen: genKey{estimateSigma: p.Float("estimate_sigma"), tinfSigma: p.Float("gen_tinf_sigma"), tinfCap: p.Float("gen_tinf_cap_h"),
			lo: p.Float("gen_lo"), renderWeight: p.Float("gen_render_weight"), renderMedian: p.Float("gen_render_median"), renderSigma: p.Float("gen_render_sigma"),
			priorityT1Rho: p.Float("gen_priority_t1_rho"), topBand: p.Float("gen_top_band"),
			demandMedian: p.Float("gen_demand_median")},
		DropLong: p.Bool("drop_long"),
		Selector: p.String("selector"), Theorem4: p.String("budget_rule") == "theorem4", Ties: Ties(p.String("greedy_ties")), Budget: p.Float("budget_h"), Predicted: p.String("estimates") == "predicted",
		Epsilon: p.Float("dp_epsilon"), TeamCap: p.Float("team_cap"), NodeLimit: int(p.Int("bnb_node_limit")),
		JobTable: p.Bool("job_table"), ProcTable: p.Bool("proc_table"), Schedule: p.Bool("schedule_table"),
	}
	var err error
	if c.Reward, err = ParseReward(p.String("reward")); err != nil {
		return c, fmt.Errorf("parameter reward: %w", err)
	}
	if c.Policy, err = ParsePolicy(p.String("dispatcher")); err != nil {
		return c, fmt.Errorf("parameter dispatcher: %w", err)
	}
	switch {
	case c.Workload == "file" && c.File == "":
		return c, errors.New("parameter nights_file: workload file needs a night file (a CSV relative to the data directory; see docs/models/dssp.md, Night files)")
	case c.Workload != "file" && c.File != "":
		return c, fmt.Errorf("parameter nights_file: set only with workload: file (workload is %s)", c.Workload)
	case c.Predicted && c.Policy == CPA:
		return c, errors.New("parameter estimates: CPA needs every task's length, which the predicted mode does not have (§A); use estimates: actual or another dispatcher")
	case c.TeamCap > 0 && c.Selector != "bnb":
		return c, fmt.Errorf("parameter team_cap: per-team caps are a side constraint only selector bnb handles (selector is %s)", c.Selector)
	case c.Epsilon > 0 && c.Selector != "dp":
		return c, fmt.Errorf("parameter dp_epsilon: reward scaling applies to selector dp only (selector is %s)", c.Selector)
	case c.Theorem4 && c.Selector == "none":
		return c, errors.New("parameter budget_rule: theorem4 sets the selection budget; selector none has none")
	case c.Workload == "file" && c.TraceFromSeed:
		return c, errors.New("parameter trace_from_seed: a night file has no generator seed; leave it false with workload file")
	case c.Workload == "file" && c.Gen != defaultGenKey(c.EstimateSigma):
		return c, errors.New("parameters gen_*: the generator settings apply to workload synthetic and subsets, not to a night file; leave them at their defaults")
	case c.Workload == "subsets" && (c.Rank != 0 || c.Top != 0 || c.MinDemand != 0):
		return c, errors.New("parameters night_rank, top, min_demand: not used by workload subsets (one subset per run); leave them at 0")
	}
	return c, nil
}

// DataFiles implements simcore.DataReader: workload file reads
// nights_file.
func (*Model) DataFiles(p simcore.Params) []simcore.DataFile {
	if p.String("workload") != "file" || p.String("nights_file") == "" {
		return nil
	}
	return []simcore.DataFile{{Param: "nights_file", Name: p.String("nights_file")}}
}

// Run implements simcore.Model.
func (m *Model) Run(ctx context.Context, p simcore.Params, seed uint64) (*simcore.Result, error) {
	cfg, err := Decode(p)
	if err != nil {
		return nil, err
	}
	nights, err := m.nights(cfg, seed)
	if err != nil {
		return nil, err
	}
	outs := make([]*NightRun, len(nights))
	ms, err := simcore.Timed(ctx, func() error {
		for i := range nights {
			if err := ctx.Err(); err != nil {
				return err
			}
			var err error
			if outs[i], err = Solve(&nights[i], cfg, seed); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return result(cfg, outs, ms), nil
}

// nights returns the nights of one run: the kept nights of the trace or
// file in decreasing demand, or one random subset.
func (m *Model) nights(cfg Config, seed uint64) ([]Night, error) {
	var all []Night
	var stats *jobStats
	switch cfg.Workload {
	case "file":
		var err error
		if all, err = m.file(cfg.File); err != nil {
			return nil, err
		}
	default:
		ts := cfg.TraceSeed
		if cfg.TraceFromSeed {
			ts = seed
		}
		stats = m.trace(ts, cfg.Gen)
		all = stats.nights
	}
	if cfg.Workload == "subsets" {
		sub, err := stats.subset(cfg.TInfMax, cfg.SubsetDemand*float64(cfg.P)*cfg.D, rng.New(seed).Stream("subset"))
		if err != nil {
			return nil, fmt.Errorf("parameter tinf_max_h: %w", err)
		}
		return []Night{sub}, nil
	}
	var kept []Night
	pd := float64(cfg.P) * cfg.D
	for _, n := range SortByDemand(all) {
		if n.Demand() >= cfg.MinDemand*pd*(1-1e-12) {
			kept = append(kept, n)
		}
	}
	if cfg.Top > 0 && len(kept) > cfg.Top {
		kept = kept[:cfg.Top]
	}
	if len(kept) == 0 {
		return nil, fmt.Errorf("parameter min_demand: no night has Σ T1 ≥ %g·P·D = %.0f CPU-hours; lower min_demand", cfg.MinDemand, cfg.MinDemand*pd)
	}
	if cfg.Rank > 0 {
		if cfg.Rank > len(kept) {
			return nil, fmt.Errorf("parameter night_rank: %d, but only %d nights are kept (min_demand %g, top %d)", cfg.Rank, len(kept), cfg.MinDemand, cfg.Top)
		}
		kept = kept[cfg.Rank-1 : cfg.Rank]
	}
	return kept, nil
}

func (m *Model) trace(seed uint64, gen genKey) *jobStats {
	t, _ := workload.Derived(m.cache, fmt.Sprintf("%v", traceKey{seed, gen}), func() (*jobStats, error) {
		return newJobStats(gen.generator().Trace(seed)), nil
	})
	return t
}

func (m *Model) file(name string) ([]Night, error) {
	return workload.Derived(m.cache, name, func() ([]Night, error) {
		if m.data == nil {
			return nil, fmt.Errorf("parameter nights_file: %s: the model was built without a data directory", name)
		}
		f, err := m.data.Open(name)
		if err != nil {
			return nil, fmt.Errorf("parameter nights_file: %w", err)
		}
		defer f.Close()
		nights, err := ReadCSV(f, name)
		if err != nil {
			return nil, fmt.Errorf("parameter nights_file: %w", err)
		}
		return nights, nil
	})
}

// NightRun is the outcome of one night: which jobs were dispatched and how.
type NightRun struct {
	Night *Night
	// Jobs are the night's job indexes that were dispatched, in night
	// order; Dispatch.JobEnd follows the same order.
	Jobs     []int
	Dispatch *Dispatch
	// Dropped counts jobs dropped for T∞ > D before selection.
	Dropped int
	// SelectedReward is Σ R of the selection as the selector saw it; Gap is
	// (optimum − SelectedReward)/optimum of that knapsack and Optimum that
	// optimum (SelectedReward itself when the gap is not measured).
	SelectedReward, Gap, Optimum float64
	// Rewards holds R_j (true) of every job of the night, TotalReward their
	// sum.
	Rewards     []float64
	TotalReward float64
}

// Solve runs the two phases on one night: drop jobs with T∞ > D, select,
// dispatch (§3). seed feeds RANDOM's stream.
func Solve(night *Night, cfg Config, seed uint64) (*NightRun, error) {
	n := len(night.Jobs)
	out := &NightRun{Night: night, Rewards: make([]float64, n)}
	keys := make([]JobKey, n)
	items := make([]Item, n)
	for i := range night.Jobs {
		j := &night.Jobs[i]
		t1, tinf := j.T1(), j.TInf()
		out.Rewards[i] = cfg.Reward.Value(j.Priority, t1)
		out.TotalReward += out.Rewards[i]
		if cfg.Predicted {
			if !(j.T1Est > 0 && j.TInfEst > 0) {
				return nil, fmt.Errorf("parameter estimates: night %d job %d has no predicted T1/T∞ (the night file needs t1_est_h and tinf_est_h); use estimates: actual", night.ID, j.ID)
			}
			t1, tinf = j.T1Est, j.TInfEst
		}
		keys[i] = JobKey{ID: j.ID, Priority: j.Priority, T1: t1, TInf: tinf}
		items[i] = Item{Reward: cfg.Reward.Value(j.Priority, t1), Weight: t1, Team: j.Team}
	}
	dispatchRand := func() *rng.Rand { return rng.New(seed).Stream(fmt.Sprintf("dispatch/%d", night.ID)) }

	var cand []int // jobs that may be selected
	for i := range night.Jobs {
		if cfg.Selector == "none" || !cfg.DropLong || keys[i].TInf <= cfg.D {
			cand = append(cand, i)
		} else {
			out.Dropped++
		}
	}
	ci := make([]Item, len(cand))
	for k, i := range cand {
		ci[k] = items[i]
	}
	capacity := cfg.Budget * float64(cfg.P)
	if cfg.Theorem4 {
		// Theorem 4: r = 1 − (1 − 1/P)·T∞max/D over the candidates.
		tmax := 0.0
		for _, i := range cand {
			tmax = max(tmax, keys[i].TInf)
		}
		capacity = (1 - (1-1/float64(cfg.P))*tmax/cfg.D) * float64(cfg.P) * cfg.D
	}
	var sel []bool
	var err error
	switch cfg.Selector {
	case "none":
		sel = make([]bool, len(cand))
		for k := range sel {
			sel[k] = true
		}
	case "greedy":
		sel = Greedy(ci, capacity, cfg.Ties)
	case "dp":
		sel, err = DPProfits(ci, profits(ci, cfg.Reward), capacity, cfg.Epsilon)
	case "bnb":
		var caps map[int]float64
		if cfg.TeamCap > 0 {
			caps = map[int]float64{}
			for _, it := range ci {
				caps[it.Team] = cfg.TeamCap * capacity
			}
		}
		sel, err = BranchAndBound(ci, capacity, caps, cfg.NodeLimit)
	case "maxk":
		cj := make([]Job, len(cand))
		ck := make([]JobKey, len(cand))
		for k, i := range cand {
			cj[k], ck[k] = night.Jobs[i], keys[i]
		}
		sel, err = MaxK(cj, ck, ci, cfg.P, cfg.D, cfg.Policy, dispatchRand)
	default:
		err = fmt.Errorf("parameter selector: unknown %q", cfg.Selector)
	}
	if err != nil {
		return nil, fmt.Errorf("night %d: %w", night.ID, err)
	}
	out.SelectedReward, _ = Value(ci, sel)
	out.Optimum = out.SelectedReward
	// The exact selectors have no gap by construction; greedy and the
	// scaled DP are measured against the optimum.
	if cfg.Selector == "greedy" || (cfg.Selector == "dp" && cfg.Epsilon > 0) {
		caps := map[int]float64(nil)
		if cfg.TeamCap > 0 {
			caps = map[int]float64{}
			for _, it := range ci {
				caps[it.Team] = cfg.TeamCap * capacity
			}
		}
		opt, err := optimum(ci, cfg.Reward, capacity, caps)
		if err != nil {
			return nil, fmt.Errorf("night %d: selection gap: %w", night.ID, err)
		}
		if opt > 0 {
			out.Gap = max(0, (opt-out.SelectedReward)/opt)
			out.Optimum = max(opt, out.SelectedReward)
		}
	}
	var jobs []Job
	var jk []JobKey
	for k, i := range cand {
		if sel[k] {
			out.Jobs = append(out.Jobs, i)
			jobs = append(jobs, night.Jobs[i])
			jk = append(jk, keys[i])
		}
	}
	var r *rng.Rand
	if cfg.Policy == Random {
		r = dispatchRand()
	}
	out.Dispatch, err = Simulate(jobs, jk, cfg.P, cfg.Policy, r, cfg.Schedule)
	if err != nil {
		return nil, fmt.Errorf("night %d: %w", night.ID, err)
	}
	return out, nil
}

// profits turns rewards into DP's integer profits.
func profits(items []Item, r Reward) []int64 {
	p := make([]int64, len(items))
	s := r.ProfitScale()
	for i, it := range items {
		p[i] = int64(math.Round(it.Reward * s))
	}
	return p
}

// optimum is the best Σ R of the knapsack: branch and bound (exact on the
// real rewards) when it closes within a modest node budget, otherwise DP
// by profits (exact on the rewards rounded to DP's integer profits: for
// size-dependent rewards to the CPU-minute) — the reference of §5.2.
func optimum(items []Item, r Reward, capacity float64, caps map[int]float64) (float64, error) {
	sel, err := BranchAndBound(items, capacity, caps, 200_000)
	if err == nil {
		v, _ := Value(items, sel)
		return v, nil
	}
	if caps != nil {
		return 0, err
	}
	if sel, err = DPProfits(items, profits(items, r), capacity, 0); err != nil {
		return 0, err
	}
	v, _ := Value(items, sel)
	return v, nil
}

// result aggregates the nights of one run.
func result(cfg Config, outs []*NightRun, ms float64) *simcore.Result {
	var jobs, tasks, dropped, selected, completed, late int64
	var demand, selDemand, reward, total, selReward, selTrue, gap, optSum, makespan, sumMakespan float64
	var work, busyPD, pdTotal, spanTotal float64
	var completions, releases []float64
	var busyAfter, procs int
	for _, o := range outs {
		n := o.Night
		jobs += int64(len(n.Jobs))
		tasks += int64(n.NTasks())
		demand += n.Demand()
		dropped += int64(o.Dropped)
		selected += int64(len(o.Jobs))
		selReward += o.SelectedReward
		gap = max(gap, o.Gap)
		optSum += o.Optimum
		total += o.TotalReward
		d := o.Dispatch
		for k, i := range o.Jobs {
			selDemand += n.Jobs[i].T1()
			selTrue += o.Rewards[i]
			end := d.JobEnd[k]
			completions = append(completions, end)
			if onTime(end, cfg.D) {
				completed++
				reward += o.Rewards[i]
			} else {
				late++
			}
		}
		makespan = max(makespan, d.Makespan)
		sumMakespan += d.Makespan
		work += d.Work
		pdTotal += float64(cfg.P) * cfg.D
		busyPD += busyBefore(d, cfg.D)
		for _, t := range d.ProcRelease {
			spanTotal += t
			releases = append(releases, t)
			procs++
			if t > cfg.D+1 {
				busyAfter++
			}
		}
	}
	frac := func(x, y float64) float64 {
		if y == 0 {
			return 0
		}
		return x / y
	}
	byTime := func(t float64) float64 {
		c := 0
		for _, e := range completions {
			if e <= t {
				c++
			}
		}
		return frac(float64(c), float64(len(completions)))
	}
	res := &simcore.Result{Metrics: map[string]any{
		"nights": int64(len(outs)), "jobs": jobs, "tasks": tasks, "demand": demand,
		"dropped_tinf": dropped, "selected": selected, "selected_demand": selDemand,
		"completed": completed, "late": late, "aggregate_reward": reward, "reward_frac": frac(reward, total),
		"selected_reward": selReward, "earned_of_selected": frac(reward, selTrue), "selection_gap": gap,
		"selection_gap_pooled": max(0, frac(optSum-selReward, optSum)), "makespan_h": makespan,
		"mean_makespan_h": frac(sumMakespan, float64(len(outs))), "idle_before_d": 1 - frac(busyPD, pdTotal),
		"idle_overall":        1 - frac(work, spanTotal),
		"median_completion_h": median(completions), "done_by_8h": byTime(8), "done_by_10h": byTime(10),
		"busy_at_d1h": frac(float64(busyAfter), float64(procs)), "release_iqr_h": quantile(releases, 0.75) - quantile(releases, 0.25),
		"sched_ms": ms,
	}}
	if cfg.JobTable || cfg.ProcTable || cfg.Schedule {
		res.Tables = map[string]*simcore.TableData{}
	}
	if cfg.JobTable {
		res.Tables["completions"] = completionTable(cfg, outs)
	}
	if cfg.ProcTable {
		var night, proc []int64
		var rel []float64
		for _, o := range outs {
			for p, t := range o.Dispatch.ProcRelease {
				night, proc, rel = append(night, int64(o.Night.ID)), append(proc, int64(p)), append(rel, t)
			}
		}
		res.Tables["releases"] = &simcore.TableData{Columns: map[string]any{"night": night, "processor": proc, "release_h": rel}}
	}
	if cfg.Schedule {
		res.Tables["schedule"] = ScheduleTable(outs)
	}
	return res
}

// onTime reports C_j ≤ D, with a relative tolerance for the summed
// floating-point task lengths.
func onTime(end, deadline float64) bool { return end <= deadline*(1+1e-12) }

// busyBefore is the processor-time spent working before t.
func busyBefore(d *Dispatch, t float64) float64 {
	if d.Makespan <= t {
		return d.Work
	}
	return d.WorkBefore(t)
}

func completionTable(cfg Config, outs []*NightRun) *simcore.TableData {
	var night, job, prio, team []int64
	var t1, tinf, rv, end []float64
	var ok []bool
	for _, o := range outs {
		for k, i := range o.Jobs {
			j := &o.Night.Jobs[i]
			night, job, prio, team = append(night, int64(o.Night.ID)), append(job, int64(j.ID)), append(prio, int64(j.Priority)), append(team, int64(j.Team))
			t1, tinf, rv = append(t1, j.T1()), append(tinf, j.TInf()), append(rv, o.Rewards[i])
			end = append(end, o.Dispatch.JobEnd[k])
			ok = append(ok, onTime(o.Dispatch.JobEnd[k], cfg.D))
		}
	}
	return &simcore.TableData{Columns: map[string]any{"night": night, "job": job, "priority": prio, "team": team,
		"t1_h": t1, "tinf_h": tinf, "reward_value": rv, "completion_h": end, "on_time": ok}}
}

// ScheduleTable is the schedule table of the runs (recorded dispatches):
// one row per task, ordered by night, then start time, then processor.
func ScheduleTable(outs []*NightRun) *simcore.TableData {
	var night, id, job, stage, task, proc, procs []int64
	var rel, start, end []float64
	for _, o := range outs {
		// Task numbers within the night: dispatched jobs in order, stages,
		// tasks.
		base := make([]int64, len(o.Jobs))
		first := make([][]int64, len(o.Jobs))
		var next int64
		for k, i := range o.Jobs {
			base[k] = next
			st := o.Night.Jobs[i].Stages
			first[k] = make([]int64, len(st))
			for g := range st {
				first[k][g] = next
				next += int64(len(st[g]))
			}
		}
		runs := append([]TaskRun(nil), o.Dispatch.Runs...)
		sort.SliceStable(runs, func(a, b int) bool {
			if runs[a].Start != runs[b].Start {
				return runs[a].Start < runs[b].Start
			}
			return runs[a].Proc < runs[b].Proc
		})
		for _, r := range runs {
			night = append(night, int64(o.Night.ID))
			id = append(id, first[r.Job][r.Stage]+int64(r.Task))
			job = append(job, int64(o.Night.Jobs[o.Jobs[r.Job]].ID))
			stage, task = append(stage, int64(r.Stage+1)), append(task, int64(r.Task+1))
			proc, procs = append(proc, int64(r.Proc)), append(procs, 1)
			rel, start, end = append(rel, 0), append(start, r.Start), append(end, r.End)
		}
	}
	return &simcore.TableData{Columns: map[string]any{"night": night, "id": id, "job": job, "stage": stage, "task": task,
		"processor": proc, "procs": procs, "release": rel, "start": start, "end": end}}
}

// quantile is the linear-interpolation quantile of x (numpy's default).
func quantile(x []float64, q float64) float64 {
	if len(x) == 0 {
		return 0
	}
	y := append([]float64(nil), x...)
	sort.Float64s(y)
	pos := q * float64(len(y)-1)
	lo := int(math.Floor(pos))
	hi := min(lo+1, len(y)-1)
	return y[lo] + (pos-float64(lo))*(y[hi]-y[lo])
}

// TraceGenerator returns the generator and trace seed a completed
// parameter set of a synthetic or subsets workload draws its nights from
// (with trace_from_seed the trace seed is the run's seed, returned as
// given): the published facts of such a trace are Stats(g.Trace(seed), P, D).
func TraceGenerator(p simcore.Params, runSeed uint64) (Generator, uint64, error) {
	c, err := Decode(p)
	if err != nil {
		return Generator{}, 0, err
	}
	if c.Workload == "file" {
		return Generator{}, 0, errors.New("parameter workload: a night file has no generator")
	}
	seed := c.TraceSeed
	if c.TraceFromSeed {
		seed = runSeed
	}
	return c.Gen.generator(), seed, nil
}

// UsesSeed implements simcore.SeedUser: a job uses its seed when its trace
// is generated from it (trace_from_seed), when its night is a random subset
// (workload subsets) or when it dispatches in random order (RANDOM); the
// fixed nights of one trace or file, scheduled by a deterministic policy,
// do not.
func (*Model) UsesSeed(p simcore.Params) bool {
	c, err := Decode(p)
	if err != nil {
		return true
	}
	return c.TraceFromSeed || c.Workload == "subsets" || c.Policy == Random
}
