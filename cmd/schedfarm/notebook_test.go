package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"schedfarm/results"
)

// The notebook of examples/ and its conventions, which these tests hold
// it to (CI has no Python Parquet reader, so its cells cannot run here as
// Python):
//
//   - cells tagged setup (standard library only), pandas or duckdb; the
//     two routes import only their own packages;
//   - the setup cell sets runs = "../runs" and sweep = "<name>" with the
//     sweep file as a comment on that line;
//   - a pandas cell reads a table only as
//     pd.read_parquet(f"{run}/<table>.parquet", columns=<name>_columns)
//     with <name>_columns a list literal of column names, and names a
//     column between brackets only if a list holds it or the cell
//     assigned it (df["new"] = ...); b"..." between brackets are footer
//     metadata keys;
//   - a DuckDB cell's SQL is the string passed to con.sql(...), an
//     f-string only with the placeholders {runs} and {sweep}.
const notebookFile = "examples/results.ipynb"

// nbCell is one cell of the notebook, its source joined.
type nbCell struct {
	id, kind, tag, text string
}

// readNotebook reads the notebook and checks it is nbformat 4.5 JSON as
// Jupyter writes it: the top-level keys, unique cell ids, each cell's
// keys, code cells committed without outputs.
func readNotebook(t *testing.T) []nbCell {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot, notebookFile))
	if err != nil {
		t.Fatal(err)
	}
	var nb map[string]json.RawMessage
	if err := json.Unmarshal(b, &nb); err != nil {
		t.Fatalf("%s: not JSON: %v", notebookFile, err)
	}
	keys := func(m map[string]json.RawMessage) []string {
		var k []string
		for key := range m {
			k = append(k, key)
		}
		slices.Sort(k)
		return k
	}
	if got := keys(nb); !slices.Equal(got, []string{"cells", "metadata", "nbformat", "nbformat_minor"}) {
		t.Fatalf("%s: top-level keys %v", notebookFile, got)
	}
	var major, minor int
	if json.Unmarshal(nb["nbformat"], &major) != nil || json.Unmarshal(nb["nbformat_minor"], &minor) != nil || major != 4 || minor < 5 {
		t.Fatalf("%s: nbformat %s.%s, want 4.5 or later 4.x", notebookFile, nb["nbformat"], nb["nbformat_minor"])
	}
	var raw []map[string]json.RawMessage
	if err := json.Unmarshal(nb["cells"], &raw); err != nil {
		t.Fatalf("%s: cells: %v", notebookFile, err)
	}
	idRE := regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
	seen := map[string]bool{}
	var cells []nbCell
	for i, c := range raw {
		var cell nbCell
		var lines []string
		var meta struct {
			Tags []string `json:"tags"`
		}
		if json.Unmarshal(c["cell_type"], &cell.kind) != nil || json.Unmarshal(c["id"], &cell.id) != nil ||
			json.Unmarshal(c["source"], &lines) != nil || json.Unmarshal(c["metadata"], &meta) != nil {
			t.Fatalf("%s: cell %d: cell_type, id, source (a list of lines) or metadata missing or mistyped", notebookFile, i)
		}
		want := []string{"cell_type", "id", "metadata", "source"}
		if cell.kind == "code" {
			want = []string{"cell_type", "execution_count", "id", "metadata", "outputs", "source"}
			if string(c["execution_count"]) != "null" || string(c["outputs"]) != "[]" {
				t.Errorf("%s: cell %s: committed with outputs or an execution count", notebookFile, cell.id)
			}
		} else if cell.kind != "markdown" {
			t.Errorf("%s: cell %s: cell_type %q", notebookFile, cell.id, cell.kind)
		}
		if got := keys(c); !slices.Equal(got, want) {
			t.Errorf("%s: cell %s: keys %v, want %v", notebookFile, cell.id, got, want)
		}
		if !idRE.MatchString(cell.id) || seen[cell.id] {
			t.Errorf("%s: cell id %q: not a valid id or not unique", notebookFile, cell.id)
		}
		seen[cell.id] = true
		for j, l := range lines {
			if j < len(lines)-1 && !strings.HasSuffix(l, "\n") {
				t.Errorf("%s: cell %s: source line %d does not end in a line break", notebookFile, cell.id, j)
			}
		}
		if len(meta.Tags) == 1 {
			cell.tag = meta.Tags[0]
		}
		if cell.kind == "code" && !slices.Contains([]string{"setup", "pandas", "duckdb"}, cell.tag) {
			t.Errorf("%s: code cell %s: tags %v, want one of setup, pandas, duckdb", notebookFile, cell.id, meta.Tags)
		}
		cell.text = strings.Join(lines, "")
		cells = append(cells, cell)
	}
	return cells
}

