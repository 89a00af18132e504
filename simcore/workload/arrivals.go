package workload

import (
	"fmt"
	"math"
)

// How the probabilistic workload's submit times are placed (krallmann1999 §6.2
// fits "a Weibull distribution" to "the submission times of the jobs in
// the trace"; §7 says of the generated workload that "the number of jobs
// in the same time frame is significantly less" than the log's).
const (
	// ArrivalsFit: the Weibull inter-arrival times as fitted on the log's
	// gaps (the default), so n jobs span about n mean gaps.
	ArrivalsFit = "fit"
	// ArrivalsLogSpan: the same draws, every submit time scaled so that
	// the n jobs span the log's time frame (first to last submission): §7's
	// "same time frame" read literally. With fewer jobs than the log the
	// gaps lengthen and the offered load falls by the ratio of the counts.
	ArrivalsLogSpan = "log_span"
)

// Span returns the time from the first to the last submission of jobs
// sorted by submit time (0 for fewer than two jobs).
func Span(jobs []Job) float64 {
	if len(jobs) < 2 {
		return 0
	}
	return jobs[len(jobs)-1].Submit - jobs[0].Submit
}

// OfferedLoad returns Σ m·p / (nodes · span): the work of jobs sorted by
// submit time over what nodes can do between the first and the last
// submission (0 when the span is 0).
func OfferedLoad(jobs []Job, nodes int) float64 {
	span := Span(jobs)
	if span <= 0 || nodes <= 0 {
		return 0
	}
	var area float64
	for _, j := range jobs {
		area += float64(j.Size) * j.Run
	}
	return area / (float64(nodes) * span)
}

// ScaleArrivals multiplies every submit time, taken from the first, by f
// (> 0), rounded to whole seconds: the same jobs arrive f times slower, so
// the offered load is divided by f. Jobs stay sorted.
func ScaleArrivals(jobs []Job, f float64) error {
	if !(f > 0) {
		return fmt.Errorf("workload: arrival scale %v, want > 0", f)
	}
	if len(jobs) == 0 {
		return nil
	}
	t0 := jobs[0].Submit
	for i := range jobs {
		jobs[i].Submit = t0 + math.Round((jobs[i].Submit-t0)*f)
	}
	return nil
}
