package statuspage

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"
)

//go:embed page.html
var page string

// Handler serves the page at / and the document at /status.json, read
// only (GET and HEAD). On a loopback listener (checkHost) it answers only
// requests whose Host is a loopback address or localhost, so that a web
// page elsewhere cannot read the farm's state through DNS rebinding.
func Handler(w *Watcher, checkHost bool) http.Handler {
	csp := "default-src 'none'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'; " +
		"script-src " + inlineHash(page, "script") + "; style-src " + inlineHash(page, "style")
	mux := http.NewServeMux()
	mux.HandleFunc("/{$}", func(rw http.ResponseWriter, r *http.Request) {
		rw.Header().Set("Content-Type", "text/html; charset=utf-8")
		rw.Header().Set("Content-Security-Policy", csp)
		_, _ = rw.Write([]byte(page))
	})
	mux.HandleFunc("/status.json", func(rw http.ResponseWriter, r *http.Request) {
		b, err := json.MarshalIndent(w.Current(), "", "  ")
		if err != nil {
			http.Error(rw, err.Error(), http.StatusInternalServerError)
			return
		}
		rw.Header().Set("Content-Type", "application/json")
		rw.Header().Set("Cache-Control", "no-store")
		_, _ = rw.Write(append(b, '\n'))
	})
	return http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		h := rw.Header()
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			h.Set("Allow", "GET, HEAD")
			http.Error(rw, "read-only: GET and HEAD only", http.StatusMethodNotAllowed)
			return
		}
		if checkHost && !loopbackHost(r.Host) {
			http.Error(rw, "this page answers only requests addressed to a loopback address or localhost", http.StatusForbidden)
			return
		}
		mux.ServeHTTP(rw, r)
	})
}

// loopbackHost reports whether a Host header names a loopback address or
// localhost.
func loopbackHost(hostport string) bool {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = hostport
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// inlineHash is the CSP source of the one <tag> element of page.
func inlineHash(page, tag string) string {
	open := strings.Index(page, "<"+tag+">")
	end := strings.Index(page, "</"+tag+">")
	if open < 0 || end < open {
		return "'none'"
	}
	sum := sha256.Sum256([]byte(page[open+len(tag)+2 : end]))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

// Serve polls with w and serves the page on ln until ctx ends; then it
// closes ln and returns once every request has been answered (at most
// a few seconds).
func Serve(ctx context.Context, ln net.Listener, w *Watcher, checkHost bool) error {
	srv := &http.Server{Handler: Handler(w, checkHost), ReadHeaderTimeout: 10 * time.Second}
	pctx, stopPolls := context.WithCancel(ctx)
	defer stopPolls()
	polled := make(chan struct{})
	go func() {
		defer close(polled)
		w.Run(pctx)
	}()
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		stopPolls()
		<-polled
		return fmt.Errorf("status page on %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	err := srv.Shutdown(sctx)
	<-polled
	<-done
	if err != nil {
		return fmt.Errorf("status page on %s: %w", ln.Addr(), err)
	}
	return nil
}
