package tracefetch

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"schedfarm/simcore/workload"
)

// content returns n bytes of SWF-looking text, different for each seed.
func content(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	var b bytes.Buffer
	for i := 1; b.Len() < n; i++ {
		fmt.Fprintf(&b, "%d %d 0 %d %d -1 -1 %d -1 -1 1 1 1 -1 -1 -1 -1 -1\n", i, r.IntN(1e6), r.IntN(1e5), 1+r.IntN(64), 1+r.IntN(64))
	}
	return b.Bytes()[:n]
}

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func gz(t *testing.T, b []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// known is the table entry of a synthetic log: file name, URL, checksum and
// size of data.
func known(file, url string, data []byte) workload.KnownTrace {
	return workload.KnownTrace{File: file, URL: url, SHA256: sha(data), Size: int64(len(data)), Jobs: 1}
}

// request is what the test server saw of one request.
type request struct {
	path, rangeHeader, acceptEncoding string
}

// server is an httptest server that records its requests and hands each to
// handle with its number (from 1, over all paths).
type server struct {
	*httptest.Server
	mu   sync.Mutex
	seen []request
}

func newServer(t *testing.T, handle func(w http.ResponseWriter, r *http.Request, n int)) *server {
	t.Helper()
	s := &server{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.seen = append(s.seen, request{r.URL.Path, r.Header.Get("Range"), r.Header.Get("Accept-Encoding")})
		n := len(s.seen)
		s.mu.Unlock()
		handle(w, r, n)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *server) requests() []request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]request(nil), s.seen...)
}

// serve answers with data, Range requests included.
func serve(w http.ResponseWriter, r *http.Request, data []byte) {
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(data))
}

// truncate announces data whole and sends its first n bytes only: the
// server closes the connection as the body falls short.
func truncate(w http.ResponseWriter, data []byte, n int) {
	w.Header().Set("Content-Length", strconv.Itoa(len(data)))
	w.WriteHeader(http.StatusOK)
	w.Write(data[:n])
}

// hangUp announces data whole, sends its first n bytes, then closes the
// connection under the server's feet.
func hangUp(t *testing.T, w http.ResponseWriter, data []byte, n int) {
	w.Header().Set("Content-Length", strconv.Itoa(len(data)))
	w.WriteHeader(http.StatusOK)
	w.Write(data[:n])
	w.(http.Flusher).Flush()
	conn, buf, err := w.(http.Hijacker).Hijack()
	if err != nil {
		t.Error(err)
		return
	}
	buf.Flush()
	conn.Close()
}

// fetcher returns a Fetcher into a new data directory with short waits.
func (s *server) fetcher(t *testing.T) *Fetcher {
	return &Fetcher{
		Client:       s.Client(),
		Dir:          t.TempDir(),
		Retries:      2,
		Backoff:      time.Millisecond,
		StallTimeout: 10 * time.Second,
	}
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(t.Context(), time.Minute)
	t.Cleanup(cancel)
	return c
}

func final(f *Fetcher, k workload.KnownTrace) string {
	return filepath.Join(f.Dir, workload.TraceDir, k.File)
}

// wantFile fails unless the fetched file holds data and no .part is left.
func wantFile(t *testing.T, f *Fetcher, k workload.KnownTrace, data []byte) {
	t.Helper()
	got, err := os.ReadFile(final(f, k))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, data) {
		t.Fatalf("%s: %d bytes, SHA-256 %s; want %d bytes, %s", final(f, k), len(got), sha(got), len(data), sha(data))
	}
	if _, err := os.Stat(final(f, k) + ".part"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf(".part left beside a fetched file (%v)", err)
	}
}

// wantNothing fails unless neither the file nor a .part is there.
func wantNothing(t *testing.T, f *Fetcher, k workload.KnownTrace) {
	t.Helper()
	for _, p := range []string{final(f, k), final(f, k) + ".part"} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s exists after a failed fetch (%v)", p, err)
		}
	}
}

// wantErr fails unless err is an *Error wrapping target whose text holds
// every one of want.
func wantErr(t *testing.T, err, target error, want ...string) *Error {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %v", target)
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %T %v is not an *Error", err, err)
	}
	if target != nil && !errors.Is(err, target) {
		t.Errorf("error %q is not %v", err, target)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error lacks %q:\n%v", w, err)
		}
	}
	return e
}

// recorder is a Progress that records what it is told.
type recorder struct {
	starts []string // "have/total"
	added  int64
	open   int
}

func (r *recorder) Start(file, source string, have, total int64) {
	r.starts = append(r.starts, fmt.Sprintf("%d/%d", have, total))
	r.open++
}
func (r *recorder) Add(n int64) { r.added += n }
func (r *recorder) Stop()       { r.open-- }

