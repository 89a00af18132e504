package results

import (
	"bytes"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/google/uuid"

	"schedfarm/simcore"
	"schedfarm/sweep"
)

// Status values of the status column.
const (
	StatusOK     = "ok"
	StatusFailed = "failed"
)

// JobResult is one row of a part: a job, who ran it and what it produced.
type JobResult struct {
	Job sweep.Job
	// Worker names the worker that ran the job.
	Worker string
	// StartedAt is when the run started (stored in UTC, millisecond
	// precision).
	StartedAt time.Time
	// DurationMs is the wall-clock duration of the run.
	DurationMs float64
	// CPUMs is the CPU time of the run on its thread; NaN (null in
	// Parquet) when it was not measured. Contention for the cores inflates
	// DurationMs, not CPUMs.
	CPUMs float64
	// Status is StatusOK or StatusFailed.
	Status string
	// Error is the failure's text; empty when Status is StatusOK.
	Error string
	// Attempts counts the deliveries of the job the worker saw.
	Attempts int
	// Result is the model's output; required when Status is StatusOK and
	// ignored otherwise. Its extra tables become rows of the part's
	// <table> objects.
	Result *simcore.Result
}

// PartInfo is what a part records about its writer.
type PartInfo struct {
	RunID      string
	Provenance Provenance
}

// PartObjectName returns the object name of one table of a part:
// "<part-id>/<table>.parquet".
func PartObjectName(partID, table string) string {
	return partID + "/" + table + ".parquet"
}

// ParsePartObjectName splits an object name made by PartObjectName.
func ParsePartObjectName(name string) (partID, table string, ok bool) {
	i := strings.LastIndexByte(name, '/')
	if i <= 0 || !strings.HasSuffix(name, ".parquet") {
		return "", "", false
	}
	partID, table = name[:i], strings.TrimSuffix(name[i+1:], ".parquet")
	if table == "" {
		return "", "", false
	}
	return partID, table, true
}

// EncodePart encodes the rows of one part, all of one model, as Parquet
// objects keyed by table name: "jobs" (every row, laid out as JobsLayout,
// with the run ID) and one entry per extra table that has rows (laid out as
// PartTableLayout: the collector adds the parameter columns). Store each
// under PartObjectName(partID, table), and the jobs object last: the
// collector ignores a part without it, and its metadata lists the part's
// other objects.
func EncodePart(model simcore.Schema, info PartInfo, rows []JobResult) (map[string][]byte, error) {
	if len(rows) == 0 {
		return nil, fmt.Errorf("encode part: no rows")
	}
	jl, err := JobsLayout(model)
	if err != nil {
		return nil, fmt.Errorf("encode part: %w", err)
	}
	modelName, modelVersion := rows[0].Job.Model, rows[0].Job.ModelVersion
	for i := range rows {
		r := &rows[i]
		if r.Job.Model != modelName || r.Job.ModelVersion != modelVersion {
			return nil, fmt.Errorf("encode part: row %d is model %s@%s, row 0 is %s@%s (one model per part)",
				i, r.Job.Model, r.Job.ModelVersion, modelName, modelVersion)
		}
		if err := checkRow(&model, r); err != nil {
			return nil, fmt.Errorf("encode part: job %s (index %d): %w", r.Job.ID, r.Job.Index, err)
		}
	}
	var tables []string
	for _, t := range model.Tables {
		for i := range rows {
			if hasTableRows(&rows[i], t.Name) {
				tables = append(tables, t.Name)
				break
			}
		}
	}
	meta := FileMeta{RunID: info.RunID, Model: modelName, ModelVersion: modelVersion, Prov: info.Provenance, Part: true}
	out := make(map[string][]byte, 1+len(tables))
	for _, name := range tables {
		tl, err := PartTableLayout(model, name)
		if err != nil {
			return nil, fmt.Errorf("encode part: %w", err)
		}
		var buf bytes.Buffer
		if err := encodePartTable(&buf, &model, tl, meta.Pairs(), rows); err != nil {
			return nil, fmt.Errorf("encode part table %s: %w", name, err)
		}
		out[name] = buf.Bytes()
	}
	meta.Extra = map[string]string{MetaPartTables: strings.Join(tables, ",")}
	var buf bytes.Buffer
	if err := encodePartJobs(&buf, &model, jl, meta.Pairs(), info.RunID, rows); err != nil {
		return nil, fmt.Errorf("encode part jobs: %w", err)
	}
	out[JobsTable] = buf.Bytes()
	return out, nil
}

func hasTableRows(r *JobResult, table string) bool {
	if r.Status != StatusOK || r.Result == nil {
		return false
	}
	t := r.Result.Tables[table]
	return t != nil && t.Len() > 0
}

