package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"schedfarm/results"
	"schedfarm/results/export"
	"schedfarm/simcore"
	"schedfarm/sweep"
)

// scheduleSweeps are the shipped sweeps that run each model with its
// schedule option on, a few seconds each: what a user can export at once
// (TestScheduleSweepsShipped checks them).
var scheduleSweeps = map[string]string{
	"batch":     "configs/krallmann1999/quick-schedule.yaml",
	"divisible": "configs/lin2007/quick-schedule.yaml",
	"dssp":      "configs/anderson2005/quick-schedule.yaml",
	"ptg":       "configs/casanova2010/quick-schedule.yaml",
	"stretch":   "configs/saule2012/quick-schedule.yaml",
}

func (a *app) exportCmd() *cobra.Command {
	var format, out, table string
	names := make([]string, len(export.Formats))
	for i, f := range export.Formats {
		names[i] = string(f)
	}
	cmd := &cobra.Command{
		Use:   "export RUN --format FORMAT --out DIR",
		Short: "Write a collected run as Batsim jobs.csv, SWF logs or one partitioned Parquet dataset",
		Long: "RUN is a run ID (every <results-dir>/<sweep>/<RUN>/ is exported) or a results folder.\n" +
			"  batsim           DIR/<sweep>/<params>_jobs.csv per schedule, the columns of Batsim v4.2.1's _jobs.csv (evalys reads it)\n" +
			"  swf              DIR/<sweep>/<params>.swf per schedule: the simulated schedule as an SWF log, whole seconds\n" +
			"  parquet-dataset  DIR/sweep=<sweep>/model=<model>/part-N.parquet: one Hive-partitioned dataset of a table\n" +
			"                   (--table, default jobs) across all sweeps, with provenance and input hashes in each file\n" +
			"A schedule file is named after the parameters that vary in its sweep (order=FCFS_backfill=easy_jobs.csv);\n" +
			"DIR/<sweep>/index.csv maps each file to its job ID and every parameter.\n" +
			"The schedule formats need sweeps run with their model's schedule option in params: (schedule_table: true;\n" +
			"divisible: schedule: true), as configs/<paper>/quick-schedule.yaml do; models that do not number\n" +
			"processors get the lowest free ids at each job's start.\n" +
			"See docs/results.md. Exit status 2 on bad input, or when no sweep of RUN has a schedule to export.",
		Example: `  schedfarm run configs/krallmann1999/quick-schedule.yaml
  schedfarm export <run-id> --format batsim --out exports/batsim
  schedfarm export runs/krallmann1999-quick-schedule/<run-id>/ --format swf --out exports/swf
  schedfarm export <run-id> --format parquet-dataset --out exports/dataset`,
		Args: wantArgs(argSpec{min: 1, max: 1, what: "one run: its ID or a results folder", example: "schedfarm export runs/<sweep>/<run-id> --format parquet-dataset --out exports/dataset",
			where: "a run's results are under --results-dir, runs/<sweep>/<run-id>/",
			more:  func([]string) string { return "export one run at a time; the folder to write goes after --out" }}),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return &exitError{exitUsage, fmt.Errorf("--out DIR is required")}
			}
			f := export.Format(format)
			switch f {
			case export.FormatBatsim, export.FormatSWF, export.FormatDataset:
			default:
				return &exitError{exitUsage, fmt.Errorf("--format %q: want one of %s", format, strings.Join(names, ", "))}
			}
			dirs, err := a.runDirs(args[0])
			if err != nil {
				return err
			}
			reg := a.registry()
			sweeps, err := export.ReadSweeps(dirs, reg)
			if err != nil {
				return &exitError{exitUsage, err}
			}
			var w *export.Written
			if f == export.FormatDataset {
				w, err = export.WriteDataset(out, sweeps, export.DatasetOptions{
					Table: table, Provenance: a.provenance(), Registry: reg, Data: a.dataDirs(),
				})
			} else {
				w, err = export.WriteScheduleFiles(out, sweeps, f, a.provenance())
			}
			if errors.Is(err, export.ErrNoSchedule) && w != nil && len(w.Files) == 0 {
				return &exitError{exitUsage, noScheduleError(f, args[0], sweeps, w.NoSchedule, reg)}
			}
			if w != nil {
				for i, s := range w.Skipped {
					if i < len(w.NoSchedule) {
						s = skipLine(w.NoSchedule[i], sweeps, reg)
					}
					fmt.Fprintf(cmd.ErrOrStderr(), "skipped: %s\n", safeLine(s))
				}
			}
			if err != nil {
				return &exitError{exitUsage, err}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: %s → %s", f, export.Plural(len(w.Files), "file"), safe(out, 200))
			if len(w.Indexes) > 0 {
				fmt.Fprintf(cmd.OutOrStdout(), ", each sweep's files listed in its %s", export.IndexFile)
			}
			if w.Allocated > 0 {
				fmt.Fprintf(cmd.OutOrStdout(), " (%s with processor ids allocated lowest-free-first)", export.Plural(w.Allocated, "schedule"))
			}
			fmt.Fprintln(cmd.OutOrStdout())
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "", "output format: "+strings.Join(names, ", "))
	cmd.Flags().StringVar(&out, "out", "", "output folder (created; existing files of the same names are replaced)")
	cmd.Flags().StringVar(&table, "table", "jobs", "parquet-dataset: the table to export (jobs, summary or an extra table such as schedule)")
	return cmd
}

