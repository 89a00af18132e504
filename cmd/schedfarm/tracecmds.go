package main

import (
	"encoding/json"
	"fmt"
	"path"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"schedfarm/simcore/workload"
)

func (a *app) tracesCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "traces",
		Short: "List the known workload traces: expected SHA-256, whether each is found in the data dir and matches",
		Example: `  schedfarm traces
  schedfarm traces --data-dir /mnt/pwa-mirror --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dirs := a.dataDirs()
			st := workload.CheckKnown(dirs)
			out := cmd.OutOrStdout()
			if asJSON {
				return json.NewEncoder(out).Encode(st)
			}
			tw := tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "FILE\tJOBS\tSTATUS\tEXPECTED SHA-256\tUSED BY")
			missing := 0
			for _, s := range st {
				status := "missing"
				switch {
				case s.Err != "":
					status = "error: " + s.Err
				case s.Found && s.Match:
					status = "ok"
				case s.Found:
					status = "MISMATCH (" + s.Actual[:12] + "…)"
				default:
					missing++
				}
				fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\n", path.Join(workload.TraceDir, s.File), s.Jobs, status, s.SHA256, s.Paper)
			}
			tw.Flush()
			if missing > 0 {
				fmt.Fprintf(out, "\n%d trace(s) missing from %v: download them from the Parallel Workloads Archive (%s) into <data-dir>/%s/\n",
					missing, []string(dirs), workload.PWA, workload.TraceDir)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
