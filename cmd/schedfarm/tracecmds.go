package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"schedfarm/simcore"
	"schedfarm/simcore/workload"
	"schedfarm/sweep"
	"schedfarm/tracefetch"
)

// knownTraces is the table of known traces of this app.
func (a *app) knownTraces() []workload.KnownTrace {
	if a.known != nil {
		return a.known
	}
	return workload.Known
}

func (a *app) tracesCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "traces",
		Short: "List the known workload traces: expected SHA-256, whether each is found in the data dir and matches",
		Long: "Lists the Parallel Workloads Archive logs the farm knows, with their expected SHA-256, and whether each\n" +
			"is found in the data directories (--data-dir, searched in order) and matches.\n" +
			"`schedfarm traces fetch` downloads them.",
		Example: `  schedfarm traces
  schedfarm traces --data-dir /mnt/pwa-mirror --json`,
		Args: wantArgs(noArgs("schedfarm traces --json")),
		RunE: func(cmd *cobra.Command, _ []string) error {
			dirs := a.dataDirs()
			st := workload.Check(dirs, a.knownTraces())
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
				dest := "<data-dir>"
				if len(dirs) > 0 {
					dest = dirs[0]
				}
				fmt.Fprintf(out, "\n%d trace(s) missing from %v: run `schedfarm traces fetch --all` (or `--for SWEEP`, just the logs a sweep reads) to download them from the Parallel Workloads Archive into %s/%s/\n",
					missing, []string(dirs), dest, workload.TraceDir)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.AddCommand(a.tracesFetchCmd())
	return cmd
}

