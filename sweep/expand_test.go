package sweep

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"schedfarm/simcore"
	"schedfarm/simcore/bench"
)

func loadGood(t *testing.T, name string) (*File, []Job) {
	t.Helper()
	f, err := Load("testdata/good/"+name, testRegistry(t))
	if err != nil {
		t.Fatal(err)
	}
	jobs, err := f.Expand(0)
	if err != nil {
		t.Fatal(err)
	}
	return f, jobs
}

// column returns "sweep:value" of one parameter for every job, for compact
// order checks.
func column(jobs []Job, names ...string) []string {
	out := make([]string, len(jobs))
	for i, j := range jobs {
		var parts []string
		for _, n := range names {
			parts = append(parts, label(j.Params[n]))
		}
		out[i] = strings.Join(parts, "/")
	}
	return out
}

func TestGoodFiles(t *testing.T) {
	tests := []struct {
		file   string
		counts map[string]int // jobs per sweep
		cols   []string       // parameters whose values are checked, in order
		want   []string       // the values of cols, job by job (nil: not checked)
	}{
		{"basic.yaml", map[string]int{"basic": 12}, []string{"size", "variant"},
			[]string{"1/a", "1/a", "1/b", "1/b", "2/a", "2/a", "2/b", "2/b", "3/a", "3/a", "3/b", "3/b"}},
		{"ranges.yaml", map[string]int{"step": 10, "log": 4, "factor": 7, "linear": 5, "intlog": 7}, nil, nil},
		{"zip.yaml", map[string]int{"zipped": 6}, []string{"load", "dc_ratio", "algorithm"},
			[]string{"0.1/2/FCFS", "0.1/2/EDF", "0.5/3/FCFS", "0.5/3/EDF", "0.9/4/FCFS", "0.9/4/EDF"}},
		{"when.yaml", map[string]int{"cond": 8}, []string{"algorithm", "X", "load"},
			[]string{"FCFS/0/0.5", "FCFS/0/0.9", "DASEDF/1/0.5", "DASEDF/1/0.9", "DASEDF/2/0.5", "DASEDF/2/0.9", "DASEDF/5/0.5", "DASEDF/5/0.9"}},
		{"derive.yaml", map[string]int{"derived": 2}, []string{"load", "n", "avg_d", "verbose"},
			[]string{"0.25/16/24/false", "0.5/32/1048/true"}},
		{"exclude.yaml", map[string]int{"excl": 3}, []string{"load", "algorithm"},
			[]string{"0.1/EDF", "0.5/FCFS", "0.5/EDF"}},
		{"multi.yaml", map[string]int{"first": 2, "second": 6}, []string{"size", "variant"},
			[]string{"1/a", "2/a", "5/x", "5/x", "5/x", "5/y", "5/y", "5/y"}},
		{"seeds.yaml", map[string]int{"seeds": 8}, nil, nil},
	}
	reg := testRegistry(t)
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			f, jobs := loadGood(t, tt.file)
			got := map[string]int{}
			for _, j := range jobs {
				if j.Index != got[j.Sweep] {
					t.Errorf("job %s/%d has index %d", j.Sweep, got[j.Sweep], j.Index)
				}
				got[j.Sweep]++
			}
			if !reflect.DeepEqual(got, tt.counts) {
				t.Errorf("jobs per sweep = %v, want %v", got, tt.counts)
			}
			for _, s := range f.Sweeps {
				if n, err := s.Count(); err != nil || n != tt.counts[s.Name] {
					t.Errorf("%s: Count = %d, %v; want %d", s.Name, n, err, tt.counts[s.Name])
				}
			}
			if tt.want != nil {
				if c := column(jobs, tt.cols...); !reflect.DeepEqual(c, tt.want) {
					t.Errorf("order:\n got %v\nwant %v", c, tt.want)
				}
			}
			// Params are complete and of their declared types.
			for _, j := range jobs {
				m, _ := reg.Lookup(j.Model)
				s := m.Schema()
				full, err := s.Complete(j.Params)
				if err != nil || !reflect.DeepEqual(full, j.Params) {
					t.Fatalf("job %d params %v not complete: %v", j.Index, j.Params, err)
				}
				if j.ID != JobID(j.Model, m.Version(), j.Params, j.Replicate, j.Seed) {
					t.Fatalf("job %d: ID does not match JobID", j.Index)
				}
				if f := findSweep(f, j.Sweep); j.Seed != InstanceSeed(f.Seed, j.Replicate, &s, j.Params) {
					t.Fatalf("job %d: seed does not match InstanceSeed", j.Index)
				}
			}
		})
	}
}

