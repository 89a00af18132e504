package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"schedfarm/broker"
	"schedfarm/coordinator"
	"schedfarm/sweep"
	"schedfarm/worker"
)

func (a *app) serverCmd() *cobra.Command {
	var host, storeDir, cert, key, ca, natsConfig string
	var port int
	var maxStore int64
	cmd := &cobra.Command{
		Use:   "server",
		Short: "Run a standalone NATS server with JetStream (file storage) for a small cluster",
		Long: "Runs an embedded NATS server with JetStream and file storage until interrupted. Clients authenticate\n" +
			"with --user/--password or --token when those are set, and TLS is served with --server-cert/--server-key\n" +
			"(client certificates are required when --server-ca is also given).",
		Example: `  SCHEDFARM_TOKEN=s3cret schedfarm server --host 0.0.0.0 --port 4222 --store-dir /var/lib/schedfarm`,
		Args:    wantArgs(noArgs("schedfarm server --port 4222 --store-dir /var/lib/schedfarm")),
		RunE: func(cmd *cobra.Command, _ []string) error {
			ns, err := broker.StartServer(broker.ServerConfig{
				Host: host, Port: port, StoreDir: storeDir, MaxStore: maxStore,
				User: a.v.GetString("user"), Password: a.v.GetString("password"), Token: a.v.GetString("token"),
				CertFile: cert, KeyFile: key, CAFile: ca, ConfigFile: natsConfig, Logger: a.logger(),
			})
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "NATS with JetStream listening on %s (store %s); Ctrl-C stops it\n", ns.ClientURL(), storeDir)
			<-cmd.Context().Done()
			ns.Shutdown()
			ns.WaitForShutdown()
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&host, "host", "127.0.0.1", "address to listen on (0.0.0.0 for every interface)")
	f.IntVar(&port, "port", 4222, "port to listen on (-1: random)")
	f.StringVar(&storeDir, "store-dir", ".schedfarm/server", "JetStream file storage directory")
	f.Int64Var(&maxStore, "max-store", 0, "JetStream storage limit in bytes (0: server default)")
	f.StringVar(&cert, "server-cert", "", "TLS certificate file")
	f.StringVar(&key, "server-key", "", "TLS key file")
	f.StringVar(&ca, "server-ca", "", "CA file: require and verify client certificates")
	f.StringVar(&natsConfig, "nats-config", "", "NATS server config file (accounts, users, nkeys, operator/JWT, TLS); flags override it")
	return cmd
}

func (a *app) coordinatorCmd() *cobra.Command {
	var name string
	cmd := &cobra.Command{
		Use:     "coordinator",
		Short:   "Run the coordinator: accepts submissions, publishes jobs, tracks runs and failures",
		Example: `  schedfarm coordinator --nats nats://queue.example:4222 --creds farm.creds`,
		Args:    wantArgs(noArgs("schedfarm coordinator --nats nats://queue.example:4222 --creds farm.creds")),
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			farm, err := a.connectCoordinator(ctx, "schedfarm-coordinator")
			if err != nil {
				return err
			}
			defer farm.NC.Close()
			packing, err := a.packing()
			if err != nil {
				return &exitError{exitUsage, err}
			}
			c, err := coordinator.New(farm, coordinator.Config{Name: name, Registry: a.registry(), Logger: a.logger(), Packing: packing})
			if err != nil {
				return err
			}
			if err := c.Start(ctx); err != nil {
				return err
			}
			fmt.Fprintln(cmd.ErrOrStderr(), "coordinator ready; Ctrl-C stops it")
			<-ctx.Done()
			return c.Wait()
		},
	}
	cmd.Flags().StringVar(&name, "name", "", "coordinator name (default coordinator-<host>-<pid>)")
	addPackingFlag(cmd.Flags())
	addCoordinatorFlags(cmd.Flags())
	return cmd
}

