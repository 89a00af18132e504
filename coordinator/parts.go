package coordinator

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"schedfarm/broker"
)

// StoredPart describes a stored part of a run, as `schedfarm parts list`
// shows it.
type StoredPart struct {
	Run, Part, Sweep, Worker string
	// Jobs is how many jobs' results it holds; Objects its object count.
	Jobs, Objects int
	// Verified: its registry entry records the objects' digests (entries
	// of workers from before digests do not; their parts are read
	// unverified).
	Verified bool
	// Invalid, with the marker's Reason, By and At, when it is invalid.
	Invalid bool
	Reason  string
	By      string
	At      time.Time
}

// ListParts lists the stored parts of run, in registry order.
func ListParts(ctx context.Context, farm *broker.Farm, run string) ([]StoredPart, error) {
	parts, markers, err := readRegistry(ctx, farm.Done, run+".*", run+".*"+broker.InvalidSuffix)
	if err != nil {
		return nil, fmt.Errorf("parts of run %s: %w", run, err)
	}
	sortByRevision(parts)
	out := make([]StoredPart, len(parts))
	for i, p := range parts {
		sp := StoredPart{Run: p.Run, Part: p.Part, Sweep: p.Sweep, Worker: p.Worker, Jobs: len(p.Jobs), Objects: len(p.Objects),
			Verified: len(p.SHA256) == len(p.Objects) && len(p.Objects) > 0}
		if m, ok := markers[p.key()]; ok {
			sp.Invalid, sp.Reason, sp.By, sp.At = true, m.Reason, m.By, m.At
		}
		out[i] = sp
	}
	return out, nil
}

// InvalidateParts marks parts of run invalid with reason (every part of
// the run when parts is empty): a marker beside each one's registry entry
// (broker.InvalidRecord; nothing is deleted), by which the coordinator
// counts their jobs as not done, so that the next submission of the sweep
// runs them again, and collections leave them out. by says who (the
// command and host). A part ID the run has not is an error, before any
// part is marked. It returns how many parts it marked and how many were
// invalid already.
func InvalidateParts(ctx context.Context, farm *broker.Farm, run string, parts []string, reason, by string) (marked, already int, err error) {
	all, markers, err := readRegistry(ctx, farm.Done, run+".*", run+".*"+broker.InvalidSuffix)
	if err != nil {
		return 0, 0, fmt.Errorf("invalidate parts of run %s: %w", run, err)
	}
	byID := make(map[string]registered, len(all))
	for _, p := range all {
		byID[p.Part] = p
	}
	todo := all
	if len(parts) > 0 {
		todo = nil
		for _, id := range parts {
			p, ok := byID[id]
			if !ok {
				return 0, 0, fmt.Errorf("invalidate parts of run %s: it has no part %s (`schedfarm parts list %s` lists them)", run, id, run)
			}
			todo = append(todo, p)
		}
	}
	if len(todo) == 0 {
		return 0, 0, fmt.Errorf("invalidate parts of run %s: it has no stored part", run)
	}
	sortByRevision(todo)
	now := time.Now().UTC()
	for _, p := range todo {
		if _, ok := markers[p.key()]; ok {
			already++
			continue
		}
		fresh, err := farm.Invalidate(ctx, broker.InvalidRecord{Run: p.Run, Part: p.Part, Jobs: p.Jobs, Reason: reason, By: by, At: now})
		if err != nil {
			return marked, already, err
		}
		if fresh {
			marked++
		} else {
			already++
		}
	}
	return marked, already, nil
}

// sortByRevision orders parts as they were registered.
func sortByRevision(parts []registered) {
	slices.SortFunc(parts, func(a, b registered) int { return cmp.Compare(a.Revision, b.Revision) })
}
