package modeltest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"hash/fnv"
	"math"
	"os"
	"slices"
	"testing"

	"schedfarm/simcore"
)

// PrintEnv is the environment variable that makes Pins log the hashes it
// computed, as Go map entries, instead of comparing them: set it to re-pin
// after a deliberate change of behaviour (which also bumps the model's
// version).
const PrintEnv = "SCHEDFARM_PIN_PRINT"

// Instance is one run of a pinned digest: its number in the digest (the
// index of the instance in the test's list, which stays when a run is left
// out for some algorithm), parameters (completed against the model's
// schema by Digest) and the seed.
type Instance struct {
	N      int
	Params simcore.Params
	Seed   uint64
}

// Digest runs m on each instance in turn and returns the first 16 hex
// digits of the SHA-256 of, for each run, "instance N:" followed by
// simcore.WriteDigest of its result: every metric and table column but the
// measured ones, floats by their bits. Every result must pass the schema,
// and every table named in nonEmpty must have rows (the pinned runs do
// schedule something).
func Digest(t testing.TB, m simcore.Model, runs []Instance, nonEmpty ...string) string {
	t.Helper()
	s := m.Schema()
	h := sha256.New()
	for _, in := range runs {
		r := Run(t, m, in.Params, in.Seed)
		for _, name := range nonEmpty {
			if tab := r.Tables[name]; tab == nil || tab.Len() == 0 {
				t.Fatalf("%s %v: no %s table", m.Name(), in.Params, name)
			}
		}
		fmt.Fprintf(h, "instance %d:", in.N)
		simcore.WriteDigest(h, s, r)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// Hash is an FNV-64a hash of a sequence of numbers, each written as the 8
// little-endian bytes of its bits (a float's IEEE bits, an integer as
// uint64): a schedule's pinned hash is one over its start times, say.
type Hash struct {
	h hash.Hash64
	b [8]byte
}

// NewHash returns an empty Hash.
func NewHash() *Hash { return &Hash{h: fnv.New64a()} }

// Uint writes u.
func (h *Hash) Uint(u uint64) {
	for i := range h.b {
		h.b[i] = byte(u >> (8 * i))
	}
	h.h.Write(h.b[:])
}

// Float writes each x by its IEEE bits.
func (h *Hash) Float(x ...float64) {
	for _, v := range x {
		h.Uint(math.Float64bits(v))
	}
}

// Int writes each x as a uint64.
func (h *Hash) Int(x ...int64) {
	for _, v := range x {
		h.Uint(uint64(v))
	}
}

// Sum returns the hash of what was written.
func (h *Hash) Sum() uint64 { return h.h.Sum64() }

// Pins compares the computed hashes got with the pinned ones, name by name
// in sorted order: a name pinned but not computed, computed but not pinned,
// or with another hash fails t. With PrintEnv set it logs every computed
// hash as a Go map entry instead.
func Pins[V comparable](t testing.TB, want, got map[string]V) {
	t.Helper()
	names := make([]string, 0, len(got))
	for name := range got {
		names = append(names, name)
	}
	slices.Sort(names)
	if os.Getenv(PrintEnv) != "" {
		for _, name := range names {
			t.Logf("%q: %#v,", name, got[name])
		}
		return
	}
	for _, name := range names {
		w, ok := want[name]
		switch {
		case !ok:
			t.Errorf("%s: no pinned hash; computed %#v", name, got[name])
		case got[name] != w:
			t.Errorf("%s: hash %#v, pinned %#v: a decision changed", name, got[name], w)
		}
	}
	pinned := make([]string, 0, len(want))
	for name := range want {
		if _, ok := got[name]; !ok {
			pinned = append(pinned, name)
		}
	}
	slices.Sort(pinned)
	for _, name := range pinned {
		t.Errorf("%s: pinned but not computed", name)
	}
}