func (a *app) workerCmd() *cobra.Command {
	var name string
	var n int
	var flushRows int
	var flushEvery, jobTimeout time.Duration
	cmd := &cobra.Command{
		Use:   "worker",
		Short: "Run workers: pull jobs, run models, store Parquet parts",
		Long: "Runs --workers worker loops in this process (default: one per CPU). SIGTERM or Ctrl-C hands the job in\n" +
			"flight back to the queue, stores the buffered results and exits.",
		Example: `  schedfarm worker --nats nats://queue.example:4222 --workers 8`,
		Args:    wantArgs(noArgs("schedfarm worker --nats nats://queue.example:4222 --workers 8")),
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if name == "" {
				host, _ := os.Hostname()
				name = fmt.Sprintf("%s-%d", host, os.Getpid())
			}
			return a.runWorkers(ctx, n, name, worker.Config{FlushRows: flushRows, FlushEvery: flushEvery, JobTimeout: jobTimeout}, nil)
		},
	}
	f := cmd.Flags()
	f.StringVar(&name, "name", "", "worker name prefix (default <host>-<pid>)")
	f.IntVar(&n, "workers", defaultWorkers(), "worker loops in this process")
	f.IntVar(&flushRows, "flush-rows", 500, "store a part once this many results are buffered")
	f.DurationVar(&flushEvery, "flush-every", 250*time.Millisecond, "store a part once the oldest buffered result is this old")
	f.DurationVar(&jobTimeout, "job-timeout", 12*time.Hour, "give up on a job after this long (negative: never); it is then retried elsewhere")
	return cmd
}

// runWorkers runs n worker loops, each with its own NATS connection, until
// ctx ends. ready, if non-nil, is closed once all are connected.
func (a *app) runWorkers(ctx context.Context, n int, prefix string, base worker.Config, ready chan<- struct{}) error {
	tuneGC()
	reg := a.registry()
	prov := a.provenance()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	// The loops share one crash: a job that may crash the process runs
	// alone in it.
	base.Process = worker.NewProcess()
	for i := 0; i < n; i++ {
		farm, err := a.connect(ctx, "schedfarm-worker", true)
		if err != nil {
			if ctx.Err() != nil && ready == nil {
				return nil // stopped while waiting for a coordinator
			}
			return err
		}
		cfg := base
		cfg.Name = fmt.Sprintf("%s-w%d", prefix, i)
		cfg.Registry, cfg.Logger, cfg.Provenance = reg, a.logger(), prov
		w, err := worker.New(farm, cfg)
		if err != nil {
			farm.NC.Close()
			return err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer farm.NC.Close()
			if err := w.Run(ctx); err != nil {
				errs <- err
			}
		}()
	}
	if ready != nil {
		close(ready)
	} else {
		fmt.Fprintf(os.Stderr, "%d worker(s) %s-w0..w%d pulling jobs from %s; Ctrl-C or SIGTERM stops them after handing back their jobs\n",
			n, prefix, n-1, a.v.GetString("nats"))
	}
	wg.Wait()
	close(errs)
	return <-errs
}

