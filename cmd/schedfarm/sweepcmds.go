package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"

	"github.com/spf13/cobra"

	"schedfarm/results/decl"
	"schedfarm/simcore"
	"schedfarm/sweep"
)

// loadSweep reads and validates a sweep file, its figures, claims and
// verify settings included; its errors name file:line.
func (a *app) loadSweep(path string) (*sweep.File, error) {
	if decl.IsReadingsFile(path) {
		return nil, &exitError{exitUsage, fmt.Errorf("%s is a paper folder's readings file, not a sweep: it declares the paper's alternative readings; check it with `schedfarm validate %s`, run the sweeps it names", path, path)}
	}
	f, err := sweep.Load(path, a.registry())
	if err != nil {
		return nil, &exitError{exitUsage, err}
	}
	if err := decl.ValidateFile(f); err != nil {
		return nil, &exitError{exitUsage, err}
	}
	if err := decl.CheckExplanations(f, a.registry()); err != nil {
		return nil, &exitError{exitUsage, err}
	}
	return f, nil
}

// loadAndExpand loads, validates and expands a sweep file and says how many
// jobs it holds, before anything is published. The expansion stops when
// ctx ends.
func (a *app) loadAndExpand(ctx context.Context, w io.Writer, path string, maxJobs int, extra string) (*sweep.File, []sweep.Job, error) {
	f, err := a.loadSweep(path)
	if err != nil {
		return nil, nil, err
	}
	a.phase("expand")
	jobs, err := a.expandSweep(ctx, f, maxJobs)
	if err != nil {
		return nil, nil, err
	}
	if w != nil {
		fmt.Fprintln(w, jobsLine(path, f, jobs, extra))
	}
	return f, jobs, nil
}

// jobsLine says how many sweeps and jobs file path holds (extra appended):
// what loadAndExpand prints, unless given no writer.
func jobsLine(path string, f *sweep.File, jobs []sweep.Job, extra string) string {
	return fmt.Sprintf("%s: %d sweep(s), %d jobs%s%s", path, len(f.Sweeps), len(jobs), adaptiveNote(f, jobs), extra)
}

// adaptiveNote says, for a file with adaptive replicates, how many jobs
// the rounds may add at most (every point to its sweep's max).
func adaptiveNote(f *sweep.File, jobs []sweep.Job) string {
	if !f.Adaptive() {
		return ""
	}
	most := 0
	maxOf := map[string]int{}
	for _, s := range f.Sweeps {
		maxOf[s.Name] = max(s.MaxReplicates, s.Replicates)
	}
	for i := range jobs {
		if jobs[i].Replicate == 0 {
			most += maxOf[jobs[i].Sweep]
		}
	}
	return fmt.Sprintf(" at first (adaptive replicates: at most %d)", most)
}

// adaptiveCountNote is adaptiveNote from the sweeps' job counts: a sweep's
// points are its jobs over its replicates, each grown to its max.
func adaptiveCountNote(f *sweep.File, perSweep []int) string {
	if !f.Adaptive() {
		return ""
	}
	most := 0
	for i, s := range f.Sweeps {
		points := perSweep[i] / max(s.Replicates, 1)
		most += points * max(s.MaxReplicates, s.Replicates)
	}
	return fmt.Sprintf(" at first (adaptive replicates: at most %d)", most)
}

// usageErr keeps an exitError as it is and makes any other error one of bad input.
func usageErr(err error) error {
	var e *exitError
	if errors.As(err, &e) {
		return err
	}
	return &exitError{exitUsage, err}
}

// expandSweep expands a sweep file within the job limit; it stops with an
// error wrapping ctx's when ctx ends.
func (a *app) expandSweep(ctx context.Context, f *sweep.File, maxJobs int) ([]sweep.Job, error) {
	jobs, err := f.ExpandContext(ctx, maxJobs)
	if err != nil {
		return nil, &exitError{exitUsage, err}
	}
	return jobs, nil
}

