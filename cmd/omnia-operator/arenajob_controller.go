package main

import (
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/altairalabs/omnia/cmd/omnia-operator/arenasetup"
)

// The ArenaJob controller, under --arena: it creates a job's ArenaRuns (once,
// or on every cron tick), applies the concurrency policy, prunes the run
// history and writes the job's scheduling status (on the real clock).
func setupArenaJob(mgr ctrl.Manager, op *operator) error {
	if !op.flags.arena.enabled {
		return nil
	}
	c := op.arenaConfig()
	c.Policies = op.policies
	return arenasetup.SetupJob(mgr, c)
}
