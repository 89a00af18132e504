package export

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"schedfarm/results"
	"schedfarm/simcore"
)

// Dataset metadata keys, added to each file's own (the run's provenance,
// sweep file, model) in the footer of every part.
const (
	// MetaDatasetSchema is the version of the dataset's layout
	// (DatasetSchemaVersion).
	MetaDatasetSchema = "schedfarm.dataset_schema_version"
	// MetaExportVersion and MetaExportRevision identify the schedfarm
	// build that exported the dataset (the files' schedfarm.version and
	// schedfarm.vcs_revision are those of the build that collected the run).
	MetaExportVersion  = "schedfarm.export_version"
	MetaExportRevision = "schedfarm.export_vcs_revision"
	// MetaSweepFileSHA256 is the SHA-256 (hex) of the sweep file's text
	// (schedfarm.sweep_file).
	MetaSweepFileSHA256 = "schedfarm.sweep_file_sha256"
	// MetaInputSHA256 is a JSON object mapping every input file the
	// sweep's jobs read (traces, PTG files, night files; relative to the
	// data directory) to its SHA-256 (hex), or to "not found" when the
	// exporting machine's data directories lack it.
	MetaInputSHA256 = "schedfarm.input_sha256"
)

// DatasetSchemaVersion is the layout version of the dataset: 1 is
// sweep=<sweep>/model=<model>/part-<n>.parquet, the table's columns
// without sweep and model.
const DatasetSchemaVersion = "1"

// RowsPerPart is the most rows one part file holds.
const RowsPerPart = 1 << 20

// NotFound is the hash recorded for an input file the data directories lack.
const NotFound = "not found"

// DatasetOptions configure WriteDataset.
type DatasetOptions struct {
	// Table is the table to export: jobs (default), summary or an extra
	// table of the models.
	Table string
	// Provenance identifies the exporting build.
	Provenance results.Provenance
	// Registry knows the sweeps' models (which input files their jobs read).
	Registry *simcore.Registry
	// Data is where the input files are hashed from.
	Data simcore.DataDir
}

// partitionRE is what a partition value may hold: sweep and model names
// are of this form, so paths need no escaping.
var partitionRE = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

// WriteDataset writes one table of every sweep as one Hive-partitioned
// dataset under out: out/sweep=<sweep>/model=<model>/part-<n>.parquet,
// partitioned only on those two low-cardinality strings (the columns are
// dropped from the files, as Hive readers rebuild them from the path),
// every other column, parameters included, keeping its type. Each file's
// footer keeps the source file's metadata and adds the keys Meta* above.
// Sweeps that lack the table are skipped and listed.
func WriteDataset(out string, sweeps []*Sweep, opt DatasetOptions) (*Written, error) {
	if opt.Table == "" {
		opt.Table = results.JobsTable
	}
	if !partitionRE.MatchString(opt.Table) || strings.HasPrefix(opt.Table, ".") {
		return nil, fmt.Errorf("export: table %q: not a table name", opt.Table)
	}
	res := &Written{}
	for _, sw := range sweeps {
		for _, v := range []string{sw.Name, sw.Model} {
			if !safeName(v) {
				return res, fmt.Errorf("export %s: %q cannot be a partition value", sw.Dir, v)
			}
		}
		fr := sw.Jobs
		if opt.Table != results.JobsTable {
			var err error
			fr, err = results.ReadTable(filepath.Join(sw.Dir, opt.Table+".parquet"))
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					res.Skipped = append(res.Skipped, fmt.Sprintf("%s: no %s.parquet", sw.Name, opt.Table))
					continue
				}
				return res, fmt.Errorf("export: %w", err)
			}
		}
		meta, err := datasetMeta(sw, fr.Meta, opt)
		if err != nil {
			return res, err
		}
		dir := filepath.Join(out, "sweep="+sw.Name, "model="+sw.Model)
		if err := makeDir(filepath.Dir(dir)); err != nil {
			return res, err
		}
		if err := makeDir(dir); err != nil {
			return res, err
		}
		// A re-export replaces the partition's parts, never mixes with them.
		old, _ := filepath.Glob(filepath.Join(dir, "part-*.parquet"))
		for _, p := range old {
			if err := os.Remove(p); err != nil {
				return res, fmt.Errorf("export: %w", err)
			}
		}
		n := fr.Len()
		for part, lo := 0, 0; lo < n || (n == 0 && part == 0); part, lo = part+1, lo+RowsPerPart {
			sub := subset(fr, lo, min(n, lo+RowsPerPart), results.ColSweep, results.ColModel)
			path := filepath.Join(dir, fmt.Sprintf("part-%d.parquet", part))
			if err := writeFile(path, func(w io.Writer) error { return results.WriteFrame(w, opt.Table, sub, meta) }); err != nil {
				return res, err
			}
			res.Files = append(res.Files, path)
		}
	}
	if len(res.Files) == 0 {
		return res, fmt.Errorf("export: no sweep has a %s table", opt.Table)
	}
	return res, nil
}

