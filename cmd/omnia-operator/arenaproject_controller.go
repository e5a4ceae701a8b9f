package main

import (
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/altairalabs/omnia/reconcile/arenaproject"
	"github.com/altairalabs/omnia/reconcile/arenaproject/source"
)

// The ArenaProject controller (enterprise: only with --arena): finds each
// project's repository (hosted under --workspace-content-path, or an
// external https URL) and sets Ready, status.defaultBranch and
// status.headCommit, so ArenaRuns can wait for it and pin their commit.
func init() {
	controllerSetups = append(controllerSetups, func(mgr ctrl.Manager) error {
		if !*arenaEnabled {
			ctrl.Log.WithName("arena").V(1).Info("ArenaProject controller not started: --arena is off")
			return nil
		}
		return arenaproject.SetupWithManager(mgr, arenaproject.Options{
			License: licenseStore,
			Source:  arenaSourceConfig(),
		})
	})
}

// arenaSourceConfig is how the Arena controllers reach project
// repositories, from the flags; the ArenaRun controller uses the same.
func arenaSourceConfig() source.Config {
	return source.Config{ContentRoot: *workspaceContentPath, AllowHTTP: *arenaAllowHTTPGit}
}
