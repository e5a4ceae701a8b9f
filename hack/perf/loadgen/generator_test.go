package loadgen

import (
	"context"
	"sync"
	"testing"
	"time"
)

// fakeClock jumps to each time the generator sleeps until, and records the
// times, so the schedule can be checked exactly without waiting.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	sleeps []time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) SleepUntil(ctx context.Context, t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sleeps = append(c.sleeps, t)
	if t.After(c.now) {
		c.now = t
	}
	return ctx.Err()
}

func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func TestRunSchedulesArrivalsAtFixedTimes(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := &fakeClock{now: start}
	step := Step{Rate: 2000, Duration: 50 * time.Millisecond, MaxInFlight: 100} // never full: the fake clock does not wait
	var mu sync.Mutex
	sent := map[int]bool{}
	res, err := Run(context.Background(), clock, step, func(_ context.Context, i int) Outcome {
		mu.Lock()
		sent[i] = true
		mu.Unlock()
		return OK
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Sent != 100 || len(clock.sleeps) != 100 || len(res.Latencies) != 100 {
		t.Fatalf("sent %d, slept %d times, %d latencies; want 100 each", res.Sent, len(clock.sleeps), len(res.Latencies))
	}
	for i, got := range clock.sleeps {
		if want := start.Add(time.Duration(i) * 500 * time.Microsecond); !got.Equal(want) {
			t.Fatalf("arrival %d scheduled at %s, want %s", i, got.Sub(start), want.Sub(start))
		}
	}
	if res.TotalErrors() != 0 || len(sent) != 100 {
		t.Fatalf("errors %v, %d distinct requests sent", res.Errors, len(sent))
	}
}

// lateClock wakes the generator late: SleepUntil(t) leaves the clock at
// t + late, as an overloaded machine would.
type lateClock struct {
	fakeClock
	late time.Duration
}

func (c *lateClock) SleepUntil(ctx context.Context, t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t.Add(c.late)
	return ctx.Err()
}

func TestRunMeasuresFromTheScheduledTime(t *testing.T) {
	// One arrival, sent 4 ms late, answered 3 ms after it was sent: the
	// caller waited 7 ms, and that is the latency, not the 3 ms the request
	// itself took (which would hide the generator's or the server's stall).
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := &lateClock{fakeClock: fakeClock{now: start}, late: 4 * time.Millisecond}
	res, err := Run(context.Background(), clock, Step{Rate: 1, Duration: time.Second, MaxInFlight: 1}, func(context.Context, int) Outcome {
		clock.advance(3 * time.Millisecond)
		return OK
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Latencies) != 1 || res.Latencies[0] != 7*time.Millisecond {
		t.Fatalf("latencies %v, want [7ms]", res.Latencies)
	}
	if res.Wall != 7*time.Millisecond {
		t.Fatalf("wall %s, want 7ms", res.Wall)
	}
}

func TestRunDropsArrivalsWhenInFlightIsFull(t *testing.T) {
	clock := &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	step := Step{Rate: 100, Duration: 100 * time.Millisecond, MaxInFlight: 3} // 10 arrivals
	release := make(chan struct{})
	started := make(chan int, 10)
	resCh := make(chan Result, 1)
	go func() {
		res, err := Run(context.Background(), clock, step, func(_ context.Context, i int) Outcome {
			started <- i
			<-release
			return OK
		})
		if err != nil {
			t.Error(err)
		}
		resCh <- res
	}()
	// The first three hold every slot until released; the fake clock never
	// waits, so the other seven arrive while they are held and are dropped.
	got := map[int]bool{}
	for range 3 {
		got[<-started] = true
	}
	close(release)
	res := <-resCh
	if !got[0] || !got[1] || !got[2] {
		t.Fatalf("the first three arrivals were not the ones sent: %v", got)
	}
	if res.Sent != 3 || res.Errors[Dropped] != 7 || len(res.Latencies) != 3 {
		t.Fatalf("sent %d, dropped %d, %d latencies; want 3, 7, 3", res.Sent, res.Errors[Dropped], len(res.Latencies))
	}
	if res.Answered() != 3 || res.TotalErrors() != 7 {
		t.Fatalf("answered %d, errors %d", res.Answered(), res.TotalErrors())
	}
}

func TestRunCountsOutcomes(t *testing.T) {
	clock := &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	outcomes := []Outcome{OK, Transport, NotOK, WrongVerdict, OK, OK}
	res, err := Run(context.Background(), clock, Step{Rate: 60, Duration: 100 * time.Millisecond, MaxInFlight: 10}, func(_ context.Context, i int) Outcome {
		return outcomes[i]
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Errors[Transport] != 1 || res.Errors[NotOK] != 1 || res.Errors[WrongVerdict] != 1 || res.Errors[Dropped] != 0 {
		t.Fatalf("errors %v", res.Errors)
	}
	if res.Sent != 6 || res.Answered() != 5 {
		t.Fatalf("sent %d answered %d", res.Sent, res.Answered())
	}
}

// cancellingClock ends the run's context when the generator waits for
// arrival `at`, as an interrupt (Ctrl-C) would.
type cancellingClock struct {
	fakeClock
	at     int
	cancel context.CancelFunc
}

func (c *cancellingClock) SleepUntil(ctx context.Context, t time.Time) error {
	c.mu.Lock()
	if len(c.sleeps) == c.at {
		c.cancel()
	}
	c.mu.Unlock()
	return c.fakeClock.SleepUntil(ctx, t)
}

func TestRunStopsWithTheContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	clock := &cancellingClock{fakeClock: fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}, at: 5, cancel: cancel}
	res, err := Run(ctx, clock, Step{Rate: 1000, Duration: time.Second, MaxInFlight: 1000}, func(context.Context, int) Outcome { return OK })
	if err == nil {
		t.Fatal("no error after the context ended")
	}
	if res.Sent != 5 || len(res.Latencies) != 5 {
		t.Fatalf("sent %d (%d answered) of 1000 arrivals; want the 5 before the context ended", res.Sent, len(res.Latencies))
	}
}

func TestRunRefusesAnUnboundedStep(t *testing.T) {
	for _, s := range []Step{{Rate: 0, Duration: time.Second, MaxInFlight: 1}, {Rate: 1, Duration: 0, MaxInFlight: 1}, {Rate: 1, Duration: time.Second}} {
		if _, err := Run(context.Background(), &fakeClock{}, s, func(context.Context, int) Outcome { return OK }); err == nil {
			t.Errorf("%+v accepted", s)
		}
	}
}
