package broker

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"schedfarm/simcore"
	"schedfarm/sweep"
)

// JobMsg is the body of a job message on the work queue.
type JobMsg struct {
	Run string    `json:"run"`
	Job sweep.Job `json:"job"`
	// Attempts counts the deliveries the job already had in an earlier
	// message: a job that failed inside a pack is sent again on its own
	// (or with the pack's other failed jobs), and its attempts go on from
	// there.
	Attempts int `json:"attempts,omitempty"`
}

// EncodeJob encodes a job message.
func EncodeJob(run string, j *sweep.Job) ([]byte, error) {
	return json.Marshal(JobMsg{Run: run, Job: *j})
}

// ErrNotRunnableHere marks a well-formed job this worker cannot run: its
// model is not built in, or in another version. Another worker may run it,
// so it is retried; every other decoding error means the message is
// malformed and will never run anywhere.
var ErrNotRunnableHere = errors.New("job not runnable by this worker")

// maxJobMessage bounds a job message; a sweep's parameters never come near.
const maxJobMessage = 1 << 20

// PeekJob extracts what it can of a job's identity from a message that may
// be malformed, so that a rejected message can still be recorded.
func PeekJob(data []byte) (run, job, sweepName string, index int) {
	var raw struct {
		Run string `json:"run"`
		Job struct {
			ID    string `json:"id"`
			Sweep string `json:"sweep"`
			Index int    `json:"index"`
		} `json:"job"`
	}
	if len(data) > maxJobMessage || json.Unmarshal(data, &raw) != nil {
		return "", "", "", 0
	}
	return raw.Run, raw.Job.ID, raw.Job.Sweep, raw.Job.Index
}

// DecodeJob decodes a job message and restores each parameter's Go type from
// the model's schema (JSON alone cannot tell 2 from 2.0, and would round
// integers above 2^53).
func DecodeJob(data []byte, reg *simcore.Registry) (*JobMsg, simcore.Model, error) {
	var raw struct {
		Run      string          `json:"run"`
		Job      json.RawMessage `json:"job"`
		Attempts int             `json:"attempts"`
	}
	if len(data) > maxJobMessage {
		return nil, nil, fmt.Errorf("job message of %d bytes is over the %d-byte limit", len(data), maxJobMessage)
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, nil, fmt.Errorf("decode job message: %w", err)
	}
	if raw.Run == "" || SafeName(raw.Run) != raw.Run {
		return nil, nil, fmt.Errorf("job message without a valid run and job ID")
	}
	if raw.Attempts < 0 {
		return nil, nil, fmt.Errorf("job message with %d earlier attempts", raw.Attempts)
	}
	e := decodeJob(raw.Run, raw.Job, reg, nil)
	if e.Err != nil {
		return nil, nil, e.Err
	}
	e.Msg.Attempts = raw.Attempts
	return e.Msg, e.Model, nil
}

// paramsMemo remembers the last parameter object decoded in a message:
// the replicates of a point travel side by side in a pack with
// byte-identical parameters, so each distinct object is decoded, checked
// and completed once per message.
type paramsMemo struct {
	raw   []byte
	model simcore.Model
	full  simcore.Params
}

// decodeJob decodes one job of a message of run. The entry's Msg is set
// even on error, with whatever identity could be read. memo may be nil.
func decodeJob(run string, data json.RawMessage, reg *simcore.Registry, memo *paramsMemo) Entry {
	var raw wireJob
	if len(data) == 0 {
		return Entry{Msg: &JobMsg{Run: run}, Err: fmt.Errorf("job message without a valid run and job ID")}
	}
	err := json.Unmarshal(data, &raw)
	if p := bytes.TrimSpace(raw.Params); err == nil && len(p) > 0 && p[0] != '{' && !bytes.Equal(p, []byte("null")) {
		err = fmt.Errorf("parameters are %s, not an object", p[:min(len(p), 20)])
	}
	if err != nil {
		m := &JobMsg{Run: run}
		_ = json.Unmarshal(data, &struct {
			ID    *uuid.UUID `json:"id"`
			Sweep *string    `json:"sweep"`
			Index *int       `json:"index"`
		}{&m.Job.ID, &m.Job.Sweep, &m.Job.Index})
		return Entry{Msg: m, Err: fmt.Errorf("decode job message: %w", err)}
	}
	return finishJob(run, &raw, reg, memo)
}

