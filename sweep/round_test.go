package sweep

import (
	"errors"
	"strings"
	"testing"
)

const adaptiveText = `x-point: &point
  model: toy
  seed: 5
  axes:
    - name: load
      values: [0.1, 0.5]
    - name: algorithm
      values: [FCFS, EDF, DASEDF]
  exclude:
    - {load: 0.1, algorithm: FCFS}
    - {algorithm: DASEDF, X: 0}
sweeps:
  - <<: *point
    name: adaptive
    replicates: {min: 2, max: 8}
  - <<: *point
    name: fixed
    replicates: 6
`

// TestExpandRunIdentity: the jobs rounds add are the jobs a fixed sweep of
// as many replicates has (same IDs, seeds and parameters), so a rerun of
// either finds the other's results done; they take the sweep's next
// indexes; and the order is rounds, then points, then replicates.
func TestExpandRunIdentity(t *testing.T) {
	f, err := Parse("a.yaml", []byte(adaptiveText), testRegistry(t))
	if err != nil {
		t.Fatal(err)
	}
	if s := f.Sweeps[0]; s.Replicates != 2 || s.MaxReplicates != 8 {
		t.Fatalf("replicates %d..%d, want 2..8", s.Replicates, s.MaxReplicates)
	}
	base, err := f.Expand(0)
	if err != nil {
		t.Fatal(err)
	}
	// The adaptive sweep's points: 3 remain after the exclusions.
	var points []int
	for _, j := range base {
		if j.Sweep == "adaptive" && j.Replicate == 0 {
			points = append(points, j.Point)
		}
	}
	if len(points) != 3 {
		t.Fatalf("points %v, want 3", points)
	}
	rounds := []Round{
		{Sweep: "adaptive", From: 2, To: 4, Points: []int{points[0], points[2]}},
		{Sweep: "adaptive", From: 4, To: 6, Points: []int{points[2]}},
	}
	jobs, err := f.ExpandRun(0, rounds)
	if err != nil {
		t.Fatal(err)
	}
	added := jobs[len(base):]
	if len(added) != 6 {
		t.Fatalf("%d jobs added, want 6", len(added))
	}
	fixed := map[[2]int]Job{} // (point, replicate) → job of the fixed sweep
	for _, j := range base {
		if j.Sweep == "fixed" {
			fixed[[2]int{j.Point, j.Replicate}] = j
		}
	}
	nAdaptive := 6 // 3 points × 2
	for i, j := range added {
		want := fixed[[2]int{j.Point, j.Replicate}]
		if j.Sweep != "adaptive" || j.Index != nAdaptive+i {
			t.Errorf("added job %d: sweep %s index %d, want adaptive %d", i, j.Sweep, j.Index, nAdaptive+i)
		}
		if j.Seed != want.Seed || j.ID != want.ID || label(j.Params["load"]) != label(want.Params["load"]) {
			t.Errorf("added job %d (point %d replicate %d) differs from the fixed sweep's", i, j.Point, j.Replicate)
		}
	}
	var order []string
	for _, j := range added {
		order = append(order, label(j.Point)+"/"+label(j.Replicate))
	}
	want := []string{label(points[0]) + "/2", label(points[0]) + "/3", label(points[2]) + "/2", label(points[2]) + "/3", label(points[2]) + "/4", label(points[2]) + "/5"}
	if strings.Join(order, " ") != strings.Join(want, " ") {
		t.Errorf("order %v, want %v", order, want)
	}
}

// TestExpandRunRefusesBadRounds: a round that does not continue its points'
// replicates, names no adaptive sweep, goes over max, or over the job
// limit is refused.
func TestExpandRunRefusesBadRounds(t *testing.T) {
	f, err := Parse("a.yaml", []byte(adaptiveText), testRegistry(t))
	if err != nil {
		t.Fatal(err)
	}
	base, _ := f.Expand(0)
	p0 := base[0].Point
	var points []int
	for _, j := range base {
		if j.Sweep == "adaptive" && j.Replicate == 0 {
			points = append(points, j.Point)
		}
	}
	tests := []struct {
		name   string
		rounds []Round
		max    int
		want   string
	}{
		{"gap", []Round{{Sweep: "adaptive", From: 3, To: 4, Points: []int{p0}}}, 0, "has 2 replicates, not 3"},
		{"fixed sweep", []Round{{Sweep: "fixed", From: 6, To: 7, Points: []int{p0}}}, 0, "fixed replicate count"},
		{"unknown sweep", []Round{{Sweep: "nope", From: 2, To: 3, Points: []int{p0}}}, 0, "no sweep"},
		{"over max", []Round{{Sweep: "adaptive", From: 2, To: 9, Points: []int{p0}}}, 0, "outside 1–8"},
		{"unsorted", []Round{{Sweep: "adaptive", From: 2, To: 3, Points: []int{5, 1}}}, 0, "ascending"},
		{"no such point", []Round{{Sweep: "adaptive", From: 2, To: 3, Points: []int{0}}}, 0, "has 0 replicates"},
		{"twice", []Round{{Sweep: "adaptive", From: 2, To: 4, Points: []int{p0}}, {Sweep: "adaptive", From: 2, To: 4, Points: []int{p0}}}, 0, "has 4 replicates, not 2"},
		{"limit", []Round{{Sweep: "adaptive", From: 2, To: 8, Points: points}}, 35, "over its limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := f.ExpandRun(tt.max, tt.rounds)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err %v, want %q", err, tt.want)
			}
			if tt.name == "limit" && !errors.Is(err, ErrTooManyJobs) {
				t.Errorf("err %v does not wrap ErrTooManyJobs", err)
			}
		})
	}
}

func TestAdaptiveReplicatesParse(t *testing.T) {
	head := "name: s\nmodel: toy\nseed: 1\naxes:\n  - name: load\n    values: [0.1]\n"
	tests := []struct {
		reps     string
		min, max int
		err      string
	}{
		{"3", 3, 0, ""},
		{"{min: 20, max: 320}", 20, 320, ""},
		{"{min: 5, max: 5}", 5, 0, ""},
		{"{min: 20}", 0, 0, "need both min and max"},
		{"{min: 30, max: 20}", 0, 0, "max (20) is below min (30)"},
		{"{min: 0, max: 20}", 0, 0, "between 1 and"},
		{"{min: 2, most: 20}", 0, 0, "unknown key \"most\""},
		{"[2, 20]", 0, 0, "want an integer"},
	}
	for _, tt := range tests {
		t.Run(tt.reps, func(t *testing.T) {
			f, err := Parse("r.yaml", []byte(head+"replicates: "+tt.reps+"\n"), testRegistry(t))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s := f.Sweeps[0]; s.Replicates != tt.min || s.MaxReplicates != tt.max {
				t.Errorf("got %d..%d, want %d..%d", s.Replicates, s.MaxReplicates, tt.min, tt.max)
			}
		})
	}
}
