package dssp

import (
	"bytes"
	"os"
	"reflect"
	"strings"
	"testing"
)

func TestReadCSVFile(t *testing.T) {
	f, err := os.Open("testdata/two_nights.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	nights, err := ReadCSV(f, "two_nights.csv")
	if err != nil {
		t.Fatal(err)
	}
	want := []Night{
		{ID: 1, Jobs: []Job{
			{ID: 10, Priority: 50, Team: 0, Stages: [][]float64{{2, 2}, {2, 2}}, T1Est: 9, TInfEst: 4.5},
			{ID: 11, Priority: 250, Team: 1, Stages: [][]float64{{1.5, 1.5}, {1.5, 1.5}}, T1Est: 6, TInfEst: 3},
		}},
		{ID: 2, Jobs: []Job{
			{ID: 1, Priority: 10, Stages: [][]float64{{13.5}}, T1Est: 13.5, TInfEst: 13.5},
			// Rows out of order; stage numbers 1 and 3 become stages 1 and 2.
			{ID: 2, Priority: 120, Team: 1, Stages: [][]float64{{0.5, 0.5}, {0.25}}, T1Est: 1.2, TInfEst: 0.7},
		}},
	}
	if !reflect.DeepEqual(nights, want) {
		t.Fatalf("got %+v\nwant %+v", nights, want)
	}
}

func TestReadCSVErrors(t *testing.T) {
	const h = "night,job,stage,task,length_h,priority\n"
	cases := []struct{ name, in, want string }{
		{"empty", "", "empty file"},
		{"header only", h, "no task rows"},
		{"unknown column", "night,job,stage,task,length,priority\n", `unknown column "length"`},
		{"missing column", "night,job,stage,task,length_h\n1,1,1,1,1\n", `missing column "priority"`},
		{"duplicate column", "night,job,job,stage,task,length_h,priority\n", `column "job" appears twice`},
		{"half estimates", "night,job,stage,task,length_h,priority,t1_est_h\n", "come together"},
		{"bad length", h + "1,1,1,1,abc,3\n", `x.csv:2: length_h: "abc" is not a positive number`},
		{"zero length", h + "1,1,1,1,0,3\n", "length_h"},
		{"nan length", h + "1,1,1,1,NaN,3\n", "length_h"},
		{"stage zero", h + "1,1,0,1,1,3\n", "stage"},
		{"priority 500", h + "1,1,1,1,1,500\n", `priority: "500" is not an integer in 0..499`},
		{"field count", h + "1,1,1,1,1\n", "x.csv:2: wrong number of fields"},
		{"priority disagrees", h + "1,1,1,1,1,3\n1,1,1,2,1,4\n", "x.csv:3: priority 4 of night 1 job 1 disagrees with 3 on line 2"},
		{"duplicate task", h + "1,1,1,1,1,3\n# comment\n1,1,2,1,1,3\n", "x.csv:4: task 1 of night 1 job 1 already on line 2"},
		{"negative job", h + "1,-1,1,1,1,3\n", "job"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ReadCSV(strings.NewReader(c.in), "x.csv")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want it to contain %q", err, c.want)
			}
		})
	}
}

func TestCSVRoundTrip(t *testing.T) {
	g := DefaultGenerator()
	g.Nights = 3
	nights := g.Trace(1)
	var b bytes.Buffer
	if err := WriteCSV(&b, nights); err != nil {
		t.Fatal(err)
	}
	got, err := ReadCSV(&b, "gen.csv")
	if err != nil {
		t.Fatal(err)
	}
	// The file renumbers tasks, keeps everything the model uses.
	for n := range nights {
		sortJobs(nights[n].Jobs)
	}
	if !reflect.DeepEqual(got, nights) {
		t.Fatal("round trip through the night file changed the nights")
	}
}

func sortJobs(jobs []Job) {
	for i := 1; i < len(jobs); i++ {
		for k := i; k > 0 && jobs[k].ID < jobs[k-1].ID; k-- {
			jobs[k], jobs[k-1] = jobs[k-1], jobs[k]
		}
	}
}

// FuzzReadCSV: the parser never panics; what it accepts is a valid set of
// nights that survives a write and a second read unchanged.
func FuzzReadCSV(f *testing.F) {
	seed, _ := os.ReadFile("testdata/two_nights.csv")
	f.Add(string(seed))
	f.Add("night,job,stage,task,length_h,priority\n1,1,1,1,1,3\n")
	f.Add("night,job,stage,task,length_h,priority,team\n0,0,2,0,1e-300,0,7\n0,0,1,5,2,0,7\n")
	f.Add("night,job,stage,task,length_h,priority\n\"1\",1,1,1,1,3\n")
	f.Fuzz(func(t *testing.T, in string) {
		nights, err := ReadCSV(strings.NewReader(in), "fuzz.csv")
		if err != nil {
			return
		}
		for n := range nights {
			if err := nights[n].Validate(); err != nil {
				t.Fatalf("accepted an invalid night: %v", err)
			}
		}
		var b bytes.Buffer
		if err := WriteCSV(&b, nights); err != nil {
			t.Fatal(err)
		}
		again, err := ReadCSV(&b, "again.csv")
		if err != nil {
			t.Fatalf("re-reading the written file: %v", err)
		}
		if !reflect.DeepEqual(again, nights) {
			t.Fatalf("round trip changed the nights")
		}
	})
}