func (a *app) validateCmd() *cobra.Command {
	var maxJobs int
	var data bool
	cmd := &cobra.Command{
		Use:   "validate FILE...",
		Short: "Check sweep files (and a paper folder's readings.yaml) against the models' schemas; print every mistake with file:line",
		Example: `  schedfarm validate configs/smoke.yaml
  schedfarm validate configs/*/*.yaml
  schedfarm validate --data --data-dir /srv/traces configs/krallmann1999/table3.yaml`,
		Args: wantArgs(argSpec{min: 1, max: -1, what: "one or more sweep files", example: "schedfarm validate configs/smoke.yaml", where: sweepsWhere}),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			bad := 0
			for i, path := range args {
				if err := ctx.Err(); err != nil {
					return fmt.Errorf("validate: %d of %d file(s) checked: %w", i, len(args), err)
				}
				if decl.IsReadingsFile(path) {
					// A paper folder's readings file, not a sweep.
					rs, err := decl.LoadReadings(path, a.registry())
					if err != nil {
						bad++
						fmt.Fprintln(cmd.ErrOrStderr(), safeLines(err.Error()))
						continue
					}
					explaining := 0
					for _, r := range rs.Readings {
						if r.Explains {
							explaining++
						}
					}
					fmt.Fprintf(cmd.OutOrStdout(), "%s: ok, readings file, %d reading(s), %d explaining\n", path, len(rs.Readings), explaining)
					continue
				}
				f, err := a.loadSweep(path)
				if err == nil && !data {
					// Counted, not built: validate of a huge sweep stays in
					// constant memory.
					var n int
					var per []int
					a.phase("count")
					if n, per, err = f.CountContext(ctx, maxJobs); err == nil {
						fmt.Fprintf(cmd.OutOrStdout(), "%s: ok, %d sweep(s), %d jobs%s\n", path, len(f.Sweeps), n, adaptiveCountNote(f, per))
						continue
					}
				} else if err == nil {
					var jobs []sweep.Job
					a.phase("expand")
					jobs, err = a.expandSweep(ctx, f, maxJobs)
					if err == nil {
						err = checkData(a.registry(), a.dataDirs(), f, jobs)
					}
					if err == nil {
						fmt.Fprintf(cmd.OutOrStdout(), "%s: ok, %d sweep(s), %d jobs%s\n", path, len(f.Sweeps), len(jobs), adaptiveNote(f, jobs))
						continue
					}
				}
				if errors.Is(err, context.Canceled) {
					return fmt.Errorf("validate %s: %w", path, err)
				}
				if err != nil {
					err = usageErr(err)
				}
				bad++
				fmt.Fprintln(cmd.ErrOrStderr(), safeLines(err.Error()))
			}
			if bad > 0 {
				return &exitError{exitUsage, fmt.Errorf("%d of %d file(s) invalid", bad, len(args))}
			}
			return nil
		},
	}
	cmd.Flags().IntVar(&maxJobs, "max-jobs", sweep.DefaultMaxJobs, "largest sweep accepted without complaint")
	cmd.Flags().BoolVar(&data, "data", false, "also check that every data file the jobs read (traces, PTG and night files) opens from --data-dir, as run does")
	return cmd
}

func (a *app) expandCmd() *cobra.Command {
	var maxJobs int
	var asJSON, countOnly bool
	cmd := &cobra.Command{
		Use:   "expand FILE",
		Short: "Print the jobs a sweep file expands to (or just their count)",
		Example: `  schedfarm expand configs/smoke.yaml
  schedfarm expand --count configs/smoke.yaml
  schedfarm expand --json configs/smoke.yaml | jq -s '.[0]'`,
		Args: wantArgs(oneSweep("expand")),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			f, err := a.loadSweep(args[0])
			if err != nil {
				return err
			}
			// Parameter values from the file, escaped; the listing stops
			// when ctx ends.
			out := termWriter{ctxWriter{ctx, cmd.OutOrStdout()}}
			if countOnly {
				// Counted from the axes, no job built: a sweep of 10^9 jobs
				// is counted in constant memory.
				a.phase("count")
				n, _, err := f.CountContext(ctx, maxJobs)
				if err != nil {
					return &exitError{exitUsage, err}
				}
				fmt.Fprintln(out, n)
				return nil
			}
			a.phase("expand")
			jobs, err := a.expandSweep(ctx, f, maxJobs)
			if err != nil {
				return err
			}
			a.phase("write")
			switch {
			case asJSON:
				return sweep.WriteJSON(out, jobs)
			default:
				for _, s := range f.Sweeps {
					var mine []sweep.Job
					for _, j := range jobs {
						if j.Sweep == s.Name {
							mine = append(mine, j)
						}
					}
					fmt.Fprintf(out, "# sweep %s: model %s, %d jobs\n", s.Name, s.Model, len(mine))
					if err := sweep.WriteTable(out, mine, a.registry()); err != nil {
						return err
					}
				}
				fmt.Fprintf(out, "# total: %d jobs\n", len(jobs))
			}
			return nil
		},
	}
	cmd.Flags().IntVar(&maxJobs, "max-jobs", sweep.DefaultMaxJobs, "largest sweep accepted")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the jobs as JSON")
	cmd.Flags().BoolVar(&countOnly, "count", false, "print only the number of jobs")
	return cmd
}

