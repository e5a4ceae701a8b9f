package main

import (
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/altairalabs/omnia/reconcile/arenajob"
)

// The ArenaJob controller, under --arena: it creates a job's ArenaRuns (once,
// or on every cron tick), applies the concurrency policy, prunes the run
// history and writes the job's scheduling status.
func init() {
	controllerSetups = append(controllerSetups, func(mgr ctrl.Manager) error {
		if !*arenaEnabled {
			return nil
		}
		return arenajob.SetupWithManager(mgr, arenajob.Options{License: licenseStore})
	})
}
