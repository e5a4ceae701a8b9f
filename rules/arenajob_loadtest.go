package rules

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// ArenaJob load-test rules: the checks the admission webhook makes on
// spec.loadTest (arenajob.md#loadtestthresholds, last paragraph). The
// schema already enforces the metric and operator enums and rate's minimum.

func init() {
	Default.Register(Rule{
		ID:       "arenajob/threshold-value-format",
		Kinds:    arenaJobKinds,
		Stage:    StageAdmission,
		Severity: SeverityDeny,
		Doc: "Each spec.loadTest.thresholds[].value must be in its metric's form: a non-negative duration for latency_*/ttft_*, " +
			"a number between 0 and 1 for error_rate, pass_rate, rate_limit_rate and arrival_lag, a non-negative number for total_cost.",
		Spec:  "arenajob.md#loadtestthresholds",
		Check: checkArenaJobThresholdValues,
	})
	Default.Register(Rule{
		ID:       "arenajob/loadtest-rate-needs-duration",
		Kinds:    arenaJobKinds,
		Stage:    StageAdmission,
		Severity: SeverityDeny,
		Doc:      "spec.loadTest.rate selects the open model and requires spec.loadTest.duration.",
		Spec:     "arenajob.md#loadtestrate-offered-arrivals-instead-of-a-ceiling",
		Check:    checkArenaJobRateNeedsDuration,
	})
	Default.Register(Rule{
		ID:       "arenajob/loadtest-duration-invalid",
		Kinds:    arenaJobKinds,
		Stage:    StageAdmission,
		Severity: SeverityDeny,
		Doc:      "spec.loadTest.duration, when set, must be a positive Go duration string such as \"10m\".",
		Spec:     "arenajob.md#loadtestduration-a-clock-instead-of-a-matrix",
		Check:    checkArenaJobLoadTestDuration,
	})
	Default.Register(Rule{
		ID:       "arenajob/loadtest-ramp-invalid",
		Kinds:    arenaJobKinds,
		Stage:    StageAdmission,
		Severity: SeverityDeny,
		Doc:      "spec.loadTest.ramp.up and ramp.down, when set, must be non-negative Go duration strings such as \"2m\" or \"30s\".",
		Spec:     "arenajob.md#loadtestramp",
		Check:    checkArenaJobLoadTestRamp,
	})
}

// arenaJobMetricForm is the form of a threshold metric's value.
type arenaJobMetricForm int

const (
	arenaJobFormDuration arenaJobMetricForm = iota + 1
	arenaJobFormFraction
	arenaJobFormNumber
)

// arenaJobMetricForms maps every threshold metric the spec lists to the form
// of its value. A metric not listed here is refused by the schema's enum.
var arenaJobMetricForms = map[v1alpha1.ArenaJobThresholdMetric]arenaJobMetricForm{
	v1alpha1.ArenaJobMetricLatencyAvg:    arenaJobFormDuration,
	v1alpha1.ArenaJobMetricLatencyP50:    arenaJobFormDuration,
	v1alpha1.ArenaJobMetricLatencyP90:    arenaJobFormDuration,
	v1alpha1.ArenaJobMetricLatencyP95:    arenaJobFormDuration,
	v1alpha1.ArenaJobMetricLatencyP99:    arenaJobFormDuration,
	v1alpha1.ArenaJobMetricTTFTAvg:       arenaJobFormDuration,
	v1alpha1.ArenaJobMetricTTFTP50:       arenaJobFormDuration,
	v1alpha1.ArenaJobMetricTTFTP90:       arenaJobFormDuration,
	v1alpha1.ArenaJobMetricTTFTP95:       arenaJobFormDuration,
	v1alpha1.ArenaJobMetricTTFTP99:       arenaJobFormDuration,
	v1alpha1.ArenaJobMetricErrorRate:     arenaJobFormFraction,
	v1alpha1.ArenaJobMetricPassRate:      arenaJobFormFraction,
	v1alpha1.ArenaJobMetricRateLimitRate: arenaJobFormFraction,
	v1alpha1.ArenaJobMetricArrivalLag:    arenaJobFormFraction,
	v1alpha1.ArenaJobMetricTotalCost:     arenaJobFormNumber,
}

