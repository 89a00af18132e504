package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"schedfarm/results"
	"schedfarm/simcore"
	"schedfarm/sweep"
)

// benchRow is one timed representative job.
type benchRow struct {
	model string
	rep   simcore.Representative
	times []time.Duration
	err   error
}

func (r benchRow) min() time.Duration { return slices.Min(r.times) }
func (r benchRow) median() time.Duration {
	t := slices.Clone(r.times)
	slices.Sort(t)
	return t[len(t)/2]
}

// farmBench is one measured run through the farm.
type farmBench struct {
	jobs    int
	workMs  float64
	wall    time.Duration
	modelMs float64 // sum of the jobs' duration_ms
}

func (a *app) benchCmd() *cobra.Command {
	var runs, workers, farmJobs int
	var models []string
	var noFarm, markdown bool
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Time one representative job of every model and the farm's overhead on this machine",
		Long: "For every model (or those of --models), runs each of its representative paper-scale jobs\n" +
			"--runs times in this process and prints the best and median time, the jobs/s --workers workers\n" +
			"would sustain, and the runtime the paper reports where it reports one. Then runs bench jobs\n" +
			"through an embedded farm (NATS, coordinator, --workers workers): 0 ms jobs for the farm's\n" +
			"throughput and per-job cost, 20 ms jobs for its efficiency (model time ÷ (wall × workers)).\n" +
			"--markdown prints the tables as Markdown, for docs/performance.md (scripts/performance.sh).",
		Example: `  schedfarm bench
  schedfarm bench --models batch --runs 5 --no-farm`,
		Args: wantArgs(noArgs("schedfarm bench --models batch --no-farm")),
		RunE: func(cmd *cobra.Command, args []string) error {
			if runs < 1 || workers < 1 {
				return &exitError{exitUsage, fmt.Errorf("--runs and --workers must be at least 1")}
			}
			reg := a.registry()
			for _, m := range models {
				if _, ok := reg.Lookup(m); !ok {
					return &exitError{exitUsage, fmt.Errorf("--models: unknown model %q (want one of %s)", m, strings.Join(reg.Names(), ", "))}
				}
			}
			out := cmd.OutOrStdout()
			fmt.Fprintf(out, "machine: %s\n\n", machineLine())
			rows := a.benchModels(cmd.Context(), cmd.ErrOrStderr(), reg, models, runs)
			printBenchRows(out, rows, workers, markdown)
			failed := 0
			for _, r := range rows {
				if r.err != nil {
					failed++
				}
			}
			if !noFarm {
				fmt.Fprintln(out)
				for _, work := range []float64{0, 20} {
					n := farmJobs
					if work > 0 {
						n = max(farmJobs/10, 2*workers)
					}
					fb, err := a.benchFarm(cmd, n, work, workers)
					if err != nil {
						return fmt.Errorf("farm bench (%g ms jobs): %w", work, err)
					}
					printFarm(out, fb, workers, markdown)
				}
			}
			if failed > 0 {
				return &exitError{exitFailures, fmt.Errorf("%d representative job(s) failed", failed)}
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&runs, "runs", 3, "runs of each representative job")
	fl.IntVar(&workers, "workers", defaultWorkers(), "workers (for jobs/s and the farm runs)")
	fl.IntVar(&farmJobs, "farm-jobs", 2000, "0 ms jobs of the farm throughput run (the 20 ms run has a tenth)")
	fl.StringSliceVar(&models, "models", nil, "models to time (default: all)")
	fl.BoolVar(&noFarm, "no-farm", false, "skip the runs through the farm")
	fl.BoolVar(&markdown, "markdown", false, "print Markdown tables")
	return cmd
}

// machineLine describes this machine: CPU model, cores, OS, Go.
func machineLine() string {
	cpu := runtime.GOARCH
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				cpu = strings.TrimSpace(v)
				break
			}
		}
		f.Close()
	}
	host, _ := os.Hostname()
	return fmt.Sprintf("%s, %s, %d logical CPUs (GOMAXPROCS %d), %s/%s, %s",
		host, cpu, runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.GOOS, runtime.GOARCH, runtime.Version())
}

// benchModels times the representative jobs in this process, one at a time.
func (a *app) benchModels(ctx context.Context, log io.Writer, reg *simcore.Registry, only []string, runs int) []benchRow {
	var rows []benchRow
	for _, m := range reg.Models() {
		if len(only) > 0 && !slices.Contains(only, m.Name()) {
			continue
		}
		b, ok := m.(simcore.Benchmarked)
		if !ok {
			rows = append(rows, benchRow{model: m.Name(), err: fmt.Errorf("the model names no representative job")})
			continue
		}
		schema := m.Schema()
		for _, rep := range b.Representatives() {
			row := benchRow{model: m.Name(), rep: rep}
			p, err := schema.Complete(maps.Clone(rep.Params)) // Complete must not alter the model's map
			if err != nil {
				row.err = err
				rows = append(rows, row)
				continue
			}
			fmt.Fprintf(log, "bench: %s: %s\n", m.Name(), rep.Doc)
			for i := 0; i < runs && row.err == nil; i++ {
				t0 := time.Now()
				_, err := m.Run(simcore.WithClock(ctx, time.Now), p, rep.Seed)
				row.times = append(row.times, time.Since(t0))
				row.err = err
			}
			rows = append(rows, row)
		}
	}
	return rows
}

