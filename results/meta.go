package results

import (
	"runtime/debug"
)

// Key-value metadata keys written into the footer of every results file.
const (
	// MetaSweepFile holds the sweep file (YAML) the run was submitted with.
	MetaSweepFile = "schedfarm.sweep_file"
	// MetaSweep holds the sweep's name.
	MetaSweep = "schedfarm.sweep"
	// MetaRunID holds the run ID; only in jobs.parquet (and part objects),
	// so that extra tables and the summary are identical between runs.
	MetaRunID = "schedfarm.run_id"
	// MetaVersion is the schedfarm version that wrote the file.
	MetaVersion = "schedfarm.version"
	// MetaVCSRevision is the VCS revision schedfarm was built from.
	MetaVCSRevision = "schedfarm.vcs_revision"
	// MetaVCSModified is "true" when the build had uncommitted changes.
	MetaVCSModified = "schedfarm.vcs_modified"
	// MetaGoVersion is the Go toolchain schedfarm was built with.
	MetaGoVersion = "schedfarm.go_version"
	// MetaModel is the model's name.
	MetaModel = "schedfarm.model"
	// MetaModelVersion is the model's version.
	MetaModelVersion = "schedfarm.model_version"
	// MetaMeasured lists the model's Measured metrics (comma-separated):
	// machine-dependent values that verify ignores, with their summary
	// statistics.
	MetaMeasured = "schedfarm.measured_metrics"
	// MetaPacking holds, in jobs.parquet only, how the farm packed the
	// sweep's jobs into messages (JSON, as in run.json's "packing").
	MetaPacking = "schedfarm.packing"
	// MetaPartTables lists, in a part's jobs object only, the extra tables
	// the part holds objects for (comma-separated, in schema order).
	MetaPartTables = "schedfarm.part_tables"
)

// Unknown is the value of a provenance field that could not be determined.
const Unknown = "unknown"

// Provenance identifies the build of schedfarm that wrote a file.
type Provenance struct {
	// Version is the schedfarm version (a release tag, a pseudo-version
	// or a value the binary was stamped with).
	Version string
	// VCSRevision is the commit the binary was built from.
	VCSRevision string
	// VCSModified is "true" or "false" (uncommitted changes at build time).
	VCSModified string
	// GoVersion is the Go toolchain version.
	GoVersion string
}

// BuildProvenance returns the provenance of the running binary, read from
// runtime/debug.ReadBuildInfo. Fields the build info lacks are "unknown":
// with -buildvcs=false (set on the farm's build machines) the VCS fields are
// absent, and a binary stamped with -ldflags -X should overwrite them in the
// returned value before passing it on.
func BuildProvenance() Provenance {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ProvenanceFrom(nil)
	}
	return ProvenanceFrom(bi)
}

// ProvenanceFrom extracts a Provenance from build info (nil: all unknown).
// Main.Version "(devel)" and empty values count as unknown.
func ProvenanceFrom(bi *debug.BuildInfo) Provenance {
	p := Provenance{Version: Unknown, VCSRevision: Unknown, VCSModified: Unknown, GoVersion: Unknown}
	if bi == nil {
		return p
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		p.Version = v
	}
	if bi.GoVersion != "" {
		p.GoVersion = bi.GoVersion
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			if s.Value != "" {
				p.VCSRevision = s.Value
			}
		case "vcs.modified":
			if s.Value != "" {
				p.VCSModified = s.Value
			}
		}
	}
	return p
}

// WithDefaults replaces empty fields by "unknown".
func (p Provenance) WithDefaults() Provenance {
	for _, f := range []*string{&p.Version, &p.VCSRevision, &p.VCSModified, &p.GoVersion} {
		if *f == "" {
			*f = Unknown
		}
	}
	return p
}

// FileMeta is the key-value metadata of one file (see the package doc
// for the keys).
type FileMeta struct {
	SweepFile    string
	Sweep        string
	RunID        string // empty: key omitted
	Model        string
	ModelVersion string
	Prov         Provenance
	Extra        map[string]string
	// Part marks a part object: it has no sweep file and may span sweeps,
	// so the sweep keys are omitted.
	Part bool
}

// Pairs returns the metadata as key-value pairs, provenance defaulted to
// Unknown.
func (m FileMeta) Pairs() map[string]string {
	p := m.Prov.WithDefaults()
	kv := map[string]string{
		MetaVersion:      p.Version,
		MetaVCSRevision:  p.VCSRevision,
		MetaVCSModified:  p.VCSModified,
		MetaGoVersion:    p.GoVersion,
		MetaModel:        m.Model,
		MetaModelVersion: m.ModelVersion,
	}
	if !m.Part {
		kv[MetaSweepFile] = m.SweepFile
		kv[MetaSweep] = m.Sweep
	}
	if m.RunID != "" {
		kv[MetaRunID] = m.RunID
	}
	for k, v := range m.Extra {
		kv[k] = v
	}
	return kv
}
