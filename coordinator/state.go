package coordinator

import (
	"fmt"
	"time"

	memdb "github.com/hashicorp/go-memdb"
)

// Job states the coordinator tracks.
const (
	StatusQueued = "queued"
	StatusDone   = "done"
	StatusFailed = "failed"
)

// jobState is one job of one run as the coordinator sees it. It is stored
// in go-memdb and treated as immutable: an update inserts a modified copy.
type jobState struct {
	Key      string // run + "/" + job ID
	Run      string
	Job      string
	Sweep    string
	Index    int
	Status   string
	Worker   string
	Attempts int
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
				"id":  {Name: "id", Unique: true, Indexer: &memdb.StringFieldIndex{Field: "Key"}},
				"run": {Name: "run", Indexer: &memdb.StringFieldIndex{Field: "Run"}},
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

func jobKey(run, job string) string { return run + "/" + job }
