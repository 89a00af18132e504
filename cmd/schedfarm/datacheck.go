package main

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"schedfarm/simcore"
	"schedfarm/simcore/workload"
	"schedfarm/sweep"
	"schedfarm/tracefetch"
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
		var ce *checksumError
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if near := nearDataFile(dirs, n.file.Name); near != "" {
				hints = append(hints, near)
			} else if _, known := workload.LookupKnown(n.file.Name); known || path.Dir(n.file.Name) == workload.TraceDir {
				hints = append(hints, workload.DownloadHint(dirs, n.file.Name))
			} else {
				hints = append(hints, "put it in one of the data directories, or pass --data-dir")
			}
		case errors.As(err, &ce):
			hints = append(hints, ce.hint(dirs))
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
//
// A known log (workload.Known) at its place under traces/ must have the
// archive's SHA-256: another file there (a truncated or edited copy)
// would give results that are not the paper's log's, under its name.
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
		if k, known := workload.LookupKnown(name); known && path.Clean(name) == path.Join(workload.TraceDir, k.File) {
			h := sha256.New()
			if _, err := io.Copy(h, f); err != nil {
				return fmt.Errorf("data file %q: %w", name, err)
			}
			if sum := hex.EncodeToString(h.Sum(nil)); sum != k.SHA256 {
				return &checksumError{name: name, path: f.Name(), trace: k, sum: sum}
			}
			if _, err := f.Seek(0, io.SeekStart); err != nil {
				return fmt.Errorf("data file %q: %w", name, err)
			}
		}
	}
	if strings.HasSuffix(name, ".swf") || strings.HasSuffix(name, ".swf.gz") {
		if err := workload.Probe(r); err != nil {
			return fmt.Errorf("data file %q: %w", name, err)
		}
	}
	return nil
}

// checksumError is a known log whose file under traces/ is not the one
// the archive distributes.
type checksumError struct {
	name, path string // as the sweep names it; where it was found
	trace      workload.KnownTrace
	sum        string
}

func (e *checksumError) Error() string {
	return fmt.Sprintf("data file %q (%s) has SHA-256 %s, not the Parallel Workloads Archive's %s", e.name, e.path, e.sum, e.trace.SHA256)
}

// hint is the command that puts the archive's file in its place: with
// --force where the first data directory holds the wrong one (fetch
// writes there), without where a later one does (the fetched file, in
// the first directory, is read first).
func (e *checksumError) hint(dirs simcore.Dirs) string {
	force, flag := "", ""
	if len(dirs) > 0 {
		flag = " --data-dir " + workload.ShellQuote(dirs[0])
		if filepath.Dir(filepath.Dir(e.path)) == filepath.Clean(dirs[0]) {
			force = " --force"
		}
	}
	return fmt.Sprintf("run `schedfarm traces fetch%s%s %s` to replace it by the archive's (a log of your own goes under another name)", force, flag, e.trace.Name())
}

// nearDataFile returns a did-you-mean for a data file name that is not in
// dirs, or "": the name of a known log it differs from only by its suffix
// or case (.swf for .swf.gz), else the closest file of the same folder of
// a data directory, or of the known logs. It says whether that file is
// there, or how to fetch it.
func nearDataFile(dirs simcore.Dirs, name string) string {
	dir := path.Dir(path.Clean(name))
	var near string
	if k, known := workload.LookupKnown(name); known && path.Clean(name) == path.Join(workload.TraceDir, k.File) {
		// A known log's own name: not a typo of another log's. Only the
		// same log kept under another suffix (gunzipped) is meant.
		for _, d := range dirs {
			ents, _ := os.ReadDir(filepath.Join(d, workload.TraceDir))
			for _, e := range ents {
				if e.Type().IsRegular() && e.Name() != k.File && !strings.HasSuffix(e.Name(), ".part") &&
					strings.EqualFold(workload.TrimTraceSuffix(e.Name()), k.Name()) {
					return fmt.Sprintf("is it %q (%s), the same log under another suffix? Name that, or %s",
						path.Join(workload.TraceDir, e.Name()), filepath.Join(d, workload.TraceDir, e.Name()), workload.DownloadHint(dirs, name))
				}
			}
		}
		return ""
	}
	if dir == workload.TraceDir {
		if k, ok := tracefetch.Find(workload.Known, path.Base(name)); ok {
			near = path.Join(workload.TraceDir, k.File)
		}
	}
	if near == "" || near == path.Clean(name) {
		near = ""
		seen := map[string]bool{}
		var names []string
		add := func(n string) {
			if !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
		for _, d := range dirs {
			ents, err := os.ReadDir(filepath.Join(d, filepath.FromSlash(dir)))
			if err != nil {
				continue
			}
			for _, e := range ents {
				if e.Type().IsRegular() && !strings.HasSuffix(e.Name(), ".part") {
					add(path.Join(dir, e.Name()))
				}
			}
		}
		if dir == workload.TraceDir {
			for _, k := range workload.Known {
				add(path.Join(workload.TraceDir, k.File))
			}
		}
		sort.Strings(names)
		hint := sweep.DidYouMean(name, names)
		for _, n := range names {
			if hint != "" && hint == fmt.Sprintf("did you mean %q?", n) { // the candidate it names
				near = n
				break
			}
		}
	}
	if near == "" {
		return ""
	}
	if where, ok := dataFileIn(dirs, near); ok {
		return fmt.Sprintf("did you mean %q? (%s is there)", near, filepath.Join(where, filepath.FromSlash(near)))
	}
	return fmt.Sprintf("did you mean %q? It is a known log, not in the data directories: %s", near, workload.DownloadHint(dirs, near))
}

// dataFileIn returns the data directory that holds name, if one does.
func dataFileIn(dirs simcore.Dirs, name string) (string, bool) {
	for _, d := range dirs {
		if st, err := os.Stat(filepath.Join(d, filepath.FromSlash(name))); err == nil && st.Mode().IsRegular() {
			return d, true
		}
	}
	return "", false
}
