package rules

import (
	"cmp"
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// AgentRuntimeQuotaEntry is one AgentRuntime of a namespace as the quota
// sees it: its place in the admission order and whether it already has its
// Deployment.
type AgentRuntimeQuotaEntry struct {
	Name              string
	CreationTimestamp metav1.Time
	// HasDeployment: the agent's Deployment exists (controlled by the agent).
	HasDeployment bool
}

// AgentRuntimeQuotaVerdict is what the Workspace's spec.quotas.agents
// decides for one agent.
type AgentRuntimeQuotaVerdict struct {
	// Applies is true when the Workspace sets an agent quota
	// (maxAgentRuntimes or maxReplicasPerAgent): WithinWorkspaceQuota is
	// present only then. When false every other field is its zero value
	// except Admitted, which is true.
	Applies bool
	// Admitted is false when the Workspace has not admitted the agent: its
	// workload is not created, phase Pending, Ready reason
	// WorkspaceQuotaExceeded.
	Admitted bool
	// ReplicaCap is maxReplicasPerAgent, when set: the agent's replicas
	// (static, and an autoscaler's bounds) never exceed it.
	ReplicaCap *int32
	// Status, Reason and Message are WithinWorkspaceQuota's.
	Status  metav1.ConditionStatus
	Reason  string
	Message string
}

// AgentRuntimeQuota applies the Workspace's spec.quotas.agents to ar
// (agentruntime.md#conditions, WithinWorkspaceQuota). ws is the Workspace
// that owns ar's namespace (nil when none does); siblings are the
// AgentRuntimes of ar's namespace (ar among them or not), needed only when
// maxAgentRuntimes is set.
//
// The spec says which agents run and which wait, but not how the Workspace
// chooses them; this is the one deterministic rule:
//
//   - agents are ordered by (creationTimestamp, name), oldest first;
//   - an agent that already has its Deployment stays admitted: it was
//     admitted before, and lowering maxAgentRuntimes never stops a running
//     agent. It is RunningOverAgentRuntimeQuota when its rank among the
//     agents with a Deployment is beyond maxAgentRuntimes, else
//     QuotaSatisfied;
//   - an agent without a Deployment is admitted while the agents with a
//     Deployment plus the earlier agents without one that are admitted
//     number fewer than maxAgentRuntimes. So the oldest waiting agents are
//     admitted first, and deleting an agent frees a slot for the next
//     oldest one (the controller re-reconciles the waiting agents of the
//     namespace when an agent is deleted). An earlier agent that is
//     admitted but has no Deployment yet (held by another condition, or
//     not reconciled yet) keeps its slot, so two agents deciding from the
//     same view never both take the last one.
//
// maxReplicasPerAgent caps the replicas: an agent asking for more (static
// replicas, or its own autoscaling's maxReplicas) is ReplicasClamped and
// runs at the cap. ReplicasClamped wins over the True reasons: it is the
// one the user must act on.
//
// It is a decision function rather than a catalog rule because its input
// is the state of the namespace's other agents, not the object alone or a
// fact about something it references.
func AgentRuntimeQuota(ar *v1alpha1.AgentRuntime, ws *v1alpha1.Workspace, siblings []AgentRuntimeQuotaEntry) AgentRuntimeQuotaVerdict {
	q := workspaceAgentQuota(ws)
	if q == nil {
		return AgentRuntimeQuotaVerdict{Admitted: true}
	}
	v := AgentRuntimeQuotaVerdict{Applies: true, Admitted: true, Status: metav1.ConditionTrue, Reason: v1alpha1.AgentRuntimeReasonQuotaSatisfied,
		Message: fmt.Sprintf("Workspace %s admits the agent%s", ws.Name, quotaLimitsText(q))}
	overQuota := false
	if q.MaxAgentRuntimes != nil {
		limit := int(*q.MaxAgentRuntimes)
		admitted, running, rank := agentRuntimeAdmission(ar, siblings, limit)
		if !admitted {
			v.Admitted, v.Status, v.Reason = false, metav1.ConditionFalse, v1alpha1.AgentRuntimeReasonAgentRuntimeQuotaExceeded
			v.Message = fmt.Sprintf("Workspace %s admits at most %d AgentRuntimes in namespace %s and has not admitted this one: "+
				"nothing is created for it until an earlier agent is deleted or spec.quotas.agents.maxAgentRuntimes is raised",
				ws.Name, limit, ar.Namespace)
			return v
		}
		if running && rank > limit {
			overQuota = true
			v.Reason = v1alpha1.AgentRuntimeReasonRunningOverAgentRuntimeQuota
			v.Message = fmt.Sprintf("the agent was admitted before Workspace %s lowered spec.quotas.agents.maxAgentRuntimes to %d; "+
				"it keeps running but is beyond the quota", ws.Name, limit)
		}
	}
	if q.MaxReplicasPerAgent != nil {
		v.ReplicaCap = new(int32)
		*v.ReplicaCap = *q.MaxReplicasPerAgent
		if asked := AgentRuntimeRequestedReplicas(ar); asked > *q.MaxReplicasPerAgent {
			v.Status, v.Reason = metav1.ConditionFalse, v1alpha1.AgentRuntimeReasonReplicasClamped
			v.Message = fmt.Sprintf("the agent asks for %d replicas, more than Workspace %s's spec.quotas.agents.maxReplicasPerAgent %d: it runs at %d",
				asked, ws.Name, *q.MaxReplicasPerAgent, *q.MaxReplicasPerAgent)
			if overQuota {
				v.Message += "; it is also beyond maxAgentRuntimes, admitted before the quota was lowered"
			}
		}
	}
	return v
}

// workspaceAgentQuota is ws's spec.quotas.agents when it sets a limit.
func workspaceAgentQuota(ws *v1alpha1.Workspace) *v1alpha1.WorkspaceAgentQuota {
	if ws == nil || ws.Spec.Quotas == nil || ws.Spec.Quotas.Agents == nil {
		return nil
	}
	q := ws.Spec.Quotas.Agents
	if q.MaxAgentRuntimes == nil && q.MaxReplicasPerAgent == nil {
		return nil
	}
	return q
}

// AgentRuntimeQuotaCountsAgents reports whether ws caps the number of
// AgentRuntimes (maxAgentRuntimes): only then does AgentRuntimeQuota need
// the namespace's agents, and only then does deleting an agent admit
// another.
func AgentRuntimeQuotaCountsAgents(ws *v1alpha1.Workspace) bool {
	q := workspaceAgentQuota(ws)
	return q != nil && q.MaxAgentRuntimes != nil
}

// quotaLimitsText names the limits set, for QuotaSatisfied's message.
func quotaLimitsText(q *v1alpha1.WorkspaceAgentQuota) string {
	s := ""
	if q.MaxAgentRuntimes != nil {
		s += fmt.Sprintf(" (maxAgentRuntimes %d)", *q.MaxAgentRuntimes)
	}
	if q.MaxReplicasPerAgent != nil {
		s += fmt.Sprintf("; its replicas are within maxReplicasPerAgent %d", *q.MaxReplicasPerAgent)
	}
	return s
}

// agentRuntimeAdmission applies the ordering rule of AgentRuntimeQuota:
// whether ar is admitted, whether it has its Deployment, and (when it does)
// its 1-based rank among the agents with a Deployment.
func agentRuntimeAdmission(ar *v1alpha1.AgentRuntime, siblings []AgentRuntimeQuotaEntry, limit int) (admitted, running bool, rank int) {
	entries := slices.Clone(siblings)
	found := false
	for i := range entries {
		if entries[i].Name == ar.Name {
			found = true
			running = entries[i].HasDeployment
		}
	}
	if !found {
		// Not in the view yet (a cache that lags the agent's creation): it
		// has nothing, so it queues at its place.
		entries = append(entries, AgentRuntimeQuotaEntry{Name: ar.Name, CreationTimestamp: ar.CreationTimestamp})
	}
	slices.SortFunc(entries, func(a, b AgentRuntimeQuotaEntry) int {
		if c := a.CreationTimestamp.Compare(b.CreationTimestamp.Time); c != 0 {
			return c
		}
		return cmp.Compare(a.Name, b.Name)
	})
	withDeployment := 0
	for _, e := range entries {
		if e.HasDeployment {
			withDeployment++
			if e.Name == ar.Name {
				rank = withDeployment
			}
		}
	}
	if running {
		return true, true, rank
	}
	taken := withDeployment
	for _, e := range entries {
		if e.HasDeployment {
			continue
		}
		if e.Name == ar.Name {
			return taken < limit, false, 0
		}
		if taken < limit {
			taken++
		}
	}
	return false, false, 0
}

// AgentRuntimeRequestedReplicas is how many replicas the agent asks for:
// its own autoscaling's maxReplicas (default 100) when enabled, else
// spec.runtime.replicas (default 1). A Workspace service-group
// autoscaling default is not the agent's own request and is not counted.
func AgentRuntimeRequestedReplicas(ar *v1alpha1.AgentRuntime) int32 {
	rt := ar.Spec.Runtime
	if rt == nil {
		return 1
	}
	if a := rt.Autoscaling; a != nil && a.Enabled {
		n := int32(100)
		if a.MaxReplicas != nil {
			n = *a.MaxReplicas
		}
		if a.MinReplicas != nil && *a.MinReplicas > n {
			n = *a.MinReplicas
		}
		return n
	}
	if rt.Replicas != nil {
		return *rt.Replicas
	}
	return 1
}
