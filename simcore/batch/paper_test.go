package batch

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"schedfarm/internal/datatest"
	"schedfarm/simcore"
)

// paperCell is one published cell of Tables 3-6: the average response time
// (weighted or not) and the percentage column as printed.
type paperCell struct {
	value, pct float64
}

// readPublished reads configs/published/krallmann1999_art.csv (Tables 3-6
// as published): key "table/weighting/order/executor".
func readPublished(t *testing.T) map[string]paperCell {
	t.Helper()
	f, err := os.Open(filepath.Join(datatest.Root(t), "configs", "published", "krallmann1999_art.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comment = '#'
	r.FieldsPerRecord = -1
	out := map[string]paperCell{}
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if rec[0] == "table" {
			continue
		}
		v, err1 := strconv.ParseFloat(rec[4], 64)
		p, err2 := strconv.ParseFloat(rec[5], 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("published csv: bad row %v", rec)
		}
		out[strings.Join(rec[:4], "/")] = paperCell{v, p}
	}
	return out
}

// TestPublishedTables: the published Tables 3-6 read whole: 26 cells per
// table and weighting (13 per weighting), and a cell as printed.
func TestPublishedTables(t *testing.T) {
	pub := readPublished(t)
	if len(pub) != 4*2*13 {
		t.Errorf("%d published cells, want %d", len(pub), 4*2*13)
	}
	if c := pub["3/unweighted/FCFS/easy"]; c.value != 3.95e5 || c.pct != 0 {
		t.Errorf("Table 3 unweighted FCFS/EASY = %+v, want 3.95e5 and 0 %%", c)
	}
}

// paperTable is the workload of one of Tables 3-6.
var paperTable = map[string]simcore.Params{
	"3": {"workload": "trace"},
	"4": {"workload": "probabilistic", "jobs": int64(50000)},
	// 4m: Table 4 with the marginal reading of §6.2's bins
	"4m": {"workload": "probabilistic-marginal", "jobs": int64(50000)},
	"5":  {"workload": "randomized", "jobs": int64(50000)},
	"6":  {"workload": "trace", "estimate": "exact"},
}

var paperExec = []struct{ name, backfill string }{{"list", "none"}, {"conservative", "conservative"}, {"easy", "easy"}}

// TestPaperTables runs Tables 3-6 at paper scale through the model and
// writes our table beside the published one (markdown), the percentage
// columns recomputed as the paper does: relative to FCFS+EASY of the same
// table and weighting (Table 6: relative to Table 3's same cell, so Table
// 3 must be in the list), and the computation time relative to FCFS+EASY
// (Tables 7-8: Table 3 and Table 4). Set BATCH_PAPER=3,4,5,6 (minutes;
// BATCH_PAPER_OUT names the output file, default stdout via t.Log) and
// optionally BATCH_PAPER_SEED.
func TestPaperTables(t *testing.T) {
	list := os.Getenv("BATCH_PAPER")
	if list == "" {
		t.Skip("on request only, Tables 3-6 at paper scale (minutes): BATCH_PAPER=3,4,5,6 go test ./simcore/batch -run TestPaperTables -v (Tables 3 and 6 read the CTC log: go run ./cmd/schedfarm traces fetch CTC-SP2-1996-3.1-cln)")
	}
	pub := readPublished(t)
	seed := uint64(19990416)
	if s := os.Getenv("BATCH_PAPER_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		seed = v
	}
	data := datatest.Data(t)
	for _, tab := range strings.Split(list, ",") {
		if tab == "3" || tab == "6" {
			data = datatest.Require(t, ctcTrace) // Tables 3 and 6 run the CTC log
		}
	}
	m := New(data)
	type res struct{ val, wall float64 }
	ours := map[string]res{}
	var b strings.Builder
	for _, tab := range strings.Split(list, ",") {
		base, ok := paperTable[tab]
		if !ok {
			t.Fatalf("no table %q", tab)
		}
		for _, w := range []string{"unweighted", "weighted"} {
			for _, o := range Orders {
				for _, e := range paperExec {
					if o == GareyGraham && e.name != "list" || tab == "5" && e.name == "conservative" {
						// Table 5's conservative column takes 7-25 min per run
						// (the queue grows to thousands of reservations): it runs
						// through the farm (table5.yaml), not here
						continue
					}
					p := simcore.Params{"order": o, "backfill": e.backfill, "weighted": w == "weighted"}
					for k, v := range base {
						p[k] = v
					}
					p, err := schema.Complete(p)
					if err != nil {
						t.Fatal(err)
					}
					r, err := m.Run(simcore.WithClock(context.Background(), time.Now), p, seed) // the table reports the computation time
					if err != nil {
						t.Fatal(err)
					}
					metric := "art"
					if w == "weighted" {
						metric = "awrt"
					}
					ours[tab+"/"+w+"/"+o+"/"+e.name] = res{r.Metrics[metric].(float64), r.Metrics["sched_wall_ms"].(float64)}
				}
			}
		}
		fmt.Fprintf(&b, "\n### Table %s (seed %d)\n\n", tab, seed)
		fmt.Fprintf(&b, "| case | order | executor | ours | ours %% | paper | paper %% (printed) | paper %% (recomputed) |\n|---|---|---|---|---|---|---|---|\n")
		for _, w := range []string{"unweighted", "weighted"} {
			for _, o := range Orders {
				for _, e := range paperExec {
					k := tab + "/" + w + "/" + o + "/" + e.name
					r, ok := ours[k]
					if !ok {
						continue
					}
					ref, pref := tab+"/"+w+"/FCFS/easy", tab+"/"+w+"/FCFS/easy"
					if tab == "6" {
						ref, pref = "3/"+w+"/"+o+"/"+e.name, "3/"+w+"/"+o+"/"+e.name
					}
					op := "n/a"
					if rr, ok := ours[ref]; ok {
						op = fmt.Sprintf("%+.1f%%", 100*(r.val/rr.val-1))
					}
					pc := pub[strings.TrimSuffix(tab, "m")+"/"+w+"/"+o+"/"+e.name]
					pp := "n/a"
					if pr, ok := pub[strings.Replace(pref, "4m/", "4/", 1)]; ok && pr.value > 0 {
						pp = fmt.Sprintf("%+.1f%%", 100*(pc.value/pr.value-1))
					}
					fmt.Fprintf(&b, "| %s | %s | %s | %.3g | %s | %.3g | %+.1f%% | %s |\n", w, o, e.name, r.val, op, pc.value, pc.pct, pp)
				}
			}
		}
		if tab == "3" || tab == "4" {
			fmt.Fprintf(&b, "\nComputation time (Table %d): wall time of the simulation relative to FCFS+EASY (ours; paper's Table %d has list and EASY columns, SMART = FFIA here)\n\n", map[string]int{"3": 7, "4": 8}[tab], map[string]int{"3": 7, "4": 8}[tab])
			fmt.Fprintf(&b, "| case | order | list ms | list %% | conservative ms | conservative %% | EASY ms | EASY %% |\n|---|---|---|---|---|---|---|---|\n")
			for _, w := range []string{"unweighted", "weighted"} {
				ref := ours[tab+"/"+w+"/FCFS/easy"].wall
				for _, o := range Orders {
					fmt.Fprintf(&b, "| %s | %s ", w, o)
					for _, e := range paperExec {
						r, ok := ours[tab+"/"+w+"/"+o+"/"+e.name]
						if !ok {
							fmt.Fprintf(&b, "| | ")
							continue
						}
						fmt.Fprintf(&b, "| %.1f | %+.1f%% ", r.wall, 100*(r.wall/ref-1))
					}
					fmt.Fprintf(&b, "|\n")
				}
			}
		}
	}
	if out := os.Getenv("BATCH_PAPER_OUT"); out != "" {
		if err := os.WriteFile(out, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Log(b.String())
}