func findSweep(f *File, name string) *Sweep {
	for _, s := range f.Sweeps {
		if s.Name == name {
			return s
		}
	}
	return nil
}

func TestRangeFloats(t *testing.T) {
	_, jobs := loadGood(t, "ranges.yaml")
	bySweep := map[string][]any{}
	for _, j := range jobs {
		switch j.Sweep {
		case "step":
			bySweep[j.Sweep] = append(bySweep[j.Sweep], j.Params["load"])
		case "log", "linear":
			bySweep[j.Sweep] = append(bySweep[j.Sweep], j.Params["dc_ratio"])
		case "factor", "intlog":
			bySweep[j.Sweep] = append(bySweep[j.Sweep], j.Params["n"])
		}
	}
	want := map[string][]any{
		"step":   {0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0},
		"log":    {1.0, 10.0, 100.0, 1000.0},
		"linear": {1.0, 1.25, 1.5, 1.75, 2.0},
		"factor": {int64(1), int64(2), int64(4), int64(8), int64(16), int64(32), int64(64)},
		"intlog": {int64(1), int64(3), int64(10), int64(32), int64(100), int64(316), int64(1000)},
	}
	if !reflect.DeepEqual(bySweep, want) {
		t.Errorf("got  %v\nwant %v", bySweep, want)
	}
}

func TestRangePoints(t *testing.T) {
	tests := []struct {
		r    rangeSpec
		want []float64
	}{
		{rangeSpec{from: 0, to: 1, step: 0.1, hasStep: true}, []float64{0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1}},
		{rangeSpec{from: 1, to: 0.1, step: -0.1, hasStep: true}, []float64{1, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1}},
		{rangeSpec{from: 0.05, to: 0.3, step: 0.05, hasStep: true}, []float64{0.05, 0.1, 0.15, 0.2, 0.25, 0.3}},
		{rangeSpec{from: 1, to: 10, step: 4, hasStep: true}, []float64{1, 5, 9}},
		{rangeSpec{from: 3, to: 3, step: 1, hasStep: true}, []float64{3}},
		{rangeSpec{from: 1e-3, to: 1e3, num: 7, log: true, hasNum: true}, []float64{0.001, 0.01, 0.1, 1, 10, 100, 1000}},
		{rangeSpec{from: 0, to: 1, num: 4, hasNum: true}, []float64{0, 0.333333333333, 0.666666666667, 1}},
		{rangeSpec{from: 5, to: 9, num: 1, hasNum: true}, []float64{5}},
		{rangeSpec{from: 1, to: 0.001, factor: 0.1, hasFac: true}, []float64{1, 0.1, 0.01, 0.001}},
		{rangeSpec{from: 3, to: 100, factor: 3, hasFac: true}, []float64{3, 9, 27, 81}},
	}
	for _, tt := range tests {
		got, err := tt.r.points()
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s = %v, %v; want %v", tt.r.describe(), got, err, tt.want)
		}
	}
	for _, r := range []rangeSpec{
		{from: 0, to: 1, step: 0, hasStep: true},
		{from: 0, to: 1, step: -0.1, hasStep: true},
		{from: 0, to: 1, step: 1e-9, hasStep: true},
		{from: 0, to: 10, num: 3, log: true, hasNum: true},
		{from: 1, to: 10, factor: 1, hasFac: true},
		{from: 10, to: 1, factor: 2, hasFac: true},
	} {
		if got, err := r.points(); err == nil {
			t.Errorf("%s = %v, want an error", r.describe(), got)
		}
	}
}

