package validationpolicy

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the policy evaluation series, fed by policies.Options.Observe
// (Observe): every evaluation of a policy rule, by the webhook, the
// reconcilers or the background audit. Their labels are bounded by the
// policies in the cluster, never by objects.
type Metrics struct {
	// Evaluations counts rule evaluations by policy, language (cel, rego)
	// and result (ok, error: a runtime cost or time limit, a Rego error).
	Evaluations *prometheus.CounterVec
	// Duration is one rule evaluation's latency by policy and language.
	Duration *prometheus.HistogramVec
}

// Evaluation results.
const (
	ResultOK    = "ok"
	ResultError = "error"
)

// NewMetrics creates the series and registers them with reg (the manager's
// registry, the one /metrics serves); nil registers nothing.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		Evaluations: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "omnia_policy_evaluations_total",
			Help: "Evaluations of ValidationPolicy rules by policy, language (cel, rego) and result (ok, error).",
		}, []string{"policy", "language", "result"}),
		Duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "omnia_policy_evaluation_duration_seconds",
			Help:    "Time to evaluate one ValidationPolicy rule on one object, by policy and language.",
			Buckets: []float64{0.00001, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.01, 0.05, 0.1, 0.5},
		}, []string{"policy", "language"}),
	}
	if reg != nil {
		reg.MustRegister(m.Evaluations, m.Duration)
	}
	return m
}

// Observe records one evaluation; it is a policies.Observer.
func (m *Metrics) Observe(policy, language string, took time.Duration, failed bool) {
	result := ResultOK
	if failed {
		result = ResultError
	}
	m.Evaluations.WithLabelValues(policy, language, result).Inc()
	m.Duration.WithLabelValues(policy, language).Observe(took.Seconds())
}
