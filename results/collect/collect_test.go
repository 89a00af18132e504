package collect_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"schedfarm/results"
	"schedfarm/results/collect"
	"schedfarm/results/internal/runtest"
	"schedfarm/simcore"
	"schedfarm/simcore/bench"
	"schedfarm/sweep"
)

// handRow returns an ok row of job j with the given metric values and
// samples column u (nil: no samples).
func handRow(j sweep.Job, worker string, value float64, us []float64) results.JobResult {
	res := &simcore.Result{Metrics: map[string]any{"checksum": int64(value * 10), "iterations": int64(0), "value": value}}
	if us != nil {
		is := make([]int64, len(us))
		for i := range is {
			is[i] = int64(i)
		}
		res.Tables = map[string]*simcore.TableData{"samples": {Columns: map[string]any{"i": is, "u": us}}}
	}
	return results.JobResult{Job: j, Worker: worker, StartedAt: time.UnixMilli(1_700_000_000_000), DurationMs: 2,
		Status: results.StatusOK, Attempts: 1, Result: res}
}

func failedRow(j sweep.Job, worker, msg string, attempts int) results.JobResult {
	return results.JobResult{Job: j, Worker: worker, StartedAt: time.UnixMilli(1_700_000_000_000), DurationMs: 1,
		Status: results.StatusFailed, Error: msg, Attempts: attempts}
}

