package agentruntime

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/conditions"
	"github.com/altairalabs/omnia/reconcile/agentruntime/workload"
)

// Three conditions that report how the agent's conversations are kept and
// never hold it back (agentruntime.md#conditions): SessionRecording (its
// service group has a session-api), A2ATaskStoreShared (its A2A tasks are
// visible to every replica; only on an agent with an a2a facade) and
// PrivacyPolicyResolved (which privacy policy applies). None feeds Ready or
// the phase. Each is a pure function of the agent and the facts resolve()
// put in statusInput (the Workspace of the agent's namespace and the most
// replicas the agent can run).

// setSessionConditions sets SessionRecording, PrivacyPolicyResolved and,
// on an agent with an a2a facade, A2ATaskStoreShared (removed otherwise).
func setSessionConditions(st *v1alpha1.AgentRuntimeStatus, ar *v1alpha1.AgentRuntime, in statusInput) {
	gen := ar.Generation
	conditions.Set(&st.Conditions, sessionRecordingCondition(ar, in.workspace, gen), in.now)
	conditions.Set(&st.Conditions, privacyPolicyCondition(ar, gen), in.now)
	if c, ok := a2aTaskStoreCondition(ar, in.maxReplicas, gen); ok {
		conditions.Set(&st.Conditions, c, in.now)
	} else {
		meta.RemoveStatusCondition(&st.Conditions, v1alpha1.AgentRuntimeConditionA2ATaskStoreShared)
	}
}

// serviceGroupName is the service group the agent selects: spec.serviceGroup,
// default "default".
func serviceGroupName(ar *v1alpha1.AgentRuntime) string {
	if ar.Spec.ServiceGroup != "" {
		return ar.Spec.ServiceGroup
	}
	return DefaultServiceGroup
}

// hasSessionAPI reports whether a service group has a session-api: a
// session block that is not explicitly disabled without an external url.
// As for an ArenaRun's group (rules.ArenaRunServiceGroup), the block's
// presence is what declares the session-api.
func hasSessionAPI(g *v1alpha1.WorkspaceServiceGroup) bool { return hasService(g.Session) }

// hasService reports whether a service block declares a service: it is
// present and either names an external url or is not explicitly disabled.
func hasService(s *v1alpha1.WorkspaceServiceBlock) bool {
	return s != nil && (s.URL != "" || s.Enabled == nil || *s.Enabled)
}

// sessionRecordingCondition is SessionRecording: True when the agent's
// service group in the Workspace of its namespace (ws, nil when none) has
// a session-api; False with WorkspaceNotFound, ServiceGroupNotFound or
// NoSessionService otherwise. The agent serves either way.
func sessionRecordingCondition(ar *v1alpha1.AgentRuntime, ws *v1alpha1.Workspace, gen int64) metav1.Condition {
	c := metav1.Condition{Type: v1alpha1.AgentRuntimeConditionSessionRecording, Status: metav1.ConditionFalse, ObservedGeneration: gen}
	group := serviceGroupName(ar)
	if ws == nil {
		c.Reason = v1alpha1.AgentRuntimeReasonWorkspaceNotFound
		c.Message = fmt.Sprintf("no Workspace owns namespace %q: conversations are not recorded", ar.Namespace)
		return c
	}
	g := serviceGroupOf(ar, ws)
	switch {
	case g == nil:
		c.Reason = v1alpha1.AgentRuntimeReasonServiceGroupNotFound
		c.Message = fmt.Sprintf("Workspace %q declares no service group %q: conversations are not recorded", ws.Name, group)
	case !hasSessionAPI(g):
		c.Reason = v1alpha1.AgentRuntimeReasonNoSessionService
		c.Message = fmt.Sprintf("service group %q of Workspace %q has no session-api: conversations are not recorded", group, ws.Name)
	default:
		c.Status, c.Reason = metav1.ConditionTrue, v1alpha1.AgentRuntimeReasonSessionServiceFound
		c.Message = fmt.Sprintf("service group %q of Workspace %q has a session-api: conversations are recorded", group, ws.Name)
	}
	return c
}

