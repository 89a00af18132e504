// Command schedfarm is the one binary of the schedfarm parameter-sweep farm:
// `schedfarm run FILE` runs a sweep on this machine with an embedded NATS
// server; `server`, `coordinator`, `worker`, `submit`, `status`, `collect`,
// `cancel` and `drain` run the same farm across machines; `validate`,
// `expand` and `models` help write sweep files.
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"

	"schedfarm/broker"
	"schedfarm/coordinator"
	"schedfarm/results/collect"
	"schedfarm/simcore"
	"schedfarm/simcore/models"
	"schedfarm/simcore/workload"
)

// exitError carries a process exit status through cobra.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// Exit statuses. The Go runtime exits 2 on a crash (a panic or a fatal
// error such as running out of memory, with "panic:" or "fatal error:" and
// the goroutines on stderr) and no program can change that; every error
// of schedfarm's own is printed after "schedfarm:", so the two exits 2
// are told apart by the text (docs/commands.md). A command that SIGINT or
// SIGTERM stopped exits with 128 + the signal's number (signalExit: 130,
// 143).
const (
	exitFailures = 1 // the run finished with failed jobs (or a failed claim under --strict)
	exitUsage    = 2 // bad input: flags, sweep file, unknown run
	exitNoAnswer = 3 // the farm did not answer in time: a request's deadline expired, or no coordinator answered within --coordinator-timeout
	exitPartLost = 4 // a stored result part could not be read or decoded (lost or damaged in the object store)
)

// main runs the command line; the first SIGINT or SIGTERM stops the
// command (exit status 130 or 143 once it has stopped), a second one exits
// at once with the same status (catchSignals).
func main() {
	os.Exit(runMain(newApp(), os.Args[1:], os.Stderr, os.Exit))
}

// exitCode is the exit status of a command that failed with err.
func exitCode(err error) int {
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	// Before the timeouts: a part whose read times out is lost or damaged,
	// not a farm that does not answer.
	var pe *collect.PartError
	if errors.As(err, &pe) {
		return exitPartLost
	}
	var na *coordinator.NoAnswerError
	if errors.As(err, &na) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrTimeout) {
		return exitNoAnswer
	}
	return exitUsage
}

// app holds the command tree and its configuration (viper: flags, then
// SCHEDFARM_* environment variables, then the optional config file).
type app struct {
	root *cobra.Command
	v    *viper.Viper
	// embedded is the in-process NATS server of `run`; connections to it
	// go through in-memory pipes rather than loopback TCP.
	embedded nats.InProcessConnProvider
	prov     provenanceOnce
	// lastElapsed is the time from submission to the last job's end of
	// the latest runLocal (what `bench` measures the farm by).
	lastElapsed time.Duration
	// known is the table of traces `traces` lists and `traces fetch`
	// fetches (nil: workload.Known); tests set their own.
	known []workload.KnownTrace
	// phases is the phase the command is in (app.phase).
	phases phaseLog
	// log is the command's logger, on the command's stderr (set before
	// it runs; nil before).
	log *slog.Logger
}

func newApp() *app {
	a := &app{v: viper.New()}
	a.root = &cobra.Command{
		Use:           "schedfarm",
		Short:         "A distributed parameter-sweep farm for scheduling research",
		Long:          "schedfarm expands YAML sweeps into simulation jobs, runs them on workers pulling from NATS JetStream,\nand collects the results into Parquet tables.",
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			a.phases.started(cmd.CommandPath())
			return a.loadConfig(cmd)
		},
	}
	pf := a.root.PersistentFlags()
	pf.String("config", "", "config file (YAML/TOML/JSON) with any of the flags as keys")
	pf.StringSlice("data-dir", simcore.DefaultDataDirs(), "directories searched, in order, for models' input files (traces); traces fetch writes into the first")
	pf.String("results-dir", "runs", "where collected results go: <results-dir>/<sweep>/<run-id>/")
	pf.String("log-level", "warn", "log level: debug, info, warn, error")
	pf.String("pprof", "", "serve this process's runtime profiles (net/http/pprof: heap, CPU, goroutines, execution trace; not the command line) without authentication on HOST:PORT; \":6060\" binds to loopback only, another interface is refused without --pprof-any-address")
	pf.Bool("pprof-any-address", false, "allow --pprof on an address off loopback: whoever reaches it reads this process's memory profiles")
	// The commands in the groups people use them in: on one machine, on a
	// farm, with data.
	a.root.AddGroup(
		&cobra.Group{ID: "local", Title: "Local (one machine, embedded NATS or none):"},
		&cobra.Group{ID: "farm", Title: "Farm (a NATS server, a coordinator, workers):"},
		&cobra.Group{ID: "data", Title: "Data (traces, exports, speed):"},
	)
	for _, g := range []struct {
		id   string
		cmds []*cobra.Command
	}{
		{"local", []*cobra.Command{a.runCmd(), a.validateCmd(), a.expandCmd(), a.modelsCmd(), a.reportCmd(), a.verifyCmd()}},
		{"farm", []*cobra.Command{a.serverCmd(), a.coordinatorCmd(), a.workerCmd(), a.submitCmd(), a.statusCmd(), a.collectCmd(), a.partsCmd(), a.cancelCmd(), a.drainCmd()}},
		{"data", []*cobra.Command{a.tracesCmd(), a.exportCmd(), a.benchCmd()}},
	} {
		for _, c := range g.cmds {
			c.GroupID = g.id
			a.root.AddCommand(c)
			// NATS settings only where a NATS server is reached: the farm's
			// commands but server, which takes its clients' credentials.
			switch {
			case c.Name() == "server":
				addAuthFlags(c.Flags(), "clients' NATS")
			case g.id == "farm":
				addNATSFlags(c.Flags())
			}
		}
	}
	a.root.AddCommand(a.versionCmd())
	return a
}

