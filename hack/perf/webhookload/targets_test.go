package main

import (
	"testing"
	"time"

	"github.com/altairalabs/omnia/hack/perf/loadgen"
)

// figures is a step at rate whose every review took lat, with errs errors.
func figures(proto string, rate float64, lat time.Duration, errs int) stepFigures {
	res := loadgen.Result{Step: loadgen.Step{Rate: rate}, Errors: map[loadgen.Outcome]int{}}
	for range 100 {
		res.Latencies = append(res.Latencies, lat)
	}
	res.Errors[loadgen.Dropped] = errs
	return stepFigures{protocol: proto, result: res}
}

func TestFirstMissedIsAtTheTargetRate(t *testing.T) {
	steps := []stepFigures{
		figures(http1, 500, 50*time.Millisecond, 3), // slow, but not the target rate
		figures(http1, 2000, 4*time.Millisecond, 0),
		figures(http2, 2000, 4*time.Millisecond, 1),
	}
	missed := firstMissed(steps)
	if missed == nil || missed.protocol != http2 {
		t.Fatalf("firstMissed = %+v, want the HTTP/2 2,000/s step (one error)", missed)
	}
	steps[2] = figures(http2, 2000, 6*time.Millisecond, 0)
	if missed := firstMissed(steps); missed == nil || missed.protocol != http2 {
		t.Fatalf("a 6 ms p99 at 2,000/s was not a miss")
	}
	steps[2] = figures(http2, 2000, 5*time.Millisecond, 0)
	if missed := firstMissed(steps); missed != nil {
		t.Fatalf("p99 exactly 5 ms and no error counted as a miss: %+v", missed)
	}
	if n := len(targetSteps(steps)); n != 2 {
		t.Fatalf("%d target steps, want 2", n)
	}
}

func TestRateFormatting(t *testing.T) {
	for r, want := range map[float64]string{500: "500", 1000: "1,000", 2000: "2,000"} {
		if got := rate(r); got != want {
			t.Errorf("rate(%v) = %q, want %q", r, got, want)
		}
	}
}
