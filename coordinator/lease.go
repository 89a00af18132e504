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
// If the lease is lost (renewal refused: another coordinator took it after
// this one stalled for a whole TTL), lost is called.
func (c *Coordinator) keepLease(ctx context.Context, rev uint64, lost func()) {
	t := time.NewTicker(c.farm.Settings.LeaseTTL / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			rctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			_ = c.farm.Locks.Delete(rctx, leaseKey, jetstream.LastRevision(rev))
			cancel()
			return
		case <-t.C:
			e, err := c.farm.Locks.Get(ctx, leaseKey)
			if err != nil && ctx.Err() == nil {
				c.log.Error("coordinator lease lost", "err", err)
				lost()
				return
			}
			if err != nil {
				continue
			}
			next, err := c.farm.Locks.Update(ctx, leaseKey, e.Value(), rev)
			if err != nil {
				if ctx.Err() == nil {
					c.log.Error("coordinator lease lost: another coordinator took over", "err", err)
					lost()
				}
				return
			}
			rev = next
		}
	}
}
