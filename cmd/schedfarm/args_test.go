package main

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestArgsMessages: a command given too few or too many arguments says
// what it takes with an example, or what to do instead (verify A B: use
// --against; run with no file: which file to give), exit status 2 — not
// cobra's "accepts 1 arg(s), received 2".
func TestArgsMessages(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"run"}, []string{"run needs one sweep file, e.g. `schedfarm run configs/smoke.yaml`", "the shipped sweeps are under configs/"}},
		{[]string{"run", "a.yaml", "b.yaml"}, []string{`run takes one sweep file, got 2 ("a.yaml", "b.yaml")`, "under `include:` in one file, as configs/quick-all.yaml does"}},
		{[]string{"submit"}, []string{"submit needs one sweep file, e.g. `schedfarm submit configs/smoke.yaml`"}},
		{[]string{"expand", "a", "b", "c", "d", "e", "f"}, []string{`expand takes one sweep file, got 6 ("a", "b", "c", "d", and 2 more)`}},
		{[]string{"validate"}, []string{"validate needs one or more sweep files, e.g. `schedfarm validate configs/smoke.yaml`"}},
		{[]string{"verify"}, []string{"verify needs one folder", "e.g. `schedfarm verify runs/smoke/<run-id> --against configs/golden/smoke`"}},
		{[]string{"verify", "runs/smoke/a", "runs/smoke/b"}, []string{"verify takes one folder", "got 2", "to compare two, `schedfarm verify runs/smoke/a --against runs/smoke/b`"}},
		{[]string{"verify", "a", "b", "c"}, []string{"to compare two, `schedfarm verify A --against B`"}},
		{[]string{"report"}, []string{"report needs one run: its ID or a results folder, e.g. `schedfarm report runs/smoke/<run-id>`"}},
		{[]string{"export", "a", "b"}, []string{"export takes one run", "the folder to write goes after --out"}},
		{[]string{"collect"}, []string{"collect needs a run ID, e.g. `schedfarm collect <run-id>`", "`schedfarm status` lists the farm's runs"}},
		{[]string{"cancel", "a", "b"}, []string{`cancel takes a run ID, got 2 ("a", "b"); cancel one run at a time`}},
		{[]string{"parts", "list"}, []string{"parts list needs a run ID, e.g. `schedfarm parts list <run-id>`"}},
		{[]string{"parts", "invalidate"}, []string{"parts invalidate needs a run ID"}},
		{[]string{"parts", "lst", "r1"}, []string{"parts takes no arguments, only a subcommand (invalidate, list)", "did you mean `schedfarm parts list r1`?"}},
		{[]string{"status", "a", "b"}, []string{"status takes at most one run ID, got 2"}},
		{[]string{"drain"}, []string{"drain needs a worker's name", "`schedfarm status` lists the workers"}},
		{[]string{"server", "4222"}, []string{`server takes no arguments, got "4222"; flags start with --, e.g. ` + "`schedfarm server --port 4222"}},
		{[]string{"coordinator", "x"}, []string{"coordinator takes no arguments", "flags start with --"}},
		{[]string{"worker", "x"}, []string{"worker takes no arguments"}},
		{[]string{"bench", "x"}, []string{"bench takes no arguments"}},
		{[]string{"version", "x"}, []string{"version takes no arguments"}},
		{[]string{"traces", "fech"}, []string{"did you mean `schedfarm traces fetch`?"}},
		{[]string{"traces", "CTC-SP2-1996-3.1-cln"}, []string{"did you mean `schedfarm traces fetch CTC-SP2-1996-3.1-cln`?"}},
		{[]string{"run", "\x1b[2Jx", "y"}, []string{`"\\x1b[2Jx"`}}, // escaped
		{[]string{"rnu"}, []string{"unknown command \"rnu\"", "Did you mean this?\n    run"}},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			t.Parallel()
			o := execute(t, c.args...)
			wantExit(t, o, exitUsage)
			msg := safeLines(o.err.Error()) // as runMain prints it
			for _, w := range c.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error lacks %q:\n%s", w, msg)
				}
			}
			if strings.Contains(msg, "arg(s)") || strings.Contains(msg, "\x1b") {
				t.Errorf("cobra's bare message, or raw control text:\n%q", msg)
			}
		})
	}
}

// TestEveryCommandSaysWhatItTakes walks the command tree: every command
// that bounds its arguments gives, for a wrong count, a message with an
// example or a did-you-mean, never cobra's bare one; only the commands
// listed take any number.
func TestEveryCommandSaysWhatItTakes(t *testing.T) {
	t.Parallel()
	anyCount := map[string]bool{"schedfarm": true, "schedfarm models": true, "schedfarm traces fetch": true}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		path := c.CommandPath()
		if c.Args == nil {
			if !anyCount[path] {
				t.Errorf("%s: no Args (cobra's default accepts anything, or says only \"unknown command\"): give it wantArgs", path)
			}
			return
		}
		for n := 0; n <= 5; n++ {
			args := make([]string, n)
			for i := range args {
				args[i] = "x"
			}
			err := c.Args(c, args)
			if err == nil {
				continue
			}
			msg := err.Error()
			if exitCode(err) != exitUsage || strings.Contains(msg, "arg(s)") || strings.Contains(msg, "unknown command") ||
				!strings.Contains(msg, "e.g. `schedfarm ") && !strings.Contains(msg, "did you mean") && !strings.Contains(msg, "; ") {
				t.Errorf("%s with %d argument(s): exit %d, %q: want bad input naming what it takes, with an example", path, n, exitCode(err), msg)
			}
		}
	}
	walk(newApp().root)
}