func (a *app) submitCmd() *cobra.Command {
	var maxJobs int
	var force, wait bool
	cmd := &cobra.Command{
		Use:   "submit FILE",
		Short: "Submit a sweep file to the coordinator (prints the run ID)",
		Long: "Submits a sweep file to the coordinator and prints the run ID. It waits up to --coordinator-timeout for a\n" +
			"coordinator to answer (a failover: the dead one's lease expires, a new one starts); if the coordinator stops\n" +
			"before answering, the submission goes to the next one and gives the same run. Submitting the same file again\n" +
			"while its run is in progress gives that run, not a second one. --wait follows the run to its end, through\n" +
			"failovers. Exit status 1 when jobs failed (--wait), 2 on bad input (a sweep over the server's max_payload\n" +
			"among it), 3 when the farm did not answer in time.",
		Example: `  schedfarm submit configs/smoke.yaml
  schedfarm submit --wait configs/smoke.yaml && schedfarm collect <run-id>`,
		Args: wantArgs(oneSweep("submit")),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			f, _, err := a.loadAndExpand(ctx, cmd.ErrOrStderr(), args[0], maxJobs, "")
			if err != nil {
				return err
			}
			req := coordinator.SubmitRequest{File: args[0], Text: string(f.Text), MaxJobs: maxJobs, Force: force, Run: coordinator.NewRunID()}
			farm, err := a.connect(ctx, "schedfarm-submit", false, func(nc *nats.Conn) error {
				if err := coordinator.CheckSubmitSize(req, len(f.Sweeps), nc.MaxPayload()); err != nil {
					return &exitError{exitUsage, err}
				}
				return nil
			})
			if err != nil {
				return err
			}
			defer farm.NC.Close()
			client := a.client(cmd, farm)
			a.phase("submit")
			rep, err := client.Submit(ctx, req)
			if err != nil {
				if errors.Is(err, context.Canceled) {
					// The coordinator publishes a submission it received
					// in full, whatever becomes of the client.
					return fmt.Errorf("submit %s interrupted: %w (if the coordinator received it, run %s goes ahead with all its jobs: `schedfarm status %s`)", args[0], err, req.Run, req.Run)
				}
				return clientErr(err)
			}
			if rep.Existing {
				fmt.Fprintf(cmd.ErrOrStderr(), "run %s: already submitted (%s): %d jobs, %d of them already done before it\n",
					rep.Run, rep.Status, rep.Total, rep.Skipped)
			} else {
				fmt.Fprintf(cmd.ErrOrStderr(), "run %s: %d jobs published, %d already done\n", rep.Run, rep.Published, rep.Skipped)
			}
			fmt.Fprintln(cmd.OutOrStdout(), rep.Run)
			if !wait {
				return nil
			}
			p, err := a.follow(ctx, client, rep.Run, nil)
			if err != nil {
				return clientErr(err)
			}
			if p.Failed > 0 {
				return &exitError{exitFailures, fmt.Errorf("run %s: %d job(s) failed", rep.Run, p.Failed)}
			}
			return nil
		},
	}
	cmd.Flags().IntVar(&maxJobs, "max-jobs", sweep.DefaultMaxJobs, "largest sweep accepted")
	cmd.Flags().BoolVar(&force, "force", false, "rerun jobs whose results already exist")
	cmd.Flags().BoolVar(&wait, "wait", false, "wait for the run to finish, showing progress")
	addClientFlags(cmd.Flags())
	return cmd
}

// addClientFlags adds the bounds of a command's requests to the coordinator.
func addClientFlags(fs *pflag.FlagSet) {
	fs.Duration("request-timeout", coordinator.DefaultRequestTimeout, "deadline of each request to the coordinator (a submission's reply is awaited longer while the coordinator answers pings)")
	fs.Duration("coordinator-timeout", coordinator.DefaultCoordinatorTimeout, "how long to keep asking while no coordinator answers (a failover), before giving up with exit status 3")
}

// client returns a client of the farm's coordinator bounded by
// --request-timeout and --coordinator-timeout; it says on stderr when it
// starts waiting for a coordinator.
func (a *app) client(cmd *cobra.Command, farm *broker.Farm) *coordinator.Client {
	c := &coordinator.Client{Farm: farm, RequestTimeout: a.v.GetDuration("request-timeout"),
		CoordinatorTimeout: a.v.GetDuration("coordinator-timeout")}
	if c.CoordinatorTimeout == 0 {
		c.CoordinatorTimeout = -1 // 0 on the command line: do not wait
	}
	w := cmd.ErrOrStderr()
	c.Notify = func(msg string) { fmt.Fprintln(w, "schedfarm:", msg) }
	return c
}

// clientErr adds to a request that got no answer in time how to wait longer.
func clientErr(err error) error {
	var na *coordinator.NoAnswerError
	if errors.As(err, &na) {
		return fmt.Errorf("%w (--coordinator-timeout and --request-timeout set how long to wait)", err)
	}
	var re *coordinator.RequestError
	var pe *coordinator.PayloadError
	if errors.As(err, &re) || errors.As(err, &pe) {
		return &exitError{exitUsage, err}
	}
	return err
}

