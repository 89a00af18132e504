package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// signalError is the cause of the root context's cancellation when a
// signal ended it.
type signalError struct{ sig os.Signal }

func (e *signalError) Error() string { return "stopped by " + e.sig.String() }

// signalExit is the conventional exit status of a process a signal ended:
// 128 + the signal's number (130 for SIGINT, 143 for SIGTERM).
func signalExit(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 128 + int(syscall.SIGINT)
}

// catchSignals returns a context that the first SIGINT or SIGTERM cancels
// (its cause a *signalError), after logging what it stops (phase() names
// the command's current phase): every phase stops at its next look at the
// context, keeping what it finished. The second signal calls
// exit(signalExit(sig)) at once, for a phase that does not stop. stop ends
// the catching and releases the context.
//
// signal.Notify on a channel, not signal.NotifyContext: the second signal
// must reach this process's handler, not be swallowed.
func catchSignals(parent context.Context, phase func() (command, phase string), exit func(int)) (ctx context.Context, stop func()) {
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	ctx, cancel := context.WithCancelCause(parent)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var first os.Signal
		select {
		case first = <-ch:
		case <-done:
			return
		}
		command, p := phase()
		what := cmp.Or(command, "schedfarm")
		if p != "" {
			what = "the " + p + " phase of " + what
		}
		slog.Warn(fmt.Sprintf("%s: stopping %s (what is finished is kept); a second signal exits at once", first, what),
			"signal", first.String(), "phase", p)
		cancel(&signalError{first})
		select {
		case second := <-ch:
			_, p := phase()
			slog.Warn(fmt.Sprintf("%s again: exiting at once", second), "signal", second.String(), "phase", p)
			exit(signalExit(second))
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(ch)
		close(done)
		wg.Wait()
		cancel(nil)
	}
}

// interruptedBy returns the signal that cancelled ctx when err is the
// cancellation it caused (an error wrapping context.Canceled), else nil.
func interruptedBy(ctx context.Context, err error) os.Signal {
	var se *signalError
	if errors.Is(err, context.Canceled) && errors.As(context.Cause(ctx), &se) {
		return se.sig
	}
	return nil
}

// runMain runs args on a's command tree with SIGINT and SIGTERM caught
// (catchSignals, exit called on a second signal), writes a failure to
// stderr and returns the exit status: 128 + the signal's number for a
// command a signal stopped.
func runMain(a *app, args []string, stderr io.Writer, exit func(int)) int {
	ctx, stop := catchSignals(context.Background(), a.phases.current, exit)
	defer stop()
	a.root.SetArgs(args)
	err := a.root.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	if sig := interruptedBy(ctx, err); sig != nil {
		fmt.Fprintf(stderr, "schedfarm: stopped by %s: %s\n", sig, safeLines(err.Error()))
		return signalExit(sig)
	}
	fmt.Fprintln(stderr, "schedfarm:", safeLines(err.Error()))
	return exitCode(err)
}

// phaseLog is the command running and the phase it is in: what the signal
// handler says it stops; each phase's start is a debug log line (which
// tests wait for).
type phaseLog struct {
	mu            sync.Mutex
	command, name string
}

// current returns the command ("schedfarm expand") and the phase started
// last ("" before they start).
func (p *phaseLog) current() (command, phase string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.command, p.name
}

// started records that command starts.
func (p *phaseLog) started(command string) {
	p.mu.Lock()
	p.command = command
	p.mu.Unlock()
}

// phase records that the command starts phase name and logs it (debug).
func (a *app) phase(name string) {
	a.phases.mu.Lock()
	a.phases.name = name
	a.phases.mu.Unlock()
	a.logger().Debug("phase started", "phase", name)
}

// ctxWriter is a writer that fails with an error wrapping ctx's once ctx
// ends: output of a long listing stops at the next write.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c ctxWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, fmt.Errorf("writing the output: %w", err)
	}
	return c.w.Write(p)
}