func TestSeedsAndIDs(t *testing.T) {
	_, jobs := loadGood(t, "seeds.yaml")
	type key struct {
		size int64
		rep  int
	}
	seeds := map[key]uint64{}
	ids := map[string]bool{}
	for _, j := range jobs {
		k := key{j.Params.Int("size"), j.Replicate}
		if s, ok := seeds[k]; ok && s != j.Seed {
			t.Errorf("size=%d replicate %d: variant %s has seed %d, another variant %d (algorithms must share instances)",
				k.size, k.rep, j.Params.String("variant"), j.Seed, s)
		}
		seeds[k] = j.Seed
		if ids[j.ID.String()] {
			t.Errorf("duplicate ID %s", j.ID)
		}
		ids[j.ID.String()] = true
	}
	if seeds[key{1, 0}] == seeds[key{1, 1}] {
		t.Error("replicates 0 and 1 share a seed")
	}
	if seeds[key{1, 0}] == seeds[key{2, 0}] {
		t.Error("different workload points share a seed")
	}
	// A second parse gives the same jobs.
	_, again := loadGood(t, "seeds.yaml")
	if !reflect.DeepEqual(jobs, again) {
		t.Error("two expansions of one file differ")
	}
	// Golden values pin the encoding of IDs and seeds: if this fails, every
	// stored result would be orphaned. Do not update it lightly.
	golden := []struct {
		index int
		id    string
		seed  uint64
	}{
		{0, "df55c908-fc86-5029-9f8a-9e695bebe7dc", 16782984438424780879},
		{7, "208cf89b-75e4-56c2-a4ea-dad4a265527d", 574548318658736981},
	}
	for _, g := range golden {
		j := jobs[g.index]
		if j.ID.String() != g.id || j.Seed != g.seed {
			t.Errorf("job %d: id %s seed %d; golden id %s seed %d", g.index, j.ID, j.Seed, g.id, g.seed)
		}
	}
}

func TestDuplicatePointAcrossZipAndWhen(t *testing.T) {
	// X is set under DASEDF only; X=0 under DASEDF equals nothing else, but
	// a repeated algorithm value duplicates a whole branch.
	src := `{name: d, model: toy, seed: 1, params: {load: 0.5},
  axes: [{name: algorithm, values: [EDF, FCFS, EDF]}]}`
	f, err := Parse("d.yaml", []byte(src), testRegistry(t))
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Expand(0)
	if err == nil || !strings.Contains(err.Error(), "d.yaml:2:10: d.axes[0].algorithm: duplicate point: algorithm=EDF (line 2, value #3)") {
		t.Errorf("err = %v", err)
	}
}

func TestWhenBranchesMaySetOneParam(t *testing.T) {
	src := `
name: w
model: toy
seed: 1
params: {load: 0.5}
axes:
  - name: algorithm
    values: [EDF, DASEDF]
    when:
      EDF: [{name: X, values: [1]}]
      DASEDF: [{name: X, values: [2, 3]}]
  - name: n
    values: [4]
`
	reg := testRegistry(t)
	f, err := Parse("w.yaml", []byte(src), reg)
	if err != nil {
		t.Fatal(err)
	}
	jobs, err := f.Expand(0)
	if err != nil {
		t.Fatal(err)
	}
	if got := column(jobs, "algorithm", "X"); !reflect.DeepEqual(got, []string{"EDF/1", "DASEDF/2", "DASEDF/3"}) {
		t.Errorf("got %v", got)
	}
	// A later axis may not set what a branch sets.
	bad := strings.Replace(src, "name: n", "name: X", 1)
	_, err = Parse("w.yaml", []byte(bad), reg)
	if err == nil || !strings.Contains(err.Error(), `w.yaml:12:11: w.axes[1].X: parameter "X" is set twice: here (axis) and at line 10 (axis)`) {
		t.Errorf("err = %v", err)
	}
}

