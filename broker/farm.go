package broker

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Who creates what: the coordinator alone creates the farm's stream,
// consumer and buckets (Create) and, once it holds the coordinator lease,
// sets their configuration from its Settings (Apply). Workers and client
// commands only look them up (Bind): they never change them, and they wait
// while a coordinator has not created them yet. A worker's or a client's
// own notion of AckWait or MaxDeliver therefore cannot reconfigure a
// running farm; what they need of it they read from the consumer.

// MetaPrefix is the metadata key that records, on every stream and bucket
// a coordinator creates, the exact prefix of the farm it belongs to. Bind
// and Create compare it with their own prefix.
const MetaPrefix = "schedfarm.prefix"

// ErrForeign is returned when a stream or bucket with one of the farm's
// names records another farm's prefix.
var ErrForeign = errors.New("belongs to another farm")

// Farm holds handles on the farm's JetStream resources.
type Farm struct {
	NC      *nats.Conn
	JS      jetstream.JetStream
	Jobs    jetstream.Stream
	Workers jetstream.Consumer
	Runs    jetstream.KeyValue
	Done    jetstream.KeyValue
	Failed  jetstream.KeyValue
	Locks   jetstream.KeyValue
	Parts   jetstream.ObjectStore
	// Settings are the coordinator's (Create) or, for a farm from Bind,
	// those read from the resources found: AckWait, MaxDeliver and
	// MaxAckPending from the consumer, Dedup, Storage and Replicas from
	// the jobs stream, LeaseTTL from the locks bucket.
	Settings Settings
	Names    Names
}

func newFarm(nc *nats.Conn, s Settings) (*Farm, error) {
	if s.Prefix == "" {
		s.Prefix = DefaultPrefix
	}
	if s.LeaseTTL <= 0 {
		s.LeaseTTL = DefaultSettings().LeaseTTL
	}
	names, err := NewNames(s.Prefix)
	if err != nil {
		return nil, err
	}
	js, err := jetstream.New(nc, jetstream.WithPublishAsyncMaxPending(4096))
	if err != nil {
		return nil, fmt.Errorf("jetstream: %w", err)
	}
	return &Farm{NC: nc, JS: js, Settings: s, Names: names}, nil
}

func (f *Farm) meta() map[string]string { return map[string]string{MetaPrefix: f.Names.Prefix} }

func (f *Farm) streamConfig() jetstream.StreamConfig {
	s := f.Settings
	return jetstream.StreamConfig{
		Name:        f.Names.JobsStream,
		Description: "schedfarm jobs (work queue) of prefix " + f.Names.Prefix,
		Subjects:    []string{f.Names.JobsAll()},
		Retention:   jetstream.WorkQueuePolicy,
		Storage:     s.Storage,
		Replicas:    s.Replicas,
		Duplicates:  s.Dedup,
		Discard:     jetstream.DiscardNew,
		Metadata:    f.meta(),
	}
}

func (f *Farm) consumerConfig() jetstream.ConsumerConfig {
	s := f.Settings
	return jetstream.ConsumerConfig{
		Durable:       WorkersName,
		Description:   "all schedfarm workers pull from here",
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       s.AckWait,
		MaxDeliver:    s.MaxDeliver,
		MaxAckPending: s.MaxAckPending,
		MaxWaiting:    4096,
		Replicas:      s.Replicas,
		Metadata:      f.meta(),
	}
}

// kvConfigs are the farm's key-value buckets, in the order they are made.
func (f *Farm) kvConfigs() []jetstream.KeyValueConfig {
	s, n := f.Settings, f.Names
	kv := func(bucket, desc string, ttl time.Duration) jetstream.KeyValueConfig {
		return jetstream.KeyValueConfig{Bucket: bucket, Description: desc, History: 1, TTL: ttl,
			Storage: s.Storage, Replicas: s.Replicas, Metadata: f.meta()}
	}
	return []jetstream.KeyValueConfig{
		kv(n.RunsBucket, "schedfarm run records", 0),
		kv(n.DoneBucket, "schedfarm registry of finished jobs, per stored part", 0),
		kv(n.FailedBucket, "schedfarm jobs that exhausted their deliveries", 0),
		kv(n.LocksBucket, "schedfarm coordinator lease", s.LeaseTTL),
	}
}

