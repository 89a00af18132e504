package broker

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/nats-io/nats.go/jetstream"
)

// Stored parts: how they are written once and read back verified.
//
// A worker stores a part's objects with PutObject, which refuses to
// replace an object of the same name, and registers the part with
// Register: a key-value Create, which fails when the key exists. The
// coordinator makes the registry create-only on the server as well
// (SealRegistry): its stream refuses a second message on a key, so no
// client, whatever its credentials, can overwrite, delete or purge an
// entry through the key-value API. The object store has no such mode (its
// put replaces an object, by design), so a client allowed to put objects
// can still replace one; the SHA-256 digest of every object, recorded in
// the part's create-only registry entry (PartRecord.SHA256), is what makes
// that visible: the bytes a PartReader reads are checked against it at
// collection.
//
// A part found damaged, lost or undecodable is invalidated with a marker
// in the registry (InvalidRecord under InvalidKey), never deleted: its
// jobs count as not done, so the next submission runs them again.

// ErrDamaged marks a stored object that is lost or damaged for good: its
// metadata is gone, chunks are missing, or its bytes do not match the
// digest recorded for them. A read that merely failed (a timeout, a
// server that does not answer) does not wrap it.
var ErrDamaged = errors.New("damaged or lost in the object store")

// ErrExists is returned by PutObject and Register when the name or key
// holds something else already: a part is written once.
var ErrExists = errors.New("already stored with other content (parts are written once)")

