package agentruntime

import (
	"context"

	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/clusterfacts"
	"github.com/altairalabs/omnia/reconcile/enqueue"
	"github.com/altairalabs/omnia/rules"
)

// +kubebuilder:rbac:groups=omnia.altairalabs.ai,resources=workspaces,verbs=get;list;watch

// agentsOfWorkspace maps a Workspace to the AgentRuntimes of the namespace
// it owns: a quota (or any other spec change) re-reconciles them. On an
// update controller-runtime maps the old and the new object, so a
// Workspace moved to another namespace re-reconciles both.
func (r *Reconciler) agentsOfWorkspace(ctx context.Context, o client.Object) []reconcile.Request {
	ws, ok := o.(*v1alpha1.Workspace)
	if !ok || ws.Spec.Namespace.Name == "" {
		return nil
	}
	return enqueue.Listed(ctx, r.client, &v1alpha1.AgentRuntimeList{}, "listing the AgentRuntimes of Workspace "+ws.Name,
		client.InNamespace(ws.Spec.Namespace.Name))
}

// waitingAgentsOnDelete is an AgentRuntime event handler that acts on
// deletions only: a deleted agent frees a slot of its Workspace's
// maxAgentRuntimes, so the agents of its namespace still waiting for one
// (those without a Deployment) are re-reconciled and the next oldest is
// admitted (rules.AgentRuntimeQuota). Nothing is enqueued when the
// namespace's Workspace does not cap its agents.
func (r *Reconciler) waitingAgentsOnDelete() handler.TypedEventHandler[client.Object, reconcile.Request] {
	return handler.Funcs{
		DeleteFunc: func(ctx context.Context, e event.DeleteEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			for _, req := range r.waitingAgents(ctx, e.Object.GetNamespace()) {
				q.Add(req)
			}
		},
	}
}

// waitingAgents are the agents of namespace without a Deployment, when the
// namespace's Workspace sets maxAgentRuntimes.
func (r *Reconciler) waitingAgents(ctx context.Context, namespace string) []reconcile.Request {
	facts := clusterfacts.New(ctx, r.client, r.client, r.mapper, r.opts.License)
	ws, _ := facts.Workspace(namespace)
	if !rules.AgentRuntimeQuotaCountsAgents(ws) {
		return nil
	}
	var reqs []reconcile.Request
	for _, e := range facts.AgentRuntimeQuotaEntries(namespace) {
		if !e.HasDeployment {
			reqs = append(reqs, reconcile.Request{NamespacedName: client.ObjectKey{Namespace: namespace, Name: e.Name}})
		}
	}
	if err := facts.Err(); err != nil {
		logf.FromContext(ctx).Error(err, "listing the agents waiting for a Workspace quota slot", "namespace", namespace)
	}
	return reqs
}
