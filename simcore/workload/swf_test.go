package workload

import (
	"bytes"
	"compress/gzip"
	"encoding/hex"
	"errors"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"schedfarm/internal/datatest"
	"schedfarm/simcore"
)

func readFile(t *testing.T, name string, opt ReadOptions) *Trace {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr, err := Read(f, opt)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func TestReadHeaderAndFields(t *testing.T) {
	tr := readFile(t, "testdata/handmade-swf.txt", ReadOptions{})
	h := tr.Header
	if h.MaxNodes != 338 || h.MaxProcs != 338 || h.UnixStartTime != 835823160 || h.Computer != "Test SP2" || h.Version != "2.2" {
		t.Errorf("header = %+v", h)
	}
	if len(h.Notes) != 1 || h.Notes[0] != "a free note" {
		t.Errorf("notes = %q", h.Notes)
	}
	if len(tr.Records) != 5 {
		t.Fatalf("%d records", len(tr.Records))
	}
	r := tr.Records[0]
	want := Record{Job: 1, Submit: 0, Wait: 10, Run: 100, Alloc: 4, AvgCPU: -1, UsedMem: -1, ReqProcs: -1, ReqTime: 200,
		ReqMem: -1, Status: 1, User: 1, Group: 1, App: 1, Queue: 1, Partition: 1, Preceding: -1, ThinkTime: -1, SourceLine: 7}
	if r != want {
		t.Errorf("record 0 = %+v, want %+v", r, want)
	}
	if tr.Records[4].Run != 20.5 || tr.Records[4].SourceLine != 12 {
		t.Errorf("record 4 = %+v", tr.Records[4])
	}
}

func TestReadGzipTransparently(t *testing.T) {
	raw, _ := os.ReadFile("testdata/handmade-swf.txt")
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write(raw)
	zw.Close()
	tr, err := Read(&b, ReadOptions{})
	if err != nil || len(tr.Records) != 5 || tr.Header.MaxNodes != 338 {
		t.Fatalf("gzip read: %v, %+v", err, tr)
	}
}

func TestMalformedLineNumberAndLenient(t *testing.T) {
	in := "; MaxNodes: 8\n1 0 0 10 1 -1 -1 -1 10 -1 1 1 1 1 1 1 -1 -1\n2 0 0 x 1 -1 -1 -1 10 -1 1 1 1 1 1 1 -1 -1\n3 0 0 1 1\n4 1 0 10 1 -1 -1 -1 10 -1 1 1 1 1 1 1 -1 -1\n"
	_, err := Read(strings.NewReader(in), ReadOptions{})
	if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "line 3") || !strings.Contains(err.Error(), "run time") {
		t.Fatalf("strict error = %v", err)
	}
	tr, err := Read(strings.NewReader(in), ReadOptions{Lenient: true})
	if err != nil || tr.Skipped != 2 || len(tr.Records) != 2 || !strings.HasPrefix(tr.FirstSkipped, "line 3") {
		t.Fatalf("lenient: %v %+v", err, tr)
	}
	if _, err := Read(strings.NewReader("1 0 0 1 1.5 -1 -1 -1 10 -1 1 1 1 1 1 1 -1 -1\n"), ReadOptions{}); !errors.Is(err, ErrMalformed) {
		t.Errorf("fractional processor count accepted: %v", err)
	}
}

func TestLimit(t *testing.T) {
	tr := readFile(t, "testdata/handmade-swf.txt", ReadOptions{Limit: 2})
	if len(tr.Records) != 2 {
		t.Fatalf("%d records", len(tr.Records))
	}
}