// Digest is the digest of a part object as PartRecord.SHA256 records it:
// the SHA-256 of its bytes, in lower-case hex.
func Digest(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// PutObject stores data under name in the parts object store unless an
// object of that name exists: one with the same bytes is left as it is
// (a retried put whose first reply was lost), one with other bytes is
// ErrExists. Object names are unique per part, so the check costs a
// lookup and never refuses a worker's own part; it is not atomic (the
// object store has no create-only put), see the note above.
func (f *Farm) PutObject(ctx context.Context, name string, data []byte) error {
	info, err := f.Parts.GetInfo(ctx, name)
	switch {
	case err == nil:
		h := sha256.New()
		h.Write(data)
		if info.Size == uint64(len(data)) && info.Digest == jetstream.GetObjectDigestValue(h) {
			return nil
		}
		return fmt.Errorf("object %s: %w", name, ErrExists)
	case !errors.Is(err, jetstream.ErrObjectNotFound):
		return fmt.Errorf("object %s: look up before storing: %w", name, err)
	}
	if _, err := f.Parts.PutBytes(ctx, name, data); err != nil {
		return fmt.Errorf("object %s: %w", name, err)
	}
	return nil
}

// Register creates the registry entry key with value: a key that holds
// the same value already is success (a retried create whose first reply
// was lost), one that holds another is ErrExists.
func (f *Farm) Register(ctx context.Context, key string, value []byte) error {
	_, err := f.Done.Create(ctx, key, value)
	if err == nil {
		return nil
	}
	e, gerr := f.Done.Get(ctx, key)
	if gerr != nil {
		return fmt.Errorf("registry entry %s: %w", key, err)
	}
	if bytes.Equal(e.Value(), value) {
		return nil
	}
	return fmt.Errorf("registry entry %s: %w", key, ErrExists)
}

// PartReader reads part objects (Read), the object store's stream looked
// up once. It is safe for concurrent use.
type PartReader struct {
	f  *Farm
	st jetstream.Stream
}

// NewPartReader returns a reader of the farm's part objects.
func (f *Farm) NewPartReader(ctx context.Context) (*PartReader, error) {
	name := "OBJ_" + f.Names.PartsBucket // the object store's stream (ADR-20)
	st, err := f.JS.Stream(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("object store %s: %w", f.Names.PartsBucket, err)
	}
	return &PartReader{f: f, st: st}, nil
}

// Read reads a part object chunk by chunk, each chunk a direct get of the
// server, and checks it whole: every chunk its metadata counts, its size,
// and the object store's own digest. A damaged object is an error
// wrapping ErrDamaged, at once: the server skips a stored message whose
// checksum fails, which leaves an object store Get waiting for the chunk
// until its deadline (`nats: timeout`), while here the chunk is seen
// missing.
func (r *PartReader) Read(ctx context.Context, name string) ([]byte, error) {
	f, st := r.f, r.st
	info, err := f.Parts.GetInfo(ctx, name)
	if err != nil {
		if errors.Is(err, jetstream.ErrObjectNotFound) {
			return nil, fmt.Errorf("object %s: %w: not in the object store", name, ErrDamaged)
		}
		return nil, fmt.Errorf("object %s: %w", name, err)
	}
	if info.NUID == "" || info.Deleted {
		return nil, fmt.Errorf("object %s: %w: no chunks recorded", name, ErrDamaged)
	}
	if info.Size == 0 {
		return []byte{}, nil
	}
	subject := "$O." + f.Names.PartsBucket + ".C." + info.NUID
	data := make([]byte, 0, info.Size)
	h := sha256.New()
	var seq uint64
	for n := uint32(0); n < info.Chunks; n++ {
		m, err := st.GetMsg(ctx, seq, jetstream.WithGetMsgSubject(subject))
		if err != nil {
			if errors.Is(err, jetstream.ErrMsgNotFound) {
				return nil, fmt.Errorf("object %s: %w: chunk %d of %d is missing (unreadable in the server's store)", name, ErrDamaged, n+1, info.Chunks)
			}
			return nil, fmt.Errorf("object %s: chunk %d of %d: %w", name, n+1, info.Chunks, err)
		}
		if uint64(len(data))+uint64(len(m.Data)) > info.Size {
			return nil, fmt.Errorf("object %s: %w: more than its %d bytes", name, ErrDamaged, info.Size)
		}
		data = append(data, m.Data...)
		h.Write(m.Data)
		seq = m.Sequence + 1
	}
	if uint64(len(data)) != info.Size {
		return nil, fmt.Errorf("object %s: %w: %d of its %d bytes readable", name, ErrDamaged, len(data), info.Size)
	}
	if info.Digest != "" && info.Digest != jetstream.GetObjectDigestValue(h) {
		return nil, fmt.Errorf("object %s: %w: its bytes do not match the object store's digest", name, ErrDamaged)
	}
	return data, nil
}

// SealRegistry makes the finished-jobs registry create-only on the
// server: its stream refuses a message on a key that holds one
// (DiscardNewPerSubject, with one message per key) and roll-ups, so a put
// over an entry, a delete and a purge of a key are all refused with
// "maximum messages per subject exceeded" or "rollup not permitted",
// whoever sends them; deleting a message by sequence is refused already
// (DenyDelete, as for every key-value bucket). Only the JetStream API's
// stream purge, update and delete remain, which the per-role permissions
// of docs/cluster.md deny to workers and clients. It changes nothing when
// the registry is sealed already.
func (f *Farm) SealRegistry(ctx context.Context) error {
	name := "KV_" + f.Names.DoneBucket
	st, err := f.JS.Stream(ctx, name)
	if err != nil {
		return fmt.Errorf("seal registry %s: %w", name, err)
	}
	cfg := st.CachedInfo().Config
	if sealed(cfg) {
		return nil
	}
	if err := seal(&cfg); err != nil {
		return fmt.Errorf("seal registry %s: %w", name, err)
	}
	if _, err := f.JS.UpdateStream(ctx, cfg); err != nil {
		return fmt.Errorf("seal registry %s: %w", name, err)
	}
	return nil
}

// sealed reports whether a registry stream's configuration is create-only.
func sealed(cfg jetstream.StreamConfig) bool {
	return cfg.DiscardNewPerSubject && !cfg.AllowRollup && cfg.Discard == jetstream.DiscardNew && cfg.MaxMsgsPerSubject == 1
}

// seal makes a registry stream's configuration create-only.
func seal(cfg *jetstream.StreamConfig) error {
	if cfg.MaxMsgsPerSubject != 1 {
		return fmt.Errorf("it keeps %d values per key, want 1", cfg.MaxMsgsPerSubject)
	}
	cfg.Discard, cfg.DiscardNewPerSubject, cfg.AllowRollup = jetstream.DiscardNew, true, false
	return nil
}

// RegistrySealed reports whether the registry is create-only
// (SealRegistry).
func (f *Farm) RegistrySealed(ctx context.Context) (bool, error) {
	st, err := f.JS.Stream(ctx, "KV_"+f.Names.DoneBucket)
	if err != nil {
		return false, err
	}
	return sealed(st.CachedInfo().Config), nil
}

// InvalidSuffix ends the registry key of an invalidation marker.
const InvalidSuffix = ".invalid"

// InvalidKey is the registry key of the marker that invalidates part of
// run: <run>.<part>.invalid, beside the part's own <run>.<part>.
func InvalidKey(run, part string) string { return DoneKey(run, part) + InvalidSuffix }

// ParseDoneKey splits a registry key into its run and part, and says
// whether it is an invalidation marker's; ok is false for a key of
// neither form.
func ParseDoneKey(key string) (run, part string, invalid, ok bool) {
	if k, found := strings.CutSuffix(key, InvalidSuffix); found {
		key, invalid = k, true
	}
	run, part, ok = strings.Cut(key, ".")
	if !ok || run == "" || part == "" || strings.Contains(part, ".") {
		return "", "", false, false
	}
	return run, part, invalid, true
}

// InvalidRecord marks a stored part as invalid: its results are not
// collected and its jobs count as not done, so that the next submission
// of their sweep runs them again. The part's objects and registry entry
// stay as they were (a marker is added, nothing is deleted).
type InvalidRecord struct {
	Run  string `json:"run"`
	Part string `json:"part"`
	// Jobs are the part's jobs, as its registry entry lists them (under
	// another name than a part entry's "jobs", so that a schedfarm from
	// before markers, which takes any entry for a part, counts none of
	// them done by it).
	Jobs []string `json:"invalid_jobs"`
	// Reason says why: the damage the collector found, or the reason
	// given to `schedfarm parts invalidate`.
	Reason string `json:"reason"`
	// By is who marked it (the command and host), At when.
	By string    `json:"by"`
	At time.Time `json:"at"`
}

// MaxInvalidReason bounds an invalidation's reason, in bytes.
const MaxInvalidReason = 1000

// Invalidate adds the marker rec to the registry. It reports false when
// the part was invalid already (the first marker is kept).
func (f *Farm) Invalidate(ctx context.Context, rec InvalidRecord) (bool, error) {
	if len(rec.Reason) > MaxInvalidReason {
		n := MaxInvalidReason
		for n > 0 && !utf8.RuneStart(rec.Reason[n]) {
			n--
		}
		rec.Reason = rec.Reason[:n]
	}
	data, err := json.Marshal(rec)
	if err != nil {
		return false, err
	}
	key := InvalidKey(rec.Run, rec.Part)
	if _, err := f.Done.Create(ctx, key, data); err != nil {
		if _, gerr := f.Done.Get(ctx, key); gerr == nil {
			return false, nil
		}
		return false, fmt.Errorf("invalidate part %s of run %s: %w", rec.Part, rec.Run, err)
	}
	return true, nil
}