// a2aFacade is the agent's a2a facade entry; nil without one.
func a2aFacade(ar *v1alpha1.AgentRuntime) *v1alpha1.AgentRuntimeFacade {
	for i := range ar.Spec.Facades {
		if ar.Spec.Facades[i].Type == v1alpha1.AgentRuntimeFacadeTypeA2A {
			return &ar.Spec.Facades[i]
		}
	}
	return nil
}

// a2aTaskStoreCondition is A2ATaskStoreShared; ok is false on an agent
// without an a2a facade, which carries no such condition. True with a
// redis task store, or a memory one on an agent that runs at most one
// replica (maxReplicas); False with MemoryTaskStoreMultiReplica when the
// store is memory (the default) and the agent can run more than one.
func a2aTaskStoreCondition(ar *v1alpha1.AgentRuntime, maxReplicas int32, gen int64) (metav1.Condition, bool) {
	f := a2aFacade(ar)
	if f == nil {
		return metav1.Condition{}, false
	}
	c := metav1.Condition{Type: v1alpha1.AgentRuntimeConditionA2ATaskStoreShared, ObservedGeneration: gen}
	if f.A2A != nil && f.A2A.TaskStore != nil && f.A2A.TaskStore.Type == v1alpha1.AgentRuntimeA2ATaskStoreRedis {
		c.Status, c.Reason = metav1.ConditionTrue, v1alpha1.AgentRuntimeReasonRedisTaskStore
		c.Message = "the A2A task store is redis: every replica sees every task"
		return c, true
	}
	if maxReplicas <= 1 {
		c.Status, c.Reason = metav1.ConditionTrue, v1alpha1.AgentRuntimeReasonSingleReplica
		c.Message = "the A2A task store is memory and the agent runs at most one replica"
		return c, true
	}
	c.Status, c.Reason = metav1.ConditionFalse, v1alpha1.AgentRuntimeReasonMemoryTaskStoreMultiReplica
	c.Message = fmt.Sprintf("the A2A task store is memory and the agent can run %d replicas: tasks/get, tasks/cancel and "+
		"tasks/subscribe work only on the replica that created the task; set facades[].a2a.taskStore.type to redis", maxReplicas)
	return c, true
}

// maxReplicas is the most replicas the agent can run: the effective
// autoscaler's maxReplicas (default 100), else spec.runtime.replicas
// (default 1), both capped by the Workspace's maxReplicasPerAgent. A
// Deployment held at zero (ScaleToZero) counts what it runs once released.
func maxReplicas(ar *v1alpha1.AgentRuntime, res *workload.Resolved) int32 {
	if a := capAutoscaling(workload.EffectiveAutoscaling(ar, res), res.ReplicaCap); a != nil {
		return ptr.Deref(a.MaxReplicas, workload.DefaultAutoscalingMaxReplicas)
	}
	n := int32(1)
	if rt := ar.Spec.Runtime; rt != nil && rt.Replicas != nil {
		n = *rt.Replicas
	}
	if res.ReplicaCap != nil && n > *res.ReplicaCap {
		n = *res.ReplicaCap
	}
	return n
}

// privacyPolicyCondition is PrivacyPolicyResolved: which privacy policy
// applies. SessionPrivacyPolicy is not a kind of this operator and a
// Workspace service group carries no privacy policy, so the condition is
// always True and names its source without looking the policy up:
// AgentPolicy with spec.privacyPolicyRef (its name in the message), NoPolicy
// otherwise.
func privacyPolicyCondition(ar *v1alpha1.AgentRuntime, gen int64) metav1.Condition {
	c := metav1.Condition{Type: v1alpha1.AgentRuntimeConditionPrivacyPolicyResolved, Status: metav1.ConditionTrue, ObservedGeneration: gen}
	if ref := ar.Spec.PrivacyPolicyRef; ref != nil && ref.Name != "" {
		c.Reason = v1alpha1.AgentRuntimeReasonAgentPolicy
		c.Message = fmt.Sprintf("SessionPrivacyPolicy %q (spec.privacyPolicyRef) applies", ref.Name)
		return c
	}
	c.Reason = v1alpha1.AgentRuntimeReasonNoPolicy
	c.Message = "no privacy policy applies: the agent sets no privacyPolicyRef"
	return c
}
