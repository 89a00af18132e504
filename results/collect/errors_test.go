package collect_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"schedfarm/results"
	"schedfarm/results/collect"
	"schedfarm/results/internal/runtest"
	"schedfarm/simcore"
	"schedfarm/simcore/bench"
	"schedfarm/sweep"
)

// faultySource wraps a PartSource and fails List or Open of one object.
type faultySource struct {
	collect.PartSource
	listErr  error
	openFail string
}

func (f faultySource) List(ctx context.Context) ([]string, error) {
	if f.listErr != nil {
		return nil, f.listErr
	}
	return f.PartSource.List(ctx)
}

func (f faultySource) Open(ctx context.Context, name string) (io.ReadCloser, error) {
	if name == f.openFail {
		return nil, errors.New("injected open failure")
	}
	return f.PartSource.Open(ctx, name)
}

func TestCollectErrors(t *testing.T) {
	schema := bench.New().Schema()
	jobs := runtest.BenchJobs(t, "s", 1, []runtest.Point{{"size": 1, "rows": 2}, {"size": 2}}, 2)
	dir := t.TempDir()
	parts := filepath.Join(dir, "parts")
	for i, id := range []string{"a", "b", "c", "d", "e", "f"} {
		if i < len(jobs) {
			runtest.StorePart(t, parts, id, schema, "r", runtest.RunBench(t, jobs[i:i+1], "w", time.Unix(0, 0)))
		}
	}
	// A part of another model is skipped.
	other := simcore.Schema{Params: []simcore.Param{{Name: "k", Kind: simcore.Int}}, Metrics: []simcore.Column{{Name: "m", Kind: simcore.Float}}}
	oj := sweep.Job{ID: jobs[0].ID, Sweep: "s", Model: "other", ModelVersion: "1", Params: simcore.Params{"k": int64(1)}, Seed: jobs[0].Seed}
	runtest.StorePart(t, parts, "0-other", other, "r", []results.JobResult{{Job: oj, Status: results.StatusOK, Result: &simcore.Result{Metrics: map[string]any{"m": 1.0}}}})
	src := runtest.DirSource{Dir: parts}
	in := collect.Input{RunID: "r", Model: schema, Jobs: jobs}

	res, err := collect.Collect(context.Background(), src, in, filepath.Join(dir, "ok"))
	if err != nil {
		t.Fatal(err)
	}
	if res.SkippedParts != 1 || res.Parts != 4 || res.OK != 4 {
		t.Errorf("collected %+v", res)
	}

	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	// A part whose jobs object lists a table object that is not stored.
	broken := filepath.Join(dir, "broken")
	runtest.StorePart(t, broken, "a", schema, "r", runtest.RunBench(t, jobs[:1], "w", time.Unix(0, 0)))
	if err := os.Remove(filepath.Join(broken, "a", "samples.parquet")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		ctx  context.Context
		src  collect.PartSource
		in   func(collect.Input) collect.Input
		want string
	}{
		{"list error", context.Background(), faultySource{PartSource: src, listErr: errors.New("no store")}, nil, "no store"},
		{"open error", context.Background(), faultySource{PartSource: src, openFail: "c/jobs.parquet"}, nil, "c/jobs.parquet: injected open failure"},
		{"table open error", context.Background(), faultySource{PartSource: src, openFail: "a/samples.parquet"}, nil, "a/samples.parquet: injected"},
		{"missing table object", context.Background(), runtest.DirSource{Dir: broken}, nil, "a/samples.parquet"},
		{"cancelled", cancelled, src, nil, "context canceled"},
		{"no jobs", context.Background(), src, func(in collect.Input) collect.Input { in.Jobs = nil; return in }, "no jobs"},
		{"corrupt part", context.Background(), corruptSource{src}, nil, "b/jobs.parquet"},
		// A model that gained a metric keeps its version, so a state dir
		// of an older build has parts without it: say how to rerun.
		{"part of an older build", context.Background(), src, func(in collect.Input) collect.Input {
			in.Model.Metrics = append(slices.Clone(in.Model.Metrics), simcore.Column{Name: "newer", Kind: simcore.Float})
			return in
		}, `column "newer" missing: the part was written by a build whose model had no such column`},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cin := in
			if tt.in != nil {
				cin = tt.in(in)
			}
			out := filepath.Join(dir, "out", string(rune('a'+i)))
			_, err := collect.Collect(tt.ctx, tt.src, cin, out)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one containing %q", err, tt.want)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("failed collect left %s", out)
			}
			es, _ := os.ReadDir(filepath.Dir(out))
			if len(es) != 0 {
				t.Errorf("failed collect left %d entries next to the output", len(es))
			}
		})
	}
}

