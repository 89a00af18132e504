package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"schedfarm/results/export"
)

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
			"  batsim           DIR/<sweep>/job-NNNN_jobs.csv per schedule, the columns of Batsim v4.2.1's _jobs.csv (evalys reads it)\n" +
			"  swf              DIR/<sweep>/job-NNNN.swf per schedule: the simulated schedule as an SWF log, whole seconds\n" +
			"  parquet-dataset  DIR/sweep=<sweep>/model=<model>/part-N.parquet: one Hive-partitioned dataset of a table\n" +
			"                   (--table, default jobs) across all sweeps, with provenance and input hashes in each file\n" +
			"The schedule formats need sweeps run with their model's schedule option (schedule_table: true; divisible:\n" +
			"schedule: true); models that do not number processors get the lowest free ids at each job's start.\n" +
			"See docs/results.md. Exit status 2 on bad input.",
		Example: `  schedfarm export 0b6c2a8e-... --format batsim --out exports/batsim
  schedfarm export runs/krallmann1999-quick/0b6c2a8e-.../ --format swf --out exports/swf
  schedfarm export 0b6c2a8e-... --format parquet-dataset --out exports/dataset`,
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
			if w != nil {
				for _, s := range w.Skipped {
					fmt.Fprintf(cmd.ErrOrStderr(), "skipped: %s\n", safeLine(s))
				}
			}
			if err != nil {
				return &exitError{exitUsage, err}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: %d file(s) → %s", f, len(w.Files), safe(out, 200))
			if w.Allocated > 0 {
				fmt.Fprintf(cmd.OutOrStdout(), " (%d schedule(s) with processor ids allocated lowest-free-first)", w.Allocated)
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
