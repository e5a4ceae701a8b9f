package main

import (
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/altairalabs/omnia/reconcile/ctrlopts"
	"github.com/altairalabs/omnia/reconcile/toolregistry"
)

// The ToolRegistry controller: status, conditions and phase from rule
// findings, TCP reachability probes (on the shared prober) when spec.probe
// is on, and the ToolPolicies selecting each registry.
func setupToolRegistry(mgr ctrl.Manager, op *operator) error {
	probes, err := op.probeRunner(mgr)
	if err != nil {
		return err
	}
	return toolregistry.SetupWithManager(mgr, toolregistry.Options{Prober: probes, Common: ctrlopts.Common{License: op.license}, Policies: op.policies})
}