func TestCollectMerge(t *testing.T) {
	schema := bench.New().Schema()
	jobs := runtest.BenchJobs(t, "s", 1, []runtest.Point{{"size": 1}, {"size": 2}, {"size": 3}}, 2) // 6 jobs
	type part struct {
		id   string
		rows []results.JobResult
	}
	type want struct {
		status, worker, err string
		attempts            int64
		samples             []float64 // u column of the job's samples rows
		startedNull         bool
	}
	tests := []struct {
		name     string
		parts    []part
		failures map[uuid.UUID]collect.Failure
		want     []*want // per job index; nil = missing
		super    int
	}{
		{
			name: "redelivery picks the smallest part ID and its table rows",
			parts: []part{
				{"p-b", []results.JobResult{handRow(jobs[0], "wb", 1, []float64{0.9, 0.8, 0.7})}},
				{"p-a", []results.JobResult{handRow(jobs[1], "wa", 2, nil), handRow(jobs[0], "wa", 1, []float64{0.1, 0.2})}},
				{"p-c", []results.JobResult{handRow(jobs[0], "wc", 1, []float64{0.5})}},
			},
			want:  []*want{{status: "ok", worker: "wa", attempts: 1, samples: []float64{0.1, 0.2}}, {status: "ok", worker: "wa", attempts: 1}, nil, nil, nil, nil},
			super: 2,
		},
		{
			name: "ok beats failed whatever the part order; failures and missing",
			parts: []part{
				{"p-1", []results.JobResult{failedRow(jobs[2], "w1", "boom", 1), failedRow(jobs[3], "w1", "worker error", 2)}},
				{"p-2", []results.JobResult{handRow(jobs[2], "w2", 3, []float64{0.3})}},
			},
			failures: map[uuid.UUID]collect.Failure{
				jobs[3].ID: {Error: "gave up: worker error", Attempts: 3},
				jobs[4].ID: {Error: "timeout", Attempts: 4},
			},
			want: []*want{nil, nil,
				{status: "ok", worker: "w2", attempts: 1, samples: []float64{0.3}},
				{status: "failed", worker: "w1", err: "gave up: worker error", attempts: 3},
				{status: "failed", worker: "", err: "timeout", attempts: 4, startedNull: true},
				nil},
			super: 1,
		},
		{
			name: "rows sorted by job_index whatever the part order",
			parts: []part{
				{"z", []results.JobResult{handRow(jobs[5], "w", 6, []float64{0.6}), handRow(jobs[4], "w", 5, nil)}},
				{"y", []results.JobResult{handRow(jobs[3], "w", 4, []float64{0.4, 0.41}), handRow(jobs[0], "w", 1, []float64{0.01})}},
				{"x", []results.JobResult{failedRow(jobs[1], "w", "bad", 1), handRow(jobs[2], "w", 3, nil)}},
			},
			want: []*want{
				{status: "ok", worker: "w", attempts: 1, samples: []float64{0.01}},
				{status: "failed", worker: "w", err: "bad", attempts: 1},
				{status: "ok", worker: "w", attempts: 1},
				{status: "ok", worker: "w", attempts: 1, samples: []float64{0.4, 0.41}},
				{status: "ok", worker: "w", attempts: 1},
				{status: "ok", worker: "w", attempts: 1, samples: []float64{0.6}},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, p := range tt.parts {
				runtest.StorePart(t, filepath.Join(dir, "parts"), p.id, schema, "r", p.rows)
			}
			out := filepath.Join(dir, "out", "s", "r")
			res, err := collect.Collect(context.Background(), runtest.DirSource{Dir: filepath.Join(dir, "parts")},
				collect.Input{RunID: "r", Model: schema, Jobs: jobs, Failures: tt.failures}, out)
			if err != nil {
				t.Fatal(err)
			}
			var nOK, nFailed int
			var missing []uuid.UUID
			for i, w := range tt.want {
				switch {
				case w == nil:
					missing = append(missing, jobs[i].ID)
				case w.status == results.StatusOK:
					nOK++
				default:
					nFailed++
				}
			}
			if res.OK != nOK || res.Failed != nFailed || res.Missing != len(missing) || !slices.Equal(res.MissingIDs, missing) || res.Superseded != tt.super {
				t.Errorf("collected ok=%d failed=%d missing=%v superseded=%d, want %d %d %v %d",
					res.OK, res.Failed, res.MissingIDs, res.Superseded, nOK, nFailed, missing, tt.super)
			}
			fr, err := results.ReadTable(filepath.Join(out, "jobs.parquet"))
			if err != nil {
				t.Fatal(err)
			}
			idx := fr.Col(results.ColJobIndex).([]int64)
			r := 0
			for i, w := range tt.want {
				if w == nil {
					continue
				}
				if r >= fr.Len() || idx[r] != int64(i) {
					t.Fatalf("jobs row %d: job_index %v, want %d", r, idx, i)
				}
				got := want{
					status:      fr.Col(results.ColStatus).([]string)[r],
					worker:      fr.Col(results.ColWorker).([]string)[r],
					err:         fr.Col(results.ColError).([]string)[r],
					attempts:    fr.Col(results.ColAttempts).([]int64)[r],
					startedNull: fr.IsNull(fr.Index(results.ColStartedAt), r),
				}
				if got.status != w.status || got.worker != w.worker || got.err != w.err || got.attempts != w.attempts || got.startedNull != w.startedNull {
					t.Errorf("job %d: got %+v, want %+v", i, got, *w)
				}
				if null := fr.IsNull(fr.Index("value"), r); null != (w.status != results.StatusOK) {
					t.Errorf("job %d: value null=%v", i, null)
				}
				if sz := fr.Col("size").([]int64)[r]; sz != jobs[i].Params.Int("size") {
					t.Errorf("job %d: size %d", i, sz)
				}
				r++
			}
			if r != fr.Len() {
				t.Errorf("jobs.parquet has %d rows, want %d", fr.Len(), r)
			}
			sf, err := results.ReadTable(filepath.Join(out, "samples.parquet"))
			if err != nil {
				t.Fatal(err)
			}
			var wantIdx []int64
			var wantU []float64
			for i, w := range tt.want {
				if w != nil {
					for range w.samples {
						wantIdx = append(wantIdx, int64(i))
					}
					wantU = append(wantU, w.samples...)
				}
			}
			gotIdx, gotU := sf.Col(results.ColJobIndex).([]int64), sf.Col("u").([]float64)
			if !slices.Equal(gotIdx, wantIdx) || !slices.Equal(gotU, wantU) {
				t.Errorf("samples job_index %v u %v, want %v %v", gotIdx, gotU, wantIdx, wantU)
			}
			// parts carry no parameters in their tables: the collector
			// writes each row's from its job
			for r, i := range gotIdx {
				if sz := sf.Col("size").([]int64)[r]; sz != jobs[i].Params.Int("size") {
					t.Errorf("samples row %d (job %d): size %d, want %d", r, i, sz, jobs[i].Params.Int("size"))
				}
			}
		})
	}
}

