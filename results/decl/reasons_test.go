package decl_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"schedfarm/internal/datatest"
	"schedfarm/results/decl"
	"schedfarm/simcore"
	"schedfarm/simcore/models"
	"schedfarm/sweep"
)

// staleReason is a phrase a register's "cannot check" reason may use to say
// that a claim kind or a metric is missing, with what the code has that
// answers it: when have reports it present, the reason is stale.
type staleReason struct {
	phrase *regexp.Regexp
	// what the code has, in words, for the failure message.
	what string
	// have reports whether the code has it, given the metrics of the
	// folder's models.
	have func(metrics []string) bool
}

// always is a have for what every model has (a claim kind).
func always([]string) bool { return true }

func metric(name string) func([]string) bool {
	return func(ms []string) bool { return slices.Contains(ms, name) }
}

// staleReasons lists, for every register ("" for all), the phrases of a
// reason that today's claim kinds or metrics contradict. Add one whenever a
// new claim kind or metric answers what reasons used to say is missing.
var staleReasons = map[string][]staleReason{
	"": {
		{regexp.MustCompile(`(?i)no\s+claim\s+(kind\s+)?(\w+\s+){0,3}(tests|bounds|checks|compares|states)\s+(\w+\s+){0,2}ratio`), "compare's ratio: (A against r × B; paired: the mean of the ratios A/B)", always},
		{regexp.MustCompile(`(?i)no\s+claim\s+kind\s+(\w+\s+){0,3}(one-sided\s+)?bound(s)?\s+(on\s+)?a\s+value|not\s+a\s+one-sided\s+bound`), "published's above: and below: (one-sided bounds)", always},
		{regexp.MustCompile(`(?i)no\s+claim\s+kind\s+(\w+\s+){0,4}share\s+of\s+(the\s+)?points`), "compare's over: share >= p", always},
		{regexp.MustCompile(`(?i)no\s+claim\s+kind\s+(\w+\s+){0,4}(paired|on\s+the\s+same\s+instances)`), "compare's paired: true", always},
		{regexp.MustCompile(`(?i)no\s+claim\s+kind\s+(\w+\s+){0,4}(best\s+value|which\s+value\s+of)`), "argbest", always},
		{regexp.MustCompile(`(?i)differ(s)?\s+in\s+(two|more\s+than\s+(the|one))\s+param|claim\s+compares\s+two\s+values\s+of\s+one\s+parameter|compare\s+pairs\s+(only\s+)?points\s+equal\s+in\s+every\s+parameter`), "compare's a_where: and b_where: (each side its own cell)", always},
		{regexp.MustCompile(`(?i)computed\s+across\s+summary\s+rows|mean\s+(absolute\s+)?difference\s+(\w+\s+){0,4}cannot\s+be\s+compared`), "published's spread: (the mean absolute difference between two values of a parameter)", always},
	},
	"lin2007": {
		{regexp.MustCompile(`(?i)no\s+metric\s+(\w+\s+){0,8}(inserted\s+idle|IITs?\b)`), "the metric iit_share (the share of tasks dispatched with an inserted idle time)", metric("iit_share")},
	},
}

// backtickedMissing finds reasons that name a backticked column as missing
// ("no metric `x`", "`x` is not recorded").
var backtickedMissing = regexp.MustCompile("(?i)(?:no (?:metric|column)\\s+`([a-z0-9_]+)`|`([a-z0-9_]+)`\\s+is not (?:recorded|measured|a metric))")

