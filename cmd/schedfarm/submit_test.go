package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"schedfarm/broker"
)

// writeBigSuite writes a suite including a small sweep and one whose doc
// is docBytes long, and returns its path.
func writeBigSuite(t *testing.T, dir string, docBytes int) string {
	t.Helper()
	writeFile(t, filepath.Join(dir, "small.yaml"), "name: small\nmodel: bench\nseed: 1\nparams: {work_ms: 0}\n")
	writeFile(t, filepath.Join(dir, "big.yaml"), fmt.Sprintf("name: big\nmodel: bench\nseed: 2\ndoc: %s\nparams: {work_ms: 0}\n", strings.Repeat("y", docBytes)))
	return writeFile(t, filepath.Join(dir, "suite.yaml"), "include: [small.yaml, big.yaml]\n")
}

// TestSubmitOverMaxPayload: `submit` of a sweep bundle larger than the
// server's max_payload (a server configured with 256 KiB) is bad input
// (exit 2) with the file's size, the server's limit and what to do, said
// before anything is sent: no run is recorded.
func TestSubmitOverMaxPayload(t *testing.T) {
	dir := t.TempDir()
	conf := writeFile(t, filepath.Join(dir, "nats.conf"), "max_payload: 262144\n")
	ns, err := broker.StartServer(broker.ServerConfig{Port: -1, StoreDir: filepath.Join(dir, "nats"), ConfigFile: conf})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		ns.Shutdown()
		ns.WaitForShutdown()
	}()
	suite := writeBigSuite(t, filepath.Join(dir, "sweeps"), 300<<10)
	o := execute(t, "submit", suite, "--nats", ns.ClientURL())
	wantExit(t, o, exitUsage)
	for _, want := range []string{suite, "300.", "KiB", "max_payload of 256.0 KiB (262144 bytes)", "split the sweep", "raise the server's max_payload"} {
		if !strings.Contains(errString(o.err), want) {
			t.Errorf("error does not say %q:\n%s", want, o)
		}
	}
	nc, err := broker.Connect(broker.ConnConfig{URL: ns.ClientURL()})
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	farm, err := broker.Create(context.Background(), nc, broker.DefaultSettings())
	if err != nil {
		t.Fatal(err)
	}
	if lister, err := farm.Runs.ListKeys(context.Background()); err == nil {
		for k := range lister.Keys() {
			t.Errorf("run %s recorded", k)
		}
	}
}

// TestRunOverEmbeddedMaxPayload: `run` of a sweep larger than its
// embedded server's max_payload (broker.DefaultMaxPayload) is bad input
// said before the server starts: nothing is created in the state dir.
func TestRunOverEmbeddedMaxPayload(t *testing.T) {
	dir := t.TempDir()
	suite := writeBigSuite(t, filepath.Join(dir, "sweeps"), broker.DefaultMaxPayload+(64<<10))
	state := filepath.Join(dir, "state")
	o := execute(t, "run", suite, "--state-dir", state, "--results-dir", filepath.Join(dir, "runs"), "--workers", "1")
	wantExit(t, o, exitUsage)
	for _, want := range []string{suite, "MiB", "embedded NATS server's max_payload of 8.0 MiB", "split the sweep"} {
		if !strings.Contains(errString(o.err), want) {
			t.Errorf("error does not say %q:\n%.2000s", want, errString(o.err))
		}
	}
	if _, err := os.Stat(state); !os.IsNotExist(err) {
		t.Errorf("state dir %s created (%v): the embedded server was started", state, err)
	}
}

// TestRunIDArgument: a RUN that is not a run ID is bad input, said as
// such (what a run ID looks like), before any farm is reached: collect
// "*" once gave "nats: invalid key", after a wait for the server.
func TestRunIDArgument(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"collect", "*"},
		{"collect", "../x"},
		{"cancel", "*"},
		{"status", "*"},
	} {
		o := execute(t, append(args, "--nats", "nats://127.0.0.1:1")...)
		wantExit(t, o, exitUsage)
		if !strings.Contains(o.err.Error(), "is not a run ID: run IDs are UUIDs") {
			t.Errorf("%s: the error does not say what a run ID is", o)
		}
	}
}
