package coordinator

import (
	"fmt"
	"strconv"
	"time"

	"github.com/google/uuid"

	memdb "github.com/hashicorp/go-memdb"
)

// Job states the coordinator tracks.
const (
	StatusQueued = "queued"
	// StatusRetrying is a queued job with at least one failed attempt.
	StatusRetrying = "retrying"
	StatusDone     = "done"
	StatusFailed   = "failed"
)

// jobState is one job of one run as the coordinator sees it. It is stored
// in go-memdb and treated as immutable: an update inserts a modified copy.
//
// It is kept small because a coordinator holds every job of every run in
// progress: the key is the run's short alias and the job's index rather
// than two UUID strings, the job ID is 16 bytes, and the sweep name and
// status strings are shared between jobs.
type jobState struct {
	Key      string // <run alias>/<index>
	Run      string // run alias
	Job      uuid.UUID
	Sweep    string
	Index    int32
	Attempts int32
	Status   string
	Worker   string // set when an attempt failed
	Error    string
}

// workerState is the last heartbeat of a worker.
type workerState struct {
	Name     string
	Host     string
	PID      int
	Started  time.Time
	Seen     time.Time
	Running  []string
	Buffered int
	Done     int64
	Errors   int64
	Draining bool
}

// runCounts are the per-run counters, kept beside memdb so that progress
// is O(1) to read.
type runCounts struct {
	Total     int // jobs in the run
	Skipped   int // already done by earlier runs; never published
	Done      int // finished in this run
	Failed    int
	Redeliver int // attempts beyond the first, summed
}

func newDB() (*memdb.MemDB, error) {
	schema := &memdb.DBSchema{Tables: map[string]*memdb.TableSchema{
		"jobs": {
			Name: "jobs",
			Indexes: map[string]*memdb.IndexSchema{
				"id": {Name: "id", Unique: true, Indexer: &memdb.StringFieldIndex{Field: "Key"}},
				"status": {Name: "status", Indexer: &memdb.CompoundIndex{Indexes: []memdb.Indexer{
					&memdb.StringFieldIndex{Field: "Run"}, &memdb.StringFieldIndex{Field: "Status"},
				}}},
				"worker": {Name: "worker", AllowMissing: true, Indexer: &memdb.StringFieldIndex{Field: "Worker"}},
			},
		},
		"workers": {
			Name: "workers",
			Indexes: map[string]*memdb.IndexSchema{
				"id": {Name: "id", Unique: true, Indexer: &memdb.StringFieldIndex{Field: "Name"}},
			},
		},
	}}
	db, err := memdb.NewMemDB(schema)
	if err != nil {
		return nil, fmt.Errorf("memdb: %w", err)
	}
	return db, nil
}

func jobKey(alias string, index int32) string {
	return alias + "/" + strconv.FormatInt(int64(index), 36)
}
