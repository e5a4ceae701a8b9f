package agentruntime

import (
	"context"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// External exposure (agentruntime.md § facades[].expose, status.facade.endpoints) and status.a2a's endpoints.
//
// Issue #12 skeleton: the hooks below are called from Reconcile,
// applyWorkload, computeStatus and SetupWithManager; their bodies are the
// group's work.

// ExposureOptions configure the group (cmd/omnia-operator sets them).
type ExposureOptions struct{}

// exposureOutcome is what the group's apply step did, for the status.
type exposureOutcome struct{}

// watchExposure adds the group's watches to the controller.
func (r *Reconciler) watchExposure(b *builder.Builder, _ ctrl.Manager) *builder.Builder { return b }

// setExposureStatus sets the group's conditions and status fields.
func setExposureStatus(_ *v1alpha1.AgentRuntimeStatus, _ *v1alpha1.AgentRuntime, _ statusInput) {}

var _ = context.Background

// applyExposure runs after the Service is applied: one HTTPRoute per
// exposed facade.
func (r *Reconciler) applyExposure(_ context.Context, _ *v1alpha1.AgentRuntime, _ *statusInput) error {
	return nil
}
