package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/spf13/cobra"

	"schedfarm/broker"
	"schedfarm/coordinator"
	"schedfarm/sweep"
	"schedfarm/worker"
)

func defaultWorkers() int { return runtime.NumCPU() }

func (a *app) runCmd() *cobra.Command {
	var workers, maxJobs int
	var force, strict bool
	var stateDir string
	cmd := &cobra.Command{
		Use:   "run FILE",
		Short: "Run a sweep on this machine: embedded NATS, a coordinator and workers in one process",
		Long: "Validates and expands the sweep, starts an embedded NATS server with JetStream under --state-dir, a\n" +
			"coordinator and --workers workers, shows progress, and collects the results into\n" +
			"<results-dir>/<sweep>/<run-id>/. Jobs whose results already exist in the state dir are skipped\n" +
			"unless --force, then writes report.md and report.html (figures, claims) into each sweep's folder.\n" +
			"Before any job is published, every data file the jobs to run read (traces, PTG and night files) must open\n" +
			"from --data-dir, a known log with the archive's SHA-256: a missing or wrong one is bad input, named with the\n" +
			"sweep file's line, the file meant (did you mean) and where to get it. It is checked before the embedded farm\n" +
			"starts; only when the state dir may hold the results of jobs that read it, once the farm has loaded them:\n" +
			"jobs whose results are already in the state dir do not run and need no data (unless --force).\n" +
			"--serve HOST:PORT serves the live status page meanwhile (docs/status.md).\n" +
			"Where the results are and the claims' verdicts go to stdout, progress and logs to stderr; --json prints\n" +
			"one JSON summary of the run's claims on stdout instead (docs/commands.md, \"Output\").\n" +
			"Exit status 1 when jobs failed (or, with --strict, a claim failed), 2 on bad input, 130 or 143 when\n" +
			"SIGINT or SIGTERM stopped it (finished jobs are kept: the same command resumes; a second signal exits at once).",
		Example: `  schedfarm run configs/smoke.yaml
  schedfarm run --workers 2 --force configs/bench/overhead.yaml
  schedfarm run --serve 127.0.0.1:8080 configs/quick-all.yaml
  schedfarm run --json configs/smoke.yaml 2>/dev/null > smoke.json`,
		Args: wantArgs(oneSweep("run")),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			// The job count is said once the data check lets the run go on.
			f, jobs, err := a.loadAndExpand(ctx, nil, args[0], maxJobs, "")
			if err != nil {
				return err
			}
			announce := func() {
				fmt.Fprintln(cmd.ErrOrStderr(), jobsLine(args[0], f, jobs, fmt.Sprintf(", %d workers", workers)))
			}
			// The sweep's text travels in one message (the run record):
			// the embedded server's limit is known before it starts.
			size := coordinator.SubmitRequest{File: f.Path, Text: string(f.Text), MaxJobs: maxJobs, Force: force}
			if err := coordinator.CheckSubmitSize(size, len(f.Sweeps), broker.DefaultMaxPayload); err != nil {
				var pe *coordinator.PayloadError
				if errors.As(err, &pe) {
					pe.Embedded = true
				}
				return &exitError{exitUsage, err}
			}
			var recheck func(*coordinator.Coordinator) error
			if err := checkData(a.registry(), a.dataDirs(), f, jobs); err != nil {
				if force || !stateKept(stateDir) {
					return &exitError{exitUsage, err}
				}
				// The state dir may hold the results of the jobs that
				// read the missing files: those jobs do not run again.
				// Check, once it is loaded, the jobs that will.
				recheck = func(c *coordinator.Coordinator) error {
					if err := checkData(a.registry(), a.dataDirs(), f, c.Pending(jobs)); err != nil {
						return err
					}
					announce()
					return nil
				}
			} else {
				announce()
			}
			page, err := a.listenStatusPage()
			if err != nil {
				return err
			}
			if page != nil {
				defer page.Close()
			}
			return a.runLocal(ctx, cmd, f, jobs, maxJobs, force, workers, stateDir, strict, recheck, page)
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&workers, "workers", defaultWorkers(), "in-process workers")
	fl.IntVar(&maxJobs, "max-jobs", sweep.DefaultMaxJobs, "largest sweep accepted")
	fl.BoolVar(&force, "force", false, "rerun jobs whose results already exist")
	fl.StringVar(&stateDir, "state-dir", ".schedfarm", "where the embedded NATS server keeps its JetStream state")
	fl.BoolVar(&strict, "strict", false, "exit 1 when a claim of the sweep file fails")
	addPackingFlag(fl)
	addCoordinatorFlags(fl)
	addServeFlags(fl)
	addJSONFlag(fl)
	fl.Duration("serve-linger", 5*time.Second, "with --serve: keep serving the page this long after the run's report is written, so that open pages show the claim verdicts")
	return cmd
}