// TestFetch fetches a good file: verified, in place, no .part, one
// request asking for the bytes as stored; progress sees every byte; a
// second fetch finds it present without a request.
func TestFetch(t *testing.T) {
	t.Parallel()
	data := content(200_000, 1)
	s := newServer(t, func(w http.ResponseWriter, r *http.Request, _ int) { serve(w, r, data) })
	k := known("good.swf.gz", s.URL+"/logs/good.swf.gz", data)
	f := s.fetcher(t)
	rec := &recorder{}
	f.Progress = rec
	res, err := f.Fetch(ctx(t), k)
	if err != nil {
		t.Fatal(err)
	}
	wantFile(t, f, k, data)
	if res.Status != Fetched || res.Path != final(f, k) || res.Source != k.URL || res.Bytes != int64(len(data)) || res.Resumed != 0 || res.Attempts != 1 {
		t.Errorf("result %+v", res)
	}
	if got := s.requests(); len(got) != 1 || got[0].path != "/logs/good.swf.gz" || got[0].rangeHeader != "" || got[0].acceptEncoding != "identity" {
		t.Errorf("requests %+v, want one for the whole file as stored", got)
	}
	if want := fmt.Sprintf("0/%d", len(data)); len(rec.starts) != 1 || rec.starts[0] != want || rec.added != int64(len(data)) || rec.open != 0 {
		t.Errorf("progress %+v, want one start %s, %d bytes, stopped", rec, want, len(data))
	}

	res, err = f.Fetch(ctx(t), k)
	if err != nil || res.Status != Present || res.Path != final(f, k) {
		t.Fatalf("second fetch: %+v, %v", res, err)
	}
	if n := len(s.requests()); n != 1 {
		t.Errorf("%d requests after a second fetch of a present file, want 1", n)
	}
}

// TestFetchChecksumMismatch: a file that does not match its checksum is
// an error naming both hashes and keeps nothing.
func TestFetchChecksumMismatch(t *testing.T) {
	t.Parallel()
	data, other := content(100_000, 1), content(100_000, 2)
	s := newServer(t, func(w http.ResponseWriter, r *http.Request, _ int) { serve(w, r, other) })
	k := known("bad.swf.gz", s.URL+"/bad.swf.gz", data)
	f := s.fetcher(t)
	_, err := f.Fetch(ctx(t), k)
	e := wantErr(t, err, ErrChecksum, final(f, k), k.URL, sha(other), sha(data))
	if e.Part != "" || strings.Contains(err.Error(), "resume") {
		t.Errorf("a mismatching download is kept: %v", err)
	}
	wantNothing(t, f, k)
	if n := len(s.requests()); n != 1 {
		t.Errorf("%d requests, want 1: a complete transfer that mismatches is not retried", n)
	}
}

// TestFetchTruncatedResumed: a body shorter than its Content-Length is
// resumed on the retry with a Range request for the rest.
func TestFetchTruncatedResumed(t *testing.T) {
	t.Parallel()
	data := content(150_000, 3)
	half := len(data) / 2
	s := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 1 {
			truncate(w, data, half)
			return
		}
		serve(w, r, data)
	})
	k := known("cut.swf.gz", s.URL+"/cut.swf.gz", data)
	f := s.fetcher(t)
	res, err := f.Fetch(ctx(t), k)
	if err != nil {
		t.Fatal(err)
	}
	wantFile(t, f, k, data)
	got := s.requests()
	if len(got) != 2 || got[0].rangeHeader != "" || got[1].rangeHeader != fmt.Sprintf("bytes=%d-", half) {
		t.Errorf("requests %+v, want the whole file then bytes=%d-", got, half)
	}
	if res.Attempts != 2 || res.Resumed != int64(half) || res.Bytes != int64(len(data)) {
		t.Errorf("result %+v", res)
	}
}

// TestFetchConnectionDropped: a connection closed mid-file is resumed with
// a Range request.
func TestFetchConnectionDropped(t *testing.T) {
	t.Parallel()
	data := content(300_000, 4)
	cut := 100_000
	s := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 1 {
			hangUp(t, w, data, cut)
			return
		}
		serve(w, r, data)
	})
	k := known("drop.swf.gz", s.URL+"/drop.swf.gz", data)
	f := s.fetcher(t)
	res, err := f.Fetch(ctx(t), k)
	if err != nil {
		t.Fatal(err)
	}
	wantFile(t, f, k, data)
	got := s.requests()
	if len(got) != 2 || got[1].rangeHeader == "" {
		t.Fatalf("requests %+v, want a second one with a Range header", got)
	}
	if got[1].rangeHeader != fmt.Sprintf("bytes=%d-", res.Resumed) || res.Resumed <= 0 || res.Resumed > int64(cut) {
		t.Errorf("Range %q after %d bytes sent, resumed at %d", got[1].rangeHeader, cut, res.Resumed)
	}
}

