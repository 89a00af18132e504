package ptg

import (
	"context"
	"fmt"
	"path"
	"strconv"
	"strings"

	"schedfarm/simcore"
	"schedfarm/simcore/ptg/dag"
	"schedfarm/simcore/rng"
)

// Model is the multiple-PTG model of casanova2010.
type Model struct {
	data simcore.DataDir
}

// New returns the model; data is where ptg_files are opened (may be nil
// when only generated PTGs are used).
func New(data simcore.DataDir) *Model { return &Model{data: data} }

// Name implements simcore.Model.
func (*Model) Name() string { return "ptg" }

// Version implements simcore.Model.
func (*Model) Version() string { return "1" }

// Doc implements simcore.Model.
func (*Model) Doc() string {
	return "N parallel task graphs sharing one cluster: 19 allocation and mapping algorithms (Casanova, Desprez, Suter 2010; casanova2010)"
}

// Schema implements simcore.Model.
func (*Model) Schema() simcore.Schema { return schema }

var schema = simcore.Schema{
	Params: []simcore.Param{
		{Name: "algorithm", Kind: simcore.String, Enum: Algorithms, Default: Selfish, Algorithm: true,
			Doc: "one of the 19 algorithms of casanova2010 §4"},
		{Name: "n_ptgs", Kind: simcore.Int, Unit: "PTGs", Min: simcore.Bound(0), Max: simcore.Bound(200), Default: int64(4),
			Doc: "N, PTGs scheduled together (paper: 2, 4, 6, 8, 10); 0 draws N per scenario from {2, 4, 6, 8, 10}"},
		{Name: "ptg_class", Kind: simcore.String, Enum: []string{"random", "fft", "strassen", "mixed", "files"}, Default: "random",
			Doc: "PTG population (casanova2010 §5.1.2); mixed: each scenario draws its class uniformly; files: the graphs of ptg_files, used in turn"},
		{Name: "cluster", Kind: simcore.String, Enum: append(ClusterNames(), "mixed"), Default: "grillon",
			Doc: "platform of Table 1 (processors and GFlop/s); mixed: each scenario draws one of the four"},
		{Name: "complexity", Kind: simcore.String, Enum: append([]string{"population"}, dag.ComplexityNames...), Default: "population",
			Doc: "task cost scenario; population: each PTG draws one of the four (mixed, a_d, a_d_log_d, d_1.5)"},
		{Name: "dag_n", Kind: simcore.Int, Unit: "tasks", Min: simcore.Bound(0), Max: simcore.Bound(2000), Default: int64(0),
			Doc: "random DAGs: tasks per PTG; 0 draws from {10, 20, 30}"},
		{Name: "fat", Kind: simcore.Float, Min: simcore.Bound(-1), Max: simcore.Bound(1), Default: -1.0,
			Doc: "random DAGs: width parameter; -1 draws from {0.2, 0.5, 0.8}"},
		{Name: "regular", Kind: simcore.Float, Min: simcore.Bound(-1), Max: simcore.Bound(1), Default: -1.0,
			Doc: "random DAGs: regularity; -1 draws from {0.2, 0.8}"},
		{Name: "density", Kind: simcore.Float, Min: simcore.Bound(-1), Max: simcore.Bound(1), Default: -1.0,
			Doc: "random DAGs: density; -1 draws from {0.2, 0.8}"},
		{Name: "jump", Kind: simcore.Int, Unit: "levels", Min: simcore.Bound(0), Max: simcore.Bound(1000), Default: int64(0),
			Doc: "random DAGs: longest jump edge; 0 draws from {1, 2, 4}"},
		{Name: "fft_points", Kind: simcore.Int, Min: simcore.Bound(0), Max: simcore.Bound(1024), Default: int64(0),
			Doc: "FFT graphs: points m (a power of two; 2, 4, 8 give 5, 15, 39 tasks); 0 draws from {2, 4, 8}"},
		{Name: "alpha_max", Kind: simcore.Float, Min: simcore.Bound(0), Max: simcore.Bound(1), Default: 0.25,
			Doc: "Amdahl sequential fraction α ~ U[0, alpha_max) (seed: 0.25)"},
		{Name: "ptg_files", Kind: simcore.String, Default: "",
			Doc: "ptg_class files: comma-separated graph files in the data directory (.dot or daggen .dag; costs in flop)"},
		{Name: "procs", Kind: simcore.Int, Unit: "processors", Min: simcore.Bound(0), Max: simcore.Bound(4096), Default: int64(0),
			Doc: "override the cluster's processor count (0: Table 1)"},
		{Name: "hcpa_rule", Kind: simcore.String, Enum: []string{"gain", "seed"}, Default: "gain", Algorithm: true,
			Doc: "HCPA task choice: gain = max T(p)/p − T(p+1)/(p+1) (CPA code); seed = min T(p+1)/(p+1) (casanova2010 §4.1)"},
		{Name: "hcpa_level_cap", Kind: simcore.Bool, Default: true, Algorithm: true,
			Doc: "improved HCPA guard (a): a precedence level never gets more than the processor bound"},
		{Name: "hcpa_max_inflation", Kind: simcore.Float, Min: simcore.Bound(0), Default: 3.0, Algorithm: true,
			Doc: "improved HCPA guard (b): refuse p+1 if its work exceeds this × T(v,1); 0 disables (default 3, calibrated; 1.5 first proposed: docs/models/ptg.md A2)"},
		{Name: "mapping", Kind: simcore.String, Enum: []string{MapPaper, MapReady, MapInsertion}, Default: MapPaper, Algorithm: true,
			Doc: "mapping of SELFISH*, C1, C4, CAFM_CRA*: paper = free-time list scheduling (docs/models/ptg.md A3; CRA keeps its ready-task list, §4.3); ready = ready-task list scheduling in simulated time (§4.3) for all; insertion = earliest hole of the profile"},
		{Name: "backfill", Kind: simcore.String, Enum: []string{BackfillOnce, BackfillNone, BackfillRepeat}, Default: BackfillOnce, Algorithm: true,
			Doc: "compaction: once = one conservative-backfilling pass in mapping order (§4.1); none; repeat = passes until no task moves"},
		{Name: "cra_area", Kind: simcore.String, Enum: []string{CRAAreaShare, CRAAreaCluster}, Default: CRAAreaShare, Algorithm: true,
			Doc: "HCPA average area of share-bounded allocations (CRA, CAFM_CRA): share = Σ p·T(p) / share; cluster = / P (the share bounds allocations only)"},
		simcore.Output("schedule_table", "output option: emit the table 'schedule' (one row per task)"),
		simcore.Output("ptg_table", "output option: emit the table 'ptgs' (one row per PTG: C*, C, stretch)"),
	},
	Metrics: []simcore.Column{
		simcore.FloatColumn("avg_stretch", "", "Σ C_i / Σ C*_i (casanova2010 §3.2)"),
		simcore.FloatColumn("makespan", "s", "overall makespan max C_i"),
		simcore.FloatColumn("max_stretch", "", "max C_i / C*_i (unfairness, casanova2010 §3.2)"),
		simcore.FloatColumn("utilisation", "share", "busy processor-time / (P × makespan) (Table 2)"),
		simcore.WallMs("sched_time_ms", "wall-clock time to compute the schedule (§5.2.7)"),
		simcore.IntColumn("faster_ptgs", "PTGs", "PTGs finishing before their dedicated-cluster C* (§5.2.1's HCPA-bound case)"),
		simcore.IntColumn("moved_tasks", "tasks", "tasks the backfilling compaction started earlier"),
		simcore.IntColumn("tasks", "tasks", "tasks over all PTGs"),
		simcore.FloatColumn("sum_cstar", "s", "Σ C*_i"),
		simcore.IntColumn("scenario_n", "PTGs", "N of this scenario (drawn when n_ptgs = 0)"),
		simcore.StringColumn("scenario_class", "PTG class of this scenario (drawn when ptg_class = mixed)"),
		simcore.StringColumn("scenario_cluster", "cluster of this scenario (drawn when cluster = mixed)"),
	},
	Tables: []simcore.Table{
		{Name: "ptgs", Doc: "one row per PTG", Columns: []simcore.Column{
			simcore.IntColumn("ptg", "", "PTG index"),
			simcore.IntColumn("ptg_tasks", "tasks", "tasks of the PTG"),
			simcore.IntColumn("width", "tasks", "largest precedence level"),
			simcore.FloatColumn("work", "s", "sequential work Σ T(v, 1)"),
			simcore.FloatColumn("cstar", "s", "C*: makespan alone on the cluster (HCPA)"),
			simcore.FloatColumn("completion", "s", "C: completion in the shared schedule"),
			simcore.FloatColumn("stretch", "", "C / C*"),
		}},
		{Name: "schedule", Doc: "one row per task", Columns: []simcore.Column{
			simcore.IntColumn("task", "", "global task id (PTG offset + local index)"),
			simcore.IntColumn("ptg", "", "PTG index"),
			simcore.IntColumn("local", "", "task index in its PTG"),
			simcore.FloatColumn("release", "s", "0: every PTG is submitted at time 0"),
			simcore.FloatColumn("start", "s", "start"),
			simcore.FloatColumn("end", "s", "end"),
			simcore.IntColumn("processors", "processors", "allocation"),
			simcore.StringColumn("proc_list", "processor IDs, ranges a-b, comma-separated"),
			simcore.StringColumn("preds", "global ids of the predecessors, comma-separated"),
		}},
	},
}

