package coordinator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go"

	"schedfarm/broker"
)

// Bounds of the client's requests to the coordinator.
const (
	// DefaultRequestTimeout is how long a request waits for its reply.
	DefaultRequestTimeout = 30 * time.Second
	// DefaultCoordinatorTimeout is how long a client keeps asking while no
	// coordinator answers (none runs: a failover takes the dead one's lease
	// TTL and the new one's start).
	DefaultCoordinatorTimeout = time.Minute
	// maxResubmits bounds how often one submission is sent again after
	// the coordinator that took it stopped.
	maxResubmits = 5
)

// NoAnswerError says that the farm did not answer in time: no coordinator
// answered within the client's bound, or a request got no reply before its
// deadline. Nothing is known of what the request did.
type NoAnswerError struct {
	// Verb is the request the command made: submit, status, cancel.
	Verb string
	// Subject is where the unanswered request went (for a submission it
	// may be the ping subject, while waiting for a coordinator).
	Subject string
	// Waited is how long the client waited in all.
	Waited time.Duration
	// Deadline is the deadline of one request.
	Deadline time.Duration
	// NoCoordinator: the last attempt found no coordinator subscribed (none
	// runs); otherwise one was, but sent no reply before the deadline.
	NoCoordinator bool
	// Run is the run a submission was for; NotSent says that it was not
	// sent (no coordinator answered the pings before it).
	Run     string
	NotSent bool
}

func (e *NoAnswerError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: the farm did not answer in time: ", e.Verb)
	if e.NoCoordinator {
		fmt.Fprintf(&b, "no coordinator answered on %s in %s (none is running: start one with `schedfarm coordinator`)",
			e.Subject, e.Waited.Round(time.Millisecond))
	} else {
		fmt.Fprintf(&b, "no reply on %s within the request's deadline of %s (waited %s in all; a coordinator is subscribed but does not answer: stuck, overloaded or cut off from the server)",
			e.Subject, e.Deadline, e.Waited.Round(time.Millisecond))
	}
	if e.NotSent {
		b.WriteString("; nothing was submitted")
	} else if e.Run != "" {
		fmt.Fprintf(&b, "; the submission was for run %s: `schedfarm status %s` tells whether a coordinator took it, and submitting the same file again gives that run, not a second one",
			e.Run, e.Run)
	}
	return b.String()
}

// replyError is an error the coordinator answered with.
type replyError struct{ msg string }

func (e *replyError) Error() string { return e.msg }

// Client sends requests to a farm's coordinator. Every request has a
// deadline (RequestTimeout); while no coordinator answers (none runs, or
// one runs but sends no reply) a request is sent again until
// CoordinatorTimeout has passed, so that a command rides out a
// coordinator's failover. A submission is sent with a run ID chosen here,
// and sent again, with the same ID, if the coordinator that took it stops
// before answering: the coordinator answers a submission of a run it
// already has with that run (see Coordinator.Submit), so nothing runs
// twice. A Client is for one goroutine at a time.
type Client struct {
	Farm *broker.Farm
	// RequestTimeout is the deadline of one request (0:
	// DefaultRequestTimeout). A submission's reply is awaited longer
	// (SubmitTimeout) while the coordinator answers pings.
	RequestTimeout time.Duration
	// CoordinatorTimeout bounds how long requests are sent again while no
	// coordinator answers (0: DefaultCoordinatorTimeout; negative: never
	// sent again).
	CoordinatorTimeout time.Duration
	// Notify, if set, receives one line when the client starts waiting for
	// a coordinator, and one when a coordinator answers again.
	Notify func(string)
	// PingEvery is how often the coordinator working on a submission is
	// pinged (0: one second).
	PingEvery time.Duration
	// SubmitTimeout is the deadline of a submission's reply (0:
	// MaxRequestTime plus RequestTimeout: the coordinator's own bound).
	SubmitTimeout time.Duration

	waiting bool
}

func (c *Client) requestTimeout() time.Duration {
	if c.RequestTimeout > 0 {
		return c.RequestTimeout
	}
	return DefaultRequestTimeout
}

func (c *Client) coordinatorTimeout() time.Duration {
	if c.CoordinatorTimeout == 0 {
		return DefaultCoordinatorTimeout
	}
	return c.CoordinatorTimeout
}

func (c *Client) notify(msg string) {
	if c.Notify != nil {
		c.Notify(msg)
	}
}

// outcome is how one request ended.
type outcome int

