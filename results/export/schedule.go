package export

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"schedfarm/results"
	"schedfarm/simcore"
	"schedfarm/simcore/check"
)

// Job is one job of a schedule in the common form the writers read.
type Job struct {
	// ID is the job's identifier, unique within the schedule (Batsim's
	// job_id): the model's task or job number ("17"), or "task.part" for
	// the divisible model's chunks.
	ID string
	// Submit, Start and End are in seconds from the schedule's origin.
	Submit, Start, End float64
	// Procs is the number of processors the job ran on.
	Procs int
	// Resources are the processor ids (0-based, ascending), nil until
	// Allocate gives them to a job of a model that does not number its
	// processors.
	Resources []int
	// Requested is the requested time (walltime) in seconds, -1 when the
	// model has none.
	Requested float64
	// Meta is free text about the job (Batsim's metadata column): the
	// model's own identifiers, "key=value" separated by spaces.
	Meta string
}

// Schedule is the schedule one job of a sweep produced (for dssp: one
// night of it).
type Schedule struct {
	// Sweep, Model and ModelVersion name where it comes from.
	Sweep, Model, ModelVersion string
	// JobID, JobIndex, Replicate and Seed identify the schedfarm job.
	JobID     string
	JobIndex  int64
	Replicate int64
	Seed      uint64
	// Instance is empty, or the part of the job's output this schedule
	// is (dssp: "night39").
	Instance string
	// Params are the job's parameters, in schema order.
	Params []Param
	// Capacity is the number of processors of the platform.
	Capacity int
	// TimeUnit says what the model's time unit is in seconds (the models
	// of one paper use hours or abstract time units).
	TimeUnit string
	// Allocated is true when Allocate chose the processor ids (the model
	// records only how many processors a job used).
	Allocated bool
	// Jobs are the schedule's jobs in the model's order.
	Jobs []Job
}

// Param is one parameter of the job, its value formatted as text.
type Param struct {
	Name, Value string
}

// Name returns the schedule's identity within its sweep, for messages:
// job-<index>, plus -<instance>. Its files are named by FileStems.
func (s *Schedule) Name() string {
	n := fmt.Sprintf("job-%04d", s.JobIndex)
	if s.Instance != "" {
		n += "-" + s.Instance
	}
	return n
}

// ErrNoSchedule is wrapped by the error of Schedules for a sweep that has
// no schedule to export (its model emits none, or it ran without its
// schedule option).
var ErrNoSchedule = errors.New("no schedule table")

// NoScheduleError is the error of Schedules for a sweep with no schedule
// to export; it wraps ErrNoSchedule and says what to set.
type NoScheduleError struct {
	// Sweep, Model and Dir name the sweep, its model and its results folder.
	Sweep, Model, Dir string
	// Option is the model's parameter that turns its schedule table on
	// (schedule_table; divisible: schedule), empty when the model emits
	// no schedule.
	Option string
	// Off counts the sweep's successful jobs that ran with Option false.
	Off int
}

func (e *NoScheduleError) Error() string {
	switch {
	case e.Option == "":
		return fmt.Sprintf("export %s: model %s emits no schedule (models with one: %s)", e.Sweep, e.Model, strings.Join(ScheduleModels(), ", "))
	case e.Off > 0:
		return fmt.Sprintf("export %s: its %s ran with %s: false; set %s: true in the sweep's params: and run it again", e.Sweep, Plural(e.Off, "successful job"), e.Option, e.Option)
	}
	return fmt.Sprintf("export %s: no %s.parquet: run the sweep with %s: true in its params:", e.Sweep, ScheduleTable, e.Option)
}

// Unwrap makes errors.Is(err, ErrNoSchedule) hold.
func (e *NoScheduleError) Unwrap() error { return ErrNoSchedule }

