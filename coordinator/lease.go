package coordinator

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// leaseKey is the key of the coordinator lease in the farm's locks bucket.
const leaseKey = "coordinator"

// ErrLeaseHeld is returned by Start when another live coordinator drives
// the farm.
var ErrLeaseHeld = errors.New("another coordinator holds the farm")

// holder is the value of the lease: who holds it and since when, and what
// tells, on the holder's own machine, whether its process still runs.
type holder struct {
	Name  string    `json:"name"`
	Host  string    `json:"host"`
	PID   int       `json:"pid"`
	Since time.Time `json:"since"`
	// Boot identifies the running kernel (a new one at every boot), PIDNS
	// the holder's PID namespace and Start its process's start time in
	// clock ticks since boot: with Host, they say whether PID, seen from
	// another process, is the holder's process or another that reuses its
	// number (selfProcess). Empty where the system does not tell (then the
	// holder is waited for, never taken over).
	Boot  string `json:"boot,omitempty"`
	PIDNS string `json:"pidns,omitempty"`
	Start uint64 `json:"start,omitempty"`
}

// me returns the lease value naming this coordinator and its process.
func (c *Coordinator) me() ([]byte, holder, error) {
	host, _ := os.Hostname()
	h := holder{Name: c.name, Host: host, PID: os.Getpid(), Since: time.Now().UTC()}
	h.Boot, h.PIDNS, h.Start = selfProcess()
	b, err := json.Marshal(h)
	return b, h, err
}

// deadHolder reports whether the lease's holder h is a process of this
// machine (me: this process) that has ended: the same host name, kernel
// boot and PID namespace, and no process with its PID or only one that
// started at another time (its PID reused), or a zombie. A holder on
// another machine, in another PID namespace (another container on the same
// kernel), of a system that does not say, or whose process cannot be looked
// at is never dead here: its lease expires one TTL after its last renewal.
// The residual risk is a host name, boot ID and namespace all equal on two
// machines (a cloned VM image that kept its boot ID cannot: the kernel
// draws a new one at every boot).
func deadHolder(h, me holder) (bool, string) {
	if h.Boot == "" || h.PIDNS == "" || h.Start == 0 || h.PID <= 0 ||
		h.Host != me.Host || h.Boot != me.Boot || h.PIDNS != me.PIDNS {
		return false, ""
	}
	if h.PID == me.PID && h.Start == me.Start {
		return false, "" // this process (another coordinator in it)
	}
	return processGone(h.PID, h.Start)
}

// acquireLease takes the farm's coordinator lease. One coordinator drives a
// farm's runs at a time: the lease is a key in a bucket whose entries expire
// after the lease TTL unless renewed. A live holder renews it every TTL/3,
// so a second coordinator that has waited a whole TTL without getting it
// gives up with the holder's name; a holder that died (kill -9) stops
// renewing, its entry expires, and a restarted coordinator gets it within
// one TTL — at once when the dead holder was a process of this machine
// (deadHolder), as the next `schedfarm run` on a state dir is after one
// that crashed.
func (c *Coordinator) acquireLease(ctx context.Context) (uint64, error) {
	val, me, err := c.me()
	if err != nil {
		return 0, err
	}
	ttl := c.farm.Settings.LeaseTTL
	deadline := time.Now().Add(ttl + ttl/2)
	logged := false
	// again counts the tries made at once, without the wait: after the
	// entry went away or was replaced between two requests. Bounded, so
	// that two requests that keep disagreeing wait like any other.
	again := 0
	for {
		rev, err := c.farm.Locks.Create(ctx, leaseKey, val)
		if err == nil {
			c.leaseVal = val
			return rev, nil
		}
		if !errors.Is(err, jetstream.ErrKeyExists) {
			return 0, fmt.Errorf("coordinator lease: %w", err)
		}
		var h holder
		e, gerr := c.farm.Locks.Get(ctx, leaseKey)
		switch {
		case errors.Is(gerr, jetstream.ErrKeyNotFound) && again < 3:
			again++
			continue // released or expired since: take it
		case gerr == nil:
			_ = json.Unmarshal(e.Value(), &h)
			if dead, why := deadHolder(h, me); dead {
				// Nobody renews it: replace that very entry (another
				// coordinator replacing it first makes this fail).
				rev, err := c.farm.Locks.Update(ctx, leaseKey, val, e.Revision())
				if err == nil {
					c.leaseVal = val
					c.log.Info("took over the coordinator lease of a holder that died on this host",
						"holder", h.Name, "pid", h.PID, "why", why)
					return rev, nil
				}
				if !revisionMismatch(err) {
					return 0, fmt.Errorf("coordinator lease: taking over from %s (pid %d, %s): %w", h.Name, h.PID, why, err)
				}
				if again < 3 {
					again++
					continue // changed meanwhile: look again
				}
			}
		}
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("%w: %s on %s (pid %d) since %s; stop it first, or give this farm another --prefix",
				ErrLeaseHeld, h.Name, h.Host, h.PID, h.Since.Local().Format(time.DateTime))
		}
		if !logged {
			c.log.Warn("waiting for the coordinator lease (a live holder keeps it; a dead one's expires)",
				"holder", h.Name, "host", h.Host, "pid", h.PID, "ttl", ttl)
			logged = true
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(ttl / 10):
		}
	}
}

