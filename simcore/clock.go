package simcore

import (
	"context"
	"time"
)

// Measured metrics (the *_wall_ms and sched_time_ms columns) time a
// model's decision code on the wall clock, the one thing of a run that is
// not a function of (parameters, seed). A model does not read the clock:
// it hands its decision code to Timed, and whoever runs the model (the
// worker, `schedfarm bench`) puts the clock in the context with WithClock.
// Without one, as in a model's own tests, Timed reports 0, so everything
// a test sees stays deterministic.

type clockKey struct{}

// WithClock returns a context under which Timed reads now.
func WithClock(ctx context.Context, now func() time.Time) context.Context {
	return context.WithValue(ctx, clockKey{}, now)
}

// Timed runs f, a model's decision code, and returns how long it took in
// milliseconds on the clock of ctx (WithClock), or 0 when ctx has none.
func Timed(ctx context.Context, f func() error) (ms float64, err error) {
	now, _ := ctx.Value(clockKey{}).(func() time.Time)
	if now == nil {
		return 0, f()
	}
	t0 := now()
	err = f()
	return float64(now().Sub(t0).Nanoseconds()) / 1e6, err
}

// TimedValue is Timed for decision code that returns a value: it runs f
// and returns its value and error with the milliseconds it took on the
// clock of ctx (0 without one).
func TimedValue[T any](ctx context.Context, f func() (T, error)) (v T, ms float64, err error) {
	ms, err = Timed(ctx, func() error {
		var ferr error
		v, ferr = f()
		return ferr
	})
	return v, ms, err
}
