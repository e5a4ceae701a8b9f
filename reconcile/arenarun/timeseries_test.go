package arenarun

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/arena/queue"
)

// tsBase is a whole Unix second, in ms: results at tsBase+k*1000+ms end in
// second k of the series.
var tsBase = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC).UnixMilli()

// at is a result ending ms milliseconds after tsBase.
func at(ms int64, passed bool, latency float64) queue.Result {
	return queue.Result{Passed: passed, LatencyMs: latency, DurationMs: latency + 5, EndedAtMs: tsBase + ms}
}

func TestTimeSeriesSummary(t *testing.T) {
	start := time.UnixMilli(tsBase).UTC().Format(time.RFC3339)
	cases := []struct {
		name    string
		results []queue.Result
		want    map[string]string
	}{
		{"no results: an empty series", nil,
			map[string]string{"timeSeries": "[]", "timeSeriesStepSeconds": "1"}},
		{"only untimed results (older workers): left out and counted",
			[]queue.Result{{Passed: true, LatencyMs: 10}, {Passed: false, LatencyMs: 20}},
			map[string]string{"timeSeries": "[]", "timeSeriesStepSeconds": "1", "timeSeriesUntimedItems": "2"}},
		{"one second: rps is the count, percentiles nearest-rank",
			[]queue.Result{at(200, true, 100), at(500, false, 300), at(999, true, 200)},
			map[string]string{"timeSeriesStepSeconds": "1", "timeSeriesStart": start,
				"timeSeries": `[{"t":0,"rps":3,"errorRate":0.3333,"p50":200,"p95":300,"p99":300}]`}},
		{"a gap: empty seconds inside the range with rps 0",
			[]queue.Result{at(100, true, 10), at(3100, true, 40), at(3900, true, 20)},
			map[string]string{"timeSeriesStepSeconds": "1", "timeSeriesStart": start,
				"timeSeries": `[{"t":0,"rps":1,"errorRate":0,"p50":10,"p95":10,"p99":10},{"t":1,"rps":0},{"t":2,"rps":0},{"t":3,"rps":2,"errorRate":0,"p50":20,"p95":40,"p99":40}]`}},
		{"failed items, latency falling back to the item's duration, out of order",
			[]queue.Result{
				at(1500, false, 0), // no latency: DurationMs (5) is used
				at(100, true, 50),
				{Passed: false, DurationMs: 9999}, // untimed
				at(1700, false, 30),
				at(1800, true, 10),
				at(1900, true, 20),
			},
			map[string]string{"timeSeriesStepSeconds": "1", "timeSeriesStart": start, "timeSeriesUntimedItems": "1",
				"timeSeries": `[{"t":0,"rps":1,"errorRate":0,"p50":50,"p95":50,"p99":50},{"t":1,"rps":4,"errorRate":0.5,"p50":10,"p95":30,"p99":30}]`}},
		{"twenty in a second: p50, p95 and p99 are three different ranks",
			twenty(),
			map[string]string{"timeSeriesStepSeconds": "1", "timeSeriesStart": start,
				"timeSeries": `[{"t":0,"rps":20,"errorRate":0,"p50":10,"p95":19,"p99":20}]`}},
		{"the first second is a whole Unix second, not the first result's millisecond",
			[]queue.Result{at(900, true, 10), at(1100, true, 10)},
			map[string]string{"timeSeriesStepSeconds": "1", "timeSeriesStart": start,
				"timeSeries": `[{"t":0,"rps":1,"errorRate":0,"p50":10,"p95":10,"p99":10},{"t":1,"rps":1,"errorRate":0,"p50":10,"p95":10,"p99":10}]`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := timeSeriesSummary(c.results)
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("got  %v\nwant %v", got, c.want)
			}
		})
	}
}

// twenty results in second 0, latencies 20 down to 1 ms.
func twenty() []queue.Result {
	var rs []queue.Result
	for i := 20; i >= 1; i-- {
		rs = append(rs, at(int64(i*10), true, float64(i)))
	}
	return rs
}

// A coarser step: rps is per second over the step, and the last step only
// counts the seconds up to the run's last result.
func TestBuildTimeSeriesCoarseStep(t *testing.T) {
	rs := []queue.Result{at(100, true, 10), at(1100, false, 30), at(2500, true, 20), at(4200, true, 40)}
	got := buildTimeSeries(rs, 2)
	b, _ := json.Marshal(got.Points)
	want := `[{"t":0,"rps":1,"errorRate":0.5,"p50":10,"p95":30,"p99":30},{"t":2,"rps":0.5,"errorRate":0,"p50":20,"p95":20,"p99":20},{"t":4,"rps":1,"errorRate":0,"p50":40,"p95":40,"p99":40}]`
	if string(b) != want || got.Step != 2 || !got.Start.Equal(time.UnixMilli(tsBase)) {
		t.Fatalf("got step %d start %v %s\nwant %s", got.Step, got.Start, b, want)
	}
}