func checkRow(model *simcore.Schema, r *JobResult) error {
	switch r.Status {
	case StatusOK:
		if r.Result == nil {
			return fmt.Errorf("status ok without a result")
		}
		if err := model.Validate(r.Result); err != nil {
			return err
		}
	case StatusFailed:
	default:
		return fmt.Errorf("status %q is neither %q nor %q", r.Status, StatusOK, StatusFailed)
	}
	for _, p := range model.Params {
		v, ok := r.Job.Params[p.Name]
		if !ok {
			return fmt.Errorf("parameter %q missing (Job.Params must be complete)", p.Name)
		}
		if TypeOfKind(p.Kind) != typeOfValue(v) {
			return fmt.Errorf("parameter %q: want %s, got %T", p.Name, p.Kind, v)
		}
	}
	return nil
}

func typeOfValue(v any) Type {
	switch v.(type) {
	case int64:
		return Int64
	case float64:
		return Float64
	case string:
		return String
	case bool:
		return Bool
	}
	return 0
}

func encodePartJobs(buf *bytes.Buffer, model *simcore.Schema, l Layout, meta map[string]string, runID string, rows []JobResult) error {
	tw := NewTableWriter(buf, l, meta, len(rows))
	for i := range rows {
		r := &rows[i]
		id := r.Job.ID.String()
		tw.SetString(0, runID)
		tw.SetString(1, id)
		tw.SetInt(2, int64(r.Job.Index))
		tw.SetString(3, r.Job.Sweep)
		tw.SetString(4, r.Job.Model)
		tw.SetString(5, r.Job.ModelVersion)
		tw.SetInt(6, int64(r.Job.Replicate))
		tw.SetInt(7, int64(r.Job.Seed))
		tw.SetString(8, r.Worker)
		if r.StartedAt.IsZero() {
			tw.SetNull(9)
		} else {
			tw.SetInt(9, r.StartedAt.UnixMilli())
		}
		tw.SetFloat(10, r.DurationMs)
		tw.SetString(11, r.Status)
		errText := r.Error
		if r.Status == StatusOK {
			errText = ""
		}
		tw.SetString(12, errText)
		tw.SetInt(13, int64(r.Attempts))
		tw.SetFloatOrNull(14, r.CPUMs)
		c := FixedJobColumns
		for _, p := range model.Params {
			if err := tw.SetAny(c, r.Job.Params[p.Name]); err != nil {
				return err
			}
			c++
		}
		for _, m := range model.Metrics {
			var v any
			if r.Status == StatusOK {
				v = r.Result.Metrics[m.Name]
			}
			if err := tw.SetAny(c, v); err != nil {
				return err
			}
			c++
		}
		if err := tw.EndRow(); err != nil {
			return err
		}
	}
	return tw.Close()
}

// FixedJobColumns is the number of fixed columns of jobs.parquet, before the
// parameters.
const FixedJobColumns = 15

// FixedTableColumns is the number of fixed columns of an extra table,
// before the parameters.
const FixedTableColumns = 4

func encodePartTable(buf *bytes.Buffer, model *simcore.Schema, l Layout, meta map[string]string, rows []JobResult) error {
	n := 0
	for i := range rows {
		if hasTableRows(&rows[i], l.Table) {
			n += rows[i].Result.Tables[l.Table].Len()
		}
	}
	tw := NewTableWriter(buf, l, meta, n)
	t, _ := model.Table(l.Table)
	for i := range rows {
		r := &rows[i]
		if !hasTableRows(r, l.Table) {
			continue
		}
		data := r.Result.Tables[l.Table]
		cols := make([]any, len(t.Columns))
		for j, c := range t.Columns {
			cols[j] = data.Columns[c.Name]
		}
		id := r.Job.ID.String()
		n := data.Len()
		for k := 0; k < n; k++ {
			tw.SetString(0, id)
			tw.SetInt(1, int64(r.Job.Index))
			tw.SetInt(2, int64(r.Job.Replicate))
			tw.SetInt(3, int64(r.Job.Seed))
			c := FixedTableColumns
			for _, col := range cols {
				setSliceElem(tw, c, col, k)
				c++
			}
			if err := tw.EndRow(); err != nil {
				return err
			}
		}
	}
	return tw.Close()
}

func setSliceElem(tw *TableWriter, c int, col any, k int) {
	switch x := col.(type) {
	case []int64:
		tw.SetInt(c, x[k])
	case []float64:
		tw.SetFloat(c, x[k])
	case []string:
		tw.SetString(c, x[k])
	case []bool:
		tw.SetBool(c, x[k])
	}
}

