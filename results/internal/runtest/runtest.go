// Package runtest builds the runs the tests of results and its
// subpackages read: bench-model jobs, their rows, parts stored in a
// folder, and a collected run with its run.json. It is for tests only.
package runtest

import (
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/google/uuid"

	"schedfarm/results"
	"schedfarm/results/collect"
	"schedfarm/simcore"
	"schedfarm/simcore/bench"
	"schedfarm/sweep"
)

// Sweep is the sweep file of CollectRun's runs: points size 0..n-1 ×
// variants a, b; the report's figures and claims.
const Sweep = `sweeps:
  - name: big
    model: bench
    seed: 42
    replicates: 10
    params: {noise: 0.2}
    axes:
      - name: size
        values: [0, 1, 2]
      - name: variant
        values: [a, b]
    figures:
      - {id: value-line, kind: line, x: size, y: value, series: variant}
      - {id: value-scatter, kind: scatter, x: size, y: value, series: variant}
      - {id: value-box, kind: box, x: size, y: value, series: variant}
      - {id: value-cdf, kind: cdf, x: value, series: variant}
      - {id: u-hist, kind: hist, table: samples, x: u, series: variant, bins: 10}
      - {id: pareto, kind: pareto, x: value, y: iterations, series: variant, baseline: a}
    claims:
      - {id: grows, source: "Fig. 1", text: "value grows with size", monotone: {metric: value, in: size, series: variant}}
      - {id: a-not-lower, source: "Sec. 2", text: "a is lower than b", compare: {metric: value, series: variant, a: a, b: b}}
      - {id: pub, source: "Table 1", text: "value is 1 at size 1", loose: "a fixture: within 50 %", published: {metric: value, where: {size: 1, variant: a}, value: 1, tol: 0.5}}
      - {id: wrong, source: "Table 1", text: "value is 9 at size 1", published: {metric: value, where: {size: 1, variant: a}, value: 9, tol: 0.5}}
`

// DirSource is a PartSource over a folder: object names are slash-separated
// paths relative to it. Order, when set, reorders List's answer.
type DirSource struct {
	Dir   string
	Order func([]string)
}

// List returns the files under Dir.
func (d DirSource) List(ctx context.Context) ([]string, error) {
	var names []string
	err := filepath.WalkDir(d.Dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		rel, err := filepath.Rel(d.Dir, path)
		if err != nil {
			return err
		}
		names = append(names, filepath.ToSlash(rel))
		return nil
	})
	if d.Order != nil {
		d.Order(names)
	}
	return names, err
}

// Open opens a file under Dir.
func (d DirSource) Open(ctx context.Context, name string) (io.ReadCloser, error) {
	return os.Open(filepath.Join(d.Dir, filepath.FromSlash(name)))
}

// StorePart encodes rows and stores them as part partID under dir.
func StorePart(tb testing.TB, dir, partID string, model simcore.Schema, runID string, rows []results.JobResult) {
	tb.Helper()
	objs, err := results.EncodePart(model, results.PartInfo{RunID: runID, Provenance: Prov()}, rows)
	if err != nil {
		tb.Fatal(err)
	}
	for table, data := range objs {
		path := filepath.Join(dir, filepath.FromSlash(results.PartObjectName(partID, table)))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

// Prov is the provenance of the test builds.
func Prov() results.Provenance {
	return results.Provenance{Version: "v0.1.0-test", VCSRevision: "abc123", VCSModified: "false", GoVersion: "go1.26.8"}
}

// Point is one Point of a test sweep of the bench model.
type Point map[string]any

// BenchJobs expands points × replicates into the jobs of sweep name, in
// index order (points outer, replicates inner).
func BenchJobs(tb testing.TB, name string, master uint64, points []Point, reps int) []sweep.Job {
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

// RunBench runs the jobs with the bench model (fail=error jobs give failed
// rows) and returns their rows, as worker w started at t0.
func RunBench(tb testing.TB, jobs []sweep.Job, worker string, t0 time.Time) []results.JobResult {
	tb.Helper()
	m := bench.New()
	rows := make([]results.JobResult, len(jobs))
	for i, j := range jobs {
		res, err := m.Run(context.Background(), j.Params, j.Seed)
		rows[i] = results.JobResult{
			Job: j, Worker: worker, StartedAt: t0.Add(time.Duration(i) * time.Second),
			DurationMs: 1.5 + float64(i), Status: results.StatusOK, Attempts: 1, Result: res,
		}
		if err != nil {
			rows[i].Status, rows[i].Error, rows[i].Result = results.StatusFailed, err.Error(), nil
		}
	}
	return rows
}

// ReadDir returns the content of every file of dir by name.
func ReadDir(tb testing.TB, dir string) map[string][]byte {
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

// SortedKeys returns the keys of m in order.
func SortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// CollectRun collects a run of n bench jobs (n/20 sizes × a, b × 10
// replicates; every 7th job of size 1 fails) into dir with a run.json.
func CollectRun(tb testing.TB, dir string, n int) {
	tb.Helper()
	CollectRunFile(tb, dir, n, Sweep)
}

// CollectRunFile is CollectRun with sweepFile recorded as the run's sweep
// file in place of Sweep; it must declare sweep big of the bench model.
func CollectRunFile(tb testing.TB, dir string, n int, sweepFile string) {
	tb.Helper()
	var pts []Point
	for i := 0; i < n/20; i++ {
		for _, v := range []string{"a", "b"} {
			pts = append(pts, Point{"size": i, "variant": v, "noise": 0.2, "rows": 2})
		}
	}
	jobs := BenchJobs(tb, "big", 42, pts, 10)
	t0 := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	rows := RunBench(tb, jobs, "w1", t0)
	fails := map[uuid.UUID]collect.Failure{}
	for i := range rows {
		if i%7 == 3 && rows[i].Job.Params["size"] == int64(1) {
			rows[i].Status, rows[i].Error, rows[i].Result = results.StatusFailed, "boom | with a pipe\nand a second line", nil
			fails[rows[i].Job.ID] = collect.Failure{Error: rows[i].Error, Attempts: 5}
		}
	}
	parts := filepath.Join(tb.TempDir(), "parts")
	schema := bench.New().Schema()
	for p := 0; p*5000 < len(rows); p++ {
		StorePart(tb, parts, "p"+string(rune('a'+p)), schema, "r1", rows[p*5000:min(len(rows), (p+1)*5000)])
	}
	_, err := collect.Collect(context.Background(), DirSource{Dir: parts}, collect.Input{
		RunID: "r1", Model: schema, Jobs: jobs, Failures: fails, SweepFile: sweepFile, Provenance: Prov(),
	}, dir)
	if err != nil {
		tb.Fatal(err)
	}
	info := results.RunInfo{Run: "r1", Sweep: "big", File: "configs/big.yaml", Status: "complete", Created: t0, Finished: t0.Add(90 * time.Second),
		Total: n, Done: n, CollectedBy: "host1", Owner: "coord1"}
	b, _ := json.Marshal(info)
	if err := os.WriteFile(filepath.Join(dir, results.RunInfoFile), b, 0o644); err != nil {
		tb.Fatal(err)
	}
}

// Registry is a registry of the bench model.
func Registry(tb testing.TB) *simcore.Registry {
	reg, err := simcore.NewRegistry(bench.New())
	if err != nil {
		tb.Fatal(err)
	}
	return reg
}
