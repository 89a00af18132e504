package export

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"schedfarm/results"
)

// SWFVersion is the version of the Standard Workload Format written
// (the Parallel Workloads Archive's definition, 18 fields per job line).
const SWFVersion = "2.2"

// Seconds rounds a time in seconds to the whole second SWF holds: to the
// nearest, halves away from zero (math.Round). Rounding each event time
// (submission, start, end) rather than each duration keeps the order of
// events, so jobs that did not overlap on a processor still do not.
func Seconds(t float64) int64 { return int64(math.Round(t)) }

// SWFJob is one job line as WriteSWF writes it.
type SWFJob struct {
	// Number is the job's SWF number: 1, 2, ... in order of submission.
	Number int64
	// Submit, Wait and Run are whole seconds: Seconds(submit),
	// Seconds(start) − Seconds(submit), Seconds(end) − Seconds(start).
	Submit, Wait, Run int64
	// Procs is the allocated (field 5) and requested (field 8) count.
	Procs int
	// Requested is Seconds(requested time), or -1.
	Requested int64
	// Job is the schedule's job it comes from.
	Job *Job
}

// SWFJobs returns the schedule's jobs as SWF lines: sorted by rounded
// submission time (ties in the schedule's order, as SWF wants the log
// sorted by submit time) and numbered from 1.
func SWFJobs(s *Schedule) []SWFJob {
	out := make([]SWFJob, len(s.Jobs))
	for i := range s.Jobs {
		j := &s.Jobs[i]
		sub, st, end := Seconds(j.Submit), Seconds(j.Start), Seconds(j.End)
		req := int64(-1)
		if j.Requested >= 0 {
			req = Seconds(j.Requested)
		}
		out[i] = SWFJob{Submit: sub, Wait: st - sub, Run: end - st, Procs: j.Procs, Requested: req, Job: j}
	}
	slices.SortStableFunc(out, func(a, b SWFJob) int { return cmp.Compare(a.Submit, b.Submit) })
	for i := range out {
		out[i].Number = int64(i + 1)
	}
	return out
}

// WriteSWF writes the schedule as an SWF log: header comments (the
// format's keys, then Note lines with the model, its parameters, the
// schedfarm job and the version of schedfarm that wrote the file), then
// one line per job (SWFJobs) with the 18 fields
//
//	1 number  2 submit  3 wait  4 run  5 allocated procs  6 avg CPU (-1)
//	7 used memory (-1)  8 requested procs  9 requested time  10 requested
//	memory (-1)  11 status (1: completed)  12-16 user, group, executable,
//	queue, partition (-1)  17 preceding job (-1)  18 think time (-1)
//
// prov is the build of schedfarm writing the file.
func WriteSWF(w io.Writer, s *Schedule, prov results.Provenance) error {
	jobs := SWFJobs(s)
	bw := bufio.NewWriter(w)
	var maxRun int64
	for _, j := range jobs {
		maxRun = max(maxRun, j.Run)
	}
	fmt.Fprintf(bw, "; Version: %s\n", SWFVersion)
	fmt.Fprintf(bw, "; Computer: schedfarm simulation, model %s version %s\n", s.Model, s.ModelVersion)
	fmt.Fprintf(bw, "; Installation: schedfarm %s (revision %s)\n", prov.Version, prov.VCSRevision)
	fmt.Fprintf(bw, "; Acknowledge: written by schedfarm export --format swf\n")
	fmt.Fprintf(bw, "; UnixStartTime: 0\n")
	fmt.Fprintf(bw, "; MaxJobs: %d\n", len(jobs))
	fmt.Fprintf(bw, "; MaxRecords: %d\n", len(jobs))
	fmt.Fprintf(bw, "; MaxNodes: %d\n", s.Capacity)
	fmt.Fprintf(bw, "; MaxProcs: %d\n", s.Capacity)
	fmt.Fprintf(bw, "; MaxRuntime: %d\n", maxRun)
	fmt.Fprintf(bw, "; Note: sweep %s, job %d (%s), replicate %d, seed %d%s\n", s.Sweep, s.JobIndex, s.JobID, s.Replicate, s.Seed, instanceNote(s))
	params := make([]string, len(s.Params))
	for i, p := range s.Params {
		params[i] = p.Name + "=" + noteValue(p.Value)
	}
	fmt.Fprintf(bw, "; Note: parameters %s\n", strings.Join(params, " "))
	fmt.Fprintf(bw, "; Note: the model's time unit: %s; times are rounded to whole seconds, to the nearest (halves away from zero), event by event: wait = round(start) - round(submit), run = round(end) - round(start)\n", s.TimeUnit)
	fmt.Fprintf(bw, "; Note: job numbers follow submission order; the schedule's own job ids are in the Batsim export (job_id)\n")
	for _, j := range jobs {
		fmt.Fprintf(bw, "%d %d %d %d %d -1 -1 %d %d -1 1 -1 -1 -1 -1 -1 -1 -1\n",
			j.Number, j.Submit, j.Wait, j.Run, j.Procs, j.Procs, j.Requested)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("swf %s: %w", s.Name(), err)
	}
	return nil
}

// noteValue keeps a parameter value on its comment line: one that is empty
// or holds white space, a quote or an unprintable character is written
// Go-quoted.
func noteValue(v string) string {
	if v == "" || strings.IndexFunc(v, func(r rune) bool { return !unicode.IsGraphic(r) || unicode.IsSpace(r) || r == '"' }) >= 0 {
		return strconv.Quote(v)
	}
	return v
}

func instanceNote(s *Schedule) string {
	if s.Instance == "" {
		return ""
	}
	return ", " + s.Instance
}
