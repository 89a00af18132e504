package broker_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/uuid"

	"schedfarm/broker"
	"schedfarm/simcore"
	"schedfarm/simcore/bench"
	"schedfarm/sweep"
)

// flagModel is a model with a parameter of every kind (bench has no bool).
type flagModel struct{}

func (flagModel) Name() string    { return "flags" }
func (flagModel) Version() string { return "2b" }
func (flagModel) Doc() string     { return "a parameter of every kind" }
func (flagModel) Schema() simcore.Schema {
	return simcore.Schema{Params: []simcore.Param{
		{Name: "on", Kind: simcore.Bool, Default: true},
		{Name: "off", Kind: simcore.Bool},
		{Name: "n", Kind: simcore.Int, Default: int64(0)},
		{Name: "x", Kind: simcore.Float, Default: 0.0},
		{Name: "label", Kind: simcore.String, Default: ""},
	}}
}
func (flagModel) Run(context.Context, simcore.Params, uint64) (*simcore.Result, error) {
	return &simcore.Result{}, nil
}

func testRegistry(t *testing.T) *simcore.Registry {
	t.Helper()
	reg, err := simcore.NewRegistry(bench.New(), flagModel{})
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

func benchJob(params simcore.Params) *sweep.Job {
	return &sweep.Job{
		ID:           uuid.MustParse("0b7c5b0e-6a43-5c2e-9a55-3f1d6c1e2a10"),
		Index:        17,
		Sweep:        "smoke",
		Model:        "bench",
		ModelVersion: bench.New().Version(),
		Params:       params,
		Replicate:    4,
		Seed:         math.MaxUint64 - 12345, // above 2^63: must survive as a uint64
	}
}

func fullBenchParams() simcore.Params {
	return simcore.Params{
		"work_ms": 0.1,
		"size":    int64(1<<53 + 1), // not representable as a float64
		"noise":   1e-300,
		"rows":    int64(3),
		"variant": "é \"quoted\" \\ <tag> \n\t",
		"fail":    "never",
	}
}

func roundTrip(t *testing.T, reg *simcore.Registry, run string, j *sweep.Job) (*broker.JobMsg, simcore.Model) {
	t.Helper()
	data, err := broker.EncodeJob(run, j)
	if err != nil {
		t.Fatalf("EncodeJob: %v", err)
	}
	msg, m, err := broker.DecodeJob(data, reg)
	if err != nil {
		t.Fatalf("DecodeJob(%s): %v", data, err)
	}
	return msg, m
}

func TestJobRoundTrip(t *testing.T) {
	reg := testRegistry(t)
	tests := []struct {
		name   string
		params simcore.Params
	}{
		{"typical", fullBenchParams()},
		{"int64 extremes", simcore.Params{"size": int64(math.MaxInt64), "rows": int64(1_000_000), "work_ms": 0.0, "noise": 0.0, "variant": "", "fail": "error"}},
		{"int64 just above 2^53", simcore.Params{"size": int64(1<<53 + 3), "rows": int64(0), "work_ms": 5.0, "noise": 1.0, "variant": "a", "fail": "never"}},
		{"float extremes", simcore.Params{
			"size": int64(1), "rows": int64(0), "variant": "b", "fail": "panic",
			"work_ms": 3_600_000.0,
			"noise":   math.MaxFloat64,
		}},
		{"tiny floats", simcore.Params{
			"size": int64(1), "rows": int64(0), "variant": "b", "fail": "never",
			"work_ms": math.SmallestNonzeroFloat64, // denormal
			"noise":   0.1 + 0.2,                   // 0.30000000000000004
		}},
		{"negative zero", simcore.Params{"size": int64(0), "rows": int64(0), "variant": "b", "fail": "never",
			"work_ms": math.Copysign(0, -1), "noise": 1.0 / 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := benchJob(tt.params)
			msg, m := roundTrip(t, reg, "run-1", j)
			if m.Name() != "bench" {
				t.Errorf("model %s", m.Name())
			}
			if msg.Run != "run-1" {
				t.Errorf("run %q", msg.Run)
			}
			got, want := msg.Job, *j
			if got.ID != want.ID || got.Index != want.Index || got.Sweep != want.Sweep || got.Model != want.Model ||
				got.ModelVersion != want.ModelVersion || got.Replicate != want.Replicate || got.Seed != want.Seed {
				t.Errorf("job fields changed:\n got %+v\nwant %+v", got, want)
			}
			for name, wv := range want.Params {
				gv := got.Params[name]
				if reflect.TypeOf(gv) != reflect.TypeOf(wv) {
					t.Errorf("%s: type %T, want %T", name, gv, wv)
					continue
				}
				if f, ok := wv.(float64); ok {
					if math.Float64bits(gv.(float64)) != math.Float64bits(f) {
						t.Errorf("%s = %v (bits %x), want %v (bits %x)", name, gv, math.Float64bits(gv.(float64)), f, math.Float64bits(f))
					}
				} else if gv != wv {
					t.Errorf("%s = %#v, want %#v", name, gv, wv)
				}
			}
			if len(got.Params) != len(want.Params) {
				t.Errorf("params %v, want %v", got.Params, want.Params)
			}
			// The canonical encoding, hence the job ID, survives the trip.
			if got.Params.Canonical(nil) != want.Params.Canonical(nil) {
				t.Errorf("canonical changed:\n got %s\nwant %s", got.Params.Canonical(nil), want.Params.Canonical(nil))
			}
			if sweep.JobID(got.Model, got.ModelVersion, got.Params, got.Replicate, got.Seed) != sweep.JobID(want.Model, want.ModelVersion, want.Params, want.Replicate, want.Seed) {
				t.Error("job ID changed")
			}
		})
	}
}

func TestJobRoundTripBools(t *testing.T) {
	reg := testRegistry(t)
	for _, p := range []simcore.Params{
		{"on": false, "off": true, "n": int64(-1 << 62), "x": 1e-300, "label": "true"},
		{"on": true, "off": false, "n": int64(math.MinInt64), "x": -2.5, "label": "false"},
	} {
		j := &sweep.Job{ID: uuid.New(), Model: "flags", ModelVersion: "2b", Params: p}
		msg, _ := roundTrip(t, reg, "r", j)
		if !reflect.DeepEqual(msg.Job.Params, p) {
			t.Errorf("params %#v, want %#v", msg.Job.Params, p)
		}
	}
}

// TestDecodeJobDefaults checks that a message without some parameters (an
// older coordinator) gets the schema's defaults, of the declared Go types.
func TestDecodeJobDefaults(t *testing.T) {
	reg := testRegistry(t)
	msg, _ := roundTrip(t, reg, "r", benchJob(simcore.Params{"size": int64(7)}))
	want := simcore.Params{"work_ms": 0.0, "size": int64(7), "noise": 1.0, "rows": int64(0), "variant": "a", "fail": "never"}
	if !reflect.DeepEqual(msg.Job.Params, want) {
		t.Errorf("params %#v, want %#v", msg.Job.Params, want)
	}
	// A required parameter is still required.
	j := &sweep.Job{ID: uuid.New(), Model: "flags", ModelVersion: "2b", Params: simcore.Params{"on": true}}
	data, err := broker.EncodeJob("r", j)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := broker.DecodeJob(data, reg); err == nil || !strings.Contains(err.Error(), `parameter "off" is required`) {
		t.Errorf("missing required parameter: %v", err)
	}
}

// TestDecodeJobWireFormat pins how types are restored from the JSON text:
// an integral float stays a float, and integers are not rounded through
// float64.
func TestDecodeJobWireFormat(t *testing.T) {
	reg := testRegistry(t)
	data := []byte(`{"run":"r1","job":{"id":"0b7c5b0e-6a43-5c2e-9a55-3f1d6c1e2a10","index":2,"sweep":"s","model":"bench","model_version":"1",` +
		`"params":{"work_ms":5,"size":9223372036854775807,"noise":1e-300,"rows": 2 ,"variant":"\u00e9","fail":"never"},"replicate":1,"seed":18446744073709551615}}`)
	msg, _, err := broker.DecodeJob(data, reg)
	if err != nil {
		t.Fatal(err)
	}
	p := msg.Job.Params
	if v, ok := p["work_ms"].(float64); !ok || v != 5 {
		t.Errorf("work_ms = %#v, want float64 5", p["work_ms"])
	}
	if v, ok := p["size"].(int64); !ok || v != math.MaxInt64 {
		t.Errorf("size = %#v, want int64 MaxInt64", p["size"])
	}
	if v, ok := p["rows"].(int64); !ok || v != 2 {
		t.Errorf("rows = %#v, want int64 2", p["rows"])
	}
	if p["noise"] != 1e-300 || p["variant"] != "é" {
		t.Errorf("params %#v", p)
	}
	if msg.Job.Seed != math.MaxUint64 || msg.Job.Index != 2 || msg.Job.Replicate != 1 || msg.Run != "r1" {
		t.Errorf("job %+v", msg.Job)
	}
}

func TestDecodeJobErrors(t *testing.T) {
	reg := testRegistry(t)
	encode := func(mut func(j *sweep.Job)) []byte {
		j := benchJob(fullBenchParams())
		mut(j)
		data, err := broker.EncodeJob("r", j)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}
	const id = "0b7c5b0e-6a43-5c2e-9a55-3f1d6c1e2a10"
	tests := []struct {
		name string
		data []byte
		want []string
	}{
		{"wrong model version", encode(func(j *sweep.Job) { j.ModelVersion = "0" }),
			[]string{id, "model bench version 0 requested, this worker has version 1"}},
		{"unknown model", encode(func(j *sweep.Job) { j.Model = "benhc" }),
			[]string{id, `model "benhc" is not built into this worker`, "bench", "flags"}},
		{"unknown parameter", encode(func(j *sweep.Job) { j.Params["sise"] = int64(3) }),
			[]string{id, `unknown parameter "sise" for model bench`}},
		{"out of range", encode(func(j *sweep.Job) { j.Params["size"] = int64(-1) }),
			[]string{id, `parameter "size": -1 is below the minimum 0`}},
		{"not in enum", encode(func(j *sweep.Job) { j.Params["fail"] = "sometimes" }),
			[]string{id, `parameter "fail": "sometimes" is not one of never, error, panic`}},
		{"string for an int", encode(func(j *sweep.Job) { j.Params["size"] = "3" }),
			[]string{id, `parameter "size"`}},
		{"fraction for an int", encode(func(j *sweep.Job) { j.Params["size"] = 2.5 }),
			[]string{id, `parameter "size"`}},
		{"number for a string", encode(func(j *sweep.Job) { j.Params["variant"] = int64(1) }),
			[]string{id, `parameter "variant"`}},
		{"not JSON", []byte("{not json"), []string{"decode job message"}},
		{"params not an object", []byte(`{"run":"r","job":{"model":"bench","model_version":"1","params":[1,2]}}`),
			[]string{"decode job message"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg, m, err := broker.DecodeJob(tt.data, reg)
			if err == nil {
				t.Fatalf("no error; decoded %+v", msg)
			}
			if msg != nil || m != nil {
				t.Errorf("values returned with the error: %v, %v", msg, m)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestEncodeJobIsJSON(t *testing.T) {
	data, err := broker.EncodeJob("run-x", benchJob(fullBenchParams()))
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, data)
	}
	if v["run"] != "run-x" {
		t.Errorf("run = %v", v["run"])
	}
	// Large integers are written exactly, not in float notation.
	if !strings.Contains(string(data), `"size":9007199254740993`) {
		t.Errorf("size not written exactly: %s", data)
	}
}

func TestSafeName(t *testing.T) {
	tests := []struct{ in, want string }{
		{"worker-1_a", "worker-1_a"},
		{"host.example.com-123-w0", "host-example-com-123-w0"},
		{"a b*c>d", "a-b-c-d"},
		{"", ""},
		{"ABCxyz019", "ABCxyz019"},
		{"tab\tnew\nline", "tab-new-line"},
		{"slash/back\\colon:", "slash-back-colon-"},
		{"é", "--"}, // each byte of a non-ASCII character
	}
	for _, tt := range tests {
		got := broker.SafeName(tt.in)
		if got != tt.want {
			t.Errorf("SafeName(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if broker.SafeName(got) != got {
			t.Errorf("SafeName not idempotent on %q", got)
		}
	}
}

func TestKeys(t *testing.T) {
	if got := broker.DoneKey("r1", "p2"); got != "r1.p2" {
		t.Errorf("DoneKey = %q", got)
	}
	if got := broker.FailKey("r1", "j2"); got != "r1.j2" {
		t.Errorf("FailKey = %q", got)
	}
	if got := broker.MsgID("r1", "j2"); got != "r1.j2" {
		t.Errorf("MsgID = %q", got)
	}
}

func TestNames(t *testing.T) {
	n, err := broker.NewNames("lab-a")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ got, want string }{
		{n.JobSubject("r1"), "lab-a.jobs.r1"},
		{n.JobsAll(), "lab-a.jobs.>"},
		{n.HeartbeatSubject("w"), "lab-a.hb.w"},
		{n.ErrorSubject("r1"), "lab-a.err.r1"},
		{n.DeliverySubject("r1"), "lab-a.dlv.r1"},
		{n.APISubject("status"), "lab-a.api.status"},
		{n.ControlSubject("w"), "lab-a.ctl.w"},
		{n.JobsStream, "LAB_A_JOBS"},
		{n.RunsBucket, "LAB_A_RUNS"},
		{n.DoneBucket, "LAB_A_DONE"},
		{n.FailedBucket, "LAB_A_FAILED"},
		{n.PartsBucket, "LAB_A_PARTS"},
		{n.MaxDeliveriesAdvisory(), "$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.LAB_A_JOBS.workers"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
	for _, bad := range []string{"", "a.b", "a b", "a*", "a>", strings.Repeat("a", broker.MaxPrefixLen+1)} {
		if _, err := broker.NewNames(bad); err == nil {
			t.Errorf("NewNames(%q) accepted", bad)
		}
	}
}

// TestNamesOneToOne: prefixes that differ only in case or in '-' against
// '_' get different streams and buckets (they used to share LAB_B_JOBS,
// ...), names differ even ignoring case (a server on a case-insensitive
// file system), and the prefixes of lower-case letters, digits and '-'
// keep the names they always had, so an existing farm's state is found.
func TestNamesOneToOne(t *testing.T) {
	for prefix, want := range map[string]string{
		"schedfarm": "SCHEDFARM", "lab-a": "LAB_A", "lab-b": "LAB_B", "farm-2": "FARM_2",
		"lab_b": "LAB--B", "LAB_B": "-L-A-B---B", "Lab-b": "-LAB_B",
	} {
		n, err := broker.NewNames(prefix)
		if err != nil {
			t.Fatal(err)
		}
		got := []string{n.JobsStream, n.RunsBucket, n.DoneBucket, n.FailedBucket, n.PartsBucket, n.LocksBucket}
		wantAll := []string{want + "_JOBS", want + "_RUNS", want + "_DONE", want + "_FAILED", want + "_PARTS", want + "_LOCKS"}
		if !reflect.DeepEqual(got, wantAll) {
			t.Errorf("prefix %q: names %v, want %v", prefix, got, wantAll)
		}
	}
	// Every prefix of up to 6 characters over an alphabet with both cases,
	// a digit, '-' and '_': no two share a stream name, even ignoring case.
	alphabet := "aB1-_"
	seen := map[string]string{}
	var walk func(p string)
	walk = func(p string) {
		if p != "" {
			n, err := broker.NewNames(p)
			if err != nil {
				t.Fatal(err)
			}
			key := strings.ToUpper(n.JobsStream)
			if other, ok := seen[key]; ok {
				t.Fatalf("prefixes %q and %q share stream %s", other, p, n.JobsStream)
			}
			seen[key] = p
		}
		if len(p) < 6 {
			for i := range alphabet {
				walk(p + alphabet[i:i+1])
			}
		}
	}
	walk("")
	if len(seen) != 19530 {
		t.Fatalf("%d prefixes checked", len(seen))
	}
}

// FuzzDecodeJob: the job-message decoder never panics, and what it accepts
// has a run, a job ID and a complete, schema-valid parameter set.
func FuzzDecodeJob(f *testing.F) {
	reg, err := simcore.NewRegistry(bench.New())
	if err != nil {
		f.Fatal(err)
	}
	f.Add([]byte(`{"run":"r1","job":{"id":"46a972f0-979b-5b28-b8e1-03f2770e6168","model":"bench","model_version":"1","params":{"size":3,"work_ms":0.5}}}`))
	f.Add([]byte(`{"run":"r1","job":{"id":"46a972f0-979b-5b28-b8e1-03f2770e6168","model":"bench","model_version":"1","params":{"size":1e400}}}`))
	f.Add([]byte(`{"job":{"params":{"variant":null}}}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		msg, m, err := broker.DecodeJob(data, reg)
		if err != nil {
			return
		}
		if msg.Run == "" || msg.Job.ID == uuid.Nil {
			t.Fatalf("accepted a job without identity: %+v", msg)
		}
		s := m.Schema()
		if _, err := s.Complete(msg.Job.Params); err != nil {
			t.Fatalf("accepted invalid parameters: %v", err)
		}
	})
}

func TestPackRoundTrip(t *testing.T) {
	reg := testRegistry(t)
	var jobs []*sweep.Job
	for i := 0; i < 3; i++ {
		j := benchJob(fullBenchParams())
		j.ID = uuid.NewSHA1(uuid.Nil, []byte{byte(i)})
		j.Index = i
		jobs = append(jobs, j)
	}
	data, err := broker.EncodePack("r1", jobs)
	if err != nil {
		t.Fatal(err)
	}
	run, entries, err := broker.DecodeJobs(data, reg)
	if err != nil || run != "r1" || len(entries) != 3 {
		t.Fatalf("DecodeJobs: run %q, %d entries, %v", run, len(entries), err)
	}
	for i, e := range entries {
		if e.Err != nil {
			t.Fatalf("job %d: %v", i, e.Err)
		}
		if !reflect.DeepEqual(e.Msg.Job, *jobs[i]) || e.Model.Name() != "bench" {
			t.Errorf("job %d: got %+v, want %+v", i, e.Msg.Job, *jobs[i])
		}
	}
	// A pack of one is a plain job message, with the job's own message ID.
	one, err := broker.EncodePack("r1", jobs[:1])
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := broker.EncodeJob("r1", jobs[0])
	if string(one) != string(plain) {
		t.Errorf("pack of one = %s, want %s", one, plain)
	}
	if got, want := broker.PackMsgID("r1", jobs[:1]), broker.MsgID("r1", jobs[0].ID.String()); got != want {
		t.Errorf("PackMsgID of one = %q, want %q", got, want)
	}
	if a, b := broker.PackMsgID("r1", jobs[:2]), broker.PackMsgID("r1", jobs); a == b {
		t.Errorf("packs of different sizes share message ID %q", a)
	}
	if _, err := broker.EncodePack("r1", nil); err == nil {
		t.Error("EncodePack of no jobs: no error")
	}
	// Jobs sent again after failing in a pack keep their attempt count.
	for _, n := range []int{1, 3} {
		data, err := broker.EncodeRetry("r1", 2, jobs[:n])
		if err != nil {
			t.Fatal(err)
		}
		_, entries, err := broker.DecodeJobs(data, reg)
		if err != nil || len(entries) != n {
			t.Fatalf("retry of %d: %d entries, %v", n, len(entries), err)
		}
		for _, e := range entries {
			if e.Err != nil || e.Msg.Attempts != 2 {
				t.Errorf("retry of %d: attempts %d, %v", n, e.Msg.Attempts, e.Err)
			}
		}
	}
	if _, _, err := broker.DecodeJobs([]byte(`{"run":"r1","attempts":-1,"job":{}}`), reg); err == nil {
		t.Error("negative attempts accepted")
	}
}

// TestPackSharedParams: the replicates of a pack carry byte-identical
// parameters, decoded once per message; each job still owns its map, and a
// job with other parameters (or a failed one between) is decoded afresh.
func TestPackSharedParams(t *testing.T) {
	reg := testRegistry(t)
	var jobs []*sweep.Job
	for i := 0; i < 5; i++ {
		p := fullBenchParams()
		if i == 3 {
			p["rows"] = int64(9)
		}
		j := benchJob(p)
		j.ID = uuid.NewSHA1(uuid.Nil, []byte{byte(i)})
		j.Index, j.Replicate = i, i
		jobs = append(jobs, j)
	}
	data, err := broker.EncodePack("r1", jobs)
	if err != nil {
		t.Fatal(err)
	}
	_, entries, err := broker.DecodeJobs(data, reg)
	if err != nil || len(entries) != len(jobs) {
		t.Fatalf("DecodeJobs: %d entries, %v", len(entries), err)
	}
	for i, e := range entries {
		if e.Err != nil || !reflect.DeepEqual(e.Msg.Job, *jobs[i]) {
			t.Fatalf("job %d: got %+v (%v), want %+v", i, e.Msg.Job, e.Err, *jobs[i])
		}
	}
	entries[0].Msg.Job.Params["rows"] = int64(42)
	if entries[1].Msg.Job.Params["rows"] != int64(3) || entries[2].Msg.Job.Params["rows"] != int64(3) {
		t.Error("jobs of a pack share a parameter map")
	}
	// identical parameters after a job that failed to decode them
	bad := `{"id":"56a972f0-979b-5b28-b8e1-03f2770e6168","index":1,"sweep":"s","model":"bench","model_version":"1","params":{"size":-1}}`
	data = []byte(`{"run":"r1","jobs":[` + bad + `,` + strings.Replace(bad, "56a9", "66a9", 1) + `]}`)
	if _, entries, err = broker.DecodeJobs(data, reg); err != nil || entries[0].Err == nil || entries[1].Err == nil {
		t.Errorf("a repeated bad parameter set: %v; entries %+v", err, entries)
	}
}

// TestDecodeJobsPerJobErrors: one bad job of a pack spoils neither the
// others nor the identity needed to record its failure.
func TestDecodeJobsPerJobErrors(t *testing.T) {
	reg := testRegistry(t)
	good := `{"id":"46a972f0-979b-5b28-b8e1-03f2770e6168","index":0,"sweep":"s","model":"bench","model_version":"1","params":{"size":3}}`
	badParam := `{"id":"56a972f0-979b-5b28-b8e1-03f2770e6168","index":1,"sweep":"s","model":"bench","model_version":"1","params":{"sise":3}}`
	otherVersion := `{"id":"66a972f0-979b-5b28-b8e1-03f2770e6168","index":2,"sweep":"s","model":"bench","model_version":"999","params":{}}`
	notObject := `17`
	data := []byte(`{"run":"r1","jobs":[` + good + `,` + badParam + `,` + otherVersion + `,` + notObject + `]}`)
	run, entries, err := broker.DecodeJobs(data, reg)
	if err != nil || run != "r1" || len(entries) != 4 {
		t.Fatalf("DecodeJobs: %q %d %v", run, len(entries), err)
	}
	if entries[0].Err != nil {
		t.Errorf("good job: %v", entries[0].Err)
	}
	if e := entries[1]; e.Err == nil || errors.Is(e.Err, broker.ErrNotRunnableHere) || e.Msg.Job.Index != 1 || e.Msg.Job.ID.String() != "56a972f0-979b-5b28-b8e1-03f2770e6168" {
		t.Errorf("bad parameter: %+v %v", e.Msg, e.Err)
	}
	if e := entries[2]; !errors.Is(e.Err, broker.ErrNotRunnableHere) || e.Msg.Job.Index != 2 {
		t.Errorf("other model version: %+v %v", e.Msg, e.Err)
	}
	if e := entries[3]; e.Err == nil || e.Msg.Job.ID != uuid.Nil {
		t.Errorf("not an object: %+v %v", e.Msg, e.Err)
	}
	for _, bad := range []string{`[]`, `{"jobs":[` + good + `]}`, `{"run":"r1","jobs":[]}`,
		`{"run":"r1","job":` + good + `,"jobs":[` + good + `]}`, `{"run":"a b","jobs":[` + good + `]}`} {
		if _, _, err := broker.DecodeJobs([]byte(bad), reg); err == nil {
			t.Errorf("DecodeJobs(%s): no error", bad)
		}
	}
}

// FuzzDecodeJobs: the pack decoder never panics, every job it accepts has
// an identity and schema-valid parameters, and on a plain job message it
// agrees with DecodeJob.
func FuzzDecodeJobs(f *testing.F) {
	reg, err := simcore.NewRegistry(bench.New())
	if err != nil {
		f.Fatal(err)
	}
	job := `{"id":"46a972f0-979b-5b28-b8e1-03f2770e6168","model":"bench","model_version":"1","params":{"size":3,"work_ms":0.5}}`
	f.Add([]byte(`{"run":"r1","job":` + job + `}`))
	f.Add([]byte(`{"run":"r1","jobs":[` + job + `,` + job + `]}`))
	f.Add([]byte(`{"run":"r1","jobs":[null,{},17]}`))
	f.Add([]byte(`{"run":"r1","jobs":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		run, entries, err := broker.DecodeJobs(data, reg)
		if err != nil {
			return
		}
		if run == "" || len(entries) == 0 {
			t.Fatalf("accepted a message without run or jobs: %q %d", run, len(entries))
		}
		for _, e := range entries {
			if e.Msg == nil {
				t.Fatal("entry without identity")
			}
			if e.Err != nil {
				continue
			}
			if e.Msg.Run != run || e.Msg.Job.ID == uuid.Nil {
				t.Fatalf("accepted a job without identity: %+v", e.Msg)
			}
			s := e.Model.Schema()
			if _, err := s.Complete(e.Msg.Job.Params); err != nil {
				t.Fatalf("accepted invalid parameters: %v", err)
			}
		}
		if msg, _, err := broker.DecodeJob(data, reg); err == nil && (len(entries) != 1 || entries[0].Err != nil || !reflect.DeepEqual(*entries[0].Msg, *msg)) {
			t.Fatalf("DecodeJob accepts what DecodeJobs does not: %+v", entries)
		}
	})
}

func TestHeartbeatValidate(t *testing.T) {
	names, err := broker.NewNames("lab-a")
	if err != nil {
		t.Fatal(err)
	}
	good := broker.Heartbeat{Worker: "host-1-w0", Host: "node01.example.org", PID: 42, Running: []string{"0b7e8a0c-1f2d-4c3b-9a8e-5d6f7a8b9c0d"},
		Current: broker.DescribeJob("run-1", &sweep.Job{Sweep: "lin", Index: 3, Params: simcore.Params{"p": 0.5, "name": strings.Repeat("é", 200)}})}
	if err := good.Validate(names, names.HeartbeatSubject(good.Worker)); err != nil {
		t.Fatalf("a worker's own heartbeat: %v", err)
	}
	for _, c := range []struct {
		name    string
		edit    func(h *broker.Heartbeat)
		subject string // default: the subject of the (edited) name
	}{
		{"escape sequence in the name", func(h *broker.Heartbeat) { h.Worker = "\x1b[31mevil" }, ""},
		{"newline in the name", func(h *broker.Heartbeat) { h.Worker = "w\nfake line" }, ""},
		{"empty name", func(h *broker.Heartbeat) { h.Worker = "" }, ""},
		{"name too long", func(h *broker.Heartbeat) { h.Worker = strings.Repeat("w", broker.MaxWorkerName+1) }, ""},
		{"another worker's subject", func(h *broker.Heartbeat) {}, names.HeartbeatSubject("someone-else")},
		{"host not UTF-8", func(h *broker.Heartbeat) { h.Host = "bad\xff" }, ""},
		{"host too long", func(h *broker.Heartbeat) { h.Host = strings.Repeat("h", 256) }, ""},
		{"job in flight not an ID", func(h *broker.Heartbeat) { h.Running = []string{"\x1b]0;x\x07"} }, ""},
		{"too many jobs in flight", func(h *broker.Heartbeat) { h.Running = make([]string, 1025) }, ""},
		{"negative count", func(h *broker.Heartbeat) { h.Done = -1 }, ""},
		{"current job's run not an ID", func(h *broker.Heartbeat) { h.Current.Run = "r\x1b[2J" }, ""},
		{"current job's parameters too long", func(h *broker.Heartbeat) { h.Current.Params = strings.Repeat("p", 1000) }, ""},
		{"current job's sweep not UTF-8", func(h *broker.Heartbeat) { h.Current.Sweep = "bad\xff" }, ""},
	} {
		h := good
		cur := *good.Current
		h.Current = &cur
		h.Running = append([]string(nil), good.Running...)
		c.edit(&h)
		subject := c.subject
		if subject == "" {
			subject = names.HeartbeatSubject(h.Worker)
		}
		if err := h.Validate(names, subject); err == nil {
			t.Errorf("%s: accepted", c.name)
		}
	}
}

// TestDescribeJob: a worker's current job is described by its sweep, index,
// replicate and parameters sorted by name, cut to MaxCurrentParams bytes on
// a rune boundary.
func TestDescribeJob(t *testing.T) {
	c := broker.DescribeJob("run-1", &sweep.Job{Sweep: "lin", Index: 3, Replicate: 2, Params: simcore.Params{"utilisation": 0.5, "algo": "easy", "n": int64(4)}})
	if want := (broker.CurrentJob{Run: "run-1", Sweep: "lin", Index: 3, Replicate: 2, Params: "algo=easy n=4 utilisation=0.5"}); *c != want {
		t.Errorf("DescribeJob: %+v, want %+v", *c, want)
	}
	long := broker.DescribeJob("r", &sweep.Job{Params: simcore.Params{"x": strings.Repeat("é", 500)}})
	if !utf8.ValidString(long.Params) || len(long.Params) > broker.MaxCurrentParams+len("…") || !strings.HasSuffix(long.Params, "…") {
		t.Errorf("long parameters: %d bytes, valid UTF-8 %v: %.40q", len(long.Params), utf8.ValidString(long.Params), long.Params)
	}
}

func TestParseDoneKey(t *testing.T) {
	for _, c := range []struct {
		key, run, part string
		invalid, ok    bool
	}{
		{"r.p", "r", "p", false, true},
		{broker.InvalidKey("r", "p"), "r", "p", true, true},
		{"r", "", "", false, false},
		{"r.p.q", "", "", false, false},
		{".p", "", "", false, false},
		{"r..invalid", "", "", false, false},
	} {
		run, part, invalid, ok := broker.ParseDoneKey(c.key)
		if run != c.run || part != c.part || invalid != c.invalid || ok != c.ok {
			t.Errorf("ParseDoneKey(%q) = %q %q %v %v", c.key, run, part, invalid, ok)
		}
	}
}
