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