func TestConvertConventions(t *testing.T) {
	tr := readFile(t, "testdata/handmade-swf.txt", ReadOptions{})
	jobs, st, err := Convert(tr.Records, DefaultConventions(256))
	if err != nil {
		t.Fatal(err)
	}
	// job 3 (400 nodes) too wide; job 2 (run 0) repaired to 1 s; job 4 has no request;
	// job 3 would also be capped but is dropped first.
	if st.TooWide != 1 || st.Invalid != 1 || st.NoRequest != 1 || len(jobs) != 4 {
		t.Fatalf("stats %+v, %d jobs", st, len(jobs))
	}
	ids := []int64{jobs[0].ID, jobs[1].ID, jobs[2].ID, jobs[3].ID}
	if ids[0] != 1 || ids[1] != 5 || ids[2] != 2 || ids[3] != 4 {
		t.Errorf("order %v, want by submit then ID: 1 5 2 4", ids)
	}
	if j := jobs[2]; j.Run != 1 || j.Size != 2 || j.Estimate != 50 {
		t.Errorf("repaired job = %+v", j)
	}
	if j := jobs[3]; j.Estimate != 80 || j.Request != 80 {
		t.Errorf("no-request job = %+v", j)
	}

	c := DefaultConventions(256)
	c.Invalid, c.DropFailed, c.Size = "drop", true, "requested_or_alloc"
	jobs, st, _ = Convert(tr.Records, c)
	if len(jobs) != 2 || st.Failed != 2 {
		t.Fatalf("drop+failed: %d jobs, %+v", len(jobs), st)
	}
	c = DefaultConventions(0)
	c.Size, c.Estimate, c.FirstN = "requested_or_alloc", "exact", 3
	jobs, st, _ = Convert(tr.Records, c)
	if len(jobs) != 3 || st.Capped != 1 {
		t.Fatalf("first-n: %d jobs %+v", len(jobs), st)
	}
	for _, j := range jobs {
		if j.Estimate != j.Run {
			t.Errorf("exact estimate: %+v", j)
		}
		if j.ID == 3 && j.Run != 100 {
			t.Errorf("capped run = %v", j.Run)
		}
	}
	c.CapRuntime, c.Estimate = false, "max"
	jobs, _, _ = Convert(tr.Records, c)
	for _, j := range jobs {
		if j.ID == 3 && (j.Run != 300 || j.Estimate != 300 || j.Request != 100) {
			t.Errorf("uncapped: %+v", j)
		}
	}
}

func FuzzRead(f *testing.F) {
	raw, _ := os.ReadFile("testdata/handmade-swf.txt")
	f.Add(raw, false)
	f.Add([]byte("1 0 0 1 1 -1 -1 -1 10 -1 1 1 1 1 1 1 -1 -1"), true)
	f.Add([]byte("; MaxNodes: abc\n;;\n\t\n1e3 0 0 NaN 1 -1 -1 -1 10 -1 1 1 1 1 1 1 -1 -1"), true)
	f.Fuzz(func(t *testing.T, data []byte, lenient bool) {
		tr, err := Read(bytes.NewReader(data), ReadOptions{Lenient: lenient})
		if err != nil {
			if lenient && !strings.Contains(err.Error(), "gzip") && !strings.Contains(err.Error(), "after line") && !errors.Is(err, ErrNoJobs) {
				t.Fatalf("lenient read failed: %v", err)
			}
			return
		}
		if len(tr.Records) == 0 {
			t.Fatal("a log of no jobs was read without error")
		}
		for _, r := range tr.Records {
			if r.SourceLine < 1 {
				t.Fatalf("bad line %d", r.SourceLine)
			}
		}
		jobs, _, err := Convert(tr.Records, DefaultConventions(256))
		if err != nil {
			t.Fatal(err)
		}
		for _, j := range jobs {
			if j.Size < 1 || j.Size > 256 || !(j.Run > 0) || j.Run > j.Request || j.Estimate != j.Request || j.Submit < 0 {
				t.Fatalf("invalid job %+v", j)
			}
		}
	})
}

// TestCTCTrace reads the whole CTC log from the data directory (`schedfarm
// traces fetch CTC-SP2-1996-3.1-cln`).
func TestCTCTrace(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped by -short: the whole CTC log (run without -short)")
	}
	const name = "traces/CTC-SP2-1996-3.1-cln.swf.gz"
	checkCTC(t, datatest.Require(t, name), name, 77222)
}

// TestCTCFixture reads the CTC fixture (the log's first 5,000 jobs, with
// its header) as the whole log is read.
func TestCTCFixture(t *testing.T) {
	checkCTC(t, datatest.Fixtures(t), "traces/CTC-SP2-1996-3.1-cln.first5000.swf.gz", 5000)
}

