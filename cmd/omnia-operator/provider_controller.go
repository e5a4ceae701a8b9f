package main

import (
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/altairalabs/omnia/reconcile/provider"
)

// The Provider controller, with its default options: the real clock, probes
// every 30s with a 10s timeout (run on the shared prober), Unavailable after
// 5 minutes of endpoint failures.
func init() {
	controllerSetups = append(controllerSetups, func(mgr ctrl.Manager) error {
		probes, err := probeRunner(mgr)
		if err != nil {
			return err
		}
		return provider.SetupWithManager(mgr, provider.Options{Prober: probes})
	})
}
