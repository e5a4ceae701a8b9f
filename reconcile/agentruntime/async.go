package agentruntime

import (
	"context"

	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// Async invocation (agentruntime.md § facades[].async): the queue Secret copy and AsyncInvocationReady; and the promptPackChannel trigger (rollout_trigger.go).
//
// Issue #12 skeleton: the hooks below are called from Reconcile,
// applyWorkload, computeStatus and SetupWithManager; their bodies are the
// group's work.

// AsyncOptions configure the group (cmd/omnia-operator sets them).
type AsyncOptions struct{}

// asyncOutcome is what the group's apply step did, for the status.
type asyncOutcome struct{}

// watchAsync adds the group's watches to the controller.
func (r *Reconciler) watchAsync(b *builder.Builder, _ ctrl.Manager) *builder.Builder { return b }

// setAsyncStatus sets the group's conditions and status fields.
func setAsyncStatus(_ *v1alpha1.AgentRuntimeStatus, _ *v1alpha1.AgentRuntime, _ statusInput) {}

var _ = context.Background

// prepareAsync runs before the Deployment is built: the async queue
// Secret copy, setting res.AsyncQueue.
func (r *Reconciler) prepareAsync(_ context.Context, _ *v1alpha1.AgentRuntime, _ *Resolved, _ *statusInput) error {
	return nil
}
