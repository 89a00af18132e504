package main

import (
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"

	"schedfarm/farmtest"
)

// TestPprofHidesCommandLine: --pprof serves the runtime profiles but not
// the command line, which may carry --token; an address without a host
// binds to loopback only.
func TestPprofHidesCommandLine(t *testing.T) {
	var logs farmtest.SyncBuffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	addr, err := servePprof(":0", false, log)
	if err != nil {
		t.Fatal(err)
	}
	if tcp, ok := addr.(*net.TCPAddr); !ok || !tcp.IP.IsLoopback() {
		t.Fatalf("--pprof :0 bound %v, want a loopback address", addr)
	}
	get := func(path string) (int, string) {
		t.Helper()
		resp, err := http.Get("http://" + addr.String() + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	code, body := get("/debug/pprof/cmdline")
	if code != http.StatusNotFound || strings.Contains(body, os.Args[0]) {
		t.Errorf("/debug/pprof/cmdline: status %d, body %q: the command line must not be served", code, body)
	}
	if code, _ := get("/debug/pprof/heap?debug=1"); code != http.StatusOK {
		t.Errorf("/debug/pprof/heap: status %d", code)
	}
	if code, body := get("/debug/pprof/"); code != http.StatusOK || !strings.Contains(body, "goroutine") {
		t.Errorf("/debug/pprof/: status %d", code)
	}
	if _, err := servePprof("6060", false, log); err == nil || !strings.Contains(err.Error(), "HOST:PORT") {
		t.Errorf("--pprof 6060: %v, want an error asking for HOST:PORT", err)
	}
}

// TestPprofOffLoopback: --pprof follows --serve's rule: an address off
// loopback is refused (exit 2, naming the flag that allows it) unless
// --pprof-any-address is given.
func TestPprofOffLoopback(t *testing.T) {
	o := execute(t, "models", "--pprof", "0.0.0.0:0")
	wantExit(t, o, exitUsage)
	if !strings.Contains(o.err.Error(), "--pprof-any-address") || !strings.Contains(o.err.Error(), "not a loopback address") {
		t.Errorf("the error does not name --pprof-any-address: %s", o)
	}
	o = execute(t, "models", "--pprof", "0.0.0.0:0", "--pprof-any-address")
	mustSucceed(t, o)
	if !strings.Contains(o.stderr, `level=WARN msg="serving without authentication on a non-loopback address" flag=--pprof`) {
		t.Errorf("--pprof-any-address off loopback: no warning on stderr:\n%s", o)
	}
}
