package export

import (
	"bytes"
	"context"
	"crypto/sha256"
	"io"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"schedfarm/internal/datatest"
	"schedfarm/results"
	"schedfarm/results/collect"
	"schedfarm/simcore"
	"schedfarm/simcore/models"
	"schedfarm/sweep"
)

// memParts is a PartSource of parts held in memory.
type memParts map[string][]byte

func (m memParts) List(context.Context) ([]string, error) {
	var names []string
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names, nil
}

func (m memParts) Open(_ context.Context, name string) (io.ReadCloser, error) {
	return io.NopCloser(bytes.NewReader(m[name])), nil
}

// testRun is a run collected in-process from a sweep file of testdata/.
type testRun struct {
	reg  *simcore.Registry
	data simcore.Dirs
	dirs map[string]string // results folder by sweep name
	all  []string          // the folders in file order
}

// collectRun runs every job of testdata/<file> with its model in this
// process and collects each sweep as the farm would, into a temporary
// results directory <root>/<sweep>/run-1/.
func collectRun(tb testing.TB, file string) *testRun {
	tb.Helper()
	text, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		tb.Fatal(err)
	}
	reg := models.All(datatest.Fixtures(tb))
	f, err := sweep.Parse(file, text, reg)
	if err != nil {
		tb.Fatal(err)
	}
	root := tb.TempDir()
	run := &testRun{reg: reg, data: datatest.Fixtures(tb), dirs: map[string]string{}}
	prov := results.Provenance{Version: "v0.0.0-test", VCSRevision: "0123abc", VCSModified: "false", GoVersion: "go-test"}
	for _, s := range f.Sweeps {
		jobs, err := s.Expand(0)
		if err != nil {
			tb.Fatal(err)
		}
		m, _ := reg.Lookup(jobs[0].Model)
		rows := make([]results.JobResult, len(jobs))
		for i, j := range jobs {
			res, err := m.Run(context.Background(), j.Params, j.Seed)
			if err != nil {
				tb.Fatalf("%s job %d: %v", s.Name, j.Index, err)
			}
			rows[i] = results.JobResult{Job: j, Worker: "w", StartedAt: time.Unix(1_700_000_000, 0), DurationMs: 1,
				Status: results.StatusOK, Attempts: 1, Result: res}
		}
		objs, err := results.EncodePart(m.Schema(), results.PartInfo{RunID: "run-1", Provenance: prov}, rows)
		if err != nil {
			tb.Fatal(err)
		}
		parts := memParts{}
		for table, b := range objs {
			parts[results.PartObjectName("p0", table)] = b
		}
		out := filepath.Join(root, s.Name, "run-1")
		in := collect.Input{RunID: "run-1", Model: m.Schema(), Jobs: jobs, SweepFile: string(text), Provenance: prov}
		if _, err := collect.Collect(context.Background(), parts, in, out); err != nil {
			tb.Fatal(err)
		}
		run.dirs[s.Name] = out
		run.all = append(run.all, out)
	}
	return run
}

// sweeps reads the run's folders.
func (r *testRun) sweeps(tb testing.TB) []*Sweep {
	tb.Helper()
	s, err := ReadSweeps(r.all, r.reg)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

func testProvenance() results.Provenance {
	return results.Provenance{Version: "v9.9.9-test", VCSRevision: "feedbeef", VCSModified: "false", GoVersion: "go-test"}
}

func sha256Of(b []byte) [32]byte { return sha256.Sum256(b) }