// tagged returns the joined source of the code cells with the tag.
func tagged(cells []nbCell, tag string) []nbCell {
	var out []nbCell
	for _, c := range cells {
		if c.kind == "code" && c.tag == tag {
			out = append(out, c)
		}
	}
	return out
}

var (
	importRE    = regexp.MustCompile(`(?m)^\s*(?:import|from)\s+([A-Za-z_][A-Za-z0-9_]*)`)
	setupSweep  = regexp.MustCompile(`(?m)^sweep = "([a-z0-9_-]+)"\s*#\s*(configs/\S+\.yaml)\s*$`)
	setupRuns   = regexp.MustCompile(`(?m)^runs = "\.\./runs"`)
	colsListRE  = regexp.MustCompile(`(?s)\b([a-z_]+_columns) = \[(.*?)\]`)
	readRE      = regexp.MustCompile(`pd\.read_parquet\(f"\{run\}/([a-z_]+)\.parquet", columns=([a-z_]+_columns)\)`)
	bracketRE   = regexp.MustCompile(`\[([^\[\]]*)\]`)
	literalRE   = regexp.MustCompile(`(b?)"([^"]*)"`)
	assignRE    = regexp.MustCompile(`\b[a-z_]+\["([a-z_0-9]+)"\] = `)
	schemaRE    = regexp.MustCompile(`pq\.read_schema\(f"\{run\}/([a-z_]+\.parquet)"\)`)
	conSQLRE    = regexp.MustCompile(`con\.sql\((f?)(?:"""((?s:.*?))"""|"([^"\n]*)")\)`)
	placeholder = regexp.MustCompile(`\{[^}]*\}`)
)

// TestNotebookRoutes: the notebook is valid nbformat 4.5; the setup cell
// uses the standard library only and names a shipped sweep; the pandas
// cells import pandas and pyarrow only, the DuckDB cells duckdb only.
func TestNotebookRoutes(t *testing.T) {
	cells := readNotebook(t)
	allowed := map[string][]string{"setup": {"glob", "json", "datetime"}, "pandas": {"pandas", "pyarrow"}, "duckdb": {"duckdb"}}
	for tag, mods := range allowed {
		cs := tagged(cells, tag)
		if len(cs) == 0 {
			t.Errorf("no %s cell", tag)
		}
		for _, c := range cs {
			for _, m := range importRE.FindAllStringSubmatch(c.text, -1) {
				if !slices.Contains(mods, m[1]) {
					t.Errorf("%s cell %s imports %s: a %s cell may import only %v", tag, c.id, m[1], tag, mods)
				}
			}
		}
	}
	for _, c := range tagged(cells, "pandas") {
		if strings.Contains(c.text, "duckdb") || strings.Contains(c.text, "con.") {
			t.Errorf("pandas cell %s uses DuckDB", c.id)
		}
	}
	for _, c := range tagged(cells, "duckdb") {
		if strings.Contains(c.text, "pd.") || strings.Contains(c.text, "pq.") || strings.Contains(c.text, ".df()") {
			t.Errorf("DuckDB cell %s uses pandas or pyarrow", c.id)
		}
	}
	setup := tagged(cells, "setup")
	if len(setup) != 1 || !setupRuns.MatchString(setup[0].text) || setupSweep.FindStringSubmatch(setup[0].text) == nil {
		t.Fatalf("want one setup cell setting runs = \"../runs\" and sweep = \"<name>\"  # configs/...yaml")
	}
	file := setupSweep.FindStringSubmatch(setup[0].text)[2]
	if _, err := os.Stat(filepath.Join(repoRoot, file)); err != nil {
		t.Errorf("the setup cell's sweep file: %v", err)
	}
}

// notebookRun runs the notebook's sweep twice into one results dir (two
// run folders, as a user who reruns it has) and returns the results dir,
// the sweep's name, and the newest run's folder and ID.
func notebookRun(t *testing.T) (resultsDir, sweepName, newest, newestID string) {
	t.Helper()
	setup := tagged(readNotebook(t), "setup")
	if len(setup) != 1 {
		t.Fatal("want one setup cell")
	}
	m := setupSweep.FindStringSubmatch(setup[0].text)
	if m == nil {
		t.Fatal("the setup cell names no sweep")
	}
	sweepName = m[1]
	resultsDir, state := t.TempDir(), t.TempDir()
	for range 2 {
		o := execute(t, "run", "--state-dir", state, "--results-dir", resultsDir, filepath.Join(repoRoot, m[2]))
		mustSucceed(t, o)
		newest = onlyCollected(t, o, resultsDir, sweepName).dir
	}
	return resultsDir, sweepName, newest, filepath.Base(newest)
}

