package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/spf13/cobra"

	"schedfarm/results"
)

// runDirs resolves RUN to result folders: a folder holding summary.parquet
// is itself; otherwise RUN is a run ID and every <results-dir>/*/<RUN>/ is
// one of its sweeps.
func (a *app) runDirs(run string) ([]string, error) {
	if st, err := os.Stat(filepath.Join(run, results.SummaryTable+".parquet")); err == nil && !st.IsDir() {
		return []string{run}, nil
	}
	root := a.v.GetString("results-dir")
	if filepath.Base(run) != run || run == "." || run == ".." {
		return nil, &exitError{exitUsage, fmt.Errorf("%s: not a results folder (no summary.parquet) and not a run ID", run)}
	}
	dirs, err := filepath.Glob(filepath.Join(root, "*", run))
	if err != nil {
		return nil, &exitError{exitUsage, err}
	}
	var out []string
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, results.SummaryTable+".parquet")); err == nil {
			out = append(out, d)
		}
	}
	if len(out) == 0 {
		return nil, &exitError{exitUsage, fmt.Errorf("run %s: no results under %s/*/%s/ (collect it first, or pass --results-dir)", run, root, run)}
	}
	sort.Strings(out)
	return out, nil
}

// report writes the report of each results folder, prints where it is and
// the claim verdicts (on stderr), and returns the number of failed claims.
func (a *app) report(cmd *cobra.Command, dirs []string) (int, error) {
	failed := 0
	for _, d := range dirs {
		r, err := results.WriteReport(d, a.registry())
		if err != nil {
			return failed, err
		}
		fmt.Fprintf(cmd.OutOrStdout(), "%s: report → %s\n", r.Sweep, filepath.Join(filepath.Clean(d), results.ReportHTML))
		fmt.Fprint(cmd.ErrOrStderr(), results.FormatClaims(r.Sweep, r.Claims))
		for _, e := range r.FigureErrors {
			fmt.Fprintf(cmd.ErrOrStderr(), "warning: %s\n", e)
		}
		failed += r.FailedClaims()
	}
	return failed, nil
}

func (a *app) reportCmd() *cobra.Command {
	var strict bool
	cmd := &cobra.Command{
		Use:   "report RUN",
		Short: "Write report.md and report.html (provenance, figures, claims, failed jobs) into a run's folders",
		Long: "RUN is a run ID (every <results-dir>/<sweep>/<RUN>/ gets a report) or a results folder.\n" +
			"Figures go to <folder>/figures/<id>.png and .svg; claim verdicts to claims.json and stderr.\n" +
			"Exit status 1 with --strict when a claim fails, 2 on bad input.",
		Example: `  schedfarm report 0b6c2a8e-...
  schedfarm report --strict results/smoke/0b6c2a8e-.../`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dirs, err := a.runDirs(args[0])
			if err != nil {
				return err
			}
			failed, err := a.report(cmd, dirs)
			if err != nil {
				return err
			}
			if strict && failed > 0 {
				return &exitError{exitFailures, fmt.Errorf("%d claim(s) failed (--strict)", failed)}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&strict, "strict", false, "exit 1 when a claim fails")
	return cmd
}
