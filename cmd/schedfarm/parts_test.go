package main

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"schedfarm/broker"
)

var runLine = regexp.MustCompile(`run (\S+): (\d+) published, (\d+) already done`)

// runOf returns the run ID and counts a `run` printed.
func runOf(t *testing.T, o outcome) (run string, published, skipped int) {
	t.Helper()
	m := runLine.FindStringSubmatch(o.stderr)
	if m == nil {
		t.Fatalf("no run line:\n%s", o)
	}
	p, _ := strconv.Atoi(m[2])
	s, _ := strconv.Atoi(m[3])
	return m[1], p, s
}

// withStateServer serves a `run` state dir's NATS store while fn runs,
// with a farm bound to it.
func withStateServer(t *testing.T, state string, fn func(url string, farm *broker.Farm)) {
	t.Helper()
	ns, err := broker.StartServer(broker.ServerConfig{Port: -1, StoreDir: filepath.Join(state, "nats")})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		ns.Shutdown()
		ns.WaitForShutdown()
	}()
	nc, err := broker.Connect(broker.ConnConfig{URL: ns.ClientURL()})
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	farm, err := broker.Bind(ctx, nc, "", broker.BindOptions{})
	if err != nil {
		t.Fatal(err)
	}
	fn(ns.ClientURL(), farm)
}

// TestRunAgainAfterDamagedPart is the damaged-part case on the command line: a
// stored part of a `run` replaced by garbage; the next `run` of the sweep
// skips every job, then its collection names the part, marks it invalid
// and exits 4 (before the fix: a decoding error, every time); the `run`
// after that runs the part's jobs again and collects every job. Then
// `parts list` shows the part invalid, and `parts invalidate` of the first
// run makes the next `run` run its jobs again.
func TestRunAgainAfterDamagedPart(t *testing.T) {
	t.Parallel()
	state, res := t.TempDir(), t.TempDir()
	args := []string{"run", "--workers", "2", "--state-dir", state, "--results-dir", res, smokeFile}
	first := execute(t, args...)
	mustSucceed(t, first)
	run1, _, _ := runOf(t, first)

	var part string
	var jobs int
	withStateServer(t, state, func(_ string, farm *broker.Farm) {
		ctx := context.Background()
		lister, err := farm.Done.ListKeysFiltered(ctx, run1+".*")
		if err != nil {
			t.Fatal(err)
		}
		var key string
		for k := range lister.Keys() {
			key = k
		}
		e, err := farm.Done.Get(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		var rec broker.PartRecord
		if err := json.Unmarshal(e.Value(), &rec); err != nil {
			t.Fatal(err)
		}
		part, jobs = rec.Part, len(rec.Jobs)
		for _, o := range rec.Objects {
			if strings.HasSuffix(o, "/jobs.parquet") {
				if _, err := farm.Parts.PutBytes(ctx, o, []byte("not a parquet file")); err != nil {
					t.Fatal(err)
				}
			}
		}
	})

	second := execute(t, args...)
	wantExit(t, second, exitPartLost)
	if _, p, s := runOf(t, second); p != 0 || s != 100 {
		t.Errorf("the run after the damage published %d, skipped %d; want 0, 100", p, s)
	}
	want := fmt.Sprintf("stored part %s/%s (%d jobs) is bad, left out and marked invalid", run1, part, jobs)
	if !strings.Contains(second.stderr, want) || !strings.Contains(errString(second.err), "submit the sweep again (or `schedfarm run` it again)") {
		t.Fatalf("the run after the damage does not say %q and what to do:\n%s", want, second)
	}

	third := execute(t, args...)
	mustSucceed(t, third)
	if _, p, s := runOf(t, third); p != jobs || s != 100-jobs {
		t.Errorf("the run after that published %d, skipped %d; want %d, %d", p, s, jobs, 100-jobs)
	}
	if c := onlyCollected(t, third, res, "smoke"); c.ok != "100" || c.missing != "0" {
		t.Errorf("collected %+v", c)
	}

	withStateServer(t, state, func(url string, _ *broker.Farm) {
		list := execute(t, "parts", "list", run1, "--nats", url)
		mustSucceed(t, list)
		if !regexp.MustCompile(`(?m)^` + part + `\s+smoke\s+` + strconv.Itoa(jobs) + `\s+\S+\s+sha256\s+INVALID: `).MatchString(list.stdout) {
			t.Errorf("parts list does not show part %s invalid:\n%s", part, list)
		}
		inval := execute(t, "parts", "invalidate", run1, "--reason", "test", "--nats", url)
		mustSucceed(t, inval)
		if !strings.Contains(inval.stdout, "part(s) marked invalid, 1 already were") {
			t.Errorf("parts invalidate:\n%s", inval)
		}
		bad := execute(t, "parts", "invalidate", run1, "--part", "not-a-part", "--nats", url)
		wantExit(t, bad, exitUsage)
	})
	fourth := execute(t, args...)
	mustSucceed(t, fourth)
	if _, p, s := runOf(t, fourth); p != 100-jobs || s != jobs {
		t.Errorf("the run after invalidating the first run published %d, skipped %d; want %d, %d", p, s, 100-jobs, jobs)
	}
}
