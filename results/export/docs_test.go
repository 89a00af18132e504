package export

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"schedfarm/results"
	"schedfarm/simcore"
	"schedfarm/simcore/models"
)

// docsPath is docs/results.md, from this package's folder.
var docsPath = filepath.Join("..", "..", "docs", "results.md")

// The generated section of docs/results.md lies between these lines.
const (
	docsBegin = "<!-- columns: generated from the model schemas by TestDocsColumns; SCHEDFARM_UPDATE_DOCS=1 rewrites it -->"
	docsEnd   = "<!-- end of generated columns -->"
)

// columnsMarkdown describes, per model, the parameter, metric and extra
// table columns of its Parquet files, from the schemas.
func columnsMarkdown(reg *simcore.Registry) (string, error) {
	var b bytes.Buffer
	cell := func(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, "|", `\|`), "\n", " ") }
	row := func(name string, t results.Type, unit, doc string) {
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", name, t, cell(unit), cell(doc))
	}
	for _, name := range reg.Names() {
		m, _ := reg.Lookup(name)
		s := m.Schema()
		if _, err := results.JobsLayout(s); err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "\n### %s (model version %s)\n\n", name, m.Version())
		if opt, ok := adapters[name]; ok {
			fmt.Fprintf(&b, "Schedule exports (batsim, swf): yes, with `%s: true`.\n\n", opt.option)
		}
		b.WriteString("Parameters (a REQUIRED column of jobs.parquet, summary.parquet and every extra table):\n\n| column | type | unit | meaning |\n|---|---|---|---|\n")
		for _, p := range s.Params {
			row(p.Name, results.TypeOfKind(p.Kind), p.Unit, p.Doc)
		}
		b.WriteString("\nMetrics (a nullable column of jobs.parquet; numeric ones become `<metric>_mean`, `_std`, `_ci95`, `_median`, `_q1`, `_q3`, `_min`, `_max` in summary.parquet):\n\n| column | type | unit | meaning |\n|---|---|---|---|\n")
		for _, c := range s.Metrics {
			doc := c.Doc
			if c.Measured {
				doc = "(measured) " + doc
			}
			row(c.Name, results.TypeOfKind(c.Kind), c.Unit, doc)
		}
		for _, t := range s.Tables {
			l, err := results.TableLayout(s, t.Name)
			if err != nil {
				return "", err
			}
			fmt.Fprintf(&b, "\nExtra table `%s.parquet` — %s. After `job_id`, `job_index`, `replicate`, `seed` and the parameters:\n\n| column | type | unit | meaning |\n|---|---|---|---|\n", t.Name, cell(t.Doc))
			for _, c := range t.Columns {
				row(c.Name, l.Columns[l.Index(c.Name)].Type, c.Unit, c.Doc)
			}
		}
	}
	return b.String(), nil
}

// TestDocsColumns: the per-model column tables of docs/results.md are
// those the schemas give (SCHEDFARM_UPDATE_DOCS=1 rewrites them).
func TestDocsColumns(t *testing.T) {
	want, err := columnsMarkdown(models.All(simcore.Dirs{}))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(docsPath)
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	i, j := strings.Index(text, docsBegin), strings.Index(text, docsEnd)
	if i < 0 || j < i {
		t.Fatalf("%s: no generated section (%q ... %q)", docsPath, docsBegin, docsEnd)
	}
	got := text[i+len(docsBegin) : j]
	want += "\n"
	if got == want {
		return
	}
	if os.Getenv("SCHEDFARM_UPDATE_DOCS") == "1" {
		if err := os.WriteFile(docsPath, []byte(text[:i+len(docsBegin)]+want+text[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("rewrote the columns of %s", docsPath)
		return
	}
	t.Errorf("%s: the column tables differ from the model schemas; run SCHEDFARM_UPDATE_DOCS=1 go test ./results/export/ -run TestDocsColumns", docsPath)
}
