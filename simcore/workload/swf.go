package workload

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/klauspost/compress/gzip"
)

// Record is one job line of a Standard Workload Format (SWF v2.2) log: the
// 18 fields in file order, -1 where the log does not know the value. Times
// are seconds; the format allows fractional run and CPU times.
type Record struct {
	Job        int64   // 1 job number
	Submit     float64 // 2 submit time, relative to UnixStartTime
	Wait       float64 // 3 wait time
	Run        float64 // 4 run time (wall clock)
	Alloc      int     // 5 number of allocated processors
	AvgCPU     float64 // 6 average CPU time used per processor
	UsedMem    float64 // 7 used memory per processor (KB)
	ReqProcs   int     // 8 requested number of processors
	ReqTime    float64 // 9 requested time (the user's estimate / limit)
	ReqMem     float64 // 10 requested memory per processor (KB)
	Status     int     // 11 1 completed, 0 failed, 5 cancelled, 2-4 partial
	User       int     // 12 user id
	Group      int     // 13 group id
	App        int     // 14 executable (application) number
	Queue      int     // 15 queue number
	Partition  int     // 16 partition number
	Preceding  int64   // 17 preceding job number
	ThinkTime  float64 // 18 think time from the preceding job
	SourceLine int     // line of the file the record came from (1-based)
}

// Header holds the "; Key: value" comments at the top of a log. Known keys
// are parsed into fields (zero when absent or unparsable); every key is kept
// in Fields, in file order in Keys.
type Header struct {
	Version       string
	Computer      string
	Installation  string
	UnixStartTime int64
	TimeZone      string
	StartTime     string
	EndTime       string
	MaxNodes      int
	MaxProcs      int
	MaxRuntime    float64
	MaxJobs       int
	MaxRecords    int
	Fields        map[string]string
	Keys          []string
	Notes         []string // comment lines without "Key:"
}

// Trace is a parsed log.
type Trace struct {
	Header  Header
	Records []Record
	// Skipped counts malformed lines skipped under ReadOptions.Lenient.
	Skipped int
	// FirstSkipped describes the first skipped line (empty if none).
	FirstSkipped string
}

// ReadOptions selects how Read treats malformed lines.
type ReadOptions struct {
	// Lenient skips malformed job lines and counts them in Trace.Skipped;
	// otherwise the first one is an error naming its line.
	Lenient bool
	// Limit stops after that many job records (0: no limit). It is the
	// "first N jobs" cleaning option applied while reading, so a prefix of
	// a large log costs only its own parse time.
	Limit int
}

// ErrMalformed is wrapped by every error about a malformed job line.
var ErrMalformed = errors.New("malformed SWF line")

// NumFields is the number of fields of an SWF job line.
const NumFields = 18