// TestFetchNotFound: a 404 is a clear error with its status, not retried.
func TestFetchNotFound(t *testing.T) {
	t.Parallel()
	s := newServer(t, func(w http.ResponseWriter, r *http.Request, _ int) { http.NotFound(w, r) })
	data := content(1000, 5)
	k := known("gone.swf.gz", s.URL+"/gone.swf.gz", data)
	f := s.fetcher(t)
	_, err := f.Fetch(ctx(t), k)
	wantErr(t, err, ErrNotFound, final(f, k), k.URL, `server answered "404 Not Found"`)
	var se *StatusError
	if !errors.As(err, &se) || se.Code != http.StatusNotFound {
		t.Errorf("error %v: no StatusError 404", err)
	}
	wantNothing(t, f, k)
	if n := len(s.requests()); n != 1 {
		t.Errorf("%d requests, want 1: a 404 is not retried", n)
	}
}

// TestFetchServerErrorRetried: a 503 is retried.
func TestFetchServerErrorRetried(t *testing.T) {
	t.Parallel()
	data := content(10_000, 6)
	s := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 1 {
			http.Error(w, "busy", http.StatusServiceUnavailable)
			return
		}
		serve(w, r, data)
	})
	k := known("busy.swf.gz", s.URL+"/busy.swf.gz", data)
	f := s.fetcher(t)
	if _, err := f.Fetch(ctx(t), k); err != nil {
		t.Fatal(err)
	}
	wantFile(t, f, k, data)
}

// TestFetchTooLarge: a server sending more bytes than the known size is
// cut off, whether it announces them or not, and nothing is kept.
func TestFetchTooLarge(t *testing.T) {
	t.Parallel()
	data := content(100_000, 7)
	big := append(bytes.Clone(data), content(50_000, 8)...)
	for _, announce := range []bool{true, false} {
		t.Run(fmt.Sprintf("announced=%v", announce), func(t *testing.T) {
			t.Parallel()
			s := newServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
				if announce {
					w.Header().Set("Content-Length", strconv.Itoa(len(big)))
				} else {
					w.WriteHeader(http.StatusOK)
					w.(http.Flusher).Flush() // chunked: no length
				}
				w.Write(big)
			})
			k := known("big.swf.gz", s.URL+"/big.swf.gz", data)
			f := s.fetcher(t)
			_, err := f.Fetch(ctx(t), k)
			wantErr(t, err, ErrTooLarge, final(f, k), k.URL)
			wantNothing(t, f, k)
			if n := len(s.requests()); n != 1 {
				t.Errorf("%d requests, want 1: too large is not retried", n)
			}
		})
	}
}

// TestFetchStall: a body that stops coming aborts the attempt after the
// stall timeout; the retry resumes and stalls too; the error says so and
// the .part is kept for the next run.
func TestFetchStall(t *testing.T) {
	t.Parallel()
	data := content(100_000, 9)
	release := make(chan struct{})
	s := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		w.Header().Set("Content-Length", strconv.Itoa(len(data)))
		w.WriteHeader(http.StatusOK)
		w.Write(data[:1000])
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	t.Cleanup(func() { close(release) }) // before the server closes
	k := known("slow.swf.gz", s.URL+"/slow.swf.gz", data)
	f := s.fetcher(t)
	f.Retries = 1
	f.StallTimeout = 50 * time.Millisecond
	c, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	_, err := f.Fetch(c, k)
	e := wantErr(t, err, ErrStalled, final(f, k), k.URL, "no bytes for 50ms", "gave up after 2 attempts", "run the same command again to resume")
	if c.Err() != nil {
		t.Fatalf("the test's deadline passed: the stall timeout did not end the fetch (%v)", err)
	}
	if e.Part != final(f, k)+".part" || e.PartBytes != 1000 || sizeOf(e.Part) != 1000 {
		t.Errorf("kept %s (%d bytes), want the .part with 1000 bytes", e.Part, e.PartBytes)
	}
	if got := s.requests(); len(got) != 2 || got[1].rangeHeader != "bytes=1000-" {
		t.Errorf("requests %+v, want a retry resuming at 1000", got)
	}
}