// wireJob is a job as a message carries it, its parameters still raw.
type wireJob struct {
	sweep.Job
	Params json.RawMessage `json:"params"`
}

// finishJob checks a parsed job against its model and restores its
// parameters' types (decodeJob).
func finishJob(run string, raw *wireJob, reg *simcore.Registry, memo *paramsMemo) Entry {
	ident := &JobMsg{Run: run, Job: sweep.Job{ID: raw.Job.ID, Sweep: raw.Job.Sweep, Index: raw.Job.Index}}
	fail := func(err error) Entry { return Entry{Msg: ident, Err: err} }
	if raw.Job.ID == uuid.Nil {
		return fail(fmt.Errorf("job message without a valid run and job ID"))
	}
	m, ok := reg.Lookup(raw.Job.Model)
	if !ok {
		return fail(fmt.Errorf("job %s: model %q is not built into this worker (known: %v): %w", raw.Job.ID, raw.Job.Model, reg.Names(), ErrNotRunnableHere))
	}
	if m.Version() != raw.Job.ModelVersion {
		return fail(fmt.Errorf("job %s: model %s version %s requested, this worker has version %s: %w",
			raw.Job.ID, m.Name(), raw.Job.ModelVersion, m.Version(), ErrNotRunnableHere))
	}
	msg := &JobMsg{Run: run, Job: raw.Job}
	if memo != nil && memo.model == m && bytes.Equal(memo.raw, raw.Params) {
		// each job owns its map: a model may not see its siblings' changes
		msg.Job.Params = maps.Clone(memo.full)
		return Entry{Msg: msg, Model: m}
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw.Params, &fields); len(raw.Params) > 0 && err != nil {
		return fail(fmt.Errorf("job %s: parameters: %w", raw.Job.ID, err))
	}
	schema := m.Schema()
	params := make(simcore.Params, len(fields))
	// in name order: the first bad parameter named is the same every time
	for _, name := range slices.Sorted(maps.Keys(fields)) {
		rv := fields[name]
		p, ok := schema.Param(name)
		if !ok {
			return fail(fmt.Errorf("job %s: unknown parameter %q for model %s", raw.Job.ID, name, m.Name()))
		}
		v, err := decodeValue(p.Kind, rv)
		if err != nil {
			return fail(fmt.Errorf("job %s: parameter %q: %w", raw.Job.ID, name, err))
		}
		params[name] = v
	}
	full, err := schema.Complete(params)
	if err != nil {
		return fail(fmt.Errorf("job %s: %w", raw.Job.ID, err))
	}
	if memo != nil {
		*memo = paramsMemo{raw: raw.Params, model: m, full: maps.Clone(full)}
	}
	msg.Job.Params = full
	return Entry{Msg: msg, Model: m}
}

// PackMsg is the body of a message carrying several jobs of one run (a
// pack): tiny jobs travel together so that the per-message cost of the farm
// is paid once for all of them. Each job keeps its own identity, result row
// and failure record.
type PackMsg struct {
	Run  string       `json:"run"`
	Jobs []*sweep.Job `json:"jobs"`
	// Attempts is as in JobMsg, for every job of the pack.
	Attempts int `json:"attempts,omitempty"`
}

// ErrPackTooLarge is returned by EncodePack for a pack over the message
// size limit: send its jobs in smaller packs.
var ErrPackTooLarge = fmt.Errorf("pack over the %d-byte message limit", maxJobMessage)

// MaxPack bounds the jobs of one pack message.
const MaxPack = 1024

// EncodePack encodes a pack message; one job is encoded as a plain job
// message, so that a pack of one is indistinguishable from an unpacked job.
func EncodePack(run string, jobs []*sweep.Job) ([]byte, error) {
	return EncodeRetry(run, 0, jobs)
}

// EncodeRetry encodes jobs that already had attempts deliveries in an
// earlier message, as a job or a pack message.
func EncodeRetry(run string, attempts int, jobs []*sweep.Job) ([]byte, error) {
	switch {
	case len(jobs) == 0:
		return nil, errors.New("encode pack: no jobs")
	case len(jobs) == 1:
		return json.Marshal(JobMsg{Run: run, Job: *jobs[0], Attempts: attempts})
	case len(jobs) > MaxPack:
		return nil, fmt.Errorf("encode pack: %d jobs, more than %d", len(jobs), MaxPack)
	}
	data, err := json.Marshal(PackMsg{Run: run, Jobs: jobs, Attempts: attempts})
	if err != nil {
		return nil, err
	}
	if len(data) > maxJobMessage {
		return nil, fmt.Errorf("encode pack: %d bytes: %w", len(data), ErrPackTooLarge)
	}
	return data, nil
}

