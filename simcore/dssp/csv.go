package dssp

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
)

// The night file: CSV, one row per task, a header naming the columns (any
// order; lines starting with '#' are comments):
//
//	night,job,stage,task,length_h,priority,team,t1_est_h,tinf_est_h
//	1,17,1,1,0.25,120,2,310.5,4.1
//
//	night       integer ≥ 0   the night the job belongs to
//	job         integer ≥ 0   job ID, unique within its night
//	stage       integer ≥ 1   stage number; stages run in increasing order
//	task        integer ≥ 0   task ID, unique within its job; a stage's
//	                          tasks go in task-ID order
//	length_h    hours > 0     the task's run time
//	priority    0..499        the job's priority (lower is more important)
//	team        integer ≥ 0   optional (default 0): the job's team
//	t1_est_h    hours > 0     optional: predicted T1 of the job
//	tinf_est_h  hours > 0     optional: predicted T∞ of the job
//
// Job-level columns (priority, team, estimates) repeat on every row of the
// job and must agree. The estimate columns come together; without them the
// "predicted" mode is refused.
var (
	csvRequired = []string{"night", "job", "stage", "task", "length_h", "priority"}
	csvOptional = []string{"team", "t1_est_h", "tinf_est_h"}
)

// CSVHeader is the header WriteCSV writes.
const CSVHeader = "night,job,stage,task,length_h,priority,team,t1_est_h,tinf_est_h"

// MaxCSVRows bounds a night file (memory); the Shrek 2 trace has 280,011.
const MaxCSVRows = 20_000_000