// checkCTC reads a CTC log of n jobs and converts it for 256 nodes.
func checkCTC(t *testing.T, data simcore.DataDir, name string, n int) {
	t.Helper()
	f, err := OpenTrace(data, name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr, err := Read(f, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Records) != n || tr.Header.MaxNodes != 338 || tr.Skipped != 0 {
		t.Fatalf("%d records (want %d), header MaxNodes %d, %d skipped", len(tr.Records), n, tr.Header.MaxNodes, tr.Skipped)
	}
	jobs, st, err := Convert(tr.Records, DefaultConventions(256))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("CTC: %+v", st)
	if st.TooWide == 0 || len(jobs) != n-st.TooWide {
		t.Errorf("%d jobs of %d records, %d too wide for 256 nodes", len(jobs), n, st.TooWide)
	}
}

// TestEmptyTraceIsAnError: an empty file (plain or gzip), a header alone,
// or (lenient) nothing but malformed lines is an error wrapping ErrNoJobs
// from Read and Probe, never a log of zero jobs whose metrics are zeros.
func TestEmptyTraceIsAnError(t *testing.T) {
	var empty, header bytes.Buffer
	zw := gzip.NewWriter(&empty)
	zw.Close()
	zw = gzip.NewWriter(&header)
	zw.Write([]byte("; Version: 2.2\n; MaxNodes: 338\n\n"))
	zw.Close()
	for _, c := range []struct {
		name string
		data []byte
	}{
		{"0 bytes", nil},
		{"blank lines", []byte("\n \n\t\n")},
		{"header alone", []byte("; Version: 2.2\n; MaxNodes: 338\n")},
		{"empty gzip stream", empty.Bytes()},
		{"gzip header alone", header.Bytes()},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, lenient := range []bool{false, true} {
				if tr, err := Read(bytes.NewReader(c.data), ReadOptions{Lenient: lenient}); !errors.Is(err, ErrNoJobs) {
					t.Errorf("Read(lenient=%v) = %v, %v; want ErrNoJobs", lenient, tr, err)
				}
			}
			if err := Probe(bytes.NewReader(c.data)); !errors.Is(err, ErrNoJobs) {
				t.Errorf("Probe = %v, want ErrNoJobs", err)
			}
		})
	}
	bad := []byte("; MaxNodes: 4\n1 0 0 NaN 1 -1 -1 -1 10 -1 1 1 1 1 1 1 -1 -1\n")
	if _, err := Read(bytes.NewReader(bad), ReadOptions{Lenient: true}); !errors.Is(err, ErrNoJobs) || !strings.Contains(err.Error(), "malformed") {
		t.Errorf("lenient read of malformed lines alone: %v", err)
	}
	if err := Probe(bytes.NewReader(bad)); err != nil {
		t.Errorf("Probe of a log with a job line: %v", err)
	}
	if err := Probe(bytes.NewReader([]byte{0x1f, 0x8b, 1, 2})); err == nil || !strings.Contains(err.Error(), "gzip") {
		t.Errorf("Probe of a damaged gzip stream: %v", err)
	}
}

