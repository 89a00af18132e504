package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"schedfarm/simcore"
)

// missingDataSweep has a batch sweep that keeps the default trace and a
// dssp sweep that names a night file: with an empty data directory both
// are missing.
const missingDataSweep = `sweeps:
  - name: ctc
    model: batch
    seed: 1
    params:
      jobs: 100
    axes:
      - {name: backfill, values: [none, easy]}
  - name: nights
    model: dssp
    seed: 1
    params:
      workload: file
      nights_file: nights/mine.csv
`

// TestRunMissingDataFile checks that a local run refuses a sweep whose data
// files are missing before anything starts: exit status 2, one line per
// sweep and file at the line that sets it (the sweep's when it keeps the
// default), the command that fetches a trace, and neither a state nor a results dir.
func TestRunMissingDataFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := writeFile(t, filepath.Join(dir, "missing.yaml"), missingDataSweep)
	state, res := filepath.Join(dir, "state"), filepath.Join(dir, "results")
	data := filepath.Join(dir, "data")
	if err := os.Mkdir(data, 0o755); err != nil {
		t.Fatal(err)
	}
	o := execute(t, "run", "--workers", "1", "--data-dir", data, "--state-dir", state, "--results-dir", res, file)
	wantExit(t, o, exitUsage)
	msg := o.err.Error()
	for _, want := range []string{
		file + `:2: ctc: parameter trace: data file "traces/CTC-SP2-1996-3.1-cln.swf.gz" not found in ` + data,
		"(2 jobs read it)",
		"run `schedfarm traces fetch --data-dir " + data + " CTC-SP2-1996-3.1-cln` (or download https://www.cs.huji.ac.il/labs/parallel/workload/l_ctc_sp2/CTC-SP2-1996-3.1-cln.swf.gz into " + data + "/traces/;",
		"expected SHA-256 9fa28ac16c4386fb81b72a91d8bd8888281df2948a9d912769d387c5ee285bb4",
		"the sweep keeps the model's default trace",
		file + `:14: nights: parameter nights_file: data file "nights/mine.csv" not found in ` + data,
		"(1 job reads it); put it in one of the data directories, or pass --data-dir",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, o)
		}
	}
	if n := strings.Count(msg, "\n"); n != 1 {
		t.Errorf("%d lines, want one per sweep and file:\n%s", n+1, msg)
	}
	for _, d := range []string{state, res} {
		if _, err := os.Stat(d); !os.IsNotExist(err) {
			t.Errorf("%s exists after a refused run (%v)", d, err)
		}
	}
}

// tinyLogSweep is a batch sweep of len(backfill) jobs on traces/tiny.swf, a
// small log that writeTinyTrace puts in a data directory.
func tinyLogSweep(backfill string) string {
	return `name: tiny
model: batch
seed: 1
params: {trace: traces/tiny.swf, nodes: 4}
axes:
  - {name: backfill, values: [` + backfill + `]}
`
}

// writeTinyTrace writes traces/tiny.swf under data and returns its path.
func writeTinyTrace(t *testing.T, data string) string {
	return writeFile(t, filepath.Join(data, "traces", "tiny.swf"), `; MaxNodes: 4
1 0 0 100 2 -1 -1 2 200 -1 1 1 1 -1 -1 -1 -1 -1
2 10 0 50 4 -1 -1 4 60 -1 1 1 1 -1 -1 -1 -1 -1
3 20 0 30 1 -1 -1 1 30 -1 1 1 1 -1 -1 -1 -1 -1
`)
}

// TestRunDataFilePresent runs a batch sweep on a small log in a data
// directory of its own: the check lets it through and the jobs read it.
func TestRunDataFilePresent(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	writeTinyTrace(t, data)
	file := writeFile(t, filepath.Join(dir, "tiny.yaml"), tinyLogSweep("none, easy, conservative"))
	res := filepath.Join(dir, "results")
	o := execute(t, "run", "--workers", "1", "--data-dir", data, "--state-dir", filepath.Join(dir, "state"), "--results-dir", res, file)
	mustSucceed(t, o)
	if c := onlyCollected(t, o, res, "tiny"); c.ok != "3" || c.failed != "0" {
		t.Errorf("collected %+v, want 3 ok", c)
	}
}

