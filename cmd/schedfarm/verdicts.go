package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"schedfarm/results/report"
)

// What `run` and `report` print where (docs/commands.md, "Output"):
// stdout holds what a run found and where it is — a line per collected
// sweep ("<sweep>: N ok, F failed, M missing → DIR"), a line per report
// ("<sweep>: report → FILE") followed by its claims' verdicts ("claim
// <sweep>/<id>: VERDICT[, status] — numbers"), and "suite report → FILE"
// — so that `schedfarm run x.yaml > log` keeps them; progress, logs,
// warnings and errors go to stderr. With --json, stdout holds one JSON
// document (report.RunSummary) and the text lines go to stderr.

// addJSONFlag adds --json to a command that reports claims (run, report).
func addJSONFlag(fs *pflag.FlagSet) {
	fs.Bool("json", false, "print one JSON document on stdout: the run's sweeps, results folders, reports and every claim's verdict and scoreboard status (docs/commands.md); the text lines go to stderr")
}

// jsonSummary reports whether the command prints the JSON summary of its
// claims (--json of run or report; other commands have no such flag).
func (a *app) jsonSummary(cmd *cobra.Command) bool {
	return cmd.Flags().Lookup("json") != nil && a.v.GetBool("json")
}

// textOut is where a command's text results go: stdout, or stderr when
// stdout holds the JSON summary.
func (a *app) textOut(cmd *cobra.Command) io.Writer {
	if a.jsonSummary(cmd) {
		return cmd.ErrOrStderr()
	}
	return cmd.OutOrStdout()
}

// report writes the report of each results folder, prints where it is and
// the claim verdicts, each with its status as the scoreboard of the
// reports together gives it (report.Classify), and returns the number of
// failed claims. The folders are evaluated first (figures, claims), then
// every report is written: ctx ending before then writes none of them (an
// error wrapping ctx's), and before the suite's report leaves the sweeps'
// reports written.
func (a *app) report(ctx context.Context, cmd *cobra.Command, dirs []string) (int, error) {
	reps := make([]*report.Report, 0, len(dirs))
	for i, d := range dirs {
		if err := ctx.Err(); err != nil {
			return 0, fmt.Errorf("report: %d of %d sweep(s) evaluated, no report written: %w", i, len(dirs), err)
		}
		r, err := report.Evaluate(ctx, d, a.registry())
		if err != nil {
			return 0, err
		}
		reps = append(reps, r)
	}
	root, suite := suiteRoot(reps)
	if suite {
		// in the order of the file's sweeps (the folders come sorted by name)
		slices.SortStableFunc(reps, func(a, b *report.Report) int { return cmp.Compare(a.Run.Position, b.Run.Position) })
	}
	report.Classify(reps)
	out := a.textOut(cmd)
	failed := 0
	for _, r := range reps {
		if err := r.WriteFiles(); err != nil {
			return failed, err
		}
		fmt.Fprintf(out, "%s: report → %s\n", safe(r.Sweep, maxNameLen), safe(filepath.Join(filepath.Clean(r.Dir), report.ReportHTML), 4*maxNameLen))
		fmt.Fprint(out, safeLines(r.FormatClaims()))
		for _, e := range r.FigureErrors {
			fmt.Fprintf(cmd.ErrOrStderr(), "warning: %s\n", safeLine(e))
		}
		failed += r.FailedClaims()
	}
	var suitePath, scoreboard string
	if suite {
		// A run of several sweeps (a suite) also gets one combined report,
		// beside the sweeps' folders.
		if err := ctx.Err(); err != nil {
			return failed, fmt.Errorf("report: every sweep's report written, not the suite's: %w", err)
		}
		s := &report.Suite{Run: reps[0].Run.Run, File: reps[0].Run.File, Sweeps: reps}
		if f := reps[0].Run.Finished; !f.IsZero() && f.After(reps[0].Run.Created) {
			s.Wall = f.Sub(reps[0].Run.Created)
		}
		path, err := report.WriteSuite(root, s)
		if err != nil {
			return failed, err
		}
		suitePath, scoreboard = path, filepath.Join(root, report.ScoreboardName(s.Run))
		fmt.Fprintf(out, "suite report → %s\n", safe(path, 4*maxNameLen))
	}
	if a.jsonSummary(cmd) {
		enc := json.NewEncoder(cmd.OutOrStdout())
		enc.SetIndent("", "  ")
		if err := enc.Encode(report.Summarize(reps, suitePath, scoreboard)); err != nil {
			return failed, fmt.Errorf("report: the JSON summary: %w", err)
		}
	}
	return failed, nil
}
