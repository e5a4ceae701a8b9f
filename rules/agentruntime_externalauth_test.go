package rules

import (
	"slices"
	"testing"

	"k8s.io/utils/ptr"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

func TestAgentRuntimeFacadeAcceptsCallers(t *testing.T) {
	const id = "agentruntime/facade-accepts-callers"
	external := func(ea *v1alpha1.AgentRuntimeExternalAuth) func(*v1alpha1.AgentRuntime) {
		return func(ar *v1alpha1.AgentRuntime) { ar.Spec.ExternalAuth = ea }
	}
	mgmtOff := func(ar *v1alpha1.AgentRuntime) {
		ar.Spec.Facades = []v1alpha1.AgentRuntimeFacade{
			{Type: v1alpha1.AgentRuntimeFacadeTypeWebSocket},
			{Type: v1alpha1.AgentRuntimeFacadeTypeA2A, ManagementPlane: ptr.To(false), A2A: &v1alpha1.AgentRuntimeFacadeA2A{}},
		}
	}
	both := func(ms ...func(*v1alpha1.AgentRuntime)) func(*v1alpha1.AgentRuntime) {
		return func(ar *v1alpha1.AgentRuntime) {
			for _, m := range ms {
				m(ar)
			}
		}
	}
	cases := []ruleCase[*v1alpha1.AgentRuntime]{
		{name: "no externalAuth, every facade keeps its management plane"},
		{name: "managementPlane explicitly true without externalAuth", mutate: func(ar *v1alpha1.AgentRuntime) {
			ar.Spec.Facades[0].ManagementPlane = ptr.To(true)
		}},
		{name: "managementPlane false without externalAuth", mutate: mgmtOff,
			want: []ruleWant{{id, "spec.facades[1].managementPlane"}}},
		{name: "managementPlane false with an empty externalAuth", mutate: both(mgmtOff, external(&v1alpha1.AgentRuntimeExternalAuth{})),
			want: []ruleWant{{id, "spec.facades[1].managementPlane"}}},
		{name: "managementPlane false on every facade without externalAuth", mutate: func(ar *v1alpha1.AgentRuntime) {
			ar.Spec.Facades = []v1alpha1.AgentRuntimeFacade{
				{Type: v1alpha1.AgentRuntimeFacadeTypeWebSocket, ManagementPlane: ptr.To(false)},
				{Type: v1alpha1.AgentRuntimeFacadeTypeA2A, ManagementPlane: ptr.To(false), A2A: &v1alpha1.AgentRuntimeFacadeA2A{}},
			}
		}, want: []ruleWant{{id, "spec.facades[0].managementPlane"}, {id, "spec.facades[1].managementPlane"}}},
		{name: "managementPlane false with clientKeys", mutate: both(mgmtOff, external(&v1alpha1.AgentRuntimeExternalAuth{ClientKeys: &v1alpha1.AgentRuntimeClientKeys{}}))},
		{name: "managementPlane false with oidc", mutate: both(mgmtOff, external(&v1alpha1.AgentRuntimeExternalAuth{
			OIDC: &v1alpha1.AgentRuntimeOIDC{Issuer: "https://id.example.com", Audience: "bot"}}))},
		{name: "managementPlane false with edgeTrust", mutate: both(mgmtOff, external(&v1alpha1.AgentRuntimeExternalAuth{EdgeTrust: &v1alpha1.AgentRuntimeEdgeTrust{}}))},
	}
	ruleTable[*v1alpha1.AgentRuntime]{kind: kindAgentRuntime, prefix: id, base: agentRuntimeBase,
		facts: func() Facts { return agentRuntimeBaseFacts() }}.run(t, cases)

	// The finding carries the condition and reason the controller sets.
	ar := agentRuntimeBase()
	mgmtOff(ar)
	var got []Finding
	for _, f := range Default.Evaluate(kindAgentRuntime, Input{Object: ar}, Options{Stages: []Stage{StageAdmission}}) {
		if f.RuleID == id {
			got = append(got, f)
		}
	}
	if len(got) != 1 || got[0].Condition != v1alpha1.AgentRuntimeConditionExternalAuth ||
		got[0].Reason != v1alpha1.AgentRuntimeReasonNoCallersAccepted || got[0].Severity != SeverityWarn {
		t.Errorf("findings = %+v, want one ExternalAuth/NoCallersAccepted warning", got)
	}
}

func TestAgentRuntimeExternalValidators(t *testing.T) {
	for _, tc := range []struct {
		name string
		ea   *v1alpha1.AgentRuntimeExternalAuth
		want []string
	}{
		{name: "unset", want: nil},
		{name: "empty", ea: &v1alpha1.AgentRuntimeExternalAuth{}, want: nil},
		{name: "all three, in chain order", ea: &v1alpha1.AgentRuntimeExternalAuth{
			EdgeTrust: &v1alpha1.AgentRuntimeEdgeTrust{}, OIDC: &v1alpha1.AgentRuntimeOIDC{}, ClientKeys: &v1alpha1.AgentRuntimeClientKeys{}},
			want: []string{"clientKeys", "oidc", "edgeTrust"}},
		{name: "oidc and edgeTrust", ea: &v1alpha1.AgentRuntimeExternalAuth{EdgeTrust: &v1alpha1.AgentRuntimeEdgeTrust{}, OIDC: &v1alpha1.AgentRuntimeOIDC{}},
			want: []string{"oidc", "edgeTrust"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ar := agentRuntimeBase()
			ar.Spec.ExternalAuth = tc.ea
			if got := AgentRuntimeExternalValidators(ar); !slices.Equal(got, tc.want) {
				t.Errorf("validators = %v, want %v", got, tc.want)
			}
		})
	}
}
