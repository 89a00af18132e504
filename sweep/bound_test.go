package sweep

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// These tests bound the work of an expansion per point by counting it (the
// walker's workCount), never by timing it: exclude lookups and derive
// evaluation steps. In an attack on the farm, before the bound, 20,000
// exclude entries × 100,000 points took 29 s, a 1.4 MB derive expression ×
// 500 points 30 s.

// walkWork walks every point of s as Count, Expand and ExpandRun do and
// returns the points enumerated (excluded ones included) and the work.
func walkWork(t *testing.T, s *Sweep) (int, workCount, error) {
	t.Helper()
	w := s.newWalker(t.Context())
	err := w.run(func(*walker, []any) error { return nil }, 0)
	return w.ordinal, w.work, err
}

// parseOne parses a one-sweep file.
func parseOne(t *testing.T, name, text string) (*Sweep, error) {
	t.Helper()
	f, err := Parse(name, []byte(text), testRegistry(t))
	if err != nil {
		return nil, err
	}
	return f.Sweeps[0], nil
}

// TestExcludeWorkPerPoint is the attack's example: 20,000 exclude entries
// over 100,000 points. Each point costs one lookup per set of parameters
// the entries name (here one), not one comparison per entry.
func TestExcludeWorkPerPoint(t *testing.T) {
	var b strings.Builder
	b.WriteString("name: a\nmodel: bench\nseed: 1\naxes:\n")
	b.WriteString("  - {name: size, range: {from: 1, to: 100, step: 1}}\n")
	b.WriteString("  - {name: rows, range: {from: 1, to: 1000, step: 1}}\n")
	b.WriteString("exclude:\n")
	entries := 0
	for size := 1; size <= 100; size++ {
		for rows := 1; rows <= 1000; rows++ {
			if (size+rows)%5 == 0 {
				fmt.Fprintf(&b, "  - {rows: %d, size: %d}\n", rows, size)
				entries++
			}
		}
	}
	s, err := parseOne(t, "x.yaml", b.String())
	if err != nil {
		t.Fatal(err)
	}
	points, work, err := walkWork(t, s)
	if err != nil {
		t.Fatal(err)
	}
	if points != 100_000 || entries != 20_000 {
		t.Fatalf("%d points, %d entries", points, entries)
	}
	if per := float64(work.excludeProbes) / float64(points); per > 1 {
		t.Errorf("%d entries × %d points: %.1f exclude comparisons per point (%v), want 1 (one set of parameters)",
			entries, points, per, work)
	}
	n, err := s.Count()
	if err != nil || n != 80_000 {
		t.Errorf("Count = %d, %v; want 80000", n, err)
	}
}

// TestExcludeKeySetCap: a point costs one lookup per distinct set of
// parameters the entries name, so the sets are capped; the entry that
// names one set too many is refused at its position, naming the cap.
func TestExcludeKeySetCap(t *testing.T) {
	others := []string{"rows: 0", "work_ms: 0", "noise: 1", "variant: a", "fail: never"}
	sweep := func(sets int) string {
		var b strings.Builder
		fmt.Fprintf(&b, "name: a\nmodel: bench\nseed: 1\naxes:\n  - {name: size, range: {from: 1, to: %d, step: 1}}\nexclude:\n", sets)
		for k := range sets {
			// Entry k matches the point size=k+1 only, with the
			// subset k of the other parameters (at their defaults).
			keys := []string{fmt.Sprintf("size: %d", k+1)}
			for j, o := range others {
				if k&(1<<j) != 0 {
					keys = append(keys, o)
				}
			}
			fmt.Fprintf(&b, "  - {%s}\n", strings.Join(keys, ", "))
		}
		return b.String()
	}
	s, err := parseOne(t, "cap.yaml", sweep(maxExcludeKeySets))
	if err != nil {
		t.Fatal(err)
	}
	points, work, err := walkWork(t, s)
	if err != nil {
		t.Fatal(err)
	}
	if per := work.excludeProbes / points; per > maxExcludeKeySets {
		t.Errorf("%d sets of parameters: %d exclude comparisons per point, over the cap %d", maxExcludeKeySets, per, maxExcludeKeySets)
	}
	_, err = parseOne(t, "cap.yaml", sweep(maxExcludeKeySets+1))
	// The 17th entry (entry 16) names size and fail, on line 23.
	want := fmt.Sprintf("cap.yaml:%d:5: a.exclude[%d]: exclusion names {fail, size}, a set of parameters beyond the limit of %d distinct sets per sweep",
		7+maxExcludeKeySets, maxExcludeKeySets, maxExcludeKeySets)
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "; make the entries name the same parameters") {
		t.Errorf("%d sets of parameters: err = %v\nwant %q and a hint", maxExcludeKeySets+1, err, want)
	}
}

