// Command synthscale measures the batch model on a large synthetic log
// (the scale target: 10⁷ jobs on 10⁶ cores, FCFS + EASY, within 30 s and 4 GiB):
// it fits the probabilistic model on a source log, draws the synthetic
// log for the target machine (workload.GenerateSynthetic, as the model's
// workload: synthetic does), simulates it and computes the metrics,
// printing each phase's wall time and the process's peak resident memory
// so far (VmHWM of /proc/self/status, Linux):
//
//	go run ./scripts/synthscale [-jobs N] [-nodes M] [-sizes fraction|nodes] [-load L] [-backfill easy] LOG.swf[.gz]
//
// With -model the same point runs through the model's Run (parameters
// workload: synthetic, trace, jobs, nodes, synth_*), the path a sweep
// takes, timed as a whole. scripts/synth_scale.sh wraps it with
// /usr/bin/time -v. Not part of CI.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"time"

	"schedfarm/simcore"
	"schedfarm/simcore/batch"
	"schedfarm/simcore/workload"
)

func main() {
	jobs := flag.Int("jobs", 10_000_000, "jobs to generate")
	nodes := flag.Int("nodes", 1_000_000, "target machine size")
	sizes := flag.String("sizes", workload.SizesFraction, "size mapping: fraction or nodes")
	load := flag.Float64("load", 0, "offered load (0: the source log's)")
	backfill := flag.String("backfill", "easy", "none, easy or conservative")
	order := flag.String("order", batch.FCFS, "queue order")
	seed := flag.Uint64("seed", 1, "instance seed")
	model := flag.Bool("model", false, "run through the model's Run (one timing)")
	cpu := flag.String("cpuprofile", "", "write a CPU profile of the run to this file")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: synthscale [flags] LOG.swf[.gz]")
		os.Exit(2)
	}
	path := flag.Arg(0)
	if *cpu != "" {
		f, err := os.Create(*cpu)
		if err != nil {
			fmt.Fprintln(os.Stderr, "synthscale:", err)
			os.Exit(1)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, "synthscale:", err)
			os.Exit(1)
		}
		defer f.Close()
		defer pprof.StopCPUProfile()
	}
	var err error
	if *model {
		err = viaModel(path, *jobs, *nodes, *sizes, *load, *order, *backfill, *seed)
	} else {
		err = phases(path, *jobs, *nodes, *sizes, *load, *order, *backfill, *seed)
	}
	if err != nil {
		pprof.StopCPUProfile()
		fmt.Fprintf(os.Stderr, "synthscale: %s: %v\n", strconv.Quote(path), err)
		os.Exit(1)
	}
}

// clock is a phase's start: wall time and the process's CPU time.
type clock struct {
	wall time.Time
	cpu  time.Duration
}

func start() clock { return clock{time.Now(), cpuTime()} }

// report prints one phase: its wall time, its CPU time (user + system, all
// threads: on a shared machine the wall time counts the waits for a core)
// and the peak RSS so far.
func report(phase string, c clock) {
	fmt.Printf("%-10s wall %7.2f s   cpu %7.2f s   peak RSS %7.0f MiB\n", phase, time.Since(c.wall).Seconds(),
		(cpuTime() - c.cpu).Seconds(), float64(peakRSS())/(1<<20))
}

// cpuTime returns the process's user + system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func phases(path string, n, nodes int, sizes string, load float64, order, backfill string, seed uint64) error {
	d, err := batch.Depth(backfill, 0)
	if err != nil {
		return err
	}
	t0 := start()
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	tr, err := workload.Read(f, workload.ReadOptions{})
	f.Close()
	if err != nil {
		return fmt.Errorf("read: %w", err)
	}
	src := workload.MachineSize(tr.Header)
	log, _, err := workload.Convert(tr.Records, workload.DefaultConventions(src))
	if err != nil {
		return fmt.Errorf("convert: %w", err)
	}
	if load == 0 {
		load = workload.OfferedLoad(log, src)
	}
	fm := workload.Fit(log)
	report("fit", t0)
	fmt.Printf("  source: %d jobs on %d nodes, offered load %.3f; Weibull gaps k=%.3f λ=%.1f s\n", len(log), src, workload.OfferedLoad(log, src), fm.Shape, fm.Scale)
	tr, log = nil, nil

	t0 = start()
	jobs, err := fm.GenerateSynthetic(n, seed, workload.Synthetic{Gen: workload.GenOptions{Values: workload.BinValuesLogUniform},
		SourceNodes: src, Nodes: nodes, Sizes: sizes, Load: load})
	if err != nil {
		return err
	}
	report("generate", t0)
	fmt.Printf("  synthetic: %d jobs on %d nodes, offered load %.3f, span %.3g s\n", len(jobs), nodes, workload.OfferedLoad(jobs, nodes), workload.Span(jobs))

	t0 = start()
	out, err := batch.Simulate(context.Background(), jobs, batch.Config{Nodes: nodes, Order: order, Depth: d, Recompute: batch.RecomputeNew})
	if err != nil {
		return err
	}
	report("simulate", t0)
	fmt.Printf("  %s + %s: %d passes, %.2f µs/job\n", order, backfill, out.Passes, time.Since(t0.wall).Seconds()*1e6/float64(len(jobs)))

	t0 = start()
	met := batch.Measure(jobs, out, nodes)
	report("measure", t0)
	fmt.Printf("  utilization %.3f, ART %.4g s, bsld %.4g, max wait %.4g s\n", met.Utilization, met.ART, met.BSLD, met.MaxWait)
	return nil
}

func viaModel(path string, n, nodes int, sizes string, load float64, order, backfill string, seed uint64) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	m := batch.New(simcore.Dirs{filepath.Dir(abs)})
	s := m.Schema()
	p, err := s.Complete(simcore.Params{"workload": "synthetic", "trace": filepath.Base(abs), "jobs": int64(n), "nodes": int64(nodes),
		"synth_sizes": sizes, "synth_load": load, "order": order, "backfill": backfill})
	if err != nil {
		return err
	}
	t0 := start()
	res, err := m.Run(context.Background(), p, seed)
	if err != nil {
		return err
	}
	report("model run", t0)
	for _, k := range []string{"n_jobs", "offered_load", "utilization", "art", "bsld", "sched_wall_ms"} {
		fmt.Printf("  %s = %v\n", k, res.Metrics[k])
	}
	return nil
}

// peakRSS returns the process's peak resident set size in bytes (VmHWM),
// 0 where /proc is not readable.
func peakRSS() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}