// ReadCSV parses a night file (format above). name prefixes errors, which
// give the line and the column: "nights.csv:12: length_h: ...". Nights come
// out in increasing night number, jobs in increasing job ID.
func ReadCSV(r io.Reader, name string) ([]Night, error) {
	cr := csv.NewReader(r)
	cr.Comment = '#'
	cr.TrimLeadingSpace = true
	cr.ReuseRecord = true
	hdr, err := cr.Read()
	header := append([]string(nil), hdr...)
	if err == io.EOF {
		return nil, fmt.Errorf("%s: empty file; want a header line %q", name, CSVHeader)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	col := map[string]int{}
	for i, h := range header {
		h = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))
		if _, dup := col[h]; dup {
			return nil, fmt.Errorf("%s:1: column %q appears twice", name, h)
		}
		known := false
		for _, k := range append(append([]string(nil), csvRequired...), csvOptional...) {
			known = known || k == h
		}
		if !known {
			return nil, fmt.Errorf("%s:1: unknown column %q; the columns are %s", name, h, CSVHeader)
		}
		col[h] = i
	}
	for _, k := range csvRequired {
		if _, ok := col[k]; !ok {
			return nil, fmt.Errorf("%s:1: missing column %q; the header needs at least %s", name, k, strings.Join(csvRequired, ","))
		}
	}
	_, hasT1 := col["t1_est_h"]
	_, hasTInf := col["tinf_est_h"]
	if hasT1 != hasTInf {
		return nil, fmt.Errorf("%s:1: t1_est_h and tinf_est_h come together (one without the other)", name)
	}
	_, hasTeam := col["team"]

	type taskRow struct {
		stage, task int
		length      float64
	}
	type jobAcc struct {
		job       Job
		line      int
		tasks     []taskRow
		taskLines map[int]int
	}
	type key struct{ night, job int }
	jobs := map[key]*jobAcc{}
	rows := 0
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return nil, fmt.Errorf("%s:%d: %v (the header has %d columns)", name, pe.Line, pe.Err, len(header))
			}
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		line, _ := cr.FieldPos(0)
		rows++
		if rows > MaxCSVRows {
			return nil, fmt.Errorf("%s:%d: more than %d rows", name, line, MaxCSVRows)
		}
		at := func(c string) string { return strings.TrimSpace(rec[col[c]]) }
		integer := func(c string, lo, hi int) (int, error) {
			v, err := strconv.Atoi(at(c))
			if err != nil || v < lo || v > hi {
				return 0, fmt.Errorf("%s:%d: %s: %q is not an integer in %d..%d", name, line, c, at(c), lo, hi)
			}
			return v, nil
		}
		hours := func(c string) (float64, error) {
			v, err := strconv.ParseFloat(at(c), 64)
			if err != nil || !(v > 0) || math.IsInf(v, 0) || v > 1e6 {
				return 0, fmt.Errorf("%s:%d: %s: %q is not a positive number of hours (at most 1e6)", name, line, c, at(c))
			}
			return v, nil
		}
		const big = math.MaxInt32
		night, err := integer("night", 0, big)
		if err != nil {
			return nil, err
		}
		jobID, err := integer("job", 0, big)
		if err != nil {
			return nil, err
		}
		stage, err := integer("stage", 1, big)
		if err != nil {
			return nil, err
		}
		task, err := integer("task", 0, big)
		if err != nil {
			return nil, err
		}
		length, err := hours("length_h")
		if err != nil {
			return nil, err
		}
		prio, err := integer("priority", 0, 499)
		if err != nil {
			return nil, err
		}
		team := 0
		if hasTeam {
			if team, err = integer("team", 0, big); err != nil {
				return nil, err
			}
		}
		var t1e, tie float64
		if hasT1 {
			if t1e, err = hours("t1_est_h"); err != nil {
				return nil, err
			}
			if tie, err = hours("tinf_est_h"); err != nil {
				return nil, err
			}
		}
		k := key{night, jobID}
		acc, ok := jobs[k]
		if !ok {
			acc = &jobAcc{job: Job{ID: jobID, Priority: prio, Team: team, T1Est: t1e, TInfEst: tie}, line: line, taskLines: map[int]int{}}
			jobs[k] = acc
		}
		j := &acc.job
		switch {
		case j.Priority != prio:
			return nil, fmt.Errorf("%s:%d: priority %d of night %d job %d disagrees with %d on line %d", name, line, prio, night, jobID, j.Priority, acc.line)
		case j.Team != team:
			return nil, fmt.Errorf("%s:%d: team %d of night %d job %d disagrees with %d on line %d", name, line, team, night, jobID, j.Team, acc.line)
		case j.T1Est != t1e || j.TInfEst != tie:
			return nil, fmt.Errorf("%s:%d: estimates of night %d job %d disagree with line %d", name, line, night, jobID, acc.line)
		}
		if prev, dup := acc.taskLines[task]; dup {
			return nil, fmt.Errorf("%s:%d: task %d of night %d job %d already on line %d", name, line, task, night, jobID, prev)
		}
		acc.taskLines[task] = line
		acc.tasks = append(acc.tasks, taskRow{stage, task, length})
	}
	if len(jobs) == 0 {
		return nil, fmt.Errorf("%s: no task rows after the header", name)
	}
	keys := make([]key, 0, len(jobs))
	for k := range jobs {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(a, b int) bool {
		if keys[a].night != keys[b].night {
			return keys[a].night < keys[b].night
		}
		return keys[a].job < keys[b].job
	})
	var nights []Night
	for _, k := range keys {
		acc := jobs[k]
		ts := acc.tasks
		sort.Slice(ts, func(a, b int) bool {
			if ts[a].stage != ts[b].stage {
				return ts[a].stage < ts[b].stage
			}
			return ts[a].task < ts[b].task
		})
		for i, t := range ts {
			if i == 0 || t.stage != ts[i-1].stage {
				acc.job.Stages = append(acc.job.Stages, nil)
			}
			g := len(acc.job.Stages) - 1
			acc.job.Stages[g] = append(acc.job.Stages[g], t.length)
		}
		if len(nights) == 0 || nights[len(nights)-1].ID != k.night {
			nights = append(nights, Night{ID: k.night})
		}
		n := &nights[len(nights)-1]
		n.Jobs = append(n.Jobs, acc.job)
	}
	return nights, nil
}

// WriteCSV writes nights in the night-file format (stages numbered from 1,
// tasks from 1 within each job). Estimates are written when every job has
// them.
func WriteCSV(w io.Writer, nights []Night) error {
	est := true
	for n := range nights {
		for _, j := range nights[n].Jobs {
			est = est && j.T1Est > 0 && j.TInfEst > 0
		}
	}
	cw := csv.NewWriter(w)
	header := strings.Split(CSVHeader, ",")
	if !est {
		header = header[:7]
	}
	if err := cw.Write(header); err != nil {
		return err
	}
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	rec := make([]string, len(header))
	for n := range nights {
		for _, j := range nights[n].Jobs {
			task := 0
			for g, st := range j.Stages {
				for _, l := range st {
					task++
					rec[0], rec[1], rec[2], rec[3] = strconv.Itoa(nights[n].ID), strconv.Itoa(j.ID), strconv.Itoa(g+1), strconv.Itoa(task)
					rec[4], rec[5], rec[6] = f(l), strconv.Itoa(j.Priority), strconv.Itoa(j.Team)
					if est {
						rec[7], rec[8] = f(j.T1Est), f(j.TInfEst)
					}
					if err := cw.Write(rec); err != nil {
						return err
					}
				}
			}
		}
	}
	cw.Flush()
	return cw.Error()
}