// TestExcludeMatchesLikeAScan checks the index against the definition: a
// point is dropped when every key of some entry matches it, and counts for
// the first such entry in file order (an entry that only ever comes second
// "matches no point", an error). Random entries over several sets of
// parameters, integer, float (with -0), string and bool-free mixes.
func TestExcludeMatchesLikeAScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(44, 9))
	axes := `axes:
  - {name: size, values: [1, 2, 3]}
  - {name: noise, values: [0, 0.5]}
  - {name: variant, values: [a, b]}
  - {name: rows, values: [0, 7]}
`
	vals := map[string][]string{"size": {"1", "2", "3"}, "noise": {"0", "-0.0", "0.5"}, "variant": {"a", "b"}, "rows": {"0", "7"}}
	names := []string{"size", "noise", "variant", "rows"}
	for trial := range 200 {
		var b strings.Builder
		b.WriteString("name: a\nmodel: bench\nseed: 1\n" + axes + "exclude:\n")
		type entry map[string]string
		var entries []entry
		for range 1 + rng.IntN(6) {
			e := entry{}
			for _, n := range names {
				if rng.IntN(3) == 0 {
					e[n] = vals[n][rng.IntN(len(vals[n]))]
				}
			}
			if len(e) == 0 {
				e["size"] = "2"
			}
			var kv []string
			for _, n := range names {
				if v, ok := e[n]; ok {
					kv = append(kv, n+": "+v)
				}
			}
			rng.Shuffle(len(kv), func(i, j int) { kv[i], kv[j] = kv[j], kv[i] })
			fmt.Fprintf(&b, "  - {%s}\n", strings.Join(kv, ", "))
			entries = append(entries, e)
		}
		s, err := parseOne(t, "scan.yaml", b.String())
		if err != nil {
			t.Fatal(err)
		}
		// The reference: scan every entry, in order, at every point.
		var kept []string
		first := -1 // the first entry no point counts for
		credited := make([]bool, len(entries))
		for _, size := range vals["size"] {
			for _, noise := range []string{"0", "0.5"} {
				for _, variant := range vals["variant"] {
					for _, rows := range vals["rows"] {
						pt := map[string]string{"size": size, "noise": noise, "variant": variant, "rows": rows}
						dropped := false
						for i, e := range entries {
							match := true
							for n, v := range e {
								if v == "-0.0" {
									v = "0"
								}
								match = match && pt[n] == v
							}
							if match {
								credited[i], dropped = true, true
								break
							}
						}
						if !dropped {
							kept = append(kept, size+"/"+noise+"/"+variant+"/"+rows)
						}
					}
				}
			}
		}
		first = slices.Index(credited, false)
		jobs, err := s.Expand(0)
		switch {
		case first >= 0:
			want := fmt.Sprintf("a.exclude[%d]: exclusion matches no point", first)
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("trial %d:\n%s\nerr = %v, want %q", trial, b.String(), err, want)
			}
		case err != nil:
			t.Fatalf("trial %d:\n%s\nerr = %v", trial, b.String(), err)
		default:
			if got := column(jobs, "size", "noise", "variant", "rows"); !slices.Equal(got, kept) {
				t.Fatalf("trial %d:\n%s\njobs %v\nwant %v", trial, b.String(), got, kept)
			}
		}
	}
}

// TestDeriveWorkBounded: an expression is compiled once, when the file is
// parsed, and a point costs at most maxDeriveNodes evaluation steps in
// all; a file past the caps is refused at the expression, naming the cap,
// before any point is evaluated. The attack's 1.4 MB expression is here 64
// KiB (the same shape, a long sum).
func TestDeriveWorkBounded(t *testing.T) {
	// chain(m) reads "size - size + size ..." with 4m+1 nodes.
	chain := func(m int) string { return "size" + strings.Repeat(" - size + size", m) }
	file := func(derive ...string) string {
		return "name: a\nmodel: bench\nseed: 1\naxes:\n  - {name: size, values: [1, 2, 3, 4, 5]}\nderive:\n" + strings.Join(derive, "\n") + "\n"
	}
	tests := []struct {
		name, text string
		nodes      int    // the expressions' nodes, when accepted
		err        string // the error, when refused
	}{
		{"within the caps", file("  rows: " + chain(240)), 961, ""},
		{"two within the caps", file("  rows: "+chain(120), "  work_ms: "+chain(120)), 962, ""},
		{"64 KiB", file("  rows: " + chain(64<<10/14)), 0,
			"d.yaml:7:9: a.derive.rows: expression of 65538 bytes, over the limit of 4096 bytes (4 KiB) per expression; derive is for short formulas"},
		{"over the nodes in all", file("  rows: "+chain(240), "  work_ms: "+chain(100)), 0,
			"d.yaml:8:12: a.derive.work_ms: the sweep's derive expressions hold 1362 nodes up to this one, over the limit of 1000 in all"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := parseOne(t, "d.yaml", tt.text)
			if err != nil {
				if tt.err == "" || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %.300v\nwant %q", err, tt.err)
				}
				return
			}
			points, work, err := walkWork(t, s)
			if err != nil {
				t.Fatal(err)
			}
			if per := work.evalSteps / points; per > maxDeriveNodes {
				t.Errorf("%d evaluation steps per point (%v), over the cap %d", per, work, maxDeriveNodes)
			} else if per != tt.nodes {
				t.Errorf("%d evaluation steps per point, want %d", per, tt.nodes)
			}
			if tt.err != "" {
				t.Errorf("accepted, want the error %q", tt.err)
			}
		})
	}
}
