package export

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"schedfarm/results"
	"schedfarm/results/verify"
)

// ctcFixtureSHA256 is the SHA-256 of the CTC fixture the t-batch-trace
// sweep reads (internal/datatest/testdata/traces/SHA256SUMS).
const ctcFixtureSHA256 = "8d75292ec4b7c1b674a7ba9ea32d3c36c03a8469dc46bda8b31f48b5e2b1bfa4"

// writeTestDataset collects testdata/schedules.yaml and exports its jobs
// tables as one dataset.
func writeTestDataset(t *testing.T) (*testRun, string, *Written) {
	t.Helper()
	run := collectRun(t, "schedules.yaml")
	out := filepath.Join(t.TempDir(), "dataset")
	w, err := WriteDataset(out, run.sweeps(t), DatasetOptions{Provenance: testProvenance(), Registry: run.reg, Data: run.data})
	if err != nil {
		t.Fatal(err)
	}
	return run, out, w
}

// TestDatasetLayout: one part per (sweep, model) partition, the partition
// keys out of the files, every other column and its type as in the
// sweep's jobs.parquet, and the footer's provenance.
func TestDatasetLayout(t *testing.T) {
	run, out, w := writeTestDataset(t)
	if len(w.Files) != len(run.all) {
		t.Fatalf("%d files for %d sweeps", len(w.Files), len(run.all))
	}
	sweepText, err := os.ReadFile(filepath.Join("testdata", "schedules.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, sw := range run.sweeps(t) {
		path := filepath.Join(out, "sweep="+sw.Name, "model="+sw.Model, "part-0.parquet")
		got, err := results.ReadTable(path)
		if err != nil {
			t.Fatal(err)
		}
		if got.Len() != sw.Jobs.Len() {
			t.Errorf("%s: %d rows, want %d", path, got.Len(), sw.Jobs.Len())
		}
		if got.Index(results.ColSweep) >= 0 || got.Index(results.ColModel) >= 0 {
			t.Errorf("%s: the partition keys are columns of the file too", path)
		}
		for i, name := range sw.Jobs.Names {
			if name == results.ColSweep || name == results.ColModel {
				continue
			}
			j := got.Index(name)
			if j < 0 || got.Types[j] != sw.Jobs.Types[i] {
				t.Errorf("%s: column %s missing or retyped", path, name)
			}
		}
		for _, p := range sw.Schema.Params {
			if got.Index(p.Name) < 0 {
				t.Errorf("%s: parameter %s is not a column", path, p.Name)
			}
		}
		m := got.Meta
		if m[MetaDatasetSchema] != DatasetSchemaVersion || m[MetaExportRevision] != "feedbeef" || m[MetaExportVersion] != "v9.9.9-test" ||
			m[results.MetaVCSRevision] != "0123abc" {
			t.Errorf("%s: provenance %v", path, m)
		}
		if want := fmt.Sprintf("%x", sha256Of(sweepText)); m[MetaSweepFileSHA256] != want {
			t.Errorf("%s: sweep file hash %s, want %s", path, m[MetaSweepFileSHA256], want)
		}
		var inputs map[string]string
		if err := json.Unmarshal([]byte(m[MetaInputSHA256]), &inputs); err != nil {
			t.Fatalf("%s: %s: %v", path, MetaInputSHA256, err)
		}
		if sw.Name == "t-batch-trace" {
			if h := inputs["traces/CTC-SP2-1996-3.1-cln.first5000.swf.gz"]; h != ctcFixtureSHA256 {
				t.Errorf("%s: input hashes %v", path, inputs)
			}
		}
	}
	// A second export replaces the parts.
	if _, err := WriteDataset(out, run.sweeps(t)[:1], DatasetOptions{Provenance: testProvenance()}); err != nil {
		t.Fatal(err)
	}
	parts, _ := filepath.Glob(filepath.Join(out, "*", "*", "part-*.parquet"))
	if len(parts) != len(run.all) {
		t.Errorf("after a re-export: %d parts", len(parts))
	}
}

// duckDB returns the folder holding node_modules/@duckdb/node-api, or
// skips the test (outside CI) or fails it (in CI) with one line saying
// what is missing.
func duckDB(t *testing.T) string {
	t.Helper()
	missing := ""
	dir := os.Getenv(DuckDBEnv)
	if _, err := exec.LookPath("node"); err != nil {
		missing = "node is not on PATH (Debian package nodejs)"
	} else if dir == "" {
		missing = DuckDBEnv + " is not set (npm install --prefix DIR @duckdb/node-api@1.5.6-r.1, then " + DuckDBEnv + "=DIR)"
	} else if _, err := os.Stat(filepath.Join(dir, "node_modules", "@duckdb", "node-api")); err != nil {
		missing = "no @duckdb/node-api under " + DuckDBEnv + "=" + dir
	}
	if missing == "" {
		return dir
	}
	if os.Getenv("CI") == "true" || os.Getenv(DuckDBRequireEnv) == "1" {
		t.Fatalf("DuckDB reader test cannot run: %s", missing)
	}
	t.Skipf("skipping the DuckDB reader test: %s", missing)
	return ""
}

// DuckDBEnv names the folder whose node_modules holds @duckdb/node-api;
// DuckDBRequireEnv=1 (or CI=true) makes its absence a failure.
const (
	DuckDBEnv        = "SCHEDFARM_DUCKDB_DIR"
	DuckDBRequireEnv = "SCHEDFARM_REQUIRE_DUCKDB"
)

// runDuckDB runs testdata/duckdb_check.mjs and decodes its JSON answer.
func runDuckDB(t *testing.T, dir string, into any, args ...string) {
	t.Helper()
	cmd := exec.Command("node", append([]string{filepath.Join("testdata", "duckdb_check.mjs")}, args...)...)
	cmd.Env = append(os.Environ(), DuckDBEnv+"="+dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("duckdb_check.mjs %v: %v\n%s", args, err, stderr.String())
	}
	if err := json.Unmarshal(b, into); err != nil {
		t.Fatalf("duckdb_check.mjs %v: %v\n%s", args, err, b)
	}
}

// TestDatasetDuckDB reads the dataset with DuckDB (hive_partitioning,
// union_by_name) and checks what an analyst would see: the partition keys
// as VARCHAR columns, parameters and metrics with their types, the rows
// per sweep, and the footer's metadata.
func TestDatasetDuckDB(t *testing.T) {
	dir := duckDB(t)
	run, out, _ := writeTestDataset(t)
	var got struct {
		Columns map[string]string
		Counts  []struct {
			Sweep, Model string
			N            int
		}
		Files []string
		KV    map[string]string
	}
	runDuckDB(t, dir, &got, "dataset", out)
	wantTypes := map[string]string{
		"sweep": "VARCHAR", "model": "VARCHAR", // from the paths
		"job_id": "VARCHAR", "job_index": "BIGINT", "seed": "UBIGINT", "started_at": "TIMESTAMP WITH TIME ZONE",
		"duration_ms": "DOUBLE", "status": "VARCHAR",
		"nodes": "BIGINT", "order": "VARCHAR", "schedule_table": "BOOLEAN", // batch parameters
		"load": "DOUBLE", "n_nodes": "BIGINT", // divisible parameters
		"cluster": "VARCHAR", "n_ptgs": "BIGINT", // ptg parameters
		"art": "DOUBLE", "killed": "BIGINT", "reject_ratio": "DOUBLE", // metrics
	}
	for name, want := range wantTypes {
		if got.Columns[name] != want {
			t.Errorf("column %s: DuckDB type %q, want %q", name, got.Columns[name], want)
		}
	}
	counts := map[string]int{}
	for _, c := range got.Counts {
		counts[c.Sweep+"/"+c.Model] = c.N
	}
	for _, sw := range run.sweeps(t) {
		if n := counts[sw.Name+"/"+sw.Model]; n != sw.Jobs.Len() {
			t.Errorf("%s/%s: DuckDB counts %d rows, want %d", sw.Name, sw.Model, n, sw.Jobs.Len())
		}
	}
	if len(got.Counts) != len(run.all) {
		t.Errorf("DuckDB sees %d partitions, want %d", len(got.Counts), len(run.all))
	}
	if got.KV[MetaDatasetSchema] != DatasetSchemaVersion || got.KV[MetaSweepFileSHA256] == "" || got.KV[MetaInputSHA256] == "" {
		t.Errorf("DuckDB reads the footer as %v", got.KV)
	}
}

// TestDuckDBRewrittenJobs: a jobs.parquet rewritten by DuckDB's COPY (its
// timestamps in MICROS) reads back, and verify finds no difference with
// the original.
func TestDuckDBRewrittenJobs(t *testing.T) {
	dir := duckDB(t)
	run := collectRun(t, "schedules.yaml")
	golden := run.dirs["t-batch"]
	got := filepath.Join(t.TempDir(), "t-batch")
	if err := os.MkdirAll(got, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{results.SummaryTable + ".parquet", ScheduleTable + ".parquet"} {
		b, err := os.ReadFile(filepath.Join(golden, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(got, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var rw struct{ Types map[string]string }
	runDuckDB(t, dir, &rw, "rewrite", filepath.Join(golden, results.JobsTable+".parquet"), filepath.Join(got, results.JobsTable+".parquet"))
	if !strings.Contains(rw.Types[results.ColStartedAt], "MICROS") {
		t.Fatalf("DuckDB wrote started_at as %q, not in MICROS: the test no longer covers the case it was written for", rw.Types[results.ColStartedAt])
	}
	v, err := verify.Dirs(got, golden, run.reg)
	if err != nil {
		t.Fatalf("verify a DuckDB-rewritten jobs.parquet: %v", err)
	}
	if !v.OK() {
		var b bytes.Buffer
		v.WriteText(&b, 10)
		t.Errorf("verify: differences after a DuckDB rewrite:\n%s", b.String())
	}
}
