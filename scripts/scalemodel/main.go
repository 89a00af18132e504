// Command scalemodel projects the farm's throughput from 1 to 256 workers
// from the measurements of scripts/scaling.sh (the scaling study).
//
// Pipeline: measured runs (scaling.csv: wall time and the CPU time of the
// coordinator and the NATS server per worker count; jobs.parquet: every
// job's duration_ms) → per-job costs (model time distribution, worker
// overhead, coordinator and NATS CPU per job) → a discrete-event
// simulation of W workers against one serial NATS server and one serial
// coordinator (see Simulate) → Markdown tables on stdout and a plot.
//
//	go run ./scripts/scalemodel -csv OUT/scaling.csv -results OUT/results -png docs/scaling.png
//
// -paper SOURCES adds the projected wall time of a larger suite (such as
// configs/all.yaml), from a comma-separated list of sources in queue
// order: results dirs of a run of it (their jobs.parquet files) and CSVs
// with columns sweep,jobs,duration_ms (that many jobs of that model time
// each), such as scripts/scalemodel/krallmann1999-estimate.csv.
package main

import (
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/gonum/stat"

	"schedfarm/results"
)

func main() {
	var o options
	flag.StringVar(&o.csv, "csv", "", "scaling.csv written by scripts/scaling.sh (required)")
	flag.StringVar(&o.results, "results", "", "results dir holding the collected runs of the CSV (required)")
	flag.StringVar(&o.png, "png", "", "write the plot here (PNG)")
	flag.StringVar(&o.paper, "paper", "", "optional larger suite to project: comma-separated results dirs and CSVs sweep,jobs,duration_ms, in queue order")
	flag.StringVar(&o.saturated, "saturated", "", "optional scaling.csv of 0-ms jobs (configs/bench/overhead.yaml): per-job costs at a high rate")
	flag.IntVar(&o.maxW, "max-workers", 256, "largest worker count projected (powers of two from 1)")
	flag.Uint64Var(&o.seed, "seed", 1, "seed of the resampled job stream of the sustained projection")
	flag.Float64Var(&o.overheadMs, "worker-overhead-ms", -1, "override the measured per-job worker overhead (ms)")
	flag.StringVar(&o.jobsOut, "jobs-out", "", "also write every measured job as CSV (W,run,job_id,duration_ms) here")
	flag.BoolVar(&o.net, "net", false, "use per-job costs net of the idle CPU rate (default: gross, all CPU in the window charged to the jobs)")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: scalemodel -csv OUT/scaling.csv -results OUT/results [-png FILE] [-saturated OUT/saturated.csv] [-paper SOURCES]\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if o.csv == "" || o.results == "" {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(os.Stdout, o); err != nil {
		fmt.Fprintln(os.Stderr, "scalemodel:", err)
		os.Exit(1)
	}
}

// options are the command's flags.
type options struct {
	csv, results, png, paper, saturated string
	jobsOut                             string
	maxW                                int
	seed                                uint64
	overheadMs                          float64 // < 0: measured
	net                                 bool
}

// measured is one row of scaling.csv with the jobs of its runs.
type measured struct {
	W, Jobs                      int
	Wall                         float64 // s, summed over the runs
	CoordCPU, NATSCPU, WorkerCPU float64 // s, over the whole measurement window
	Window                       float64 // s, the measurement window (submit to the last run's end)
	Idle, CoordIdle, NATSIdle    float64 // s: idle window, CPU in it (0 when not measured)
	Load1Before, Load1After      string
	Runs                         []string
	durations                    []float64  // s, ok jobs of every run
	jobs                         [][]jobRow // per run
	byJob                        map[string][]float64
	order                        []string // job IDs of the first run by started_at
}

func (m *measured) meanModel() float64 { return stat.Mean(m.durations, nil) }

func run(out io.Writer, o options) error {
	rows, err := readCSV(o.csv)
	if err != nil {
		return err
	}
	for _, m := range rows {
		if err := readJobs(o.results, m); err != nil {
			return err
		}
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].W < rows[j].W })
	if o.jobsOut != "" {
		if err := writeJobs(o.jobsOut, rows); err != nil {
			return err
		}
	}
	base := rows[0]
	meanModel := base.meanModel()

	// Per-job costs pooled over every worker count. Gross charges all CPU
	// of the window to the jobs; net first takes out what the same process
	// spent per second when idle (heartbeats, leases, the client's polling
	// is not in it), scaled to the window.
	var jobs, coord, nats, coordNet, natsNet float64
	idleMeasured := true
	for _, m := range rows {
		jobs += float64(m.Jobs)
		coord += m.CoordCPU
		nats += m.NATSCPU
		if m.Idle <= 0 || m.Window <= 0 {
			idleMeasured = false
			continue
		}
		coordNet += math.Max(0, m.CoordCPU-m.CoordIdle/m.Idle*m.Window)
		natsNet += math.Max(0, m.NATSCPU-m.NATSIdle/m.Idle*m.Window)
	}
	// The overhead a worker adds to each job, as measured with the fewest
	// workers: wall × W / jobs − mean model time. Its NATS part is served
	// by the NATS server in the simulation, so it is taken out here.
	perJob := base.Wall * float64(base.W) / float64(base.Jobs)
	c := Costs{NATS: nats / jobs, Coord: coord / jobs}
	if o.net {
		if !idleMeasured {
			return errors.New("-net: the CSV has no idle measurement (idle_s, coord_idle_cpu_s, nats_idle_cpu_s)")
		}
		c = Costs{NATS: natsNet / jobs, Coord: coordNet / jobs}
	}
	c.Worker = math.Max(0, perJob-meanModel-c.NATS)
	if o.overheadMs >= 0 {
		c.Worker = o.overheadMs / 1000
	}

	// The same costs measured at a high rate (0-ms jobs): the servers are
	// busy, so no CPU goes into waking up for every message.
	var hi *Costs
	if o.saturated != "" {
		srows, err := readCSV(o.saturated)
		if err != nil {
			return err
		}
		var sj, sc, sn float64
		for _, m := range srows {
			sj += float64(m.Jobs)
			sc += m.CoordCPU
			sn += m.NATSCPU
		}
		hi = &Costs{NATS: sn / sj, Coord: sc / sj}
		hi.Worker = math.Max(0, perJob-meanModel-hi.NATS)
		if o.overheadMs >= 0 {
			hi.Worker = c.Worker
		}
	}

	fmt.Fprintf(out, "## Measured\n\n")
	fmt.Fprintf(out, "| workers | jobs | wall (s) | jobs/s | speedup | efficiency | mean model time (ms) | overhead per job (ms) | coordinator CPU/job (ms) | NATS CPU/job (ms) | worker CPU/job (ms) | load avg (1 min) |\n")
	fmt.Fprintf(out, "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n")
	x0 := float64(base.Jobs) / base.Wall
	for _, m := range rows {
		x := float64(m.Jobs) / m.Wall
		model := stat.Mean(m.durations, nil)
		eff := model * float64(len(m.durations)) / (m.Wall * float64(m.W))
		fmt.Fprintf(out, "| %d | %d | %.2f | %.1f | %.2f | %.2f | %.2f | %.2f | %.3f | %.3f | %.2f | %s → %s |\n",
			m.W, m.Jobs, m.Wall, x, x/x0, eff, 1000*model,
			1000*(m.Wall*float64(m.W)/float64(m.Jobs)-meanModel),
			1000*m.CoordCPU/float64(m.Jobs), 1000*m.NATSCPU/float64(m.Jobs), 1000*m.WorkerCPU/float64(m.Jobs),
			m.Load1Before, m.Load1After)
	}

	sorted := append([]float64(nil), base.durations...)
	sort.Float64s(sorted)
	fmt.Fprintf(out, "\n## Costs per job (model inputs)\n\n")
	fmt.Fprintf(out, "- model time (from %d jobs at %d worker(s)): mean %.2f ms, median %.2f ms, p90 %.2f ms, max %.2f ms\n",
		len(sorted), base.W, 1000*meanModel, 1000*stat.Quantile(0.5, stat.Empirical, sorted, nil),
		1000*stat.Quantile(0.9, stat.Empirical, sorted, nil), 1000*sorted[len(sorted)-1])
	fmt.Fprintf(out, "- worker overhead: %.2f ms (wall × W / jobs − mean model time = %.2f ms, less the NATS cost served in the model)\n",
		1000*c.Worker, 1000*(perJob-meanModel))
	var workerCPU float64
	for _, d := range base.durations {
		workerCPU += d
	}
	fmt.Fprintf(out, "- worker CPU ÷ model wall time at %d worker(s): %.2f (below 1: the worker was waiting for a core; on a quiet machine it is about 1)\n",
		base.W, base.WorkerCPU/workerCPU)
	kind := "gross: all CPU in the window"
	if o.net {
		kind = "net of the idle rate"
	}
	fmt.Fprintf(out, "- coordinator CPU (%s): %.3f ms/job → ceiling %.0f jobs/s\n", kind, 1000*c.Coord, 1/c.Coord)
	fmt.Fprintf(out, "- NATS server CPU (%s): %.3f ms/job → ceiling %.0f jobs/s\n", kind, 1000*c.NATS, 1/c.NATS)
	if idleMeasured {
		var ci, ni, it float64
		for _, m := range rows {
			ci += m.CoordIdle
			ni += m.NATSIdle
			it += m.Idle
		}
		fmt.Fprintf(out, "- idle CPU: coordinator %.1f ms/s, NATS %.1f ms/s; net of it: coordinator %.3f ms/job, NATS %.3f ms/job\n",
			1000*ci/it, 1000*ni/it, 1000*coordNet/jobs, 1000*natsNet/jobs)
	}
	fmt.Fprintf(out, "- bottleneck: %s; the ideal line meets its ceiling at W* = %.0f workers\n", c.Bottleneck(), c.Knee(meanModel))
	if hi != nil {
		fmt.Fprintf(out, "- at a high rate (%s): coordinator %.3f ms/job → %.0f jobs/s, NATS %.3f ms/job → %.0f jobs/s; bottleneck %s, W* = %.0f workers\n",
			o.saturated, 1000*hi.Coord, 1/hi.Coord, 1000*hi.NATS, 1/hi.NATS, hi.Bottleneck(), hi.Knee(meanModel))
	}

	suite := base.suite()
	rng := rand.New(rand.NewPCG(o.seed, 0x5ca1e))
	var proj []projection
	for w := 1; w <= o.maxW; w *= 2 {
		n := max(20000, 200*w)
		stream := make([]float64, n)
		for i := range stream {
			stream[i] = base.durations[rng.IntN(len(base.durations))]
		}
		p := projection{W: w, Ideal: c.Ideal(w, meanModel)}
		p.Sustained = float64(n) / Simulate(stream, w, c)
		if hi != nil {
			p.SustainedHi = float64(n) / Simulate(stream, w, *hi)
		}
		p.Suite = float64(len(suite)) / Simulate(suite, w, c)
		proj = append(proj, p)
	}
	fmt.Fprintf(out, "\n## Projected (%d jobs per run of the suite; sustained: a long stream resampled from its job times)\n\n", len(suite))
	fmt.Fprintf(out, "| workers | ideal (jobs/s) | sustained (jobs/s) | efficiency | NATS busy | coordinator busy | limited by | one run of the suite (jobs/s) | its wall (s) | sustained, high-rate costs (jobs/s) |\n")
	fmt.Fprintf(out, "|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|\n")
	for _, p := range proj {
		hiCol := "–"
		if hi != nil {
			hiCol = fmt.Sprintf("%.0f (%s)", p.SustainedHi, limit(p.SustainedHi, *hi))
		}
		fmt.Fprintf(out, "| %d | %.0f | %.0f | %.2f | %.0f%% | %.0f%% | %s | %.0f | %.2f | %s |\n",
			p.W, p.Ideal, p.Sustained, p.Sustained/p.Ideal, 100*p.Sustained*c.NATS, 100*p.Sustained*c.Coord,
			limit(p.Sustained, c), p.Suite, float64(len(suite))/p.Suite, hiCol)
	}

	if o.paper != "" {
		list, err := readPaperSources(o.paper)
		if err != nil {
			return err
		}
		var cpu, longest float64
		for _, d := range list {
			cpu += d
			longest = math.Max(longest, d)
		}
		lpt := append([]float64(nil), list...)
		sort.Sort(sort.Reverse(sort.Float64Slice(lpt)))
		fmt.Fprintf(out, "\n## Projected: %s (%d jobs, %s of model time, longest job %s)\n\n", o.paper, len(list), hms(cpu), hms(longest))
		fmt.Fprintf(out, "| workers | wall, queue order | jobs/s | efficiency | wall, longest jobs first | lower bound max(longest, model time ÷ W, jobs ÷ ceiling) |\n")
		fmt.Fprintf(out, "|---:|---:|---:|---:|---:|---:|\n")
		for w := 1; w <= o.maxW; w *= 2 {
			wall := Simulate(list, w, c)
			bound := math.Max(longest, math.Max(cpu/float64(w), float64(len(list))/c.Ceiling()))
			fmt.Fprintf(out, "| %d | %s | %.0f | %.2f | %s | %s |\n", w, hms(wall), float64(len(list))/wall,
				cpu/(wall*float64(w)), hms(Simulate(lpt, w, c)), hms(bound))
		}
	}

	if o.png != "" {
		if err := drawPlot(o.png, rows, proj, c, hi, len(suite)); err != nil {
			return err
		}
		fmt.Fprintf(out, "\nplot: %s\n", o.png)
	}
	return nil
}