func printBenchRows(out io.Writer, rows []benchRow, workers int, markdown bool) {
	if markdown {
		fmt.Fprintf(out, "| model | representative job | best | median | jobs/s (%d workers) | paper reports | speed-up |\n|---|---|---|---|---|---|---|\n", workers)
	}
	tw := tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
	if !markdown {
		fmt.Fprintf(tw, "model\tjob\tbest\tmedian\tjobs/s (%d workers)\tpaper\tspeed-up\n", workers)
	}
	for _, r := range rows {
		if r.err != nil {
			line := []string{r.model, r.rep.Doc, "error: " + r.err.Error()}
			if markdown {
				fmt.Fprintf(out, "| %s | %s | %s | | | | |\n", line[0], line[1], line[2])
			} else {
				fmt.Fprintf(tw, "%s\t%s\t%s\t\t\t\t\n", line[0], line[1], line[2])
			}
			continue
		}
		med := r.median()
		jps := float64(workers) / med.Seconds()
		speed := ""
		if r.rep.PaperSeconds > 0 {
			speed = fmt.Sprintf("%.0f×", r.rep.PaperSeconds/med.Seconds())
		}
		paper := r.rep.Paper
		if paper == "" {
			paper = "not reported"
		}
		cells := []string{r.model, r.rep.Doc, fmtDur(r.min()), fmtDur(med), fmt.Sprintf("%.1f", jps), paper, speed}
		if markdown {
			fmt.Fprintf(out, "| %s |\n", strings.Join(cells, " | "))
		} else {
			fmt.Fprintln(tw, strings.Join(cells, "\t"))
		}
	}
	tw.Flush()
}

func fmtDur(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return fmt.Sprintf("%.0f µs", float64(d)/float64(time.Microsecond))
	case d < time.Second:
		return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%.2f s", d.Seconds())
}

// benchFarm runs n bench jobs of workMs each through an embedded farm with
// the given workers, in scratch state and results directories.
func (a *app) benchFarm(cmd *cobra.Command, n int, workMs float64, workers int) (*farmBench, error) {
	tmp, err := os.MkdirTemp("", "schedfarm-bench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	text := fmt.Sprintf("name: farm-bench\nmodel: bench\nseed: 1\nreplicates: %d\nparams: {work_ms: %g}\n", n, workMs)
	f, err := sweep.Parse(filepath.Join(tmp, "farm-bench.yaml"), []byte(text), a.registry())
	if err != nil {
		return nil, err
	}
	prev := a.v.GetString("results-dir")
	a.v.Set("results-dir", filepath.Join(tmp, "results"))
	defer a.v.Set("results-dir", prev)
	quiet := &cobra.Command{}
	quiet.SetOut(io.Discard)
	quiet.SetErr(io.Discard)
	quiet.SetContext(cmd.Context())
	fmt.Fprintf(cmd.ErrOrStderr(), "bench: farm, %d × %g ms jobs, %d workers\n", n, workMs, workers)
	if err := a.runLocal(cmd.Context(), quiet, f, nil, n, true, workers, filepath.Join(tmp, "state"), false, nil, nil); err != nil {
		return nil, err
	}
	fb := &farmBench{jobs: n, workMs: workMs, wall: a.lastElapsed}
	parts, _ := filepath.Glob(filepath.Join(tmp, "results", "farm-bench", "*", results.JobsTable+".parquet"))
	if len(parts) != 1 {
		return nil, fmt.Errorf("farm bench: jobs.parquet not found")
	}
	jobs, err := results.ReadTable(parts[0])
	if err != nil {
		return nil, err
	}
	if d, ok := jobs.Col(results.ColDurationMs).([]float64); ok {
		for _, x := range d {
			fb.modelMs += x
		}
	}
	return fb, nil
}

func printFarm(out io.Writer, fb *farmBench, workers int, markdown bool) {
	jps := float64(fb.jobs) / fb.wall.Seconds()
	eff := fb.modelMs / 1000 / (fb.wall.Seconds() * float64(workers))
	var line string
	if fb.workMs == 0 {
		line = fmt.Sprintf("farm: %d × 0 ms jobs, %d workers: %.0f jobs/s end to end, %.0f µs of farm time per job and worker",
			fb.jobs, workers, jps, fb.wall.Seconds()*float64(workers)/float64(fb.jobs)*1e6)
	} else {
		line = fmt.Sprintf("farm: %d × %g ms jobs, %d workers: efficiency %.3f (model time %.2f s ÷ (wall %.2f s × %d workers)), overhead %.1f%%",
			fb.jobs, fb.workMs, workers, eff, fb.modelMs/1000, fb.wall.Seconds(), workers, 100*(1/eff-1))
	}
	if markdown {
		line = "- " + line
	}
	fmt.Fprintln(out, line)
}
