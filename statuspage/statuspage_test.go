package statuspage

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"schedfarm/broker"
	"schedfarm/coordinator"
	"schedfarm/results/claims"
	"schedfarm/results/report"
)

var t0 = time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)

func TestPace(t *testing.T) {
	ptr := func(f float64) *float64 { return &f }
	tests := []struct {
		name     string
		p        coordinator.RunProgress
		now      time.Time
		percent  float64
		rate     float64
		eta      *float64
		finished bool
	}{
		{"running", coordinator.RunProgress{Status: broker.RunRunning, Created: t0, Total: 100, Done: 15, Failed: 5, Queued: 80},
			t0.Add(10 * time.Second), 20, 2, ptr(40), false},
		{"skipped jobs are not work", coordinator.RunProgress{Status: broker.RunRunning, Created: t0, Total: 100, Skipped: 50, Done: 25, Queued: 25},
			t0.Add(5 * time.Second), 50, 5, ptr(5), false},
		{"nothing finished yet: no rate, no ETA", coordinator.RunProgress{Status: broker.RunRunning, Created: t0, Total: 10, Queued: 10},
			t0.Add(time.Second), 0, 0, nil, false},
		{"complete: the rate stops at its end", coordinator.RunProgress{Status: broker.RunComplete, Created: t0, Ended: t0.Add(4 * time.Second), Total: 8, Done: 8},
			t0.Add(time.Hour), 100, 2, nil, true},
		{"nothing to do is done", coordinator.RunProgress{Status: broker.RunComplete, Created: t0, Ended: t0, Total: 5, Skipped: 5},
			t0.Add(time.Second), 100, 0, nil, true},
		{"cancelled", coordinator.RunProgress{Status: broker.RunCancelled, Created: t0, Ended: t0.Add(2 * time.Second), Total: 10, Done: 2},
			t0.Add(time.Minute), 20, 1, nil, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			percent, rate, eta := pace(&tc.p, tc.now)
			if percent != tc.percent || rate != tc.rate || (eta == nil) != (tc.eta == nil) || (eta != nil && *eta != *tc.eta) {
				t.Errorf("pace = %v %%, %v jobs/s, ETA %v; want %v %%, %v jobs/s, ETA %v", percent, rate, deref(eta), tc.percent, tc.rate, deref(tc.eta))
			}
		})
	}
}

func deref(f *float64) any {
	if f == nil {
		return nil
	}
	return *f
}

const runA = "0b6c2a8e-1111-4222-8333-444455556666"

