package workload

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"schedfarm/simcore"
)

// TestTraceCacheReadsOnce: concurrent jobs asking for one log get one
// parsed copy; other options or another log are other entries.
func TestTraceCacheReadsOnce(t *testing.T) {
	c := NewTraceCache(simcore.Dirs{"testdata"})
	const n = 8
	got := make([]*Trace, n)
	var wg sync.WaitGroup
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tr, err := c.Trace("handmade-swf.txt", ReadOptions{})
			if err != nil {
				t.Error(err)
			}
			got[i] = tr
		}()
	}
	wg.Wait()
	for i, tr := range got {
		if tr == nil || tr != got[0] {
			t.Fatalf("job %d got trace %p, job 0 %p: not one cached copy", i, tr, got[0])
		}
	}
	limited, err := c.Trace("handmade-swf.txt", ReadOptions{Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if limited == got[0] || len(limited.Records) != 2 {
		t.Fatalf("Limit 2: %d records (same entry: %v)", len(limited.Records), limited == got[0])
	}
}

// TestTraceCacheDerived: a derived value is built once per key and type;
// a failed build is not kept, so the next call builds again.
func TestTraceCacheDerived(t *testing.T) {
	c := NewTraceCache(nil)
	var builds atomic.Int32
	build := func() (int, error) { builds.Add(1); return 7, nil }
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if v, err := Derived(c, "k", build); err != nil || v != 7 {
				t.Errorf("Derived = %v, %v", v, err)
			}
		}()
	}
	wg.Wait()
	if n := builds.Load(); n != 1 {
		t.Fatalf("%d builds for one key", n)
	}
	if s, err := Derived(c, "k", func() (string, error) { return "other type", nil }); err != nil || s != "other type" {
		t.Fatalf("same key, other type: %q, %v", s, err)
	}
	boom := errors.New("boom")
	if _, err := Derived(c, "bad", func() (int, error) { return 0, boom }); !errors.Is(err, boom) {
		t.Fatalf("failed build: %v", err)
	}
	if v, err := Derived(c, "bad", func() (int, error) { return 3, nil }); err != nil || v != 3 {
		t.Fatalf("after a failed build: %v, %v; want a new build", v, err)
	}
}

// TestTraceCacheMissingLogRetried: a missing log is an error naming it,
// and once the file is there the next job reads it.
func TestTraceCacheMissingLogRetried(t *testing.T) {
	dir := t.TempDir()
	c := NewTraceCache(simcore.Dirs{dir})
	if _, err := c.Trace("traces/late.swf", ReadOptions{}); err == nil {
		t.Fatal("no error for a missing log")
	}
	raw, err := os.ReadFile("testdata/handmade-swf.txt")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "traces"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "traces", "late.swf"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if tr, err := c.Trace("traces/late.swf", ReadOptions{}); err != nil || len(tr.Records) == 0 {
		t.Fatalf("after the log arrived: %v", err)
	}
	if _, err := NewTraceCache(nil).Trace("traces/late.swf", ReadOptions{}); err == nil {
		t.Fatal("no error without a data directory")
	}
}

// TestTraceCacheLimit: a bounded cache empties itself before it would
// hold more than its limit, and builds again what it forgot.
func TestTraceCacheLimit(t *testing.T) {
	c := NewTraceCache(nil).Limit(2)
	builds := map[string]int{}
	get := func(key string) {
		t.Helper()
		v, err := Derived(c, key, func() (string, error) { builds[key]++; return key, nil })
		if err != nil || v != key {
			t.Fatalf("Derived(%q) = %q, %v", key, v, err)
		}
	}
	for _, k := range []string{"a", "b", "a", "b", "c", "c", "a"} {
		get(k)
	}
	// a and b fill it; c empties it; a comes back after c.
	if builds["a"] != 2 || builds["b"] != 1 || builds["c"] != 1 {
		t.Fatalf("builds %v, want a twice, b and c once", builds)
	}
}