// TestRunDataFileGoneAfterRun checks that the data check asks only for
// the files of the jobs that will run: once a sweep's results are in the
// state dir, running it again collects them without its log, while a job
// that still has to run, or --force, still needs the log (exit 2, the
// count of jobs that read it, nothing published).
func TestRunDataFileGoneAfterRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	trace := writeTinyTrace(t, data)
	file := writeFile(t, filepath.Join(dir, "tiny.yaml"), tinyLogSweep("none, easy, conservative"))
	state, res := filepath.Join(dir, "state"), filepath.Join(dir, "results")
	run := func(args ...string) outcome {
		return execute(t, append([]string{"run", "--workers", "1", "--data-dir", data, "--state-dir", state, "--results-dir", res}, args...)...)
	}
	mustSucceed(t, run(file))
	if err := os.Remove(trace); err != nil {
		t.Fatal(err)
	}

	o := run(file)
	mustSucceed(t, o)
	if !strings.Contains(o.stderr, ": 0 published, 3 already done") {
		t.Errorf("second run did not skip every job:\n%s", o)
	}
	cs := parseCollected(t, o)
	if len(cs) != 1 || cs[0].ok != "3" || cs[0].failed != "0" {
		t.Errorf("collected %+v, want 3 ok", cs)
	}

	more := writeFile(t, filepath.Join(dir, "more.yaml"), tinyLogSweep("none, easy, conservative, depth"))
	o = run(more)
	wantExit(t, o, exitUsage)
	if want := more + `:4: tiny: parameter trace: data file "traces/tiny.swf" not found in ` + data + ": file does not exist (1 job reads it)"; !strings.Contains(o.err.Error(), want) {
		t.Errorf("error lacks %q:\n%s", want, o)
	}
	if strings.Contains(o.stderr, "published") {
		t.Errorf("a refused run published jobs:\n%s", o)
	}

	o = run("--force", file)
	wantExit(t, o, exitUsage)
	if want := "(3 jobs read it)"; !strings.Contains(o.err.Error(), want) {
		t.Errorf("error lacks %q:\n%s", want, o)
	}
}

// TestModelsDataFiles pins which files each model's jobs read, from their
// completed parameters.
func TestModelsDataFiles(t *testing.T) {
	reg := buildRegistry(nil)
	for _, c := range []struct {
		model  string
		params simcore.Params
		want   string // "param=name" joined by spaces
	}{
		{"batch", simcore.Params{}, "trace=traces/CTC-SP2-1996-3.1-cln.swf.gz"},
		{"batch", simcore.Params{"workload": "probabilistic", "trace": "traces/x.swf"}, "trace=traces/x.swf"},
		{"batch", simcore.Params{"workload": "randomized"}, ""},
		{"stretch", simcore.Params{}, ""},
		{"stretch", simcore.Params{"problem": "moldable"}, "workload=traces/SDSC-Par-1996-3.1-cln.swf.gz"},
		{"stretch", simcore.Params{"problem": "moldable", "workload": "osc"}, "workload=traces/OSC-Clust-2000-3.1-cln.swf.gz"},
		{"stretch", simcore.Params{"problem": "moldable", "workload": "ssm"}, ""},
		{"ptg", simcore.Params{}, ""},
		{"ptg", simcore.Params{"ptg_class": "files", "ptg_files": "a.dot, b.dag,c.gv", "n_ptgs": int64(2)}, "ptg_files=a.dot ptg_files=b.dag"},
		{"ptg", simcore.Params{"ptg_class": "files", "ptg_files": "a.dot,b.dag", "n_ptgs": int64(5)}, "ptg_files=a.dot ptg_files=b.dag"},
		{"dssp", simcore.Params{}, ""},
		{"dssp", simcore.Params{"workload": "file", "nights_file": "n.csv"}, "nights_file=n.csv"},
		{"divisible", simcore.Params{}, ""},
	} {
		m, ok := reg.Lookup(c.model)
		if !ok {
			t.Fatalf("no model %s", c.model)
		}
		s := m.Schema()
		p, err := s.Complete(c.params)
		if err != nil {
			t.Fatalf("%s %v: %v", c.model, c.params, err)
		}
		var got []string
		if dr, ok := m.(simcore.DataReader); ok {
			for _, f := range dr.DataFiles(p) {
				got = append(got, f.Param+"="+f.Name)
			}
		}
		if g := strings.Join(got, " "); g != c.want {
			t.Errorf("%s %v: DataFiles = %q, want %q", c.model, c.params, g, c.want)
		}
	}
}

// TestRunRefusesEmptyTrace: a log that is empty, or holds a header alone
// (an interrupted download), is bad input for run and validate --data
// before anything starts, never a job of zero jobs with zero metrics.
func TestRunRefusesEmptyTrace(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, content, want string }{
		{"0 bytes", "", `data file "traces/tiny.swf" is empty (0 bytes)`},
		{"header alone", "; MaxNodes: 4\n;\n", "the log has no job lines"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			data := filepath.Join(dir, "data")
			writeFile(t, filepath.Join(data, "traces", "tiny.swf"), c.content)
			file := writeFile(t, filepath.Join(dir, "tiny.yaml"), tinyLogSweep("none, easy"))
			state, res := filepath.Join(dir, "state"), filepath.Join(dir, "results")
			o := execute(t, "run", "--workers", "1", "--data-dir", data, "--state-dir", state, "--results-dir", res, file)
			wantExit(t, o, exitUsage)
			if msg := o.err.Error(); !strings.Contains(msg, c.want) || !strings.Contains(msg, file+":4:") {
				t.Errorf("run: error lacks %q at the sweep's trace line:\n%s", c.want, o)
			}
			for _, d := range []string{state, res} {
				if _, err := os.Stat(d); !os.IsNotExist(err) {
					t.Errorf("%s exists after a refused run (%v)", d, err)
				}
			}
			v := execute(t, "validate", "--data", "--data-dir", data, file)
			wantExit(t, v, exitUsage)
			if !strings.Contains(v.String(), c.want) {
				t.Errorf("validate --data: output lacks %q:\n%s", c.want, v)
			}
		})
	}
}