// noScheduleError is the error of a schedule export that found nothing to
// write: per sweep, why, and which key to set where, with an example and
// the shipped sweep of its model that has the key on.
func noScheduleError(f export.Format, run string, sweeps []*export.Sweep, none []*export.NoScheduleError, reg *simcore.Registry) error {
	var b strings.Builder
	fmt.Fprintf(&b, "export --format %s: no sweep of %s has a schedule to export (%s):", f, safe(run, 200), export.Plural(len(sweeps), "sweep"))
	for _, n := range none {
		fmt.Fprintf(&b, "\n  %s", skipLine(n, sweeps, reg))
		if n.Option == "" {
			continue
		}
		fmt.Fprintf(&b, "\n    for example:\n      - name: %s\n        model: %s\n        params:\n          %s: true", safe(n.Sweep, 100), safe(n.Model, 100), n.Option)
		if file, ok := scheduleSweeps[n.Model]; ok {
			fmt.Fprintf(&b, "\n    or run the shipped sweep that has it on: schedfarm run %s", file)
		}
	}
	return errors.New(b.String())
}

// skipLine says why a schedule export skipped a sweep and, for a model
// with a schedule, which key to set where: the line of the sweep file
// that sets the option false, or the sweep's own line.
func skipLine(n *export.NoScheduleError, sweeps []*export.Sweep, reg *simcore.Registry) string {
	name, model := safe(n.Sweep, 100), safe(n.Model, 100) // from the files' metadata
	if n.Option == "" {
		return fmt.Sprintf("%s (model %s): %s emits no schedule (models with one: %s)", name, model, model, strings.Join(export.ScheduleModels(), ", "))
	}
	why := fmt.Sprintf("ran with %s: false", n.Option)
	if n.Off > 0 {
		why = fmt.Sprintf("its %s ran with %s: false", export.Plural(n.Off, "successful job"), n.Option)
	}
	where := "the sweep's params: in its sweep file"
	for _, sw := range sweeps {
		if sw.Dir != n.Dir {
			continue
		}
		if file, line, set := sweepPlace(sw, n.Option, reg); file != "" {
			if set {
				where = fmt.Sprintf("%s:%d, which sets it false", file, line)
			} else {
				why += " (the model's default)"
				where = fmt.Sprintf("the params: of the sweep at %s:%d", file, line)
			}
		}
	}
	return fmt.Sprintf("%s (model %s): %s; set %s: true in %s, and run it again", name, model, why, n.Option, where)
}

// sweepPlace returns the sweep file a results folder's sweep was run from
// (its run.json's file) and the line there that sets option (set true) or,
// when the sweep leaves it at its default, the sweep's own line. The file
// is parsed from the text the run recorded (the jobs table's metadata), so
// the lines are those of the file as it was run; "" when either is
// missing or does not parse.
func sweepPlace(sw *export.Sweep, option string, reg *simcore.Registry) (file string, line int, set bool) {
	b, err := readSmall(filepath.Join(sw.Dir, results.RunInfoFile))
	if err != nil {
		return "", 0, false
	}
	var info results.RunInfo
	if json.Unmarshal(b, &info) != nil || info.File == "" {
		return "", 0, false
	}
	f, err := sweep.Parse(info.File, []byte(sw.Jobs.Meta[results.MetaSweepFile]), reg)
	if err != nil {
		return "", 0, false
	}
	for _, s := range f.Sweeps {
		if s.Name == sw.Name {
			line, set := s.ParamLine(option)
			return safe(s.File, 200), line, set
		}
	}
	return "", 0, false
}

// readSmall reads a file of at most 1 MiB (a run record).
func readSmall(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, 1<<20))
}
