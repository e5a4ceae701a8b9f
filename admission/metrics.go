package admission

import (
	"github.com/prometheus/client_golang/prometheus"
)

// Outcome labels of the decision counter.
const (
	OutcomeAllowed = "allowed" // no finding
	OutcomeDenied  = "denied"  // refused (enforce mode, deny finding)
	OutcomeWarned  = "warned"  // admitted with a warning
	OutcomeAudited = "audited" // admitted silently (audit mode), annotated
	OutcomeError   = "error"   // the request could not be evaluated
)

// Metrics are the webhook's Prometheus series.
type Metrics struct {
	// Decisions counts findings (and clean requests, rule "none") by kind,
	// rule ID and outcome.
	Decisions *prometheus.CounterVec
	// Latency is the time from decoded request to response, by kind.
	Latency *prometheus.HistogramVec
}

// NewMetrics creates the series and registers them with reg (the manager's
// registry, the one /metrics serves).
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		Decisions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "omnia_admission_decisions_total",
			Help: "Admission decisions by kind, rule ID and outcome (allowed, denied, warned, audited, error).",
		}, []string{"kind", "rule", "outcome"}),
		Latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "omnia_admission_duration_seconds",
			Help:    "Time to evaluate an admission request, by kind.",
			Buckets: []float64{0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.05, 0.25},
		}, []string{"kind"}),
	}
	if reg != nil {
		reg.MustRegister(m.Decisions, m.Latency)
	}
	return m
}
