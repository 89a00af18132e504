package export

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// sched is a schedule of job index idx with parameters "name=value" pairs.
func sched(idx int64, rep int64, instance string, params ...string) *Schedule {
	s := &Schedule{JobIndex: idx, Replicate: rep, Instance: instance, JobID: fmt.Sprintf("id-%d", idx)}
	for _, p := range params {
		name, value, _ := strings.Cut(p, "=")
		s.Params = append(s.Params, Param{Name: name, Value: value})
	}
	return s
}

// TestFileStems: the parameters that vary name a file, in schema order;
// replicates and instances are added; unsafe characters never reach a
// name; long names are bounded; names that meet, ignoring case, are made
// unique.
func TestFileStems(t *testing.T) {
	long := strings.Repeat("x", 300)
	tests := []struct {
		name   string
		scheds []*Schedule
		want   []string
	}{
		{"axes in schema order, fixed parameters left out", []*Schedule{
			sched(0, 0, "", "nodes=128", "order=FCFS", "backfill=none"),
			sched(1, 0, "", "nodes=128", "order=FCFS", "backfill=easy"),
			sched(2, 0, "", "nodes=128", "order=SMART-FFIA", "backfill=none"),
		}, []string{"order=FCFS_backfill=none", "order=FCFS_backfill=easy", "order=SMART-FFIA_backfill=none"}},
		{"replicates", []*Schedule{
			sched(0, 0, "", "algorithm=FCFS"), sched(1, 1, "", "algorithm=FCFS"),
			sched(2, 0, "", "algorithm=DASEDF"), sched(3, 1, "", "algorithm=DASEDF"),
		}, []string{"algorithm=FCFS_replicate=0", "algorithm=FCFS_replicate=1", "algorithm=DASEDF_replicate=0", "algorithm=DASEDF_replicate=1"}},
		{"one job: its index", []*Schedule{sched(7, 0, "", "nodes=4")}, []string{"job-0007"}},
		{"instances (dssp nights)", []*Schedule{
			sched(0, 0, "night39", "dispatcher=LCPF"), sched(0, 0, "night40", "dispatcher=LCPF"), sched(1, 0, "night39", "dispatcher=CPA"),
		}, []string{"dispatcher=LCPF_night39", "dispatcher=LCPF_night40", "dispatcher=CPA_night39"}},
		{"path separators, dots, control and non-ASCII characters", []*Schedule{
			sched(0, 0, "", "trace=../../etc/passwd"), sched(1, 0, "", `trace=a\b c`+"\x00\n"), sched(2, 0, "", "trace=Δ..x"),
		}, []string{"trace=.-.-etc-passwd", "trace=a-b-c--", "trace=-.x"}},
		{"case-insensitive collisions get the job index", []*Schedule{
			sched(0, 0, "", "v=fcfs"), sched(1, 0, "", "v=FCFS"), sched(2, 0, "", "v=x/y"), sched(3, 0, "", "v=x-y"), sched(4, 0, "", "v=ok"),
		}, []string{"v=fcfs_job-0000", "v=FCFS_job-0001", "v=x-y_job-0002", "v=x-y_job-0003", "v=ok"}},
		{"a value that spells a collision suffix", []*Schedule{
			sched(0, 0, "", "v=a"), sched(1, 0, "", "v=A"), sched(2, 0, "", "v=a_job-0000"),
		}, []string{"v=a_job-0000", "v=A_job-0001", "v=a_job-0000-2"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := FileStems(tc.scheds)
			if !slices.Equal(got, tc.want) {
				t.Errorf("FileStems = %q, want %q", got, tc.want)
			}
		})
	}
	// Long values: bounded, distinct, each ending in a hash of what it stood for.
	got := FileStems([]*Schedule{sched(0, 0, "", "a="+long+"1"), sched(1, 0, "", "a="+long+"2"), sched(2, 0, "", "a="+strings.Repeat(".", 300))})
	seen := map[string]bool{}
	for _, st := range got {
		if len(st) > MaxStem || !safeStem(st) || seen[strings.ToLower(st)] {
			t.Errorf("stem %q (%d bytes): too long, unsafe or repeated among %q", st, len(st), got)
		}
		seen[strings.ToLower(st)] = true
	}
	if got[0][:MaxStem-9] != got[1][:MaxStem-9] || got[0] == got[1] {
		t.Errorf("long stems %q and %q: want the same cut, different hashes", got[0], got[1])
	}
}

