package export

import (
	"fmt"
	"slices"
	"strconv"

	"schedfarm/results"
	"schedfarm/simcore"
	"schedfarm/simcore/ptg"
)

// adapter reads one model's schedule table into Schedules.
type adapter struct {
	// option is the parameter that makes the model emit its schedule.
	option string
	// build returns the schedules of one job: base filled in from the
	// jobs table, p its parameters, metric its metrics by name (nil when
	// absent), rows its rows of the schedule table f.
	build func(base Schedule, p simcore.Params, metric func(string) any, f *results.Frame, rows []int) ([]*Schedule, error)
}

// adapters maps the name of every model that emits a schedule table to how
// to read it. Times are seconds, except dssp's hours (×3600) and
// divisible's abstract time units (taken as seconds).
var adapters = map[string]adapter{
	"batch":     {option: "schedule_table", build: batchSchedule},
	"divisible": {option: "schedule", build: divisibleSchedule},
	"dssp":      {option: "schedule_table", build: dsspSchedules},
	"ptg":       {option: "schedule_table", build: ptgSchedule},
	"stretch":   {option: "schedule_table", build: stretchSchedule},
}

// ScheduleModels returns the names of the models whose schedules export
// reads, sorted.
func ScheduleModels() []string {
	var out []string
	for m := range adapters {
		out = append(out, m)
	}
	slices.Sort(out)
	return out
}

// cols fetches columns of a table by name and type, keeping the first
// error.
type cols struct {
	f     *results.Frame
	table string
	err   error
}

// get returns the named column of c's table as a []T (nil after an error).
func get[T any](c *cols, name string) []T {
	v, err := column[T](c.f, c.table, name)
	if c.err == nil {
		c.err = err
	}
	return v
}

// batch: one row per job (job, submit, start, end, width, est_runtime) on
// `nodes` nodes; the model does not number nodes, so Allocate does.
func batchSchedule(base Schedule, p simcore.Params, _ func(string) any, f *results.Frame, rows []int) ([]*Schedule, error) {
	c := cols{f: f, table: ScheduleTable}
	job, width := get[int64](&c, "job"), get[int64](&c, "width")
	submit, start, end, est := get[float64](&c, "submit"), get[float64](&c, "start"), get[float64](&c, "end"), get[float64](&c, "est_runtime")
	if c.err != nil {
		return nil, c.err
	}
	s := base
	s.Capacity, s.TimeUnit = int(p.Int("nodes")), "s"
	for _, r := range rows {
		s.Jobs = append(s.Jobs, Job{ID: strconv.FormatInt(job[r], 10), Submit: submit[r], Start: start[r], End: end[r],
			Procs: int(width[r]), Requested: est[r]})
	}
	return []*Schedule{&s}, nil
}

// divisible: one row per chunk (task, part) on node `node`; each chunk is
// a job "task.part" running from its transmission start to its
// computation end, submitted at the task's arrival. Time units count as
// seconds.
func divisibleSchedule(base Schedule, p simcore.Params, _ func(string) any, f *results.Frame, rows []int) ([]*Schedule, error) {
	c := cols{f: f, table: ScheduleTable}
	task, part, node := get[int64](&c, "task"), get[int64](&c, "part"), get[int64](&c, "node")
	arrival, deadline, start, end := get[float64](&c, "arrival"), get[float64](&c, "deadline"), get[float64](&c, "start"), get[float64](&c, "end")
	if c.err != nil {
		return nil, c.err
	}
	s := base
	s.Capacity, s.TimeUnit = int(p.Int("n_nodes")), "time unit (taken as 1 s)"
	for _, r := range rows {
		s.Jobs = append(s.Jobs, Job{ID: fmt.Sprintf("%d.%d", task[r], part[r]), Submit: arrival[r], Start: start[r], End: end[r],
			Procs: 1, Resources: []int{int(node[r])}, Requested: -1,
			Meta: fmt.Sprintf("task=%d part=%d deadline=%s", task[r], part[r], strconv.FormatFloat(deadline[r], 'g', -1, 64))})
	}
	return []*Schedule{&s}, nil
}

