package results

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"schedfarm/simcore"
	"schedfarm/simcore/bench"
	"schedfarm/sweep"
)

// dirSource is a PartSource over a folder: object names are slash-separated
// paths relative to it. order, when set, reorders List's answer.
type dirSource struct {
	dir   string
	order func([]string)
}

func (d dirSource) List(ctx context.Context) ([]string, error) {
	var names []string
	err := filepath.WalkDir(d.dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		rel, err := filepath.Rel(d.dir, path)
		if err != nil {
			return err
		}
		names = append(names, filepath.ToSlash(rel))
		return nil
	})
	if d.order != nil {
		d.order(names)
	}
	return names, err
}

func (d dirSource) Open(ctx context.Context, name string) (io.ReadCloser, error) {
	return os.Open(filepath.Join(d.dir, filepath.FromSlash(name)))
}

// storePart encodes rows and stores them as part partID under dir.
func storePart(tb testing.TB, dir, partID string, model simcore.Schema, runID string, rows []JobResult) {
	tb.Helper()
	objs, err := EncodePart(model, PartInfo{RunID: runID, Provenance: testProv()}, rows)
	if err != nil {
		tb.Fatal(err)
	}
	for table, data := range objs {
		path := filepath.Join(dir, filepath.FromSlash(PartObjectName(partID, table)))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

func testProv() Provenance {
	return Provenance{Version: "v0.1.0-test", VCSRevision: "abc123", VCSModified: "false", GoVersion: "go1.26.8"}
}

// point is one point of a test sweep of the bench model.
type point map[string]any

// benchJobs expands points × replicates into the jobs of sweep name, in
// index order (points outer, replicates inner).
func benchJobs(tb testing.TB, name string, master uint64, points []point, reps int) []sweep.Job {
	tb.Helper()
	m := bench.New()
	schema := m.Schema()
	var jobs []sweep.Job
	for _, pt := range points {
		params, err := schema.Complete(simcore.Params(pt))
		if err != nil {
			tb.Fatal(err)
		}
		for r := 0; r < reps; r++ {
			jobs = append(jobs, sweep.Job{
				ID:           sweep.JobID(m.Name(), m.Version(), params, r, sweep.InstanceSeed(master, r, &schema, params)),
				Index:        len(jobs),
				Sweep:        name,
				Model:        m.Name(),
				ModelVersion: m.Version(),
				Params:       params,
				Replicate:    r,
				Seed:         sweep.InstanceSeed(master, r, &schema, params),
			})
		}
	}
	return jobs
}

// runBench runs the jobs with the bench model (fail=error jobs give failed
// rows) and returns their rows, as worker w started at t0.
func runBench(tb testing.TB, jobs []sweep.Job, worker string, t0 time.Time) []JobResult {
	tb.Helper()
	m := bench.New()
	rows := make([]JobResult, len(jobs))
	for i, j := range jobs {
		res, err := m.Run(context.Background(), j.Params, j.Seed)
		rows[i] = JobResult{
			Job: j, Worker: worker, StartedAt: t0.Add(time.Duration(i) * time.Second),
			DurationMs: 1.5 + float64(i), Status: StatusOK, Attempts: 1, Result: res,
		}
		if err != nil {
			rows[i].Status, rows[i].Error, rows[i].Result = StatusFailed, err.Error(), nil
		}
	}
	return rows
}

// readDir returns the content of every file of dir by name.
func readDir(tb testing.TB, dir string) map[string][]byte {
	tb.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	out := map[string][]byte{}
	for _, e := range es {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			tb.Fatal(err)
		}
		out[e.Name()] = b
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

var _ = fmt.Sprint