// FuzzFileStems: whatever the parameter values, every stem is a safe file
// name of bounded length, and no two coincide ignoring case.
func FuzzFileStems(f *testing.F) {
	f.Add("FCFS", "fcfs", "../x")
	f.Add("a/b", "a-b", "a\x00b")
	f.Add(strings.Repeat("é", 200), "..", ".")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		var scheds []*Schedule
		for i, v := range []string{a, b, c, a} {
			scheds = append(scheds, sched(int64(i), 0, "", "p="+v, "q=1"))
		}
		seen := map[string]bool{}
		for _, st := range FileStems(scheds) {
			if !safeStem(st) || len(st) > MaxStem+16 || seen[strings.ToLower(st)] {
				t.Fatalf("stem %q: unsafe, too long or repeated", st)
			}
			seen[strings.ToLower(st)] = true
		}
	})
}

// readIndexFile reads an index.csv as rows keyed by column name.
func readIndexFile(t *testing.T, path string) []map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var out []map[string]string
	for _, r := range recs[1:] {
		m := map[string]string{}
		for i, name := range recs[0] {
			m[name] = r[i]
		}
		out = append(out, m)
	}
	if !slices.Equal(recs[0][:len(IndexColumns)], IndexColumns) {
		t.Errorf("%s: header %v", path, recs[0])
	}
	return out
}

// TestIndexFile: each sweep folder's index.csv maps every file written to
// its job (ID, index, replicate, seed) and every parameter; batsim and
// swf exported into one folder share it; a re-export of fewer schedules
// removes the files the earlier one wrote and this one did not.
func TestIndexFile(t *testing.T) {
	run := collectRun(t, "schedules.yaml")
	sweeps := run.sweeps(t)
	out := t.TempDir()
	var files []string
	for _, f := range []Format{FormatBatsim, FormatSWF} {
		w, err := WriteScheduleFiles(out, sweeps, f, testProvenance())
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, w.Files...)
	}
	listed := map[string]bool{}
	for _, sw := range sweeps {
		scheds, err := Schedules(sw)
		if err != nil {
			continue
		}
		rows := readIndexFile(t, filepath.Join(out, sw.Name, IndexFile))
		if len(rows) != 2*len(scheds) {
			t.Errorf("%s: %d index rows for %d schedules in two formats", sw.Name, len(rows), len(scheds))
		}
		for _, r := range rows {
			listed[filepath.Join(out, sw.Name, r["file"])] = true
			if !strings.HasSuffix(r["file"], Format(r["format"]).Suffix()) || r["sweep"] != sw.Name || r["model"] != sw.Model {
				t.Errorf("%s: row %v", sw.Name, r)
			}
			var s *Schedule
			for _, c := range scheds {
				if c.JobID == r["job_id"] && c.Instance == r["instance"] {
					s = c
				}
			}
			if s == nil {
				t.Fatalf("%s: row names job %s, not one of the sweep's schedules", sw.Name, r["job_id"])
			}
			if r["job_index"] != fmt.Sprint(s.JobIndex) || r["replicate"] != fmt.Sprint(s.Replicate) || r["seed"] != fmt.Sprint(s.Seed) {
				t.Errorf("%s %s: row %v", sw.Name, s.Name(), r)
			}
			for _, p := range s.Params {
				if got, ok := r[p.Name]; !ok || got != p.Value {
					t.Errorf("%s %s: parameter %s = %q in the index, want %q", sw.Name, s.Name(), p.Name, got, p.Value)
				}
			}
		}
	}
	for _, f := range files {
		if !listed[f] {
			t.Errorf("%s: written, not in its index", f)
		}
	}
	if len(listed) != len(files) {
		t.Errorf("the indexes list %d files, %d written", len(listed), len(files))
	}

	// A re-export of the t-batch sweep without its easy-backfill jobs: their
	// files go, the swf rows stay.
	tb := run.dirs["t-batch"]
	sw, err := ReadSweep(tb, run.reg)
	if err != nil {
		t.Fatal(err)
	}
	before, _ := filepath.Glob(filepath.Join(out, "t-batch", "*_jobs.csv"))
	keep := sw.Jobs.Col("backfill").([]string)
	status := sw.Jobs.Col("status").([]string)
	for i := range status {
		if keep[i] == "easy" {
			status[i] = "failed"
		}
	}
	if _, err := WriteScheduleFiles(out, []*Sweep{sw}, FormatBatsim, testProvenance()); err != nil {
		t.Fatal(err)
	}
	after, _ := filepath.Glob(filepath.Join(out, "t-batch", "*_jobs.csv"))
	if len(before) != 4 || len(after) != 2 || slices.ContainsFunc(after, func(p string) bool { return strings.Contains(p, "backfill=easy") }) {
		t.Errorf("re-export: batsim files %v, then %v", before, after)
	}
	rows := readIndexFile(t, filepath.Join(out, "t-batch", IndexFile))
	n := map[string]int{}
	for _, r := range rows {
		n[r["format"]]++
	}
	if n["batsim"] != 2 || n["swf"] != 4 {
		t.Errorf("index after the re-export: %v rows by format", n)
	}
}