// datasetMeta returns the footer of the sweep's parts: the source file's
// metadata plus the dataset's keys.
func datasetMeta(sw *Sweep, src map[string]string, opt DatasetOptions) (map[string]string, error) {
	meta := make(map[string]string, len(src)+5)
	for k, v := range src {
		meta[k] = v
	}
	sum := sha256.Sum256([]byte(sw.Jobs.Meta[results.MetaSweepFile]))
	meta[MetaDatasetSchema] = DatasetSchemaVersion
	meta[MetaExportVersion] = opt.Provenance.Version
	meta[MetaExportRevision] = opt.Provenance.VCSRevision
	meta[MetaSweepFileSHA256] = hex.EncodeToString(sum[:])
	inputs, err := inputHashes(sw, opt)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(inputs) // keys sorted: deterministic
	if err != nil {
		return nil, fmt.Errorf("export %s: %w", sw.Name, err)
	}
	meta[MetaInputSHA256] = string(b)
	return meta, nil
}

// inputHashes returns the SHA-256 of every data file the sweep's jobs
// read (the models that implement simcore.DataReader say which).
func inputHashes(sw *Sweep, opt DatasetOptions) (map[string]string, error) {
	out := map[string]string{}
	if opt.Registry == nil {
		return out, nil
	}
	m, ok := opt.Registry.Lookup(sw.Model)
	if !ok {
		return out, nil
	}
	dr, ok := m.(simcore.DataReader)
	if !ok {
		return out, nil
	}
	var names []string
	for r := range sw.Jobs.Len() {
		p, err := paramsAt(sw.Jobs, &sw.Schema, r)
		if err != nil {
			return nil, fmt.Errorf("export %s: %w", sw.Name, err)
		}
		for _, df := range dr.DataFiles(p) {
			names = append(names, df.Name)
		}
	}
	slices.Sort(names)
	for _, name := range slices.Compact(names) {
		out[name] = NotFound
		if opt.Data == nil {
			continue
		}
		rc, err := opt.Data.Open(name)
		if err != nil {
			continue
		}
		h := sha256.New()
		_, err = io.Copy(h, rc)
		rc.Close()
		if err != nil {
			return nil, fmt.Errorf("export %s: hash %s: %w", sw.Name, name, err)
		}
		out[name] = hex.EncodeToString(h.Sum(nil))
	}
	return out, nil
}

// subset returns rows [lo, hi) of f without the named columns.
func subset(f *results.Frame, lo, hi int, drop ...string) *results.Frame {
	out := &results.Frame{Meta: f.Meta}
	for i, name := range f.Names {
		if slices.Contains(drop, name) {
			continue
		}
		out.Names = append(out.Names, name)
		out.Types = append(out.Types, f.Types[i])
		out.Nullable = append(out.Nullable, f.Nullable[i] || f.Nulls[i] != nil)
		var col any
		switch c := f.Cols[i].(type) {
		case []int64:
			col = c[lo:hi]
		case []uint64:
			col = c[lo:hi]
		case []float64:
			col = c[lo:hi]
		case []string:
			col = c[lo:hi]
		case []bool:
			col = c[lo:hi]
		case []time.Time:
			col = c[lo:hi]
		}
		out.Cols = append(out.Cols, col)
		var nulls []bool
		if f.Nulls[i] != nil {
			nulls = f.Nulls[i][lo:hi]
		}
		out.Nulls = append(out.Nulls, nulls)
	}
	return out
}
