package main

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"schedfarm/results/export"
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
	if !strings.Contains(b.stdout, "batsim: 2 files") || !strings.Contains(b.stdout, "2 schedules with processor ids allocated") ||
		!strings.Contains(b.stderr, "skipped: plain (model bench): bench emits no schedule") {
		t.Errorf("batsim export:\n%s", b)
	}
	csv, err := os.ReadFile(filepath.Join(out, "b", "sched", "order=PSRS_jobs.csv"))
	if err != nil || !strings.HasPrefix(string(csv), "job_id,workload_name,profile,submission_time,") || strings.Count(string(csv), "\n") != 26 {
		t.Errorf("jobs.csv: %v\n%s", err, csv)
	}

	s := execute(t, "export", run, "--results-dir", res, "--format", "swf", "--out", filepath.Join(out, "s"))
	mustSucceed(t, s)
	f, err := os.Open(filepath.Join(out, "s", "sched", "order=FCFS.swf"))
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

// TestExportNoScheduleNamesKey: a schedule export of a run whose sweeps ran
// without their schedule exits 2 naming, per sweep, the key to set, the
// line of the sweep file (the one that sets it false, or the sweep's),
// an example and the shipped sweep of the model that has it on.
func TestExportNoScheduleNamesKey(t *testing.T) {
	t.Parallel()
	res := t.TempDir()
	file := writeFile(t, filepath.Join(t.TempDir(), "plain.yaml"), `sweeps:
  - name: dflt
    model: batch
    seed: 3
    params: {workload: randomized, jobs: 10, nodes: 4}
  - name: off
    model: divisible
    seed: 4
    params:
      total_time: 20000
      schedule: false
  - name: bench
    model: bench
    seed: 5
`)
	o := execute(t, "run", "--state-dir", t.TempDir(), "--results-dir", res, file)
	mustSucceed(t, o)
	run := filepath.Base(parseCollected(t, o)[0].dir)
	for _, format := range []string{"batsim", "swf"} {
		e := execute(t, "export", run, "--results-dir", res, "--format", format, "--out", filepath.Join(t.TempDir(), "x"))
		wantExit(t, e, exitUsage)
		msg := errString(e.err)
		for _, want := range []string{
			"export --format " + format + ": no sweep of " + run + " has a schedule to export (3 sweeps)",
			"dflt (model batch): its 1 successful job ran with schedule_table: false (the model's default); set schedule_table: true in the params: of the sweep at " + file + ":2, and run it again",
			"off (model divisible): its 1 successful job ran with schedule: false; set schedule: true in " + file + ":11, which sets it false",
			"      - name: dflt\n        model: batch\n        params:\n          schedule_table: true",
			"or run the shipped sweep that has it on: schedfarm run configs/krallmann1999/quick-schedule.yaml",
			"or run the shipped sweep that has it on: schedfarm run configs/lin2007/quick-schedule.yaml",
			"bench (model bench): bench emits no schedule (models with one: batch, divisible, dssp, ptg, stretch)",
		} {
			if !strings.Contains(msg, want) {
				t.Errorf("%s: the error does not say %q:\n%s", format, want, msg)
			}
		}
	}
}

// TestScheduleSweepsShipped: every model with a schedule has a shipped
// quick sweep (scheduleSweeps) that turns it on, and exporting its run
// writes files named after the parameters, listed in index.csv, that
// parse: Batsim's header, SWF through the project's reader.
func TestScheduleSweepsShipped(t *testing.T) {
	t.Parallel()
	for _, m := range export.ScheduleModels() {
		if _, ok := scheduleSweeps[m]; !ok {
			t.Errorf("model %s: no shipped sweep with its schedule on in scheduleSweeps", m)
		}
	}
	for model, file := range scheduleSweeps {
		t.Run(model, func(t *testing.T) {
			t.Parallel()
			res := t.TempDir()
			o := execute(t, "run", "--state-dir", t.TempDir(), "--results-dir", res, filepath.Join(repoRoot, file))
			mustSucceed(t, o)
			c := parseCollected(t, o)
			if len(c) != 1 {
				t.Fatalf("%s: %d sweeps, want 1", file, len(c))
			}
			if fr := readTable(t, filepath.Join(c[0].dir, "jobs.parquet")); fr.Meta["schedfarm.model"] != model {
				t.Errorf("%s: model %s, want %s", file, fr.Meta["schedfarm.model"], model)
			}
			for _, format := range []export.Format{export.FormatBatsim, export.FormatSWF} {
				out := filepath.Join(t.TempDir(), "out")
				mustSucceed(t, execute(t, "export", c[0].dir, "--format", string(format), "--out", out))
				sweepDir := filepath.Join(out, filepath.Base(filepath.Dir(c[0].dir)))
				files := checkExported(t, sweepDir, format)
				if len(files) < 2 {
					t.Errorf("%s: %d %s files", file, len(files), format)
				}
				for _, f := range files {
					if !strings.Contains(f, "=") {
						t.Errorf("%s: %s is not named after its parameters", file, f)
					}
				}
			}
		})
	}
}