func checkArenaJobThresholdValues(in Input) field.ErrorList {
	spec, base, _ := arenaJobSpecOf(in)
	if spec == nil || spec.LoadTest == nil || len(spec.LoadTest.Thresholds) == 0 {
		return nil
	}
	var errs field.ErrorList
	for i, t := range spec.LoadTest.Thresholds {
		if _, known := arenaJobMetricForms[t.Metric]; !known {
			continue
		}
		if _, _, detail := ArenaJobThresholdTarget(t.Metric, t.Value); detail != "" {
			p := base.Child("loadTest", "thresholds").Index(i).Child("value")
			errs = append(errs, field.Invalid(p, t.Value, detail))
		}
	}
	return errs
}

// ArenaJobThresholdTarget reads a threshold value in its metric's form
// (arenajob.md#loadtestthresholds): the target, in milliseconds for a
// duration metric (latency_*, ttft_*: isDuration), a ratio in [0,1] for the
// rates, a non-negative number for total_cost. problem is "" when the value
// is in its form, else what is wrong with it. The webhook's
// arenajob/threshold-value-format and the ArenaRun controller's evaluation
// (which reports such a value as "parse error" and fails the run) both read
// values through it. A metric the spec does not list is a problem too (the
// schema's enum refuses it).
func ArenaJobThresholdTarget(metric v1alpha1.ArenaJobThresholdMetric, value string) (target float64, isDuration bool, problem string) {
	switch arenaJobMetricForms[metric] {
	case arenaJobFormDuration:
		d, err := time.ParseDuration(value)
		if err == nil && d >= 0 {
			return float64(d) / float64(time.Millisecond), true, ""
		}
		return 0, true, fmt.Sprintf("threshold metric %s needs a non-negative duration string with a unit, such as \"3s\" or \"500ms\"; %q is not one", metric, value)
	case arenaJobFormFraction:
		f, err := strconv.ParseFloat(value, 64)
		if err == nil && f >= 0 && f <= 1 {
			return f, false, ""
		}
		return 0, false, fmt.Sprintf("threshold metric %s is a ratio and needs a number between 0 and 1, such as \"0.01\" or \"0.95\"; %q is not one (a target outside 0..1 would pass or fail every run)", metric, value)
	case arenaJobFormNumber:
		f, err := strconv.ParseFloat(value, 64)
		if err == nil && f >= 0 && !math.IsInf(f, 0) {
			return f, false, ""
		}
		return 0, false, fmt.Sprintf("threshold metric %s needs a non-negative number in budgetCurrency, such as \"50.00\"; %q is not one", metric, value)
	}
	return 0, false, fmt.Sprintf("%s is not a threshold metric", metric)
}

func checkArenaJobRateNeedsDuration(in Input) field.ErrorList {
	spec, base, _ := arenaJobSpecOf(in)
	if spec == nil || spec.LoadTest == nil || spec.LoadTest.Rate == nil || spec.LoadTest.Duration != "" {
		return nil
	}
	lt := base.Child("loadTest")
	return field.ErrorList{field.Required(lt.Child("duration"), fmt.Sprintf(
		"%s (%d arrivals a second) selects the open model, which runs for a fixed time and requires %s: set a duration such as \"10m\", or remove rate to drive load by concurrency",
		lt.Child("rate"), *spec.LoadTest.Rate, lt.Child("duration")))}
}

func checkArenaJobLoadTestDuration(in Input) field.ErrorList {
	spec, base, _ := arenaJobSpecOf(in)
	if spec == nil || spec.LoadTest == nil || spec.LoadTest.Duration == "" {
		return nil
	}
	d, err := time.ParseDuration(spec.LoadTest.Duration)
	if err == nil && d > 0 {
		return nil
	}
	p := base.Child("loadTest", "duration")
	return field.ErrorList{field.Invalid(p, spec.LoadTest.Duration, fmt.Sprintf(
		"%s must be a positive duration string with a unit, such as \"10m\" or \"90s\"; remove it to size the test by trials instead", p))}
}

func checkArenaJobLoadTestRamp(in Input) field.ErrorList {
	spec, base, _ := arenaJobSpecOf(in)
	if spec == nil || spec.LoadTest == nil || spec.LoadTest.Ramp == nil {
		return nil
	}
	ramp := base.Child("loadTest", "ramp")
	var errs field.ErrorList
	for _, f := range [...]struct {
		name, value string
	}{{"up", spec.LoadTest.Ramp.Up}, {"down", spec.LoadTest.Ramp.Down}} {
		if f.value == "" {
			continue
		}
		if d, err := time.ParseDuration(f.value); err == nil && d >= 0 {
			continue
		}
		p := ramp.Child(f.name)
		errs = append(errs, field.Invalid(p, f.value, fmt.Sprintf(
			"%s must be a non-negative duration string with a unit, such as \"2m\" or \"30s\"", p)))
	}
	return errs
}