func (a *app) tracesFetchCmd() *cobra.Command {
	var all, force bool
	var mirror string
	var sweeps []string
	var retries, maxJobs int
	var stall, deadline time.Duration
	cmd := &cobra.Command{
		Use:   "fetch [NAME...]",
		Short: "Download known traces from the Parallel Workloads Archive (or a mirror) into the first data dir, verified",
		Long: "Downloads the named known traces (see `schedfarm traces`), every one (--all), or exactly the logs the\n" +
			"sweeps of a sweep file read (--for), into <data-dir>/traces/ of the FIRST --data-dir. A name may omit\n" +
			"the traces/ prefix and the .swf or .swf.gz suffix. Each file is written to a .part beside it, checked\n" +
			"against its known SHA-256 and size, then moved into place: a checksum mismatch keeps nothing. A file\n" +
			"already there and matching (in any data dir, the first that has it) is not fetched again; one there\n" +
			"with another checksum is an error unless --force. A broken transfer is retried (--retries), resuming\n" +
			"where it stopped; if retries run out the .part is kept and the same command resumes it; so it is\n" +
			"when a file is not complete by its --deadline (by default 1 min + 1 s per 10 kB of the file). --mirror\n" +
			"takes the files from a directory or an http(s) base URL holding them under the same names instead.\n" +
			"Exit status 0 when every file asked for is there and verified at the end, 1 otherwise, 2 on bad input.",
		Example: `  schedfarm traces fetch CTC-SP2-1996-3.1-cln
  schedfarm traces fetch --for configs/krallmann1999/table3.yaml
  schedfarm traces fetch --all --data-dir /srv/schedfarm
  schedfarm traces fetch --all --mirror /mnt/pwa-mirror`,
		RunE: func(cmd *cobra.Command, args []string) error {
			known := a.knownTraces()
			var want []workload.KnownTrace
			have := map[string]bool{}
			add := func(k workload.KnownTrace) {
				if !have[k.File] {
					have[k.File] = true
					want = append(want, k)
				}
			}
			var unknown []string
			for _, name := range args {
				if k, ok := tracefetch.Find(known, name); ok {
					add(k)
				} else {
					unknown = append(unknown, fmt.Sprintf("%q", name))
				}
			}
			if len(unknown) > 0 {
				names := make([]string, len(known))
				for i, k := range known {
					names[i] = k.Name()
				}
				return &exitError{exitUsage, fmt.Errorf("unknown trace(s) %s; the known traces are: %s",
					strings.Join(unknown, ", "), strings.Join(names, ", "))}
			}
			if all {
				for _, k := range known {
					add(k)
				}
			}
			var others []sweepData
			seenOther := map[string]bool{}
			for _, file := range sweeps {
				ks, rest, err := a.sweepTraces(cmd.Context(), file, maxJobs, known)
				if err != nil {
					return err
				}
				for _, k := range ks {
					add(k)
				}
				for _, o := range rest {
					if !seenOther[o.file.Name] {
						seenOther[o.file.Name] = true
						others = append(others, o)
					}
				}
				if len(ks)+len(rest) == 0 {
					fmt.Fprintf(cmd.OutOrStdout(), "%s: its jobs read no data files\n", file)
				}
			}
			if len(args) == 0 && !all && len(sweeps) == 0 {
				return &exitError{exitUsage, errors.New("name the traces to fetch, or pass --all or --for SWEEP_FILE")}
			}
			if retries < 0 {
				return &exitError{exitUsage, fmt.Errorf("--retries %d: must be 0 or more", retries)}
			}
			if deadline < 0 {
				return &exitError{exitUsage, fmt.Errorf("--deadline %s: must be 0 (scaled to the file) or more", deadline)}
			}
			dirs := a.dataDirs()
			if len(dirs) == 0 {
				return &exitError{exitUsage, errors.New("no --data-dir to fetch into")}
			}
			f := &tracefetch.Fetcher{
				Client:       &http.Client{},
				Dir:          dirs[0],
				Others:       dirs[1:],
				Mirror:       mirror,
				Force:        force,
				Retries:      retries,
				StallTimeout: stall,
				Deadline:     deadline,
				Logger:       a.logger(),
			}
			return a.fetchTraces(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), f, want, others, dirs)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&all, "all", false, "fetch every known trace")
	fl.StringArrayVar(&sweeps, "for", nil, "fetch the logs the jobs of this sweep file read (repeatable)")
	fl.StringVar(&mirror, "mirror", "", "take the files from this directory or http(s):// base URL instead of the archive")
	fl.BoolVar(&force, "force", false, "replace a file present with another checksum")
	fl.IntVar(&retries, "retries", 3, "retries of a broken transfer, each resuming where it stopped")
	fl.DurationVar(&stall, "timeout", tracefetch.DefaultStallTimeout, "give an attempt up when no bytes arrive for this long")
	fl.DurationVar(&deadline, "deadline", 0, "give a file up when it is not complete this long after its transfer began, every attempt included (0: 1 min + 1 s per 10 kB of the file)")
	fl.IntVar(&maxJobs, "max-jobs", sweep.DefaultMaxJobs, "largest sweep accepted by --for")
	return cmd
}

// sweepData is a data file a sweep reads that is not a known trace.
type sweepData struct {
	sweep string // sweep file
	name  string // sweep name
	file  simcore.DataFile
}

// sweepTraces loads and expands a sweep file as `validate --data` does and
// returns the known traces its jobs read, then the other data files.
func (a *app) sweepTraces(ctx context.Context, file string, maxJobs int, known []workload.KnownTrace) ([]workload.KnownTrace, []sweepData, error) {
	f, err := a.loadSweep(file)
	if err != nil {
		return nil, nil, err
	}
	jobs, err := a.expandSweep(ctx, f, maxJobs)
	if err != nil {
		return nil, nil, err
	}
	reg := a.registry()
	byPath := make(map[string]workload.KnownTrace, len(known))
	for _, k := range known {
		byPath[path.Join(workload.TraceDir, k.File)] = k
	}
	seen := map[string]bool{}
	var traces []workload.KnownTrace
	var rest []sweepData
	eachDataFile(reg, jobs, func(j *sweep.Job, df simcore.DataFile) {
		name := path.Clean(df.Name)
		if seen[name] {
			return
		}
		seen[name] = true
		if k, ok := byPath[name]; ok {
			traces = append(traces, k)
		} else {
			rest = append(rest, sweepData{sweep: file, name: j.Sweep, file: df})
		}
	})
	return traces, rest, nil
}

