package simcore

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestTimed(t *testing.T) {
	// Without a clock: 0, and f runs.
	ran := false
	ms, err := Timed(context.Background(), func() error { ran = true; return nil })
	if ms != 0 || err != nil || !ran {
		t.Errorf("no clock: %v %v ran=%v", ms, err, ran)
	}
	// With a clock that advances 2.5 ms per reading; f's error comes back.
	base := time.Unix(0, 0)
	reads := 0
	now := func() time.Time { reads++; return base.Add(time.Duration(reads) * 2500 * time.Microsecond) }
	boom := errors.New("boom")
	ms, err = Timed(WithClock(context.Background(), now), func() error { return boom })
	if ms != 2.5 || !errors.Is(err, boom) || reads != 2 {
		t.Errorf("clock: %v ms, %v, %d reads; want 2.5, boom, 2", ms, err, reads)
	}
}

func TestTimedValue(t *testing.T) {
	v, ms, err := TimedValue(context.Background(), func() (int, error) { return 7, nil })
	if v != 7 || ms != 0 || err != nil {
		t.Errorf("no clock: %v %v %v; want 7 0 <nil>", v, ms, err)
	}
	reads := 0
	now := func() time.Time { reads++; return time.Unix(0, 0).Add(time.Duration(reads) * time.Millisecond) }
	boom := errors.New("boom")
	v, ms, err = TimedValue(WithClock(context.Background(), now), func() (int, error) { return 3, boom })
	if v != 3 || ms != 1 || !errors.Is(err, boom) {
		t.Errorf("clock: %v %v %v; want 3 1 boom", v, ms, err)
	}
}
