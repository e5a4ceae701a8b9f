package rules

import (
	"testing"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

func TestAgentRuntimeWorkloadHoldOf(t *testing.T) {
	finding := func(cond, reason string) Finding { return Finding{Condition: cond, Reason: reason} }
	tests := []struct {
		name     string
		findings []Finding
		want     AgentRuntimeWorkloadHold
	}{
		{name: "accepted: no finding applies the workload", want: AgentRuntimeWorkloadHold{}},
		{name: "accepted: a ToolRegistry not found does not hold",
			findings: []Finding{finding(v1alpha1.AgentRuntimeConditionToolRegistryReady, v1alpha1.AgentRuntimeReasonToolRegistryNotFound)}},
		{name: "held: the PromptPack is missing",
			findings: []Finding{finding(v1alpha1.AgentRuntimeConditionPromptPackReady, v1alpha1.AgentRuntimeReasonPromptPackNotFound)},
			want:     AgentRuntimeWorkloadHold{Held: true}},
		{name: "held: the ToolRegistry is in another namespace",
			findings: []Finding{finding(v1alpha1.AgentRuntimeConditionToolRegistryReady, v1alpha1.AgentRuntimeReasonToolRegistryCrossNamespace)},
			want:     AgentRuntimeWorkloadHold{Held: true}},
		{name: "stopped: the Provider is in another namespace",
			findings: []Finding{finding(v1alpha1.AgentRuntimeConditionProviderReady, v1alpha1.AgentRuntimeReasonProviderCrossNamespace)},
			want:     AgentRuntimeWorkloadHold{Held: true, Stop: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := AgentRuntimeWorkloadHoldOf(tt.findings); got != tt.want {
				t.Errorf("hold = %+v, want %+v", got, tt.want)
			}
		})
	}
}