func (a *app) modelsCmd() *cobra.Command {
	var asJSON bool
	var width int
	cmd := &cobra.Command{
		Use:   "models [NAME...]",
		Short: "List the models built into this binary with their parameter schemas (all, or those named)",
		Example: `  schedfarm models
  schedfarm models divisible
  schedfarm models --json batch
  schedfarm models --width 80 stretch | less`,
		RunE: func(cmd *cobra.Command, args []string) error {
			out := cmd.OutOrStdout()
			models := a.registry().Models()
			if len(args) > 0 {
				var picked []simcore.Model
				for _, name := range args {
					m, ok := a.registry().Lookup(name)
					if !ok {
						return &exitError{exitUsage, fmt.Errorf("no model %q (models: %s)", safe(name, maxNameLen), strings.Join(a.registry().Names(), ", "))}
					}
					picked = append(picked, m)
				}
				models = picked
			}
			if asJSON {
				return json.NewEncoder(out).Encode(describeModels(models))
			}
			if width <= 0 {
				width = outputWidth(out)
			}
			writeModelsText(out, models, width)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "machine-readable output")
	cmd.Flags().IntVar(&width, "width", 0, "wrap the text to this many columns (0: the terminal's width, else $COLUMNS, else 100)")
	return cmd
}

func rangeText(p simcore.Param) string {
	if len(p.Enum) > 0 {
		return strings.Join(p.Enum, "|")
	}
	lo, hi := "-inf", "+inf"
	if p.Min != nil {
		lo = simcore.FormatValue(*p.Min)
	}
	if p.Max != nil {
		hi = simcore.FormatValue(*p.Max)
	}
	if p.Min == nil && p.Max == nil {
		return ""
	}
	return "[" + lo + ", " + hi + "]"
}

type modelDesc struct {
	Name    string           `json:"name"`
	Version string           `json:"version"`
	Doc     string           `json:"doc"`
	Params  []paramDesc      `json:"params"`
	Metrics []simcore.Column `json:"metrics"`
	Tables  []simcore.Table  `json:"tables"`
}

type paramDesc struct {
	Name      string   `json:"name"`
	Type      string   `json:"type"`
	Unit      string   `json:"unit"`
	Min       *float64 `json:"min,omitempty"`
	Max       *float64 `json:"max,omitempty"`
	Enum      []string `json:"enum,omitempty"`
	Default   any      `json:"default"`
	Algorithm bool     `json:"algorithm"`
	Doc       string   `json:"doc"`
}

func describeModels(models []simcore.Model) []modelDesc {
	out := make([]modelDesc, 0, len(models))
	for _, m := range models {
		s := m.Schema()
		d := modelDesc{Name: m.Name(), Version: m.Version(), Doc: m.Doc(), Metrics: s.Metrics, Tables: s.Tables}
		for _, p := range s.Params {
			d.Params = append(d.Params, paramDesc{Name: p.Name, Type: p.Kind.String(), Unit: p.Unit, Min: p.Min, Max: p.Max,
				Enum: p.Enum, Default: p.Default, Algorithm: p.Algorithm, Doc: p.Doc})
		}
		out = append(out, d)
	}
	return out
}

func (a *app) versionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the schedfarm version, VCS revision and Go version",
		Args:  wantArgs(noArgs("schedfarm version")),
		Run: func(cmd *cobra.Command, _ []string) {
			p := a.provenance()
			fmt.Fprintf(cmd.OutOrStdout(), "schedfarm %s (revision %s, modified %s) %s %s/%s\n",
				p.Version, p.VCSRevision, p.VCSModified, p.GoVersion, runtime.GOOS, runtime.GOARCH)
			_ = os.Stdout.Sync()
		},
	}
}