// keepLease renews the lease every TTL/3 until ctx ends, then releases it.
// The lease is given up (lost is called) only when another coordinator
// holds it. A renewal that fails (JetStream briefly unable to write, or
// unreachable) is retried; if the entry expired meanwhile it is created
// again — no other coordinator can have taken it while writes were failing
// for everyone, and if one did, the creation fails and the lease is lost.
func (c *Coordinator) keepLease(ctx context.Context, rev uint64, lost func()) {
	ttl := c.farm.Settings.LeaseTTL
	t := time.NewTicker(ttl / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			c.releaseLease(rev)
			return
		case <-t.C:
		}
		e, err := c.farm.Locks.Get(ctx, leaseKey)
		switch {
		case err == nil && e.Revision() != rev:
			c.log.Error("coordinator lease lost: another coordinator took over")
			lost()
			return
		case err == nil:
			var next uint64
			if next, err = c.farm.Locks.Update(ctx, leaseKey, e.Value(), rev); err == nil {
				rev = next
				continue
			}
		case errors.Is(err, jetstream.ErrKeyNotFound):
			// Expired while renewals failed: take it again, unless someone did.
			next, cerr := c.acquireOnce(ctx)
			if cerr == nil {
				c.log.Warn("coordinator lease expired during a JetStream outage; taken again")
				rev = next
				continue
			}
			if errors.Is(cerr, jetstream.ErrKeyExists) {
				c.log.Error("coordinator lease lost: another coordinator took over after it expired")
				lost()
				return
			}
			err = cerr
		}
		if ctx.Err() == nil {
			c.log.Warn("coordinator lease renewal failed; retrying", "err", err)
		}
	}
}

// acquireOnce tries once to create the lease entry.
func (c *Coordinator) acquireOnce(ctx context.Context) (uint64, error) {
	val, _, err := c.me()
	if err != nil {
		return 0, err
	}
	rev, err := c.farm.Locks.Create(ctx, leaseKey, val)
	if err == nil {
		c.leaseVal = val
	}
	return rev, err
}

// releaseLease deletes the lease entry this coordinator holds, last seen
// at revision rev, with a deadline of its own (the coordinator's context
// has ended). When the entry has moved on, it is deleted still if it holds
// this coordinator's own value: a renewal whose context ended as it was
// sent may have reached the server, leaving rev one behind, and a lease
// left so would make the next coordinator wait a whole TTL. Another
// holder's entry is left alone.
func (c *Coordinator) releaseLease(rev uint64) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	err := c.farm.Locks.Delete(ctx, leaseKey, jetstream.LastRevision(rev))
	if err == nil || !revisionMismatch(err) {
		return
	}
	e, err := c.farm.Locks.Get(ctx, leaseKey)
	if err != nil || !bytes.Equal(e.Value(), c.leaseVal) {
		return
	}
	_ = c.farm.Locks.Delete(ctx, leaseKey, jetstream.LastRevision(e.Revision()))
}

// revisionMismatch reports whether err is a key-value write refused
// because the entry's revision is not the one given (any replication).
func revisionMismatch(err error) bool {
	return errors.Is(err, jetstream.ErrKeyRevisionMismatch) || errors.Is(err, jetstream.ErrKeyExists)
}