// TestRunDataFileNearMiss: a sweep naming a data file that is not there
// but close to one that is (or to a known log) is refused before the farm
// starts — no job count, no state dir, nothing published, exit status 2 —
// with a did-you-mean naming that file and, for a known log not in the
// data directories, the command that fetches it; a known log whose bytes
// are not the archive's is refused the same way, with the command that
// replaces it.
func TestRunDataFileNearMiss(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		trace string            // the sweep's trace parameter
		files map[string]string // data dir files
		want  []string          // in the error; <data> is the data dir
	}{
		{"suffix", "traces/tiny.swf.gz", map[string]string{"traces/tiny.swf": ""},
			[]string{`data file "traces/tiny.swf.gz" not found in <data>`, `did you mean "traces/tiny.swf"? (<data>/traces/tiny.swf is there)`}},
		{"typo", "traces/tiyn.swf", map[string]string{"traces/tiny.swf": ""},
			[]string{`did you mean "traces/tiny.swf"? (<data>/traces/tiny.swf is there)`}},
		{"known log .swf for .swf.gz present", "traces/CTC-SP2-1996-3.1-cln.swf", map[string]string{"traces/CTC-SP2-1996-3.1-cln.swf.gz": "x"},
			[]string{`did you mean "traces/CTC-SP2-1996-3.1-cln.swf.gz"? (<data>/traces/CTC-SP2-1996-3.1-cln.swf.gz is there)`}},
		{"known log .swf for .swf.gz absent", "traces/CTC-SP2-1996-3.1-cln.swf", nil,
			[]string{`did you mean "traces/CTC-SP2-1996-3.1-cln.swf.gz"? It is a known log, not in the data directories: run ` + "`schedfarm traces fetch --data-dir <data> CTC-SP2-1996-3.1-cln`"}},
		{"known log gunzipped", "traces/CTC-SP2-1996-3.1-cln.swf.gz", map[string]string{"traces/CTC-SP2-1996-3.1-cln.swf": "x"},
			[]string{`is it "traces/CTC-SP2-1996-3.1-cln.swf" (<data>/traces/CTC-SP2-1996-3.1-cln.swf), the same log under another suffix?`, "`schedfarm traces fetch --data-dir <data> CTC-SP2-1996-3.1-cln`"}},
		{"known log case", "traces/ctc-sp2-1996-3.1-cln.swf.gz", nil,
			[]string{`did you mean "traces/CTC-SP2-1996-3.1-cln.swf.gz"?`}},
		{"known log wrong bytes", "traces/CTC-SP2-1996-3.1-cln.swf.gz", map[string]string{"traces/CTC-SP2-1996-3.1-cln.swf.gz": "not the log\n"},
			[]string{`data file "traces/CTC-SP2-1996-3.1-cln.swf.gz" (<data>/traces/CTC-SP2-1996-3.1-cln.swf.gz) has SHA-256 `,
				"not the Parallel Workloads Archive's 9fa28ac16c4386fb81b72a91d8bd8888281df2948a9d912769d387c5ee285bb4",
				"run `schedfarm traces fetch --force --data-dir <data> CTC-SP2-1996-3.1-cln` to replace it"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			data := filepath.Join(dir, "data")
			if err := os.MkdirAll(filepath.Join(data, "traces"), 0o755); err != nil {
				t.Fatal(err)
			}
			for name, text := range c.files {
				if text == "" {
					writeTinyTrace(t, data) // the one small log the cases use
					continue
				}
				writeFile(t, filepath.Join(data, name), text)
			}
			file := writeFile(t, filepath.Join(dir, "near.yaml"), strings.Replace(tinyLogSweep("none, easy"), "traces/tiny.swf", c.trace, 1))
			state, res := filepath.Join(dir, "state"), filepath.Join(dir, "results")
			o := execute(t, "run", "--workers", "2", "--data-dir", data, "--state-dir", state, "--results-dir", res, file)
			wantExit(t, o, exitUsage)
			msg := o.err.Error()
			for _, w := range append([]string{file + ":4: tiny: parameter trace: ", "(2 jobs read it)"}, c.want...) {
				if w = strings.ReplaceAll(w, "<data>", data); !strings.Contains(msg, w) {
					t.Errorf("error lacks %q:\n%s", w, o)
				}
			}
			if strings.Contains(o.stderr, "sweep(s)") || strings.Contains(o.stderr, "published") {
				t.Errorf("a refused run said its job count or published:\n%s", o)
			}
			for _, d := range []string{state, res} {
				if _, err := os.Stat(d); !os.IsNotExist(err) {
					t.Errorf("%s exists after a refused run (%v)", d, err)
				}
			}
		})
	}
}
