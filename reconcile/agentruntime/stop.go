package agentruntime

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/agentruntime/workload"
)

// stopWorkload deletes the agent's Deployments (the stable one and a
// rollout's candidate) when the agent must not run at all: a Provider in
// another namespace fails the agent "and has its Deployments stopped"
// (provider.md § Cross-namespace references are refused). Deleting, not
// scaling to zero, is what stops them whatever scales them (an HPA or KEDA
// would scale a zero back up); the next apply, once the reference is
// fixed, creates them again. Only Deployments the agent controls are
// deleted.
func (r *Reconciler) stopWorkload(ctx context.Context, ar *v1alpha1.AgentRuntime) error {
	for _, name := range []string{workload.DeploymentName(ar), workload.CandidateDeploymentName(ar)} {
		if err := r.deleteOwned(ctx, ar, &appsv1.Deployment{}, name); err != nil {
			return err
		}
	}
	return nil
}
