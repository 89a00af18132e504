// Package bench is the farm's own model: it burns a requested amount of CPU
// and returns a checksum of the work. It is how the farm's overhead is
// measured (model time against end-to-end time) and how the farm's failure
// handling is exercised (a job can be told to fail, panic or crash its
// process, or to wait in flight until a file exists). Like every
// model it is a pure function of its parameters and seed: the amount of work
// is a fixed number of iterations per requested millisecond, calibrated once
// on the reference machine, never a wall-clock loop.
package bench

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"sync"
	"time"

	"schedfarm/simcore"
)

// ItersPerMs is the number of mixing iterations that take one millisecond of
// CPU on the reference machine (2-core x86-64 CI box, Go 1.26). The bench
// model's cost is defined in iterations so that its checksum is the same on
// every machine; on a faster machine a job simply takes less time.
const ItersPerMs = 275_000

// ctxCheckEvery is how many iterations run between cancellation checks.
const ctxCheckEvery = 1 << 16

// Model is the bench model. The zero value is ready to use.
type Model struct{}

// New returns the bench model.
func New() *Model { return &Model{} }

// Name implements simcore.Model.
func (*Model) Name() string { return "bench" }

// Version implements simcore.Model.
func (*Model) Version() string { return "1" }

// Doc implements simcore.Model.
func (*Model) Doc() string {
	return "burns a requested CPU time and returns a checksum; measures the farm's overhead"
}

// Failure modes a bench job can be asked to show.
const (
	FailNever = "never"
	FailError = "error" // Run returns an error
	FailPanic = "panic" // Run panics
	// FailCrash ends the process with a Go fatal error, which no recover
	// catches: what a job that runs out of memory does to its worker.
	FailCrash = "crash"
)

// Schema implements simcore.Model.
func (*Model) Schema() simcore.Schema {
	return simcore.Schema{
		Params: []simcore.Param{
			{Name: "work_ms", Kind: simcore.Float, Unit: "ms", Min: simcore.Bound(0), Max: simcore.Bound(3_600_000), Default: 0.0,
				Doc: "CPU time to burn, in milliseconds of the reference machine"},
			{Name: "size", Kind: simcore.Int, Unit: "", Min: simcore.Bound(0), Default: int64(1),
				Doc: "a free workload parameter: sweep it to make points; it scales the metric 'value'"},
			{Name: "noise", Kind: simcore.Float, Unit: "", Min: simcore.Bound(0), Default: 1.0,
				Doc: "standard deviation of the seeded normal noise added to 'value'"},
			{Name: "rows", Kind: simcore.Int, Unit: "rows", Min: simcore.Bound(0), Max: simcore.Bound(1_000_000), Default: int64(0),
				Doc: "rows of the extra table 'samples' to emit"},
			{Name: "variant", Kind: simcore.String, Default: "a", Algorithm: true,
				Doc: "algorithm label: any string; it changes the checksum but not the instance seed; wait:FILE also holds the job, without using CPU, until FILE exists (the farm's fault tests)"},
			{Name: "fail", Kind: simcore.String, Enum: []string{FailNever, FailError, FailPanic, FailCrash}, Default: FailNever,
				Doc: "never: succeed; error: return an error; panic: panic; crash: end the worker's process with a Go fatal error, as running out of memory does (to exercise the farm's failure handling; crash kills a local run too)"},
		},
		Metrics: []simcore.Column{
			simcore.IntColumn("checksum", "", "checksum of the mixing work (identical on every machine)"),
			simcore.IntColumn("iterations", "iterations", "mixing iterations performed"),
			simcore.FloatColumn("value", "", "size + noise·N(0,1) drawn from the instance seed"),
		},
		Tables: []simcore.Table{{
			Name: "samples",
			Doc:  "rows seeded draws, one per row (exercises extra tables)",
			Columns: []simcore.Column{
				simcore.IntColumn("i", "", "row index"),
				simcore.FloatColumn("u", "", "uniform draw in [0,1)"),
			},
		}},
	}
}

// WaitPrefix starts the variants that hold their job in flight: a job of
// variant "wait:FILE" first waits, without using CPU, until FILE exists
// (a path relative to the worker's working directory, or absolute) or its
// context ends, and then runs as any other. The farm's fault tests hold
// jobs with it where a long job stands for one that is running (a worker
// killed, stopped or drained mid-job), so that their verdicts do not
// depend on the machine's speed. The label enters the checksum like any
// other; the wait changes no result.
const WaitPrefix = "wait:"

// waitPoll is how often a held job looks for its file.
const waitPoll = 10 * time.Millisecond

// waitFor waits until the file exists or ctx ends.
func waitFor(ctx context.Context, file string) error {
	t := time.NewTicker(waitPoll)
	defer t.Stop()
	for {
		if _, err := os.Stat(file); err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("bench: stopped while waiting for %s: %w", file, ctx.Err())
		case <-t.C:
		}
	}
}

// ErrRequested is the error a job with fail=error returns.
var ErrRequested = errors.New("bench: failure requested by parameter fail=error")

// Run implements simcore.Model.
func (*Model) Run(ctx context.Context, p simcore.Params, seed uint64) (*simcore.Result, error) {
	if file, ok := strings.CutPrefix(p.String("variant"), WaitPrefix); ok {
		if file == "" {
			return nil, fmt.Errorf("bench: variant %q names no file to wait for (%sFILE)", WaitPrefix, WaitPrefix)
		}
		if err := waitFor(ctx, file); err != nil {
			return nil, err
		}
	}
	switch p.String("fail") {
	case FailError:
		return nil, ErrRequested
	case FailPanic:
		panic("bench: panic requested by parameter fail=panic")
	case FailCrash:
		crash()
	}
	iters := int64(math.Round(p.Float("work_ms") * ItersPerMs))
	x := seed ^ hashString(p.String("variant"))
	for i := int64(0); i < iters; i++ {
		if i%ctxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("bench: stopped after %d of %d iterations: %w", i, iters, err)
			}
		}
		x = splitmix64(x)
	}
	rng := splitmix{state: seed}
	value := float64(p.Int("size")) + p.Float("noise")*rng.normal()
	res := &simcore.Result{Metrics: map[string]any{
		"checksum":   int64(x >> 1),
		"iterations": iters,
		"value":      value,
	}}
	if n := p.Int("rows"); n > 0 {
		is := make([]int64, n)
		us := make([]float64, n)
		for i := range is {
			is[i] = int64(i)
			us[i] = rng.float64()
		}
		res.Tables = map[string]*simcore.TableData{"samples": {Columns: map[string]any{"i": is, "u": us}}}
	}
	return res, nil
}

// crash ends the process with a Go fatal error ("fatal error: sync:
// unlock of unlocked mutex"): like "fatal error: out of memory", it is
// not a panic, so no recover catches it, and the process exits with
// status 2 at once.
func crash() {
	var mu sync.Mutex
	mu.Unlock()
}

func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	z := x
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// splitmix is a tiny seeded generator; the bench model needs no more.
type splitmix struct{ state uint64 }

func (s *splitmix) next() uint64 {
	s.state += 0x9e3779b97f4a7c15
	z := s.state
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

func (s *splitmix) float64() float64 { return float64(s.next()>>11) / (1 << 53) }

// normal draws N(0,1) by the Box–Muller transform.
func (s *splitmix) normal() float64 {
	u1 := s.float64()
	for u1 == 0 {
		u1 = s.float64()
	}
	u2 := s.float64()
	return math.Sqrt(-2*math.Log(u1)) * math.Cos(2*math.Pi*u2)
}

func hashString(s string) uint64 {
	// FNV-1a, 64 bit.
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}