// Config is a decoded parameter set.
type Config struct {
	Algorithm string
	N         int
	Class     string
	Files     []string
	Pop       Population
	Cluster   Cluster
	HCPA      HCPAOptions
	// Opts are the modelling options (HCPA copied in).
	Opts     Options
	Schedule bool
	PTGTable bool
	// Procs overrides the cluster's processor count when > 0.
	Procs int
}

// Decode reads a completed parameter set and checks the combinations the
// schema cannot.
func Decode(p simcore.Params) (Config, error) {
	var cl Cluster
	var err error
	if name := p.String("cluster"); name == "mixed" {
		cl.Name = name
	} else if cl, err = FindCluster(name); err != nil {
		return Config{}, err
	}
	c := Config{Procs: int(p.Int("procs")), Algorithm: p.String("algorithm"), N: int(p.Int("n_ptgs")), Class: p.String("ptg_class"), Cluster: cl,
		HCPA: HCPAOptions{SeedRule: p.String("hcpa_rule") == "seed", LevelCap: p.Bool("hcpa_level_cap"),
			MaxInflation: p.Float("hcpa_max_inflation")},
		Schedule: p.Bool("schedule_table"), PTGTable: p.Bool("ptg_table")}
	c.Opts = Options{HCPA: c.HCPA, Mapping: p.String("mapping"), Backfill: p.String("backfill"), CRAArea: p.String("cra_area")}
	if x := c.HCPA.MaxInflation; x > 0 && x < 1 {
		return Config{}, fmt.Errorf("parameter hcpa_max_inflation = %v: below 1 no task could grow; use 0 to disable or a value >= 1 (1.5 was first proposed: docs/models/ptg.md A2)", x)
	}
	c.Pop = Population{Class: c.Class, Complexity: DrawComplexity, MaxAlpha: p.Float("alpha_max"),
		Shape: dag.Shape{N: int(p.Int("dag_n")), Fat: p.Float("fat"), Regular: p.Float("regular"),
			Density: p.Float("density"), Jump: int(p.Int("jump"))}, FFTPoints: int(p.Int("fft_points"))}
	if s := p.String("complexity"); s != "population" {
		if c.Pop.Complexity, err = dag.ParseComplexity(s); err != nil {
			return Config{}, fmt.Errorf("parameter complexity: %w", err)
		}
	}
	if m := c.Pop.FFTPoints; m != 0 && (m < 2 || m&(m-1) != 0) {
		return Config{}, fmt.Errorf("parameter fft_points = %d: want a power of two >= 2 (2, 4, 8 in the paper) or 0", m)
	}
	c.Files = splitFiles(p.String("ptg_files"))
	if c.N == 0 && c.Class == "files" {
		return Config{}, fmt.Errorf("parameter n_ptgs = 0 draws N for generated PTGs only: set n_ptgs for ptg_class files")
	}
	if c.Class == "files" && len(c.Files) == 0 {
		return Config{}, fmt.Errorf("ptg_class files needs ptg_files: a comma-separated list of .dot or .dag files in the data directory")
	}
	if c.Class != "files" && len(c.Files) > 0 {
		return Config{}, fmt.Errorf("parameter ptg_files is set but ptg_class is %q: set ptg_class: files to use the files", c.Class)
	}
	return c, nil
}

