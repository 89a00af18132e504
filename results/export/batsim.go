package export

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// BatsimColumns are the columns of Batsim's <prefix>_jobs.csv in the order
// Batsim v4.2.1 (the current release, 2025-10-30) writes them: the
// _job_keys list of JobsTracer::initialize in src/export.cpp. The
// v5.0.0-rc2 release candidate (2026-06-19) keeps the same list.
var BatsimColumns = []string{
	"job_id", "workload_name", "profile", "submission_time", "requested_number_of_resources",
	"requested_time", "success", "final_state", "starting_time", "execution_time", "finish_time",
	"waiting_time", "turnaround_time", "stretch", "allocated_resources", "consumed_energy", "metadata",
}

// WriteBatsim writes the schedule as Batsim's _jobs.csv, one row per job
// in the schedule's order, with Batsim's formatting (JobsTracer::write_job
// of src/export.cpp, v4.2.1):
//
//   - times as C++ std::to_string of a double: fixed, 6 decimals;
//   - workload_name is the sweep's name, profile the model's name;
//   - requested_number_of_resources the job's processor count,
//     requested_time its requested time or -1 (Batsim's "no walltime");
//   - success 1 and final_state COMPLETED_SUCCESSFULLY: every job of a
//     schedule table ran to its end;
//   - execution_time = finish − start, waiting_time = start − submission,
//     turnaround_time = finish − submission, stretch = turnaround /
//     execution (inf when execution is 0);
//   - allocated_resources the processor ids as an interval set ("0-3 7");
//   - consumed_energy -1.000000 (Batsim's value without an energy model);
//   - metadata in double quotes, as Batsim writes it.
//
// evalys's JobSet.from_csv reads the file (pandas read_csv, ProcSet.from_str
// on allocated_resources).
func WriteBatsim(w io.Writer, s *Schedule) error {
	bw := bufio.NewWriter(w)
	bw.WriteString(strings.Join(BatsimColumns, ",") + "\n")
	for _, j := range s.Jobs {
		exec := j.End - j.Start
		turnaround := j.End - j.Submit
		stretch := math.Inf(1)
		if exec > 0 {
			stretch = turnaround / exec
		} else if turnaround == 0 {
			stretch = math.NaN()
		}
		fields := []string{
			csvField(j.ID), csvField(s.Sweep), csvField(s.Model), cppDouble(j.Submit), strconv.Itoa(j.Procs),
			cppDouble(j.Requested), "1", "COMPLETED_SUCCESSFULLY", cppDouble(j.Start), cppDouble(exec), cppDouble(j.End),
			cppDouble(j.Start - j.Submit), cppDouble(turnaround), cppDouble(stretch), IntervalSet(j.Resources), cppDouble(-1),
			`"` + strings.ReplaceAll(j.Meta, `"`, `""`) + `"`,
		}
		bw.WriteString(strings.Join(fields, ",") + "\n")
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("batsim %s: %w", s.Name(), err)
	}
	return nil
}

// cppDouble formats v as C++'s std::to_string(double) does ("%f").
func cppDouble(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	case math.IsNaN(v):
		return "nan"
	}
	return strconv.FormatFloat(v, 'f', 6, 64)
}

// csvField quotes a field holding a comma, a quote or a line break.
func csvField(s string) string {
	if !strings.ContainsAny(s, ",\"\r\n") {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}