// TestNotebookPandasColumns: every column the pandas cells name is in the
// files of a real run (read with the project's Parquet reader), each
// table is read through its column list, and the footer keys exist; the
// setup cell, run by python3 where there is one, picks the newest run.
func TestNotebookPandasColumns(t *testing.T) {
	t.Parallel()
	cells := readNotebook(t)
	res, sweepName, newest, _ := notebookRun(t)
	lists := map[string][]string{}
	known := map[string]bool{}
	var code strings.Builder
	for _, c := range tagged(cells, "pandas") {
		code.WriteString(c.text + "\n")
	}
	text := code.String()
	for _, m := range colsListRE.FindAllStringSubmatch(text, -1) {
		for _, l := range literalRE.FindAllStringSubmatch(m[2], -1) {
			lists[m[1]] = append(lists[m[1]], l[2])
			known[l[2]] = true
		}
	}
	reads := readRE.FindAllStringSubmatch(text, -1)
	if n := strings.Count(text, "pd.read_parquet("); n != len(reads) || n == 0 {
		t.Errorf("%d pd.read_parquet calls, %d of the form pd.read_parquet(f\"{run}/<table>.parquet\", columns=<name>_columns)", n, len(reads))
	}
	used := map[string]bool{}
	for _, r := range reads {
		cols, ok := lists[r[2]]
		if !ok {
			t.Errorf("%s.parquet is read with %s, which no list literal defines", r[1], r[2])
			continue
		}
		used[r[2]] = true
		f := readTable(t, filepath.Join(newest, r[1]+".parquet"))
		for _, c := range cols {
			if f.Index(c) < 0 {
				t.Errorf("%s (%s.parquet): no column %q in a real run of %s", r[2], r[1], c, sweepName)
			}
		}
	}
	for name := range lists {
		if !used[name] {
			t.Errorf("%s is not used to read a table", name)
		}
	}
	for _, m := range assignRE.FindAllStringSubmatch(text, -1) {
		known[m[1]] = true // a column the cell computes
	}
	var keys []string
	for _, line := range strings.Split(text, "\n") {
		if colsListRE.MatchString(line) || strings.Contains(line, "_columns = [") {
			continue
		}
		for _, br := range bracketRE.FindAllStringSubmatch(line, -1) {
			for _, l := range literalRE.FindAllStringSubmatch(br[1], -1) {
				switch {
				case l[1] == "b":
					keys = append(keys, l[2])
				case !known[l[2]]:
					t.Errorf("the pandas cells name column %q, which no *_columns list holds: %s", l[2], strings.TrimSpace(line))
				}
			}
		}
	}
	// The list of footer keys spans lines: take every b"..." of the cells.
	for _, l := range literalRE.FindAllStringSubmatch(text, -1) {
		if l[1] == "b" {
			keys = append(keys, l[2])
		}
	}
	schema := schemaRE.FindStringSubmatch(text)
	if schema == nil || len(keys) == 0 {
		t.Fatal("no pq.read_schema(f\"{run}/<table>.parquet\") with footer keys b\"...\"")
	}
	meta := readTable(t, filepath.Join(newest, schema[1])).Meta
	for _, k := range keys {
		if meta[k] == "" {
			t.Errorf("%s has no footer key %q", schema[1], k)
		}
	}

	t.Run("setup cell", func(t *testing.T) {
		py, err := exec.LookPath("python3")
		if err != nil {
			t.Skip("python3 is not on PATH (apt-get install python3): the setup cell, standard library only, is not run")
		}
		setup := tagged(cells, "setup")[0].text
		setup = setupRuns.ReplaceAllLiteralString(setup, "runs = "+strconv.Quote(res))
		out, err := exec.Command(py, "-c", setup).CombinedOutput()
		if err != nil {
			t.Fatalf("python3 ran the setup cell: %v\n%s", err, out)
		}
		if got := strings.TrimSpace(string(out)); got != newest {
			t.Errorf("the setup cell picked %s, want the newest run %s", got, newest)
		}
	})
}

