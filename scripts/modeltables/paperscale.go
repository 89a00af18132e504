package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// scoreboard is the part of a suite's scoreboard-<run>.json used here.
type scoreboard struct {
	File   string `json:"file"`
	Papers []struct {
		Paper  string   `json:"paper"`
		Sweeps []string `json:"sweeps"`
		Claims []struct {
			Sweep   string `json:"sweep"`
			ID      string `json:"id"`
			Verdict string `json:"verdict"`
			Status  string `json:"status"`
			By      string `json:"by"`
		} `json:"claim_list"`
	} `json:"papers"`
}

// claim is the part of a claims.json entry used here.
type claim struct {
	ID      string `json:"id"`
	Verdict string `json:"verdict"`
	Numbers string `json:"numbers"`
	Source  string `json:"source"`
	Text    string `json:"text"`
	Points  []struct {
		Point   string `json:"point"`
		Verdict string `json:"verdict"`
		Detail  string `json:"detail"`
	} `json:"points"`
}

// oldKeys are the keys a run made before the papers' keys were unified
// gave its sweeps: the tables show today's.
var oldKeys = map[string]string{"krallmann": "krallmann1999", "saule": "saule2012"}

// todayName maps a sweep name (or sweep/claim) of an older run to today's key.
func todayName(s string) string {
	for old, key := range oldKeys {
		if s == old {
			return key
		}
		if strings.HasPrefix(s, old+"-") {
			return key + s[len(old):]
		}
	}
	return s
}

// publishedDetail parses a published claim's point detail:
// "metric = ours ± ci, published value ± tol (deviation d)".
var publishedDetail = regexp.MustCompile(`^(.*?), published (.*?) \(deviation [^)]*\)$`)

// maxCellPoints: a published claim over more points shows its count and
// its example instead of every point.
const maxCellPoints = 6

// paperScaleBlocks returns each model's paper-scale block from the
// scripts/paper-scale.sh folder dir.
func paperScaleBlocks(dir string) (map[string]string, error) {
	results, run, sb, err := loadScoreboard(dir)
	if err != nil {
		return nil, err
	}
	byKey := map[string]int{}
	for i, p := range sb.Papers {
		byKey[todayName(p.Paper)] = i
	}
	out := map[string]string{}
	for _, p := range papers {
		i, ok := byKey[p.Key]
		if !ok {
			continue
		}
		sp := sb.Papers[i]
		if len(sp.Sweeps) == 0 {
			continue
		}
		commit, err := runCommit(filepath.Join(results, sp.Sweeps[0], run, "report.md"))
		if err != nil {
			return nil, err
		}
		var b strings.Builder
		fmt.Fprintf(&b, "\nRun `%s` of `%s` at commit `%s`, made by `scripts/paper-scale.sh`", run, cell(sb.File), commit)
		if todayName(sp.Paper) != sp.Paper {
			fmt.Fprintf(&b, " (that run named this paper's sweeps `%s-…`; they are shown under today's key, `%s-…`)", cell(sp.Paper), p.Key)
		}
		b.WriteString(". Statuses as in the [scoreboard](../scoreboard/scoreboard.md): a failure is *explained* when a sensitivity sweep of the same run passes the claim under a reading the paper allows, and *shown why not* when a claim of such a sweep passes that shows why the statement cannot hold in the model; sensitivity sweeps' claims are alternative readings, neither reproductions nor failures; calibration claims check a parameter chosen to reproduce them.\n\n")

		// Claims per sweep.
		type counts struct{ all, pass, failX, failS, failU, inc, cal, sens int }
		per := map[string]*counts{}
		status := map[string]int{} // sweep/id → index in sp.Claims
		for k, c := range sp.Claims {
			n := per[c.Sweep]
			if n == nil {
				n = &counts{}
				per[c.Sweep] = n
			}
			n.all++
			switch c.Status {
			case "pass":
				n.pass++
			case "fail-explained":
				n.failX++
			case "fail-shown":
				n.failS++
			case "fail-unexplained":
				n.failU++
			case "inconclusive":
				n.inc++
			case "calibration":
				n.cal++
			case "sensitivity":
				n.sens++
			}
			status[c.Sweep+"/"+c.ID] = k
		}
		b.WriteString("| sweep | claims | pass | fail, explained | fail, shown why not | fail | inconclusive | calibration | sensitivity |\n|---|---|---|---|---|---|---|---|---|\n")
		for _, s := range sp.Sweeps {
			n := per[s]
			if n == nil {
				n = &counts{}
			}
			fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %d | %d | %d | %d |\n", cell(todayName(s)), n.all, n.pass, n.failX, n.failS, n.failU, n.inc, n.cal, n.sens)
		}

		// Published cells and every claim of the reproduction sweeps.
		var cells, every strings.Builder
		nEvery := 0
		for _, s := range sp.Sweeps {
			var claims []claim
			if err := readJSON(filepath.Join(results, s, run, "claims.json"), &claims); err != nil {
				return nil, err
			}
			for _, c := range claims {
				k, ok := status[s+"/"+c.ID]
				if !ok {
					continue
				}
				st := sp.Claims[k]
				if st.Status == "sensitivity" {
					continue
				}
				nEvery++
				fmt.Fprintf(&every, "| %s | %s | %s | %s | %s |\n", cell(todayName(s)), cell(c.ID), cell(c.Source), cell(c.Text), statusText(st.Status, st.Verdict, todayName(st.By)))
				if st.Status == "calibration" {
					continue
				}
				writeCells(&cells, todayName(s), c)
			}
		}
		if cells.Len() > 0 {
			fmt.Fprintf(&b, "\nPublished values, paper against ours (the claims that give the paper's number, with the claim's tolerance after ±; ours with its 95 %% CI where it is a mean; calibration and sensitivity claims left out; a claim over more than %d points shows how many are within its tolerance and one example):\n\n", maxCellPoints)
			b.WriteString("| sweep | claim | point | paper | ours | verdict |\n|---|---|---|---|---|---|\n")
			b.WriteString(cells.String())
		}
		fmt.Fprintf(&b, "\n<details><summary>Every claim of the reproduction and calibration sweeps (%d)</summary>\n\n", nEvery)
		b.WriteString("| sweep | claim | source | statement | status |\n|---|---|---|---|---|\n")
		b.WriteString(every.String())
		b.WriteString("\n</details>\n\n")
		out[p.Model] = b.String()
	}
	return out, nil
}

