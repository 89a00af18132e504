package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"

	"schedfarm/simcore"
	"schedfarm/simcore/workload"
	"schedfarm/sweep"
)

// checkData looks up every data file the jobs of f read (the models that
// implement simcore.DataReader say which) in dirs, before a local run
// starts: its workers read the same directories, so a file missing here
// would fail every job that reads it, each after --max-deliver attempts.
// It returns nil when every file opens, else a sweep.ErrorList with one
// entry per sweep and missing file, at the line of the sweep file that
// sets the parameter naming it (the sweep's own line when the parameter
// keeps its default), saying where the file was looked for and, for a
// log, where to download it.
func checkData(reg *simcore.Registry, dirs simcore.Dirs, f *sweep.File, jobs []sweep.Job) error {
	sweeps := make(map[string]*sweep.Sweep, len(f.Sweeps))
	for _, s := range f.Sweeps {
		sweeps[s.Name] = s
	}
	type need struct {
		sweep string
		file  simcore.DataFile
	}
	opened := map[string]error{}
	count := map[need]int{}
	var order []need
	eachDataFile(reg, jobs, func(j *sweep.Job, df simcore.DataFile) {
		err, seen := opened[df.Name]
		if !seen {
			err = openable(dirs, df.Name)
			opened[df.Name] = err
		}
		if err == nil {
			return
		}
		n := need{j.Sweep, df}
		if count[n] == 0 {
			order = append(order, n)
		}
		count[n]++
	})
	if len(order) == 0 {
		return nil
	}
	var list sweep.ErrorList
	for _, n := range order {
		e := &sweep.Error{File: f.Path, Line: 1, Key: n.sweep}
		line, set := 0, false
		if s := sweeps[n.sweep]; s != nil {
			line, set = s.ParamLine(n.file.Param)
			e.File, e.Line = s.File, line
		}
		err := opened[n.file.Name]
		jobsText := "1 job reads it"
		if c := count[n]; c > 1 {
			jobsText = fmt.Sprintf("%d jobs read it", c)
		}
		e.Msg = fmt.Sprintf("parameter %s: %v (%s)", n.file.Param, err, jobsText)
		var hints []string
		if errors.Is(err, fs.ErrNotExist) {
			if _, known := workload.LookupKnown(n.file.Name); known || path.Dir(n.file.Name) == workload.TraceDir {
				hints = append(hints, workload.DownloadHint(dirs, n.file.Name))
			} else {
				hints = append(hints, "put it in one of the data directories, or pass --data-dir")
			}
		}
		if !set && line > 0 {
			hints = append(hints, fmt.Sprintf("the sweep keeps the model's default %s; set %s in its params to read another file", n.file.Param, n.file.Param))
		}
		e.Hint = strings.Join(hints, "; ")
		list = append(list, e)
	}
	return list
}

// eachDataFile calls fn for every data file every job reads, in job
// order (the models that implement simcore.DataReader say which).
func eachDataFile(reg *simcore.Registry, jobs []sweep.Job, fn func(j *sweep.Job, df simcore.DataFile)) {
	for i := range jobs {
		j := &jobs[i]
		m, ok := reg.Lookup(j.Model)
		if !ok {
			continue
		}
		dr, ok := m.(simcore.DataReader)
		if !ok {
			continue
		}
		for _, df := range dr.DataFiles(j.Params) {
			fn(j, df)
		}
	}
}

// openable opens name from dirs and checks that it holds something a job
// can read: a file of no bytes is never a valid input, and a workload log
// (.swf, .swf.gz) needs a job line (workload.Probe: the header's cost, not
// the log's), so an empty or interrupted download is bad input here
// rather than a job of zero jobs whose metrics are all zeros.
func openable(dirs simcore.Dirs, name string) error {
	r, err := dirs.Open(name)
	if err != nil {
		return err
	}
	defer r.Close()
	if f, ok := r.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Size() == 0 {
			return fmt.Errorf("data file %q is empty (0 bytes)", name)
		}
	}
	if strings.HasSuffix(name, ".swf") || strings.HasSuffix(name, ".swf.gz") {
		if err := workload.Probe(r); err != nil {
			return fmt.Errorf("data file %q: %w", name, err)
		}
	}
	return nil
}