// Read parses an SWF log from r. A gzip stream (magic bytes 1f 8b) is
// decompressed transparently. Lines are either blank, comments (starting
// with ';'), or job lines of exactly 18 whitespace-separated numbers.
// Complexity: linear in the input.
func Read(r io.Reader, opt ReadOptions) (*Trace, error) {
	br, closeGzip, err := plainText(r)
	if err != nil {
		return nil, err
	}
	defer closeGzip()
	t := &Trace{Header: Header{Fields: map[string]string{}}}
	sc := bufio.NewScanner(br)
	sc.Buffer(make([]byte, 0, 1<<16), 1<<20)
	line := 0
	var fields [NumFields][]byte
	// Records fill chunks of recChunk, copied once into t.Records at the
	// end: appending to one slice would copy every record again at each
	// growth.
	var full [][]Record
	recs := make([]Record, 0, recChunk)
	count := func() int { return len(full)*recChunk + len(recs) }
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		if b[0] == ';' {
			t.Header.comment(string(b[1:]))
			continue
		}
		rec, err := parseRecord(b, &fields)
		if err != nil {
			if opt.Lenient {
				if t.Skipped == 0 {
					t.FirstSkipped = fmt.Sprintf("line %d: %v", line, err)
				}
				t.Skipped++
				continue
			}
			// A bad last line before a read error is the cut edge of a
			// truncated or damaged file: say that, not "malformed".
			if !sc.Scan() {
				if sc.Err() != nil {
					return nil, fmt.Errorf("swf: line %d: %w (the file is truncated or damaged)", line, sc.Err())
				}
				return nil, fmt.Errorf("swf: line %d: %w (the file's last line: is the file truncated?)", line, err)
			}
			return nil, fmt.Errorf("swf: line %d: %w", line, err)
		}
		rec.SourceLine = line
		if len(recs) == recChunk {
			full = append(full, recs)
			recs = make([]Record, 0, recChunk)
		}
		recs = append(recs, rec)
		if opt.Limit > 0 && count() >= opt.Limit {
			break
		}
	}
	if len(full) == 0 {
		t.Records = recs
	} else {
		t.Records = make([]Record, 0, count())
		for _, c := range full {
			t.Records = append(t.Records, c...)
		}
		t.Records = append(t.Records, recs...)
	}
	if opt.Limit > 0 && len(t.Records) >= opt.Limit {
		return t, nil
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("swf: after line %d: %w (the file is truncated or damaged)", line, err)
	}
	if len(t.Records) == 0 {
		if t.Skipped > 0 {
			return nil, fmt.Errorf("%w: all %d job lines are malformed (first: %s)", ErrNoJobs, t.Skipped, t.FirstSkipped)
		}
		return nil, fmt.Errorf("%w (%d lines read): is the file empty, or a download that did not finish?", ErrNoJobs, line)
	}
	return t, nil
}

// recChunk is the number of records Read gathers before starting a new
// chunk.
const recChunk = 8192

// plainText returns r buffered, or its decompressed stream when it starts
// with gzip's magic bytes (1f 8b), and the function that closes the gzip
// reader.
func plainText(r io.Reader) (*bufio.Reader, func(), error) {
	br := bufio.NewReaderSize(r, 1<<16)
	if magic, err := br.Peek(2); err == nil && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, nil, fmt.Errorf("swf: gzip: %w", err)
		}
		return bufio.NewReaderSize(zr, 1<<16), func() { zr.Close() }, nil
	}
	return br, func() {}, nil
}

// ErrNoJobs is wrapped by the error of Read and Probe for a log without a
// job line: an empty file, or a header alone. A log of no jobs is bad
// input, never a valid workload of zero jobs.
var ErrNoJobs = errors.New("swf: the log has no job lines")

// Probe reads r up to its first job line: nil when there is one (well
// formed or not: Read says which lines are malformed), an error wrapping
// ErrNoJobs when the file is empty or holds comments alone, or the read
// error (a damaged gzip stream). It costs the header's length, not the
// log's, so a whole data directory can be checked before a run.
func Probe(r io.Reader) error {
	br, closeGzip, err := plainText(r)
	if err != nil {
		return err
	}
	defer closeGzip()
	sc := bufio.NewScanner(br)
	sc.Buffer(make([]byte, 0, 1<<16), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) > 0 && b[0] != ';' {
			return nil
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("swf: after line %d: %w (the file is truncated or damaged)", line, err)
	}
	return fmt.Errorf("%w (%d lines read): is the file empty, or a download that did not finish?", ErrNoJobs, line)
}