func (f *Farm) objConfig() jetstream.ObjectStoreConfig {
	s := f.Settings
	return jetstream.ObjectStoreConfig{Bucket: f.Names.PartsBucket, Description: "schedfarm Parquet result parts",
		Storage: s.Storage, Replicas: s.Replicas, Metadata: f.meta()}
}

// setKV stores a handle on a bucket in its field.
func (f *Farm) setKV(bucket string, kv jetstream.KeyValue) {
	switch bucket {
	case f.Names.RunsBucket:
		f.Runs = kv
	case f.Names.DoneBucket:
		f.Done = kv
	case f.Names.FailedBucket:
		f.Failed = kv
	case f.Names.LocksBucket:
		f.Locks = kv
	}
}

// checkOwner reports whether a resource's metadata names this farm's
// prefix: ErrForeign when it names another, stamped false when it names
// none (made by a schedfarm from before the record was kept).
func (f *Farm) checkOwner(kind, name string, meta map[string]string) (stamped bool, err error) {
	p, ok := meta[MetaPrefix]
	if !ok {
		return false, nil
	}
	if p != f.Names.Prefix {
		return true, fmt.Errorf("%s %s %w: it records prefix %q, this farm's is %q (check --prefix)", kind, name, ErrForeign, p, f.Names.Prefix)
	}
	return true, nil
}

// checkJobs checks the jobs stream found under the farm's name. One that
// records no prefix was made by an earlier schedfarm; it is this farm's
// if its subjects are, as they always carried the exact prefix.
func (f *Farm) checkJobs(cfg jetstream.StreamConfig) (stamped bool, err error) {
	stamped, err = f.checkOwner("stream", cfg.Name, cfg.Metadata)
	if err != nil || stamped {
		return stamped, err
	}
	if !slices.Equal(cfg.Subjects, []string{f.Names.JobsAll()}) {
		return false, fmt.Errorf("stream %s %w: it holds subjects %v, this farm's are %s (an earlier schedfarm gave prefixes "+
			"that differ only in case or in '-' against '_' the same stream; remove it, or use the prefix of those subjects)",
			cfg.Name, ErrForeign, cfg.Subjects, f.Names.JobsAll())
	}
	return false, nil
}

// Create is the coordinator's: it creates, with s, each of the farm's
// resources that does not exist yet, and returns handles on them all.
// Those that exist are not changed (Apply does that, once the coordinator
// holds the lease); they must be this farm's: a stream or bucket that
// records another prefix is an error (ErrForeign). Only a coordinator calls
// it; workers and clients call Bind.
func Create(ctx context.Context, nc *nats.Conn, s Settings) (*Farm, error) {
	f, err := newFarm(nc, s)
	if err != nil {
		return nil, err
	}
	js, n := f.JS, f.Names
	f.Jobs, err = js.Stream(ctx, n.JobsStream)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		f.Jobs, err = js.CreateStream(ctx, f.streamConfig())
		if errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
			f.Jobs, err = js.Stream(ctx, n.JobsStream)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("stream %s: %w", n.JobsStream, f.subjectsTaken(ctx, err))
	}
	if _, err := f.checkJobs(f.Jobs.CachedInfo().Config); err != nil {
		return nil, err
	}
	f.Workers, err = js.Consumer(ctx, n.JobsStream, WorkersName)
	if errors.Is(err, jetstream.ErrConsumerNotFound) {
		f.Workers, err = js.CreateConsumer(ctx, n.JobsStream, f.consumerConfig())
		if errors.Is(err, jetstream.ErrConsumerExists) {
			f.Workers, err = js.Consumer(ctx, n.JobsStream, WorkersName)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("consumer %s: %w", WorkersName, err)
	}
	for _, cfg := range f.kvConfigs() {
		kv, err := js.KeyValue(ctx, cfg.Bucket)
		if errors.Is(err, jetstream.ErrBucketNotFound) {
			kv, err = js.CreateKeyValue(ctx, cfg)
			if err == nil && cfg.Bucket == n.DoneBucket {
				f.Done = kv
				err = f.SealRegistry(ctx)
			}
			if errors.Is(err, jetstream.ErrBucketExists) {
				kv, err = js.KeyValue(ctx, cfg.Bucket)
			}
		}
		if err == nil {
			err = f.checkKV(ctx, kv)
		}
		if err != nil {
			return nil, fmt.Errorf("key-value bucket %s: %w", cfg.Bucket, err)
		}
		f.setKV(cfg.Bucket, kv)
	}
	f.Parts, err = js.ObjectStore(ctx, n.PartsBucket)
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		f.Parts, err = js.CreateObjectStore(ctx, f.objConfig())
		if errors.Is(err, jetstream.ErrBucketExists) {
			f.Parts, err = js.ObjectStore(ctx, n.PartsBucket)
		}
	}
	if err == nil {
		err = f.checkObj(ctx, f.Parts)
	}
	if err != nil {
		return nil, fmt.Errorf("object store %s: %w", n.PartsBucket, err)
	}
	return f, nil
}

