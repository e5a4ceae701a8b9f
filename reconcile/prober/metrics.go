package prober

import "github.com/prometheus/client_golang/prometheus"

// Metrics are the prober's Prometheus series. A nil *Metrics records
// nothing.
type Metrics struct {
	// Probes counts finished probes by result: "answered" (an HTTP
	// response or an accepted connection that does not back off) or
	// "failed" (no answer, 429, 5xx).
	Probes *prometheus.CounterVec
	// Dropped counts jobs refused because the queue was full.
	Dropped prometheus.Counter
	// Deferred counts submissions held back by a target's backoff.
	Deferred prometheus.Counter
	// Queued and InFlight are the jobs waiting and running.
	Queued, InFlight prometheus.Gauge
}

// NewMetrics creates the series and registers them with reg (the manager's
// registry) when it is not nil.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		Probes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "omnia_prober_probes_total",
			Help: "Finished probes by result (answered, failed).",
		}, []string{"result"}),
		Dropped: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "omnia_prober_dropped_total",
			Help: "Probe jobs dropped because the prober's queue was full; the target stays not probed yet.",
		}),
		Deferred: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "omnia_prober_deferred_total",
			Help: "Probe submissions held back by the target's backoff or a 429's Retry-After.",
		}),
		Queued: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "omnia_prober_queued",
			Help: "Probe jobs waiting for a worker.",
		}),
		InFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "omnia_prober_in_flight",
			Help: "Probes running.",
		}),
	}
	if reg != nil {
		reg.MustRegister(m.Probes, m.Dropped, m.Deferred, m.Queued, m.InFlight)
	}
	return m
}

func (m *Metrics) probed(o Outcome) {
	if m == nil {
		return
	}
	result := "answered"
	if o.failed() {
		result = "failed"
	}
	m.Probes.WithLabelValues(result).Inc()
}

func (m *Metrics) dropped() {
	if m != nil {
		m.Dropped.Inc()
	}
}

func (m *Metrics) deferred() {
	if m != nil {
		m.Deferred.Inc()
	}
}

func (m *Metrics) setQueued(n int) {
	if m != nil {
		m.Queued.Set(float64(n))
	}
}

func (m *Metrics) setInFlight(n int) {
	if m != nil {
		m.InFlight.Set(float64(n))
	}
}
