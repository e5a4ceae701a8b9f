package rules

import (
	"testing"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

func TestArenaJobThresholdTarget(t *testing.T) {
	cases := []struct {
		metric     v1alpha1.ArenaJobThresholdMetric
		value      string
		target     float64
		isDuration bool
		ok         bool
	}{
		{v1alpha1.ArenaJobMetricLatencyP95, "3s", 3000, true, true},
		{v1alpha1.ArenaJobMetricTTFTAvg, "500ms", 500, true, true},
		{v1alpha1.ArenaJobMetricLatencyP95, "0s", 0, true, true},
		{v1alpha1.ArenaJobMetricLatencyP95, "3", 0, true, false},
		{v1alpha1.ArenaJobMetricLatencyP95, "-1s", 0, true, false},
		{v1alpha1.ArenaJobMetricErrorRate, "0.01", 0.01, false, true},
		{v1alpha1.ArenaJobMetricPassRate, "1", 1, false, true},
		{v1alpha1.ArenaJobMetricPassRate, "1.5", 0, false, false},
		{v1alpha1.ArenaJobMetricArrivalLag, "NaN", 0, false, false},
		{v1alpha1.ArenaJobMetricRateLimitRate, "5%", 0, false, false},
		{v1alpha1.ArenaJobMetricTotalCost, "50.00", 50, false, true},
		{v1alpha1.ArenaJobMetricTotalCost, "-1", 0, false, false},
		{v1alpha1.ArenaJobMetricTotalCost, "+Inf", 0, false, false},
		{"throughput", "10", 0, false, false},
	}
	for _, c := range cases {
		target, isDuration, problem := ArenaJobThresholdTarget(c.metric, c.value)
		if (problem == "") != c.ok || target != c.target || isDuration != c.isDuration {
			t.Errorf("%s %q: got %v %v %q, want %v %v ok=%v", c.metric, c.value, target, isDuration, problem, c.target, c.isDuration, c.ok)
		}
	}
}
