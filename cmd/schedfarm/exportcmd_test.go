package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"schedfarm/simcore/workload"
)

const exportSweeps = `sweeps:
  - name: sched
    model: batch
    seed: 3
    params: {workload: randomized, jobs: 25, nodes: 8, schedule_table: true}
    axes:
      - {name: order, values: [FCFS, PSRS]}
  - name: plain
    model: bench
    seed: 4
    axes:
      - {name: size, values: [1, 2]}
`

// TestExport runs a two-sweep file through the farm and exports the run in
// every format: files where the help says, the sweep without a schedule
// skipped with a line, usage errors exit 2.
func TestExport(t *testing.T) {
	t.Parallel()
	res := t.TempDir()
	file := writeFile(t, filepath.Join(t.TempDir(), "export.yaml"), exportSweeps)
	o := execute(t, "run", "--state-dir", t.TempDir(), "--results-dir", res, file)
	mustSucceed(t, o)
	run := filepath.Base(parseCollected(t, o)[0].dir)
	out := t.TempDir()

	b := execute(t, "export", run, "--results-dir", res, "--format", "batsim", "--out", filepath.Join(out, "b"))
	mustSucceed(t, b)
	if !strings.Contains(b.stdout, "batsim: 2 file(s)") || !strings.Contains(b.stdout, "2 schedule(s) with processor ids allocated") ||
		!strings.Contains(b.stderr, "skipped: export plain: model bench emits no schedule") {
		t.Errorf("batsim export:\n%s", b)
	}
	csv, err := os.ReadFile(filepath.Join(out, "b", "sched", "job-0001_jobs.csv"))
	if err != nil || !strings.HasPrefix(string(csv), "job_id,workload_name,profile,submission_time,") || strings.Count(string(csv), "\n") != 26 {
		t.Errorf("jobs.csv: %v\n%s", err, csv)
	}

	s := execute(t, "export", run, "--results-dir", res, "--format", "swf", "--out", filepath.Join(out, "s"))
	mustSucceed(t, s)
	f, err := os.Open(filepath.Join(out, "s", "sched", "job-0000.swf"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr, err := workload.Read(f, workload.ReadOptions{})
	if err != nil || len(tr.Records) != 25 || tr.Header.MaxProcs != 8 || !strings.Contains(tr.Header.Fields["Note"], "order=FCFS") {
		t.Errorf("swf: %v, %+v", err, tr)
	}

	d := execute(t, "export", run, "--results-dir", res, "--format", "parquet-dataset", "--out", filepath.Join(out, "d"))
	mustSucceed(t, d)
	for _, p := range []string{"sweep=sched/model=batch/part-0.parquet", "sweep=plain/model=bench/part-0.parquet"} {
		if fr := readTable(t, filepath.Join(out, "d", filepath.FromSlash(p))); fr.Len() != 2 {
			t.Errorf("%s: %d rows", p, fr.Len())
		}
	}
	// The summary table as a dataset too.
	mustSucceed(t, execute(t, "export", run, "--results-dir", res, "--format", "parquet-dataset", "--table", "summary", "--out", filepath.Join(out, "ds")))

	wantExit(t, execute(t, "export", run, "--results-dir", res, "--format", "csv", "--out", out), exitUsage)
	wantExit(t, execute(t, "export", run, "--results-dir", res, "--format", "swf"), exitUsage)
	wantExit(t, execute(t, "export", run, "--results-dir", res, "--format", "parquet-dataset", "--table", "../jobs", "--out", out), exitUsage)
	wantExit(t, execute(t, "export", "no-such-run", "--results-dir", res, "--format", "swf", "--out", out), exitUsage)
	// Only the sweep without a schedule: nothing to export.
	plain := parseCollected(t, o)[1].dir
	wantExit(t, execute(t, "export", plain, "--format", "batsim", "--out", filepath.Join(out, "none")), exitUsage)
}
