package export

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"schedfarm/results"
	"schedfarm/simcore"
)

// ScheduleTable is the name of the extra table every schedule-producing
// model declares.
const ScheduleTable = "schedule"

// Sweep is one collected results folder: its jobs table and, when the
// model emitted one, its schedule table.
type Sweep struct {
	// Dir is the results folder.
	Dir string
	// Name and Model are the sweep's and its model's names.
	Name, Model string
	// Schema is the model's schema (from the registry).
	Schema simcore.Schema
	// Jobs is jobs.parquet.
	Jobs *results.Frame
	// Schedule is schedule.parquet, or nil when the folder has none.
	Schedule *results.Frame
}

// ReadSweep reads the results folder dir; reg must know its model.
func ReadSweep(dir string, reg *simcore.Registry) (*Sweep, error) {
	jobs, err := results.ReadTable(filepath.Join(dir, results.JobsTable+".parquet"))
	if err != nil {
		return nil, fmt.Errorf("export: %w", err)
	}
	s := &Sweep{Dir: dir, Jobs: jobs, Name: jobs.Meta[results.MetaSweep], Model: jobs.Meta[results.MetaModel]}
	m, ok := reg.Lookup(s.Model)
	if !ok {
		return nil, fmt.Errorf("export %s: unknown model %q", dir, s.Model)
	}
	s.Schema = m.Schema()
	if _, ok := s.Schema.Table(ScheduleTable); !ok {
		return s, nil
	}
	sched, err := results.ReadTable(filepath.Join(dir, ScheduleTable+".parquet"))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return s, nil
		}
		return nil, fmt.Errorf("export: %w", err)
	}
	s.Schedule = sched
	return s, nil
}

// ReadSweeps reads each results folder in order.
func ReadSweeps(dirs []string, reg *simcore.Registry) ([]*Sweep, error) {
	out := make([]*Sweep, 0, len(dirs))
	for _, d := range dirs {
		if _, err := os.Stat(d); err != nil {
			return nil, fmt.Errorf("export: %w", err)
		}
		s, err := ReadSweep(d, reg)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// column returns the named column of f as a []T, or an error naming the
// table and column.
func column[T any](f *results.Frame, table, name string) ([]T, error) {
	c, ok := f.Col(name).([]T)
	if !ok {
		var zero T
		return nil, fmt.Errorf("%s.parquet: column %q missing or not of type %T", table, name, zero)
	}
	return c, nil
}
