package agentruntime

import (
	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/clusterfacts"
	"github.com/altairalabs/omnia/rules"
)

// applyWorkspaceQuota applies the Workspace's spec.quotas.agents to the
// plan (agentruntime.md#conditions, WithinWorkspaceQuota). The decision is
// rules.AgentRuntimeQuota's (the oldest agents are admitted first; one
// that has its Deployment stays admitted); here it only takes effect:
//
//   - not admitted: the plan is held, so nothing is created for the agent
//     (it has no Deployment, or it would have been admitted);
//   - maxReplicasPerAgent set: Resolved.ReplicaCap, which the Deployment
//     builder clamps static replicas to (an autoscaler's bounds must honour
//     it too);
//   - the verdict goes to the status (quota_status.go).
//
// The namespace's agents are read only when the Workspace caps their
// number. A failed lookup is recorded in facts (the caller checks
// facts.Err and retries).
func applyWorkspaceQuota(ar *v1alpha1.AgentRuntime, facts *clusterfacts.Facts, plan *workloadPlan, in *statusInput) {
	ws, _ := facts.Workspace(ar.Namespace)
	var siblings []rules.AgentRuntimeQuotaEntry
	if rules.AgentRuntimeQuotaCountsAgents(ws) {
		siblings = facts.AgentRuntimeQuotaEntries(ar.Namespace)
	}
	v := rules.AgentRuntimeQuota(ar, ws, siblings)
	in.quota = v
	plan.res.ReplicaCap = v.ReplicaCap
	if !v.Admitted {
		plan.held = true
	}
}