// follow shows a run's progress until it finishes: from the coordinator
// local when it runs in this process, else through client, which waits
// through a coordinator's failover.
func (a *app) follow(ctx context.Context, client *coordinator.Client, run string, local *coordinator.Coordinator) (*coordinator.RunProgress, error) {
	bar := newProgress(os.Stderr)
	if client != nil {
		c := *client
		client = &c
		notify := client.Notify
		client.Notify = func(msg string) {
			if bar.drawn() {
				bar.note("schedfarm: " + msg)
			} else if notify != nil {
				notify(msg)
			}
		}
	}
	t := time.NewTicker(200 * time.Millisecond)
	defer t.Stop()
	for {
		var p *coordinator.RunProgress
		var err error
		var ended <-chan struct{}
		if local != nil {
			ended = local.Ended() // before reading the progress: no end is missed
			p, err = local.Progress(ctx, run)
		} else {
			var st *coordinator.Status
			st, err = client.Status(ctx, run)
			if err == nil && len(st.Runs) == 1 {
				p = &st.Runs[0]
			}
		}
		if err != nil {
			return nil, err
		}
		if p != nil {
			bar.update(p)
			if p.Finished() {
				bar.finish(p)
				return p, nil
			}
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-t.C:
		case <-ended: // nil unless local
		}
	}
}

func (a *app) statusCmd() *cobra.Command {
	var asJSON bool
	var before string
	var limit int
	cmd := &cobra.Command{
		Use:   "status [RUN]",
		Short: "Show runs (or one run) with their progress and failures, and the workers' liveness",
		Long: "Shows runs (or one run) with their progress and failures, and the workers' liveness. --json prints the\n" +
			"document the status page polls: each run also has its percent done, mean rate, ETA and the claim verdicts\n" +
			"of its reports under --results-dir. --serve HOST:PORT serves the live status page (docs/status.md) until\n" +
			"interrupted; it rides out a coordinator's restart and shows the failover. Without RUN it lists the newest\n" +
			"--limit runs (50) and says how to list older ones (--before RUN); a reply is kept to three quarters of the\n" +
			"NATS server's max_payload and says what it leaves out (failed jobs beyond 5 per run, 100 with RUN).",
		Example: `  schedfarm status
  schedfarm status --json 0b6c2a8e-...
  schedfarm status --before 0b6c2a8e-... --limit 200
  schedfarm status --serve 127.0.0.1:8080 --nats nats://queue.example:4222 --creds farm.creds`,
		Args: wantArgs(argSpec{min: 0, max: 1, what: "at most one run ID", example: "schedfarm status <run-id>",
			where: "`schedfarm status` without one lists the runs",
			more:  func([]string) string { return "status shows one run, or every run without one" }}),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			run := ""
			if len(args) == 1 {
				run = args[0]
				if err := coordinator.CheckRunID(run); err != nil {
					return &exitError{exitUsage, err}
				}
			}
			req := coordinator.StatusRequest{Run: run, Before: before, Limit: limit}
			if before != "" {
				if run != "" {
					return &exitError{exitUsage, errors.New("--before lists a page of runs: give RUN or --before, not both")}
				}
				if err := coordinator.CheckRunID(before); err != nil {
					return &exitError{exitUsage, fmt.Errorf("--before: %w", err)}
				}
			}
			if limit < 0 || limit > coordinator.MaxStatusRuns {
				return &exitError{exitUsage, fmt.Errorf("--limit %d: give 1 to %d runs (0: the default, %d)", limit, coordinator.MaxStatusRuns, coordinator.DefaultStatusRuns)}
			}
			if asJSON && a.v.GetString("serve") != "" {
				return &exitError{exitUsage, errors.New("--json and --serve: choose one (the page's JSON is at /status.json)")}
			}
			ln, err := a.listenStatusPage()
			if err != nil {
				return err
			}
			if ln != nil {
				defer ln.Close()
			}
			farm, err := a.connect(ctx, "schedfarm-status", false)
			if err != nil {
				return err
			}
			defer farm.NC.Close()
			if ln != nil {
				return <-a.serveStatusPage(ctx, cmd, ln, a.remoteStatus(farm, req))
			}
			st, err := a.client(cmd, farm).StatusFor(ctx, req)
			if err != nil {
				return clientErr(err)
			}
			if asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(a.statusDocument(st))
			}
			printStatus(cmd.OutOrStdout(), st, run != "")
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "machine-readable output: the status page's document")
	cmd.Flags().StringVar(&before, "before", "", "list the runs created before this run (the older page a listing names)")
	cmd.Flags().IntVar(&limit, "limit", 0, fmt.Sprintf("list at most this many runs, the newest (0: %d; at most %d)", coordinator.DefaultStatusRuns, coordinator.MaxStatusRuns))
	addClientFlags(cmd.Flags())
	addServeFlags(cmd.Flags())
	return cmd
}