// PackMsgID is the deduplication ID of a pack message: its run, first job
// and size (a pack of one uses the job's own MsgID).
func PackMsgID(run string, jobs []*sweep.Job) string {
	if len(jobs) == 1 {
		return MsgID(run, jobs[0].ID.String())
	}
	return MsgID(run, jobs[0].ID.String()+".x"+strconv.Itoa(len(jobs)))
}

// Entry is one job of a decoded message. Msg always carries what could be
// read of the job's identity; Err says why the job cannot run (wrapping
// ErrNotRunnableHere when another worker may run it).
type Entry struct {
	Msg   *JobMsg
	Model simcore.Model
	Err   error
}

// DecodeJobs decodes a job message or a pack message into its jobs, each
// decoded as DecodeJob does; one malformed job of a pack does not spoil the
// others. The error is for a message that names no run or is not a job
// message at all: then nothing of it can be recorded.
func DecodeJobs(data []byte, reg *simcore.Registry) (string, []Entry, error) {
	if len(data) > maxJobMessage {
		return "", nil, fmt.Errorf("job message of %d bytes is over the %d-byte limit", len(data), maxJobMessage)
	}
	// A well-formed pack or single-job message is parsed in one pass; a
	// message that does not parse that way goes job by job, so that one
	// malformed job fails alone. Both give the same entries for a
	// well-formed pack.
	var pack struct {
		Run      string          `json:"run"`
		Job      json.RawMessage `json:"job"`
		Jobs     []*wireJob      `json:"jobs"`
		Attempts int             `json:"attempts"`
	}
	ok := json.Unmarshal(data, &pack) == nil && pack.Run != "" && SafeName(pack.Run) == pack.Run && pack.Attempts >= 0
	if ok && pack.Job != nil && pack.Jobs == nil {
		// a single job: only its own object is left to parse
		e := decodeJob(pack.Run, pack.Job, reg, nil)
		e.Msg.Attempts = pack.Attempts
		return pack.Run, []Entry{e}, nil
	}
	if ok && pack.Job == nil && len(pack.Jobs) > 0 && len(pack.Jobs) <= MaxPack && !slices.Contains(pack.Jobs, nil) {
		out := make([]Entry, len(pack.Jobs))
		var memo paramsMemo
		for i, j := range pack.Jobs {
			if p := bytes.TrimSpace(j.Params); len(p) > 0 && p[0] != '{' && !bytes.Equal(p, []byte("null")) {
				return decodeJobsOneByOne(data, reg)
			}
			out[i] = finishJob(pack.Run, j, reg, &memo)
			out[i].Msg.Attempts = pack.Attempts
		}
		return pack.Run, out, nil
	}
	return decodeJobsOneByOne(data, reg)
}

