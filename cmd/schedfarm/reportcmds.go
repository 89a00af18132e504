package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/spf13/cobra"

	"schedfarm/results"
	"schedfarm/results/report"
	"schedfarm/results/verify"
	"schedfarm/simcore/workload"
	"schedfarm/sweep"
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

// suiteRoot reports whether reports are the sweeps of one run in one
// results directory (<root>/<sweep>/<run>/), and returns that root.
func suiteRoot(reps []*report.Report) (string, bool) {
	if len(reps) < 2 {
		return "", false
	}
	var root string
	for i, r := range reps {
		if r.Run == nil || r.Run.Run != reps[0].Run.Run {
			return "", false
		}
		d := filepath.Dir(filepath.Dir(filepath.Clean(r.Dir)))
		if i > 0 && d != root {
			return "", false
		}
		root = d
	}
	return root, true
}

func (a *app) reportCmd() *cobra.Command {
	var strict bool
	cmd := &cobra.Command{
		Use:   "report RUN",
		Short: "Write report.md and report.html (provenance, figures, claims, failed jobs) into a run's folders",
		Long: "RUN is a run ID (every <results-dir>/<sweep>/<RUN>/ gets a report) or a results folder.\n" +
			"Figures go to <folder>/figures/<id>.png, .svg and .pdf; claim verdicts to claims.json and stdout, each with its\n" +
			"status as the scoreboard of the run's sweeps gives it (--json: one JSON document on stdout instead).\n" +
			"Exit status 1 with --strict when a claim fails, 2 on bad input.",
		Example: `  schedfarm report 0b6c2a8e-...
  schedfarm report --strict runs/smoke/0b6c2a8e-.../
  schedfarm report --json 0b6c2a8e-... | jq '.claims[] | select(.verdict == "fail")'`,
		Args: wantArgs(argSpec{min: 1, max: 1, what: "one run: its ID or a results folder", example: "schedfarm report runs/smoke/<run-id>",
			where: "a run's results are under --results-dir, runs/<sweep>/<run-id>/",
			more:  func([]string) string { return "report one run at a time" }}),
		RunE: func(cmd *cobra.Command, args []string) error {
			dirs, err := a.runDirs(args[0])
			if err != nil {
				return err
			}
			a.phase("report")
			failed, err := a.report(cmd.Context(), cmd, dirs)
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
	addJSONFlag(cmd.Flags())
	return cmd
}

// sweepDirs resolves a run ID or a folder into results folders by sweep
// name: a results folder, a folder of them (configs/golden/ holds
// <sweep>/summary.parquet), or a run ID under --results-dir.
func (a *app) sweepDirs(arg string) (map[string]string, error) {
	var dirs []string
	if st, err := os.Stat(arg); err == nil && st.IsDir() {
		if _, err := os.Stat(filepath.Join(arg, results.SummaryTable+".parquet")); err == nil {
			dirs = []string{arg}
		} else {
			subs, _ := filepath.Glob(filepath.Join(arg, "*", results.SummaryTable+".parquet"))
			for _, s := range subs {
				dirs = append(dirs, filepath.Dir(s))
			}
			if len(dirs) == 0 {
				return nil, &exitError{exitUsage, fmt.Errorf("%s: no summary.parquet in it or in its subfolders", arg)}
			}
		}
	} else {
		var err error
		if dirs, err = a.runDirs(arg); err != nil {
			return nil, err
		}
	}
	out := map[string]string{}
	for _, d := range dirs {
		fr, err := results.ReadTable(filepath.Join(d, results.SummaryTable+".parquet"))
		if err != nil {
			return nil, &exitError{exitUsage, err}
		}
		name := fr.Meta[results.MetaSweep]
		if name == "" {
			name = filepath.Base(d)
		}
		if prev, dup := out[name]; dup {
			return nil, &exitError{exitUsage, fmt.Errorf("%s and %s both hold sweep %s", prev, d, name)}
		}
		out[name] = d
	}
	return out, nil
}

func (a *app) verifyCmd() *cobra.Command {
	var against string
	var limit int
	cmd := &cobra.Command{
		Use:   "verify RUN --against GOLDEN",
		Short: "Compare a run with a golden run of the same sweeps: identical jobs, equal metrics; print the differences",
		Long: "RUN and GOLDEN are run IDs (under --results-dir), results folders, or folders of results folders\n" +
			"(configs/golden/ holds <sweep>/summary.parquet). Sweeps are paired by name. When the golden has\n" +
			"jobs.parquet the jobs are compared by job_id, otherwise the summaries point by point. Values must be\n" +
			"bit-identical when the model version is unchanged, within the sweep's verify: tolerances otherwise.\n" +
			"Exit status 1 on drift, 2 on bad input.",
		Example: `  schedfarm verify 51a83e6e-... --against 3d5e83fc-...
  schedfarm verify runs/smoke/51a83e6e-... --against configs/golden/smoke`,
		Args: wantArgs(argSpec{min: 1, max: 1, what: "one folder (a run ID or a results folder; the golden goes after --against)",
			example: "schedfarm verify runs/smoke/<run-id> --against configs/golden/smoke",
			more: func(args []string) string {
				if len(args) == 2 {
					return fmt.Sprintf("to compare two, `schedfarm verify %s --against %s`", workload.ShellQuote(safe(args[0], maxNameLen)), workload.ShellQuote(safe(args[1], maxNameLen)))
				}
				return "to compare two, `schedfarm verify A --against B`"
			}}),
		RunE: func(cmd *cobra.Command, args []string) error {
			if against == "" {
				return &exitError{exitUsage, fmt.Errorf("--against GOLDEN is required")}
			}
			got, err := a.sweepDirs(args[0])
			if err != nil {
				return err
			}
			golden, err := a.sweepDirs(against)
			if err != nil {
				return err
			}
			// A golden folder may hold the sweeps of many files (configs/golden):
			// only those of the run's own sweep file(s) are expected in it.
			declared, err := a.declaredSweeps(got)
			if err != nil {
				return err
			}
			var names []string
			for n := range golden {
				if declared[n] {
					names = append(names, n)
				}
			}
			sort.Strings(names)
			drift := 0
			out := cmd.OutOrStdout()
			for n := range got {
				if _, ok := golden[n]; !ok {
					fmt.Fprintf(out, "verify %s: DRIFT, sweep not in the golden %s\n", n, against)
					drift++
				}
			}
			for _, n := range names {
				g, ok := got[n]
				if !ok {
					fmt.Fprintf(out, "verify %s: DRIFT, sweep missing from %s\n", n, args[0])
					drift++
					continue
				}
				v, err := verify.Dirs(g, golden[n], a.registry())
				if err != nil {
					return &exitError{exitUsage, err}
				}
				v.WriteText(out, limit)
				if !v.OK() {
					drift++
				}
			}
			if drift > 0 {
				return &exitError{exitFailures, fmt.Errorf("%d sweep(s) drifted from %s", drift, against)}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&against, "against", "", "the golden run: a run ID or a folder")
	cmd.Flags().IntVar(&limit, "limit", 50, "differences printed per sweep (0: all kept, up to 1000)")
	return cmd
}

// declaredSweeps returns the names of the sweeps declared in the sweep
// files recorded in the metadata of the given results folders.
func (a *app) declaredSweeps(dirs map[string]string) (map[string]bool, error) {
	out := map[string]bool{}
	for name, d := range dirs {
		out[name] = true
		fr, err := results.ReadTable(filepath.Join(d, results.SummaryTable+".parquet"))
		if err != nil {
			return nil, &exitError{exitUsage, err}
		}
		text := fr.Meta[results.MetaSweepFile]
		if text == "" {
			continue
		}
		f, err := sweep.Parse(d, []byte(text), a.registry())
		if err != nil {
			continue // an old file a newer build no longer reads: its own sweeps still count
		}
		for _, s := range f.Sweeps {
			out[s.Name] = true
		}
	}
	return out, nil
}