func (a *app) loadConfig(cmd *cobra.Command) error {
	v := a.v
	v.SetEnvPrefix("SCHEDFARM")
	v.SetEnvKeyReplacer(strings.NewReplacer("-", "_"))
	v.AutomaticEnv()
	var bindErr error
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if err := v.BindPFlag(f.Name, f); err != nil && bindErr == nil {
			bindErr = err
		}
	})
	if bindErr != nil {
		return bindErr
	}
	if file := v.GetString("config"); file != "" {
		v.SetConfigFile(file)
		if err := v.ReadInConfig(); err != nil {
			return &exitError{exitUsage, fmt.Errorf("config file %s: %w", file, err)}
		}
	}
	// A subcommand's own flags are read from Go variables, not from viper:
	// give those not set on the command line the environment's or the
	// config file's value.
	var setErr error
	cmd.LocalNonPersistentFlags().VisitAll(func(f *pflag.Flag) {
		if f.Changed || !v.IsSet(f.Name) || setErr != nil {
			return
		}
		var err error
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			err = sv.Replace(v.GetStringSlice(f.Name))
		} else {
			err = f.Value.Set(v.GetString(f.Name))
		}
		if err != nil {
			setErr = &exitError{exitUsage, fmt.Errorf("--%s from the environment or config file: %w", f.Name, err)}
		}
	})
	if setErr != nil {
		return setErr
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(v.GetString("log-level"))); err != nil {
		return &exitError{exitUsage, fmt.Errorf("--log-level: %w", err)}
	}
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level})))
	// The command's own logger writes where the command writes its
	// errors (os.Stderr but in tests, which read it).
	a.log = slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: level}))
	if addr := v.GetString("pprof"); addr != "" {
		if _, err := servePprof(addr, v.GetBool("pprof-any-address"), a.log); err != nil {
			return &exitError{exitUsage, err}
		}
	}
	return nil
}

// logger returns the command's logger (slog's default before the command
// runs).
func (a *app) logger() *slog.Logger {
	if a.log != nil {
		return a.log
	}
	return slog.Default()
}

// addNATSFlags adds the settings of a NATS connection to a command that
// connects to a farm's server.
func addNATSFlags(fs *pflag.FlagSet) {
	fs.String("nats", "nats://127.0.0.1:4222", "NATS server URL")
	fs.String("creds", "", "NATS credentials file (JWT + NKey seed)")
	fs.String("nkey", "", "file holding a NATS user NKey seed")
	addAuthFlags(fs, "NATS")
	fs.String("tls-ca", "", "CA file to verify the NATS server")
	fs.String("tls-cert", "", "client certificate file")
	fs.String("tls-key", "", "client key file")
	fs.String("prefix", broker.DefaultPrefix, "prefix of the farm's NATS subjects, streams and buckets (several farms can share one server)")
}

// addAuthFlags adds user, password and token: a client's (NATS) or those a
// server requires of its clients.
func addAuthFlags(fs *pflag.FlagSet, whose string) {
	fs.String("user", "", whose+" user")
	fs.String("password", "", whose+" password (a flag shows in ps: prefer SCHEDFARM_PASSWORD or the config file)")
	fs.String("token", "", whose+" token (a flag shows in ps: prefer SCHEDFARM_TOKEN or the config file)")
}

// addPackingFlag adds --packing to a command that runs a coordinator.
func addPackingFlag(fs *pflag.FlagSet) {
	fs.String("packing", "auto", "jobs per message: auto (tiny jobs are measured and packed, up to 256 per message), off, or a number")
}

