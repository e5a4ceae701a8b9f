package agentruntime

import (
	"testing"

	"k8s.io/utils/ptr"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/agentruntime/workload"
	"github.com/altairalabs/omnia/rules"
)

// TestA2AEndpoints: status.a2a's endpoint and agentCardURL only with an
// a2a facade: the external URL when its route is valid, else the
// in-cluster URL of the a2a data port.
func TestA2AEndpoints(t *testing.T) {
	ws := v1alpha1.AgentRuntimeFacade{Type: v1alpha1.AgentRuntimeFacadeTypeWebSocket}
	a2a := v1alpha1.AgentRuntimeFacade{Type: v1alpha1.AgentRuntimeFacadeTypeA2A}
	validA2A := v1alpha1.AgentRuntimeFacadeEndpoint{Protocol: "a2a", URL: "https://support-a2a.team-a.example.com/", Valid: true}
	pendingA2A := validA2A
	pendingA2A.Valid, pendingA2A.Reason = false, "Pending"
	validWS := v1alpha1.AgentRuntimeFacadeEndpoint{Protocol: "websocket", URL: "https://support.team-a.example.com/", Valid: true}
	for _, tc := range []struct {
		name           string
		facades        []v1alpha1.AgentRuntimeFacade
		serviceApplied bool
		external       []v1alpha1.AgentRuntimeFacadeEndpoint
		endpoint       string
	}{
		{"no a2a facade", []v1alpha1.AgentRuntimeFacade{ws}, true, []v1alpha1.AgentRuntimeFacadeEndpoint{validWS}, ""},
		{"secondary a2a, in-cluster", []v1alpha1.AgentRuntimeFacade{ws, a2a}, true, nil, "http://support.team-a.svc.cluster.local:9999"},
		{"a2a alone, on the facade port", []v1alpha1.AgentRuntimeFacade{a2a}, true, nil, "http://support.team-a.svc.cluster.local:8080"},
		{"exposed and valid: the external URL", []v1alpha1.AgentRuntimeFacade{ws, a2a}, true, []v1alpha1.AgentRuntimeFacadeEndpoint{validWS, validA2A}, "https://support-a2a.team-a.example.com"},
		{"exposed, not valid yet: in-cluster", []v1alpha1.AgentRuntimeFacade{ws, a2a}, true, []v1alpha1.AgentRuntimeFacadeEndpoint{pendingA2A}, "http://support.team-a.svc.cluster.local:9999"},
		{"a2a without its data plane", []v1alpha1.AgentRuntimeFacade{ws, {Type: v1alpha1.AgentRuntimeFacadeTypeA2A, DataPlane: ptr.To(false)}}, true, nil, ""},
		{"Service not applied", []v1alpha1.AgentRuntimeFacade{ws, a2a}, false, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ar := agent(func(a *v1alpha1.AgentRuntime) { a.Spec.Facades = tc.facades })
			endpoint, card := a2aEndpoints(ar, tc.serviceApplied, tc.external)
			wantCard := ""
			if tc.endpoint != "" {
				wantCard = tc.endpoint + "/.well-known/agent-card.json"
			}
			if endpoint != tc.endpoint || card != wantCard {
				t.Errorf("endpoint %q card %q, want %q %q", endpoint, card, tc.endpoint, wantCard)
			}
		})
	}
}

// TestA2AStatusBesideClients: status.a2a keeps the clients
// setReferenceStatus set when the a2a facade goes, and is removed when it
// holds nothing.
func TestA2AStatusBesideClients(t *testing.T) {
	withA2A := agent(func(a *v1alpha1.AgentRuntime) {
		a.Spec.Facades = append(a.Spec.Facades, v1alpha1.AgentRuntimeFacade{Type: v1alpha1.AgentRuntimeFacadeTypeA2A})
	})
	clients := []rules.AgentRuntimeA2AClientResolution{{Name: "billing", URL: "http://billing.team-a.svc.cluster.local:9999"}}
	for _, tc := range []struct {
		name        string
		ar          *v1alpha1.AgentRuntime
		clients     []rules.AgentRuntimeA2AClientResolution
		wantNil     bool
		wantCard    bool
		wantClients int
	}{
		{"a2a facade, no clients", withA2A, nil, false, true, 0},
		{"a2a facade and clients", withA2A, clients, false, true, 1},
		{"clients only", agent(), clients, false, false, 1},
		{"neither", agent(), nil, true, false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The previous status had everything; the new one keeps what applies.
			st := &v1alpha1.AgentRuntimeStatus{A2A: &v1alpha1.AgentRuntimeA2AStatus{AgentCardURL: "old", Endpoint: "old",
				Clients: []v1alpha1.AgentRuntimeA2AClientStatus{{Name: "gone"}}}}
			in := statusInput{serviceApplied: true, a2aClients: tc.clients}
			setReferenceStatus(st, tc.ar, in)
			setExposureStatus(st, tc.ar, in)
			if tc.wantNil {
				if st.A2A != nil {
					t.Fatalf("status.a2a %+v, want none", st.A2A)
				}
				return
			}
			if st.A2A == nil {
				t.Fatal("no status.a2a")
			}
			if (st.A2A.AgentCardURL != "") != tc.wantCard || (st.A2A.Endpoint != "") != tc.wantCard || st.A2A.AgentCardURL == "old" {
				t.Errorf("agentCardURL %q endpoint %q, want set: %v", st.A2A.AgentCardURL, st.A2A.Endpoint, tc.wantCard)
			}
			if len(st.A2A.Clients) != tc.wantClients {
				t.Errorf("clients %+v, want %d", st.A2A.Clients, tc.wantClients)
			}
		})
	}
}