// TestFetchRetriesExhausted: a transfer that breaks at every attempt is
// tried Retries+1 times; the .part is kept and the error says to resume.
func TestFetchRetriesExhausted(t *testing.T) {
	t.Parallel()
	data := content(100_000, 10)
	s := newServer(t, func(w http.ResponseWriter, r *http.Request, n int) {
		// 10 bytes from where the client asks, then the body falls short.
		from := 0
		if rg := r.Header.Get("Range"); rg != "" {
			from, _ = strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(rg, "bytes="), "-"))
			w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", from, len(data)-1, len(data)))
			w.Header().Set("Content-Length", strconv.Itoa(len(data)-from))
			w.WriteHeader(http.StatusPartialContent)
		} else {
			w.Header().Set("Content-Length", strconv.Itoa(len(data)))
		}
		w.Write(data[from : from+10])
	})
	k := known("flaky.swf.gz", s.URL+"/flaky.swf.gz", data)
	f := s.fetcher(t)
	_, err := f.Fetch(ctx(t), k)
	e := wantErr(t, err, nil, final(f, k), k.URL, "unexpected EOF", "gave up after 3 attempts", "run the same command again to resume")
	var ranges []string
	for _, r := range s.requests() {
		ranges = append(ranges, r.rangeHeader)
	}
	if got, want := strings.Join(ranges, ","), ",bytes=10-,bytes=20-"; got != want {
		t.Errorf("Range headers %q, want %q (2 retries, each resuming)", got, want)
	}
	if e.PartBytes != 30 || sizeOf(final(f, k)+".part") != 30 || e.Part != final(f, k)+".part" {
		t.Errorf("kept %d bytes in %s", e.PartBytes, e.Part)
	}
	if _, err := os.Stat(final(f, k)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a partial file is in place (%v)", err)
	}
}

// TestFetchGzipArchive: a log the archive gzips and the farm keeps
// uncompressed (NASA's) is gunzipped and verified; its decompressed size
// and its gzipped size are bounded; a body that is not gzip is an error.
func TestFetchGzipArchive(t *testing.T) {
	t.Parallel()
	plain := content(300_000, 11)
	files := map[string][]byte{
		"/nasa.swf.gz":  gz(t, plain),
		"/bomb.swf.gz":  gz(t, append(bytes.Clone(plain), bytes.Repeat([]byte{' '}, 1<<20)...)),
		"/plain.swf.gz": plain,
		// The right content, then empty gzip members without end.
		"/padded.swf.gz": append(gz(t, plain), bytes.Repeat(gz(t, nil), 20_000)...),
	}
	s := newServer(t, func(w http.ResponseWriter, r *http.Request, _ int) { serve(w, r, files[r.URL.Path]) })

	k := known("nasa.swf", s.URL+"/nasa.swf.gz", plain)
	f := s.fetcher(t)
	if _, err := f.Fetch(ctx(t), k); err != nil {
		t.Fatal(err)
	}
	wantFile(t, f, k, plain)

	k = known("bomb.swf", s.URL+"/bomb.swf.gz", plain)
	_, err := f.Fetch(ctx(t), k)
	wantErr(t, err, ErrTooLarge, final(f, k), k.URL)
	wantNothing(t, f, k)

	k = known("padded.swf", s.URL+"/padded.swf.gz", plain)
	_, err = f.Fetch(ctx(t), k)
	wantErr(t, err, ErrTooLarge, final(f, k), k.URL, "gzipped bytes")
	wantNothing(t, f, k)

	k = known("plain.swf", s.URL+"/plain.swf.gz", plain)
	_, err = f.Fetch(ctx(t), k)
	wantErr(t, err, nil, final(f, k), k.URL, "gunzip")
	wantNothing(t, f, k)
}