// TestRegisterReasonsCurrent: no "cannot check" reason of a register says a
// claim kind or a metric is missing that the code has, so the reasons
// cannot go stale when the claim kinds or the models grow.
func TestRegisterReasonsCurrent(t *testing.T) {
	root := datatest.Root(t)
	configs := filepath.Join(root, "configs")
	reg := models.All(simcore.Dirs{})
	// The papers' registers and the studies'.
	files, err := filepath.Glob(filepath.Join(configs, "*", "CLAIMS.md"))
	if err != nil {
		t.Fatal(err)
	}
	studies, err := filepath.Glob(filepath.Join(configs, decl.StudiesDir, "*", "CLAIMS.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range append(files, studies...) {
		dir := filepath.Dir(file)
		name, _ := filepath.Rel(configs, dir)
		text, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		r, err := decl.FolderKind(dir).Parse(strings.NewReader(string(text)), filepath.Join("configs", name, "CLAIMS.md"))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		metrics := folderMetrics(t, dir, reg)
		checks := append(slices.Clone(staleReasons[""]), staleReasons[name]...)
		// The register's free text (its header, notes) says the same things,
		// across line breaks; entries' reasons are checked below.
		var free []string
		for _, line := range strings.Split(string(text), "\n") {
			if strings.Contains(line, "cannot check:") {
				line = ""
			}
			free = append(free, line)
		}
		body := strings.Join(free, "\n")
		for _, c := range checks {
			for _, loc := range c.phrase.FindAllStringIndex(body, -1) {
				if c.have(metrics) {
					t.Errorf("%s:%d: the register says %q, but the code has %s", r.File, strings.Count(body[:loc[0]], "\n")+1, body[loc[0]:loc[1]], c.what)
				}
			}
		}
		for _, e := range r.Entries {
			if len(e.Refs) > 0 {
				continue
			}
			for _, c := range checks {
				if c.phrase.MatchString(e.Reason) && c.have(metrics) {
					t.Errorf("%s:%d: %s: the reason says %q, but the code has %s: encode the statement, or say what is really missing",
						r.File, e.Line, e.ID, c.phrase.FindString(e.Reason), c.what)
				}
			}
			for _, m := range backtickedMissing.FindAllStringSubmatch(e.Reason, -1) {
				name := m[1] + m[2]
				if slices.Contains(metrics, name) {
					t.Errorf("%s:%d: %s: the reason says %s is missing, but the model has the metric %s", r.File, e.Line, e.ID, m[0], name)
				}
			}
		}
	}
}

// TestStaleReasonPhrases: each phrase catches the wording it is for, so
// the check above can fail.
func TestStaleReasonPhrases(t *testing.T) {
	for _, c := range []struct {
		paper, reason string
	}{
		{"", "a ratio between two runs, and no claim kind bounds a ratio or a relative difference"},
		{"", "a published claim checks a value within a symmetric tolerance, not a one-sided bound on an unbounded stretch"},
		{"", "no claim kind tests a ratio"},
		{"", "the two cells differ in two parameters, and a claim compares two values of one parameter"},
		{"", "compare pairs only points equal in every parameter but its series"},
		{"lin2007", "no metric of the model measures inserted idle time"},
		{"lin2007", "no metric of the model measures how much inserted idle time a schedule uses"},
	} {
		hit := false
		for _, s := range append(slices.Clone(staleReasons[""]), staleReasons[c.paper]...) {
			hit = hit || s.phrase.MatchString(c.reason)
		}
		if !hit {
			t.Errorf("%q is not caught", c.reason)
		}
	}
	if m := backtickedMissing.FindStringSubmatch("there is no metric `iit_share` yet"); m == nil || m[1] != "iit_share" {
		t.Errorf("backticked metric not found: %v", m)
	}
	for _, fine := range []string{"no claim kind ranks the values of a series", "no claim kind tests that a curve is flat"} {
		for _, s := range staleReasons[""] {
			if s.phrase.MatchString(fine) {
				t.Errorf("%q caught by %s", fine, s.phrase)
			}
		}
	}
}

// folderMetrics returns the metric names of the models the folder's sweeps run.
func folderMetrics(t *testing.T, dir string, reg *simcore.Registry) []string {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
	var out []string
	seen := map[string]bool{}
	for _, p := range paths {
		if decl.IsReadingsFile(p) {
			continue
		}
		f, err := sweep.Load(p, reg)
		if err != nil {
			continue // TestClaimRegisters reports it
		}
		for _, s := range f.Sweeps {
			if seen[s.Model] {
				continue
			}
			seen[s.Model] = true
			for _, m := range s.Schema().Metrics {
				out = append(out, m.Name)
			}
		}
	}
	return out
}
