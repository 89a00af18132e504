package export

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// handSchedule is a schedule of six jobs on five processors whose model
// does not number processors. Lowest free ids at each start, by hand:
//
//	A  0→10    2 procs  {0,1}
//	B  0→4     1 proc   {2}
//	F  1→20    1 proc   {3}
//	C  4→8     2 procs  {2,4}   B freed 2 at 4; 3 is F's
//	G  10→12.5 3 procs  {0,1,2} A freed 0-1 at 10, C freed 2 at 8
//	H  10→11   1 proc   {4}     listed after G: G took 0-2 first
func handSchedule() *Schedule {
	return &Schedule{
		Sweep: "hand", Model: "batch", Capacity: 5, TimeUnit: "s",
		Jobs: []Job{
			{ID: "A", Submit: 0, Start: 0, End: 10, Procs: 2, Requested: 12},
			{ID: "B", Submit: 0, Start: 0, End: 4, Procs: 1, Requested: -1},
			{ID: "F", Submit: 1, Start: 1, End: 20, Procs: 1, Requested: -1},
			{ID: "C", Submit: 2, Start: 4, End: 8, Procs: 2, Requested: -1},
			{ID: "G", Submit: 3, Start: 10, End: 12.5, Procs: 3, Requested: -1},
			{ID: "H", Submit: 5, Start: 10, End: 11, Procs: 1, Requested: -1, Meta: `a "quoted", value`},
		},
	}
}

// TestBatsimHandComputed checks the file against a hand-written one: the
// header of Batsim v4.2.1's _jobs.csv, and every derived value computed by
// hand (waiting = start − submit, turnaround = finish − submit, stretch =
// turnaround / execution).
func TestBatsimHandComputed(t *testing.T) {
	s := handSchedule()
	if err := Allocate(s); err != nil {
		t.Fatal(err)
	}
	if err := Validate(s); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteBatsim(&b, s); err != nil {
		t.Fatal(err)
	}
	want := `job_id,workload_name,profile,submission_time,requested_number_of_resources,requested_time,success,final_state,starting_time,execution_time,finish_time,waiting_time,turnaround_time,stretch,allocated_resources,consumed_energy,metadata
A,hand,batch,0.000000,2,12.000000,1,COMPLETED_SUCCESSFULLY,0.000000,10.000000,10.000000,0.000000,10.000000,1.000000,0-1,-1.000000,""
B,hand,batch,0.000000,1,-1.000000,1,COMPLETED_SUCCESSFULLY,0.000000,4.000000,4.000000,0.000000,4.000000,1.000000,2,-1.000000,""
F,hand,batch,1.000000,1,-1.000000,1,COMPLETED_SUCCESSFULLY,1.000000,19.000000,20.000000,0.000000,19.000000,1.000000,3,-1.000000,""
C,hand,batch,2.000000,2,-1.000000,1,COMPLETED_SUCCESSFULLY,4.000000,4.000000,8.000000,2.000000,6.000000,1.500000,2 4,-1.000000,""
G,hand,batch,3.000000,3,-1.000000,1,COMPLETED_SUCCESSFULLY,10.000000,2.500000,12.500000,7.000000,9.500000,3.800000,0-2,-1.000000,""
H,hand,batch,5.000000,1,-1.000000,1,COMPLETED_SUCCESSFULLY,10.000000,1.000000,11.000000,5.000000,6.000000,6.000000,4,-1.000000,"a ""quoted"", value"
`
	if got := b.String(); got != want {
		t.Errorf("jobs.csv:\n%s\nwant:\n%s", got, want)
	}
}

// procSet parses an interval set as evalys does (procset's
// ProcSet.from_str: intervals separated by spaces, "a-b" inclusive or a
// single id), independently of IntervalSet.
func procSet(t *testing.T, s string) []int {
	t.Helper()
	var ids []int
	for _, tok := range strings.Fields(s) {
		lo, hi, ok := strings.Cut(tok, "-")
		a, err := strconv.Atoi(lo)
		b := a
		if ok && err == nil {
			b, err = strconv.Atoi(hi)
		}
		if err != nil || b < a {
			t.Fatalf("interval set %q: bad interval %q", s, tok)
		}
		for p := a; p <= b; p++ {
			ids = append(ids, p)
		}
	}
	return ids
}

func TestIntervalSet(t *testing.T) {
	tests := []struct {
		ids  []int
		want string
	}{
		{nil, ""},
		{[]int{7}, "7"},
		{[]int{0, 1, 2, 3, 7}, "0-3 7"},
		{[]int{1, 3, 5}, "1 3 5"},
		{[]int{4, 5, 9, 10, 11}, "4-5 9-11"},
	}
	for _, tc := range tests {
		if got := IntervalSet(tc.ids); got != tc.want {
			t.Errorf("IntervalSet(%v) = %q, want %q", tc.ids, got, tc.want)
		}
	}
}