func TestTypingRules(t *testing.T) {
	reg := testRegistry(t)
	ok := []string{
		"{name: t, model: toy, seed: 1, params: {load: 1}}",                    // YAML int into a float
		"{name: t, model: toy, seed: 1, params: {load: 0.5, n: 4.0}}",          // integral float into an int
		"{name: t, model: toy, seed: 18446744073709551615, params: {load: 0}}", // full uint64 seed
		"{name: t, model: toy, seed: 0x10, params: {load: 0, verbose: true}}",
	}
	for _, src := range ok {
		if _, err := Parse("t.yaml", []byte(src), reg); err != nil {
			t.Errorf("%s: %v", src, err)
		}
	}
	bad := map[string]string{
		"{name: t, model: toy, seed: 1, params: {load: 0.5, n: 4.5}}":                                 "4.5 is not an integer",
		"{name: t, model: toy, seed: 1, params: {load: 0.5, algorithm: 1}}":                           "want string, got an integer",
		"{name: t, model: toy, seed: 1, params: {load: 0.5, verbose: 1}}":                             "want bool, got an integer",
		"{name: t, model: toy, seed: 1, params: {load: 0.5, n: null}}":                                "got nothing (null)",
		"{name: t, model: toy, seed: 1, params: {load: .nan}}":                                        "not a finite number",
		"{name: t, model: toy, seed: 1, params: {load: 0.5}, replicates: 0}":                          "replicates must be between 1",
		"{name: t, model: toy, seed: 1.5, params: {load: 0.5}}":                                       "want an unsigned 64-bit integer",
		"{name: t, model: toy, seed: 1, axes: [{name: algorithm, range: {from: 1, to: 2, step: 1}}]}": "a range needs a numeric parameter",
	}
	for src, want := range bad {
		_, err := Parse("t.yaml", []byte(src), reg)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want %q", src, err, want)
		}
	}
}

func TestDeriveReadsBranchParamDefault(t *testing.T) {
	// X is set only under DASEDF; elsewhere the derivation reads its default.
	src := `{name: d, model: toy, seed: 1, params: {load: 0.5},
  axes: [{name: algorithm, values: [FCFS, DASEDF], when: {DASEDF: [{name: X, values: [4]}]}}],
  derive: {n: "X + 1", avg_d: "algorithm == \"DASEDF\" ? 0.1 * 3 : 1/3"}}`
	f, err := Parse("d.yaml", []byte(src), testRegistry(t))
	if err != nil {
		t.Fatal(err)
	}
	jobs, err := f.Expand(0)
	if err != nil {
		t.Fatal(err)
	}
	if got := column(jobs, "n", "avg_d"); !reflect.DeepEqual(got, []string{"1/0.333333333333333", "5/0.3"}) {
		t.Errorf("got %v", got)
	}
}

// BenchmarkExpand_100k expands a 100,000-job sweep: 10,000 points of two
// range axes and one derived parameter, 10 replicates each.
func BenchmarkExpand_100k(b *testing.B) {
	src := `
name: big
model: bench
seed: 1
replicates: 10
axes:
  - name: size
    range: {from: 1, to: 100, step: 1}
  - name: work_ms
    range: {from: 0.01, to: 1, step: 0.01}
derive:
  noise: "sqrt(size) / 10"
`
	f, err := Parse("big.yaml", []byte(src), testRegistry(b))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		jobs, err := f.Expand(0)
		if err != nil || len(jobs) != 100_000 {
			b.Fatal(len(jobs), err)
		}
	}
}

func ExampleSweep_Expand() {
	src := `
name: example
model: bench
seed: 7
replicates: 2
axes:
  - name: size
    values: [1, 2]
`
	reg, _ := simcore.NewRegistry(bench.New())
	f, err := Parse("example.yaml", []byte(src), reg)
	if err != nil {
		fmt.Println(err)
		return
	}
	jobs, _ := f.Sweeps[0].Expand(0)
	for _, j := range jobs {
		fmt.Println(j.Index, j.Params["size"], j.Replicate)
	}
	// Output:
	// 0 1 0
	// 1 1 1
	// 2 2 0
	// 3 2 1
}