// stateKept reports whether stateDir holds an embedded server's state
// (results of earlier runs may be there).
func stateKept(stateDir string) bool {
	_, err := os.Stat(filepath.Join(stateDir, "nats"))
	return err == nil
}

// runLocal runs f (expanded: jobs; nil lets the coordinator expand it)
// with an embedded server under stateDir. check, if not
// nil, is called once the coordinator has loaded the state, before any
// worker starts or anything is published: an error from it refuses the
// run as bad input. page, if not nil, is where the status page is served
// from the coordinator's start until the run's report is written (and
// --serve-linger more).
func (a *app) runLocal(ctx context.Context, cmd *cobra.Command, f *sweep.File, jobs []sweep.Job, maxJobs int, force bool, workers int, stateDir string, strict bool, check func(*coordinator.Coordinator) error, page net.Listener) error {
	if workers < 1 {
		return &exitError{exitUsage, fmt.Errorf("--workers must be at least 1")}
	}
	unlock, err := lockStateDir(stateDir)
	if err != nil {
		return &exitError{exitUsage, err}
	}
	defer unlock()
	ns, err := broker.StartServer(broker.ServerConfig{Port: -1, StoreDir: filepath.Join(stateDir, "nats"), Logger: a.logger()})
	if err != nil {
		return fmt.Errorf("embedded NATS under %s: %w (is another `schedfarm run` using this state dir? pass --state-dir)", stateDir, err)
	}
	defer func() {
		ns.Shutdown()
		ns.WaitForShutdown()
	}()
	a.v.Set("nats", ns.ClientURL())
	a.embedded = ns

	coordCtx, stopCoord := context.WithCancel(context.Background())
	defer stopCoord()
	farm, err := a.connectCoordinator(coordCtx, "schedfarm-run")
	if err != nil {
		return err
	}
	defer farm.NC.Close()
	packing, err := a.packing()
	if err != nil {
		return &exitError{exitUsage, err}
	}
	coord, err := coordinator.New(farm, coordinator.Config{Registry: a.registry(), Logger: a.logger(), Packing: packing})
	if err != nil {
		return err
	}
	if err := coord.Start(coordCtx); err != nil {
		return err
	}
	// On every return, the coordinator stops (releasing its lease) before
	// its connection closes, so that the next `run` on this state dir
	// need not wait for the lease to expire.
	defer func() {
		stopCoord()
		_ = coord.Wait()
	}()
	if check != nil {
		if err := check(coord); err != nil {
			return &exitError{exitUsage, err}
		}
	}
	if page != nil {
		pageCtx, stopPage := context.WithCancel(context.Background())
		served := a.serveStatusPage(pageCtx, cmd, page, func(ctx context.Context) (*coordinator.Status, error) { return coord.Status(ctx, "") })
		defer func() {
			stopPage()
			if err := <-served; err != nil {
				a.logger().Warn("status page", "err", err)
			}
		}()
	}

	// Workers stop when the run is over or on Ctrl-C; on Ctrl-C they hand
	// their jobs back and the run stays resumable in the state dir.
	workCtx, stopWorkers := context.WithCancel(ctx)
	defer stopWorkers()
	var workersErr error
	workersDone := make(chan struct{})
	ready := make(chan struct{})
	host, _ := os.Hostname()
	go func() {
		workersErr = a.runWorkers(workCtx, workers, fmt.Sprintf("%s-%d", host, os.Getpid()), worker.Config{}, ready)
		close(workersDone)
	}()
	select {
	case <-ready:
	case <-workersDone:
		return fmt.Errorf("starting the workers: %w", workersErr)
	}

	start := time.Now()
	// The run ID is chosen here so that an interrupted publication can be
	// undone by it.
	req := coordinator.SubmitRequest{File: f.Path, Text: string(f.Text), MaxJobs: maxJobs, Force: force, Run: coordinator.NewRunID()}
	a.phase("submit")
	rep, err := coord.SubmitParsed(ctx, req, f, jobs)
	if err != nil {
		stopWorkers()
		<-workersDone
		if ctxErr := ctx.Err(); ctxErr != nil {
			// Never half a sweep published: what was published is purged
			// and the run cancelled (a later run skips the jobs that
			// finished meanwhile).
			a.cancelRun(farm, coord, req.Run)
			return fmt.Errorf("run %s interrupted while publishing its jobs (%v): %w (none of its jobs stays queued; its finished jobs are kept: run the same command again to resume)", req.Run, err, ctxErr)
		}
		return &exitError{exitUsage, err}
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "run %s: %d published, %d already done\n", rep.Run, rep.Published, rep.Skipped)
	// Stop following if every worker has stopped: nothing would finish the run.
	followCtx, stopFollow := context.WithCancel(ctx)
	defer stopFollow()
	go func() {
		select {
		case <-workersDone:
			stopFollow()
		case <-followCtx.Done():
		}
	}()
	a.phase("run")
	p, err := a.follow(followCtx, nil, rep.Run, coord)
	stopWorkers()
	<-workersDone
	if err != nil && ctx.Err() == nil {
		err = fmt.Errorf("every worker stopped before the run finished: %v", workersErr)
	} else if workersErr != nil && err == nil {
		err = workersErr
	}
	if err != nil {
		// Purge what is still queued so that the next `run` of this sweep,
		// which skips every finished job, does not race a leftover run.
		a.cancelRun(farm, coord, rep.Run)
		return fmt.Errorf("run %s interrupted: %w (its finished jobs are kept: run the same command again to resume)", rep.Run, err)
	}
	elapsed := time.Since(start)
	a.lastElapsed = elapsed
	if p != nil && !p.Ended.IsZero() && p.Ended.After(p.Created) {
		a.lastElapsed = p.Ended.Sub(p.Created) // as the run recorded it
	}
	a.phase("collect")
	collected, err := a.collect(ctx, cmd, farm, rep.Run, false)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return fmt.Errorf("run %s: collection interrupted: %w (every result is kept in %s: run the same command again to collect it)", rep.Run, err, stateDir)
		}
		return err
	}
	dirs := make([]string, len(collected))
	for i, c := range collected {
		dirs[i] = c.Dir
	}
	a.phase("report")
	failedClaims, err := a.report(ctx, cmd, dirs)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return fmt.Errorf("run %s: report interrupted: %w (the results are collected: `schedfarm report %s` writes the report)", rep.Run, err, rep.Run)
		}
		return err
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "run %s finished in %s\n", rep.Run, elapsed.Round(time.Millisecond))
	if line := efficiencyLine(p, workers); line != "" {
		fmt.Fprintln(cmd.ErrOrStderr(), line)
	}
	if linger := a.v.GetDuration("serve-linger"); page != nil && linger > 0 {
		fmt.Fprintf(cmd.ErrOrStderr(), "status page: the run is over; serving it %s more (--serve-linger)\n", linger)
		select {
		case <-ctx.Done():
		case <-time.After(linger):
		}
	}
	stopCoord()
	if err := coord.Wait(); err != nil {
		return err
	}
	if p.Failed > 0 {
		for _, fl := range p.Failures {
			fmt.Fprintf(cmd.ErrOrStderr(), "failed: job %s (sweep %s, index %d) after %d attempts: %s\n", safe(fl.Job, maxNameLen), safe(fl.Sweep, maxNameLen), fl.Index, fl.Attempts, safeLine(fl.Error))
		}
		return &exitError{exitFailures, fmt.Errorf("run %s: %d job(s) failed (see the status and error columns of jobs.parquet)", rep.Run, p.Failed)}
	}
	if strict && failedClaims > 0 {
		return &exitError{exitFailures, fmt.Errorf("run %s: %d claim(s) failed (--strict)", rep.Run, failedClaims)}
	}
	return nil
}

// cancelRun cancels an interrupted run of the embedded coordinator: its
// queued jobs are purged and it is marked cancelled, with a deadline of
// its own (the command's context has ended). A run that was never
// recorded needs nothing.
func (a *app) cancelRun(farm *broker.Farm, coord *coordinator.Coordinator, run string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := farm.Runs.Get(ctx, run); broker.IsNotFound(err) {
		return
	}
	if err := coord.Cancel(ctx, run); err != nil {
		a.logger().Warn("cancel interrupted run", "run", run, "err", err)
	}
}

// efficiencyLine describes how busy the run kept its workers: the summed
// model time of its jobs over (wall time from submission to the last
// result × workers). Empty when the run did no work or its end is unknown.
func efficiencyLine(p *coordinator.RunProgress, workers int) string {
	if p == nil || p.Done == 0 || p.Ended.IsZero() || workers < 1 {
		return ""
	}
	wall := p.Ended.Sub(p.Created).Seconds()
	if wall <= 0 {
		return ""
	}
	model := p.ModelMs / 1000
	return fmt.Sprintf("farm efficiency %.3f: %d jobs, model time %.3f s ÷ (%.3f s from submission to last result × %d workers)",
		model/(wall*float64(workers)), p.Done, model, wall, workers)
}
