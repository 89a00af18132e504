package broker

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Names of the farm's JetStream resources and subjects.
const (
	JobsStream    = "SCHEDFARM_JOBS"
	JobsSubject   = "schedfarm.jobs"
	WorkersName   = "workers"
	RunsBucket    = "SCHEDFARM_RUNS"
	DoneBucket    = "SCHEDFARM_DONE"
	FailedBucket  = "SCHEDFARM_FAILED"
	PartsBucket   = "SCHEDFARM_PARTS"
	HeartbeatSubj = "schedfarm.hb"
	ErrorSubj     = "schedfarm.err"
	APISubj       = "schedfarm.api"
	ControlSubj   = "schedfarm.ctl"
)

// Settings are the queue's delivery parameters.
type Settings struct {
	// AckWait is how long a delivered job may go without an ack or an
	// in-progress heartbeat before it is redelivered.
	AckWait time.Duration
	// MaxDeliver is how many times a job is delivered before it is recorded
	// as failed.
	MaxDeliver int
	// MaxAckPending bounds the jobs delivered but not yet acked, over all
	// workers (a worker holds its jobs un-acked until their part is stored).
	MaxAckPending int
	// Dedup is the window in which a republished job (same run and job ID)
	// is dropped by the server.
	Dedup time.Duration
	// Storage is file (durable, the default) or memory.
	Storage jetstream.StorageType
	// Replicas for clustered servers (1 for a single server).
	Replicas int
}

// DefaultSettings returns the production defaults.
func DefaultSettings() Settings {
	return Settings{
		AckWait:       30 * time.Second,
		MaxDeliver:    5,
		MaxAckPending: 20_000,
		Dedup:         10 * time.Minute,
		Storage:       jetstream.FileStorage,
		Replicas:      1,
	}
}

// Farm holds handles on the farm's JetStream resources.
type Farm struct {
	NC       *nats.Conn
	JS       jetstream.JetStream
	Jobs     jetstream.Stream
	Workers  jetstream.Consumer
	Runs     jetstream.KeyValue
	Done     jetstream.KeyValue
	Failed   jetstream.KeyValue
	Parts    jetstream.ObjectStore
	Settings Settings
}

// Setup creates (or updates) the farm's resources and returns handles on
// them. It is idempotent: every process of the farm calls it on start.
func Setup(ctx context.Context, nc *nats.Conn, s Settings) (*Farm, error) {
	js, err := jetstream.New(nc, jetstream.WithPublishAsyncMaxPending(4096))
	if err != nil {
		return nil, fmt.Errorf("jetstream: %w", err)
	}
	f := &Farm{NC: nc, JS: js, Settings: s}
	f.Jobs, err = js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name:        JobsStream,
		Description: "schedfarm jobs (work queue)",
		Subjects:    []string{JobsSubject + ".>"},
		Retention:   jetstream.WorkQueuePolicy,
		Storage:     s.Storage,
		Replicas:    s.Replicas,
		Duplicates:  s.Dedup,
		Discard:     jetstream.DiscardNew,
	})
	if err != nil {
		return nil, fmt.Errorf("stream %s: %w", JobsStream, err)
	}
	f.Workers, err = js.CreateOrUpdateConsumer(ctx, JobsStream, jetstream.ConsumerConfig{
		Durable:       WorkersName,
		Description:   "all schedfarm workers pull from here",
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       s.AckWait,
		MaxDeliver:    s.MaxDeliver,
		MaxAckPending: s.MaxAckPending,
		MaxWaiting:    4096,
		Replicas:      s.Replicas,
	})
	if err != nil {
		return nil, fmt.Errorf("consumer %s: %w", WorkersName, err)
	}
	kv := func(bucket, desc string) (jetstream.KeyValue, error) {
		b, err := js.CreateOrUpdateKeyValue(ctx, jetstream.KeyValueConfig{
			Bucket: bucket, Description: desc, History: 1, Storage: s.Storage, Replicas: s.Replicas,
		})
		if err != nil {
			return nil, fmt.Errorf("key-value bucket %s: %w", bucket, err)
		}
		return b, nil
	}
	if f.Runs, err = kv(RunsBucket, "schedfarm run records"); err != nil {
		return nil, err
	}
	if f.Done, err = kv(DoneBucket, "schedfarm registry of finished jobs, per stored part"); err != nil {
		return nil, err
	}
	if f.Failed, err = kv(FailedBucket, "schedfarm jobs that exhausted their deliveries"); err != nil {
		return nil, err
	}
	f.Parts, err = js.CreateOrUpdateObjectStore(ctx, jetstream.ObjectStoreConfig{
		Bucket: PartsBucket, Description: "schedfarm Parquet result parts", Storage: s.Storage, Replicas: s.Replicas,
	})
	if err != nil {
		return nil, fmt.Errorf("object store %s: %w", PartsBucket, err)
	}
	return f, nil
}

// JobSubject is the subject the jobs of one run are published on.
func JobSubject(run string) string { return JobsSubject + "." + run }

// MsgID is the deduplication ID of a job message: the run and the job, so
// that a restarted coordinator's republish is dropped but a forced rerun (a
// new run) is not.
func MsgID(run, job string) string { return run + "." + job }

// IsNotFound reports whether err means a key, object or message is absent.
func IsNotFound(err error) bool {
	return errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrObjectNotFound) ||
		errors.Is(err, jetstream.ErrMsgNotFound)
}

// SafeName turns a name into one usable as a NATS subject token and a
// key-value key: every character other than ASCII letters, digits, '-' and
// '_' becomes '-'.
func SafeName(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			b[i] = '-'
		}
	}
	return string(b)
}
