// Package tracefetch fetches the Parallel Workloads Archive logs the farm
// knows (workload.Known) into a data directory, verified.
//
// A log is written to <dir>/traces/<file>.part, synced, checked against
// its known SHA-256 and size, then renamed into place: a file under
// traces/ is always complete and verified. A broken transfer (connection
// dropped, short body, no bytes for the stall timeout) is retried, resuming
// the .part with an HTTP Range request; a .part left by an interrupted run
// is resumed the same way. A file not complete by its deadline (every
// attempt and wait included; by default 1 min + 1 s per 10 kB of its known
// size) is given up, its .part kept, however steadily bytes trickle in. A log the archive serves gzipped while the farm
// keeps it uncompressed (NASA-iPSC) is gunzipped as it arrives and its
// decompressed bytes are checked; its retries start from zero. A log
// fetched from a mirror (a directory or an http(s) base URL) goes through
// the same checks.
//
// Two fetches into one data directory at once may spoil each other's
// .part; the checksum then refuses the result.
package tracefetch

import (
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"schedfarm/simcore"
	"schedfarm/simcore/workload"
)

// Defaults of the Fetcher's zero fields.
const (
	DefaultStallTimeout = 60 * time.Second // no bytes for this long aborts an attempt
	DefaultBackoff      = time.Second      // wait before the first retry, doubled at each next one
	maxBackoff          = 30 * time.Second
	// A file's default deadline is DeadlineBase + its size / DefaultMinRate.
	DeadlineBase   = time.Minute
	DefaultMinRate = 10_000 // bytes per second
)

// Errors a fetch wraps (test them with errors.Is).
var (
	// ErrChecksum: the fetched file's SHA-256 is not the known one.
	ErrChecksum = errors.New("checksum mismatch")
	// ErrExists: the file is already there with another SHA-256; Force
	// replaces it.
	ErrExists = errors.New("already present with another checksum")
	// ErrTooLarge: the source has more bytes than the known size.
	ErrTooLarge = errors.New("larger than the known size")
	// ErrStalled: no bytes arrived for the stall timeout.
	ErrStalled = errors.New("stalled")
	// ErrTooSlow: the file was not complete by its deadline.
	ErrTooSlow = errors.New("too slow")
	// ErrNotFound: the source does not have the file (HTTP 404 or 410,
	// or no such file in a mirror directory).
	ErrNotFound = errors.New("not found")
)

// StatusError is an HTTP response other than the 200 or 206 asked for.
type StatusError struct {
	Code   int
	Status string // the status line as the server sent it
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("server answered %q", e.Status)
}

// Is makes a 404 or 410 match ErrNotFound.
func (e *StatusError) Is(target error) bool {
	return target == ErrNotFound && (e.Code == http.StatusNotFound || e.Code == http.StatusGone)
}

// temporary reports whether a retry may get another answer.
func (e *StatusError) temporary() bool {
	return e.Code >= 500 || e.Code == http.StatusTooManyRequests || e.Code == http.StatusRequestTimeout
}