// TestMissingTraceSaysWhere: a missing known trace's error is the exact
// command that fetches it into the first data directory, then the archive's
// URL and the expected SHA-256 for a download by hand.
func TestMissingTraceSaysWhere(t *testing.T) {
	dir := t.TempDir()
	_, err := OpenTrace(simcore.Dirs{dir, t.TempDir()}, "traces/CTC-SP2-1996-3.1-cln.swf.gz")
	if err == nil {
		t.Fatal("opened a missing trace")
	}
	for _, want := range []string{
		"run `schedfarm traces fetch --data-dir " + dir + " CTC-SP2-1996-3.1-cln`",
		"download " + Archive + "l_ctc_sp2/CTC-SP2-1996-3.1-cln.swf.gz into " + dir + "/traces/",
		"expected SHA-256 9fa28ac16c4386fb81b72a91d8bd8888281df2948a9d912769d387c5ee285bb4",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

// TestDownloadHint: the archive gzips NASA's log, which the farm keeps
// uncompressed; a data directory that needs quoting is quoted; a data
// directory that is not a list of folders gets a placeholder; a file under
// traces/ that is not known points to the archive's logs page.
func TestDownloadHint(t *testing.T) {
	for _, c := range []struct {
		data simcore.DataDir
		name string
		want string
	}{
		{simcore.Dirs{"data"}, "traces/NASA-iPSC-1993-3.1-cln.swf",
			"run `schedfarm traces fetch --data-dir data NASA-iPSC-1993-3.1-cln` (or download " + Archive +
				"l_nasa_ipsc/NASA-iPSC-1993-3.1-cln.swf.gz and gunzip it into data/traces/; expected SHA-256 " +
				"9d997a2c20a7f7b0b6d81638d756ce8b2c524c4f2e9ec78da36001743ca33d76 once gunzipped)"},
		{simcore.Dirs{"/mnt/my traces"}, "traces/KTH-SP2-1996-2.1-cln.swf.gz",
			"run `schedfarm traces fetch --data-dir '/mnt/my traces' KTH-SP2-1996-2.1-cln` (or download " + Archive +
				"l_kth_sp2/KTH-SP2-1996-2.1-cln.swf.gz into /mnt/my traces/traces/; expected SHA-256 " +
				"3e152f201fd2e96808a735bced6ea6eb0bb07fdc447689cafb0750d87b264c0b)"},
		{nil, "traces/KTH-SP2-1996-2.1-cln.swf.gz",
			"run `schedfarm traces fetch KTH-SP2-1996-2.1-cln` (or download " + Archive +
				"l_kth_sp2/KTH-SP2-1996-2.1-cln.swf.gz into <data-dir>/traces/; expected SHA-256 " +
				"3e152f201fd2e96808a735bced6ea6eb0bb07fdc447689cafb0750d87b264c0b)"},
		{simcore.Dirs{"data"}, "traces/mine.swf",
			"download mine.swf from the Parallel Workloads Archive (" + PWA + ") into the data directory's traces/ folder"},
		{simcore.Dirs{"data"}, "elsewhere/KTH-SP2-1996-2.1-cln.swf.gz",
			"download KTH-SP2-1996-2.1-cln.swf.gz from the Parallel Workloads Archive (" + PWA + ") into the data directory's elsewhere/ folder"},
	} {
		if got := DownloadHint(c.data, c.name); got != c.want {
			t.Errorf("DownloadHint(%v, %s) =\n%s\nwant\n%s", c.data, c.name, got, c.want)
		}
	}
}

// TestKnownTable: every known trace has a name of its own, a URL under the
// archive whose base name is the file (or the file gzipped), a SHA-256 and
// a size.
func TestKnownTable(t *testing.T) {
	names := map[string]bool{}
	for _, k := range Known {
		if names[k.Name()] {
			t.Errorf("%s: name %s twice", k.File, k.Name())
		}
		names[k.Name()] = true
		if !strings.HasPrefix(k.URL, Archive) || (path.Base(k.URL) != k.File && !k.Gunzip()) {
			t.Errorf("%s: URL %s", k.File, k.URL)
		}
		if _, err := hex.DecodeString(k.SHA256); err != nil || len(k.SHA256) != 64 {
			t.Errorf("%s: SHA-256 %q", k.File, k.SHA256)
		}
		if k.Size <= 0 || k.Jobs <= 0 {
			t.Errorf("%s: size %d, %d jobs", k.File, k.Size, k.Jobs)
		}
		if got, ok := LookupKnown("traces/" + k.File); !ok || got != k {
			t.Errorf("LookupKnown(traces/%s) = %v, %v", k.File, got, ok)
		}
	}
	if n := len(Known); n != 15 {
		t.Errorf("%d known traces, want 15", n)
	}
	if k, _ := LookupKnown("NASA-iPSC-1993-3.1-cln.swf"); !k.Gunzip() {
		t.Errorf("NASA's log is not gunzipped: %+v", k)
	}
}

// TestTruncatedOrCorruptTrace: a trace cut short or damaged gives an error
// that says where reading stopped; it never yields a silently shorter trace.
func TestTruncatedOrCorruptTrace(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(datatest.Fixtures(t)[0], "traces", "CTC-SP2-1996-3.1-cln.first5000.swf.gz"))
	if err != nil {
		t.Fatal(err)
	}
	corrupt := bytes.Clone(data)
	for i := len(corrupt) / 2; i < len(corrupt)/2+64; i++ {
		corrupt[i] ^= 0x5a
	}
	var plain bytes.Buffer
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := plain.ReadFrom(zr); err != nil {
		t.Fatal(err)
	}
	// Cut in the middle of a line near the middle of the file (a cut at a
	// line's end leaves a shorter but well-formed log, which no reader
	// can tell from a whole one).
	half := plain.Bytes()[:plain.Len()/2]
	cutPlain := plain.Bytes()[:bytes.LastIndexByte(half, '\n')+30]
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"gzip cut in half", data[:len(data)/2], "unexpected EOF"},
		{"gzip with damaged bytes", corrupt, "swf:"},
		{"plain text cut mid-line", cutPlain, "is the file truncated?"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Read(bytes.NewReader(c.data), ReadOptions{})
			if err == nil {
				t.Fatal("a damaged trace was read without error")
			}
			if !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "line") {
				t.Fatalf("error %q: want %q and a line number", err, c.want)
			}
			t.Log(err)
		})
	}
}
