package arenarun

import (
	"math"
	"regexp"
	"sort"
	"strconv"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/arena/queue"
	"github.com/altairalabs/omnia/rules"
)

// Threshold verdicts (arenajob.md § loadTest.thresholds).
const (
	verdictUnavailable = "unavailable"
	verdictParseError  = "parse error"
)

// rateLimitPattern: an error text naming a rate limit, or a standalone 429.
var rateLimitPattern = regexp.MustCompile(`(?i)rate.?limit|too many requests|quota exceeded|resource exhausted|overloaded|\b429\b`)

// measured is a metric's value: a duration (ms) for latency/TTFT, a
// ratio or a cost otherwise; ok false when nobody could measure it.
type measured struct {
	value float64
	ok    bool
}

// loadTestMetrics computes every threshold metric from the run's results.
// Percentiles need a distribution: a load test keeps one with a duration, or
// with concurrency or vusPerWorker above 1; a sequential one reports them
// unavailable. arrival_lag needs a rate.
func loadTestMetrics(lt *v1alpha1.ArenaJobLoadTest, results []queue.Result, c queue.Counters) map[v1alpha1.ArenaJobThresholdMetric]measured {
	m := map[v1alpha1.ArenaJobThresholdMetric]measured{}
	n := float64(len(results))
	distribution := lt != nil && (lt.Duration != "" ||
		(lt.Concurrency != nil && *lt.Concurrency > 1) || (lt.VUsPerWorker != nil && *lt.VUsPerWorker > 1))
	var lat, ttft []float64
	var failed, passed, limited float64
	for _, r := range results {
		lat = append(lat, itemLatency(r))
		if r.TTFTMs > 0 {
			ttft = append(ttft, r.TTFTMs)
		}
		if r.Passed {
			passed++
		} else {
			failed++
		}
		if r.Error != "" && rateLimitPattern.MatchString(r.Error) {
			limited++
		}
	}
	if n > 0 {
		m[v1alpha1.ArenaJobMetricErrorRate] = measured{failed / n, true}
		m[v1alpha1.ArenaJobMetricPassRate] = measured{passed / n, true}
		m[v1alpha1.ArenaJobMetricRateLimitRate] = measured{limited / n, true}
		m[v1alpha1.ArenaJobMetricLatencyAvg] = measured{mean(lat), true}
	}
	if len(ttft) > 0 {
		m[v1alpha1.ArenaJobMetricTTFTAvg] = measured{mean(ttft), true}
	}
	if distribution {
		for metric, p := range map[v1alpha1.ArenaJobThresholdMetric]float64{
			v1alpha1.ArenaJobMetricLatencyP50: 50, v1alpha1.ArenaJobMetricLatencyP90: 90,
			v1alpha1.ArenaJobMetricLatencyP95: 95, v1alpha1.ArenaJobMetricLatencyP99: 99,
		} {
			if len(lat) > 0 {
				m[metric] = measured{percentile(lat, p), true}
			}
		}
		for metric, p := range map[v1alpha1.ArenaJobThresholdMetric]float64{
			v1alpha1.ArenaJobMetricTTFTP50: 50, v1alpha1.ArenaJobMetricTTFTP90: 90,
			v1alpha1.ArenaJobMetricTTFTP95: 95, v1alpha1.ArenaJobMetricTTFTP99: 99,
		} {
			if len(ttft) > 0 {
				m[metric] = measured{percentile(ttft, p), true}
			}
		}
	}
	cost := c.Cost
	if cost == 0 {
		for _, r := range results {
			cost += r.Cost
		}
	}
	m[v1alpha1.ArenaJobMetricTotalCost] = measured{cost, true}
	if lt != nil && lt.Rate != nil && c.ArrivalsOffered > 0 {
		m[v1alpha1.ArenaJobMetricArrivalLag] = measured{float64(c.ArrivalsMissed) / float64(c.ArrivalsOffered), true}
	}
	return m
}

// evaluateThresholds judges each threshold and returns the summary entries
// (threshold:<metric>, thresholds_passed) and whether any failed. An
// unavailable metric passes; a value that cannot be read fails.
func evaluateThresholds(ths []v1alpha1.ArenaJobLoadTestThreshold, m map[v1alpha1.ArenaJobThresholdMetric]measured) (map[string]string, bool) {
	if len(ths) == 0 {
		return nil, false
	}
	out := map[string]string{}
	passedCount, failed := 0, false
	for _, th := range ths {
		key := "threshold:" + string(th.Metric)
		target, isDuration, problem := rules.ArenaJobThresholdTarget(th.Metric, th.Value)
		if problem != "" {
			out[key] = verdictParseError
			failed = true
			continue
		}
		got := m[th.Metric]
		if !got.ok {
			out[key] = verdictUnavailable
			passedCount++
			continue
		}
		pass := compare(got.value, th.Operator, target)
		verdict := "FAIL"
		if pass {
			verdict = "PASS"
			passedCount++
		} else {
			failed = true
		}
		out[key] = formatMeasured(got.value, isDuration) + " " + string(th.Operator) + " " + th.Value + " " + verdict
	}
	out["thresholds_passed"] = strconv.Itoa(passedCount) + "/" + strconv.Itoa(len(ths)) + " passed"
	return out, failed
}

func compare(got float64, op v1alpha1.ArenaJobThresholdOperator, target float64) bool {
	switch op {
	case v1alpha1.ArenaJobOperatorLess:
		return got < target
	case v1alpha1.ArenaJobOperatorGreater:
		return got > target
	case v1alpha1.ArenaJobOperatorLessEqual:
		return got <= target
	case v1alpha1.ArenaJobOperatorGreaterEqual:
		return got >= target
	}
	return false
}

// formatMeasured writes a duration in seconds with two decimals ("3.20s"),
// anything else with four ("0.0150").
func formatMeasured(v float64, isDuration bool) string {
	if isDuration {
		return strconv.FormatFloat(v/1000, 'f', 2, 64) + "s"
	}
	return strconv.FormatFloat(v, 'f', 4, 64)
}

// itemLatency is an item's latency: the time the system under test spent
// answering, or the whole item when the worker reported none.
func itemLatency(r queue.Result) float64 {
	if r.LatencyMs > 0 {
		return r.LatencyMs
	}
	return r.DurationMs
}

func mean(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// percentile is the nearest-rank percentile of xs.
func percentile(xs []float64, p float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	rank := int(math.Ceil(p/100*float64(len(s)))) - 1
	if rank < 0 {
		rank = 0
	}
	return s[rank]
}