const (
	answered      outcome = iota // a reply came (err is the coordinator's error, if any)
	failed                       // the request could not be made (err says why)
	noCoordinator                // nobody is subscribed to the subject
	noReply                      // nobody replied before the deadline
)

// once sends one request and waits up to timeout for its reply.
func (c *Client) once(ctx context.Context, subject string, data []byte, out any, timeout time.Duration) (outcome, error) {
	rctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	msg, err := c.Farm.NC.RequestWithContext(rctx, subject, data)
	switch {
	case err == nil:
		return answered, decodeReply(msg, out)
	case errors.Is(err, nats.ErrNoResponders):
		return noCoordinator, err
	case ctx.Err() != nil:
		return failed, ctx.Err()
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrTimeout):
		return noReply, err
	}
	return failed, err
}

func decodeReply(msg *nats.Msg, out any) error {
	var rep apiReply
	if err := json.Unmarshal(msg.Data, &rep); err != nil {
		return fmt.Errorf("bad reply: %w", err)
	}
	if rep.Error != "" {
		return &replyError{rep.Error}
	}
	if out != nil {
		if err := json.Unmarshal(rep.Result, out); err != nil {
			return fmt.Errorf("bad reply: %w", err)
		}
	}
	return nil
}

// Do sends the request verb and decodes the result into out (if not nil).
// While no coordinator answers it sends the request again, every half
// second, until CoordinatorTimeout has passed since the first attempt; then
// it returns a *NoAnswerError. Only requests that may be repeated safely
// (status, cancel, ping) go through Do.
func (c *Client) Do(ctx context.Context, verb string, req, out any) error {
	return c.do(ctx, verb, verb, req, out)
}

// do is Do for a request made on behalf of another (a submission pings).
func (c *Client) do(ctx context.Context, cmdVerb, verb string, req, out any) error {
	data, err := json.Marshal(req)
	if err != nil {
		return err
	}
	subject := c.Farm.Names.APISubject(verb)
	bound := c.coordinatorTimeout()
	start := time.Now()
	for attempt := 0; ; attempt++ {
		timeout := c.requestTimeout()
		if attempt > 0 {
			timeout = min(timeout, max(bound-time.Since(start), 100*time.Millisecond))
		}
		res, err := c.once(ctx, subject, data, out, timeout)
		switch res {
		case answered:
			if c.waiting {
				c.waiting = false
				c.notify("a coordinator answers again")
			}
			return err
		case failed:
			return fmt.Errorf("%s: %w", cmdVerb, err)
		}
		waited := time.Since(start)
		if bound < 0 || waited >= bound {
			return &NoAnswerError{Verb: cmdVerb, Subject: subject, Waited: waited, Deadline: c.requestTimeout(), NoCoordinator: res == noCoordinator}
		}
		if !c.waiting {
			c.waiting = true
			why := "none is subscribed"
			if res == noReply {
				why = fmt.Sprintf("no reply within %s", timeout)
			}
			c.notify(fmt.Sprintf("waiting for a coordinator: %s on %s (%s); giving up after %s", cmdVerb, subject, why, bound))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(min(500*time.Millisecond, bound-waited)):
		}
	}
}

// Status returns the state of one run, or of the newest runs when run is
// empty (StatusFor).
func (c *Client) Status(ctx context.Context, run string) (*Status, error) {
	return c.StatusFor(ctx, StatusRequest{Run: run})
}

// StatusFor sends a status request (Coordinator.StatusFor). Only the
// fields set are sent, so a request for one run or for the newest runs is
// what coordinators before paging understood.
func (c *Client) StatusFor(ctx context.Context, req StatusRequest) (*Status, error) {
	var st Status
	if err := c.Do(ctx, "status", req, &st); err != nil {
		return nil, err
	}
	return &st, nil
}

// Cancel stops a run (Coordinator.Cancel).
func (c *Client) Cancel(ctx context.Context, run string) error {
	return c.Do(ctx, "cancel", RunRequest{Run: run}, nil)
}

// Ping returns the name of the coordinator that answers, waiting for one
// as Do does. A coordinator too old to know pings answers with an empty
// name.
func (c *Client) Ping(ctx context.Context) (string, error) {
	return c.ping(ctx, "ping")
}

func (c *Client) ping(ctx context.Context, cmdVerb string) (string, error) {
	var rep PingReply
	err := c.do(ctx, cmdVerb, "ping", struct{}{}, &rep)
	var re *replyError
	if errors.As(err, &re) {
		return "", nil // it answered: alive
	}
	return rep.Coordinator, err
}