func printStatus(out interface{ Write([]byte) (int, error) }, st *coordinator.Status, detail bool) {
	tw := tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RUN\tFILE\tSTATUS\tTOTAL\tDONE\tSKIPPED\tFAILED\tQUEUED\tREDELIVERED\tCREATED")
	for _, r := range st.Runs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%s\n", safe(r.ID, maxNameLen), safe(r.File, maxNameLen), safe(string(r.Status), maxNameLen), r.Total, r.Done, r.Skipped, r.Failed,
			r.Queued, r.Redelivered, r.Created.Local().Format(time.DateTime))
	}
	tw.Flush()
	for _, r := range st.Runs {
		for _, e := range r.StoreErrors {
			fmt.Fprintf(out, "STORE ERROR run=%s worker=%s: %s\n", safe(r.ID, maxNameLen), safe(e.Worker, maxNameLen), safeLine(e.Error))
		}
	}
	if detail {
		for _, r := range st.Runs {
			for _, f := range r.Failures {
				fmt.Fprintf(out, "failed  %s sweep=%s index=%d attempts=%d worker=%s: %s\n", safe(f.Job, maxNameLen), safe(f.Sweep, maxNameLen), f.Index, f.Attempts, safe(f.Worker, maxNameLen), safeLine(f.Error))
			}
			if r.FailuresCut > 0 {
				fmt.Fprintf(out, "failed  … and %d more failed jobs, not listed\n", r.FailuresCut)
			}
			for _, f := range r.Retrying {
				fmt.Fprintf(out, "retrying %s sweep=%s index=%d attempts=%d worker=%s: %s\n", safe(f.Job, maxNameLen), safe(f.Sweep, maxNameLen), f.Index, f.Attempts, safe(f.Worker, maxNameLen), safeLine(f.Error))
			}
			if r.RetryingCut > 0 {
				fmt.Fprintf(out, "retrying … and %d more retrying jobs, not listed\n", r.RetryingCut)
			}
		}
	}
	fmt.Fprintln(out)
	tw = tabwriter.NewWriter(out, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "WORKER\tHOST\tPID\tHEARTBEAT AGE\tSTATE\tCURRENT JOB\tBUFFERED\tDONE\tERRORS")
	for _, w := range st.Workers {
		state := "alive"
		if w.Lost {
			state = "LOST"
		} else if w.Draining {
			state = "draining"
		}
		if w.StoreError != "" {
			state += ",STORE-ERROR"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%d\t%d\t%d\n", safe(w.Name, maxNameLen), safe(w.Host, maxNameLen), w.PID, (time.Duration(w.AgeMs) * time.Millisecond).String(),
			state, inFlight(w), w.Buffered, w.Done, w.Errors)
	}
	tw.Flush()
	if st.Cut != nil && len(st.Cut.Notes) > 0 {
		fmt.Fprintln(out)
		for _, n := range st.Cut.Notes {
			fmt.Fprintf(out, "not shown: %s\n", safeLine(n))
		}
	}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func (a *app) collectCmd() *cobra.Command {
	var partial bool
	cmd := &cobra.Command{
		Use:   "collect RUN",
		Short: "Merge a run's Parquet parts into <results-dir>/<sweep>/<run>/ with a summary",
		Args:  wantArgs(oneRunID("collect", "schedfarm collect <run-id>")),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			farm, err := a.connectForRun(ctx, "schedfarm-collect", args[0])
			if err != nil {
				return err
			}
			defer farm.NC.Close()
			a.phase("collect")
			_, err = a.collect(ctx, cmd, farm, args[0], partial)
			return err
		},
	}
	cmd.Flags().BoolVar(&partial, "partial", false, "collect a run that has not finished (missing jobs are reported, not written)")
	return cmd
}

