package coordinator

import (
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

// holder is the value of the lease: who holds it and since when.
type holder struct {
	Name  string    `json:"name"`
	Host  string    `json:"host"`
	PID   int       `json:"pid"`
	Since time.Time `json:"since"`
}

// acquireLease takes the farm's coordinator lease. One coordinator drives a
// farm's runs at a time: the lease is a key in a bucket whose entries expire
// after the lease TTL unless renewed. A live holder renews it every TTL/3,
// so a second coordinator that has waited a whole TTL without getting it
// gives up with the holder's name; a holder that died (kill -9) stops
// renewing, its entry expires, and a restarted coordinator gets it within
// one TTL.
func (c *Coordinator) acquireLease(ctx context.Context) (uint64, error) {
	host, _ := os.Hostname()
	me, err := json.Marshal(holder{Name: c.name, Host: host, PID: os.Getpid(), Since: time.Now().UTC()})
	if err != nil {
		return 0, err
	}
	ttl := c.farm.Settings.LeaseTTL
	deadline := time.Now().Add(ttl + ttl/2)
	logged := false
	for {
		rev, err := c.farm.Locks.Create(ctx, leaseKey, me)
		if err == nil {
			return rev, nil
		}
		if !errors.Is(err, jetstream.ErrKeyExists) {
			return 0, fmt.Errorf("coordinator lease: %w", err)
		}
		var h holder
		if e, gerr := c.farm.Locks.Get(ctx, leaseKey); gerr == nil {
			_ = json.Unmarshal(e.Value(), &h)
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
			rctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			_ = c.farm.Locks.Delete(rctx, leaseKey, jetstream.LastRevision(rev))
			cancel()
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
	host, _ := os.Hostname()
	me, err := json.Marshal(holder{Name: c.name, Host: host, PID: os.Getpid(), Since: time.Now().UTC()})
	if err != nil {
		return 0, err
	}
	return c.farm.Locks.Create(ctx, leaseKey, me)
}