// TestFetchMirrorDir: a mirror directory's file is copied, verified, and
// no request is made; a NASA-style log is taken gzipped when the mirror
// has only the archive's name (and its gzipped size is bounded); a file in
// neither name is not found; a mirror file that mismatches keeps nothing.
func TestFetchMirrorDir(t *testing.T) {
	t.Parallel()
	s := newServer(t, func(w http.ResponseWriter, r *http.Request, _ int) { http.NotFound(w, r) })
	mirror := t.TempDir()
	data, plain := content(80_000, 12), content(90_000, 13)
	if err := os.WriteFile(filepath.Join(mirror, "a.swf.gz"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(mirror, "nasa.swf.gz"), gz(t, plain), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(mirror, "wrong.swf.gz"), content(len(data), 99), 0o644); err != nil {
		t.Fatal(err)
	}
	f := s.fetcher(t)
	f.Mirror = mirror

	k := known("a.swf.gz", s.URL+"/a.swf.gz", data)
	res, err := f.Fetch(ctx(t), k)
	if err != nil {
		t.Fatal(err)
	}
	wantFile(t, f, k, data)
	if res.Source != filepath.Join(mirror, "a.swf.gz") || res.Status != Fetched {
		t.Errorf("result %+v", res)
	}

	k = known("nasa.swf", s.URL+"/nasa.swf.gz", plain)
	res, err = f.Fetch(ctx(t), k)
	if err != nil {
		t.Fatal(err)
	}
	wantFile(t, f, k, plain)
	if res.Source != filepath.Join(mirror, "nasa.swf.gz") {
		t.Errorf("source %s", res.Source)
	}

	write(t, filepath.Join(mirror, "padded.swf.gz"), append(gz(t, plain), bytes.Repeat(gz(t, nil), 20_000)...))
	k = known("padded.swf", s.URL+"/padded.swf.gz", plain)
	_, err = f.Fetch(ctx(t), k)
	wantErr(t, err, ErrTooLarge, "more gzipped bytes than such a file needs")
	wantNothing(t, f, k)

	k = known("none.swf", s.URL+"/none.swf.gz", plain)
	_, err = f.Fetch(ctx(t), k)
	wantErr(t, err, ErrNotFound, filepath.Join(mirror, "none.swf"), filepath.Join(mirror, "none.swf.gz"))
	wantNothing(t, f, k)

	k = known("wrong.swf.gz", s.URL+"/wrong.swf.gz", data)
	_, err = f.Fetch(ctx(t), k)
	wantErr(t, err, ErrChecksum, filepath.Join(mirror, "wrong.swf.gz"), sha(content(len(data), 99)), sha(data))
	wantNothing(t, f, k)

	if got := s.requests(); len(got) != 0 {
		t.Errorf("requests %+v to the archive, want none with a mirror directory", got)
	}
}

// TestFetchMirrorHTTP: an http mirror serves <mirror>/<file>; for a
// NASA-style log missing under its own name, <mirror>/<file>.gz; the
// archive's URL is never asked.
func TestFetchMirrorHTTP(t *testing.T) {
	t.Parallel()
	data, plain := content(50_000, 14), content(60_000, 15)
	files := map[string][]byte{"/m/a.swf.gz": data, "/m/nasa.swf.gz": gz(t, plain)}
	s := newServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		if b, ok := files[r.URL.Path]; ok {
			serve(w, r, b)
			return
		}
		http.NotFound(w, r)
	})
	f := s.fetcher(t)
	f.Mirror = s.URL + "/m/"
	a := known("a.swf.gz", s.URL+"/archive/a.swf.gz", data)
	if _, err := f.Fetch(ctx(t), a); err != nil {
		t.Fatal(err)
	}
	wantFile(t, f, a, data)
	nasa := known("nasa.swf", s.URL+"/archive/nasa.swf.gz", plain)
	res, err := f.Fetch(ctx(t), nasa)
	if err != nil {
		t.Fatal(err)
	}
	wantFile(t, f, nasa, plain)
	if res.Source != s.URL+"/m/nasa.swf.gz" {
		t.Errorf("source %s", res.Source)
	}
	var paths []string
	for _, r := range s.requests() {
		paths = append(paths, r.path)
	}
	if got, want := strings.Join(paths, " "), "/m/a.swf.gz /m/nasa.swf /m/nasa.swf.gz"; got != want {
		t.Errorf("requests %s, want %s", got, want)
	}
}

// TestFetchPresent: a file already there and matching, in Dir or in a
// later data directory, is present and nothing is requested; a copy in a
// later directory that does not match is shadowed by a fetch into Dir.
func TestFetchPresent(t *testing.T) {
	t.Parallel()
	data := content(20_000, 16)
	s := newServer(t, func(w http.ResponseWriter, r *http.Request, _ int) { serve(w, r, data) })
	k := known("here.swf.gz", s.URL+"/here.swf.gz", data)

	f := s.fetcher(t)
	write(t, final(f, k), data)
	res, err := f.Fetch(ctx(t), k)
	if err != nil || res.Status != Present || res.Path != final(f, k) {
		t.Fatalf("fetch of a present file: %+v, %v", res, err)
	}

	f = s.fetcher(t)
	other := t.TempDir()
	write(t, filepath.Join(other, "traces", k.File), data)
	f.Others = []string{t.TempDir(), other}
	res, err = f.Fetch(ctx(t), k)
	if err != nil || res.Status != Present || res.Path != filepath.Join(other, "traces", k.File) {
		t.Fatalf("fetch of a file present in another data dir: %+v, %v", res, err)
	}
	if _, err := os.Stat(final(f, k)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("fetched into Dir a file present in another data dir (%v)", err)
	}
	if n := len(s.requests()); n != 0 {
		t.Fatalf("%d requests for present files, want 0", n)
	}

	f = s.fetcher(t)
	write(t, filepath.Join(other, "traces", k.File), []byte("stale"))
	f.Others = []string{other}
	res, err = f.Fetch(ctx(t), k)
	if err != nil || res.Status != Fetched {
		t.Fatalf("fetch over a mismatching copy in another data dir: %+v, %v", res, err)
	}
	wantFile(t, f, k, data)
	if b, _ := os.ReadFile(filepath.Join(other, "traces", k.File)); string(b) != "stale" {
		t.Errorf("the copy in another data dir was changed")
	}
}

