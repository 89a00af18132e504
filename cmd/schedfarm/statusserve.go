package main

import (
	"context"
	"fmt"
	"net"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"schedfarm/broker"
	"schedfarm/coordinator"
	"schedfarm/statuspage"
)

// maxPollTimeout bounds one poll of the status page's watcher: a
// coordinator that takes longer is shown as unreachable until it answers.
const maxPollTimeout = 10 * time.Second

// addServeFlags adds the status page's flags to a command (status, run).
func addServeFlags(fs *pflag.FlagSet) {
	fs.String("serve", "", "serve the live status page (read-only, no authentication) on HOST:PORT, e.g. 127.0.0.1:8080; \":8080\" binds to loopback only, another interface is refused without --serve-any-address")
	fs.Bool("serve-any-address", false, "allow --serve on an address off loopback: whoever reaches it sees the farm's runs, workers and errors")
}

// statusDocument is the document of `status --json` and of the status
// page: the coordinator's status, with each run's rate, ETA and the claim
// verdicts of its reports under --results-dir.
func (a *app) statusDocument(st *coordinator.Status) *statuspage.Document {
	return statuspage.Build(st, a.v.GetString("results-dir"), time.Now())
}

// listenStatusPage opens --serve's listener, or returns nil when --serve
// is not set. A bad or refused address is bad input.
func (a *app) listenStatusPage() (net.Listener, error) {
	addr := a.v.GetString("serve")
	if addr == "" {
		return nil, nil
	}
	ln, err := listenLocal("serve", addr, "127.0.0.1:8080", "serve-any-address", a.v.GetBool("serve-any-address"), a.logger())
	if err != nil {
		return nil, &exitError{exitUsage, err}
	}
	return ln, nil
}

// serveStatusPage serves the status page on ln, polling status, until ctx
// ends; it says where on stderr. The returned channel receives Serve's
// result once it stops.
func (a *app) serveStatusPage(ctx context.Context, cmd *cobra.Command, ln net.Listener, status func(context.Context) (*coordinator.Status, error)) <-chan error {
	w := &statuspage.Watcher{Fetch: func(ctx context.Context) (*statuspage.Document, error) {
		st, err := status(ctx)
		if err != nil {
			return nil, err
		}
		return a.statusDocument(st), nil
	}}
	loopback := false
	if tcp, ok := ln.Addr().(*net.TCPAddr); ok {
		loopback = tcp.IP.IsLoopback()
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "status page: http://%s/ (read-only; JSON at /status.json)\n", ln.Addr())
	done := make(chan error, 1)
	go func() { done <- statuspage.Serve(ctx, ln, w, loopback) }()
	return done
}

// remoteStatus asks the farm's coordinator for the status req asks (one
// run, or a page of runs) once, without waiting for a coordinator: the page
// shows one that does not answer as unreachable and asks again.
func (a *app) remoteStatus(farm *broker.Farm, req coordinator.StatusRequest) func(context.Context) (*coordinator.Status, error) {
	timeout := a.v.GetDuration("request-timeout")
	if timeout <= 0 || timeout > maxPollTimeout {
		timeout = maxPollTimeout
	}
	return func(ctx context.Context) (*coordinator.Status, error) {
		rctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		var st coordinator.Status
		if err := coordinator.Request(rctx, farm, "status", req, &st); err != nil {
			return nil, err
		}
		return &st, nil
	}
}
