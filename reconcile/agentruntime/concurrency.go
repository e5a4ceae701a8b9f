package agentruntime

import "sigs.k8s.io/controller-runtime/pkg/controller"

// DefaultMaxConcurrentReconciles is how many agents the controller
// reconciles at once by default. A reconcile is I/O-bound: its CPU is about
// a millisecond, the rest is waiting on the API server (a Secret read, up to
// five server-side applies, three of them in parallel, a status patch), so one
// worker leaves the operator idle while the API server answers. With eight,
// 1,000 agents created at once are worked through in parallel on two cores;
// each agent is still reconciled by one worker at a time (the workqueue
// never hands out a key that is being processed). More workers only help
// while the API server has headroom.
const DefaultMaxConcurrentReconciles = 8

// controllerOptions are the controller-runtime options: the worker count.
func controllerOptions(opts Options) controller.Options {
	n := opts.MaxConcurrentReconciles
	if n <= 0 {
		n = DefaultMaxConcurrentReconciles
	}
	return controller.Options{MaxConcurrentReconciles: n}
}