// subjectsTaken explains a failure to create the jobs stream when another
// stream holds the farm's subjects: one an earlier schedfarm made under
// the name it then gave this prefix.
func (f *Farm) subjectsTaken(ctx context.Context, err error) error {
	other, lerr := f.JS.StreamNameBySubject(ctx, f.Names.JobsAll())
	if lerr != nil || other == "" || other == f.Names.JobsStream {
		return err
	}
	return fmt.Errorf("%w: stream %s holds this farm's subjects %s: an earlier schedfarm gave prefix %q the names %s_*, "+
		"which prefixes differing only in case or in '-' against '_' shared; finish and collect its runs with that version, "+
		"then remove its streams and buckets (%s, KV_%s_*, OBJ_%s_PARTS) — this version names them %s_*",
		ErrForeign, other, f.Names.JobsAll(), f.Names.Prefix, strings.TrimSuffix(other, "_JOBS"), other,
		strings.TrimSuffix(other, "_JOBS"), strings.TrimSuffix(other, "_JOBS"), Stem(f.Names.Prefix))
}

func (f *Farm) checkKV(ctx context.Context, kv jetstream.KeyValue) error {
	st, err := kv.Status(ctx)
	if err != nil {
		return err
	}
	_, err = f.checkOwner("key-value bucket", kv.Bucket(), st.Metadata())
	return err
}

func (f *Farm) checkObj(ctx context.Context, obs jetstream.ObjectStore) error {
	st, err := obs.Status(ctx)
	if err != nil {
		return err
	}
	_, err = f.checkOwner("object store", st.Bucket(), st.Metadata())
	return err
}

