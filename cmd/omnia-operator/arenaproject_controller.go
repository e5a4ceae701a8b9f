package main

import (
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/altairalabs/omnia/cmd/omnia-operator/arenasetup"
)

// The ArenaProject controller (enterprise: only with --arena): finds each
// project's repository (hosted under --workspace-content-path, or an
// external https URL) and sets Ready, status.defaultBranch and
// status.headCommit, so ArenaRuns can wait for it and pin their commit.
func setupArenaProject(mgr ctrl.Manager, op *operator) error {
	if !op.flags.arena.enabled {
		ctrl.Log.WithName("arena").V(1).Info("ArenaProject controller not started: --arena is off")
		return nil
	}
	c := op.arenaConfig()
	var err error
	if c.Fetcher, err = op.arenaFetcher(mgr); err != nil {
		return err
	}
	return arenasetup.SetupProject(mgr, c)
}
