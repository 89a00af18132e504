package main

import (
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
)

// servePprof serves the runtime profiles (net/http/pprof: heap, CPU,
// goroutines, allocs...) of this process on addr, for `--pprof`, e.g.
//
//	schedfarm coordinator --pprof 127.0.0.1:6060 &
//	go tool pprof http://127.0.0.1:6060/debug/pprof/heap
//
// It returns once the listener is bound, so a bad address is an error of
// the command, not a log line.
func servePprof(addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("--pprof %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	slog.Info("serving pprof", "addr", ln.Addr().String())
	go func() {
		if err := http.Serve(ln, mux); err != nil {
			slog.Warn("pprof server stopped", "err", err)
		}
	}()
	return nil
}
