package main

import (
	"flag"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/altairalabs/omnia/reconcile/prober"
)

// proberFlags are the flags of the operator-wide prober that runs the
// Provider and ToolRegistry probes outside the reconcile workers.
type proberFlags struct {
	workers               int
	perHost               int
	perNamespace          int
	queueSize             int
	maxQueuedPerNamespace int
	maxTimeout            time.Duration
}

func (f *proberFlags) bind(fs *flag.FlagSet) {
	fs.IntVar(&f.workers, "probe-workers", prober.DefaultWorkers,
		"operator-wide cap on Provider and ToolRegistry probes in flight")
	fs.IntVar(&f.perHost, "probe-per-host", prober.DefaultPerHost,
		"cap on probes in flight to one host")
	fs.IntVar(&f.perNamespace, "probe-per-namespace", prober.DefaultPerNamespace,
		"cap on probes in flight for the objects of one namespace, so tenants whose endpoints hang leave the others workers (0: the default, at most half of --probe-workers)")
	fs.IntVar(&f.queueSize, "probe-queue-size", prober.DefaultQueueSize,
		"probe jobs that may wait; beyond it a probe is dropped (omnia_prober_dropped_total) and retried later")
	fs.IntVar(&f.maxQueuedPerNamespace, "probe-max-queued-per-namespace", 0,
		"probe jobs one namespace may have waiting; beyond it that namespace's probes are dropped (omnia_prober_dropped_total) while other namespaces' are still queued (0: the default, max(--probe-queue-size/8, 16))")
	fs.DurationVar(&f.maxTimeout, "probe-max-timeout", prober.DefaultMaxTimeout,
		"cut every probe at this duration, whatever its object asks")
}

// options are the prober's options from the flags.
func (f proberFlags) options() prober.Options {
	return prober.Options{
		Workers:      f.workers,
		PerHost:      f.perHost,
		PerNamespace: f.perNamespace,
		QueueSize:    f.queueSize,
		MaxTimeout:   f.maxTimeout,
		Metrics:      prober.NewMetrics(metrics.Registry),

		MaxQueuedPerNamespace: f.maxQueuedPerNamespace,
	}
}

// probeRunner returns the operator's one prober, creating it and adding it
// to mgr (as a leader-election runnable: it runs where the controllers run)
// on the first call.
func (op *operator) probeRunner(mgr ctrl.Manager) (*prober.Prober, error) {
	if op.prober != nil {
		return op.prober, nil
	}
	p := prober.New(op.flags.prober.options())
	if err := mgr.Add(p); err != nil {
		return nil, err
	}
	op.prober = p
	return p, nil
}