func write(t *testing.T, name string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestFetchPresentMismatch: a file present with another checksum is an
// error naming both hashes and left alone, unless Force replaces it.
func TestFetchPresentMismatch(t *testing.T) {
	t.Parallel()
	data, old := content(30_000, 17), content(30_000, 18)
	s := newServer(t, func(w http.ResponseWriter, r *http.Request, _ int) { serve(w, r, data) })
	k := known("old.swf.gz", s.URL+"/old.swf.gz", data)
	f := s.fetcher(t)
	write(t, final(f, k), old)
	_, err := f.Fetch(ctx(t), k)
	wantErr(t, err, ErrExists, final(f, k), sha(old), sha(data))
	if b, _ := os.ReadFile(final(f, k)); !bytes.Equal(b, old) {
		t.Error("the present file was changed without Force")
	}
	if n := len(s.requests()); n != 0 {
		t.Errorf("%d requests without Force, want 0", n)
	}
	f.Force = true
	res, err := f.Fetch(ctx(t), k)
	if err != nil || res.Status != Fetched {
		t.Fatalf("with Force: %+v, %v", res, err)
	}
	wantFile(t, f, k, data)
}

// TestFetchResumesPart: a .part left by an earlier run is resumed with a
// Range request; a .part that is not a prefix of the file fails the
// checksum once resumed and is fetched again from zero; a complete .part
// is verified and moved into place without a request.
func TestFetchResumesPart(t *testing.T) {
	t.Parallel()
	data := content(120_000, 19)
	s := newServer(t, func(w http.ResponseWriter, r *http.Request, _ int) { serve(w, r, data) })
	k := known("part.swf.gz", s.URL+"/part.swf.gz", data)

	t.Run("prefix", func(t *testing.T) {
		f := s.fetcher(t)
		write(t, final(f, k)+".part", data[:40_000])
		before := len(s.requests())
		res, err := f.Fetch(ctx(t), k)
		if err != nil {
			t.Fatal(err)
		}
		wantFile(t, f, k, data)
		got := s.requests()[before:]
		if len(got) != 1 || got[0].rangeHeader != "bytes=40000-" {
			t.Errorf("requests %+v, want one for bytes=40000-", got)
		}
		if res.Resumed != 40_000 || res.Bytes != int64(len(data)-40_000) {
			t.Errorf("result %+v", res)
		}
	})
	t.Run("not a prefix", func(t *testing.T) {
		f := s.fetcher(t)
		write(t, final(f, k)+".part", content(40_000, 99))
		before := len(s.requests())
		res, err := f.Fetch(ctx(t), k)
		if err != nil {
			t.Fatal(err)
		}
		wantFile(t, f, k, data)
		got := s.requests()[before:]
		if len(got) != 2 || got[0].rangeHeader != "bytes=40000-" || got[1].rangeHeader != "" {
			t.Errorf("requests %+v, want a resume then one from zero", got)
		}
		if res.Resumed != 0 {
			t.Errorf("result %+v: resumed", res)
		}
	})
	t.Run("complete", func(t *testing.T) {
		f := s.fetcher(t)
		write(t, final(f, k)+".part", data)
		before := len(s.requests())
		if _, err := f.Fetch(ctx(t), k); err != nil {
			t.Fatal(err)
		}
		wantFile(t, f, k, data)
		if got := s.requests()[before:]; len(got) != 0 {
			t.Errorf("requests %+v for a complete .part", got)
		}
	})
}

// TestFetchBadResume: a server answering a Range request with another
// range, or 416, makes the retry start from zero.
func TestFetchBadResume(t *testing.T) {
	t.Parallel()
	data := content(50_000, 20)
	for _, c := range []struct {
		name   string
		answer func(w http.ResponseWriter)
	}{
		{"wrong range", func(w http.ResponseWriter) {
			w.Header().Set("Content-Range", fmt.Sprintf("bytes 0-%d/%d", len(data)-1, len(data)))
			w.WriteHeader(http.StatusPartialContent)
			w.Write(data)
		}},
		{"416", func(w http.ResponseWriter) {
			w.Header().Set("Content-Range", fmt.Sprintf("bytes */%d", len(data)))
			w.WriteHeader(http.StatusRequestedRangeNotSatisfiable)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			s := newServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
				if r.Header.Get("Range") != "" {
					c.answer(w)
					return
				}
				serve(w, r, data)
			})
			k := known("r.swf.gz", s.URL+"/r.swf.gz", data)
			f := s.fetcher(t)
			write(t, final(f, k)+".part", data[:1000])
			if _, err := f.Fetch(ctx(t), k); err != nil {
				t.Fatal(err)
			}
			wantFile(t, f, k, data)
			if got := s.requests(); len(got) != 2 || got[1].rangeHeader != "" {
				t.Errorf("requests %+v, want a resume then one from zero", got)
			}
		})
	}
}