// addCoordinatorFlags adds the settings of the farm's resources to a
// command that runs a coordinator (coordinator, run): the coordinator alone
// creates the farm's stream, consumer and buckets and sets their
// configuration; workers and clients read it from the server.
func addCoordinatorFlags(fs *pflag.FlagSet) {
	d := broker.DefaultSettings()
	fs.Duration("ack-wait", d.AckWait, "time a delivered job may go without an ack or heartbeat before it is redelivered")
	fs.Int("max-deliver", d.MaxDeliver, "deliveries of a job before it is recorded as failed")
	fs.Int("replicas", d.Replicas, "JetStream replicas of the farm's streams and buckets (3 on a NATS cluster)")
}

// packing returns the coordinator's packing policy from --packing.
func (a *app) packing() (coordinator.Packing, error) {
	return coordinator.ParsePacking(a.v.GetString("packing"))
}

// registry returns every model built into this binary.
func (a *app) registry() *simcore.Registry {
	return buildRegistry(a.dataDirs())
}

// dataDirs is --data-dir as a list. A flag or config list arrives split;
// SCHEDFARM_DATA_DIR=a,b reaches viper as the one string "a,b", so every
// element is split on commas here.
func (a *app) dataDirs() simcore.Dirs {
	var out simcore.Dirs
	for _, d := range a.v.GetStringSlice("data-dir") {
		for _, part := range strings.Split(d, ",") {
			if part = strings.TrimSpace(part); part != "" {
				out = append(out, part)
			}
		}
	}
	return out
}

// buildRegistry returns every model built into this binary.
func buildRegistry(data simcore.DataDir) *simcore.Registry { return models.All(data) }

func (a *app) connConfig(name string) broker.ConnConfig {
	v := a.v
	return broker.ConnConfig{
		URL: v.GetString("nats"), Name: name, CredsFile: v.GetString("creds"), NKeyFile: v.GetString("nkey"),
		User: v.GetString("user"), Password: v.GetString("password"), Token: v.GetString("token"),
		CAFile: v.GetString("tls-ca"), CertFile: v.GetString("tls-cert"), KeyFile: v.GetString("tls-key"),
		Logger: a.logger(), InProcess: a.embedded,
	}
}

// connectCoordinator connects to the configured NATS server as a
// coordinator: it creates the farm's missing resources with the
// coordinator's settings (coordinator.Start sets those of existing ones
// once it holds the lease).
func (a *app) connectCoordinator(ctx context.Context, name string) (*broker.Farm, error) {
	nc, err := broker.Connect(a.connConfig(name))
	if err != nil {
		return nil, err
	}
	farm, err := broker.Create(ctx, nc, a.settings())
	if err != nil {
		nc.Close()
		return nil, err
	}
	return farm, nil
}

// clientWait bounds how long a client command without
// --coordinator-timeout (collect, drain) waits for a coordinator to create
// the farm's resources.
const clientWait = 30 * time.Second

// connect connects to the configured NATS server as a worker or a client:
// it binds to the farm's resources as the coordinator made them, and
// never creates or changes them. While they do not exist it waits — a
// worker until ctx ends, a client for its --coordinator-timeout (else
// clientWait), then gives up with exit status 3. check, if not nil, runs
// on the connection before it binds: what can be refused without a
// coordinator (a sweep over the server's max_payload) is refused at once.
func (a *app) connect(ctx context.Context, name string, worker bool, check ...func(*nats.Conn) error) (*broker.Farm, error) {
	nc, err := broker.Connect(a.connConfig(name))
	if errors.Is(err, nats.ErrNoServers) {
		return nil, &exitError{exitNoAnswer, err} // no server answered: not bad input
	}
	if err != nil {
		return nil, err
	}
	for _, c := range check {
		if err := c(nc); err != nil {
			nc.Close()
			return nil, err
		}
	}
	wait := clientWait
	if a.v.Get("coordinator-timeout") != nil { // the command has the flag
		wait = max(a.v.GetDuration("coordinator-timeout"), 2*time.Second)
	}
	if !worker {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, wait)
		defer cancel()
	}
	farm, err := broker.Bind(ctx, nc, a.prefix(), broker.BindOptions{Logger: a.logger()})
	if err != nil {
		nc.Close()
		if !worker && errors.Is(err, context.DeadlineExceeded) {
			return nil, &exitError{exitNoAnswer, fmt.Errorf("%w (is a coordinator running on %s with --prefix %s?)", err, a.v.GetString("nats"), a.prefix())}
		}
		return nil, err
	}
	return farm, nil
}

// prefix is --prefix.
func (a *app) prefix() string {
	if p := a.v.GetString("prefix"); p != "" {
		return p
	}
	return broker.DefaultPrefix
}

// settings are the coordinator's settings of the farm's resources.
func (a *app) settings() broker.Settings {
	s := broker.DefaultSettings()
	if d := a.v.GetDuration("ack-wait"); d > 0 {
		s.AckWait = d
	}
	if n := a.v.GetInt("max-deliver"); n > 0 {
		s.MaxDeliver = n
	}
	s.Prefix = a.prefix()
	if r := a.v.GetInt("replicas"); r > 0 {
		s.Replicas = r
	}
	return s
}
