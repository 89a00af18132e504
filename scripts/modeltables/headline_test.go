package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// fakeRun writes a scripts/paper-scale.sh folder with one sweep, "p-a",
// of run "R": its scoreboard entry, claims.json, summary.csv and report.
func fakeRun(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"results/scoreboard-R.json": `{"file": "configs/all.yaml", "papers": [{"paper": "p", "sweeps": ["p-a"], "claim_list": [
			{"sweep": "p-a", "id": "c-pass", "verdict": "pass", "status": "pass"},
			{"sweep": "p-a", "id": "c-fail", "verdict": "fail", "status": "fail-explained", "by": "p-b/c-pass"}]}]}`,
		"results/p-a/R/claims.json": `[
			{"id": "c-pass", "verdict": "pass", "numbers": "1/1 points within tolerance; d=X: m = 2"},
			{"id": "c-fail", "verdict": "fail", "numbers": "m: X > Y at 2/3 points (1 fail)"}]`,
		"results/p-a/R/summary.csv": "dispatcher,budget_h,m_mean\nX,1,2\nX,2,4\nY,1,0.25\nY,2,1.5\n",
		"results/p-a/R/report.md":   "| schedfarm | revision 0123456789abcdef |\n",
	}
	for name, text := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestHeadlineTable(t *testing.T) {
	rd, err := newRunData(fakeRun(t))
	if err != nil {
		t.Fatal(err)
	}
	q := func(where, op string) query { return query{Sweep: "p-a", Col: "m_mean", Where: where, Op: op} }
	for _, tc := range []struct {
		name string
		row  headlineRow
		want string // the row's line, or the error's text
		err  bool
	}{
		{name: "values and verdicts from the run",
			row: headlineRow{Result: "r", Paper: "> 1 h",
				Ours: []value{
					num("X", q("dispatcher=X, budget_h=1", ""), "h"),
					gain("best X over best Y", q("dispatcher=X", "max"), q("dispatcher=Y", "max")),
					{Label: "over 1", A: q("", "count>1"), B: q("", "count"), Kind: "of", Fmt: "int", Unit: "points"},
					{Label: "Y", A: q("dispatcher=Y", "min"), B: q("dispatcher=Y", "max"), Kind: "range", Fmt: "pct"},
					{Label: "X", A: q("dispatcher=X, budget_h=1", ""), More: []query{q("dispatcher=X, budget_h=2", "")}, Fmt: "int"},
				},
				Claims: []claimRef{{Sweep: "p-a", ID: "c-pass"}, {Label: "L", Sweep: "p-a", ID: "c-fail"}},
				Note:   "typed"},
			want: "| r | &gt; 1 h | X 2.00 h; best X over best Y +166.7%; over 1 3 of 4 points; Y 25.0%–150%; X 2 / 4 | pass; L: fail, explained by `p-b/c-pass` (2/3 points); typed |\n"},
		{name: "a sweep the run did not make is marked",
			row:  headlineRow{Result: "r", Paper: "1", Ours: []value{num("", query{Sweep: "p-new", Col: "m_mean"}, "")}, Claims: []claimRef{{Sweep: "p-new", ID: "c"}}},
			want: "| r | 1 | *not in this run* | *not in this run* |\n"},
		{name: "a claim missing from a sweep of the run is an error naming it",
			row: headlineRow{Result: "r", Claims: []claimRef{{Sweep: "p-a", ID: "c-renamed"}}}, err: true,
			want: "p-a/c-renamed: not in the run's scoreboard"},
		{name: "a filter matching no point is an error naming it",
			row: headlineRow{Result: "r", Ours: []value{num("", q("dispatcher=Z", ""), "")}}, err: true,
			want: "p-a m_mean where dispatcher=Z: no row matches"},
		{name: "a column missing is an error naming it",
			row: headlineRow{Result: "r", Ours: []value{num("", query{Sweep: "p-a", Col: "gone_mean"}, "")}}, err: true,
			want: `no column "gone_mean"`},
		{name: "one point wanted, several match",
			row: headlineRow{Result: "r", Ours: []value{num("", q("dispatcher=X", ""), "")}}, err: true,
			want: "2 rows match, want one"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := rd.headlineTable([]headlineRow{tc.row})
			if tc.err {
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("error %v, want one containing %q", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.SplitAfter(got, "\n")
			if len(lines) < 3 || lines[2] != tc.want {
				t.Fatalf("got %q, want the row %q", got, tc.want)
			}
		})
	}
}

func TestSig3(t *testing.T) {
	for x, want := range map[float64]string{0: "0", 4.574: "4.57", 21.43: "21.4", 465: "465", 0.0312: "0.0312", -1.25: "-1.25", 8.08e-4: "0.000808"} {
		if got := sig3(x); got != want {
			t.Errorf("sig3(%g) = %q, want %q", x, got, want)
		}
	}
}

// TestHeadlinesDeclared: every claim a headline row names is declared in
// the configs of its paper, and every sweep it reads is one of them, so a
// renamed claim or sweep is caught before a paper-scale run.
func TestHeadlinesDeclared(t *testing.T) {
	const root = "../.."
	for _, p := range papers {
		rows, ok := headlines[p.Model]
		if !ok {
			continue
		}
		files, err := filepath.Glob(filepath.Join(root, "configs", p.Key, "*.yaml"))
		if err != nil || len(files) == 0 {
			t.Fatalf("configs of %s: %v", p.Key, err)
		}
		sweepText := map[string]string{} // sweep name → its file's text
		name := regexp.MustCompile(`(?m)^\s*- name: (\S+)`)
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range name.FindAllStringSubmatch(string(data), -1) {
				sweepText[m[1]] = string(data)
			}
		}
		check := func(sweep string) bool {
			if _, ok := sweepText[sweep]; !ok {
				t.Errorf("%s: sweep %s is not declared in configs/%s", p.Model, sweep, p.Key)
				return false
			}
			return true
		}
		for _, r := range rows {
			for _, c := range r.Claims {
				if check(c.Sweep) && !regexp.MustCompile(`(?m)id: `+regexp.QuoteMeta(c.ID)+`(?:[\s,}]|$)`).MatchString(sweepText[c.Sweep]) {
					t.Errorf("%s: row %q: claim %s/%s is not in its sweep's file", p.Model, r.Result, c.Sweep, c.ID)
				}
			}
			for _, v := range r.Ours {
				for _, q := range append([]query{v.A, v.B}, v.More...) {
					if q.Sweep != "" {
						check(q.Sweep)
					}
				}
			}
		}
	}
}