func (a *app) collect(ctx context.Context, cmd *cobra.Command, farm *broker.Farm, run string, partial bool) ([]coordinator.SweepCollected, error) {
	out, err := coordinator.Collect(ctx, farm, a.registry(), run, coordinator.CollectOptions{
		ResultsDir: a.v.GetString("results-dir"), Partial: partial, Provenance: a.provenance(),
	})
	for _, s := range out {
		for _, p := range s.Invalid {
			switch {
			case p.Found && p.MarkError == "":
				fmt.Fprintf(cmd.ErrOrStderr(), "stored part %s (%d jobs) is bad, left out and marked invalid (its jobs run again when the sweep is next submitted): %s\n",
					p.Name(), p.Jobs, safeLine(p.Reason))
			case p.Found:
				fmt.Fprintf(cmd.ErrOrStderr(), "stored part %s (%d jobs) is bad and left out, but could not be marked invalid (%s; `schedfarm parts invalidate %s --part %s` does it): %s\n",
					p.Name(), p.Jobs, safeLine(p.MarkError), p.Run, p.Part, safeLine(p.Reason))
			default:
				fmt.Fprintf(cmd.ErrOrStderr(), "stored part %s (%d jobs) is invalid, left out: %s\n", p.Name(), p.Jobs, safeLine(p.Reason))
			}
		}
	}
	if err != nil {
		return out, err
	}
	for _, s := range out {
		dup := ""
		if s.Superseded > 0 {
			dup = fmt.Sprintf(" (%d repeated results of redelivered jobs dropped)", s.Superseded)
		}
		fmt.Fprintf(a.textOut(cmd), "%s: %d ok, %d failed, %d missing%s → %s\n", safe(s.Sweep, maxNameLen), s.OK, s.Failed, s.Missing, dup, safe(filepath.Clean(s.Dir), 4*maxNameLen))
	}
	return out, nil
}

// connectForRun connects as a client for a command on run, which must be
// a run ID (bad input otherwise, before the farm is reached).
func (a *app) connectForRun(ctx context.Context, name, run string) (*broker.Farm, error) {
	if err := coordinator.CheckRunID(run); err != nil {
		return nil, &exitError{exitUsage, err}
	}
	return a.connect(ctx, name, false)
}

func (a *app) partsCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "parts",
		Short: "List a run's stored result parts, or invalidate them so that their jobs run again",
		Args:  wantArgs(noArgs("schedfarm parts list <run-id>")),
		RunE:  func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	list := &cobra.Command{
		Use:   "list RUN",
		Short: "List a run's stored parts: jobs, worker, digests recorded, invalid or not",
		Args:  wantArgs(oneRunID("list the parts of", "schedfarm parts list <run-id>")),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			farm, err := a.connectForRun(ctx, "schedfarm-parts", args[0])
			if err != nil {
				return err
			}
			defer farm.NC.Close()
			parts, err := coordinator.ListParts(ctx, farm, args[0])
			if err != nil {
				return err
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 2, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "PART\tSWEEP\tJOBS\tWORKER\tDIGESTS\tSTATE")
			for _, p := range parts {
				digests, state := "sha256", "valid"
				if !p.Verified {
					digests = "none"
				}
				if p.Invalid {
					state = "INVALID: " + safeLine(p.Reason)
				}
				fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\n", safe(p.Part, maxNameLen), safe(p.Sweep, maxNameLen), p.Jobs, safe(p.Worker, maxNameLen), digests, state)
			}
			return tw.Flush()
		},
	}
	var partIDs []string
	var reason string
	inval := &cobra.Command{
		Use:   "invalidate RUN",
		Short: "Mark a run's stored parts invalid (all, or those of --part): their jobs run again at the next submission",
		Long: "Marks stored parts of RUN invalid: every part of the run, or only the --part IDs (`schedfarm parts list RUN`).\n" +
			"Nothing is deleted: a marker is added beside each part's registry entry. Collections leave invalid parts out\n" +
			"(their jobs are missing, never taken from an older result they superseded), and the next `submit` or `run`\n" +
			"of the sweep runs their jobs again. A collection marks the parts it finds damaged, lost or undecodable itself.",
		Example: `  schedfarm parts invalidate <run-id> --reason "model bug fixed in v3"
  schedfarm parts invalidate <run-id> --part <part-id> && schedfarm submit --wait sweep.yaml`,
		Args: wantArgs(oneRunID("invalidate the parts of", "schedfarm parts invalidate <run-id> --part <part-id>")),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			for _, id := range partIDs {
				if u, err := uuid.Parse(id); err != nil || u.String() != id {
					return &exitError{exitUsage, fmt.Errorf("--part %s: not a part ID (a UUID as `schedfarm parts list` shows it)", safe(id, maxNameLen))}
				}
			}
			if len(reason) > broker.MaxInvalidReason || !utf8.ValidString(reason) {
				return &exitError{exitUsage, fmt.Errorf("--reason: at most %d bytes of UTF-8", broker.MaxInvalidReason)}
			}
			farm, err := a.connectForRun(ctx, "schedfarm-parts", args[0])
			if err != nil {
				return err
			}
			defer farm.NC.Close()
			host, _ := os.Hostname()
			marked, already, err := coordinator.InvalidateParts(ctx, farm, args[0], partIDs, reason, "parts invalidate on "+host)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "run %s: %d part(s) marked invalid, %d already were; the next submission of its sweep runs their jobs again\n",
				args[0], marked, already)
			return nil
		},
	}
	inval.Flags().StringSliceVar(&partIDs, "part", nil, "invalidate only these parts (IDs as `schedfarm parts list` shows them; repeat or comma-separate)")
	inval.Flags().StringVar(&reason, "reason", "invalidated by the user", "why, recorded in the marker and shown by collect and parts list")
	for _, c := range []*cobra.Command{list, inval} {
		addNATSFlags(c.Flags())
		cmd.AddCommand(c)
	}
	return cmd
}

