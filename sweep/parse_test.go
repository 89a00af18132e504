package sweep

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestBadFiles checks that each file of testdata/bad reports its mistake at
// the right position, with the right suggestion. Files named x_* parse and
// fail only when expanded.
func TestBadFiles(t *testing.T) {
	tests := map[string][]string{
		"unknown_top_key":        {"unknown_top_key.yaml:4:1: replicatse: unknown key", `did you mean "replicates"?`},
		"unknown_sweeps_key":     {"unknown_sweeps_key.yaml:5:5: sweeps[0].axis: unknown key", `did you mean "axes"?`},
		"unknown_axis_key":       {"unknown_axis_key.yaml:6:5: a.axes[0].vales: unknown key", `did you mean "values"?`},
		"unknown_range_key":      {"unknown_range_key.yaml:6:33: a.axes[0].load.range.stpe: unknown key", `did you mean "step"?`},
		"unknown_param":          {"unknown_param.yaml:6:3: a.params.dc_rato: unknown parameter \"dc_rato\" of model \"toy\"", `did you mean "dc_ratio"?`},
		"exclude_unknown_param":  {"exclude_unknown_param.yaml:8:6: a.exclude[0].sise: unknown parameter", `did you mean "size"?`},
		"wrong_type_int":         {"wrong_type_int.yaml:6:6: a.params.n: parameter \"n\": 1.5 is not an integer"},
		"wrong_type_string":      {"wrong_type_string.yaml:5:9: a.params.load: parameter \"load\": want float, got the string \"high\""},
		"out_of_range":           {"out_of_range.yaml:6:19: a.axes[0].load.values[1]: parameter \"load\": 1.5 is above the maximum 1"},
		"range_out_of_range":     {"range_out_of_range.yaml:6:12: a.axes[0].load.range: parameter \"load\": range point 3: 1.25 is above the maximum 1"},
		"not_in_enum":            {"not_in_enum.yaml:7:20: a.axes[0].algorithm.values[1]: parameter \"algorithm\": \"DASEFD\" is not one of FCFS, EDF, DASEDF", `did you mean "DASEDF"?`},
		"when_unknown_value":     {"when_unknown_value.yaml:9:7: a.axes[0].algorithm.when.DASEFD:", `did you mean "DASEDF"?`},
		"empty_axes":             {"empty_axes.yaml:4:7: a.axes: empty list of axes"},
		"empty_values":           {"empty_values.yaml:6:13: a.axes[0].size.values: empty list"},
		"empty_range":            {"empty_range.yaml:6:12: a.axes[0].load.range: range from 0.9 to 0.1 by step 0.1 has no points"},
		"zip_unequal":            {"zip_unequal.yaml:6:7: a.axes[0].zip: zip lists differ in length: load has 2 values (line 6), dc_ratio has 3 (line 7)"},
		"range_and_values":       {"range_and_values.yaml:7:5: a.axes[0].load.range: an axis has either \"values\" or \"range\""},
		"unknown_model":          {"unknown_model.yaml:2:8: a.model: unknown model \"benhc\"", `did you mean "bench"?`},
		"missing_model":          {"missing_model.yaml:1:1: a: missing required key \"model\"", "one of: bench, toy"},
		"missing_seed":           {"missing_seed.yaml:1:1: a: missing required key \"seed\""},
		"negative_seed":          {"negative_seed.yaml:3:7: a.seed: want an unsigned 64-bit integer"},
		"missing_required_param": {"missing_required_param.yaml:1:1: a: parameter \"load\" of model \"toy\" is required"},
		"bad_name":               {"bad_name.yaml:1:7: name: bad sweep name \"Fig 3\""},
		"duplicate_param":        {"duplicate_param.yaml:7:11: a.axes[0].load: parameter \"load\" is set twice: here (axis) and at line 5 (params)"},
		"duplicate_key":          {"duplicate_key.yaml:4:1: seed: key given twice (first at line 3)"},
		"duplicate_sweep":        {"duplicate_sweep.yaml:5:5: a: duplicate sweep name (first at line 2)"},
		"fixed_list":             {"fixed_list.yaml:5:9: a.params.size: a fixed parameter takes one value, got a list", "make it an axis"},
		"expr_syntax":            {"expr_syntax.yaml:6:22: a.derive.avg_d: expected a number, a name or \"(\", found \"*\""},
		"expr_unknown_name":      {"expr_unknown_name.yaml:6:10: a.derive.avg_d: unknown name \"dc_rato\"", `did you mean "dc_ratio"?`},
		"expr_unknown_func":      {"expr_unknown_func.yaml:6:11: a.derive.avg_d: unknown function \"sqr\"", `did you mean "sqrt"?`},
		"expr_type":              {"expr_type.yaml:6:14: a.derive.algorithm: expression gives a number, parameter \"algorithm\" is string"},
		"derive_cycle":           {"derive_cycle.yaml:6:3: a.derive.avg_d: derive cycle: avg_d -> dc_ratio -> avg_d"},
		"yaml_syntax":            {"yaml_syntax.yaml:5: YAML syntax:"},
		"two_documents":          {"two_documents.yaml:4:1: a sweep file holds one YAML document"},
		"many_errors": {
			"many_errors.yaml:6:7: a.params.sise: unknown parameter", `did you mean "size"?`,
			"\n", "many_errors.yaml:12:18: b.axes[0].fail.values[0]", `did you mean "never"?`,
		},
		"x_duplicate_point":     {"x_duplicate_point.yaml:5:5: a.axes[0].size: duplicate point: size=1 (line 5, value #3) gives the same parameters (and job IDs) as size=1 (line 5, value #1)"},
		"x_exclude_unmatched":   {"x_exclude_unmatched.yaml:8:5: a.exclude[0]: exclusion matches no point"},
		"x_derive_not_integer":  {"x_derive_not_integer.yaml:8:3: a.derive.n: n = load * 10: result 2.5 is not an integer", "load=0.25 (line 5, value #1)"},
		"x_derive_out_of_range": {"x_derive_out_of_range.yaml:8:3: a.derive.dc_ratio: dc_ratio = 1 - load: 0.5 is below the minimum 1"},
		"x_too_many_jobs":       {"x_too_many_jobs.yaml:1:1: a: sweep expands to 100000 jobs, over the limit of 99999", "pass --max-jobs 100000"},
	}
	files, err := filepath.Glob("testdata/bad/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(tests) {
		t.Errorf("%d files in testdata/bad, %d test cases", len(files), len(tests))
	}
	reg := testRegistry(t)
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".yaml")
		t.Run(name, func(t *testing.T) {
			want, ok := tests[name]
			if !ok {
				t.Fatalf("no test case for %s", path)
			}
			f, err := Load(path, reg)
			if strings.HasPrefix(name, "x_") {
				if err != nil {
					t.Fatalf("parse: %v", err)
				}
				_, err = f.Expand(99_999)
			} else if f != nil {
				t.Fatal("Parse returned a file and an error")
			}
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			for _, w := range want {
				if !strings.Contains(msg, "testdata/bad/"+w) && !strings.Contains(msg, w) {
					t.Errorf("error does not contain %q:\n%s", w, msg)
				}
			}
			if !strings.Contains(msg, "testdata/bad/"+name+".yaml:") {
				t.Errorf("error does not name the file: %s", msg)
			}
			var e *Error
			if !errors.As(err, &e) || e.File != path || e.Line == 0 {
				t.Errorf("error is not an *Error with a position: %#v", err)
			}
			if !strings.HasPrefix(name, "x_") && !strings.HasPrefix(name, "many") && strings.Count(msg, "\n") > 0 {
				t.Errorf("one mistake, several errors:\n%s", msg)
			}
		})
	}
}