// Apply sets the configuration of the farm's resources from f.Settings
// (AckWait, MaxDeliver, Replicas, the lease TTL, ...) and records the
// farm's prefix on those made before it was recorded. The coordinator
// calls it once it holds the lease, so that a coordinator that is refused
// changes nothing.
func (f *Farm) Apply(ctx context.Context) error {
	js, n := f.JS, f.Names
	if st, err := js.Stream(ctx, n.JobsStream); err == nil {
		if _, err := f.checkJobs(st.CachedInfo().Config); err != nil {
			return err
		}
	}
	jobs, err := js.CreateOrUpdateStream(ctx, f.streamConfig())
	if err != nil {
		return fmt.Errorf("stream %s: %w", n.JobsStream, err)
	}
	ccfg := f.consumerConfig()
	if c, err := js.Consumer(ctx, n.JobsStream, WorkersName); err == nil {
		ccfg.MaxWaiting = c.CachedInfo().Config.MaxWaiting // the server cannot change it
	}
	workers, err := js.CreateOrUpdateConsumer(ctx, n.JobsStream, ccfg)
	if err != nil {
		return fmt.Errorf("consumer %s: %w", WorkersName, err)
	}
	for _, cfg := range f.kvConfigs() {
		if kv, err := js.KeyValue(ctx, cfg.Bucket); err == nil {
			if err := f.checkKV(ctx, kv); err != nil {
				return fmt.Errorf("key-value bucket %s: %w", cfg.Bucket, err)
			}
		}
		var kv jetstream.KeyValue
		var err error
		if cfg.Bucket == n.DoneBucket {
			kv, err = f.applyRegistry(ctx, cfg)
		} else {
			kv, err = js.CreateOrUpdateKeyValue(ctx, cfg)
		}
		if err != nil {
			return fmt.Errorf("key-value bucket %s: %w", cfg.Bucket, err)
		}
		f.setKV(cfg.Bucket, kv)
	}
	if obs, err := js.ObjectStore(ctx, n.PartsBucket); err == nil {
		if err := f.checkObj(ctx, obs); err != nil {
			return fmt.Errorf("object store %s: %w", n.PartsBucket, err)
		}
	}
	parts, err := js.CreateOrUpdateObjectStore(ctx, f.objConfig())
	if err != nil {
		return fmt.Errorf("object store %s: %w", n.PartsBucket, err)
	}
	f.Jobs, f.Workers, f.Parts = jobs, workers, parts
	return nil
}

// applyRegistry is Apply for the finished-jobs registry, which it
// creates if missing and keeps create-only (SealRegistry): the stream of
// an existing registry is updated in place, never through a key-value
// update, which would lift the seal for a moment.
func (f *Farm) applyRegistry(ctx context.Context, want jetstream.KeyValueConfig) (jetstream.KeyValue, error) {
	js := f.JS
	kv, err := js.KeyValue(ctx, want.Bucket)
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		kv, err = js.CreateKeyValue(ctx, want)
	}
	if err != nil {
		return nil, err
	}
	st, err := js.Stream(ctx, "KV_"+want.Bucket)
	if err != nil {
		return nil, err
	}
	cfg := st.CachedInfo().Config
	if cfg.Description != want.Description || cfg.Replicas != want.Replicas || cfg.Metadata[MetaPrefix] != f.Names.Prefix || !sealed(cfg) {
		cfg.Description, cfg.Replicas = want.Description, want.Replicas
		meta := maps.Clone(cfg.Metadata)
		if meta == nil {
			meta = map[string]string{}
		}
		meta[MetaPrefix] = f.Names.Prefix
		cfg.Metadata = meta
		if err := seal(&cfg); err != nil {
			return nil, err
		}
		if _, err := js.UpdateStream(ctx, cfg); err != nil {
			return nil, fmt.Errorf("make create-only: %w", err)
		}
	}
	return kv, nil
}

// BindOptions tune Bind.
type BindOptions struct {
	// Logger receives the one message saying what Bind waits for
	// (default slog.Default()).
	Logger *slog.Logger
	// Poll is how often Bind looks again (default 500 ms).
	Poll time.Duration
}

// Bind returns handles on the resources of the farm of prefix ("" for
// DefaultPrefix) as they are, for a worker or a client: it creates and
// changes nothing. While a coordinator has not created them yet (or, for
// those an earlier schedfarm made, has not yet recorded the farm's prefix
// on them), it waits, says so once through the logger, and looks again
// until ctx ends; bound the wait with ctx. A stream or bucket that records
// another prefix is an error (ErrForeign). The returned Settings are read
// from what was found.
func Bind(ctx context.Context, nc *nats.Conn, prefix string, o BindOptions) (*Farm, error) {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Poll <= 0 {
		o.Poll = 500 * time.Millisecond
	}
	f, err := newFarm(nc, Settings{Prefix: prefix})
	if err != nil {
		return nil, err
	}
	said := ""
	for {
		wait, what, err := f.bindOnce(ctx)
		if ctx.Err() != nil {
			if said == "" {
				said = "looking up the farm's streams (prefix " + f.Names.Prefix + ")"
			}
			return nil, fmt.Errorf("%s: gave up: %w", strings.TrimSuffix(said, "…"), ctx.Err())
		}
		if err != nil {
			return nil, err
		}
		if wait == "" {
			if said != "" {
				o.Logger.Info("the farm's streams are there; going on", "prefix", f.Names.Prefix)
			}
			return f, nil
		}
		if wait != said {
			o.Logger.Warn(wait, "missing", what)
			said = wait
		}
		select {
		case <-ctx.Done():
		case <-time.After(o.Poll):
		}
	}
}