// TestCollectPartError: an object that cannot be read or decoded is a
// *PartError naming it; an interrupted collection is not.
func TestCollectPartError(t *testing.T) {
	schema := bench.New().Schema()
	jobs := runtest.BenchJobs(t, "s", 1, []runtest.Point{{"size": 1}, {"size": 2}}, 1)
	parts := filepath.Join(t.TempDir(), "parts")
	runtest.StorePart(t, parts, "a", schema, "r", runtest.RunBench(t, jobs[:1], "w", time.Unix(0, 0)))
	runtest.StorePart(t, parts, "b", schema, "r", runtest.RunBench(t, jobs[1:], "w", time.Unix(0, 0)))
	src := runtest.DirSource{Dir: parts}
	in := collect.Input{RunID: "r", Model: schema, Jobs: jobs}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, c := range []struct {
		name, object string
		ctx          context.Context
		src          collect.PartSource
	}{
		{"lost", "a/jobs.parquet", context.Background(), faultySource{PartSource: src, openFail: "a/jobs.parquet"}},
		{"damaged", "b/jobs.parquet", context.Background(), corruptSource{src}},
		{"interrupted", "", cancelled, src},
	} {
		_, err := collect.Collect(c.ctx, c.src, in, filepath.Join(t.TempDir(), "out"))
		var pe *collect.PartError
		if got := errors.As(err, &pe); got != (c.object != "") || got && pe.Object != c.object {
			t.Errorf("%s: %v (a PartError: %v), want one naming %q", c.name, err, got, c.object)
		}
	}
}

// corruptSource truncates part b's jobs object.
type corruptSource struct{ collect.PartSource }

func (c corruptSource) Open(ctx context.Context, name string) (io.ReadCloser, error) {
	rc, err := c.PartSource.Open(ctx, name)
	if err != nil || name != "b/jobs.parquet" {
		return rc, err
	}
	return io.NopCloser(io.LimitReader(rc, 100)), nil
}

// damagedSource says ErrDamaged for the objects named.
type damagedSource struct {
	collect.PartSource
	damaged map[string]bool
}

func (d damagedSource) Open(ctx context.Context, name string) (io.ReadCloser, error) {
	if d.damaged[name] {
		return nil, fmt.Errorf("object %s: %w: chunk missing", name, collect.ErrDamaged)
	}
	return d.PartSource.Open(ctx, name)
}

// TestCollectBadParts: objects that are damaged (ErrDamaged) or cannot be
// decoded make one BadPartsError naming every such part of the pass, and
// nothing is written; collected again without them, their jobs are
// missing. Withheld jobs take no row from any part.
func TestCollectBadParts(t *testing.T) {
	schema := bench.New().Schema()
	jobs := runtest.BenchJobs(t, "s", 1, []runtest.Point{{"size": 1}, {"size": 2}, {"size": 3}}, 1)
	parts := filepath.Join(t.TempDir(), "parts")
	for i, id := range []string{"a", "b", "c"} {
		runtest.StorePart(t, parts, id, schema, "r", runtest.RunBench(t, jobs[i:i+1], "w", time.Unix(0, 0)))
	}
	in := collect.Input{RunID: "r", Model: schema, Jobs: jobs}
	src := damagedSource{corruptSource{runtest.DirSource{Dir: parts}}, map[string]bool{"a/jobs.parquet": true}}
	out := filepath.Join(t.TempDir(), "out")
	_, err := collect.Collect(context.Background(), src, in, out)
	var bad *collect.BadPartsError
	if !errors.As(err, &bad) {
		t.Fatalf("error %v, want a BadPartsError", err)
	}
	var names []string
	for _, p := range bad.Parts {
		names = append(names, p.Object)
	}
	if !slices.Equal(names, []string{"a/jobs.parquet", "b/jobs.parquet"}) {
		t.Errorf("bad parts %v, want a (damaged) and b (undecodable)", names)
	}
	var pe *collect.PartError
	if !errors.As(err, &pe) || pe.Object != "a/jobs.parquet" {
		t.Errorf("the error does not unwrap to the first part's PartError: %v", err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a collection with bad parts wrote its folder")
	}
	// Without a and b (a PartSource that leaves them out): c alone.
	for _, id := range []string{"a", "b"} {
		if err := os.RemoveAll(filepath.Join(parts, id)); err != nil {
			t.Fatal(err)
		}
	}
	in.Withheld = map[uuid.UUID]bool{jobs[2].ID: true}
	res, err := collect.Collect(context.Background(), runtest.DirSource{Dir: parts}, in, out)
	if err != nil {
		t.Fatal(err)
	}
	if res.OK != 0 || res.Missing != 3 {
		t.Errorf("collected %+v, want every job missing (c's job withheld)", res)
	}
}
