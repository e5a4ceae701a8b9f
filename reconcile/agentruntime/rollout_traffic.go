package agentruntime

import (
	"context"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// Traffic routing of a rollout (agentruntime.md § rollout.trafficRouting):
// how a step's weight is delivered. The step machine (rollout.go) calls
// routeTraffic with the weight it wants on the candidate; this file
// resolves the mode and delivers it.
//
// Issue #12 skeleton: until mesh and external routing land, every rollout
// resolves to replicaWeighted.

// trafficOutcome is what routeTraffic did.
type trafficOutcome struct {
	// Mode is the mode actually in use (status.rollout.trafficRoutingMode).
	Mode v1alpha1.AgentRuntimeTrafficRoutingMode
	// Requested is the mode the spec asked for, resolved from the spec
	// alone (mode, or external when only istio is set); "" when unset.
	Requested v1alpha1.AgentRuntimeTrafficRoutingMode
	// Enforced is false when the weight is approximated by the replica
	// ratio (status.rollout.trafficWeightEnforced).
	Enforced bool
	// Degraded says why Mode differs from Requested; "" when it does not.
	Degraded string
}

// routeTraffic delivers weight (0–100) to the candidate. With
// replicaWeighted it only reports the mode: the step machine sets the
// replica ratio itself.
func (r *Reconciler) routeTraffic(_ context.Context, _ *v1alpha1.AgentRuntime, _ int32, _ *statusInput) (trafficOutcome, error) {
	return trafficOutcome{Mode: "replicaWeighted"}, nil
}

// releaseTraffic returns every request to stable and removes what
// routeTraffic created (end of a rollout: promotion or rollback).
func (r *Reconciler) releaseTraffic(_ context.Context, _ *v1alpha1.AgentRuntime, _ *statusInput) error {
	return nil
}