type projection struct {
	W                       int
	Ideal, Sustained, Suite float64 // jobs/s
	SustainedHi             float64 // jobs/s with the high-rate costs (0: not measured)
}

// limit names what holds a projected point back: a serial server busy
// over 80% of the time, or else the workers themselves.
func limit(x float64, c Costs) string {
	switch {
	case x*c.NATS >= 0.8 && c.NATS >= c.Coord:
		return "NATS"
	case x*c.Coord >= 0.8:
		return "coordinator"
	}
	return "workers"
}

// suite returns the first run's jobs in the order they started, each with
// its mean model time over the runs: one run of the suite, in queue order.
func (m *measured) suite() []float64 {
	s := make([]float64, 0, len(m.order))
	for _, id := range m.order {
		s = append(s, stat.Mean(m.byJob[id], nil))
	}
	return s
}

func readCSV(path string) ([]*measured, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(recs) < 2 {
		return nil, fmt.Errorf("%s: no measurements; run scripts/scaling.sh first", path)
	}
	col := map[string]int{}
	for i, name := range recs[0] {
		col[name] = i
	}
	for _, name := range []string{"W", "jobs", "wall_s", "coord_cpu_s", "nats_cpu_s", "worker_cpu_s", "runs"} {
		if _, ok := col[name]; !ok {
			return nil, fmt.Errorf("%s: no column %q", path, name)
		}
	}
	var rows []*measured
	for i, r := range recs[1:] {
		var errs []error
		num := func(name string) float64 {
			v, err := strconv.ParseFloat(r[col[name]], 64)
			errs = append(errs, err)
			return v
		}
		m := &measured{
			W: int(num("W")), Jobs: int(num("jobs")), Wall: num("wall_s"),
			CoordCPU: num("coord_cpu_s"), NATSCPU: num("nats_cpu_s"), WorkerCPU: num("worker_cpu_s"),
			Runs: strings.Split(r[col["runs"]], ";"),
		}
		if _, ok := col["submit_wall_s"]; ok {
			m.Window = num("submit_wall_s")
		}
		if _, ok := col["idle_s"]; ok {
			m.Idle, m.CoordIdle, m.NATSIdle = num("idle_s"), num("coord_idle_cpu_s"), num("nats_idle_cpu_s")
		}
		if j, ok := col["load1_before"]; ok {
			m.Load1Before, m.Load1After = r[j], r[col["load1_after"]]
		}
		if err := errors.Join(errs...); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, i+2, err)
		}
		if m.W < 1 || m.Jobs < 1 || m.Wall <= 0 {
			return nil, fmt.Errorf("%s:%d: W, jobs and wall_s must be positive", path, i+2)
		}
		rows = append(rows, m)
	}
	return rows, nil
}

