package main

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
)

// errNotLoopback refuses an address off loopback for a server that was not
// explicitly allowed there.
var errNotLoopback = errors.New("not a loopback address")

// listenLocal opens the listener of a server without authentication (the
// runtime profiles of --pprof, the status page of --serve) on addr,
// HOST:PORT, for the flag named flag. An address without a host (":6060")
// binds to loopback only. An address off loopback is refused unless
// allowed, by the flag named allowedBy; when it is served there, a warning
// is logged to log.
func listenLocal(flag, addr, example, allowedBy string, allowed bool, log *slog.Logger) (net.Listener, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("--%s %q: want HOST:PORT, e.g. %s: %w", flag, addr, example, err)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, port))
	if err != nil {
		return nil, fmt.Errorf("--%s %s: %w", flag, addr, err)
	}
	if tcp, ok := ln.Addr().(*net.TCPAddr); ok && !tcp.IP.IsLoopback() {
		if !allowed {
			ln.Close()
			return nil, fmt.Errorf("--%s %s: %w (%s): it is served without authentication; add --%s to serve it there anyway",
				flag, addr, errNotLoopback, tcp.IP, allowedBy)
		}
		log.Warn("serving without authentication on a non-loopback address", "flag", "--"+flag, "addr", ln.Addr().String())
	}
	return ln, nil
}