// DecodePart decodes the objects of one part (keyed by table name, as
// EncodePart returns them) back into rows. Params and metrics are typed by
// the model's schema; Job.Params holds the part's parameter columns. It is
// the reverse of EncodePart, for inspection and tests; the collector reads
// parts in a streaming way instead.
func DecodePart(model simcore.Schema, objects map[string][]byte) ([]JobResult, error) {
	data, ok := objects[JobsTable]
	if !ok {
		return nil, fmt.Errorf("decode part: no %s object", JobsTable)
	}
	jobs, err := ReadFrame(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("decode part jobs: %w", err)
	}
	jl, err := JobsLayout(model)
	if err != nil {
		return nil, fmt.Errorf("decode part: %w", err)
	}
	if err := checkFrame(jobs, jl); err != nil {
		return nil, fmt.Errorf("decode part jobs: %w", err)
	}
	n := jobs.Len()
	rows := make([]JobResult, n)
	byID := make(map[uuid.UUID]int, n)
	str := func(name string) []string { return jobs.Col(name).([]string) }
	ints := func(name string) []int64 { return jobs.Col(name).([]int64) }
	ids, idx, sw, mo, mv := str(ColJobID), ints(ColJobIndex), str(ColSweep), str(ColModel), str(ColModelVersion)
	rep, seed := ints(ColReplicate), jobs.Col(ColSeed).([]uint64)
	worker, started := str(ColWorker), jobs.Col(ColStartedAt).([]time.Time)
	dur, status, errs, att := jobs.Col(ColDurationMs).([]float64), str(ColStatus), str(ColError), ints(ColAttempts)
	cpu, _ := jobs.Col(ColCPUMs).([]float64)
	for i := 0; i < n; i++ {
		id, err := uuid.Parse(ids[i])
		if err != nil {
			return nil, fmt.Errorf("decode part jobs: row %d: job_id: %w", i, err)
		}
		r := &rows[i]
		r.Job = sweep.Job{ID: id, Index: int(idx[i]), Sweep: sw[i], Model: mo[i], ModelVersion: mv[i],
			Params: make(simcore.Params, len(model.Params)), Replicate: int(rep[i]), Seed: seed[i]}
		for _, p := range model.Params {
			r.Job.Params[p.Name] = jobs.Value(jobs.Index(p.Name), i)
		}
		r.Worker, r.StartedAt, r.DurationMs, r.CPUMs = worker[i], started[i], dur[i], math.NaN()
		if cpu != nil && !jobs.IsNull(jobs.Index(ColCPUMs), i) {
			r.CPUMs = cpu[i]
		}
		r.Status, r.Error, r.Attempts = status[i], errs[i], int(att[i])
		if r.Status == StatusOK {
			r.Result = &simcore.Result{Metrics: make(map[string]any, len(model.Metrics))}
			for _, m := range model.Metrics {
				r.Result.Metrics[m.Name] = jobs.Value(jobs.Index(m.Name), i)
			}
		}
		if _, dup := byID[id]; !dup {
			byID[id] = i
		}
	}
	names := make([]string, 0, len(objects))
	for name := range objects {
		if name != JobsTable {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		tl, err := PartTableLayout(model, name)
		if err != nil {
			return nil, fmt.Errorf("decode part: %w", err)
		}
		data := objects[name]
		fr, err := ReadFrame(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			return nil, fmt.Errorf("decode part table %s: %w", name, err)
		}
		// checkFrame allows extra columns: parts stored before
		// PartTableLayout carry the parameters too
		if err := checkFrame(fr, tl); err != nil {
			return nil, fmt.Errorf("decode part table %s: %w", name, err)
		}
		t, _ := model.Table(name)
		tids := fr.Col(ColJobID).([]string)
		for k := 0; k < fr.Len(); k++ {
			id, err := uuid.Parse(tids[k])
			if err != nil {
				return nil, fmt.Errorf("decode part table %s: row %d: job_id: %w", name, k, err)
			}
			i, ok := byID[id]
			if !ok || rows[i].Result == nil {
				return nil, fmt.Errorf("decode part table %s: row %d: job %s has no ok row in jobs", name, k, id)
			}
			res := rows[i].Result
			if res.Tables == nil {
				res.Tables = make(map[string]*simcore.TableData)
			}
			td := res.Tables[name]
			if td == nil {
				td = &simcore.TableData{Columns: make(map[string]any, len(t.Columns))}
				res.Tables[name] = td
			}
			for _, c := range t.Columns {
				td.Columns[c.Name] = appendAny(td.Columns[c.Name], fr.Value(fr.Index(c.Name), k))
			}
		}
	}
	return rows, nil
}

func appendAny(s any, v any) any {
	switch x := v.(type) {
	case int64:
		a, _ := s.([]int64)
		return append(a, x)
	case float64:
		a, _ := s.([]float64)
		return append(a, x)
	case string:
		a, _ := s.([]string)
		return append(a, x)
	case bool:
		a, _ := s.([]bool)
		return append(a, x)
	}
	return s
}

// checkFrame checks that every column of l is in f with l's type.
func checkFrame(f *Frame, l Layout) error {
	for _, c := range l.Columns {
		i := f.Index(c.Name)
		if i < 0 && c.Name == ColCPUMs {
			continue // a part of a worker from before cpu_ms: null
		}
		if i < 0 {
			return fmt.Errorf("column %q missing", c.Name)
		}
		if f.Types[i] != c.Type {
			return fmt.Errorf("column %q is %s, want %s", c.Name, f.Types[i], c.Type)
		}
	}
	return nil
}
