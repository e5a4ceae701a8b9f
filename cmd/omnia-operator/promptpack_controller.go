package main

import (
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/altairalabs/omnia/reconcile/ctrlopts"
	"github.com/altairalabs/omnia/reconcile/promptpack"
)

// The PromptPack controller: status.phase (Ready or Invalid) and conditions
// from the source rules' findings, so an agent's PromptPackReady needs no
// other component on a fresh cluster.
func setupPromptPack(mgr ctrl.Manager, op *operator) error {
	return promptpack.SetupWithManager(mgr, promptpack.Options{Common: ctrlopts.Common{License: op.license, MaxConcurrentReconciles: op.flags.workers.promptPack},
		Policies: op.policies})
}