// bindOnce looks every resource up. When one is not ready it returns the
// message to wait with and which one; an error is one that waiting will
// not cure.
func (f *Farm) bindOnce(ctx context.Context) (wait, what string, err error) {
	js, n := f.JS, f.Names
	missing := func(res string) (string, string, error) {
		return fmt.Sprintf("waiting for a coordinator to create the farm's streams (prefix %s)…", n.Prefix), res + " does not exist yet", nil
	}
	unclaimed := func(res string) (string, string, error) {
		return fmt.Sprintf("waiting for a coordinator of this version to claim the farm's streams (prefix %s)…", n.Prefix),
			res + " was made by an earlier schedfarm and records no prefix", nil
	}
	jobs, err := js.Stream(ctx, n.JobsStream)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return missing("stream " + n.JobsStream)
	}
	if err != nil {
		return "", "", fmt.Errorf("stream %s: %w", n.JobsStream, err)
	}
	cfg := jobs.CachedInfo().Config
	if stamped, err := f.checkJobs(cfg); err != nil {
		return "", "", err
	} else if !stamped {
		return unclaimed("stream " + n.JobsStream)
	}
	workers, err := js.Consumer(ctx, n.JobsStream, WorkersName)
	if errors.Is(err, jetstream.ErrConsumerNotFound) {
		return missing("consumer " + WorkersName)
	}
	if err != nil {
		return "", "", fmt.Errorf("consumer %s: %w", WorkersName, err)
	}
	kvs := map[string]jetstream.KeyValue{}
	ttl := time.Duration(0)
	for _, want := range f.kvConfigs() {
		kv, err := js.KeyValue(ctx, want.Bucket)
		if errors.Is(err, jetstream.ErrBucketNotFound) {
			return missing("key-value bucket " + want.Bucket)
		}
		if err != nil {
			return "", "", fmt.Errorf("key-value bucket %s: %w", want.Bucket, err)
		}
		st, err := kv.Status(ctx)
		if err != nil {
			return "", "", fmt.Errorf("key-value bucket %s: %w", want.Bucket, err)
		}
		if stamped, err := f.checkOwner("key-value bucket", want.Bucket, st.Metadata()); err != nil {
			return "", "", err
		} else if !stamped {
			return unclaimed("key-value bucket " + want.Bucket)
		}
		if want.Bucket == n.LocksBucket {
			ttl = st.TTL()
		}
		kvs[want.Bucket] = kv
	}
	parts, err := js.ObjectStore(ctx, n.PartsBucket)
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		return missing("object store " + n.PartsBucket)
	}
	if err != nil {
		return "", "", fmt.Errorf("object store %s: %w", n.PartsBucket, err)
	}
	st, err := parts.Status(ctx)
	if err != nil {
		return "", "", fmt.Errorf("object store %s: %w", n.PartsBucket, err)
	}
	if stamped, err := f.checkOwner("object store", n.PartsBucket, st.Metadata()); err != nil {
		return "", "", err
	} else if !stamped {
		return unclaimed("object store " + n.PartsBucket)
	}
	ci := workers.CachedInfo().Config
	f.Jobs, f.Workers, f.Parts = jobs, workers, parts
	for b, kv := range kvs {
		f.setKV(b, kv)
	}
	f.Settings = Settings{
		AckWait: ci.AckWait, MaxDeliver: ci.MaxDeliver, MaxAckPending: ci.MaxAckPending,
		Dedup: cfg.Duplicates, Storage: cfg.Storage, Replicas: cfg.Replicas, Prefix: n.Prefix, LeaseTTL: ttl,
	}
	return "", "", nil
}