func TestErrorListCollectsAll(t *testing.T) {
	text, err := os.ReadFile("testdata/bad/many_errors.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Parse("many.yaml", text, testRegistry(t))
	var list ErrorList
	if !errors.As(err, &list) || len(list) != 2 {
		t.Fatalf("want an ErrorList of 2, got %#v", err)
	}
	if list[0].Key != "a.params.sise" || list[0].Hint != `did you mean "size"?` || list[0].Line != 6 || list[0].Col != 7 {
		t.Errorf("first error: %+v", *list[0])
	}
}

func TestTooManyJobs(t *testing.T) {
	reg := testRegistry(t)
	f, err := Load("testdata/bad/x_too_many_jobs.yaml", reg)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := f.Sweeps[0].Count(); err != nil || n != 100_000 {
		t.Fatalf("Count = %d, %v", n, err)
	}
	_, err = f.Sweeps[0].Expand(1000)
	if !errors.Is(err, ErrTooManyJobs) || !strings.Contains(err.Error(), "pass --max-jobs 100000") {
		t.Errorf("Sweep.Expand: %v", err)
	}
	// The file limit applies to the total of its sweeps.
	two := `sweeps:
  - {name: a, model: bench, seed: 1, axes: [{name: size, range: {from: 1, to: 60, step: 1}}]}
  - {name: b, model: bench, seed: 1, axes: [{name: size, range: {from: 1, to: 60, step: 1}}]}
`
	f, err = Parse("two.yaml", []byte(two), reg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Expand(100); !errors.Is(err, ErrTooManyJobs) || !strings.Contains(err.Error(), "120") {
		t.Errorf("File.Expand: %v", err)
	}
	if jobs, err := f.Expand(120); err != nil || len(jobs) != 120 {
		t.Errorf("File.Expand(120): %d jobs, %v", len(jobs), err)
	}
	// With exclusions the count is found by enumeration and stops early.
	excl := `{name: a, model: bench, seed: 1, replicates: 3,
  axes: [{name: size, range: {from: 1, to: 1000, step: 1}}, {name: rows, range: {from: 0, to: 999, step: 1}}],
  exclude: [{size: 1}]}`
	f, err = Parse("excl.yaml", []byte(excl), reg)
	if err != nil {
		t.Fatal(err)
	}
	_, err = f.Expand(0)
	if !errors.Is(err, ErrTooManyJobs) || !strings.Contains(err.Error(), "more than 1000000 (at most 3000000 before exclusions)") {
		t.Errorf("Expand with exclusions: %v", err)
	}
}

func TestDidYouMean(t *testing.T) {
	valid := []string{"dc_ratio", "load", "n", "X", "T", "algorithm", "delta", "rho"}
	tests := []struct{ in, want string }{
		{"dc_rato", "dc_ratio"},
		{"dcratio", "dc_ratio"},
		{"lod", "load"},
		{"laod", "load"},
		{"x", "X"},
		{"algoritm", "algorithm"},
		{"detla", "delta"},
		{"zzzzzz", ""},
		{"speed", ""},
	}
	for _, tt := range tests {
		if got := closest(tt.in, valid); got != tt.want {
			t.Errorf("closest(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestExtensionKeysAndMerge(t *testing.T) {
	f, err := Load("testdata/good/multi.yaml", testRegistry(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Sweeps) != 2 || f.Sweeps[1].Model != "bench" || f.Sweeps[1].Seed != 11 || f.Sweeps[1].Replicates != 3 {
		t.Fatalf("sweeps: %+v", f.Sweeps)
	}
	if f.Sweeps[1].Figures == nil || f.Sweeps[1].Claims == nil || f.Sweeps[0].Figures != nil {
		t.Error("figures and claims are not kept raw")
	}
}

// TestHostileInputs checks that files built to explode (an alias bomb
// through "when", a huge sweep whose exclusions drop nearly everything)
// fail with an error instead of hanging (bounded work: the node count and
// the job limit stop them; go test -timeout catches a hang).
func TestHostileInputs(t *testing.T) {
	reg := testRegistry(t)
	var b strings.Builder
	b.WriteString("x-a0: &a0 [{name: variant, values: [a]}]\n")
	for i, p := range []string{"size", "rows", "work_ms", "noise"} {
		var vals, when []string
		for v := range 300 {
			vals = append(vals, strconv.Itoa(v))
			when = append(when, fmt.Sprintf("%d: *a%d", v, i))
		}
		fmt.Fprintf(&b, "x-a%d: &a%d [{name: %s, values: [%s], when: {%s}}]\n", i+1, i+1, p, strings.Join(vals, ", "), strings.Join(when, ", "))
	}
	b.WriteString("name: a\nmodel: bench\nseed: 1\naxes: *a4\n")
	_, err := Parse("bomb.yaml", []byte(b.String()), reg)
	if err == nil || !strings.Contains(err.Error(), "file too large after alias expansion") {
		t.Errorf("alias bomb: %v", err)
	}
	huge := `{name: a, model: bench, seed: 1, exclude: [{fail: never}],
  axes: [{name: size, range: {from: 1, to: 100000, step: 1}}, {name: rows, range: {from: 1, to: 100000, step: 1}}]}`
	f, err := Parse("huge.yaml", []byte(huge), reg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Expand(1000); !errors.Is(err, ErrTooManyJobs) {
		t.Errorf("huge sweep: %v", err)
	}
}

// TestParamLine checks where ParamLine places a parameter: the line that
// sets it in params, an axis or derive, or the sweep's own line when the
// sweep keeps the default.
func TestParamLine(t *testing.T) {
	text := `sweeps:
  - name: a
    model: toy
    seed: 1
    params:
      n: 8
    axes:
      - name: load
        values: [0.5, 0.9]
    derive:
      avg_d: load * 2
`
	f, err := Parse("lines.yaml", []byte(text), testRegistry(t))
	if err != nil {
		t.Fatal(err)
	}
	s := f.Sweeps[0]
	for _, c := range []struct {
		name string
		line int
		set  bool
	}{{"n", 6, true}, {"load", 8, true}, {"avg_d", 11, true}, {"algorithm", 2, false}, {"no_such", 2, false}} {
		if line, set := s.ParamLine(c.name); line != c.line || set != c.set {
			t.Errorf("ParamLine(%q) = %d, %v; want %d, %v", c.name, line, set, c.line, c.set)
		}
	}
}