// notebookDuckDB returns the folder holding node_modules/@duckdb/node-api
// (SCHEDFARM_DUCKDB_DIR), or skips the test, or fails it in CI or with
// SCHEDFARM_REQUIRE_DUCKDB=1.
func notebookDuckDB(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("SCHEDFARM_DUCKDB_DIR")
	_, errNode := exec.LookPath("node")
	_, errPkg := os.Stat(filepath.Join(dir, "node_modules", "@duckdb", "node-api"))
	if dir != "" && errNode == nil && errPkg == nil {
		return dir
	}
	msg := "the notebook's SQL needs node and DuckDB's Node.js package: npm install --prefix DIR @duckdb/node-api@1.5.6-r.1, then SCHEDFARM_DUCKDB_DIR=DIR"
	if os.Getenv("CI") == "true" || os.Getenv("SCHEDFARM_REQUIRE_DUCKDB") == "1" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// TestNotebookDuckDB runs every SQL statement of the notebook's DuckDB
// cells, in order on one connection, with DuckDB (@duckdb/node-api, the
// reader results/export's tests use) against two real runs of its sweep:
// each query returns rows, and the views read the newest run only.
func TestNotebookDuckDB(t *testing.T) {
	t.Parallel()
	dir := notebookDuckDB(t)
	cells := readNotebook(t)
	res, sweepName, newest, newestID := notebookRun(t)
	var stmts []string
	var queries []bool // whether a statement is the notebook's query (returns rows)
	for _, c := range tagged(cells, "duckdb") {
		ms := conSQLRE.FindAllStringSubmatch(c.text, -1)
		if n := strings.Count(c.text, "con.sql("); n != len(ms) {
			t.Errorf("DuckDB cell %s: %d con.sql( calls, %d of the form con.sql(\"...\") or con.sql(f\"\"\"...\"\"\")", c.id, n, len(ms))
		}
		for _, m := range ms {
			sql := m[2] + m[3]
			if m[1] == "f" {
				sql = strings.NewReplacer("{runs}", res, "{sweep}", sweepName).Replace(sql)
				if p := placeholder.FindString(sql); p != "" {
					t.Errorf("DuckDB cell %s: placeholder %s: only {runs} and {sweep} are filled in", c.id, p)
				}
			}
			stmts = append(stmts, sql)
			queries = append(queries, !strings.Contains(strings.ToUpper(sql), "CREATE "))
		}
	}
	if len(stmts) == 0 {
		t.Fatal("no SQL in the DuckDB cells")
	}
	perRun := readTable(t, filepath.Join(newest, results.JobsTable+".parquet")).Len()
	points := readTable(t, filepath.Join(newest, results.SummaryTable+".parquet")).Len()
	own := []string{
		"SELECT count(*)::INTEGER AS n, count(DISTINCT run_id)::INTEGER AS runs, min(run_id) AS run FROM jobs",
		"SELECT count(*)::INTEGER AS n FROM summary",
		"SELECT count(*)::INTEGER AS n FROM read_parquet('" + filepath.Join(res, sweepName, "*", "jobs.parquet") + "')",
	}
	file := filepath.Join(t.TempDir(), "statements.json")
	b, _ := json.Marshal(append(stmts, own...))
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	var got struct{ Results [][]map[string]any }
	cmd := exec.Command("node", filepath.Join(repoRoot, "results", "export", "testdata", "duckdb_check.mjs"), "sql", file)
	cmd.Env = append(os.Environ(), "SCHEDFARM_DUCKDB_DIR="+dir)
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("DuckDB: %v\n%s", err, stderr)
	}
	if err := json.Unmarshal(out, &got); err != nil || len(got.Results) != len(stmts)+len(own) {
		t.Fatalf("DuckDB's answer: %v\n%s", err, out)
	}
	for i, q := range queries {
		if q && len(got.Results[i]) == 0 {
			t.Errorf("the notebook's query returned no row:\n%s", stmts[i])
		}
	}
	r := got.Results[len(stmts):]
	if n, runs, run := r[0][0]["n"], r[0][0]["runs"], r[0][0]["run"]; n != float64(perRun) || runs != float64(1) || run != newestID {
		t.Errorf("the jobs view: %v rows of %v runs (run %v), want %d rows of the newest run %s", n, runs, run, perRun, newestID)
	}
	if n := r[1][0]["n"]; n != float64(points) {
		t.Errorf("the summary view: %v rows, want the newest run's %d points", n, points)
	}
	if n := r[2][0]["n"]; n != float64(2*perRun) {
		t.Errorf("the glob over every run: %v rows, want %d (two runs): the test no longer has two run folders", n, 2*perRun)
	}
}