func (h *Header) comment(s string) {
	key, val, ok := strings.Cut(s, ":")
	key = strings.TrimSpace(key)
	if !ok || key == "" || strings.ContainsAny(key, " \t") {
		if n := strings.TrimSpace(s); n != "" {
			h.Notes = append(h.Notes, n)
		}
		return
	}
	val = strings.TrimSpace(val)
	if _, dup := h.Fields[key]; !dup {
		h.Keys = append(h.Keys, key)
	} else {
		val = h.Fields[key] + "\n" + val
	}
	h.Fields[key] = val
	first := firstWord(val)
	switch key {
	case "Version":
		h.Version = val
	case "Computer":
		h.Computer = val
	case "Installation":
		h.Installation = val
	case "UnixStartTime":
		h.UnixStartTime, _ = strconv.ParseInt(first, 10, 64)
	case "TimeZoneString":
		h.TimeZone = val
	case "StartTime":
		h.StartTime = val
	case "EndTime":
		h.EndTime = val
	case "MaxNodes":
		h.MaxNodes, _ = strconv.Atoi(first)
	case "MaxProcs":
		h.MaxProcs, _ = strconv.Atoi(first)
	case "MaxRuntime":
		h.MaxRuntime, _ = strconv.ParseFloat(first, 64)
	case "MaxJobs":
		h.MaxJobs, _ = strconv.Atoi(first)
	case "MaxRecords":
		h.MaxRecords, _ = strconv.Atoi(first)
	}
}

func firstWord(s string) string {
	if i := strings.IndexAny(s, " \t("); i >= 0 {
		return s[:i]
	}
	return s
}

// parseRecord parses a job line (trimmed, not empty) in one pass: a field
// of plain digits is converted as it is scanned (plainInt's rule), any
// other by strconv.ParseFloat; f receives the fields of the line.
func parseRecord(b []byte, f *[NumFields][]byte) (Record, error) {
	var v [NumFields]float64
	n := 0
	var bad error // the first bad field's, reported once the count is right
	for i := 0; i < len(b); {
		for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
			i++
		}
		if i == len(b) {
			break
		}
		if n == NumFields {
			return Record{}, fmt.Errorf("%w: more than %d fields", ErrMalformed, NumFields)
		}
		j := i
		neg := b[j] == '-'
		if neg {
			j++
		}
		d0 := j
		var x int64
		for j < len(b) && b[j] >= '0' && b[j] <= '9' {
			x = x*10 + int64(b[j]-'0')
			j++
		}
		plain := j > d0 && j-d0 <= 15
		for j < len(b) && b[j] != ' ' && b[j] != '\t' {
			plain = false
			j++
		}
		f[n] = b[i:j]
		switch {
		case !plain:
			y, e := strconv.ParseFloat(string(f[n]), 64)
			if bad == nil && (e != nil || y != y || y > 1e18 || y < -1e18) {
				bad = fieldErr(n, f[n], "not a number")
			} else if bad == nil && intField[n] && y != float64(int64(y)) {
				bad = fieldErr(n, f[n], "not an integer")
			}
			v[n] = y
		case neg:
			v[n] = -float64(x) // "-0" is negative zero, as ParseFloat says
		default:
			v[n] = float64(x)
		}
		n++
		i = j
	}
	if n != NumFields {
		return Record{}, fmt.Errorf("%w: %d fields, want %d", ErrMalformed, n, NumFields)
	}
	if bad != nil {
		return Record{}, bad
	}
	return Record{
		Job: int64(v[0]), Submit: v[1], Wait: v[2], Run: v[3], Alloc: int(v[4]), AvgCPU: v[5],
		UsedMem: v[6], ReqProcs: int(v[7]), ReqTime: v[8], ReqMem: v[9], Status: int(v[10]),
		User: int(v[11]), Group: int(v[12]), App: int(v[13]), Queue: int(v[14]), Partition: int(v[15]),
		Preceding: int64(v[16]), ThinkTime: v[17],
	}, nil
}

// intField marks the fields that must hold whole numbers.
var intField = [NumFields]bool{0: true, 4: true, 7: true, 10: true, 11: true, 12: true, 13: true, 14: true, 15: true, 16: true}

// fieldErr is the error about field k (0-based) holding b.
func fieldErr(k int, b []byte, what string) error {
	return fmt.Errorf("%w: field %d (%s) is %q, %s", ErrMalformed, k+1, fieldNames[k], b, what)
}

var fieldNames = [NumFields]string{
	"job number", "submit time", "wait time", "run time", "allocated processors",
	"average CPU time", "used memory", "requested processors", "requested time",
	"requested memory", "status", "user id", "group id", "executable number",
	"queue number", "partition number", "preceding job", "think time",
}
