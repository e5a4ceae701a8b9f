package main

import (
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/altairalabs/omnia/reconcile/provider"
)

// The Provider controller, with its default options: the real clock, probes
// every 30s with a 10s timeout, Unavailable after 5 minutes of endpoint
// failures.
func init() {
	controllerSetups = append(controllerSetups, func(mgr ctrl.Manager) error {
		return provider.SetupWithManager(mgr, provider.Options{})
	})
}
