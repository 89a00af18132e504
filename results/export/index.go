package export

import (
	"encoding/csv"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"schedfarm/results"
	"schedfarm/simcore"
)

// IndexFile is the name of the index a schedule export writes in each
// sweep folder: one row per file, naming its job and every parameter.
const IndexFile = "index.csv"

// IndexColumns are the index's columns before the parameters (one column
// each, named after the parameter, in schema order).
var IndexColumns = []string{"file", "format", "sweep", "model", "model_version", "job_id", "job_index", "replicate", "seed", "instance"}

// writeIndex writes dir/index.csv for the files names of one sweep's
// schedules in format. Rows of the other schedule format that an earlier
// export into the same folder wrote (same columns, file still there) are
// kept, so batsim and swf may share a folder; files of this format that
// the earlier index lists and this export did not write again are
// removed, so the folder holds one run's files.
func writeIndex(dir string, sw *Sweep, format Format, scheds []*Schedule, names []string) (string, error) {
	header := slices.Clone(IndexColumns)
	text := map[string]bool{}
	for _, p := range sw.Schema.Params {
		header = append(header, p.Name)
		text[p.Name] = p.Kind == simcore.String
	}
	path := filepath.Join(dir, IndexFile)
	kept := map[Format][][]string{}
	if old := readIndex(path); len(old) > 0 && slices.Equal(old[0], header) {
		written := map[string]bool{}
		for _, n := range names {
			written[n] = true
		}
		for _, row := range old[1:] {
			f, file := Format(row[1]), row[0]
			if f.Suffix() == "" || !strings.HasSuffix(file, f.Suffix()) || !safeStem(strings.TrimSuffix(file, f.Suffix())) {
				continue // not a row this export wrote
			}
			st, err := os.Lstat(filepath.Join(dir, file))
			if err != nil || !(st.Mode().IsRegular() || st.Mode()&os.ModeSymlink != 0) {
				continue
			}
			switch {
			case f != format:
				kept[f] = append(kept[f], row)
			case !written[file]:
				if err := os.Remove(filepath.Join(dir, file)); err != nil {
					return "", err
				}
			}
		}
	}
	rows := [][]string{header}
	for _, f := range Formats {
		if f != format {
			rows = append(rows, kept[f]...)
			continue
		}
		for i, s := range scheds {
			row := []string{names[i], string(format), s.Sweep, s.Model, s.ModelVersion, s.JobID,
				strconv.FormatInt(s.JobIndex, 10), strconv.FormatInt(s.Replicate, 10), strconv.FormatUint(s.Seed, 10), s.Instance}
			for _, p := range s.Params {
				v := p.Value
				if text[p.Name] {
					v = results.CSVText(v) // as summary.csv does
				}
				row = append(row, v)
			}
			rows = append(rows, row)
		}
	}
	err := writeFile(path, func(w io.Writer) error {
		cw := csv.NewWriter(w)
		if err := cw.WriteAll(rows); err != nil {
			return err
		}
		return cw.Error()
	})
	return path, err
}

// readIndex returns the rows of an earlier index, or nil when there is
// none or it does not parse as a CSV of rows as long as its header.
func readIndex(path string) [][]string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) == 0 || len(rows[0]) < 2 {
		return nil
	}
	return rows
}
