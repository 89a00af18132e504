// Command startsdigest runs the batch model over whole logs for every
// order × backfill × convention and prints, one line per simulation, a
// digest of every job's start time (their IEEE bits), so that two builds
// of the simulator can be compared bit for bit (scripts/starts_check.sh
// builds it at two revisions and compares the outputs):
//
//	go run ./scripts/startsdigest [-orders LIST] [-backfills LIST] DIR/LOG.swf[.gz] ...
//
// Each log runs on the machine its header declares (MaxProcs, else
// MaxNodes), with the model's default conventions (allocated size, run
// times capped at the request, requested estimates, invalid jobs
// repaired). Lines go to stdout as "log nodes order backfill event
// compress jobs sha256"; the simulation time of each goes to stderr
// ("log order backfill event compress ms"), so stdout of two builds is
// equal exactly when their schedules are.
package main

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"schedfarm/simcore/batch"
	"schedfarm/simcore/workload"
)

func main() {
	orders := flag.String("orders", strings.Join(batch.Orders, ","), "queue orders, comma-separated")
	backfills := flag.String("backfills", "none,easy,conservative", "backfilling modes, comma-separated: none, easy, conservative")
	conventions := flag.String("conventions", "batch/start,batch/arrival,each/start,each/arrival",
		"event_order/compress_order pairs, comma-separated (compress_order matters only for conservative)")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: startsdigest [flags] LOG.swf[.gz] ...")
		os.Exit(2)
	}
	for _, path := range flag.Args() {
		if err := runLog(path, strings.Split(*orders, ","), strings.Split(*backfills, ","), strings.Split(*conventions, ",")); err != nil {
			fmt.Fprintf(os.Stderr, "startsdigest: %s: %v\n", strconv.Quote(path), err)
			os.Exit(1)
		}
	}
}

// depths maps a backfilling mode to the model's reservation depth.
func depth(mode string) (int, error) {
	switch mode {
	case "none":
		return 0, nil
	case "easy":
		return 1, nil
	case "conservative":
		return batch.All, nil
	}
	return 0, fmt.Errorf("backfill %q: want none, easy or conservative", mode)
}

func runLog(path string, orders, backfills, conventions []string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	tr, err := workload.Read(f, workload.ReadOptions{})
	f.Close()
	if err != nil {
		return fmt.Errorf("read: %w", err)
	}
	nodes := tr.Header.MaxProcs
	if nodes <= 0 {
		nodes = tr.Header.MaxNodes
	}
	if nodes <= 0 {
		return fmt.Errorf("the header declares neither MaxProcs nor MaxNodes")
	}
	jobs, _, err := workload.Convert(tr.Records, workload.Conventions{Size: "alloc", CapRuntime: true,
		Estimate: "requested", Invalid: "repair", MaxSize: nodes})
	if err != nil {
		return fmt.Errorf("convert: %w", err)
	}
	name := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(path), ".gz"), ".swf")
	for _, o := range orders {
		if !slices.Contains(batch.Orders, o) {
			return fmt.Errorf("order %q: want one of %v", o, batch.Orders)
		}
		for _, b := range backfills {
			d, err := depth(b)
			if err != nil {
				return err
			}
			if o == batch.GareyGraham && d != 0 {
				continue // GareyGraham is list scheduling only
			}
			for _, c := range conventions {
				ev, co, ok := strings.Cut(c, "/")
				if !ok || (ev != "batch" && ev != "each") || (co != "start" && co != "arrival") {
					return fmt.Errorf("convention %q: want event_order/compress_order, e.g. each/arrival", c)
				}
				if d != batch.All && co == "arrival" {
					continue // compress_order only matters with conservative
				}
				cfg := batch.Config{Nodes: nodes, Order: o, Depth: d, Recompute: batch.RecomputeNew,
					EachEvent: ev == "each", CompressArrival: co == "arrival"}
				t0 := time.Now()
				out, err := batch.Simulate(context.Background(), jobs, cfg)
				if err != nil {
					return fmt.Errorf("%s %s %s: %w", o, b, c, err)
				}
				ms := float64(time.Since(t0).Microseconds()) / 1000
				h := sha256.New()
				var buf [8]byte
				for _, s := range out.Start {
					binary.LittleEndian.PutUint64(buf[:], math.Float64bits(s))
					h.Write(buf[:])
				}
				fmt.Printf("%s %d %s %s %s %s %d %x\n", name, nodes, o, b, ev, co, len(jobs), h.Sum(nil))
				fmt.Fprintf(os.Stderr, "%s %s %s %s %s %.1f\n", name, o, b, ev, co, ms)
			}
		}
	}
	return nil
}