// checkExported checks a sweep folder of a schedule export: index.csv
// lists exactly the folder's files of the format, each of which parses
// (Batsim's header and one row per job; an SWF log through
// simcore/workload with as many records as its MaxJobs). It returns the
// files' names.
func checkExported(t *testing.T, dir string, format export.Format) []string {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, export.IndexFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) < 2 || !slices.Equal(rows[0][:len(export.IndexColumns)], export.IndexColumns) {
		t.Fatalf("%s/index.csv: %v, %v", dir, err, rows)
	}
	var listed []string
	for _, r := range rows[1:] {
		if r[1] == string(format) {
			listed = append(listed, r[0])
		}
	}
	onDisk, _ := filepath.Glob(filepath.Join(dir, "*"+format.Suffix()))
	for i := range onDisk {
		onDisk[i] = filepath.Base(onDisk[i])
	}
	slices.Sort(listed)
	if !slices.Equal(listed, onDisk) {
		t.Errorf("%s: index.csv lists %v, the folder holds %v", dir, listed, onDisk)
	}
	for _, name := range onDisk {
		path := filepath.Join(dir, name)
		switch format {
		case export.FormatBatsim:
			b, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			recs, err := csv.NewReader(b).ReadAll()
			b.Close()
			if err != nil || len(recs) < 2 || !slices.Equal(recs[0], export.BatsimColumns) {
				t.Errorf("%s: not a Batsim jobs.csv with jobs: %v", path, err)
			}
		case export.FormatSWF:
			s, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			tr, err := workload.Read(s, workload.ReadOptions{})
			s.Close()
			if err != nil || len(tr.Records) == 0 || len(tr.Records) != tr.Header.MaxJobs {
				t.Errorf("%s: SWF: %v, %d records", path, err, len(tr.Records))
			}
		}
	}
	return onDisk
}

// exportExampleMarker precedes docs/results.md's export example: a sh
// block of commands, then a block of the files they write.
const exportExampleMarker = "<!-- export example: go test ./cmd/schedfarm -run TestDocsExportExample"

// TestDocsExportExample runs docs/results.md's export example as written
// (the run's ID for <run-id>; the state, results and --out folders in a
// temporary directory) and checks that it writes exactly the files the
// docs list, each of which parses.
func TestDocsExportExample(t *testing.T) {
	t.Parallel()
	var blocks [][]string
	found := false
	var cur []string
	in := false
	for _, l := range readDoc(t, "docs/results.md") {
		if strings.HasPrefix(l.text, exportExampleMarker) {
			found = true
			continue
		}
		if !found || len(blocks) == 2 {
			continue
		}
		switch {
		case strings.HasPrefix(l.text, "```") && !in:
			in, cur = true, nil
		case strings.HasPrefix(l.text, "```"):
			in = false
			blocks = append(blocks, cur)
		case in:
			cur = append(cur, l.text)
		}
	}
	if len(blocks) != 2 || len(blocks[0]) == 0 || len(blocks[1]) == 0 {
		t.Fatalf("docs/results.md: no export example (%q, then a block of commands and a block of files)", exportExampleMarker)
	}
	tmp := t.TempDir()
	res, state := filepath.Join(tmp, "runs"), filepath.Join(tmp, ".schedfarm")
	run := ""
	for _, line := range blocks[0] {
		line, _, _ = strings.Cut(line, "#")
		args, ok := strings.CutPrefix(strings.TrimSpace(line), "go run ./cmd/schedfarm ")
		if !ok {
			t.Fatalf("docs/results.md: %q: not a go run ./cmd/schedfarm command", line)
		}
		fields := strings.Fields(args)
		for i, f := range fields {
			switch {
			case strings.HasPrefix(f, "configs/"):
				fields[i] = filepath.Join(repoRoot, f)
			case strings.HasPrefix(f, "exports/"):
				fields[i] = filepath.Join(tmp, f)
			case f == "<run-id>":
				if run == "" {
					t.Fatalf("docs/results.md: %q uses <run-id> before a run", line)
				}
				fields[i] = run
			}
		}
		switch fields[0] {
		case "run":
			fields = append([]string{"run", "--state-dir", state, "--results-dir", res}, fields[1:]...)
		case "export":
			fields = append([]string{"export", "--results-dir", res}, fields[1:]...)
		}
		o := execute(t, fields...)
		mustSucceed(t, o)
		if fields[0] == "run" {
			run = filepath.Base(parseCollected(t, o)[0].dir)
		}
	}
	var want, got []string
	for _, f := range blocks[1] {
		want = append(want, filepath.FromSlash(strings.TrimSpace(f)))
	}
	err := filepath.WalkDir(filepath.Join(tmp, "exports"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(tmp, p)
			got = append(got, rel)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("the export example wrote\n  %s\nthe docs list\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	dirs := map[string]export.Format{}
	for _, f := range got {
		switch {
		case strings.HasSuffix(f, export.FormatBatsim.Suffix()):
			dirs[filepath.Dir(f)] = export.FormatBatsim
		case strings.HasSuffix(f, export.FormatSWF.Suffix()):
			dirs[filepath.Dir(f)] = export.FormatSWF
		}
	}
	for dir, format := range dirs {
		checkExported(t, filepath.Join(tmp, dir), format)
	}
}