// jobRow is an ok job of a jobs.parquet.
type jobRow struct {
	id      string
	at      time.Time
	seconds float64 // duration_ms / 1000
}

// readJobsFile returns the ok jobs of a jobs.parquet, in file order.
func readJobsFile(file string) ([]jobRow, error) {
	fr, err := results.ReadTable(file)
	if err != nil {
		return nil, err
	}
	ids, _ := fr.Col(results.ColJobID).([]string)
	dur, _ := fr.Col(results.ColDurationMs).([]float64)
	status, _ := fr.Col(results.ColStatus).([]string)
	at, _ := fr.Col(results.ColStartedAt).([]time.Time)
	if ids == nil || dur == nil || status == nil || at == nil {
		return nil, fmt.Errorf("%s: want columns %s, %s, %s, %s", file,
			results.ColJobID, results.ColDurationMs, results.ColStatus, results.ColStartedAt)
	}
	di := fr.Index(results.ColDurationMs)
	var rows []jobRow
	for r := range ids {
		if status[r] == "ok" && !fr.IsNull(di, r) {
			rows = append(rows, jobRow{ids[r], at[r], dur[r] / 1000})
		}
	}
	return rows, nil
}

// readPaperSources reads the model times (s) of a larger suite, in queue
// order, from a comma-separated list of sources: a results dir (every
// <sweep>/<run>/jobs.parquet under it; a job shared by sweeps counted
// once, jobs in the order they started) or a CSV of groups
// (sweep,jobs,duration_ms).
func readPaperSources(spec string) ([]float64, error) {
	var list []float64
	for _, src := range strings.Split(spec, ",") {
		st, err := os.Stat(src)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			groups, err := readPaper(src)
			if err != nil {
				return nil, err
			}
			for _, g := range groups {
				for range g.Jobs {
					list = append(list, g.Seconds)
				}
			}
			continue
		}
		files, err := filepath.Glob(filepath.Join(src, "*", "*", "jobs.parquet"))
		if err != nil {
			return nil, err
		}
		if len(files) == 0 {
			return nil, fmt.Errorf("%s: no <sweep>/<run>/jobs.parquet", src)
		}
		seen := map[string]bool{}
		var rows []jobRow
		for _, f := range files {
			rs, err := readJobsFile(f)
			if err != nil {
				return nil, err
			}
			for _, r := range rs {
				if !seen[r.id] {
					seen[r.id] = true
					rows = append(rows, r)
				}
			}
		}
		sort.SliceStable(rows, func(i, j int) bool { return rows[i].at.Before(rows[j].at) })
		for _, r := range rows {
			list = append(list, r.seconds)
		}
	}
	return list, nil
}

