package loadgen

import (
	"context"
	"time"
)

// Clock is the time source of the generator: the real one in the
// harnesses, a fake one in the tests, so arrival times can be checked
// exactly.
type Clock interface {
	Now() time.Time
	// SleepUntil returns when the clock reaches t (at once if it has), or
	// when ctx ends, with ctx's error.
	SleepUntil(ctx context.Context, t time.Time) error
}

// RealClock is the wall clock.
type RealClock struct{}

// Now is time.Now.
func (RealClock) Now() time.Time { return time.Now() }

// SleepUntil sleeps on a timer until t.
func (RealClock) SleepUntil(ctx context.Context, t time.Time) error {
	d := time.Until(t)
	if d <= 0 {
		return ctx.Err()
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
