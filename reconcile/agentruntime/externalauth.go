package agentruntime

import (
	"context"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// External auth (agentruntime.md § externalAuth): the ExternalAuth condition, OIDC JWKS mirroring (OIDCJWKSReady).
//
// Issue #12 skeleton: the hooks below are called from Reconcile,
// applyWorkload, computeStatus and SetupWithManager; their bodies are the
// group's work.

// ExternalAuthOptions configure the group (cmd/omnia-operator sets them).
type ExternalAuthOptions struct{}

// externalAuthOutcome is what the group's apply step did, for the status.
type externalAuthOutcome struct{}

// watchExternalAuth adds the group's watches to the controller.
func (r *Reconciler) watchExternalAuth(b *builder.Builder, _ ctrl.Manager) *builder.Builder { return b }

// setExternalAuthStatus sets the group's conditions and status fields.
func setExternalAuthStatus(_ *v1alpha1.AgentRuntimeStatus, _ *v1alpha1.AgentRuntime, _ statusInput) {}

var _ = context.Background

// prepareExternalAuth runs before the Deployment is built: the JWKS
// Secret, and what the facade is given.
func (r *Reconciler) prepareExternalAuth(_ context.Context, _ *v1alpha1.AgentRuntime, _ *Resolved, _ *statusInput) error {
	return nil
}
