package agentruntime

import (
	"context"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/clusterfacts"
)

// triggerRollout is rollout.trigger.promptPackChannel: a version newer than
// the active one on the channel becomes spec.rollout.candidate. It runs
// before resolve; stop is true when it wrote the spec (the write itself
// re-reconciles the agent).
func (r *Reconciler) triggerRollout(_ context.Context, _ *v1alpha1.AgentRuntime, _ *clusterfacts.Facts) (stop bool, err error) {
	return false, nil
}
