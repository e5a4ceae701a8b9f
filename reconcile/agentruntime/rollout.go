package agentruntime

import (
	"context"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// Progressive rollouts (agentruntime.md § rollout, status.rollout): the candidate Deployment, steps, promotion, rollback, RolloutActive and TrafficRouting.
//
// Issue #12 skeleton: the hooks below are called from Reconcile,
// applyWorkload, computeStatus and SetupWithManager; their bodies are the
// group's work.

// RolloutOptions configure the group (cmd/omnia-operator sets them).
type RolloutOptions struct{}

// rolloutOutcome is what the group's apply step did, for the status.
type rolloutOutcome struct{}

// watchRollout adds the group's watches to the controller.
func (r *Reconciler) watchRollout(b *builder.Builder, _ ctrl.Manager) *builder.Builder { return b }

// setRolloutStatus sets the group's conditions and status fields.
func setRolloutStatus(_ *v1alpha1.AgentRuntimeStatus, _ *v1alpha1.AgentRuntime, _ statusInput) {}

var _ = context.Background

// applyRollout runs after the stable Deployment is applied: the candidate
// Deployment, the step machine and the traffic routing.
func (r *Reconciler) applyRollout(_ context.Context, _ *v1alpha1.AgentRuntime, _ *Resolved, _ *statusInput) error {
	return nil
}