// Plural returns n and the noun, with an "s" unless n is 1: "1 sweep",
// "2 sweeps".
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// Schedules returns the schedules of the sweep's successful jobs that ran
// with their model's schedule option on, in job_index order, each
// allocated (Allocate) and validated. A sweep whose model has no schedule
// adapter, or that ran without its schedule table, is a *NoScheduleError.
func Schedules(s *Sweep) ([]*Schedule, error) {
	ad, ok := adapters[s.Model]
	if !ok {
		return nil, &NoScheduleError{Sweep: s.Name, Model: s.Model, Dir: s.Dir}
	}
	if s.Schedule == nil {
		return nil, &NoScheduleError{Sweep: s.Name, Model: s.Model, Dir: s.Dir, Option: ad.option}
	}
	jobs := s.Jobs
	c := cols{f: jobs, table: results.JobsTable}
	ids, idx, reps := get[string](&c, results.ColJobID), get[int64](&c, results.ColJobIndex), get[int64](&c, results.ColReplicate)
	seeds, status, versions := get[uint64](&c, results.ColSeed), get[string](&c, results.ColStatus), get[string](&c, results.ColModelVersion)
	if c.err != nil {
		return nil, c.err
	}
	rows, err := rowsByJob(s.Schedule)
	if err != nil {
		return nil, err
	}
	order := make([]int, len(ids))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(idx[a], idx[b]) })
	var out []*Schedule
	off := 0
	for _, r := range order {
		if status[r] != results.StatusOK {
			continue
		}
		params, err := paramsAt(jobs, &s.Schema, r)
		if err != nil {
			return nil, fmt.Errorf("export %s job %d: %w", s.Name, idx[r], err)
		}
		if on, ok := params[ad.option].(bool); ok && !on {
			off++ // the job ran without its schedule
			continue
		}
		base := Schedule{
			Sweep: s.Name, Model: s.Model, ModelVersion: versions[r],
			JobID: ids[r], JobIndex: idx[r], Replicate: reps[r], Seed: seeds[r],
			Params: formatParams(&s.Schema, params),
		}
		metric := func(name string) any {
			if i := jobs.Index(name); i >= 0 {
				return jobs.Value(i, r)
			}
			return nil
		}
		scheds, err := ad.build(base, params, metric, s.Schedule, rows[ids[r]])
		if err != nil {
			return nil, fmt.Errorf("export %s job %d: %w", s.Name, idx[r], err)
		}
		for _, sc := range scheds {
			if err := Allocate(sc); err != nil {
				return nil, fmt.Errorf("export %s %s: %w", s.Name, sc.Name(), err)
			}
			if err := Validate(sc); err != nil {
				return nil, fmt.Errorf("export %s %s: %w", s.Name, sc.Name(), err)
			}
		}
		out = append(out, scheds...)
	}
	if len(out) == 0 && off > 0 {
		return nil, &NoScheduleError{Sweep: s.Name, Model: s.Model, Dir: s.Dir, Option: ad.option, Off: off}
	}
	return out, nil
}

// rowsByJob returns the schedule rows of each job ID, in file order.
func rowsByJob(f *results.Frame) (map[string][]int, error) {
	ids, err := column[string](f, ScheduleTable, results.ColJobID)
	if err != nil {
		return nil, err
	}
	m := map[string][]int{}
	for r, id := range ids {
		m[id] = append(m[id], r)
	}
	return m, nil
}

// paramsAt returns the parameters of row r of a jobs table.
func paramsAt(f *results.Frame, schema *simcore.Schema, r int) (simcore.Params, error) {
	p := make(simcore.Params, len(schema.Params))
	for _, sp := range schema.Params {
		i := f.Index(sp.Name)
		if i < 0 {
			return nil, fmt.Errorf("jobs.parquet has no column for parameter %q", sp.Name)
		}
		switch v := f.Value(i, r); v.(type) {
		case int64, float64, string, bool:
			p[sp.Name] = v
		default:
			return nil, fmt.Errorf("parameter %q: column of type %s", sp.Name, f.Types[i])
		}
	}
	return p, nil
}

