package main

import (
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"schedfarm/results"
)

// quickFile is the part of a configs/<key>/quick.yaml used here.
type quickFile struct {
	Sweeps []struct {
		Name string `yaml:"name"`
		Axes []struct {
			Name string `yaml:"name"`
		} `yaml:"axes"`
		Claims []map[string]any `yaml:"claims"`
	} `yaml:"sweeps"`
}

// claimMetric is the metric a claim declaration names (in its compare:,
// trend:, published: … map), or "".
func claimMetric(c map[string]any) string {
	if m, ok := c["metric"].(string); ok {
		return m
	}
	for _, k := range sortedKeys(c) {
		if sub, ok := c[k].(map[string]any); ok {
			if m, ok := sub["metric"].(string); ok {
				return m
			}
		}
	}
	return ""
}

func sortedKeys(m map[string]any) []string {
	return slices.Sorted(maps.Keys(m))
}

func str(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return ""
}

// goldenBlocks returns each model's golden block from the quick goldens
// under root/configs/golden.
func goldenBlocks(root string) (map[string]string, error) {
	var sb scoreboard
	sbPath := filepath.Join(root, "configs", "golden", "scoreboard-quick-all.json")
	if err := readJSON(sbPath, &sb); err != nil {
		return nil, err
	}
	byKey := map[string]int{}
	for i, p := range sb.Papers {
		byKey[p.Paper] = i
	}
	out := map[string]string{}
	for _, p := range papers {
		i, ok := byKey[p.Key]
		if !ok {
			return nil, fmt.Errorf("%s: no paper %s", sbPath, p.Key)
		}
		sp := sb.Papers[i]
		quickPath := filepath.Join(root, "configs", p.Key, "quick.yaml")
		data, err := os.ReadFile(quickPath)
		if err != nil {
			return nil, fmt.Errorf("quick sweeps of %s: %w", p.Key, err)
		}
		var qf quickFile
		if err := yaml.Unmarshal(data, &qf); err != nil {
			return nil, fmt.Errorf("parse %s: %w", quickPath, err)
		}
		var b strings.Builder
		fmt.Fprintf(&b, "\nThe quick sweeps (`configs/%s/quick.yaml`, run by CI and the nightly verification) at their goldens: each claim's verdict from `configs/golden/scoreboard-quick-all.json`, each point's mean ± 95 %% CI of the metrics the claims name from `configs/golden/<sweep>/summary.parquet`. The quick sweeps are smaller than the paper's (see the file's comments), so these are checks of direction, not of the paper's numbers. `go test ./scripts/modeltables` fails when this block differs from the goldens.\n", p.Key)
		for _, s := range qf.Sweeps {
			golden := filepath.Join(root, "configs", "golden", s.Name, "summary.parquet")
			f, err := results.ReadTable(golden)
			if err != nil {
				return nil, fmt.Errorf("golden of %s: %w", s.Name, err)
			}
			fmt.Fprintf(&b, "\n#### %s (%d points)\n\n", s.Name, f.Len())
			b.WriteString("| claim | source | statement | verdict |\n|---|---|---|---|\n")
			var metrics []string
			seen := map[string]bool{}
			for _, c := range s.Claims {
				id := str(c["id"])
				verdict := "not in the golden scoreboard"
				for _, st := range sp.Claims {
					if st.Sweep == s.Name && st.ID == id {
						verdict = statusText(st.Status, st.Verdict, st.By)
					}
				}
				fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", cell(id), cell(str(c["source"])), cell(str(c["text"])), verdict)
				if m := claimMetric(c); m != "" && !seen[m] && f.Index(m+"_mean") >= 0 {
					seen[m] = true
					metrics = append(metrics, m)
				}
			}
			if len(metrics) == 0 {
				continue
			}
			var axes []string
			for _, a := range s.Axes {
				if a.Name != "" && f.Index(a.Name) >= 0 {
					axes = append(axes, a.Name)
				}
			}
			fmt.Fprintf(&b, "\n<details><summary>%s: the points (mean ± 95 %% CI over the replicates)</summary>\n\n", s.Name)
			b.WriteString("| " + strings.Join(append(append([]string{}, axes...), metrics...), " | ") + " |\n")
			b.WriteString(strings.Repeat("|---", len(axes)+len(metrics)) + "|\n")
			for r := 0; r < f.Len(); r++ {
				var row []string
				for _, a := range axes {
					row = append(row, cell(valueText(f, f.Index(a), r)))
				}
				for _, m := range metrics {
					mean := valueText(f, f.Index(m+"_mean"), r)
					if ci := f.Index(m + "_ci95"); ci >= 0 && !f.IsNull(ci, r) {
						mean += " ± " + valueText(f, ci, r)
					}
					row = append(row, cell(mean))
				}
				b.WriteString("| " + strings.Join(row, " | ") + " |\n")
			}
			b.WriteString("\n</details>\n")
		}
		b.WriteString("\n")
		out[p.Model] = b.String()
	}
	return out, nil
}

// valueText formats one cell of a frame: floats with 4 significant digits.
func valueText(f *results.Frame, c, r int) string {
	if c < 0 || f.IsNull(c, r) {
		return "—"
	}
	switch v := f.Value(c, r).(type) {
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return strconv.FormatFloat(v, 'g', -1, 64)
		}
		return strconv.FormatFloat(v, 'g', 4, 64)
	case float32:
		return strconv.FormatFloat(float64(v), 'g', 4, 32)
	default:
		return fmt.Sprint(v)
	}
}