// fetchTraces fetches want with f, one line per file on out (and a
// progress bar on errw when it is a terminal), then says which of the
// other data files of --for sweeps it cannot get.
func (a *app) fetchTraces(ctx context.Context, out, errw io.Writer, f *tracefetch.Fetcher, want []workload.KnownTrace, others []sweepData, dirs simcore.Dirs) error {
	if isTerminal(errw) {
		f.Progress = &fetchBar{w: errw}
	}
	failed := 0
	for i, k := range want {
		if ctx.Err() != nil {
			failed += len(want) - i
			break
		}
		res, err := f.Fetch(ctx, k)
		if err != nil {
			failed++
			msg := err.Error()
			if errors.Is(err, tracefetch.ErrExists) {
				msg += "; pass --force to replace it"
			}
			if errors.Is(err, tracefetch.ErrTooSlow) {
				msg += "; pass a longer --deadline to wait longer"
			}
			fmt.Fprintln(errw, "error:", msg)
			continue
		}
		fmt.Fprintln(out, resultLine(res))
	}
	for _, o := range others {
		err := openable(dirs, o.file.Name)
		if err == nil {
			fmt.Fprintf(out, "present %s (sweep %s, parameter %s: not a known trace, no checksum to check)\n", o.file.Name, o.name, o.file.Param)
			continue
		}
		failed++
		fmt.Fprintf(errw, "error: %s (sweep %s of %s, parameter %s) is not a known trace: `traces fetch` cannot get it (%v); put it in one of the data directories\n",
			o.file.Name, o.name, o.sweep, o.file.Param, err)
	}
	if failed > 0 {
		return &exitError{exitFailures, fmt.Errorf("%d of %d file(s) not there and verified", failed, len(want)+len(others))}
	}
	return nil
}

// resultLine is the line `traces fetch` prints for a file it has.
func resultLine(r tracefetch.Result) string {
	if r.Status == tracefetch.Present {
		return fmt.Sprintf("present %s (sha256 ok)", r.Path)
	}
	secs := r.Elapsed.Seconds()
	rate := ""
	if secs > 0 {
		rate = byteCount(int64(float64(r.Bytes)/secs)) + "/s"
	}
	if r.Resumed > 0 {
		rate += ", resumed at " + byteCount(r.Resumed)
	}
	if r.Attempts > 1 {
		rate += fmt.Sprintf(", %d attempts", r.Attempts)
	}
	return fmt.Sprintf("fetched %s: %s in %.1f s (%s), sha256 ok", r.Path, byteCount(r.Bytes), secs, strings.TrimPrefix(rate, ", "))
}

// byteCount formats n bytes in B, kB or MB (powers of 1000).
func byteCount(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d B", n)
	case n < 1000_000:
		return fmt.Sprintf("%.1f kB", float64(n)/1e3)
	default:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	}
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// fetchBar draws a transfer's progress in place on a terminal.
type fetchBar struct {
	w           io.Writer
	name        string
	have, total int64 // bytes there before the transfer, bytes of the file
	done        int64 // bytes of this transfer
	start, last time.Time
}

func (b *fetchBar) Start(file, _ string, have, total int64) {
	*b = fetchBar{w: b.w, name: filepath.Base(strings.TrimSuffix(file, ".part")), have: have, total: total, start: time.Now()}
	b.draw()
}

func (b *fetchBar) Add(n int64) {
	b.done += n
	if time.Since(b.last) >= 100*time.Millisecond {
		b.draw()
	}
}

func (b *fetchBar) Stop() {
	fmt.Fprint(b.w, "\r\033[K")
}

func (b *fetchBar) draw() {
	b.last = time.Now()
	got := b.have + b.done
	frac := 0.0
	if b.total > 0 {
		frac = min(1, float64(got)/float64(b.total))
	}
	const width = 30
	n := int(frac * width)
	rate := ""
	if secs := time.Since(b.start).Seconds(); secs >= 0.5 {
		rate = "  " + byteCount(int64(float64(b.done)/secs)) + "/s"
	}
	fmt.Fprintf(b.w, "\r\033[K%s [%s%s] %s / %s%s", b.name, strings.Repeat("=", n), strings.Repeat(" ", width-n),
		byteCount(got), byteCount(b.total), rate)
}