func TestSummaryByHand(t *testing.T) {
	schema := bench.New().Schema()
	jobs := runtest.BenchJobs(t, "s", 1, []runtest.Point{{"size": 1}, {"size": 2}, {"size": 3}}, 3)
	rows := []results.JobResult{
		handRow(jobs[2], "w", 4, nil), handRow(jobs[0], "w", 1, nil), handRow(jobs[1], "w", 2, nil),
		handRow(jobs[3], "w", 5, nil), failedRow(jobs[4], "w", "x", 1),
	}
	dir := t.TempDir()
	runtest.StorePart(t, filepath.Join(dir, "parts"), "p", schema, "r", rows)
	out := filepath.Join(dir, "out")
	res, err := collect.Collect(context.Background(), runtest.DirSource{Dir: filepath.Join(dir, "parts")},
		collect.Input{RunID: "r", Model: schema, Jobs: jobs}, out)
	if err != nil {
		t.Fatal(err)
	}
	if res.Points != 3 || res.Missing != 4 {
		t.Errorf("points %d missing %d", res.Points, res.Missing)
	}
	// value = {1, 2, 4} at the first point. t(0.975, 2) has the closed form
	// a·√(2/(1−a²)), a = 2p−1 = 0.95: 4.30265272974946385… The value
	// 4.302652729911275 quoted in the brief is 1.6e-10 too large; gonum
	// agrees with the closed form.
	t975 := 0.95 * math.Sqrt(2/(1-0.95*0.95))
	if got := results.TQuantile975(2); math.Abs(got-t975) > 1e-14*t975 || math.Abs(got-4.302652729911275) > 1e-9 {
		t.Errorf("t(0.975, 2) = %v, want %v", got, t975)
	}
	if got, want := results.TQuantile975(1), math.Tan(math.Pi*0.475); math.Abs(got-want) > 1e-12*want {
		t.Errorf("t(0.975, 1) = %v, want %v", got, want)
	}
	mean := 7.0 / 3
	std := math.Sqrt(7.0 / 3) // Σ(x−mean)² / 2 = (16+1+25)/9/2 = 7/3
	ci := t975 * std / math.Sqrt(3)
	st := results.Describe([]float64{1, 2, 4}) // job-index order, as the collector sums

	close := func(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }
	if st.N != 3 || !close(st.Mean, mean) || !close(st.Std, std) || !close(st.CI95, ci) ||
		st.Median != 2 || st.Q1 != 1.5 || st.Q3 != 3 || st.Min != 1 || st.Max != 4 {
		t.Errorf("Describe = %+v, want mean %v std %v ci95 %v median 2 q1 1.5 q3 3", st, mean, std, ci)
	}
	one := results.Describe([]float64{5})
	if one.Mean != 5 || !math.IsNaN(one.Std) || !math.IsNaN(one.CI95) || one.Q1 != 5 {
		t.Errorf("Describe(n=1) = %+v", one)
	}
	for _, q := range []struct {
		xs      []float64
		p, want float64
	}{
		{[]float64{1, 2, 3, 4}, 0.25, 1.75}, {[]float64{1, 2, 3, 4}, 0.5, 2.5}, {[]float64{1, 2, 3, 4}, 0.75, 3.25},
		{[]float64{10}, 0.25, 10}, {[]float64{0, 10}, 0.9, 9},
	} {
		if got := results.Quantile7(q.xs, q.p); !close(got, q.want) {
			t.Errorf("Quantile7(%v, %v) = %v, want %v", q.xs, q.p, got, q.want)
		}
	}

	g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	stats := func(s results.Stats) string {
		var f []string
		for _, v := range s.Values() {
			if math.IsNaN(v) {
				f = append(f, "")
			} else {
				f = append(f, g(v))
			}
		}
		return strings.Join(f, ",")
	}
	header := "work_ms,size,noise,rows,variant,fail,n,n_failed,n_missing"
	for _, m := range []string{"checksum", "iterations", "value"} {
		for _, s := range results.SummaryStats() {
			header += "," + m + "_" + s
		}
	}
	want := header + "\r\n" +
		"0,1,1,0,a,never,3,0,0," + stats(results.Describe([]float64{10, 20, 40})) + "," + stats(results.Describe([]float64{0, 0, 0})) + "," + stats(st) + "\r\n" +
		"0,2,1,0,a,never,1,1,1," + stats(results.Describe([]float64{50})) + "," + stats(results.Describe([]float64{0})) + "," + stats(one) + "\r\n" +
		"0,3,1,0,a,never,0,0,3" + strings.Repeat(",", 24) + "\r\n"
	got, err := os.ReadFile(filepath.Join(out, "summary.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("summary.csv:\n%q\nwant\n%q", got, want)
	}
	if !strings.Contains(want, ",2.3333333333333335,1.527525231651946") {
		t.Errorf("hand values not in CSV: %q", want)
	}

	fr, err := results.ReadTable(filepath.Join(out, "summary.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	vm, vs, vc := fr.Col("value_mean").([]float64), fr.Col("value_std").([]float64), fr.Col("value_ci95").([]float64)
	if !close(vm[0], mean) || !close(vs[0], std) || !close(vc[0], ci) {
		t.Errorf("summary.parquet value stats %v %v %v", vm[0], vs[0], vc[0])
	}
	for _, c := range []string{"value_std", "value_ci95"} {
		if i := fr.Index(c); !fr.IsNull(i, 1) || fr.IsNull(i, 0) {
			t.Errorf("%s nulls wrong", c)
		}
	}
	if i := fr.Index("value_mean"); !fr.IsNull(i, 2) {
		t.Errorf("value_mean of an empty point is not null")
	}
}

func TestCollectDeterministic(t *testing.T) {
	schema := bench.New().Schema()
	jobs := runtest.BenchJobs(t, "s", 3, []runtest.Point{
		{"size": 1, "rows": 4, "variant": "a"}, {"size": 1, "rows": 4, "variant": "b"}, {"size": 2, "rows": 2, "noise": 0.5},
	}, 4)
	dir := t.TempDir()
	parts := filepath.Join(dir, "parts")
	rows1 := runtest.RunBench(t, jobs, "w1", time.Unix(1e9, 0))
	rows2 := runtest.RunBench(t, jobs, "w2", time.Unix(2e9, 0))
	rng := rand.New(rand.NewPCG(1, 2))
	rng.Shuffle(len(rows1), func(i, j int) { rows1[i], rows1[j] = rows1[j], rows1[i] })
	runtest.StorePart(t, parts, "p1", schema, "run-a", rows1[:6])
	runtest.StorePart(t, parts, "p2", schema, "run-a", rows1[6:])
	runtest.StorePart(t, parts, "p0", schema, "run-a", rows2[3:9]) // redeliveries
	orders := []struct {
		name  string
		order func([]string)
		runID string
	}{
		{"sorted", slices.Sort[[]string], "run-a"},
		{"reversed", func(s []string) { slices.Sort(s); slices.Reverse(s) }, "run-b"},
		{"shuffled", func(s []string) { rng.Shuffle(len(s), func(i, j int) { s[i], s[j] = s[j], s[i] }) }, "run-c"},
	}
	var first map[string][]byte
	for _, o := range orders {
		out := filepath.Join(dir, "out", o.name)
		_, err := collect.Collect(context.Background(), runtest.DirSource{Dir: parts, Order: o.order},
			collect.Input{RunID: o.runID, Model: schema, Jobs: jobs, SweepFile: "x: 1\n", Provenance: runtest.Prov()}, out)
		if err != nil {
			t.Fatal(err)
		}
		files := runtest.ReadDir(t, out)
		if got := runtest.SortedKeys(files); !slices.Equal(got, []string{"jobs.parquet", "samples.parquet", "summary.csv", "summary.parquet"}) {
			t.Fatalf("files %v", got)
		}
		if first == nil {
			first = files
			continue
		}
		for _, name := range []string{"samples.parquet", "summary.parquet", "summary.csv"} {
			if !bytes.Equal(files[name], first[name]) {
				t.Errorf("%s: %s differs from the first collection", o.name, name)
			}
		}
	}
}

func TestCollectOutputFolder(t *testing.T) {
	schema := bench.New().Schema()
	jobs := runtest.BenchJobs(t, "s", 1, []runtest.Point{{"size": 1}}, 2)
	dir := t.TempDir()
	parts := filepath.Join(dir, "parts")
	runtest.StorePart(t, parts, "p", schema, "r", runtest.RunBench(t, jobs[:1], "w", time.Unix(0, 0)))
	out := filepath.Join(dir, "res", "s", "r")
	in := collect.Input{RunID: "r", Model: schema, Jobs: jobs}
	res, err := collect.Collect(context.Background(), runtest.DirSource{Dir: parts}, in, out)
	if err != nil || res.Missing != 1 {
		t.Fatalf("partial collect: %v %+v", err, res)
	}
	if _, err := collect.Collect(context.Background(), runtest.DirSource{Dir: parts}, in, out); err == nil {
		t.Errorf("collect over an existing folder without Replace succeeded")
	}
	runtest.StorePart(t, parts, "q", schema, "r", runtest.RunBench(t, jobs[1:], "w", time.Unix(0, 0)))
	in.Replace = true
	res, err = collect.Collect(context.Background(), runtest.DirSource{Dir: parts}, in, out)
	if err != nil || res.Missing != 0 || res.OK != 2 {
		t.Fatalf("replace: %v %+v", err, res)
	}
	es, _ := os.ReadDir(filepath.Dir(out))
	if len(es) != 1 || es[0].Name() != "r" {
		var names []string
		for _, e := range es {
			names = append(names, e.Name())
		}
		t.Errorf("leftovers next to the output: %v", names)
	}
	// Errors leave nothing behind.
	bad := in
	bad.Jobs = append(slices.Clone(jobs), jobs[0])
	bad.Jobs[2].Sweep = "other"
	if _, err := collect.Collect(context.Background(), runtest.DirSource{Dir: parts}, bad, filepath.Join(dir, "res", "s", "r2")); err == nil {
		t.Errorf("mixed sweeps accepted")
	}
	if _, err := os.Stat(filepath.Join(dir, "res", "s", "r2")); err == nil {
		t.Errorf("failed collect left a folder")
	}
}

// TestSummaryCSVNeutralisesFormulas: a string cell that a spreadsheet would
// read as a formula (= + - @, tab, CR first) is written with a leading
// quote; a number cell is written as it is.
func TestSummaryCSVNeutralisesFormulas(t *testing.T) {
	schema := bench.New().Schema()
	variants := []string{"=cmd|' /C calc'!A0", "+1+1", "-2+3", "@SUM(A1)", "\tx", "\r=1+1", "plain"}
	var pts []runtest.Point
	for _, v := range variants {
		pts = append(pts, runtest.Point{"variant": v, "noise": 0.5})
	}
	jobs := runtest.BenchJobs(t, "s", 1, pts, 1)
	rows := runtest.RunBench(t, jobs, "w", time.Unix(0, 0))
	dir := t.TempDir()
	runtest.StorePart(t, filepath.Join(dir, "parts"), "p", schema, "r", rows)
	out := filepath.Join(dir, "out")
	if _, err := collect.Collect(context.Background(), runtest.DirSource{Dir: filepath.Join(dir, "parts")},
		collect.Input{RunID: "r", Model: schema, Jobs: jobs}, out); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(out, "summary.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	vi, ni := slices.Index(recs[0], "variant"), slices.Index(recs[0], "noise")
	var got []string
	for _, r := range recs[1:] {
		got = append(got, r[vi])
		if r[ni] != "0.5" {
			t.Errorf("noise cell %q, want 0.5", r[ni])
		}
	}
	// encoding/csv's writer (CRLF lines) drops a lone carriage return, so
	// "\r=1+1" would reach the file as a formula.
	want := []string{"'=cmd|' /C calc'!A0", "'+1+1", "'-2+3", "'@SUM(A1)", "'\tx", "'=1+1", "plain"}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("variant cells %q, want %q", got, want)
	}
}
