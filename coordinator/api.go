package coordinator

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"

	"schedfarm/sweep"
)

// The coordinator's API: requests on <prefix>.api.<verb>, one JSON object
// each, answered with {"error": …} or {"result": …}. Every field of every
// request is checked before anything is done; a request that fails a check
// is answered with a RequestError and changes nothing.
//
//	submit  SubmitRequest → SubmitReply
//	status  StatusRequest (run may be empty: a page of runs) → Status
//	cancel  RunRequest → {"cancelled": run}
//	ping    {} → PingReply

// MaxFileName bounds the sweep file name of a submission, in bytes.
const MaxFileName = 1024

// MaxRequestTime is the longest the coordinator works on one request (a
// large submission) before it gives up on it and answers with an error; a
// client waits that long plus its request timeout for the reply to a
// submission, as long as the coordinator answers its pings.
const MaxRequestTime = 10 * time.Minute

// RunRequest names a run: the body of cancel requests (a status request,
// StatusRequest, has the same "run" and more).
type RunRequest struct {
	Run string `json:"run"`
}

// PingReply says which coordinator answers: a client waiting for a
// submission's reply pings to learn whether the coordinator that took it
// still runs.
type PingReply struct {
	Coordinator string `json:"coordinator"`
}

// RequestError is an API request the coordinator refused as malformed,
// before doing anything.
type RequestError struct {
	Verb string
	Err  error
}

func (e *RequestError) Error() string { return fmt.Sprintf("invalid %s request: %v", e.Verb, e.Err) }
func (e *RequestError) Unwrap() error { return e.Err }

// CheckRunID returns an error unless id is a run ID of the form the farm
// generates (NewRunID): a UUID in its canonical form, 36 characters of
// lowercase hex digits and hyphens (8-4-4-4-12). Such an ID is one NATS
// subject token and a valid key-value key; anything else (a dot, a
// wildcard, upper case) would put a run's jobs where no worker accepts them.
func CheckRunID(id string) error {
	if len(id) == 36 {
		if u, err := uuid.Parse(id); err == nil && u.String() == id {
			return nil
		}
	}
	return fmt.Errorf("run %s is not a run ID: run IDs are UUIDs as `schedfarm submit` prints them, 36 characters of lowercase hex digits and hyphens (8-4-4-4-12)", quoteShort(id))
}

// Validate checks every field of a submission: a file name of 1 to
// MaxFileName bytes of printable UTF-8, a non-empty UTF-8 sweep text, a
// non-negative MaxJobs and, when set, a run ID of the farm's form
// (CheckRunID).
func (r *SubmitRequest) Validate() error {
	bad := func(err error) error { return &RequestError{Verb: "submit", Err: err} }
	switch {
	case r.File == "":
		return bad(errors.New("file: empty; give the sweep file's name"))
	case len(r.File) > MaxFileName:
		return bad(fmt.Errorf("file: a name of %d bytes, over the %d-byte limit", len(r.File), MaxFileName))
	case !printable(r.File):
		return bad(fmt.Errorf("file %s: control characters or invalid UTF-8 in the name", quoteShort(r.File)))
	case r.Text == "":
		return bad(errors.New("text: empty; give the sweep file's content"))
	case !utf8.ValidString(r.Text):
		return bad(errors.New("text: not valid UTF-8"))
	case r.MaxJobs < 0:
		return bad(fmt.Errorf("max_jobs: %d; give 0 (the default, %d) or a positive limit", r.MaxJobs, sweep.DefaultMaxJobs))
	}
	if r.Run != "" {
		if err := CheckRunID(r.Run); err != nil {
			return bad(err)
		}
	}
	return nil
}

// validate checks a cancel request (required) or a request whose run may
// be empty.
func (r *RunRequest) validate(verb string, required bool) error {
	if r.Run == "" && !required {
		return nil
	}
	if r.Run == "" {
		return &RequestError{Verb: verb, Err: errors.New("run: empty; give the run ID")}
	}
	if err := CheckRunID(r.Run); err != nil {
		return &RequestError{Verb: verb, Err: err}
	}
	return nil
}

// decodeRequest decodes one API request body into v strictly: one JSON
// object, no unknown fields, nothing after it. An empty body decodes as {}
// when emptyOK.
func decodeRequest(verb string, data []byte, v any, emptyOK bool) error {
	if len(bytes.TrimSpace(data)) == 0 {
		if emptyOK {
			return nil
		}
		return &RequestError{Verb: verb, Err: errors.New("empty body; want a JSON object")}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return &RequestError{Verb: verb, Err: err}
	}
	if _, err := dec.Token(); err != io.EOF {
		return &RequestError{Verb: verb, Err: errors.New("data after the JSON object")}
	}
	return nil
}

// printable reports whether s is valid UTF-8 without control characters.
func printable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return false
		}
	}
	return true
}

// quoteShort quotes s for an error message, cut to 64 bytes.
func quoteShort(s string) string {
	if len(s) > 64 {
		return fmt.Sprintf("%q… (%d bytes)", s[:64], len(s))
	}
	return fmt.Sprintf("%q", s)
}
