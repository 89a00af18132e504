package broker

import (
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// DefaultPrefix is the prefix of the farm's subjects and resources.
const DefaultPrefix = "schedfarm"

// WorkersName is the durable consumer all workers of a farm pull from.
const WorkersName = "workers"

// Names are a farm's subjects and JetStream resource names, all derived
// from one prefix so that several farms can share one NATS cluster without
// seeing each other's jobs (prefix "schedfarm": subjects schedfarm.jobs.<run>,
// stream SCHEDFARM_JOBS, buckets SCHEDFARM_RUNS, ...).
//
// Subjects use the prefix as it is. Stream and bucket names use Stem(prefix),
// a one-to-one escaping of it, so that prefixes that differ only in case
// or in '-' against '_' (lab-b, lab_b, LAB_B) name different resources.
type Names struct {
	Prefix string
	// JetStream resources.
	JobsStream, RunsBucket, DoneBucket, FailedBucket, PartsBucket, LocksBucket string
}

// MaxPrefixLen bounds a prefix, so that every stream name derived from it
// stays within the server's limit of 255 characters.
const MaxPrefixLen = 100

// NewNames returns the names under prefix, which must be a NATS subject
// token of letters, digits, '-' and '_' (at most MaxPrefixLen of them).
func NewNames(prefix string) (Names, error) {
	if prefix == "" || SafeName(prefix) != prefix {
		return Names{}, fmt.Errorf("prefix %q: use letters, digits, '-' and '_' only", prefix)
	}
	if len(prefix) > MaxPrefixLen {
		return Names{}, fmt.Errorf("prefix %q: longer than %d characters", prefix, MaxPrefixLen)
	}
	up := Stem(prefix)
	return Names{Prefix: prefix, JobsStream: up + "_JOBS", RunsBucket: up + "_RUNS", DoneBucket: up + "_DONE",
		FailedBucket: up + "_FAILED", PartsBucket: up + "_PARTS", LocksBucket: up + "_LOCKS"}, nil
}

// Stem is the start of the names of a prefix's streams and buckets. It
// maps prefixes one-to-one, and its names differ even where case is
// ignored (a server on a case-insensitive file system): a lower-case
// letter becomes its capital, a digit stays, '-' becomes '_'; a capital
// letter X becomes "-X" and '_' becomes "--". The prefixes of lower-case
// letters, digits and '-' — the default "schedfarm", "lab-a" — keep the
// names they always had (SCHEDFARM, LAB_A); "lab_b" gives LAB--B and
// "LAB_B" -L-A-B---B. Read left to right, '-' starts a two-character
// escape and every other character stands alone, so the prefix can be read
// back from its stem: no two prefixes share one.
func Stem(prefix string) string {
	b := make([]byte, 0, len(prefix)+4)
	for i := 0; i < len(prefix); i++ {
		switch c := prefix[i]; {
		case c >= 'a' && c <= 'z':
			b = append(b, c-'a'+'A')
		case c >= 'A' && c <= 'Z':
			b = append(b, '-', c)
		case c == '-':
			b = append(b, '_')
		case c == '_':
			b = append(b, '-', '-')
		default:
			b = append(b, c)
		}
	}
	return string(b)
}

// JobSubject is the subject the jobs of one run are published on.
func (n Names) JobSubject(run string) string { return n.Prefix + ".jobs." + run }

// JobsAll matches the jobs of every run.
func (n Names) JobsAll() string { return n.Prefix + ".jobs.>" }

// HeartbeatSubject is where a worker publishes its heartbeats.
func (n Names) HeartbeatSubject(worker string) string { return n.Prefix + ".hb." + worker }

// HeartbeatAll matches every worker's heartbeats.
func (n Names) HeartbeatAll() string { return n.Prefix + ".hb.>" }

// ErrorSubject is where failed attempts of a run's jobs are reported.
func (n Names) ErrorSubject(run string) string { return n.Prefix + ".err." + run }

// ErrorAll matches every run's error reports.
func (n Names) ErrorAll() string { return n.Prefix + ".err.>" }

// DeliverySubject is where a worker reports that it received jobs of a
// run on a second or later delivery.
func (n Names) DeliverySubject(run string) string { return n.Prefix + ".dlv." + run }

// DeliveryAll matches every run's delivery reports.
func (n Names) DeliveryAll() string { return n.Prefix + ".dlv.>" }

// APISubject is the coordinator's request subject for verb.
func (n Names) APISubject(verb string) string { return n.Prefix + ".api." + verb }

// APIAll matches every coordinator request.
func (n Names) APIAll() string { return n.Prefix + ".api.>" }

// ControlSubject is where a worker listens for control requests (drain).
func (n Names) ControlSubject(worker string) string { return n.Prefix + ".ctl." + worker }

// MaxDeliveriesAdvisory is the server's advisory subject for jobs that
// exhausted their deliveries.
func (n Names) MaxDeliveriesAdvisory() string {
	return "$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES." + n.JobsStream + "." + WorkersName
}

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
	// Prefix names the farm's subjects and resources (see Names).
	Prefix string
	// LeaseTTL is how long the coordinator lease outlives its last renewal.
	LeaseTTL time.Duration
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
		Prefix:        DefaultPrefix,
		LeaseTTL:      10 * time.Second,
	}
}

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
