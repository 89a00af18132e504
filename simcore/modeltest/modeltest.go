// Package modeltest is what every model's tests share, so that each model
// proves the same things the same way:
//
//   - Run and RoundTrip: a parameter set completed against the model's
//     schema, run, and the result checked against the schema; RoundTrip
//     also checks that the completed parameters read back as declared and
//     that a second run gives the same result bit for bit (but for
//     measured columns);
//   - Schedule: the model's schedule table, read back through a Layout
//     and validated by the independent checker simcore/check (capacity,
//     release, non-preemption, precedence, deadlines);
//   - Digest, Hash and Pins: pinned hashes of results or schedules, so
//     that performance work proves it changed no decision.
//
// It is test support: only _test.go files import it.
package modeltest

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"testing"

	"schedfarm/simcore"
)

// Run completes p against m's schema, runs m once with seed and checks the
// result against the schema (every declared metric, of its kind; every
// emitted table declared, its columns of their kinds and of one length).
// Any error fails t.
func Run(t testing.TB, m simcore.Model, p simcore.Params, seed uint64) *simcore.Result {
	t.Helper()
	s := m.Schema()
	full, err := s.Complete(p)
	if err != nil {
		t.Fatalf("%s %v: %v", m.Name(), p, err)
	}
	r, err := m.Run(context.Background(), full, seed)
	if err != nil {
		t.Fatalf("%s %v: %v", m.Name(), p, err)
	}
	if err := s.Validate(r); err != nil {
		t.Fatalf("%s %v: %v", m.Name(), p, err)
	}
	return r
}

// RoundTrip is the schema round trip of one parameter set: the schema's
// declarations, the values a job stores, and what is read back agree.
//
//   - Every default has the Go type of its parameter's kind and passes
//     the parameter's own check.
//   - p completed against the schema holds every declared parameter with
//     its kind's Go type, and completing it again changes nothing (the
//     values a sweep stores are the values that ran).
//   - The run's result passes the schema (Run), and a second run with the
//     same parameters and seed gives the same metrics and tables bit for
//     bit, but for the columns declared Measured.
//
// It returns the first run's result.
func RoundTrip(t testing.TB, m simcore.Model, p simcore.Params, seed uint64) *simcore.Result {
	t.Helper()
	s := m.Schema()
	for _, d := range s.Params {
		if d.Default == nil {
			continue
		}
		if k := kindOf(d.Default); k != d.Kind {
			t.Errorf("%s: default of %s is %T, declared %s", m.Name(), d.Name, d.Default, d.Kind)
		} else if _, err := d.Check(d.Default); err != nil {
			t.Errorf("%s: default of %s: %v", m.Name(), d.Name, err)
		}
	}
	full, err := s.Complete(p)
	if err != nil {
		t.Fatalf("%s %v: %v", m.Name(), p, err)
	}
	for _, d := range s.Params {
		if k := kindOf(full[d.Name]); k != d.Kind {
			t.Errorf("%s: completed %s is %T, declared %s", m.Name(), d.Name, full[d.Name], d.Kind)
		}
	}
	again, err := s.Complete(full)
	if err != nil || again.Canonical(nil) != full.Canonical(nil) {
		t.Errorf("%s: completing the completed parameters gives %v (%v), want them unchanged", m.Name(), again, err)
	}
	a := Run(t, m, full, seed)
	b := Run(t, m, full, seed)
	if err := Same(s, a, b); err != nil {
		t.Errorf("%s %v seed %d: two runs differ: %v", m.Name(), p, seed, err)
	}
	return a
}

// Same reports the first difference between two results of one schema, bit
// for bit (a float NaN equals a NaN of the same bits), ignoring the metrics
// and columns declared Measured; nil when there is none.
func Same(s simcore.Schema, a, b *simcore.Result) error {
	for _, c := range s.Metrics {
		if !c.Measured && !sameValue(a.Metrics[c.Name], b.Metrics[c.Name]) {
			return fmt.Errorf("metric %s: %v then %v", c.Name, a.Metrics[c.Name], b.Metrics[c.Name])
		}
	}
	for _, tb := range s.Tables {
		ta, tbb := a.Tables[tb.Name], b.Tables[tb.Name]
		if (ta == nil) != (tbb == nil) {
			return fmt.Errorf("table %s emitted by one run only", tb.Name)
		}
		if ta == nil {
			continue
		}
		for _, c := range tb.Columns {
			if !c.Measured && !sameValue(ta.Columns[c.Name], tbb.Columns[c.Name]) {
				return fmt.Errorf("table %s: column %s differs", tb.Name, c.Name)
			}
		}
	}
	return nil
}

// sameValue compares two values or column slices, floats by their bits.
func sameValue(a, b any) bool {
	switch x := a.(type) {
	case float64:
		y, ok := b.(float64)
		return ok && math.Float64bits(x) == math.Float64bits(y)
	case []float64:
		y, ok := b.([]float64)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if math.Float64bits(x[i]) != math.Float64bits(y[i]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}

// kindOf is the kind whose Go type v has (0 for none).
func kindOf(v any) simcore.Kind {
	switch v.(type) {
	case int64:
		return simcore.Int
	case float64:
		return simcore.Float
	case string:
		return simcore.String
	case bool:
		return simcore.Bool
	}
	return 0
}

// Column returns the named column of the named table of r as a []T
// (T: int64, float64, string or bool), failing t when the table was not
// emitted or the column is missing or of another type.
func Column[T any](t testing.TB, r *simcore.Result, table, column string) []T {
	t.Helper()
	tab := r.Tables[table]
	if tab == nil {
		t.Fatalf("no table %q in the result", table)
	}
	c, ok := tab.Columns[column].([]T)
	if !ok {
		t.Fatalf("table %s: column %q is %T, want %T", table, column, tab.Columns[column], c)
	}
	return c
}
