package rules

import (
	"slices"
	"testing"

	"k8s.io/utils/ptr"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// agentRuntimeExposed sets the facades of the base agent: a websocket
// primary and an a2a secondary, with the given expose entries.
func agentRuntimeExposed(ws, a2a *v1alpha1.AgentRuntimeFacadeExpose) func(*v1alpha1.AgentRuntime) {
	return func(ar *v1alpha1.AgentRuntime) {
		ar.Spec.Facades = []v1alpha1.AgentRuntimeFacade{
			{Type: v1alpha1.AgentRuntimeFacadeTypeWebSocket, Expose: ws},
			{Type: v1alpha1.AgentRuntimeFacadeTypeA2A, A2A: &v1alpha1.AgentRuntimeFacadeA2A{}, Expose: a2a},
		}
	}
}

func TestAgentRuntimeExposeHostUniqueRule(t *testing.T) {
	on := func(host string) *v1alpha1.AgentRuntimeFacadeExpose {
		return &v1alpha1.AgentRuntimeFacadeExpose{Enabled: true, Host: host}
	}
	const id = "agentruntime/expose-host-unique"
	ruleTable[*v1alpha1.AgentRuntime]{kind: kindAgentRuntime, prefix: id, base: agentRuntimeBase,
		facts: func() Facts { return agentRuntimeBaseFacts() }}.run(t, []ruleCase[*v1alpha1.AgentRuntime]{
		{name: "accepted: both exposed on their default hosts", mutate: agentRuntimeExposed(on(""), on(""))},
		{name: "accepted: distinct overrides", mutate: agentRuntimeExposed(on("chat.example.com"), on("a2a.example.com"))},
		{name: "accepted: same host, but the a2a facade is not enabled",
			mutate: agentRuntimeExposed(on("chat.example.com"), &v1alpha1.AgentRuntimeFacadeExpose{Host: "chat.example.com"})},
		{name: "accepted: same host, but the a2a facade has no data plane", mutate: func(ar *v1alpha1.AgentRuntime) {
			agentRuntimeExposed(on("chat.example.com"), on("chat.example.com"))(ar)
			ar.Spec.Facades[1].DataPlane = ptr.To(false)
		}},
		{name: "rejected: two facades on one host (case and trailing dot ignored)",
			mutate: agentRuntimeExposed(on("chat.example.com"), on("Chat.Example.com.")),
			want:   []ruleWant{{id, "spec.facades[1].expose.host"}}},
		{name: "rejected: the primary listed second keeps its host, the earlier secondary conflicts", mutate: func(ar *v1alpha1.AgentRuntime) {
			agentRuntimeExposed(on("chat.example.com"), on("chat.example.com"))(ar)
			slices.Reverse(ar.Spec.Facades)
		}, want: []ruleWant{{id, "spec.facades[0].expose.host"}}},
		{name: "ratchet: an update keeping the conflict is not refused",
			mutate: agentRuntimeExposed(on("chat.example.com"), on("chat.example.com")),
			old:    agentRuntimeExposed(on("chat.example.com"), on("chat.example.com")),
			want:   []ruleWant{{id, "spec.facades[1].expose.host"}}},
	})
}

// TestAgentRuntimeExposedFacades: hosts default under the base domain (the
// primary on <agent>.<ns>.<domain>, a secondary on <agent>-<type>.<ns>.<domain>),
// an override wins, and a conflict with a defaulted host is found only when
// the base domain is known (the reconciler's view, not admission's).
func TestAgentRuntimeExposedFacades(t *testing.T) {
	on := func(host string) *v1alpha1.AgentRuntimeFacadeExpose {
		return &v1alpha1.AgentRuntimeFacadeExpose{Enabled: true, Host: host}
	}
	type want struct {
		index    int
		host     string
		conflict int
	}
	for _, tc := range []struct {
		name   string
		mutate func(*v1alpha1.AgentRuntime)
		domain string
		want   []want
	}{
		{"nothing exposed", func(*v1alpha1.AgentRuntime) {}, "example.com", nil},
		{"defaults", agentRuntimeExposed(on(""), on("")), "example.com",
			[]want{{0, "support-agent.agents.example.com", -1}, {1, "support-agent-a2a.agents.example.com", -1}}},
		{"override on the secondary", agentRuntimeExposed(nil, on("A2A.Example.com")), "example.com",
			[]want{{1, "a2a.example.com", -1}}},
		{"no base domain: defaults unknown", agentRuntimeExposed(on(""), on("x.example.com")), "",
			[]want{{0, "", -1}, {1, "x.example.com", -1}}},
		{"an override on the primary's default host conflicts", agentRuntimeExposed(on(""), on("support-agent.agents.example.com")), "example.com",
			[]want{{0, "support-agent.agents.example.com", -1}, {1, "support-agent.agents.example.com", 0}}},
		{"a2a alone is the primary", func(ar *v1alpha1.AgentRuntime) {
			ar.Spec.Facades = []v1alpha1.AgentRuntimeFacade{{Type: v1alpha1.AgentRuntimeFacadeTypeA2A, Expose: on("")}}
		}, "example.com", []want{{0, "support-agent.agents.example.com", -1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ar := agentRuntimeBase()
			tc.mutate(ar)
			var got []want
			for _, e := range AgentRuntimeExposedFacades(ar, tc.domain) {
				got = append(got, want{e.Index, e.Host, e.ConflictsWith})
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}