// Error is a failed fetch: the file it would have written, where from, and
// what went wrong.
type Error struct {
	File   string // the file in the data directory
	Source string // the URL or mirror file it came from ("" when nothing was fetched)
	Err    error
	// Part is the partial download kept for a later run to resume ("" when
	// nothing is kept), PartBytes its size.
	Part      string
	PartBytes int64
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Source != "" {
		b.WriteString(" from ")
		b.WriteString(e.Source)
	}
	b.WriteString(": ")
	b.WriteString(e.Err.Error())
	if e.Part != "" {
		fmt.Fprintf(&b, " (%d bytes kept in %s: run the same command again to resume)", e.PartBytes, e.Part)
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// Progress is told how a transfer goes, to draw a progress bar. Its
// methods are called from the goroutine that called Fetch.
type Progress interface {
	// Start is called when bytes start flowing from source into file:
	// have bytes are there already (a resumed download), total is the
	// size of the whole file.
	Start(file, source string, have, total int64)
	// Add reports n more bytes written.
	Add(n int64)
	// Stop ends what Start began, whether or not the transfer completed.
	Stop()
}

// Status says what Fetch did.
type Status string

// What Fetch did.
const (
	Present Status = "present" // the file was there and matched: nothing fetched
	Fetched Status = "fetched" // the file was fetched and verified
)

// Result is what one Fetch did.
type Result struct {
	Trace  workload.KnownTrace
	Status Status
	Path   string // the verified file (under one of Others when present there)
	Source string // the URL or mirror file it was fetched from
	// Bytes is what this fetch transferred; Resumed, the bytes of a
	// partial download it resumed from (0: it started from zero).
	Bytes    int64
	Resumed  int64
	Attempts int // transfers started
	Elapsed  time.Duration
}

// Fetcher fetches known logs into Dir/traces/. Its zero fields take the
// defaults documented on each. A Fetcher holds no state between calls.
type Fetcher struct {
	// Client makes the HTTP requests (nil: a client on
	// http.DefaultTransport; the stall timeout bounds each attempt).
	Client *http.Client
	// Dir is the data directory the logs go into, under traces/.
	Dir string
	// Others are data directories searched after Dir, as simcore.Dirs
	// does: when the first of Dir and Others that holds the file holds
	// it verified, nothing is fetched. A copy in Others is never changed.
	Others []string
	// Mirror, if set, is where logs come from instead of the archive: a
	// directory or an http(s):// base URL holding <Mirror>/<file>, or,
	// for a log the archive serves gzipped and the farm keeps
	// uncompressed, <Mirror>/<file>.gz.
	Mirror string
	// Force replaces a file present with another checksum (else that is
	// an ErrExists error).
	Force bool
	// Retries is how many times a broken transfer is retried (0: never).
	Retries int
	// Backoff is the wait before the first retry, doubled at each next
	// one up to 30s (0: DefaultBackoff).
	Backoff time.Duration
	// StallTimeout aborts an attempt that receives no bytes for this
	// long (0: DefaultStallTimeout).
	StallTimeout time.Duration
	// Deadline gives a file up (ErrTooSlow, the .part kept) when it is not
	// complete this long after its transfer began, every attempt and wait
	// included, so that a source trickling bytes just often enough to
	// escape the stall timeout cannot hold a fetch for days (0:
	// DeadlineBase + 1 s per DefaultMinRate bytes of the file's known
	// size).
	Deadline time.Duration
	// Progress, if set, is told how each transfer goes.
	Progress Progress
	// Logger receives retries and the like at Info (nil: discarded).
	Logger *slog.Logger
}

// Find returns the known trace called name, as a user types it: with or
// without a traces/ prefix and a .swf or .swf.gz suffix, in any case.
func Find(known []workload.KnownTrace, name string) (workload.KnownTrace, bool) {
	name = strings.TrimPrefix(path.Clean(filepath.ToSlash(name)), workload.TraceDir+"/")
	if strings.Contains(name, "/") {
		return workload.KnownTrace{}, false
	}
	name = workload.TrimTraceSuffix(name)
	for _, k := range known {
		if strings.EqualFold(k.Name(), name) {
			return k, true
		}
	}
	return workload.KnownTrace{}, false
}

// Fetch makes sure Dir/traces/<k.File> holds the known log k: it returns
// Present when the file is there and verified, else fetches it from the
// archive (k.URL) or the Mirror, verifies it and moves it into place.
// A file present with another checksum is an ErrExists error unless Force.
// The error of a failed fetch is an *Error.
func (f *Fetcher) Fetch(ctx context.Context, k workload.KnownTrace) (Result, error) {
	start := time.Now()
	final := filepath.Join(f.Dir, workload.TraceDir, k.File)
	res := Result{Trace: k, Path: final}
	fail := func(source string, err error) (Result, error) {
		res.Elapsed = time.Since(start)
		return res, &Error{File: final, Source: source, Err: err}
	}
	if err := checkKnown(k); err != nil {
		return fail("", err)
	}
	if f.Dir == "" {
		return fail("", errors.New("no data directory"))
	}
	if where, ok, err := f.present(k, final); err != nil {
		return fail("", err)
	} else if ok {
		res.Status, res.Path, res.Elapsed = Present, where, time.Since(start)
		return res, nil
	}
	sources, err := f.sources(k)
	if err != nil {
		return fail("", err)
	}
	if err := os.MkdirAll(filepath.Dir(final), 0o755); err != nil {
		return fail("", err)
	}
	part := final + ".part"
	// The .part is ours: a regular file or nothing, never a link, a FIFO
	// (its open for writing would block) or a device.
	if st, err := os.Lstat(part); err == nil && !st.Mode().IsRegular() {
		return fail("", fmt.Errorf("%s: not a regular file (%s); remove it", part, simcore.KindOf(st.Mode())))
	}
	deadline := f.deadline(k)
	dctx, cancel := context.WithTimeoutCause(ctx, deadline, fmt.Errorf("%w: not complete after %s", ErrTooSlow, deadline))
	defer cancel()
	var notFound []string
	for i, src := range sources {
		var err error
		if src.local {
			err = f.fromFile(dctx, k, src, part, &res)
		} else {
			err = f.fromHTTP(dctx, k, src, part, &res)
		}
		if err != nil && ctx.Err() == nil && dctx.Err() != nil {
			err = context.Cause(dctx) // the deadline, not the user, ended it
		}
		if errors.Is(err, ErrNotFound) && i+1 < len(sources) {
			f.logger().Info("not in the mirror, trying the next name", "file", k.File, "source", src.name, "err", err)
			notFound = append(notFound, src.name)
			continue
		}
		if err != nil {
			res.Elapsed = time.Since(start)
			e := &Error{File: final, Source: src.name, Err: err}
			if errors.Is(err, ErrNotFound) && len(notFound) > 0 {
				e.Source = strings.Join(append(notFound, src.name), " or ")
			}
			// Keep what a broken or interrupted download got, for the
			// next run to resume.
			var t *transient
			if !src.local && !src.gunzip && (errors.As(err, &t) || dctx.Err() != nil) {
				if n := sizeOf(part); n > 0 {
					e.Part, e.PartBytes = part, n
				}
			}
			if e.Part == "" {
				removePart(part, f.logger())
			}
			return res, e
		}
		if err := os.Rename(part, final); err != nil {
			return fail(src.name, err)
		}
		if err := syncDir(filepath.Dir(final)); err != nil {
			return fail(src.name, err)
		}
		res.Status, res.Source, res.Elapsed = Fetched, src.name, time.Since(start)
		return res, nil
	}
	return fail("", errors.New("no source")) // sources returns at least one
}

// checkKnown refuses a table entry Fetch could not use safely.
func checkKnown(k workload.KnownTrace) error {
	if k.File == "" || k.File != path.Base(k.File) || k.File == ".." || strings.ContainsAny(k.File, `/\`) {
		return fmt.Errorf("known trace %q: the file must be a plain file name", k.File)
	}
	if b, err := hex.DecodeString(k.SHA256); err != nil || len(b) != sha256.Size || k.SHA256 != strings.ToLower(k.SHA256) {
		return fmt.Errorf("known trace %s: bad SHA-256 %q", k.File, k.SHA256)
	}
	if k.Size <= 0 {
		return fmt.Errorf("known trace %s: no size", k.File)
	}
	return nil
}

// present looks the file up in Dir, then in Others: it reports where and
// true when the first that holds it holds it verified; an error when that
// is Dir, the file does not match and Force is not set.
func (f *Fetcher) present(k workload.KnownTrace, final string) (string, bool, error) {
	sum, _, err := fileSHA256(final)
	switch {
	case err == nil && sum == k.SHA256:
		return final, true, nil
	case err == nil && f.Force:
		f.logger().Info("replacing a file with another checksum", "file", final, "sha256", sum)
		return "", false, nil
	case err == nil:
		return "", false, fmt.Errorf("%w: its SHA-256 is %s, want %s", ErrExists, sum, k.SHA256)
	case !errors.Is(err, fs.ErrNotExist):
		return "", false, err
	}
	for _, d := range f.Others {
		other := filepath.Join(d, workload.TraceDir, k.File)
		sum, _, err := fileSHA256(other)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err == nil && sum == k.SHA256 {
			return other, true, nil
		}
		// A copy that does not verify (or read): the one fetched into
		// Dir, searched first, will be read instead.
		f.logger().Info("a copy in a later data directory does not verify", "file", other, "sha256", sum, "err", err)
		break
	}
	return "", false, nil
}

// source is one place a log can come from.
type source struct {
	name   string // URL or file path
	local  bool   // a file of a mirror directory
	gunzip bool   // gzipped there, kept uncompressed
}

// sources lists where k can come from, in the order to try.
func (f *Fetcher) sources(k workload.KnownTrace) ([]source, error) {
	archived := path.Base(k.URL)
	if archived != k.File && !k.Gunzip() {
		return nil, fmt.Errorf("known trace %s: its URL %s serves neither %s nor %s.gz", k.File, k.URL, k.File, k.File)
	}
	m := f.Mirror
	switch {
	case m == "":
		u, err := url.Parse(k.URL)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") {
			return nil, fmt.Errorf("known trace %s: URL %q is not http(s)", k.File, k.URL)
		}
		return []source{{name: k.URL, gunzip: k.Gunzip()}}, nil
	case strings.HasPrefix(m, "http://") || strings.HasPrefix(m, "https://"):
		if _, err := url.Parse(m); err != nil {
			return nil, fmt.Errorf("mirror: %w", err)
		}
		base := strings.TrimRight(m, "/") + "/"
		out := []source{{name: base + url.PathEscape(k.File)}}
		if archived != k.File {
			out = append(out, source{name: base + url.PathEscape(archived), gunzip: true})
		}
		return out, nil
	case strings.Contains(m, "://"):
		return nil, fmt.Errorf("mirror %s: neither a directory nor an http(s):// URL", m)
	default:
		st, err := os.Stat(m)
		if err != nil {
			return nil, fmt.Errorf("mirror: %w", err)
		}
		if !st.IsDir() {
			return nil, fmt.Errorf("mirror %s: not a directory", m)
		}
		out := []source{{name: filepath.Join(m, k.File), local: true}}
		if archived != k.File {
			out = append(out, source{name: filepath.Join(m, archived), local: true, gunzip: true})
		}
		return out, nil
	}
}

// fromFile copies a mirror directory's file into part and verifies it. A
// file that is not regular (a FIFO, a link to /dev/zero) is refused by its
// kind before it is opened.
func (f *Fetcher) fromFile(ctx context.Context, k workload.KnownTrace, src source, part string, res *Result) error {
	in, err := simcore.OpenRegular(src.name)
	if errors.Is(err, fs.ErrNotExist) {
		return ErrNotFound
	}
	if err != nil {
		return err
	}
	defer in.Close()
	res.Attempts++
	w, err := os.OpenFile(part, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	var r io.Reader = ctxReader{ctx, in}
	if src.gunzip {
		zr, err := gzip.NewReader(newBoundedReader(r, gzipBound(k.Size)))
		if err != nil {
			w.Close()
			return fmt.Errorf("gunzip: %w", err)
		}
		r = zr
	}
	f.startProgress(part, src.name, 0, k.Size)
	n, rerr, werr := copyBounded(w, r, k.Size, f.add)
	f.stopProgress()
	res.Bytes += n
	if err := closePart(w, werr); err != nil {
		return err
	}
	if rerr != nil {
		if src.gunzip && !errors.Is(rerr, ErrTooLarge) && ctx.Err() == nil {
			return fmt.Errorf("gunzip: %w", rerr)
		}
		return rerr
	}
	return verify(k, part)
}

// fromHTTP downloads src into part, retrying broken transfers and resuming
// what part holds, until part verifies.
func (f *Fetcher) fromHTTP(ctx context.Context, k workload.KnownTrace, src source, part string, res *Result) error {
	failures := 0
	restarted := false // a resumed file failed its checksum: retried once from zero
	for {
		var have int64
		if !src.gunzip {
			have = sizeOf(part)
			if have > k.Size {
				f.logger().Info("discarding a partial download larger than the file", "file", part, "bytes", have)
				removePart(part, f.logger())
				have = 0
			}
		}
		var err error
		appended := have > 0 // the part holds bytes from before this transfer
		if have == k.Size {
			// A complete .part an earlier run did not move into place.
			f.logger().Info("verifying a complete partial download", "file", part)
		} else {
			res.Attempts++
			var n int64
			n, appended, err = f.attempt(ctx, k, src, part, have)
			res.Bytes += n
			if appended && res.Resumed == 0 {
				res.Resumed = have
			}
		}
		if err == nil {
			err = verify(k, part)
			if err == nil {
				return nil
			}
			removePart(part, f.logger())
			if !appended || restarted {
				return err
			}
			restarted = true
			res.Resumed = 0
			f.logger().Info("a resumed download failed its checksum: starting again from zero", "file", k.File, "source", src.name, "err", err)
			continue
		}
		if ctx.Err() != nil {
			return fmt.Errorf("interrupted: %w", err)
		}
		var t *transient
		if !errors.As(err, &t) {
			return err
		}
		if t.restart {
			removePart(part, f.logger())
		}
		failures++
		if failures > f.Retries {
			if f.Retries > 0 {
				t = &transient{err: fmt.Errorf("%w (gave up after %d attempts)", t.err, failures)}
			}
			return t
		}
		wait := f.backoff(failures)
		f.logger().Info("transfer broken, retrying", "file", k.File, "source", src.name, "err", t.err, "retry", failures, "of", f.Retries, "after", wait)
		if err := sleep(ctx, wait); err != nil {
			return fmt.Errorf("interrupted: %w", err)
		}
	}
}

// transient wraps an error a retry may not meet again.
type transient struct {
	err     error
	restart bool // the part is of no use: the retry starts from zero
}

func (t *transient) Error() string { return t.err.Error() }
func (t *transient) Unwrap() error { return t.err }

// attempt makes one request for src, asking for the bytes from have on
// when have > 0, and writes the body into part: appended (on 206) or from
// zero (on 200). It returns the bytes written, whether they were appended,
// and nil when the body arrived whole.
func (f *Fetcher) attempt(ctx context.Context, k workload.KnownTrace, src source, part string, have int64) (int64, bool, error) {
	actx, cancel := context.WithCancel(ctx)
	defer cancel()
	stall := f.stallTimeout()
	var stalled atomic.Bool
	timer := time.AfterFunc(stall, func() {
		stalled.Store(true)
		cancel()
	})
	defer timer.Stop()
	broken := func(err error) error {
		if stalled.Load() && ctx.Err() == nil {
			return &transient{err: fmt.Errorf("%w: no bytes for %s", ErrStalled, stall)}
		}
		return &transient{err: err}
	}

	req, err := http.NewRequestWithContext(actx, http.MethodGet, src.name, nil)
	if err != nil {
		return 0, false, err
	}
	// The bytes as stored: no transparent decompression by the transport.
	req.Header.Set("Accept-Encoding", "identity")
	req.Header.Set("User-Agent", "schedfarm-tracefetch")
	if have > 0 {
		req.Header.Set("Range", fmt.Sprintf("bytes=%d-", have))
	}
	resp, err := f.client().Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the error names the URL already
		}
		return 0, false, broken(err)
	}
	defer resp.Body.Close()
	timer.Reset(stall)

	flags := os.O_CREATE | os.O_WRONLY
	switch {
	case resp.StatusCode == http.StatusPartialContent && have > 0:
		first, total, ok := parseContentRange(resp.Header.Get("Content-Range"))
		if !ok || first != have {
			return 0, false, &transient{err: fmt.Errorf("asked for the bytes from %d on, got Content-Range %q", have, resp.Header.Get("Content-Range")), restart: true}
		}
		if total > k.Size {
			return 0, false, fmt.Errorf("%w: %d bytes, want %d", ErrTooLarge, total, k.Size)
		}
		flags |= os.O_APPEND
	case resp.StatusCode == http.StatusOK:
		have = 0
		flags |= os.O_TRUNC
	case resp.StatusCode == http.StatusRequestedRangeNotSatisfiable && have > 0:
		return 0, false, &transient{err: fmt.Errorf("the partial download (%d bytes) is not a prefix of the file: %w", have, &StatusError{resp.StatusCode, resp.Status}), restart: true}
	default:
		serr := &StatusError{resp.StatusCode, resp.Status}
		if serr.temporary() {
			return 0, false, &transient{err: serr}
		}
		return 0, false, serr
	}
	if !src.gunzip && resp.ContentLength >= 0 && have+resp.ContentLength > k.Size {
		return 0, false, fmt.Errorf("%w: the server announces %d bytes, want %d", ErrTooLarge, have+resp.ContentLength, k.Size)
	}
	if src.gunzip && resp.ContentLength > gzipBound(k.Size) {
		return 0, false, fmt.Errorf("%w: the server announces %d gzipped bytes for %d", ErrTooLarge, resp.ContentLength, k.Size)
	}

	w, err := os.OpenFile(part, flags, 0o644)
	if err != nil {
		return 0, false, err
	}
	body := &stallReader{r: resp.Body, timer: timer, d: stall}
	var r io.Reader = body
	f.startProgress(part, src.name, have, k.Size)
	defer f.stopProgress()
	if src.gunzip {
		zr, err := gzip.NewReader(newBoundedReader(body, gzipBound(k.Size)))
		if err != nil {
			w.Close()
			if body.err != nil {
				return 0, false, broken(body.err)
			}
			return 0, false, fmt.Errorf("gunzip: %w", err)
		}
		r = zr
	}
	n, rerr, werr := copyBounded(w, r, k.Size-have, f.add)
	if err := closePart(w, werr); err != nil {
		return n, have > 0, err
	}
	switch {
	case rerr == nil:
		return n, have > 0, nil
	case errors.Is(rerr, ErrTooLarge):
		return n, have > 0, rerr
	case body.err != nil || stalled.Load():
		// The body broke (a gzip reader reports the body's errors too).
		return n, have > 0, broken(rerr)
	default:
		return n, have > 0, fmt.Errorf("gunzip: %w", rerr)
	}
}

// stallReader restarts the stall timer at every read that brings bytes and
// records the body's own error.
type stallReader struct {
	r     io.Reader
	timer *time.Timer
	d     time.Duration
	err   error // the first error other than io.EOF
}

func (s *stallReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if n > 0 {
		s.timer.Reset(s.d)
	}
	if err != nil && err != io.EOF && s.err == nil {
		s.err = err
	}
	return n, err
}

// gzipBound is the most gzipped bytes accepted for a file of size bytes:
// deflate adds a few bytes per 64 KiB block to data it cannot compress,
// gzip a header and a trailer.
func gzipBound(size int64) int64 {
	return size + size/100 + 4096
}

// boundedReader fails with ErrTooLarge past n bytes.
type boundedReader struct {
	r io.Reader
	n int64 // bytes still allowed
}

// newBoundedReader returns a reader of r that fails past n bytes.
func newBoundedReader(r io.Reader, n int64) *boundedReader {
	return &boundedReader{r: r, n: n}
}

func (b *boundedReader) Read(p []byte) (int, error) {
	if b.n <= 0 {
		// At the bound: only EOF is fine.
		var one [1]byte
		n, err := b.r.Read(one[:])
		if n > 0 {
			return 0, fmt.Errorf("%w: more gzipped bytes than such a file needs", ErrTooLarge)
		}
		return 0, err
	}
	if int64(len(p)) > b.n {
		p = p[:b.n]
	}
	n, err := b.r.Read(p)
	b.n -= int64(n)
	return n, err
}

// ctxReader stops reading once ctx is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// copyBounded copies r into w until r's EOF, and fails with ErrTooLarge
// rather than write more than limit bytes. It reports the bytes written
// to add, and returns the error of the read and of the write apart.
func copyBounded(w io.Writer, r io.Reader, limit int64, add func(int64)) (n int64, rerr, werr error) {
	buf := make([]byte, 64<<10)
	for {
		m, err := r.Read(buf)
		if m > 0 {
			if n+int64(m) > limit {
				return n, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, limit), nil
			}
			if _, werr := w.Write(buf[:m]); werr != nil {
				return n, nil, werr
			}
			n += int64(m)
			add(int64(m))
		}
		if err == io.EOF {
			return n, nil, nil
		}
		if err != nil {
			return n, err, nil
		}
	}
}

// closePart syncs and closes a partial download after a write error werr
// (nil if none) and returns the first error.
func closePart(w *os.File, werr error) error {
	serr := w.Sync()
	cerr := w.Close()
	return errors.Join(werr, serr, cerr)
}

// verify checks part's size and SHA-256 against k's.
func verify(k workload.KnownTrace, part string) error {
	sum, size, err := fileSHA256(part)
	if err != nil {
		return err
	}
	if sum != k.SHA256 {
		return fmt.Errorf("%w: got %d bytes with SHA-256 %s, want %d bytes with SHA-256 %s", ErrChecksum, size, sum, k.Size, k.SHA256)
	}
	return nil
}

// fileSHA256 returns the SHA-256 and size of a regular file; any other
// kind is refused before it is opened (simcore.OpenRegular).
func fileSHA256(name string) (string, int64, error) {
	in, err := simcore.OpenRegular(name)
	if err != nil {
		return "", 0, err
	}
	defer in.Close()
	h := sha256.New()
	n, err := io.Copy(h, in)
	if err != nil {
		return "", n, err
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// parseContentRange parses "bytes FIRST-LAST/TOTAL" (TOTAL may be "*",
// returned as -1).
func parseContentRange(s string) (first, total int64, ok bool) {
	rest, found := strings.CutPrefix(s, "bytes ")
	if !found {
		return 0, 0, false
	}
	span, tot, found := strings.Cut(rest, "/")
	if !found {
		return 0, 0, false
	}
	a, b, found := strings.Cut(span, "-")
	if !found {
		return 0, 0, false
	}
	first, err1 := strconv.ParseInt(a, 10, 64)
	last, err2 := strconv.ParseInt(b, 10, 64)
	if err1 != nil || err2 != nil || first < 0 || last < first {
		return 0, 0, false
	}
	total = -1
	if tot != "*" {
		t, err := strconv.ParseInt(tot, 10, 64)
		if err != nil || t <= last {
			return 0, 0, false
		}
		total = t
	}
	return first, total, true
}

func sizeOf(name string) int64 {
	st, err := os.Stat(name)
	if err != nil || !st.Mode().IsRegular() {
		return 0
	}
	return st.Size()
}

func removePart(part string, log *slog.Logger) {
	if err := os.Remove(part); err != nil && !errors.Is(err, fs.ErrNotExist) {
		log.Warn("cannot remove a partial download", "file", part, "err", err)
	}
}

// syncDir makes a rename in dir durable.
func syncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil // directories cannot be synced there
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	return errors.Join(err, d.Close())
}

// sleep waits d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (f *Fetcher) client() *http.Client {
	if f.Client != nil {
		return f.Client
	}
	return &http.Client{}
}

func (f *Fetcher) logger() *slog.Logger {
	if f.Logger != nil {
		return f.Logger
	}
	return slog.New(slog.DiscardHandler)
}

// deadline is the time k's fetch is given: Deadline, else DeadlineBase +
// 1 s per DefaultMinRate bytes of its known size.
func (f *Fetcher) deadline(k workload.KnownTrace) time.Duration {
	if f.Deadline > 0 {
		return f.Deadline
	}
	return DeadlineBase + time.Duration(k.Size)*time.Second/DefaultMinRate
}

func (f *Fetcher) stallTimeout() time.Duration {
	if f.StallTimeout > 0 {
		return f.StallTimeout
	}
	return DefaultStallTimeout
}

// backoff is the wait before retry number n (from 1).
func (f *Fetcher) backoff(n int) time.Duration {
	d := f.Backoff
	if d <= 0 {
		d = DefaultBackoff
	}
	for i := 1; i < n && d < maxBackoff; i++ {
		d *= 2
	}
	return min(d, maxBackoff)
}

func (f *Fetcher) startProgress(file, source string, have, total int64) {
	if f.Progress != nil {
		f.Progress.Start(file, source, have, total)
	}
}

func (f *Fetcher) add(n int64) {
	if f.Progress != nil {
		f.Progress.Add(n)
	}
}

func (f *Fetcher) stopProgress() {
	if f.Progress != nil {
		f.Progress.Stop()
	}
}