func (a *app) cancelCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "cancel RUN",
		Short: "Stop a run: purge its queued jobs (results already stored are kept)",
		Args:  wantArgs(oneRunID("cancel", "schedfarm cancel <run-id>")),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			farm, err := a.connectForRun(ctx, "schedfarm-cancel", args[0])
			if err != nil {
				return err
			}
			defer farm.NC.Close()
			if err := a.client(cmd, farm).Cancel(ctx, args[0]); err != nil {
				return clientErr(err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "run %s cancelled\n", args[0])
			return nil
		},
	}
	addClientFlags(cmd.Flags())
	return cmd
}

func (a *app) drainCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "drain WORKER",
		Short: "Ask a worker to finish its current job, store its results and exit",
		Args: wantArgs(argSpec{min: 1, max: 1, what: "a worker's name", example: "schedfarm drain <worker>",
			where: "`schedfarm status` lists the workers by name",
			more:  func([]string) string { return "drain one worker at a time" }}),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			farm, err := a.connect(ctx, "schedfarm-drain", false)
			if err != nil {
				return err
			}
			defer farm.NC.Close()
			timeout := a.v.GetDuration("request-timeout")
			if timeout <= 0 {
				timeout = coordinator.DefaultRequestTimeout
			}
			subject := farm.Names.ControlSubject(args[0])
			rctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			start := time.Now()
			if _, err := farm.NC.RequestWithContext(rctx, subject, []byte("drain")); err != nil {
				if ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
					return &exitError{exitNoAnswer, fmt.Errorf("drain %s: the farm did not answer in time: no reply on %s within %s (--request-timeout); the worker is subscribed but does not answer",
						args[0], subject, time.Since(start).Round(time.Millisecond))}
				}
				return &exitError{exitUsage, fmt.Errorf("drain %s: %w (is the name right? `schedfarm status` lists workers)", args[0], err)}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "worker %s is draining\n", args[0])
			return nil
		},
	}
	cmd.Flags().Duration("request-timeout", coordinator.DefaultRequestTimeout, "deadline of the request to the worker")
	return cmd
}

// tuneGC makes the collector run less often in a process that runs
// workers (worker.GCPercent), unless the GOGC environment variable sets it.
func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(worker.GCPercent)
	}
}

// inFlight is what a worker runs, as status prints it: the job its
// heartbeat describes (sweep, index, parameters), as the status page shows
// it, else the IDs of its jobs in flight; escaped, on one line.
func inFlight(w coordinator.WorkerInfo) string {
	if c := w.Current; c != nil {
		return safe(fmt.Sprintf("%s #%d: %s", c.Sweep, c.Index, c.Params), broker.MaxCurrentParams+2*maxNameLen)
	}
	if len(w.InFlight) == 0 {
		return "idle"
	}
	return safe(strings.Join(w.InFlight, ","), 4*maxNameLen)
}