// The bounds: a series never has more than maxTimeSeriesPoints points nor
// more than maxTimeSeriesBytes of JSON; when a finer step would break one,
// the step is the finest that keeps both, and the whole run stays covered.
func TestTimeSeriesBounds(t *testing.T) {
	dense := func(seconds int64, latency float64) []queue.Result {
		var rs []queue.Result
		for s := int64(0); s < seconds; s++ {
			rs = append(rs, at(s*1000+500, s%7 != 0, latency))
		}
		return rs
	}
	cases := []struct {
		name     string
		results  []queue.Result
		wantStep int64
	}{
		{"ten minutes, one a second: one-second points", dense(600, 12345), 1},
		{"under the point bound but over the byte bound: coarser", dense(3000, 12345), 5},
		{"4000 seconds, sparse: over the point bound only", []queue.Result{at(0, true, 1), at(3999*1000, true, 1)}, 2},
		{"two hours, sparse: 3600 two-second points are over the byte bound", []queue.Result{at(0, true, 1), at(7199*1000, true, 1)}, 5},
		{"two hours, one a second: 7200 points, then too many bytes", dense(7200, 12345), 10},
		{"a worker clock near 1970 against one now: doubled steps past an hour", []queue.Result{{Passed: true, LatencyMs: 1, EndedAtMs: 1}, at(0, true, 1)}, 3600 << 8},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ts, encoded := timeSeriesOf(c.results)
			first, last, _ := timedRange(c.results)
			span := last - first + 1
			if len(ts.Points) > maxTimeSeriesPoints || len(encoded) > maxTimeSeriesBytes {
				t.Fatalf("%d points, %d bytes: over the bounds", len(ts.Points), len(encoded))
			}
			if ts.Step != c.wantStep {
				t.Fatalf("step %d, want %d (%d points, %d bytes)", ts.Step, c.wantStep, len(ts.Points), len(encoded))
			}
			// The whole run is covered: the last point's step holds the last second.
			if lastPt := ts.Points[len(ts.Points)-1]; lastPt.T > span-1 || lastPt.T+ts.Step < span {
				t.Fatalf("last point t=%d step %d does not hold second %d", lastPt.T, ts.Step, span-1)
			}
			var n float64
			for _, p := range ts.Points {
				secs := min(ts.Step, span-p.T)
				n += p.RPS * float64(secs)
			}
			// rps has two decimals: exact enough to count back for steps up to a minute.
			if ts.Step <= 60 && int(n+0.5) != len(c.results) {
				t.Fatalf("the points count %v results, want %d", n, len(c.results))
			}
			// The step before would have broken a bound.
			for i := 0; stepAt(i) < ts.Step; i++ {
				if stepAt(i+1) != ts.Step {
					continue
				}
				finer := buildTimeSeries(c.results, stepAt(i))
				b, _ := json.Marshal(finer.Points)
				if len(finer.Points) <= maxTimeSeriesPoints && len(b) <= maxTimeSeriesBytes {
					t.Fatalf("step %d would have fit (%d points, %d bytes)", stepAt(i), len(finer.Points), len(b))
				}
			}
			var back []timePoint
			if err := json.Unmarshal([]byte(encoded), &back); err != nil || len(back) != len(ts.Points) {
				t.Fatalf("encoding does not read back: %v", err)
			}
		})
	}
}

// Only a duration load test's summary carries the series.
func TestOutcomeTimeSeriesOnlyForDuration(t *testing.T) {
	res := []queue.Result{at(100, true, 10), at(1100, false, 20)}
	cases := []struct {
		name string
		tmpl v1alpha1.ArenaJobSpec
		meta queue.Meta
		want bool
	}{
		{"duration load test", v1alpha1.ArenaJobSpec{Type: "loadtest", LoadTest: &v1alpha1.ArenaJobLoadTest{Duration: "1m"}}, queue.Meta{Enqueued: true}, true},
		{"duration load test stopped by its budget", v1alpha1.ArenaJobSpec{Type: "loadtest", BudgetLimit: "1", LoadTest: &v1alpha1.ArenaJobLoadTest{Duration: "1m"}},
			queue.Meta{Enqueued: true, Stopped: true, StopReason: queue.StopBudgetExceeded}, true},
		{"enumerated load test", v1alpha1.ArenaJobSpec{Type: "loadtest", LoadTest: &v1alpha1.ArenaJobLoadTest{}}, queue.Meta{Enqueued: true, Total: 2}, false},
		{"evaluation", v1alpha1.ArenaJobSpec{}, queue.Meta{Enqueued: true, Total: 2}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, _, summary := outcome(&c.tmpl, c.meta, queue.Counters{}, res)
			_, has := summary[keyTimeSeries]
			if has != c.want {
				t.Fatalf("timeSeries present %v, want %v: %v", has, c.want, summary)
			}
			if has && summary[keyTimeSeries] != `[{"t":0,"rps":1,"errorRate":0,"p50":10,"p95":10,"p99":10},{"t":1,"rps":1,"errorRate":1,"p50":20,"p95":20,"p99":20}]` {
				t.Fatalf("timeSeries %s", summary[keyTimeSeries])
			}
		})
	}
}
