package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"schedfarm/simcore/workload"
	"schedfarm/sweep"
)

// argSpec is what a command takes as positional arguments, for the message
// of a wrong count: cobra's own ("accepts 1 arg(s), received 2") says
// neither what to give nor what to do instead.
type argSpec struct {
	min, max int    // how many; max -1: no bound
	what     string // what the command takes: "one sweep file"
	example  string // a command line that gives it
	where    string // where to find one ("" when the example says it)
	// more is what to do instead when there are too many, from the
	// arguments given ("" for the generic message).
	more func(args []string) string
}

// wantArgs returns the cobra.PositionalArgs of a command that takes what s
// says: a wrong count is bad input (exit status 2) whose message names
// what the command takes, an example, and with too many what to do
// instead; a command of subcommands suggests the one meant.
func wantArgs(s argSpec) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) >= s.min && (s.max < 0 || len(args) <= s.max) {
			return nil
		}
		return &exitError{exitUsage, fmt.Errorf("%s", argsMessage(cmd, s, args))}
	}
}

// argsMessage is wantArgs's message for args.
func argsMessage(cmd *cobra.Command, s argSpec, args []string) string {
	name := strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" ")
	var b strings.Builder
	switch {
	case len(args) < s.min:
		fmt.Fprintf(&b, "%s needs %s, e.g. `%s`", name, s.what, s.example)
		if s.where != "" {
			b.WriteString("; " + s.where)
		}
	case s.max == 0 && cmd.HasAvailableSubCommands():
		var subs []string
		for _, c := range cmd.Commands() {
			if c.IsAvailableCommand() {
				subs = append(subs, c.Name())
			}
		}
		fmt.Fprintf(&b, "%s takes no arguments, only a subcommand (%s), got %s", name, strings.Join(subs, ", "), quoteArgs(args))
		if meant := subcommandMeant(cmd, args); meant != "" {
			fmt.Fprintf(&b, ": did you mean `%s`?", meant)
		} else {
			fmt.Fprintf(&b, ", e.g. `%s`", s.example)
		}
	case s.max == 0:
		fmt.Fprintf(&b, "%s takes no arguments, got %s; flags start with --, e.g. `%s` (`%s --help` lists them)", name, quoteArgs(args), s.example, cmd.CommandPath())
	case s.more != nil:
		fmt.Fprintf(&b, "%s takes %s, got %d (%s); %s", name, s.what, len(args), quoteArgs(args), s.more(args))
	default:
		fmt.Fprintf(&b, "%s takes %s, got %d (%s), e.g. `%s`", name, s.what, len(args), quoteArgs(args), s.example)
	}
	return b.String()
}

// subcommandMeant returns the command line a user who gave args to a
// command of subcommands probably meant: the subcommand closest to the
// first argument, or the only one with the arguments given. "" when none.
func subcommandMeant(cmd *cobra.Command, args []string) string {
	var names []string
	for _, c := range cmd.Commands() {
		if c.IsAvailableCommand() {
			names = append(names, c.Name())
		}
	}
	rest := make([]string, len(args))
	for i, a := range args {
		rest[i] = workload.ShellQuote(safe(a, maxNameLen))
	}
	for _, n := range names {
		if sweep.DidYouMean(args[0], names) == fmt.Sprintf("did you mean %q?", n) {
			return strings.Join(append([]string{cmd.CommandPath(), n}, rest[1:]...), " ")
		}
	}
	if len(names) == 1 {
		return strings.Join(append([]string{cmd.CommandPath(), names[0]}, rest...), " ")
	}
	return ""
}

// quoteArgs lists arguments as the user gave them, escaped and cut short
// (they are untrusted text), at most four.
func quoteArgs(args []string) string {
	const most = 4
	q := make([]string, 0, most+1)
	for i, a := range args {
		if i == most {
			q = append(q, fmt.Sprintf("and %d more", len(args)-most))
			break
		}
		q = append(q, fmt.Sprintf("%q", safe(a, maxNameLen)))
	}
	return strings.Join(q, ", ")
}

// oneSweep is the argSpec of a command that takes one sweep file (run,
// submit, expand).
func oneSweep(name string) argSpec {
	return argSpec{min: 1, max: 1, what: "one sweep file", example: "schedfarm " + name + " configs/smoke.yaml",
		where: sweepsWhere,
		more: func([]string) string {
			return "to " + name + " several sweep files as one run, name them under `include:` in one file, as configs/quick-all.yaml does"
		}}
}

// sweepsWhere says where sweep files are.
const sweepsWhere = "the shipped sweeps are under configs/ (configs/smoke.yaml, configs/<paper>/quick.yaml, configs/quick-all.yaml); `schedfarm validate FILE...` checks sweep files"

// oneRunID is the argSpec of a farm command that takes the ID of one run.
func oneRunID(name, example string) argSpec {
	return argSpec{min: 1, max: 1, what: "a run ID", example: example,
		where: "`schedfarm status` lists the farm's runs with their IDs (`schedfarm submit` printed it)",
		more:  func([]string) string { return name + " one run at a time" }}
}

// noArgs is the argSpec of a command that takes flags only.
func noArgs(example string) argSpec { return argSpec{min: 0, max: 0, example: example} }
