package audit

import (
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics of the background audit.
type Metrics struct {
	// Runs counts audits by outcome: ok, error, or too_many_objects.
	Runs *prometheus.CounterVec
	// Duration is how long an audit took.
	Duration prometheus.Histogram
	// Results are the last completed audit's results by outcome (pass,
	// fail, warn, error, skip), every result counted, not only those
	// within a report's cap.
	Results *prometheus.GaugeVec
	// Objects is how many objects the last completed audit judged.
	Objects prometheus.Gauge
	// Writes counts report writes by op: create, update, delete.
	Writes *prometheus.CounterVec
}

// NewMetrics returns the audit's metrics registered with reg (none when
// reg is nil).
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		Runs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "omnia_audit_runs_total",
			Help: "Background audits by outcome (ok, error, too_many_objects).",
		}, []string{"outcome"}),
		Duration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "omnia_audit_duration_seconds",
			Help:    "Time one background audit took: listing, judging every object, building and writing the reports.",
			Buckets: []float64{0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300},
		}),
		Results: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "omnia_audit_results",
			Help: "Results of the last completed background audit by outcome (pass, fail, warn, error, skip).",
		}, []string{"outcome"}),
		Objects: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "omnia_audit_objects",
			Help: "Objects judged by the last completed background audit.",
		}),
		Writes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "omnia_audit_report_writes_total",
			Help: "OpenReports reports written by the background audit, by op (create, update, delete); an unchanged report is not written.",
		}, []string{"op"}),
	}
	if reg != nil {
		reg.MustRegister(m.Runs, m.Duration, m.Results, m.Objects, m.Writes)
	}
	return m
}

// observe records one audit. The results gauges change only when the audit
// got as far as building its reports.
func (m *Metrics) observe(res Result, err error, took time.Duration) {
	if m == nil {
		return
	}
	outcome := "ok"
	switch {
	case errors.Is(err, ErrTooManyObjects):
		outcome = "too_many_objects"
	case err != nil:
		outcome = "error"
	}
	m.Runs.WithLabelValues(outcome).Inc()
	m.Duration.Observe(took.Seconds())
	if res.built {
		s := res.Summary
		m.Results.WithLabelValues("pass").Set(float64(s.Pass))
		m.Results.WithLabelValues("fail").Set(float64(s.Fail))
		m.Results.WithLabelValues("warn").Set(float64(s.Warn))
		m.Results.WithLabelValues("error").Set(float64(s.Error))
		m.Results.WithLabelValues("skip").Set(float64(s.Skip))
		m.Objects.Set(float64(res.Objects))
	}
}

func (m *Metrics) wrote(op string) {
	if m == nil {
		return
	}
	m.Writes.WithLabelValues(op).Inc()
}
