package main

import (
	"flag"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/altairalabs/omnia/reconcile/prober"
)

// Flags of the operator-wide prober that runs the Provider and ToolRegistry
// probes outside the reconcile workers.
var (
	probeWorkers = flag.Int("probe-workers", prober.DefaultWorkers,
		"operator-wide cap on Provider and ToolRegistry probes in flight")
	probePerHost = flag.Int("probe-per-host", prober.DefaultPerHost,
		"cap on probes in flight to one host")
	probePerNamespace = flag.Int("probe-per-namespace", prober.DefaultPerNamespace,
		"cap on probes in flight for the objects of one namespace, so tenants whose endpoints hang leave the others workers (0: the default, at most half of --probe-workers)")
	probeQueueSize = flag.Int("probe-queue-size", prober.DefaultQueueSize,
		"probe jobs that may wait; beyond it a probe is dropped (omnia_prober_dropped_total) and retried later")
	probeMaxQueuedPerNamespace = flag.Int("probe-max-queued-per-namespace", 0,
		"probe jobs one namespace may have waiting; beyond it that namespace's probes are dropped (omnia_prober_dropped_total) while other namespaces' are still queued (0: the default, max(--probe-queue-size/8, 16))")
	probeMaxTimeout = flag.Duration("probe-max-timeout", prober.DefaultMaxTimeout,
		"cut every probe at this duration, whatever its object asks")
)

// sharedProber is the one prober the controllers submit to, created on first
// use after flag parsing.
var sharedProber *prober.Prober

// probeRunner returns the shared prober, creating it and adding it to mgr
// (as a leader-election runnable: it runs where the controllers run) on the
// first call.
func probeRunner(mgr ctrl.Manager) (*prober.Prober, error) {
	if sharedProber != nil {
		return sharedProber, nil
	}
	p := prober.New(prober.Options{
		Workers:      *probeWorkers,
		PerHost:      *probePerHost,
		PerNamespace: *probePerNamespace,
		QueueSize:    *probeQueueSize,
		MaxTimeout:   *probeMaxTimeout,
		Metrics:      prober.NewMetrics(metrics.Registry),

		MaxQueuedPerNamespace: *probeMaxQueuedPerNamespace,
	})
	if err := mgr.Add(p); err != nil {
		return nil, err
	}
	sharedProber = p
	return p, nil
}
