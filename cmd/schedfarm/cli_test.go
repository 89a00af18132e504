package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"schedfarm/coordinator"
)

// TestProgressLine: no rate or ETA before a job has finished; a terminal's
// line is cleared before it is redrawn (a shorter line leaves nothing
// behind); a run that grew past its first total keeps a full bar.
func TestProgressLine(t *testing.T) {
	var b bytes.Buffer
	p := newProgress(&b)
	p.tty = true
	p.update(&coordinator.RunProgress{Total: 10})
	if got := b.String(); !strings.HasPrefix(got, "\r\x1b[K[") || strings.Contains(got, "ETA") || !strings.Contains(got, "starting") {
		t.Errorf("first line %q: want a cleared line, 'starting', no ETA", got)
	}
	p.start = time.Now().Add(-2 * time.Second)
	b.Reset()
	p.update(&coordinator.RunProgress{Total: 10, Done: 4})
	if got := b.String(); !strings.Contains(got, "jobs/s  ETA ") {
		t.Errorf("line %q: want a rate and an ETA once jobs finished", got)
	}
	b.Reset()
	p.finish(&coordinator.RunProgress{Total: 10, Done: 12}) // a round added jobs after the total was read
	if got := b.String(); !strings.Contains(got, "["+strings.Repeat("=", 30)+"]") || !strings.HasSuffix(got, "\n") {
		t.Errorf("final line %q", got)
	}
}

// TestNATSFlagsOnlyWhereConnected: the NATS connection's flags are on the
// commands that reach a farm's server, not on the local ones; the root
// help lists the commands in their groups.
func TestNATSFlagsOnlyWhereConnected(t *testing.T) {
	a := newApp()
	for _, c := range a.root.Commands() {
		has := c.Flags().Lookup("nats") != nil
		want := c.GroupID == "farm" && c.Name() != "server"
		if has != want {
			t.Errorf("%s: --nats defined %v, want %v", c.Name(), has, want)
		}
	}
	if o := execute(t, "validate", "--nats", "nats://x:4222", "x.yaml"); o.err == nil || !strings.Contains(o.err.Error(), "unknown flag: --nats") {
		t.Errorf("validate took --nats: %s", o)
	}
	o := execute(t, "--help")
	for _, w := range []string{"Local (one machine", "Farm (a NATS server", "Data (traces"} {
		if !strings.Contains(o.stdout, w) {
			t.Errorf("help lacks %q:\n%s", w, o.stdout)
		}
	}
}
