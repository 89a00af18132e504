package workload

import (
	"fmt"
	"reflect"
	"sync"

	"schedfarm/simcore"
)

// TraceCache keeps the logs a model has read, and what the model derived
// from them, for the model's lifetime: parsing a log costs more than many
// runs on it, and a sweep runs on one log thousands of times. A model owns
// its cache (the farm keeps no package-level state), built with
// NewTraceCache over the model's data directory.
//
// It is safe for concurrent use: the first job that needs an entry builds
// it, jobs that need it meanwhile wait for it, and jobs that need other
// entries do not wait. A build that fails is not kept, so the next job
// tries again (a log fetched meanwhile is then found). Cached values are
// shared by every job: they must only be read.
type TraceCache struct {
	data    simcore.DataDir
	limit   int // 0: no limit
	mu      sync.Mutex
	entries map[cacheKey]*cacheEntry
}

// cacheKey tells entries apart by what they hold (the Go type of the
// value) and by the caller's key.
type cacheKey struct {
	kind reflect.Type
	key  string
}

// cacheEntry is one value, ready when ready is closed.
type cacheEntry struct {
	ready chan struct{}
	v     any
	err   error
}

// NewTraceCache returns an empty cache of the logs in data (nil when the
// model runs only synthetic workloads: Trace then says no data directory
// is configured).
func NewTraceCache(data simcore.DataDir) *TraceCache {
	return &TraceCache{data: data, entries: map[cacheKey]*cacheEntry{}}
}

// Limit bounds the cache to n entries (n > 0): a new entry that would make
// it hold more first empties it, for a model whose keys never repeat in
// some sweeps (a trace generated per seed). It returns c.
func (c *TraceCache) Limit(n int) *TraceCache {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.limit = n
	return c
}

// Trace returns the log name (relative to the data directory, plain or
// gzip) parsed with opt, reading it on the first call with that name and
// options.
func (c *TraceCache) Trace(name string, opt ReadOptions) (*Trace, error) {
	return Derived(c, fmt.Sprintf("%s\x00%+v", name, opt), func() (*Trace, error) {
		f, err := OpenTrace(c.data, name)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		t, err := Read(f, opt)
		if err != nil {
			return nil, fmt.Errorf("trace %s: %w", name, err)
		}
		return t, nil
	})
}

// Derived returns the value of type T cached under key, calling build on
// the first call with that key and type (a log converted under some
// conventions, a model fitted on it). key must name everything build
// depends on. build may call back into the cache for other entries (Trace,
// say), never for its own.
func Derived[T any](c *TraceCache, key string, build func() (T, error)) (T, error) {
	k := cacheKey{reflect.TypeFor[T](), key}
	c.mu.Lock()
	e, ok := c.entries[k]
	if !ok {
		if c.limit > 0 && len(c.entries) >= c.limit {
			clear(c.entries) // entries being built still reach their waiters
		}
		e = &cacheEntry{ready: make(chan struct{})}
		c.entries[k] = e
	}
	c.mu.Unlock()
	if ok {
		<-e.ready
	} else {
		c.build(k, e, func() (any, error) { return build() })
	}
	if e.err != nil {
		var zero T
		return zero, e.err
	}
	v, _ := e.v.(T) // a nil interface value is the zero T
	return v, nil
}

// build fills e and marks it ready; a failed build, or one that panics
// (the panic goes on up), leaves no entry behind and wakes its waiters with
// an error.
func (c *TraceCache) build(k cacheKey, e *cacheEntry, build func() (any, error)) {
	done := false
	defer func() {
		if !done {
			e.err = fmt.Errorf("trace cache: building %q panicked", k.key)
		}
		if e.err != nil {
			c.mu.Lock()
			if c.entries[k] == e {
				delete(c.entries, k)
			}
			c.mu.Unlock()
		}
		close(e.ready)
	}()
	e.v, e.err = build()
	done = true
}