// formatParams returns the parameters in schema order as text (floats in
// their shortest exact form).
func formatParams(schema *simcore.Schema, p simcore.Params) []Param {
	out := make([]Param, 0, len(schema.Params))
	for _, sp := range schema.Params {
		var v string
		switch x := p[sp.Name].(type) {
		case float64:
			v = strconv.FormatFloat(x, 'g', -1, 64)
		default:
			v = fmt.Sprint(x)
		}
		out = append(out, Param{Name: sp.Name, Value: v})
	}
	return out
}

// timeTol is the slack of time comparisons between a schedule's events:
// the models compute times in floating point, so a job that starts when
// another ends may start a few ulps before it.
func timeTol(s *Schedule) float64 {
	scale := 1.0
	for _, j := range s.Jobs {
		scale = max(scale, math.Abs(j.End))
	}
	return 1e-9 * scale
}

// Allocate gives processor ids to the jobs of a schedule whose model does
// not number its processors: jobs in order of start time (ties in the
// schedule's order) take the lowest-numbered processors free at their
// start, a processor being free again at its job's end (a job starting
// when another ends may take that job's processors). A schedule whose
// jobs all have Resources is left as it is; one that mixes both is an
// error.
func Allocate(s *Schedule) error {
	have := 0
	for _, j := range s.Jobs {
		if j.Resources != nil {
			have++
		}
	}
	switch have {
	case len(s.Jobs):
		return nil
	case 0:
	default:
		return fmt.Errorf("allocate: %d of %d jobs have processor ids: cannot mix", have, len(s.Jobs))
	}
	tol := timeTol(s)
	order := make([]int, len(s.Jobs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(s.Jobs[a].Start, s.Jobs[b].Start) })
	busyUntil := make([]float64, s.Capacity) // end of the job on each processor; -Inf when free
	for i := range busyUntil {
		busyUntil[i] = math.Inf(-1)
	}
	for _, k := range order {
		j := &s.Jobs[k]
		ids := make([]int, 0, j.Procs)
		for p := 0; p < s.Capacity && len(ids) < j.Procs; p++ {
			if busyUntil[p] <= j.Start+tol {
				ids = append(ids, p)
			}
		}
		if len(ids) < j.Procs {
			return fmt.Errorf("allocate: job %s needs %d processors at %v, %d of %d are free", j.ID, j.Procs, j.Start, len(ids), s.Capacity)
		}
		for _, p := range ids {
			busyUntil[p] = j.End
		}
		j.Resources = ids
	}
	s.Allocated = true
	return nil
}

// Validate runs the schedule checker (simcore/check) on the schedule's
// processor assignment: every processor id below Capacity, no processor
// running two jobs at once, no job starting before its submission, each
// job on exactly Procs distinct processors.
func Validate(s *Schedule) error {
	entries := make([]check.Entry, 0, len(s.Jobs))
	for k, j := range s.Jobs {
		if len(j.Resources) != j.Procs {
			return fmt.Errorf("job %s: %d processor ids for %d processors", j.ID, len(j.Resources), j.Procs)
		}
		for part, p := range j.Resources {
			if part > 0 && p <= j.Resources[part-1] {
				return fmt.Errorf("job %s: processor ids %v not ascending and distinct", j.ID, j.Resources)
			}
			entries = append(entries, check.Entry{Task: int64(k), Part: part, Node: p, Release: j.Submit,
				Start: j.Start, End: j.End, Deadline: check.NoDeadline})
		}
	}
	if err := check.Validate(check.Schedule{Capacity: s.Capacity, Entries: entries}, timeTol(s)); err != nil {
		return fmt.Errorf("schedule checker: %w", err)
	}
	return nil
}

// IntervalSet formats ascending processor ids as an interval set the way
// Batsim writes allocated_resources and evalys (procset's ProcSet.from_str)
// reads it: maximal runs of consecutive ids as "a-b" (a single id alone),
// separated by one space: [0 1 2 3 7] → "0-3 7".
func IntervalSet(ids []int) string { return simcore.FormatProcSet(ids, " ") }