// Submit submits a sweep. The request carries a run ID (req.Run, or a new
// one), checked and sized against the server's max_payload before anything
// is sent (CheckSubmitSize). It waits for a coordinator (Ping), sends the
// submission and pings that coordinator every PingEvery while it works; if
// the coordinator stops before answering, the same submission goes to the
// next coordinator once one answers, which gives the same run.
func (c *Client) Submit(ctx context.Context, req SubmitRequest) (*SubmitReply, error) {
	if req.Run == "" {
		req.Run = NewRunID()
	}
	if err := req.Validate(); err != nil {
		return nil, err
	}
	if err := CheckSubmitSize(req, 0, c.Farm.NC.MaxPayload()); err != nil {
		return nil, err
	}
	data, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	for tries := 0; ; tries++ {
		name, err := c.ping(ctx, "submit")
		if err != nil {
			var na *NoAnswerError
			if errors.As(err, &na) {
				na.NotSent = tries == 0
				na.Run = req.Run
			}
			return nil, err
		}
		rep, gone, err := c.submitOnce(ctx, data, name, req.Run)
		if !gone {
			return rep, err
		}
		if tries == maxResubmits {
			return nil, fmt.Errorf("submit: %d coordinators in a row stopped before answering the submission of run %s; `schedfarm status %s` shows whether it was taken", tries+1, req.Run, req.Run)
		}
		who := "the coordinator"
		if name != "" {
			who = "coordinator " + name
		}
		c.notify(fmt.Sprintf("%s stopped before answering the submission of run %s; sending it again to the next coordinator (the same run: nothing runs twice)", who, req.Run))
	}
}

// submitOnce sends a submission and waits for its reply while pinging the
// coordinator name that answered before it was sent. gone reports that
// this coordinator stopped (pings find none, or another one) before
// answering.
func (c *Client) submitOnce(ctx context.Context, data []byte, name, run string) (rep *SubmitReply, gone bool, err error) {
	subject := c.Farm.Names.APISubject("submit")
	deadline := c.SubmitTimeout
	if deadline <= 0 {
		deadline = MaxRequestTime + c.requestTimeout()
	}
	sctx, cancel := context.WithTimeout(ctx, deadline)
	defer cancel()
	start := time.Now()
	type result struct {
		msg *nats.Msg
		err error
	}
	replied := make(chan result, 1)
	go func() {
		m, err := c.Farm.NC.RequestWithContext(sctx, subject, data)
		replied <- result{m, err}
	}()
	left := make(chan struct{})
	go func() {
		every := c.PingEvery
		if every <= 0 {
			every = time.Second
		}
		t := time.NewTicker(every)
		defer t.Stop()
		ping, _ := json.Marshal(struct{}{})
		for {
			select {
			case <-sctx.Done():
				return
			case <-t.C:
			}
			var p PingReply
			res, err := c.once(sctx, c.Farm.Names.APISubject("ping"), ping, &p, min(c.requestTimeout(), 5*time.Second))
			var re *replyError
			if res == noCoordinator || (res == answered && !errors.As(err, &re) && name != "" && p.Coordinator != name) {
				close(left)
				return
			}
		}
	}()
	select {
	case <-left:
		return nil, true, nil
	case r := <-replied:
		switch {
		case r.err == nil:
			var out SubmitReply
			if err := decodeReply(r.msg, &out); err != nil {
				return nil, false, err
			}
			return &out, false, nil
		case errors.Is(r.err, nats.ErrNoResponders):
			return nil, true, nil // it stopped between the ping and the submission
		case ctx.Err() != nil:
			return nil, false, ctx.Err()
		case errors.Is(r.err, context.DeadlineExceeded) || errors.Is(r.err, nats.ErrTimeout):
			return nil, false, &NoAnswerError{Verb: "submit", Subject: subject, Waited: time.Since(start), Deadline: deadline, Run: run}
		}
		return nil, false, fmt.Errorf("submit: %w", r.err)
	}
}

// Request sends one API request to the coordinator and decodes its answer
// into out, with a deadline (ctx's, or DefaultRequestTimeout) and without
// waiting for a coordinator: no answer is a *NoAnswerError at once.
func Request(ctx context.Context, farm *broker.Farm, verb string, req, out any) error {
	c := &Client{Farm: farm, CoordinatorTimeout: -1}
	if d, ok := ctx.Deadline(); ok {
		c.RequestTimeout = max(time.Until(d), time.Millisecond)
	}
	return c.Do(ctx, verb, req, out)
}