// readJobs reads the jobs.parquet of every sweep of every run of m.
func readJobs(dir string, m *measured) error {
	m.byJob = map[string][]float64{}
	for ri, run := range m.Runs {
		files, err := filepath.Glob(filepath.Join(dir, "*", run, "jobs.parquet"))
		if err != nil {
			return err
		}
		if len(files) == 0 {
			return fmt.Errorf("run %s (W=%d): no %s/*/%s/jobs.parquet; was it collected?", run, m.W, dir, run)
		}
		var first []jobRow
		seen := map[string]bool{} // a job two sweeps share ran once
		for _, file := range files {
			rows, err := readJobsFile(file)
			if err != nil {
				return err
			}
			rows = slices.DeleteFunc(rows, func(r jobRow) bool { dup := seen[r.id]; seen[r.id] = true; return dup })
			if len(m.jobs) <= ri {
				m.jobs = append(m.jobs, nil)
			}
			m.jobs[ri] = append(m.jobs[ri], rows...)
			for _, r := range rows {
				m.durations = append(m.durations, r.seconds)
				m.byJob[r.id] = append(m.byJob[r.id], r.seconds)
			}
			if ri == 0 {
				first = append(first, rows...)
			}
		}
		if ri == 0 {
			sort.SliceStable(first, func(i, j int) bool { return first[i].at.Before(first[j].at) })
			for _, r := range first {
				m.order = append(m.order, r.id)
			}
		}
	}
	if len(m.durations) == 0 {
		return fmt.Errorf("W=%d: no ok jobs in runs %v", m.W, m.Runs)
	}
	return nil
}