// Scenario resolves the drawn parts of a scenario (n_ptgs = 0, ptg_class
// mixed, cluster mixed) with the instance seed: the cluster uniform among
// Table 1's, N uniform in {2, 4, 6, 8, 10} and the class uniform in
// {random, fft, strassen}: the paper's scenario grid (§5.1.2) as a
// distribution.
func (c Config) Scenario(seed uint64) Config {
	r := rng.New(seed).Stream("scenario")
	if c.Cluster.Name == "mixed" {
		c.Cluster = Clusters[r.IntN(len(Clusters))]
	}
	if c.Procs > 0 {
		c.Cluster.Procs = c.Procs
	}
	if c.N == 0 {
		c.N = []int{2, 4, 6, 8, 10}[r.IntN(5)]
	}
	if c.Class == "mixed" {
		c.Class = []string{"random", "fft", "strassen"}[r.IntN(3)]
		c.Pop.Class = c.Class
	}
	return c
}

// Graphs returns the PTGs of one instance: drawn from the population with
// the instance seed, or read from the files.
func (m *Model) Graphs(c Config, seed uint64) ([]*dag.Graph, error) {
	if c.Class != "files" {
		return c.Pop.Draw(c.N, rng.New(seed).Stream("ptgs"))
	}
	if m.data == nil {
		return nil, fmt.Errorf("ptg_files: the model was built without a data directory")
	}
	var out []*dag.Graph
	for k := range c.N {
		name := c.Files[k%len(c.Files)]
		g, err := m.readFile(name)
		if err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	return out, nil
}

func (m *Model) readFile(name string) (*dag.Graph, error) {
	read := dag.ReadDOT
	switch strings.ToLower(path.Ext(name)) {
	case ".dot", ".gv":
	case ".dag":
		read = dag.ReadNative
	default:
		return nil, fmt.Errorf("ptg_files: %s: unknown extension (want .dot, .gv or .dag)", name)
	}
	f, err := m.data.Open(name)
	if err != nil {
		return nil, fmt.Errorf("ptg_files: %w", err)
	}
	defer f.Close()
	g, err := read(f)
	if err != nil {
		return nil, fmt.Errorf("ptg_files: %s: %w", name, err)
	}
	return g, nil
}

// DataFiles implements simcore.DataReader: with ptg_class files, the
// graphs of ptg_files that the n_ptgs PTGs take in turn.
func (*Model) DataFiles(p simcore.Params) []simcore.DataFile {
	if p.String("ptg_class") != "files" {
		return nil
	}
	files := splitFiles(p.String("ptg_files"))
	if n := int(p.Int("n_ptgs")); n > 0 && n < len(files) {
		files = files[:n]
	}
	out := make([]simcore.DataFile, len(files))
	for i, f := range files {
		out[i] = simcore.DataFile{Param: "ptg_files", Name: f}
	}
	return out
}

// Run implements simcore.Model.
func (m *Model) Run(ctx context.Context, p simcore.Params, seed uint64) (*simcore.Result, error) {
	c, err := Decode(p)
	if err != nil {
		return nil, err
	}
	c = c.Scenario(seed)
	graphs, err := m.Graphs(c, seed)
	if err != nil {
		return nil, err
	}
	// The scheduling time (§5.2.7) is measured on the caller's clock.
	out, elapsed, err := simcore.TimedValue(ctx, func() (*Outcome, error) {
		return Schedule(ctx, Instance{Graphs: graphs, Cluster: c.Cluster}, c.Algorithm, c.Opts, rng.New(seed).Stream("ties"))
	})
	if err != nil {
		return nil, err
	}
	return result(c, graphs, out, elapsed), nil
}

// Metrics are the per-scenario numbers of casanova2010 §3.2 and §5.2.6.
type Metrics struct {
	AvgStretch, Makespan, MaxStretch, Utilisation float64
	Faster                                        int
}

// Measure computes the metrics of an outcome on P processors.
func (o *Outcome) Measure(P int) Metrics {
	var m Metrics
	sc, sstar := 0.0, 0.0
	for i, c := range o.C {
		sc += c
		sstar += o.CStar[i]
		m.Makespan = max(m.Makespan, c)
		if o.CStar[i] > 0 {
			m.MaxStretch = max(m.MaxStretch, c/o.CStar[i])
		}
		if c < o.CStar[i]*(1-1e-9) {
			m.Faster++
		}
	}
	if sstar > 0 {
		m.AvgStretch = sc / sstar
	}
	busy := 0.0
	for v := range o.Start {
		busy += float64(o.Alloc[v]) * (o.End[v] - o.Start[v])
	}
	if m.Makespan > 0 {
		m.Utilisation = busy / (float64(P) * m.Makespan)
	}
	return m
}

func result(c Config, graphs []*dag.Graph, o *Outcome, elapsed float64) *simcore.Result {
	m := o.Measure(c.Cluster.Procs)
	sstar := 0.0
	for _, x := range o.CStar {
		sstar += x
	}
	res := &simcore.Result{Metrics: map[string]any{
		"avg_stretch":      m.AvgStretch,
		"makespan":         m.Makespan,
		"max_stretch":      m.MaxStretch,
		"utilisation":      m.Utilisation,
		"sched_time_ms":    elapsed,
		"faster_ptgs":      int64(m.Faster),
		"moved_tasks":      int64(o.Moved),
		"tasks":            int64(len(o.Start)),
		"sum_cstar":        sstar,
		"scenario_n":       int64(c.N),
		"scenario_class":   c.Class,
		"scenario_cluster": c.Cluster.Name,
	}}
	if !c.Schedule && !c.PTGTable {
		return res
	}
	res.Tables = map[string]*simcore.TableData{}
	speed := c.Cluster.GFlops * 1e9
	if c.PTGTable {
		n := len(graphs)
		id, nt, w := make([]int64, n), make([]int64, n), make([]int64, n)
		work, cs, cc, sr := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
		for i, g := range graphs {
			id[i], nt[i], w[i] = int64(i), int64(g.Len()), int64(g.Width())
			for _, t := range g.Tasks {
				work[i] += t.Ops / speed
			}
			cs[i], cc[i] = o.CStar[i], o.C[i]
			if cs[i] > 0 {
				sr[i] = cc[i] / cs[i]
			}
		}
		res.Tables["ptgs"] = &simcore.TableData{Columns: map[string]any{"ptg": id, "ptg_tasks": nt, "width": w,
			"work": work, "cstar": cs, "completion": cc, "stretch": sr}}
	}
	if c.Schedule {
		n := len(o.Start)
		task, ptg, local, procs := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
		rel, start, end := make([]float64, n), make([]float64, n), make([]float64, n)
		plist, preds := make([]string, n), make([]string, n)
		pr := make([][]string, n)
		for _, e := range o.Edges {
			pr[e[1]] = append(pr[e[1]], strconv.Itoa(e[0]))
		}
		for v := range n {
			task[v], ptg[v], local[v], procs[v] = int64(v), int64(o.PTG[v]), int64(o.Local[v]), int64(o.Alloc[v])
			start[v], end[v] = o.Start[v], o.End[v]
			plist[v] = simcore.FormatProcSet(o.Procs[v], ",")
			preds[v] = strings.Join(pr[v], ",")
		}
		res.Tables["schedule"] = &simcore.TableData{Columns: map[string]any{"task": task, "ptg": ptg, "local": local,
			"release": rel, "start": start, "end": end, "processors": procs, "proc_list": plist, "preds": preds}}
	}
	return res
}
