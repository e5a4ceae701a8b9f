package rules

import (
	"slices"
	"testing"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

func agentRuntimeDuplex(ar *v1alpha1.AgentRuntime) {
	ar.Spec.Duplex = &v1alpha1.AgentRuntimeDuplex{Enabled: true}
}

// agentRuntimeReport writes status.runtimeCapabilities as the runtime would,
// at the agent's current generation.
func agentRuntimeReport(caps ...string) func(*v1alpha1.AgentRuntime) {
	return func(ar *v1alpha1.AgentRuntime) {
		ar.Generation, ar.Status.ObservedGeneration = 3, 3
		ar.Status.RuntimeCapabilities = caps
	}
}

func TestAgentRuntimeRequiredRuntimeCapabilities(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mutate func(*v1alpha1.AgentRuntime)
		want   []string
	}{
		{"plain websocket agent", nil, nil},
		{"duplex disabled", func(ar *v1alpha1.AgentRuntime) { ar.Spec.Duplex = &v1alpha1.AgentRuntimeDuplex{} }, nil},
		{"duplex enabled", agentRuntimeDuplex, []string{AgentRuntimeCapabilityDuplexAudio, AgentRuntimeCapabilityInterruption}},
		{"duplex enabled, cascaded", func(ar *v1alpha1.AgentRuntime) {
			ar.Spec.Duplex = &v1alpha1.AgentRuntimeDuplex{Enabled: true, Mode: "cascaded"}
		}, []string{"duplex_audio", "interruption"}},
		// The spec names no runtime capability for these: none is required.
		{"a2a facade", func(ar *v1alpha1.AgentRuntime) {
			ar.Spec.Facades = append(ar.Spec.Facades, v1alpha1.AgentRuntimeFacade{Type: v1alpha1.AgentRuntimeFacadeTypeA2A})
		}, nil},
		{"function mode", agentRuntimeFunction, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ar := agentRuntimeBase()
			if tc.mutate != nil {
				tc.mutate(ar)
			}
			if got := AgentRuntimeRequiredRuntimeCapabilities(ar); !slices.Equal(got, tc.want) {
				t.Errorf("required = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestAgentRuntimeRuntimeCapabilitiesRule(t *testing.T) {
	const id, path = "agentruntime/runtime-capabilities-satisfied", "status.runtimeCapabilities"
	stale := func(ar *v1alpha1.AgentRuntime) { ar.Generation = 4 } // edited after the report
	cases := []ruleCase[*v1alpha1.AgentRuntime]{
		{name: "duplex, nothing reported yet", mutate: agentRuntimeDuplex},
		{name: "duplex, every required capability reported", mutate: agentRuntimeAll(agentRuntimeDuplex,
			agentRuntimeReport("streaming", AgentRuntimeCapabilityInterruption, AgentRuntimeCapabilityDuplexAudio))},
		{name: "no requirement, anything reported", mutate: agentRuntimeReport("streaming")},
		{name: "duplex, interruption missing from the report", mutate: agentRuntimeAll(agentRuntimeDuplex,
			agentRuntimeReport("streaming", AgentRuntimeCapabilityDuplexAudio)),
			want: []agentRuntimeWant{{id, path}}},
		{name: "duplex, report of a text-only runtime", mutate: agentRuntimeAll(agentRuntimeDuplex, agentRuntimeReport("streaming")),
			want: []agentRuntimeWant{{id, path}}},
		// A report made before the current generation decides nothing: the
		// new generation's pods must be allowed to run and report.
		{name: "duplex, missing from a report of an older generation", mutate: agentRuntimeAll(agentRuntimeDuplex,
			agentRuntimeReport("streaming"), stale)},
	}
	ruleTable[*v1alpha1.AgentRuntime]{kind: kindAgentRuntime, prefix: id, base: agentRuntimeBase,
		facts: func() Facts { return agentRuntimeBaseFacts() }}.run(t, cases)

	ar := agentRuntimeBase()
	agentRuntimeAll(agentRuntimeDuplex, agentRuntimeReport("streaming", "interruption"))(ar)
	if got := AgentRuntimeMissingRuntimeCapabilities(ar); !slices.Equal(got, []string{AgentRuntimeCapabilityDuplexAudio}) {
		t.Errorf("missing = %v, want [duplex_audio]", got)
	}
}
