package workload

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"math"
	"strconv"
	"strings"
	"testing"

	"schedfarm/internal/datatest"
)

// benchRead times Read of a log of the data directory held in memory, as
// stored (gzip) or decompressed, and reports lines per second.
func benchRead(b *testing.B, name string, plain bool) {
	dirs := datatest.Require(b, name)
	f, err := dirs.Open(name)
	if err != nil {
		b.Fatal(err)
	}
	raw, err := io.ReadAll(f)
	f.Close()
	if err != nil {
		b.Fatal(err)
	}
	if plain {
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			b.Fatal(err)
		}
		if raw, err = io.ReadAll(zr); err != nil {
			b.Fatal(err)
		}
	}
	lines := 0
	b.ResetTimer()
	for b.Loop() {
		tr, err := Read(bytes.NewReader(raw), ReadOptions{})
		if err != nil {
			b.Fatal(err)
		}
		lines = tr.Records[len(tr.Records)-1].SourceLine
	}
	b.ReportMetric(float64(lines)*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
}

func BenchmarkRead_CTC(b *testing.B)      { benchRead(b, "traces/CTC-SP2-1996-3.1-cln.swf.gz", false) }
func BenchmarkRead_CTCPlain(b *testing.B) { benchRead(b, "traces/CTC-SP2-1996-3.1-cln.swf.gz", true) }
func BenchmarkRead_Curie(b *testing.B)    { benchRead(b, "traces/CEA-Curie-2011-2.1-cln.swf.gz", false) }

// refParse is the plain reading of a job line that parseRecord's fast
// path must agree with: the whitespace-separated fields, each by
// strconv.ParseFloat, the integer fields whole numbers.
func refParse(line string) ([NumFields]float64, bool) {
	var v [NumFields]float64
	fs := strings.FieldsFunc(line, func(r rune) bool { return r == ' ' || r == '\t' })
	if len(fs) != NumFields {
		return v, false
	}
	for k, s := range fs {
		x, err := strconv.ParseFloat(s, 64)
		if err != nil || x != x || x > 1e18 || x < -1e18 || intField[k] && x != float64(int64(x)) {
			return v, false
		}
		v[k] = x
	}
	return v, true
}

// FuzzParseRecord: parseRecord accepts exactly the lines refParse does,
// with the same values bit for bit (negative zero included).
func FuzzParseRecord(f *testing.F) {
	f.Add("1 0 0 1 1 -1 -1 -1 10 -1 1 1 1 1 1 1 -1 -1")
	f.Add("-0 0.5 1e3 +7 0x10 -1 -1 -1 10 -1 1 1 1 1 1 1 -1 -0")
	f.Add("1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 1234567890123456 17")
	f.Add("1\t-\t3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19")
	f.Fuzz(func(t *testing.T, line string) {
		b := bytes.TrimSpace([]byte(line))
		if len(b) == 0 || b[0] == ';' || bytes.ContainsAny(b, "\n\r") {
			return
		}
		var fields [NumFields][]byte
		rec, err := parseRecord(b, &fields)
		want, ok := refParse(string(b))
		if ok != (err == nil) {
			t.Fatalf("%q: parseRecord error %v, reference ok %v", line, err, ok)
		}
		if !ok {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("%q: error %v does not wrap ErrMalformed", line, err)
			}
			return
		}
		got := [NumFields]float64{float64(rec.Job), rec.Submit, rec.Wait, rec.Run, float64(rec.Alloc), rec.AvgCPU,
			rec.UsedMem, float64(rec.ReqProcs), rec.ReqTime, rec.ReqMem, float64(rec.Status), float64(rec.User),
			float64(rec.Group), float64(rec.App), float64(rec.Queue), float64(rec.Partition), float64(rec.Preceding), rec.ThinkTime}
		for k := range got {
			w := want[k]
			if intField[k] {
				w = float64(int64(w)) // the record holds an integer: -0 is 0
			}
			if math.Float64bits(got[k]) != math.Float64bits(w) {
				t.Fatalf("%q: field %d = %v, reference %v", line, k+1, got[k], w)
			}
		}
	})
}