func TestBuildReadsClaims(t *testing.T) {
	root := t.TempDir()
	write := func(sweep, run, text string) {
		t.Helper()
		dir := filepath.Join(root, sweep, run)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, report.ClaimsJSON), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	claimsJSON := func(cs ...claims.Result) string {
		b, err := json.Marshal(cs)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	write("beta", runA, claimsJSON(claims.Result{ID: "b1", Verdict: claims.Fail, Numbers: "n", Text: "t"}))
	write("alpha", runA, claimsJSON(claims.Result{ID: "a1", Verdict: claims.Pass}, claims.Result{ID: "a2", Verdict: claims.Inconclusive}))
	write("other", "0b6c2a8e-1111-4222-8333-000000000000", claimsJSON(claims.Result{ID: "x", Verdict: claims.Pass}))
	const broken = "0b6c2a8e-1111-4222-8333-777777777777"
	write("alpha", broken, "{not json")

	st := &coordinator.Status{Coordinator: "c", Runs: []coordinator.RunProgress{
		{ID: runA, Status: broker.RunComplete, Total: 1, Done: 1},
		{ID: broken, Status: broker.RunComplete},
		{ID: "../alpha", Status: broker.RunComplete}, // not a run ID: nothing is read
	}}
	d := Build(st, root, t0)
	var got []string
	for _, c := range d.Runs[0].Claims {
		got = append(got, c.Sweep+"/"+c.ID+"="+string(c.Verdict))
	}
	if want := "alpha/a1=pass alpha/a2=inconclusive beta/b1=fail"; strings.Join(got, " ") != want {
		t.Errorf("claims of run A: %v, want %s", got, want)
	}
	if d.Runs[0].ClaimsError != "" {
		t.Errorf("claims error of run A: %s", d.Runs[0].ClaimsError)
	}
	if len(d.Runs[1].Claims) != 0 || !strings.Contains(d.Runs[1].ClaimsError, report.ClaimsJSON) {
		t.Errorf("a broken claims.json: claims %v, error %q; want the file named in the error", d.Runs[1].Claims, d.Runs[1].ClaimsError)
	}
	if len(d.Runs[2].Claims) != 0 || d.Runs[2].ClaimsError != "" {
		t.Errorf("a run ID with a path in it read %v, %q", d.Runs[2].Claims, d.Runs[2].ClaimsError)
	}
	// Reports: report.html, else report.md, per sweep; none for a run
	// ID with a path in it.
	for _, f := range []string{filepath.Join("alpha", runA, report.ReportHTML), filepath.Join("alpha", runA, report.ReportMarkdown),
		filepath.Join("beta", runA, report.ReportMarkdown), filepath.Join("alpha", report.ReportHTML)} {
		if err := os.WriteFile(filepath.Join(root, f), []byte("r"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	d = Build(st, root, t0)
	if want := []string{filepath.Join(root, "alpha", runA, report.ReportHTML), filepath.Join(root, "beta", runA, report.ReportMarkdown)}; !slices.Equal(d.Runs[0].Reports, want) {
		t.Errorf("reports of run A: %v, want %v", d.Runs[0].Reports, want)
	}
	if len(d.Runs[1].Reports) != 0 || len(d.Runs[2].Reports) != 0 {
		t.Errorf("reports of runs without one: %v, %v", d.Runs[1].Reports, d.Runs[2].Reports)
	}
	if d.Workers == nil || !d.ObservedAt.Equal(t0) {
		t.Errorf("workers %v (want [] not null), observed %v", d.Workers, d.ObservedAt)
	}
	// A running adaptive run without a report: the coordinator's last
	// round's verdicts, marked provisional; a report, once written, wins.
	live := coordinator.RunProgress{ID: "0b6c2a8e-1111-4222-8333-999999999999", Status: broker.RunRunning, Rounds: 2,
		RoundClaims: []coordinator.RoundClaim{{Sweep: "s", ID: "c1", Verdict: claims.Inconclusive}}}
	withReport := live
	withReport.ID = runA
	d = Build(&coordinator.Status{Runs: []coordinator.RunProgress{live, withReport}}, root, t0)
	if r := d.Runs[0]; !r.ClaimsProvisional || len(r.Claims) != 1 || r.Claims[0].ID != "c1" {
		t.Errorf("round claims: %+v", r)
	}
	if r := d.Runs[1]; r.ClaimsProvisional || len(r.Claims) != 3 {
		t.Errorf("a report's claims must win over the round's: %+v", r)
	}
}

// TestWatcherEvents: outages and failovers as the watcher sees them, from
// a sequence of polls (a coordinator's name, or "" for no answer).
func TestWatcherEvents(t *testing.T) {
	tests := []struct {
		name   string
		polls  []string
		events string
		down   bool
	}{
		{"steady", []string{"c1", "c1", "c1"}, "", false},
		{"never reached", []string{"", ""}, "unreachable", true},
		{"outage and recovery", []string{"c1", "", "", "c1"}, "unreachable recovered(c1)", false},
		{"restart under another name", []string{"c1", "", "c2", "c2"}, "unreachable failover(c1→c2)", false},
		{"failover between polls", []string{"c1", "c2"}, "failover(c1→c2)", false},
		{"down again", []string{"c1", "", "c2", ""}, "unreachable failover(c1→c2) unreachable", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := &Watcher{}
			for i, name := range tc.polls {
				now := t0.Add(time.Duration(i) * time.Second)
				if name == "" {
					w.record(nil, errors.New("no coordinator"), now)
				} else {
					w.record(&Document{Coordinator: name, Runs: []Run{}}, nil, now)
				}
			}
			d := w.Current()
			var got []string
			for _, e := range d.Events {
				s := e.Kind
				switch e.Kind {
				case EventRecovered:
					s += "(" + e.Coordinator + ")"
				case EventFailover:
					s += "(" + e.Previous + "→" + e.Coordinator + ")"
				}
				got = append(got, s)
			}
			if strings.Join(got, " ") != tc.events || (d.Unreachable != nil) != tc.down {
				t.Errorf("events %v, unreachable %v; want %q, unreachable %v", got, d.Unreachable, tc.events, tc.down)
			}
			select {
			case <-w.Polled():
			default:
				t.Error("Polled not closed after polls")
			}
		})
	}
}

func TestWatcherKeepsLastAnswer(t *testing.T) {
	w := &Watcher{}
	if d := w.Current(); d.Runs == nil || d.Workers == nil || d.Unreachable != nil {
		t.Errorf("before any poll: %+v, want empty lists", d)
	}
	w.record(&Document{Coordinator: "c1", Runs: []Run{{RunProgress: coordinator.RunProgress{ID: runA}}}}, nil, t0)
	w.record(nil, errors.New("first"), t0.Add(time.Second))
	w.record(nil, errors.New("second"), t0.Add(2*time.Second))
	d := w.Current()
	if len(d.Runs) != 1 || d.Coordinator != "c1" || d.Unreachable == nil || !d.Unreachable.Since.Equal(t0.Add(time.Second)) || d.Unreachable.Error != "second" {
		t.Errorf("while unreachable: %+v %+v; want the last answer, down since the first failure with the last error", d, d.Unreachable)
	}
	for i := 0; i < MaxEvents+10; i++ {
		w.record(&Document{Coordinator: "c1"}, nil, t0)
		w.record(nil, errors.New("x"), t0)
	}
	if n := len(w.Current().Events); n != MaxEvents {
		t.Errorf("%d events kept, want %d", n, MaxEvents)
	}
}

func TestHandler(t *testing.T) {
	w := &Watcher{}
	w.record(&Document{Coordinator: "c<1>", Runs: []Run{}}, nil, t0)
	srv := httptest.NewServer(Handler(w, true))
	defer srv.Close()
	tests := []struct {
		name, method, path, host string
		code                     int
		want                     string
	}{
		{"page", "GET", "/", "", 200, "<title>schedfarm status</title>"},
		{"document", "GET", "/status.json", "", 200, `"coordinator": "c\u003c1\u003e"`},
		{"head", "HEAD", "/", "", 200, ""},
		{"localhost", "GET", "/status.json", "localhost:8080", 200, `"runs": []`},
		{"ipv6 loopback", "GET", "/status.json", "[::1]:8080", 200, `"runs": []`},
		{"another host: DNS rebinding", "GET", "/status.json", "evil.example:8080", 403, "loopback"},
		{"read-only", "POST", "/status.json", "", 405, "read-only"},
		{"no other paths", "GET", "/debug", "", 404, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequestWithContext(context.Background(), tc.method, srv.URL+tc.path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if tc.host != "" {
				req.Host = tc.host
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.code || !strings.Contains(string(body), tc.want) {
				t.Errorf("%s %s (Host %q): %d %.200s; want %d with %q", tc.method, tc.path, tc.host, resp.StatusCode, body, tc.code, tc.want)
			}
			if resp.Header.Get("X-Content-Type-Options") != "nosniff" {
				t.Error("no X-Content-Type-Options: nosniff")
			}
		})
	}
	resp, err := http.Get(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	csp := resp.Header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "default-src 'none'") || !regexp.MustCompile(`script-src 'sha256-[A-Za-z0-9+/=]{44}'`).MatchString(csp) || strings.Contains(csp, "unsafe-inline") {
		t.Errorf("Content-Security-Policy %q: want default-src 'none' and the inline script by its hash", csp)
	}
}

// TestPageWritesNoMarkup: the page's script puts data into the DOM only
// as text, and loads nothing from elsewhere.
func TestPageWritesNoMarkup(t *testing.T) {
	for _, bad := range []string{"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function", "http://", "https://", "@import", "url("} {
		if strings.Contains(page, bad) {
			t.Errorf("page.html contains %q", bad)
		}
	}
	if strings.Count(page, "<script>") != 1 || strings.Count(page, "<style>") != 1 || strings.Contains(page, "<script src") {
		t.Error("page.html: want one inline <script> and one inline <style>, nothing loaded")
	}
}

func TestServeStops(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	w := &Watcher{Fetch: func(context.Context) (*Document, error) { return &Document{Coordinator: "c1", Runs: []Run{}}, nil }}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, ln, w, true) }()
	<-w.Polled()
	resp, err := http.Get("http://" + ln.Addr().String() + "/status.json")
	if err != nil {
		t.Fatal(err)
	}
	var d Document
	err = json.NewDecoder(resp.Body).Decode(&d)
	resp.Body.Close()
	if err != nil || d.Coordinator != "c1" {
		t.Errorf("/status.json: %+v, %v", d, err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Serve after its context ended: %v", err)
	}
}

// TestBuildSaysWhatWasCut: the document carries the coordinator's
// total_runs, older and cut (what its answer leaves out), which the page
// shows; a status with nothing cut has none of these keys.
func TestBuildSaysWhatWasCut(t *testing.T) {
	st := &coordinator.Status{Coordinator: "c", TotalRuns: 61, Older: runA,
		Runs: []coordinator.RunProgress{{ID: runA, Status: broker.RunComplete, Created: t0, Total: 300, Failed: 300, FailuresCut: 295}},
		Cut:  &coordinator.StatusCut{Runs: 11, Failures: 295, Notes: []string{"11 older runs not listed", "295 failed jobs not listed"}}}
	b, err := json.Marshal(Build(st, "", t0))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"total_runs":61`, `"older":"` + runA + `"`, `"failures_cut":295`, `"cut":{"runs":11,"failures":295,"notes":["11 older runs not listed","295 failed jobs not listed"]}`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the document lacks %s:\n%s", want, b)
		}
	}
	b, err = json.Marshal(Build(&coordinator.Status{Coordinator: "c"}, "", t0))
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"total_runs", "older", "cut"} {
		if strings.Contains(string(b), `"`+key+`"`) {
			t.Errorf("a status with nothing cut has %q: %s", key, b)
		}
	}
}