// TestBatsimFilesReadAsEvalys reads every exported jobs.csv of every model
// the way evalys's JobSet.from_csv does (a CSV with a header; the columns
// it uses; allocated_resources through an interval-set parser) and checks
// what evalys relies on: the columns, execution = finish − start, as many
// processors in the set as requested, all within the platform.
func TestBatsimFilesReadAsEvalys(t *testing.T) {
	run := collectRun(t, "schedules.yaml")
	out := t.TempDir()
	w, err := WriteScheduleFiles(out, run.sweeps(t), FormatBatsim, testProvenance())
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Skipped) != 2 || !strings.Contains(w.Skipped[0], "t-batch-none") || !strings.Contains(w.Skipped[1], "t-bench") {
		t.Errorf("skipped: %q", w.Skipped)
	}
	if w.Allocated == 0 {
		t.Error("no schedule needed allocation: batch and moldable stretch should")
	}
	for _, path := range w.Files {
		if !strings.HasSuffix(path, "_jobs.csv") {
			t.Errorf("%s: not a Batsim file name", path)
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		recs, err := csv.NewReader(f).ReadAll()
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if strings.Join(recs[0], ",") != strings.Join(BatsimColumns, ",") || len(recs) < 2 {
			t.Fatalf("%s: header %v, %d rows", path, recs[0], len(recs)-1)
		}
		col := map[string]int{}
		for i, n := range recs[0] {
			col[n] = i
		}
		num := func(rec []string, name string) float64 {
			v, err := strconv.ParseFloat(rec[col[name]], 64)
			if err != nil {
				t.Fatalf("%s: %s = %q", path, name, rec[col[name]])
			}
			return v
		}
		for _, rec := range recs[1:] {
			ids := procSet(t, rec[col["allocated_resources"]])
			if len(ids) != int(num(rec, "requested_number_of_resources")) {
				t.Errorf("%s job %s: %d processors in %q", path, rec[0], len(ids), rec[col["allocated_resources"]])
			}
			if d := num(rec, "finish_time") - num(rec, "starting_time") - num(rec, "execution_time"); d > 2e-6 || d < -2e-6 {
				t.Errorf("%s job %s: execution_time off by %g", path, rec[0], d)
			}
			if num(rec, "waiting_time") < -1e-6 {
				t.Errorf("%s job %s: negative wait", path, rec[0])
			}
		}
		if filepath.Base(filepath.Dir(path)) == "" {
			t.Errorf("%s: not under a sweep folder", path)
		}
	}
}

// TestValidateRejects: the checker catches an allocation that puts two
// jobs on one processor at once, or names a processor off the platform.
func TestValidateRejects(t *testing.T) {
	tests := []struct {
		name string
		edit func(s *Schedule)
		want string
	}{
		{"overlap", func(s *Schedule) { s.Jobs[3].Resources = []int{3, 4} }, "at once"},
		{"off the platform", func(s *Schedule) { s.Jobs[5].Resources = []int{5} }, "processor 5 of 5"},
		{"count", func(s *Schedule) { s.Jobs[0].Resources = []int{0} }, "1 processor ids for 2"},
		{"mixed", func(s *Schedule) {}, "cannot mix"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := handSchedule()
			var err error
			if tc.name == "mixed" {
				s.Jobs[0].Resources = []int{0, 1}
				err = Allocate(s)
			} else {
				if err := Allocate(s); err != nil {
					t.Fatal(err)
				}
				tc.edit(s)
				err = Validate(s)
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want %q", err, tc.want)
			}
		})
	}
}

// TestExportStaysInsideOut: a sweep name from a file's metadata that would
// lead outside --out is refused, and a planted symbolic link, as a file or
// as a sweep's folder, is replaced or refused, never written through.
func TestExportStaysInsideOut(t *testing.T) {
	run := collectRun(t, "schedules.yaml")
	for _, format := range []Format{FormatBatsim, FormatSWF} {
		sweeps := run.sweeps(t)
		out := t.TempDir()
		sweeps[0].Name = "../../../../x"
		if _, err := WriteScheduleFiles(filepath.Join(out, "a", "b"), sweeps, format, testProvenance()); err == nil || !strings.Contains(err.Error(), "cannot be a folder name under --out") {
			t.Errorf("%s: sweep name ../../../../x: %v", format, err)
		}
		if ents, _ := os.ReadDir(out); len(ents) > 1 {
			t.Errorf("%s: wrote outside --out: %v", format, ents)
		}
	}
	// A planted link where a file goes: replaced, its target untouched.
	sweeps := run.sweeps(t)
	out, victim := t.TempDir(), filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	first, err := WriteScheduleFiles(out, sweeps, FormatSWF, testProvenance())
	if err != nil {
		t.Fatal(err)
	}
	target := first.Files[0]
	if err := os.Remove(target); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, target); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteScheduleFiles(out, sweeps, FormatSWF, testProvenance()); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep" {
		t.Errorf("the export wrote through a planted link: the target holds %d bytes", len(b))
	}
	if st, err := os.Lstat(target); err != nil || st.Mode()&os.ModeSymlink != 0 {
		t.Errorf("%s: still a link (%v)", target, err)
	}
	// A planted link as a sweep's folder: refused.
	out2, elsewhere := t.TempDir(), t.TempDir()
	if err := os.Symlink(elsewhere, filepath.Join(out2, filepath.Base(filepath.Dir(target)))); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteScheduleFiles(out2, sweeps, FormatSWF, testProvenance()); err == nil || !strings.Contains(err.Error(), "is a symbolic link") {
		t.Errorf("sweep folder a link: %v", err)
	}
	if ents, _ := os.ReadDir(elsewhere); len(ents) != 0 {
		t.Errorf("wrote through a linked folder: %v", ents)
	}
}