// TestManagementEndpointsPerSurface: status.managementEndpoints has one
// entry per surface (ws, a2a, mcp) whose facade has managementPlane
// enabled (agentruntime.md § facades[].managementPlane), on the fixed
// internal ports, and is absent when none has.
func TestManagementEndpointsPerSurface(t *testing.T) {
	const host = "support.team-a.svc.cluster.local"
	off := ptr.To(false)
	for _, tc := range []struct {
		name    string
		facades []v1alpha1.AgentRuntimeFacade
		want    *v1alpha1.AgentRuntimeManagementEndpoints
	}{
		{"websocket", []v1alpha1.AgentRuntimeFacade{{Type: v1alpha1.AgentRuntimeFacadeTypeWebSocket}},
			&v1alpha1.AgentRuntimeManagementEndpoints{WS: host + ":18080"}},
		{"websocket + a2a", []v1alpha1.AgentRuntimeFacade{{Type: v1alpha1.AgentRuntimeFacadeTypeWebSocket}, {Type: v1alpha1.AgentRuntimeFacadeTypeA2A}},
			&v1alpha1.AgentRuntimeManagementEndpoints{WS: host + ":18080", A2A: host + ":19999"}},
		{"a2a alone: the a2a surface", []v1alpha1.AgentRuntimeFacade{{Type: v1alpha1.AgentRuntimeFacadeTypeA2A}},
			&v1alpha1.AgentRuntimeManagementEndpoints{A2A: host + ":19999"}},
		{"rest + mcp", []v1alpha1.AgentRuntimeFacade{{Type: v1alpha1.AgentRuntimeFacadeTypeREST}, {Type: v1alpha1.AgentRuntimeFacadeTypeMCP}},
			&v1alpha1.AgentRuntimeManagementEndpoints{WS: host + ":18080", MCP: host + ":19998"}},
		{"a2a with managementPlane false", []v1alpha1.AgentRuntimeFacade{{Type: v1alpha1.AgentRuntimeFacadeTypeWebSocket}, {Type: v1alpha1.AgentRuntimeFacadeTypeA2A, ManagementPlane: off}},
			&v1alpha1.AgentRuntimeManagementEndpoints{WS: host + ":18080"}},
		{"management-only websocket (dataPlane false) keeps its twin", []v1alpha1.AgentRuntimeFacade{{Type: v1alpha1.AgentRuntimeFacadeTypeWebSocket, DataPlane: off}},
			&v1alpha1.AgentRuntimeManagementEndpoints{WS: host + ":18080"}},
		{"no management plane anywhere", []v1alpha1.AgentRuntimeFacade{{Type: v1alpha1.AgentRuntimeFacadeTypeREST, ManagementPlane: off}, {Type: v1alpha1.AgentRuntimeFacadeTypeMCP, ManagementPlane: off}}, nil},
		{"custom: no twin", []v1alpha1.AgentRuntimeFacade{{Type: v1alpha1.AgentRuntimeFacadeTypeCustom, Image: "x"}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := workload.ManagementEndpoints(agent(func(a *v1alpha1.AgentRuntime) { a.Spec.Facades = tc.facades }))
			if (got == nil) != (tc.want == nil) || (got != nil && *got != *tc.want) {
				t.Errorf("ManagementEndpoints = %+v, want %+v", got, tc.want)
			}
		})
	}
}
