package loadgen

import (
	"context"
	"errors"
	"sync"
	"time"
)

// Outcome is what became of one request. OK is the empty string; every
// other value is a kind of error, counted separately in the report.
type Outcome string

const (
	OK Outcome = ""
	// Transport: no HTTP answer (connection refused or reset, TLS, timeout).
	Transport Outcome = "transport"
	// NotOK: an HTTP answer other than 200.
	NotOK Outcome = "non-200"
	// WrongVerdict: a 200 whose AdmissionReview allowed what should have
	// been denied, denied what should have been allowed, denied with another
	// rule, or did not parse.
	WrongVerdict Outcome = "wrong verdict"
	// Dropped: the arrival found MaxInFlight requests outstanding and was
	// not sent.
	Dropped Outcome = "dropped"
)

// ErrorKinds lists the error outcomes in report order.
var ErrorKinds = []Outcome{Transport, NotOK, WrongVerdict, Dropped}

// Step is one constant-rate run.
type Step struct {
	// Rate is arrivals per second; Duration how long arrivals go on.
	Rate     float64
	Duration time.Duration
	// MaxInFlight bounds the requests outstanding; an arrival finding it
	// full is dropped.
	MaxInFlight int
}

// Arrivals is the number of requests the step schedules.
func (s Step) Arrivals() int { return int(s.Rate * s.Duration.Seconds()) }

// ArrivalTime is when request i (from 0) is scheduled: start + i/Rate,
// computed from the start each time so the schedule never drifts.
func (s Step) ArrivalTime(start time.Time, i int) time.Time {
	return start.Add(time.Duration(float64(i) * float64(time.Second) / s.Rate))
}

// Send performs request i and reports its outcome. It must return within a
// bounded time (its own timeout).
type Send func(ctx context.Context, i int) Outcome

// Result is what a step measured.
type Result struct {
	Step Step
	// Latencies are from each sent request's scheduled arrival time to its
	// answer (or failure): lateness of the generator or of the server
	// counts, as a caller would see it.
	Latencies []time.Duration
	// Errors counts requests by error outcome.
	Errors map[Outcome]int
	// Sent is the number of requests sent (arrivals minus dropped).
	Sent int
	// Wall is from the first scheduled arrival to the last answer.
	Wall time.Duration
}

// Answered is the number of sent requests that ended without a transport
// error.
func (r Result) Answered() int { return r.Sent - r.Errors[Transport] }

// Throughput is answered requests per second of wall time.
func (r Result) Throughput() float64 {
	if r.Wall <= 0 {
		return 0
	}
	return float64(r.Answered()) / r.Wall.Seconds()
}

// TotalErrors sums every error outcome.
func (r Result) TotalErrors() int {
	n := 0
	for _, v := range r.Errors {
		n += v
	}
	return n
}

// Run drives one step open-loop: request i is due at ArrivalTime(start, i)
// whatever happened to the requests before it; it is sent on its own
// goroutine if fewer than MaxInFlight are outstanding, else dropped. Run
// returns when every sent request has ended, or with ctx's error.
func Run(ctx context.Context, clock Clock, step Step, send Send) (Result, error) {
	if step.Rate <= 0 || step.Duration <= 0 || step.MaxInFlight <= 0 {
		return Result{}, errors.New("loadgen: rate, duration and in-flight bound must be positive")
	}
	n := step.Arrivals()
	res := Result{Step: step, Errors: map[Outcome]int{}, Latencies: make([]time.Duration, 0, n)}
	slots := make(chan struct{}, step.MaxInFlight)
	var (
		mu          sync.Mutex
		wg          sync.WaitGroup
		lastAnswer  time.Time
		interrupted error
	)
	start := clock.Now()
	for i := 0; i < n; i++ {
		due := step.ArrivalTime(start, i)
		if err := clock.SleepUntil(ctx, due); err != nil {
			interrupted = err
			break
		}
		select {
		case slots <- struct{}{}:
		default:
			mu.Lock()
			res.Errors[Dropped]++
			mu.Unlock()
			continue
		}
		res.Sent++
		wg.Add(1)
		go func(i int, due time.Time) {
			defer wg.Done()
			out := send(ctx, i)
			end := clock.Now()
			<-slots
			mu.Lock()
			defer mu.Unlock()
			res.Latencies = append(res.Latencies, end.Sub(due))
			if out != OK {
				res.Errors[out]++
			}
			if end.After(lastAnswer) {
				lastAnswer = end
			}
		}(i, due)
	}
	wg.Wait()
	if !lastAnswer.IsZero() {
		res.Wall = lastAnswer.Sub(start)
	}
	return res, interrupted
}
