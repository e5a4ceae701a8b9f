package admission

import (
	"github.com/prometheus/client_golang/prometheus"
)

// Outcome labels. A decision is one request's answer; a finding's outcome is
// what became of that one finding.
const (
	OutcomeAllowed = "allowed" // decision: admitted with nothing to report
	OutcomeDenied  = "denied"  // decision: refused; finding: refused it (enforce mode, deny finding)
	OutcomeWarned  = "warned"  // decision: admitted with warnings; finding: a warning
	OutcomeAudited = "audited" // decision: admitted silently (audit mode), annotated; finding: annotated
	OutcomeError   = "error"   // decision: the request could not be evaluated
	// OutcomeExcluded is a decision on a request in the excluded namespace:
	// admitted without evaluation.
	OutcomeExcluded = "excluded"
	// OutcomeRatcheted is a finding's outcome in enforce mode when its rule
	// would deny but the update ratchet let it through as a warning.
	OutcomeRatcheted = "ratcheted"
)

// Metrics are the webhook's Prometheus series.
type Metrics struct {
	// Decisions counts requests, one per request, by kind and outcome
	// (allowed, denied, warned, audited, error, excluded).
	Decisions *prometheus.CounterVec
	// Findings counts findings by kind, rule ID and outcome (denied, warned,
	// audited, ratcheted). A request can carry any number of them.
	Findings *prometheus.CounterVec
	// Latency is the time from decoded request to response, by kind.
	Latency *prometheus.HistogramVec
}

// NewMetrics creates the series and registers them with reg (the manager's
// registry, the one /metrics serves).
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		Decisions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "omnia_admission_decisions_total",
			Help: "Admission decisions, one per request, by kind and outcome (allowed, denied, warned, audited, error, excluded).",
		}, []string{"kind", "outcome"}),
		Findings: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "omnia_admission_findings_total",
			Help: "Findings of admission requests by kind, rule ID and outcome (denied, warned, audited, ratcheted).",
		}, []string{"kind", "rule", "outcome"}),
		Latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "omnia_admission_duration_seconds",
			Help:    "Time to evaluate an admission request, by kind.",
			Buckets: []float64{0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.05, 0.25},
		}, []string{"kind"}),
	}
	if reg != nil {
		reg.MustRegister(m.Decisions, m.Findings, m.Latency)
	}
	return m
}