// dssp: one row per task of each night, on processor `processor`, times in
// hours from the night's start; one schedule per night.
func dsspSchedules(base Schedule, p simcore.Params, _ func(string) any, f *results.Frame, rows []int) ([]*Schedule, error) {
	c := cols{f: f, table: ScheduleTable}
	night, id, job, stage, task, proc, procs := get[int64](&c, "night"), get[int64](&c, "id"), get[int64](&c, "job"), get[int64](&c, "stage"), get[int64](&c, "task"), get[int64](&c, "processor"), get[int64](&c, "procs")
	release, start, end := get[float64](&c, "release"), get[float64](&c, "start"), get[float64](&c, "end")
	if c.err != nil {
		return nil, c.err
	}
	const hour = 3600
	byNight := map[int64]*Schedule{}
	var out []*Schedule
	for _, r := range rows {
		s, ok := byNight[night[r]]
		if !ok {
			s = new(Schedule)
			*s = base
			s.Instance = fmt.Sprintf("night%d", night[r])
			s.Capacity, s.TimeUnit = int(p.Int("processors")), "h (×3600 s)"
			byNight[night[r]] = s
			out = append(out, s)
		}
		if procs[r] != 1 {
			return nil, fmt.Errorf("dssp task %d of night %d: %d processors, want 1", id[r], night[r], procs[r])
		}
		s.Jobs = append(s.Jobs, Job{ID: strconv.FormatInt(id[r], 10), Submit: release[r] * hour, Start: start[r] * hour, End: end[r] * hour,
			Procs: 1, Resources: []int{int(proc[r])}, Requested: -1,
			Meta: fmt.Sprintf("job=%d stage=%d task=%d", job[r], stage[r], task[r])})
	}
	return out, nil
}

// ptg: one row per task with its processor list; the platform is the
// cluster's (or `procs` processors when set).
func ptgSchedule(base Schedule, p simcore.Params, metric func(string) any, f *results.Frame, rows []int) ([]*Schedule, error) {
	c := cols{f: f, table: ScheduleTable}
	task, graph, local, procs := get[int64](&c, "task"), get[int64](&c, "ptg"), get[int64](&c, "local"), get[int64](&c, "processors")
	release, start, end := get[float64](&c, "release"), get[float64](&c, "start"), get[float64](&c, "end")
	list, preds := get[string](&c, "proc_list"), get[string](&c, "preds")
	if c.err != nil {
		return nil, c.err
	}
	s := base
	s.TimeUnit = "s"
	s.Capacity = int(p.Int("procs"))
	if s.Capacity == 0 {
		name := p.String("cluster")
		if name == "mixed" {
			// the cluster the instance seed drew, recorded as a metric
			name, _ = metric("scenario_cluster").(string)
		}
		cl, err := ptg.FindCluster(name)
		if err != nil {
			return nil, err
		}
		s.Capacity = cl.Procs
	}
	for _, r := range rows {
		ids, err := simcore.ParseProcSet(list[r], ",")
		if err != nil {
			return nil, fmt.Errorf("task %d: %w", task[r], err)
		}
		s.Jobs = append(s.Jobs, Job{ID: strconv.FormatInt(task[r], 10), Submit: release[r], Start: start[r], End: end[r],
			Procs: int(procs[r]), Resources: ids, Requested: -1,
			Meta: fmt.Sprintf("ptg=%d local=%d preds=%s", graph[r], local[r], preds[r])})
	}
	return []*Schedule{&s}, nil
}

// stretch: one row per task; sequential tasks name their processor
// (`node`), moldable ones only their count (node −1), which Allocate
// numbers. m = 0 is the paper's 300 (sequential) or 512 (moldable).
func stretchSchedule(base Schedule, p simcore.Params, _ func(string) any, f *results.Frame, rows []int) ([]*Schedule, error) {
	c := cols{f: f, table: ScheduleTable}
	task, procs, node, part := get[int64](&c, "task"), get[int64](&c, "processors"), get[int64](&c, "node"), get[int64](&c, "part")
	release, start, end := get[float64](&c, "release"), get[float64](&c, "start"), get[float64](&c, "end")
	if c.err != nil {
		return nil, c.err
	}
	s := base
	s.TimeUnit = "s"
	s.Capacity = int(p.Int("m"))
	if s.Capacity == 0 {
		s.Capacity = 300
		if p.String("problem") == "moldable" {
			s.Capacity = 512
		}
	}
	for _, r := range rows {
		j := Job{ID: strconv.FormatInt(task[r], 10), Submit: release[r], Start: start[r], End: end[r],
			Procs: int(procs[r]), Requested: -1, Meta: fmt.Sprintf("part=%d", part[r])}
		if node[r] >= 0 {
			j.Resources = []int{int(node[r])}
		}
		s.Jobs = append(s.Jobs, j)
	}
	return []*Schedule{&s}, nil
}