// writeJobs writes every measured job: W, run, job_id, duration_ms.
func writeJobs(path string, rows []*measured) (err error) {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	w := csv.NewWriter(f)
	_ = w.Write([]string{"W", "run", "job_id", "duration_ms"})
	for _, m := range rows {
		for ri, js := range m.jobs {
			for _, j := range js {
				_ = w.Write([]string{strconv.Itoa(m.W), m.Runs[ri], j.id, strconv.FormatFloat(1000*j.seconds, 'f', -1, 64)})
			}
		}
	}
	w.Flush()
	return w.Error()
}

type group struct {
	Sweep   string
	Jobs    int
	Seconds float64 // model time per job
}

func readPaper(path string) ([]group, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comment = '#'
	recs, err := r.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var gs []group
	for i, rec := range recs {
		if i == 0 && rec[0] == "sweep" {
			continue
		}
		if len(rec) != 3 {
			return nil, fmt.Errorf("%s:%d: want sweep,jobs,duration_ms", path, i+1)
		}
		n, err1 := strconv.Atoi(rec[1])
		ms, err2 := strconv.ParseFloat(rec[2], 64)
		if err := errors.Join(err1, err2); err != nil || n < 0 || ms < 0 {
			return nil, fmt.Errorf("%s:%d: want sweep,jobs,duration_ms with jobs and duration_ms ≥ 0 (%v)", path, i+1, err)
		}
		gs = append(gs, group{rec[0], n, ms / 1000})
	}
	return gs, nil
}

func hms(s float64) string {
	d := time.Duration(s * float64(time.Second))
	if d < time.Minute {
		return d.Round(10 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}
