package export

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"schedfarm/results"
)

// Format is an output format of export.
type Format string

// The formats.
const (
	FormatBatsim  Format = "batsim"
	FormatSWF     Format = "swf"
	FormatDataset Format = "parquet-dataset"
)

// Formats lists the formats in the order the help names them.
var Formats = []Format{FormatBatsim, FormatSWF, FormatDataset}

// Written reports what an export wrote.
type Written struct {
	// Files are the paths written, in order (schedule formats: without
	// the index files).
	Files []string
	// Indexes are the index files written (schedule formats: one per
	// sweep folder).
	Indexes []string
	// Skipped explains each sweep that had nothing to export.
	Skipped []string
	// NoSchedule are the sweeps a schedule format skipped, with what to
	// set (the same sweeps as Skipped).
	NoSchedule []*NoScheduleError
	// Allocated counts the schedules whose processor ids Allocate chose.
	Allocated int
}

// Suffix returns the file name suffix of a schedule format: Batsim's
// <prefix>_jobs.csv, or .swf.
func (f Format) Suffix() string {
	switch f {
	case FormatBatsim:
		return "_jobs.csv"
	case FormatSWF:
		return ".swf"
	}
	return ""
}

// WriteScheduleFiles writes every schedule of the sweeps in the Batsim or
// SWF format: out/<sweep>/<stem>_jobs.csv (Batsim's file name pattern,
// <prefix>_jobs.csv) or out/<sweep>/<stem>.swf, each stem named after the
// job's parameters (FileStems), and out/<sweep>/index.csv mapping each
// file to its job and every parameter (IndexFile). Sweeps without a
// schedule are skipped and listed (Skipped, NoSchedule); none at all is an
// error wrapping ErrNoSchedule.
func WriteScheduleFiles(out string, sweeps []*Sweep, format Format, prov results.Provenance) (*Written, error) {
	var write func(io.Writer, *Schedule) error
	switch format {
	case FormatBatsim:
		write = WriteBatsim
	case FormatSWF:
		write = func(w io.Writer, s *Schedule) error { return WriteSWF(w, s, prov) }
	default:
		return nil, fmt.Errorf("export: format %q is not a schedule format", format)
	}
	suffix := format.Suffix()
	res := &Written{}
	for _, sw := range sweeps {
		scheds, err := Schedules(sw)
		var none *NoScheduleError
		if errors.As(err, &none) {
			res.Skipped = append(res.Skipped, err.Error())
			res.NoSchedule = append(res.NoSchedule, none)
			continue
		}
		if err != nil {
			return res, err
		}
		if !safeName(sw.Name) {
			return res, fmt.Errorf("export %s: sweep name %q (from its files' metadata) cannot be a folder name under --out", sw.Dir, sw.Name)
		}
		dir := filepath.Join(out, sw.Name)
		if err := makeDir(dir); err != nil {
			return res, err
		}
		stems := FileStems(scheds)
		names := make([]string, len(scheds))
		for i, s := range scheds {
			names[i] = stems[i] + suffix
			if !safeStem(stems[i]) || names[i] == IndexFile {
				return res, fmt.Errorf("export %s: file name %q (of %s) is not a safe file name", sw.Dir, names[i], s.Name())
			}
			path := filepath.Join(dir, names[i])
			if err := writeFile(path, func(w io.Writer) error { return write(w, s) }); err != nil {
				return res, err
			}
			res.Files = append(res.Files, path)
			if s.Allocated {
				res.Allocated++
			}
		}
		index, err := writeIndex(dir, sw, format, scheds, names)
		if err != nil {
			return res, err
		}
		res.Indexes = append(res.Indexes, index)
	}
	if len(res.Files) == 0 {
		return res, fmt.Errorf("export: no schedule in %s (models with one: %s, with their schedule option on): %w",
			Plural(len(sweeps), "sweep"), strings.Join(ScheduleModels(), ", "), ErrNoSchedule)
	}
	return res, nil
}

// safeName reports whether a name from a file's metadata (a sweep, a
// schedule) can name one file or folder inside --out: the characters of
// sweep and model names, and not "." or "..".
func safeName(s string) bool {
	return partitionRE.MatchString(s) && s != "." && s != ".."
}

// makeDir makes a folder of the output, refusing one that is a symbolic
// link (planted, it would take the files elsewhere).
func makeDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	st, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	if st.Mode()&os.ModeSymlink != 0 || !st.IsDir() {
		return fmt.Errorf("export: %s is a symbolic link, not a folder; remove it (files are written only inside --out)", dir)
	}
	return nil
}

// writeFile writes path through fn: into a new file beside it, renamed
// onto path, so that a path that is a symbolic link is replaced, never
// written through; nothing is left on error.
func writeFile(path string, fn func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("export: %w", err)
	}
	tmp := f.Name()
	if err := fn(f); err != nil {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("export %s: %w", path, err)
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		os.Remove(tmp)
		return fmt.Errorf("export %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("export %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("export %s: %w", path, err)
	}
	return nil
}