// TestFetchCanceled: a canceled context ends the fetch and keeps the .part.
func TestFetchCanceled(t *testing.T) {
	t.Parallel()
	data := content(100_000, 21)
	c, cancel := context.WithCancel(ctx(t))
	defer cancel()
	release := make(chan struct{})
	s := newServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		w.Header().Set("Content-Length", strconv.Itoa(len(data)))
		w.Write(data[:5000])
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	t.Cleanup(func() { close(release) })
	k := known("int.swf.gz", s.URL+"/int.swf.gz", data)
	f := s.fetcher(t)
	f.Progress = cancelOnAdd{cancel} // the user hits ^C once bytes are in
	_, err := f.Fetch(c, k)
	e := wantErr(t, err, context.Canceled, "interrupted", "run the same command again to resume")
	if e.Part == "" || sizeOf(e.Part) != e.PartBytes || e.PartBytes == 0 {
		t.Errorf("kept %q (%d bytes)", e.Part, e.PartBytes)
	}
	if n := len(s.requests()); n != 1 {
		t.Errorf("%d requests after a cancel, want 1", n)
	}
}

// cancelOnAdd is a Progress that cancels at the first bytes written.
type cancelOnAdd struct{ cancel context.CancelFunc }

func (c cancelOnAdd) Start(string, string, int64, int64) {}
func (c cancelOnAdd) Add(int64)                          { c.cancel() }
func (c cancelOnAdd) Stop()                              {}

// TestFetchEscapesServerText: a status line with control characters is
// quoted in the error.
func TestFetchEscapesServerText(t *testing.T) {
	t.Parallel()
	s := newServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		conn, buf, err := w.(http.Hijacker).Hijack()
		if err != nil {
			t.Error(err)
			return
		}
		buf.WriteString("HTTP/1.1 418 \x1b[2Jteapot\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
		buf.Flush()
		conn.Close()
	})
	k := known("esc.swf.gz", s.URL+"/esc.swf.gz", []byte("x"))
	f := s.fetcher(t)
	_, err := f.Fetch(ctx(t), k)
	wantErr(t, err, nil, `"418 \x1b[2Jteapot"`)
	if strings.Contains(err.Error(), "\x1b") {
		t.Errorf("error holds a raw escape: %q", err)
	}
}

// TestFetchRefusesBadTable: a table entry with a path for a file name, or
// no checksum, is refused before anything is fetched.
func TestFetchRefusesBadTable(t *testing.T) {
	t.Parallel()
	s := newServer(t, func(w http.ResponseWriter, r *http.Request, _ int) { http.NotFound(w, r) })
	f := s.fetcher(t)
	for _, k := range []workload.KnownTrace{
		{File: "../x.swf", URL: s.URL + "/x.swf", SHA256: sha(nil), Size: 1},
		{File: "x.swf", URL: s.URL + "/x.swf", SHA256: "abc", Size: 1},
		{File: "x.swf", URL: s.URL + "/x.swf", SHA256: sha(nil)},
		{File: "x.swf", URL: s.URL + "/y.swf", SHA256: sha(nil), Size: 1},
	} {
		if _, err := f.Fetch(ctx(t), k); err == nil {
			t.Errorf("%+v: fetched", k)
		}
	}
	if n := len(s.requests()); n != 0 {
		t.Errorf("%d requests for bad table entries", n)
	}
}

// TestFind resolves the names users type.
func TestFind(t *testing.T) {
	t.Parallel()
	for name, want := range map[string]string{
		"CTC-SP2-1996-3.1-cln":               "CTC-SP2-1996-3.1-cln.swf.gz",
		"CTC-SP2-1996-3.1-cln.swf":           "CTC-SP2-1996-3.1-cln.swf.gz",
		"CTC-SP2-1996-3.1-cln.swf.gz":        "CTC-SP2-1996-3.1-cln.swf.gz",
		"traces/CTC-SP2-1996-3.1-cln.swf.gz": "CTC-SP2-1996-3.1-cln.swf.gz",
		"ctc-sp2-1996-3.1-cln":               "CTC-SP2-1996-3.1-cln.swf.gz",
		"NASA-iPSC-1993-3.1-cln.swf":         "NASA-iPSC-1993-3.1-cln.swf",
		"NASA-iPSC-1993-3.1-cln.swf.gz":      "NASA-iPSC-1993-3.1-cln.swf",
		"traces/NASA-iPSC-1993-3.1-cln":      "NASA-iPSC-1993-3.1-cln.swf",
		"CTC-SP2":                            "",
		"other/CTC-SP2-1996-3.1-cln.swf.gz":  "",
		"":                                   "",
	} {
		k, ok := Find(workload.Known, name)
		if k.File != want || ok != (want != "") {
			t.Errorf("Find(%q) = %s, %v; want %q", name, k.File, ok, want)
		}
	}
}

