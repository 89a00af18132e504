package main

import (
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
)

// servePprof serves the runtime profiles (net/http/pprof: heap, CPU,
// goroutines, allocs, execution trace...) of this process on addr, for
// `--pprof`, e.g.
//
//	schedfarm coordinator --pprof 127.0.0.1:6060 &
//	go tool pprof http://127.0.0.1:6060/debug/pprof/heap
//
// The profiles are served without authentication, so they follow the
// status page's (--serve's) rule: an address without a host (":6060")
// binds to loopback only, and another interface is refused unless
// anyAddress (--pprof-any-address; then a warning is logged to log). The command
// line (/debug/pprof/cmdline) is not served: it may hold a secret
// (--token, --password). It returns the bound address once the listener
// is up, so a bad address is an error of the command, not a log line.
func servePprof(addr string, anyAddress bool, log *slog.Logger) (net.Addr, error) {
	ln, err := listenLocal("pprof", addr, "127.0.0.1:6060", "pprof-any-address", anyAddress, log)
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprofIndex)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	log.Info("serving pprof", "addr", ln.Addr().String())
	go func() {
		if err := http.Serve(ln, mux); err != nil {
			log.Warn("pprof server stopped", "err", err)
		}
	}()
	return ln.Addr(), nil
}

// pprofIndex is pprof.Index without the command line: the index page and
// the named runtime profiles (heap, goroutine, allocs...).
func pprofIndex(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/debug/pprof/cmdline" {
		http.Error(w, "the command line is not served: it may hold secrets", http.StatusNotFound)
		return
	}
	pprof.Index(w, r)
}
