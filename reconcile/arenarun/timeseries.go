package arenarun

import (
	"encoding/json"
	"math"
	"strconv"
	"time"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/arena/queue"
)

// Summary keys of a duration load test's time series (docs/arena.md §
// "A duration load test's time series"; arenajob.md § loadTest.duration).
const (
	// keyTimeSeries is the series: a compact JSON array of timePoint.
	keyTimeSeries = "timeSeries"
	// keyTimeSeriesStart is t=0 of the series: the whole Unix second the
	// first timed result ended in, RFC 3339 UTC. Absent when no point.
	keyTimeSeriesStart = "timeSeriesStart"
	// keyTimeSeriesStepSeconds is the seconds each point covers: 1, or
	// coarser when the bounds below would be exceeded.
	keyTimeSeriesStepSeconds = "timeSeriesStepSeconds"
	// keyTimeSeriesUntimedItems counts the results with no endedAtMs (a
	// worker older than the field), left out of the series. Absent at 0.
	keyTimeSeriesUntimedItems = "timeSeriesUntimedItems"
)

// The bounds of the series, so an ArenaRun's status stays far below etcd's
// object size limit (1.5 MiB) whatever the run's length: at most
// maxTimeSeriesPoints points and maxTimeSeriesBytes of encoded JSON. When a
// one-second series exceeds either, the points get coarser (the next step of
// timeSeriesSteps, then doubling) rather than the series being truncated:
// the whole run is always covered.
const (
	maxTimeSeriesPoints = 3600
	maxTimeSeriesBytes  = 64 << 10
)

// timeSeriesSteps are the step widths tried in order, in seconds; past the
// last, the width doubles.
var timeSeriesSteps = []int64{1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600}

// timePoint is one element of the series. An empty step inside the run's
// range is {"t":…,"rps":0}: no error rate and no percentile of nothing.
type timePoint struct {
	// T is the step's start, in seconds since timeSeriesStart.
	T int64 `json:"t"`
	// RPS is the results that ended in the step ÷ the step's seconds (the
	// last step counts only the seconds up to the last result), to two
	// decimals; with a one-second step, the count.
	RPS float64 `json:"rps"`
	// ErrorRate is failed ÷ total results of the step, a ratio between 0
	// and 1 to four decimals, as the error_rate threshold reports it.
	ErrorRate *float64 `json:"errorRate,omitempty"`
	// P50, P95, P99 are latency percentiles of the step, in milliseconds
	// rounded to a whole one (as avgDurationMs), computed as the latency
	// thresholds compute theirs (itemLatency, percentile).
	P50 *float64 `json:"p50,omitempty"`
	P95 *float64 `json:"p95,omitempty"`
	P99 *float64 `json:"p99,omitempty"`
}

// timeSeries is a run's per-step series.
type timeSeries struct {
	// Start is t=0: the whole second the first timed result ended in.
	Start time.Time
	// Step is the seconds each point covers.
	Step   int64
	Points []timePoint
	// Untimed counts the results without an end time, left out.
	Untimed int
}

// durationLoadTest: a load test run for a duration, not for a matrix.
func durationLoadTest(t *v1alpha1.ArenaJobSpec) bool {
	return t.Type == v1alpha1.ArenaJobTypeLoadTest && t.LoadTest != nil && t.LoadTest.Duration != ""
}

// timeSeriesSummary is the summary entries of a duration load test's series.
func timeSeriesSummary(results []queue.Result) map[string]string {
	ts, encoded := timeSeriesOf(results)
	out := map[string]string{
		keyTimeSeries:            encoded,
		keyTimeSeriesStepSeconds: strconv.FormatInt(ts.Step, 10),
	}
	if len(ts.Points) > 0 {
		out[keyTimeSeriesStart] = ts.Start.UTC().Format(time.RFC3339)
	}
	if ts.Untimed > 0 {
		out[keyTimeSeriesUntimedItems] = strconv.Itoa(ts.Untimed)
	}
	return out
}

// timeSeriesOf picks the finest step whose series fits both bounds and
// returns it with its encoding.
func timeSeriesOf(results []queue.Result) (timeSeries, string) {
	first, last, timed := timedRange(results)
	span := last - first + 1
	for i := 0; ; i++ {
		step := stepAt(i)
		if timed > 0 && ceilDiv(span, step) > maxTimeSeriesPoints {
			continue
		}
		ts := buildTimeSeries(results, step)
		b, _ := json.Marshal(ts.Points)
		// One point always fits: a step as wide as the run ends the loop.
		if len(b) <= maxTimeSeriesBytes || step >= span {
			return ts, string(b)
		}
	}
}

// stepAt is the i-th step width tried: timeSeriesSteps, then doubling.
func stepAt(i int) int64 {
	n := len(timeSeriesSteps)
	if i < n {
		return timeSeriesSteps[i]
	}
	return timeSeriesSteps[n-1] << (i - n + 1)
}

// timedRange is the Unix seconds the first and the last timed result ended
// in, and how many results are timed.
func timedRange(results []queue.Result) (first, last int64, timed int) {
	for _, r := range results {
		if r.EndedAtMs <= 0 {
			continue
		}
		sec := r.EndedAtMs / 1000
		if timed == 0 || sec < first {
			first = sec
		}
		if timed == 0 || sec > last {
			last = sec
		}
		timed++
	}
	return first, last, timed
}

// buildTimeSeries buckets the timed results into steps of step seconds from
// the first result's second to the last's (an empty step inside appears with
// rps 0); results without EndedAtMs are counted as untimed and left out.
func buildTimeSeries(results []queue.Result, step int64) timeSeries {
	ts := timeSeries{Step: step, Points: []timePoint{}}
	first, last, timed := timedRange(results)
	ts.Untimed = len(results) - timed
	if timed == 0 {
		return ts
	}
	ts.Start = time.Unix(first, 0).UTC()
	type bucket struct {
		total, failed float64
		lat           []float64
	}
	buckets := make([]bucket, (last-first)/step+1)
	for _, r := range results {
		if r.EndedAtMs <= 0 {
			continue
		}
		b := &buckets[(r.EndedAtMs/1000-first)/step]
		b.total++
		if !r.Passed {
			b.failed++
		}
		b.lat = append(b.lat, itemLatency(r))
	}
	for i, b := range buckets {
		start := int64(i) * step
		p := timePoint{T: start}
		// The last step may end before its width: the run stopped.
		secs := min(step, last-first+1-start)
		p.RPS = round(b.total/float64(secs), 2)
		if b.total > 0 {
			p.ErrorRate = ptrTo(round(b.failed/b.total, 4))
			p.P50 = ptrTo(math.Round(percentile(b.lat, 50)))
			p.P95 = ptrTo(math.Round(percentile(b.lat, 95)))
			p.P99 = ptrTo(math.Round(percentile(b.lat, 99)))
		}
		ts.Points = append(ts.Points, p)
	}
	return ts
}

func round(x float64, decimals int) float64 {
	f := math.Pow10(decimals)
	return math.Round(x*f) / f
}

func ptrTo(x float64) *float64 { return &x }

func ceilDiv(a, b int64) int64 { return (a + b - 1) / b }
