package workload

import (
	"fmt"
	"sort"
)

// Job is a rigid job as the batch simulator sees it.
type Job struct {
	ID       int64   // the log's job number (or a generated counter)
	Submit   float64 // s
	Size     int     // nodes
	Run      float64 // actual run time (s), after the runtime convention
	Estimate float64 // what the scheduler believes the run time is (s)
	Request  float64 // the user's requested time (s), the kill limit
}

// Conventions are the readings of a log that simulators disagree on. Every
// one is explicit; DefaultConventions states the defaults.
type Conventions struct {
	// Size: "alloc" (field 5, allocated processors), "requested" (field
	// 8), or "requested_or_alloc" (field 8 when > 0, else field 5).
	Size string
	// CapRuntime: the actual run time is min(run, requested time) — the job
	// is killed at its limit (krallmann1999 §3, policy rule 2). Jobs whose run
	// time exceeded their limit are counted in Stats.Capped.
	CapRuntime bool
	// Estimate: "requested" (field 9), "max" (max(requested, actual)) or
	// "exact" (the actual run time, krallmann1999 Table 6).
	Estimate string
	// Invalid: what to do with a job whose run time or size is <= 0 (or
	// unknown): "drop" it, or "repair" it into a 1-second / 1-node job.
	Invalid string
	// RepairRun is the run time (s) a repaired zero-length job gets; 0
	// means 1 s.
	RepairRun float64
	// DropFailed drops jobs with status 0 (failed) or 5 (cancelled).
	DropFailed bool
	// MaxSize drops jobs wider than this many nodes (the machine); 0 keeps all.
	MaxSize int
	// FirstN keeps only the first N jobs that survive the other filters
	// (0: all).
	FirstN int
}

// DefaultConventions are the readings used for krallmann1999 unless a sweep
// says otherwise: allocated processors (CTC's requested field is -1 on
// every line), runtime capped at the request (jobs killed at their limit),
// requested time as the estimate, invalid jobs repaired (the paper removed
// only the jobs wider than 256 nodes, §6.1), no status filter.
func DefaultConventions(machine int) Conventions {
	return Conventions{Size: "alloc", CapRuntime: true, Estimate: "requested", Invalid: "repair", MaxSize: machine}
}

// Stats counts what Convert did.
type Stats struct {
	Records   int // records read
	Jobs      int // jobs kept
	TooWide   int // dropped: wider than MaxSize
	Failed    int // dropped: status 0 or 5 under DropFailed
	Invalid   int // run time or size <= 0 / unknown (dropped or repaired)
	Capped    int // run time above the requested time (capped under CapRuntime)
	NoRequest int // requested time unknown: the run time was used instead
}

// Convert turns log records into jobs under the given conventions. Jobs are
// returned sorted by submit time, ties by the log's job number (a stable
// order that every machine reproduces).
func Convert(recs []Record, c Conventions) ([]Job, Stats, error) {
	var st Stats
	st.Records = len(recs)
	jobs := make([]Job, 0, len(recs))
	for _, r := range recs {
		var size int
		switch c.Size {
		case "alloc", "":
			size = r.Alloc
		case "requested":
			size = r.ReqProcs
		case "requested_or_alloc":
			size = r.ReqProcs
			if size <= 0 {
				size = r.Alloc
			}
		default:
			return nil, st, fmt.Errorf("workload: unknown size convention %q", c.Size)
		}
		if c.DropFailed && (r.Status == 0 || r.Status == 5) {
			st.Failed++
			continue
		}
		run := r.Run
		if run <= 0 || size <= 0 || r.Submit < 0 {
			st.Invalid++
			if c.Invalid == "drop" {
				continue
			}
			if run <= 0 {
				run = 1
				if c.RepairRun > 0 {
					run = c.RepairRun
				}
			}
			if size <= 0 {
				size = 1
			}
		}
		if c.MaxSize > 0 && size > c.MaxSize {
			st.TooWide++
			continue
		}
		req := r.ReqTime
		if req <= 0 {
			st.NoRequest++
			req = run
		}
		if run > req {
			st.Capped++
			if c.CapRuntime {
				run = req
			}
		}
		var est float64
		switch c.Estimate {
		case "requested", "":
			est = req
		case "max":
			est = max(req, run)
		case "exact":
			est = run
		default:
			return nil, st, fmt.Errorf("workload: unknown estimate convention %q", c.Estimate)
		}
		sub := r.Submit
		if sub < 0 {
			sub = 0
		}
		jobs = append(jobs, Job{ID: r.Job, Submit: sub, Size: size, Run: run, Estimate: est, Request: req})
	}
	sort.SliceStable(jobs, func(a, b int) bool {
		if jobs[a].Submit != jobs[b].Submit {
			return jobs[a].Submit < jobs[b].Submit
		}
		return jobs[a].ID < jobs[b].ID
	})
	if c.FirstN > 0 && len(jobs) > c.FirstN {
		jobs = jobs[:c.FirstN]
	}
	st.Jobs = len(jobs)
	return jobs, st, nil
}