// decodeJobsOneByOne is DecodeJobs parsing each job of a pack on its own.
func decodeJobsOneByOne(data []byte, reg *simcore.Registry) (string, []Entry, error) {
	var raw struct {
		Run      string            `json:"run"`
		Job      json.RawMessage   `json:"job"`
		Jobs     []json.RawMessage `json:"jobs"`
		Attempts int               `json:"attempts"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return "", nil, fmt.Errorf("decode job message: %w", err)
	}
	if raw.Run == "" || SafeName(raw.Run) != raw.Run {
		return "", nil, fmt.Errorf("job message without a valid run and job ID")
	}
	if raw.Attempts < 0 {
		return "", nil, fmt.Errorf("job message with %d earlier attempts", raw.Attempts)
	}
	var out []Entry
	switch {
	case raw.Jobs == nil:
		out = []Entry{decodeJob(raw.Run, raw.Job, reg, nil)}
	case raw.Job != nil:
		return "", nil, fmt.Errorf("job message with both a job and a pack of jobs")
	case len(raw.Jobs) == 0 || len(raw.Jobs) > MaxPack:
		return "", nil, fmt.Errorf("pack message of %d jobs (want 1 to %d)", len(raw.Jobs), MaxPack)
	default:
		out = make([]Entry, len(raw.Jobs))
		var memo paramsMemo
		for i, j := range raw.Jobs {
			out[i] = decodeJob(raw.Run, j, reg, &memo)
		}
	}
	for _, e := range out {
		e.Msg.Attempts = raw.Attempts
	}
	return raw.Run, out, nil
}

func decodeValue(k simcore.Kind, rv json.RawMessage) (any, error) {
	switch k {
	case simcore.Int:
		return strconv.ParseInt(string(bytes.TrimSpace(rv)), 10, 64)
	case simcore.Float:
		return strconv.ParseFloat(string(bytes.TrimSpace(rv)), 64)
	case simcore.String:
		var s string
		err := json.Unmarshal(rv, &s)
		return s, err
	case simcore.Bool:
		var b bool
		err := json.Unmarshal(rv, &b)
		return b, err
	}
	return nil, fmt.Errorf("unknown kind %v", k)
}

// RunStatus is the state of a run.
type RunStatus string

// Run states.
const (
	RunPublishing RunStatus = "publishing"
	RunRunning    RunStatus = "running"
	RunComplete   RunStatus = "complete"
	RunCancelled  RunStatus = "cancelled"
)

// RunRecord is what the farm keeps about a run in SCHEDFARM_RUNS.
type RunRecord struct {
	ID string `json:"id"`
	// File is the sweep file's name as submitted; Text its content, so a run
	// can be re-expanded, resumed and collected anywhere.
	File    string    `json:"file"`
	Text    string    `json:"text"`
	MaxJobs int       `json:"max_jobs"`
	Force   bool      `json:"force"`
	Created time.Time `json:"created"`
	// Total is the number of distinct jobs of the run (a job two sweeps
	// share counts once); Skipped of them were already
	// done by earlier runs (same job IDs) and were not published.
	Total   int       `json:"total"`
	Skipped int       `json:"skipped"`
	Status  RunStatus `json:"status"`
	// Done, Failed and Redelivered are filled in when the run ends.
	Done        int `json:"done"`
	Failed      int `json:"failed"`
	Redelivered int `json:"redelivered,omitempty"`
	// ModelMs is the summed model time of the jobs done in the run (their
	// duration_ms), filled in when the run ends.
	ModelMs float64 `json:"model_ms,omitempty"`
	// Owner is the coordinator that drives the run.
	Owner string `json:"owner"`
	// Finished is set when the run completed or was cancelled.
	Finished time.Time `json:"finished,omitempty"`
	// Packing says, per sweep, how many jobs the coordinator sent per
	// message and why; empty until decided (a run resumed before its
	// packing was decided sends one job per message).
	Packing []PackChoice `json:"packing,omitempty"`
	// Rounds are the replicates the coordinator added to the points of
	// adaptive sweeps (replicates: {min, max}) whose claims were undecided,
	// in order: the run's jobs are its sweep file's expansion followed by
	// its rounds' (sweep.File.ExpandRun). Stored before a round's jobs are
	// published.
	Rounds []sweep.Round `json:"rounds,omitempty"`
	// Adaptive says how the adaptive replicates ended (every claim
	// decided, the cap reached with claims undecided, the job limit), set
	// when the run's last round is evaluated.
	Adaptive string `json:"adaptive,omitempty"`
}

// PackChoice is the coordinator's packing of one sweep's jobs into
// messages. It is run metadata: results do not depend on it.
type PackChoice struct {
	Sweep string `json:"sweep"`
	// K is the number of jobs per message (the last message of a sweep
	// may hold fewer; probe jobs are sent alone).
	K int `json:"k"`
	// Policy is the coordinator's policy: auto, off or a fixed size.
	Policy string `json:"policy"`
	// Probed is how many probe results the choice rests on, ProbeMeanMs
	// their mean model time.
	Probed      int     `json:"probed,omitempty"`
	ProbeMeanMs float64 `json:"probe_mean_ms,omitempty"`
	Reason      string  `json:"reason"`
}

// PartRecord is an entry of the finished-jobs registry (SCHEDFARM_DONE):
// a stored part and the jobs whose results it holds.
type PartRecord struct {
	Run    string `json:"run"`
	Part   string `json:"part"`
	Sweep  string `json:"sweep"`
	Worker string `json:"worker"`
	// Jobs are the IDs of the jobs whose result rows the part holds.
	Jobs []string `json:"jobs"`
	// Objects are the part's object names in SCHEDFARM_PARTS, one per table.
	Objects []string `json:"objects"`
	// SHA256 are the digests of the objects' bytes (Digest), one per
	// object in the order of Objects, checked when the part is collected.
	// Absent in the entries of workers from before digests: their parts
	// are read unverified.
	SHA256 []string `json:"sha256,omitempty"`
	// ModelMs is the summed model time of the part's jobs.
	ModelMs float64 `json:"model_ms"`
	// Redelivered counts the part's jobs that this worker received on a
	// second or later delivery (their first worker died, hung or failed).
	Redelivered int `json:"redelivered,omitempty"`
	// Attempts are, job by job as in Jobs, the delivery each result came
	// from (1: the first); absent when every one is 1.
	Attempts []int `json:"attempts,omitempty"`
}

// DoneKey is the registry key of a part (see also InvalidKey).
func DoneKey(run, part string) string { return run + "." + part }

// FailRecord is an entry of SCHEDFARM_FAILED: a job that exhausted its
// deliveries.
type FailRecord struct {
	Run      string `json:"run"`
	Job      string `json:"job"`
	Sweep    string `json:"sweep"`
	Index    int    `json:"index"`
	Error    string `json:"error"`
	Attempts int    `json:"attempts"`
	Worker   string `json:"worker"`
}

// FailKey is the key of a failed job.
func FailKey(run, job string) string { return run + "." + job }

// CrashedError is the failure text of a job whose deliveries ran out
// without a result or an error: every one of them ended with its worker
// gone (a crash, such as a Go fatal error on running out of memory, or a
// kill) or stuck past the ack wait. It names the job's parameters, so that
// the job can be told apart and rerun alone.
func CrashedError(deliveries int, params simcore.Params) string {
	text := fmt.Sprintf("worker crashed while running it: no result after %d deliveries, none of them ending in an error "+
		"(each ended with its worker process gone, as on running out of memory, or stuck past the ack wait)", deliveries)
	if len(params) > 0 {
		text += "; parameters: " + params.Canonical(nil)
	}
	return text
}

// AloneHeader marks a job message that a worker must run alone: a job of
// a pack whose delivery ended without a result or an error (its worker
// crashed, hung or handed it back), sent again in a message of its own.
// A message delivered more than once is run alone too; the header carries
// that to the new message, whose own delivery count starts again at one.
const AloneHeader = "Schedfarm-Alone"

// Heartbeat is what a worker publishes every few seconds.
type Heartbeat struct {
	Worker   string    `json:"worker"`
	Host     string    `json:"host"`
	PID      int       `json:"pid"`
	Started  time.Time `json:"started"`
	Sent     time.Time `json:"sent"`
	Running  []string  `json:"running,omitempty"` // job IDs in flight
	Buffered int       `json:"buffered"`          // results waiting for their part
	Done     int64     `json:"done"`
	Errors   int64     `json:"errors"`
	Draining bool      `json:"draining"`
	// StoreError is the worker's last failure to store a part of run
	// StoreRun's results, until a part is stored again (at most
	// MaxStoreError bytes).
	StoreError string `json:"store_error,omitempty"`
	StoreRun   string `json:"store_run,omitempty"`
	// Current describes the job the worker runs now (Running's one job),
	// so that the status page can show it by sweep and parameters.
	Current *CurrentJob `json:"current,omitempty"`
}

// CurrentJob is the job a worker runs, as a heartbeat describes it.
type CurrentJob struct {
	Run       string `json:"run"`
	Sweep     string `json:"sweep"`
	Index     int    `json:"index"`
	Replicate int    `json:"replicate"`
	// Params is "name=value" per parameter, sorted by name, separated by
	// spaces, at most MaxCurrentParams bytes (then ending with "…").
	Params string `json:"params"`
}

// Bounds of a heartbeat's fields.
const (
	MaxWorkerName = 128  // bytes of a worker name
	MaxStoreError = 500  // bytes of a store error
	maxHostName   = 255  // bytes of a host name
	maxRunning    = 1024 // job IDs in flight
	maxJobIDLen   = 64   // bytes of one job ID
	// MaxCurrentParams bounds the bytes of a current job's parameters.
	MaxCurrentParams = 240
)

// ValidWorkerName reports why name cannot name a worker: a worker name is
// a NATS subject token of letters, digits, '-' and '_' (what SafeName
// makes of a host name), 1 to MaxWorkerName bytes.
func ValidWorkerName(name string) error {
	if name == "" || len(name) > MaxWorkerName || SafeName(name) != name {
		return fmt.Errorf("worker name %q: want 1 to %d letters, digits, '-' or '_'", name, MaxWorkerName)
	}
	return nil
}

// Validate checks a heartbeat received on subject (names.HeartbeatSubject
// of its worker): the worker's name is valid and is the one the subject
// names, the host name and the job IDs in flight are bounded, the counts
// are not negative. The coordinator drops a heartbeat that fails, so a
// forged one cannot put a terminal escape sequence, or another worker's
// name, in `schedfarm status`.
func (h *Heartbeat) Validate(names Names, subject string) error {
	if err := ValidWorkerName(h.Worker); err != nil {
		return err
	}
	if want := names.HeartbeatSubject(h.Worker); subject != want {
		return fmt.Errorf("heartbeat of worker %q on subject %q, not %q", h.Worker, subject, want)
	}
	if len(h.Host) > maxHostName || !utf8.ValidString(h.Host) {
		return fmt.Errorf("worker %s: host name of %d bytes or not UTF-8", h.Worker, len(h.Host))
	}
	if len(h.Running) > maxRunning {
		return fmt.Errorf("worker %s: %d jobs in flight (at most %d)", h.Worker, len(h.Running), maxRunning)
	}
	for _, id := range h.Running {
		if len(id) > maxJobIDLen || SafeName(id) != id {
			return fmt.Errorf("worker %s: job in flight %q is not a job ID", h.Worker, id)
		}
	}
	if len(h.StoreError) > MaxStoreError || !utf8.ValidString(h.StoreError) || len(h.StoreRun) > maxJobIDLen || SafeName(h.StoreRun) != h.StoreRun {
		return fmt.Errorf("worker %s: store error of %d bytes, or run %q not a run ID", h.Worker, len(h.StoreError), h.StoreRun)
	}
	if c := h.Current; c != nil && (len(c.Run) > maxJobIDLen || SafeName(c.Run) != c.Run || len(c.Sweep) > MaxWorkerName ||
		!utf8.ValidString(c.Sweep) || len(c.Params) > MaxCurrentParams+len("…") || !utf8.ValidString(c.Params) || c.Index < 0 || c.Replicate < 0) {
		return fmt.Errorf("worker %s: current job of run %q not valid (sweep of %d bytes, parameters of %d)", h.Worker, SafeName(c.Run), len(c.Sweep), len(c.Params))
	}
	if h.PID < 0 || h.Buffered < 0 || h.Done < 0 || h.Errors < 0 {
		return fmt.Errorf("worker %s: negative count", h.Worker)
	}
	return nil
}

// DeliveryEvent reports that a worker received jobs on their Attempt-th
// delivery (Attempt > 1): an earlier one died, hung, handed them back or
// failed them. Whichever delivery's result is kept, the coordinator counts
// the run's redeliveries from these, the error events, the stored parts'
// attempts and the failure records.
type DeliveryEvent struct {
	Run     string   `json:"run"`
	Jobs    []string `json:"jobs"`
	Worker  string   `json:"worker"`
	Attempt int      `json:"attempt"`
}

// ErrorEvent reports one failed attempt of a job.
type ErrorEvent struct {
	Run     string `json:"run"`
	Job     string `json:"job"`
	Worker  string `json:"worker"`
	Attempt int    `json:"attempt"`
	Error   string `json:"error"`
	Final   bool   `json:"final"`
}

// DescribeJob returns the CurrentJob of job j of run: its sweep, index,
// replicate and parameters (sorted by name, cut to MaxCurrentParams bytes).
func DescribeJob(run string, j *sweep.Job) *CurrentJob {
	var b strings.Builder
	for i, name := range j.Params.Names() {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s=%v", name, j.Params[name])
	}
	params := b.String()
	if len(params) > MaxCurrentParams {
		n := MaxCurrentParams
		for n > 0 && !utf8.RuneStart(params[n]) {
			n--
		}
		params = params[:n] + "…"
	}
	return &CurrentJob{Run: run, Sweep: j.Sweep, Index: j.Index, Replicate: j.Replicate, Params: params}
}