// writeCells writes the published cells of claim c (none if it gives no
// published value).
func writeCells(b *strings.Builder, sweep string, c claim) {
	var rows [][2]string // paper, ours
	for _, pt := range c.Points {
		m := publishedDetail.FindStringSubmatch(pt.Detail)
		if m == nil {
			return
		}
		rows = append(rows, [2]string{m[2], m[1]})
	}
	if len(rows) == 0 {
		return
	}
	if len(rows) <= maxCellPoints {
		for i, pt := range c.Points {
			fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s |\n", cell(sweep), cell(c.ID), cell(pt.Point), cell(rows[i][0]), cell(rows[i][1]), cell(pt.Verdict))
		}
		return
	}
	within := 0
	for _, pt := range c.Points {
		if pt.Verdict == "pass" {
			within++
		}
	}
	// The claim's numbers: "k/n points within tolerance; point: metric = ours, published …".
	example := c.Numbers
	if _, rest, ok := strings.Cut(c.Numbers, "; "); ok {
		example = rest
	}
	point, detail, _ := strings.Cut(example, ": ")
	paperV, ours := "", detail
	if m := publishedDetail.FindStringSubmatch(detail); m != nil {
		paperV, ours = m[2], m[1]
	}
	fmt.Fprintf(b, "| %s | %s | %d points, e.g. %s | %s | %s | %s: %d/%d within |\n", cell(sweep), cell(c.ID), len(c.Points), cell(point), cell(paperV), cell(ours), cell(c.Verdict), within, len(c.Points))
}

// loadScoreboard reads the suite's scoreboard-<run>.json of the
// scripts/paper-scale.sh folder dir: its results folder, the run's id and
// the scoreboard.
func loadScoreboard(dir string) (results, run string, sb scoreboard, err error) {
	results = filepath.Join(dir, "results")
	sbs, err := filepath.Glob(filepath.Join(results, "scoreboard-*.json"))
	if err != nil || len(sbs) != 1 {
		return "", "", sb, fmt.Errorf("%s: want one scoreboard-<run>.json, found %d", results, len(sbs))
	}
	run = strings.TrimSuffix(strings.TrimPrefix(filepath.Base(sbs[0]), "scoreboard-"), ".json")
	if err := readJSON(sbs[0], &sb); err != nil {
		return "", "", sb, err
	}
	return results, run, sb, nil
}

// runCommit reads the revision from a sweep report's provenance table.
func runCommit(report string) (string, error) {
	data, err := os.ReadFile(report)
	if err != nil {
		return "", fmt.Errorf("provenance: %w", err)
	}
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, "| schedfarm |") {
			if _, rev, ok := strings.Cut(l, "revision "); ok {
				if len(rev) >= 7 {
					return rev[:7], nil
				}
			}
		}
	}
	return "", fmt.Errorf("%s: no revision in the provenance", report)
}

func readJSON(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("parse %s: %w", path, err)
	}
	return nil
}
