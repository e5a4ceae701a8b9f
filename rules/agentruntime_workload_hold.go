package rules

import "github.com/altairalabs/omnia/api/v1alpha1"

// AgentRuntimeWorkloadHold is what an agent's findings mean for its
// workload. Held: nothing is applied and what exists is left as it is (the
// PromptPack or a Provider is not usable, or its ToolRegistry is in another
// namespace: agentruntime.md § toolRegistryRef "is held Pending"). Stop:
// what exists must stop too (a Provider in another namespace: provider.md
// § Cross-namespace references are refused, "has its Deployments
// stopped"); Stop implies Held. The controller, the deploy plan and tests
// ask this one function.
type AgentRuntimeWorkloadHold struct {
	Held, Stop bool
}

// AgentRuntimeWorkloadHoldOf decides the hold from the agent's findings.
func AgentRuntimeWorkloadHoldOf(findings []Finding) AgentRuntimeWorkloadHold {
	var h AgentRuntimeWorkloadHold
	for _, f := range findings {
		switch {
		case f.Condition == v1alpha1.AgentRuntimeConditionProviderReady && f.Reason == v1alpha1.AgentRuntimeReasonProviderCrossNamespace:
			h.Held, h.Stop = true, true
		case f.Condition == v1alpha1.AgentRuntimeConditionPromptPackReady, f.Condition == v1alpha1.AgentRuntimeConditionProviderReady:
			h.Held = true
		case f.Condition == v1alpha1.AgentRuntimeConditionToolRegistryReady && f.Reason == v1alpha1.AgentRuntimeReasonToolRegistryCrossNamespace:
			h.Held = true
		}
	}
	return h
}
