package coordinator

import (
	"fmt"
	"strconv"
	"time"

	"github.com/google/uuid"

	memdb "github.com/hashicorp/go-memdb"

	"schedfarm/broker"
)

// Job states the coordinator tracks.
const (
	StatusQueued = "queued"
	// StatusRetrying is a queued job with at least one failed attempt.
	StatusRetrying = "retrying"
	StatusDone     = "done"
	StatusFailed   = "failed"
)

// jobState is one job of one run as the coordinator sees it.
//
// Every job of a run in progress is tracked, but at two depths, because a
// coordinator holds every job of every run in progress and most jobs only
// ever go from queued to done: the run's entry keeps one status byte per
// job (runEntry.status, with the job-ID index ids), and go-memdb holds a
// jobState only for the jobs with a history worth listing — a failed
// attempt (retrying) or a final failure — with its error, worker and
// attempts. lookup merges the two. In memdb a jobState is treated as
// immutable: an update inserts a modified copy.
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

// Status codes of runEntry.status, one byte per job.
const (
	codeQueued uint8 = iota
	codeRetrying
	codeDone
	codeFailed
)

var statusNames = [...]string{codeQueued: StatusQueued, codeRetrying: StatusRetrying, codeDone: StatusDone, codeFailed: StatusFailed}

func statusCode(s string) uint8 {
	switch s {
	case StatusRetrying:
		return codeRetrying
	case StatusDone:
		return codeDone
	case StatusFailed:
		return codeFailed
	}
	return codeQueued
}

// detailed reports whether a job in that state is kept in memdb.
func detailed(code uint8) bool { return code == codeRetrying || code == codeFailed }

// workerState is the last heartbeat of a worker.
type workerState struct {
	Name     string
	Host     string
	PID      int
	Started  time.Time
	Seen     time.Time
	Running  []string
	Current  *broker.CurrentJob
	Buffered int
	Done     int64
	Errors   int64
	Draining bool
	// StoreError is the worker's last failure to store a part of run
	// StoreRun (empty once a part is stored).
	StoreError, StoreRun string
}

// runCounts are the per-run counters, kept beside memdb so that progress
// is O(1) to read.
type runCounts struct {
	Total     int // jobs in the run
	Skipped   int // already done by earlier runs; never published
	Done      int // finished in this run
	Failed    int
	Redeliver int     // attempts beyond the first, summed
	ModelMs   float64 // summed model time of the jobs done in this run
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
