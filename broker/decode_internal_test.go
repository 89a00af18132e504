package broker

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/google/uuid"

	"schedfarm/simcore"
	"schedfarm/simcore/bench"
	"schedfarm/sweep"
)

// FuzzDecodeJobsOnePass: the one-pass parse of a pack (or of a single
// job's message) gives the same entries (identities, models, parameters,
// errors) as parsing its jobs one by one, which is what every message
// falls back to.
func FuzzDecodeJobsOnePass(f *testing.F) {
	reg, err := simcore.NewRegistry(bench.New())
	if err != nil {
		f.Fatal(err)
	}
	job := `{"id":"46a972f0-979b-5b28-b8e1-03f2770e6168","model":"bench","model_version":"1","params":{"size":3,"work_ms":0.5}}`
	other := `{"id":"46a972f0-979b-5b28-b8e1-03f2770e6169","index":4,"sweep":"s","model":"bench","model_version":"1","params":{"size":3,"work_ms":0.5},"replicate":1,"seed":9}`
	for _, s := range []string{
		`{"run":"r1","jobs":[` + job + `,` + other + `,` + job + `]}`,
		`{"run":"r1","attempts":2,"jobs":[` + job + `,` + other + `]}`,
		`{"run":"r1","jobs":[` + job + `,{"id":"46a972f0-979b-5b28-b8e1-03f2770e6168","model":"nope","model_version":"1"}]}`,
		`{"run":"r1","jobs":[` + job + `,{"id":"46a972f0-979b-5b28-b8e1-03f2770e6168","model":"bench","model_version":"1","params":{"size":-5}}]}`,
		`{"run":"r1","jobs":[` + job + `,{"id":"46a972f0-979b-5b28-b8e1-03f2770e6168","model":"bench","model_version":"1","params":[1]}]}`,
		`{"run":"r1","jobs":[` + job + `,null,17]}`,
		`{"run":"r1","jobs":[{}]}`,
		`{"run":"r1","job":` + job + `}`,
		`{"run":"r1","attempts":3,"job":` + other + `}`,
		`{"run":"r1","job":` + job + `,"jobs":[]}`,
		`{"run":"r1","job":` + job + `,"jobs":null}`,
		`{"run":"r1","job":{"id":"46a972f0-979b-5b28-b8e1-03f2770e6168","model":"bench","model_version":"1","params":[1]}}`,
		`{"run":"r1","job":17}`,
		`{"run":"../x","job":` + job + `}`,
		`{"run":"r1","attempts":-1,"job":` + job + `}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		run, got, err := DecodeJobs(data, reg)
		run2, want, err2 := decodeJobsOneByOne(data, reg)
		if (err == nil) != (err2 == nil) || run != run2 || len(got) != len(want) {
			t.Fatalf("one pass: %q, %d entries, %v; one by one: %q, %d entries, %v", run, len(got), err, run2, len(want), err2)
		}
		for i := range got {
			g, w := got[i], want[i]
			if !reflect.DeepEqual(g.Msg, w.Msg) || g.Model != w.Model || fmt.Sprint(g.Err) != fmt.Sprint(w.Err) {
				t.Fatalf("entry %d: one pass %+v %v, one by one %+v %v", i, g.Msg, g.Err, w.Msg, w.Err)
			}
		}
	})
}

// BenchmarkDecodePack_256: decoding a pack of 256 bench jobs of 8 points
// (32 replicates each), one pass and job by job.
func BenchmarkDecodePack_256(b *testing.B) {
	reg, err := simcore.NewRegistry(bench.New())
	if err != nil {
		b.Fatal(err)
	}
	s := bench.New().Schema()
	jobs := make([]*sweep.Job, 256)
	for i := range jobs {
		p, err := s.Complete(simcore.Params{"size": int64(i / 32), "work_ms": 0.5})
		if err != nil {
			b.Fatal(err)
		}
		jobs[i] = &sweep.Job{ID: uuid.New(), Index: i, Sweep: "s", Model: "bench", ModelVersion: bench.New().Version(),
			Params: p, Replicate: i % 32, Seed: uint64(i)}
	}
	data, err := EncodePack("r1", jobs)
	if err != nil {
		b.Fatal(err)
	}
	benchDecode(b, data, reg, 256)
}

// benchDecode times the one-pass decoder and the job-by-job fallback on a
// message of n jobs.
func benchDecode(b *testing.B, data []byte, reg *simcore.Registry, n int) {
	for _, bc := range []struct {
		name   string
		decode func([]byte, *simcore.Registry) (string, []Entry, error)
	}{{"one-pass", DecodeJobs}, {"one-by-one", decodeJobsOneByOne}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, es, err := bc.decode(data, reg); err != nil || len(es) != n || es[n-1].Err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDecodeJob_Single: decoding a message of one job (a job too long
// to pack travels alone), one pass and through the fallback.
func BenchmarkDecodeJob_Single(b *testing.B) {
	reg, err := simcore.NewRegistry(bench.New())
	if err != nil {
		b.Fatal(err)
	}
	s := bench.New().Schema()
	p, err := s.Complete(simcore.Params{"size": int64(3), "work_ms": 20.0})
	if err != nil {
		b.Fatal(err)
	}
	data, err := EncodeJob("r1", &sweep.Job{ID: uuid.New(), Index: 7, Sweep: "s", Model: "bench",
		ModelVersion: bench.New().Version(), Params: p, Seed: 9})
	if err != nil {
		b.Fatal(err)
	}
	benchDecode(b, data, reg, 1)
}
