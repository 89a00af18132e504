package main

import (
	"container/heap"
	"math"
	"sort"
)

// Costs are the measured per-job costs the projection runs on, in seconds.
type Costs struct {
	// Worker is a worker's own time per job besides the model: fetching,
	// decoding, the Parquet part, waiting for acks. It runs in parallel on
	// every worker.
	Worker float64
	// NATS and Coord are the CPU time the NATS server and the coordinator
	// spend per job. Each is a single serial server: a job holds it for
	// this long, one job at a time.
	NATS, Coord float64
}

// Ceiling returns the throughput (jobs/s) no number of workers can exceed:
// the inverse of the larger serial cost (the utilisation law, X ≤ 1/D_max,
// for the bottleneck's demand D_max per job).
func (c Costs) Ceiling() float64 {
	return 1 / math.Max(c.NATS, c.Coord)
}

// Bottleneck names the serial server with the larger per-job cost.
func (c Costs) Bottleneck() string {
	if c.Coord > c.NATS {
		return "coordinator"
	}
	return "NATS"
}

// Ideal returns the throughput of w workers with free coordination: w jobs
// in parallel, each taking the mean model time plus the worker's overhead
// and its NATS round trip (asymptotic bound X ≤ w/(Z + D) of a closed
// network).
func (c Costs) Ideal(w int, meanModel float64) float64 {
	return float64(w) / (meanModel + c.Worker + c.NATS)
}

// Knee returns the worker count at which the ideal line meets the ceiling,
// w* = (Z + D)/D_max: beyond it, added workers mostly wait.
func (c Costs) Knee(meanModel float64) float64 {
	return (meanModel + c.Worker + c.NATS) * c.Ceiling()
}

// Simulate runs jobs (model times in seconds, in queue order) on w workers
// and returns the makespan in seconds.
//
// The model is a closed queueing network simulated event by event. Each
// worker loops: it takes the next job from the queue, which holds the NATS
// server for c.NATS (fetch, Parquet part, ack: FIFO, one job at a time),
// then computes for the job's model time plus c.Worker on its own core.
// Every finished job then holds the coordinator for c.Coord (FIFO, in
// completion order); the coordinator is off the worker's path (workers do
// not wait for it), so it only bounds the rate and delays the end. The run
// ends when the coordinator has recorded the last job. Publishing is part
// of the per-job costs, not a phase of its own.
//
// Time: O(n log w).
func Simulate(jobs []float64, w int, c Costs) float64 {
	if len(jobs) == 0 || w < 1 {
		return 0
	}
	free := make(readyHeap, w) // when each worker asks for its next job
	natsFree := 0.0
	done := make([]float64, 0, len(jobs))
	for _, d := range jobs {
		t := heap.Pop(&free).(float64)
		start := math.Max(t, natsFree)
		natsFree = start + c.NATS
		end := natsFree + d + c.Worker
		done = append(done, end)
		heap.Push(&free, end)
	}
	sort.Float64s(done)
	coordFree := 0.0
	for _, t := range done {
		coordFree = math.Max(t, coordFree) + c.Coord
	}
	return coordFree
}

type readyHeap []float64

func (h readyHeap) Len() int           { return len(h) }
func (h readyHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h readyHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *readyHeap) Push(x any)        { *h = append(*h, x.(float64)) }
func (h *readyHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