// TestFetchDeadline: a source that sends a byte whenever the last one has
// been written (so the stall timeout never fires) is given up at the
// file's deadline, with ErrTooSlow and the .part kept; a retry does not
// start after the deadline.
func TestFetchDeadline(t *testing.T) {
	t.Parallel()
	data := content(1_000_000, 22)
	next := make(chan struct{}, 1)
	release := make(chan struct{})
	s := newServer(t, func(w http.ResponseWriter, r *http.Request, _ int) {
		w.Header().Set("Content-Length", strconv.Itoa(len(data)))
		w.WriteHeader(http.StatusOK)
		for i := 0; i < len(data)-1; i++ { // never the last byte
			w.Write(data[i : i+1])
			w.(http.Flusher).Flush()
			select {
			case <-next:
			case <-r.Context().Done():
				return
			case <-release:
				return
			}
		}
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	t.Cleanup(func() { close(release) }) // before the server closes
	k := known("trickle.swf.gz", s.URL+"/trickle.swf.gz", data)
	f := s.fetcher(t)
	f.StallTimeout = time.Hour
	f.Deadline = 200 * time.Millisecond
	f.Progress = onAdd(func() {
		select {
		case next <- struct{}{}:
		default:
		}
	})
	c, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	_, err := f.Fetch(c, k)
	e := wantErr(t, err, ErrTooSlow, final(f, k), k.URL, "not complete after 200ms", "run the same command again to resume")
	if c.Err() != nil || errors.Is(err, ErrStalled) {
		t.Fatalf("the deadline did not end the fetch (%v)", err)
	}
	if e.PartBytes == 0 || sizeOf(e.Part) != e.PartBytes {
		t.Errorf("kept %q (%d bytes), want the .part", e.Part, e.PartBytes)
	}
	if n := len(s.requests()); n != 1 {
		t.Errorf("%d requests, want 1: no retry after the deadline", n)
	}
}

// onAdd is a Progress that calls its function at every write.
type onAdd func()

func (o onAdd) Start(string, string, int64, int64) {}
func (o onAdd) Add(int64)                          { o() }
func (o onAdd) Stop()                              {}

// TestFetchDefaultDeadline: without Deadline, a file gets DeadlineBase and
// 1 s per DefaultMinRate bytes.
func TestFetchDefaultDeadline(t *testing.T) {
	f := &Fetcher{}
	for size, want := range map[int64]time.Duration{1000: time.Minute + 100*time.Millisecond, 4_000_000: time.Minute + 400*time.Second} {
		if got := f.deadline(workload.KnownTrace{Size: size}); got != want {
			t.Errorf("deadline of %d bytes: %s, want %s", size, got, want)
		}
	}
	f.Deadline = time.Second
	if got := f.deadline(workload.KnownTrace{Size: 4_000_000}); got != time.Second {
		t.Errorf("deadline with Deadline set: %s", got)
	}
}

// TestFetchRefusesNonRegular: a FIFO or a link to /dev/zero, in a mirror
// directory, in the data directory's traces/ or as the .part, is refused
// by its kind without blocking on it or reading it.
func TestFetchRefusesNonRegular(t *testing.T) {
	t.Parallel()
	s := newServer(t, func(w http.ResponseWriter, r *http.Request, _ int) { http.NotFound(w, r) })
	data := content(10_000, 23)
	fifo := func(path string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(path, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	zero := func(path string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("/dev/zero", path); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name, want string
		plant      func(f *Fetcher, k workload.KnownTrace)
	}{
		{"mirror-fifo", "not a regular file (a named pipe)", func(f *Fetcher, k workload.KnownTrace) { fifo(filepath.Join(f.Mirror, k.File)) }},
		{"mirror-zero", "not a regular file (a device)", func(f *Fetcher, k workload.KnownTrace) { zero(filepath.Join(f.Mirror, k.File)) }},
		{"data-fifo", "not a regular file (a named pipe)", func(f *Fetcher, k workload.KnownTrace) { fifo(final(f, k)) }},
		{"data-zero", "not a regular file (a device)", func(f *Fetcher, k workload.KnownTrace) { zero(final(f, k)) }},
		{"part-fifo", "not a regular file (a named pipe)", func(f *Fetcher, k workload.KnownTrace) { fifo(final(f, k) + ".part") }},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := s.fetcher(t)
			f.Mirror = t.TempDir()
			k := known(c.name+".swf.gz", s.URL+"/"+c.name+".swf.gz", data)
			write(t, filepath.Join(f.Mirror, "unused"), nil)
			c.plant(f, k)
			_, err := f.Fetch(ctx(t), k)
			wantErr(t, err, nil, c.want)
		})
	}
}
