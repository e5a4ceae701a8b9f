package agentruntime

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/oidcfetch"
	"github.com/altairalabs/omnia/reconcile/prober"
	"github.com/altairalabs/omnia/rules"
)

func withExternalAuth(ea *v1alpha1.AgentRuntimeExternalAuth) func(*v1alpha1.AgentRuntime) {
	return func(a *v1alpha1.AgentRuntime) { a.Spec.ExternalAuth = ea }
}

func withA2AManagementPlaneOff(a *v1alpha1.AgentRuntime) {
	a.Spec.Facades = append(a.Spec.Facades, v1alpha1.AgentRuntimeFacade{Type: v1alpha1.AgentRuntimeFacadeTypeA2A,
		ManagementPlane: ptr.To(false), A2A: &v1alpha1.AgentRuntimeFacadeA2A{}})
}

var testOIDC = &v1alpha1.AgentRuntimeOIDC{Issuer: "https://id.example.com/", Audience: "bot"}

func TestExternalAuthCondition(t *testing.T) {
	for _, tc := range []struct {
		name       string
		mut        []func(*v1alpha1.AgentRuntime)
		obs        *oidcObservation
		status     metav1.ConditionStatus
		reason     string
		msgHas     []string
		msgHasNone []string
	}{
		{name: "no externalAuth: management plane only", status: metav1.ConditionTrue, reason: v1alpha1.AgentRuntimeReasonManagementPlaneOnly,
			msgHas: []string{"401"}},
		{name: "managementPlane false, no validator: no callers", mut: []func(*v1alpha1.AgentRuntime){withA2AManagementPlaneOff},
			status: metav1.ConditionFalse, reason: v1alpha1.AgentRuntimeReasonNoCallersAccepted,
			msgHas: []string{"[agentruntime/facade-accepts-callers]", "spec.facades[1].managementPlane"}},
		{name: "managementPlane false with edgeTrust", mut: []func(*v1alpha1.AgentRuntime){withA2AManagementPlaneOff,
			withExternalAuth(&v1alpha1.AgentRuntimeExternalAuth{EdgeTrust: &v1alpha1.AgentRuntimeEdgeTrust{}})},
			status: metav1.ConditionTrue, reason: v1alpha1.AgentRuntimeReasonExternalAuthConfigured, msgHas: []string{"run edgeTrust"}},
		{name: "all three in chain order, oidc waiting for its Secret", mut: []func(*v1alpha1.AgentRuntime){withExternalAuth(&v1alpha1.AgentRuntimeExternalAuth{
			EdgeTrust: &v1alpha1.AgentRuntimeEdgeTrust{}, OIDC: testOIDC, ClientKeys: &v1alpha1.AgentRuntimeClientKeys{}})},
			status: metav1.ConditionTrue, reason: v1alpha1.AgentRuntimeReasonExternalAuthConfigured,
			msgHas: []string{"run clientKeys, oidc, edgeTrust", "agent-support-oidc-jwks exists"}},
		{name: "oidc with its Secret", mut: []func(*v1alpha1.AgentRuntime){withExternalAuth(&v1alpha1.AgentRuntimeExternalAuth{OIDC: testOIDC})},
			obs: &oidcObservation{secretExists: true}, status: metav1.ConditionTrue, reason: v1alpha1.AgentRuntimeReasonExternalAuthConfigured,
			msgHas: []string{"run oidc"}, msgHasNone: []string{"once"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ar := agent(tc.mut...)
			ar.Generation = 3
			findings := byCondition(rules.Default.Evaluate("AgentRuntime", rules.Input{Object: ar}, rules.Options{Stages: []rules.Stage{rules.StageAdmission}}),
				v1alpha1.AgentRuntimeConditionExternalAuth)
			c := externalAuthCondition(ar, findings, tc.obs, ar.Generation)
			if c.Type != v1alpha1.AgentRuntimeConditionExternalAuth || c.Status != tc.status || c.Reason != tc.reason || c.ObservedGeneration != 3 {
				t.Fatalf("condition = %+v, want %s %s", c, tc.status, tc.reason)
			}
			for _, s := range tc.msgHas {
				if !strings.Contains(c.Message, s) {
					t.Errorf("message %q lacks %q", c.Message, s)
				}
			}
			for _, s := range tc.msgHasNone {
				if strings.Contains(c.Message, s) {
					t.Errorf("message %q has %q", c.Message, s)
				}
			}
		})
	}
}

func TestOIDCJWKSCondition(t *testing.T) {
	at := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	ok := &prober.Result{Outcome: prober.Outcome{StatusCode: 200, Detail: "2 keys from https://id.example.com/jwks"}, Fingerprint: "https://id.example.com", At: at}
	failed := func(class oidcfetch.Class) *prober.Result {
		return &prober.Result{Outcome: prober.Outcome{Failure: string(class), Detail: "https://id.example.com/jwks: HTTP 503"}, Fingerprint: "https://id.example.com", At: at}
	}
	for _, tc := range []struct {
		name   string
		obs    oidcObservation
		status metav1.ConditionStatus
		reason string
		msgHas []string
	}{
		{name: "not fetched yet", status: metav1.ConditionFalse, reason: v1alpha1.AgentRuntimeReasonJWKSPending, msgHas: []string{"without oidc"}},
		{name: "fetched and mirrored", obs: oidcObservation{result: ok, secretExists: true}, status: metav1.ConditionTrue,
			reason: v1alpha1.AgentRuntimeReasonJWKSMirrored, msgHas: []string{"2 keys from https://id.example.com/jwks", "6h0m0s"}},
		{name: "mirrored before a restart, no fetch yet", obs: oidcObservation{secretExists: true, mirroredAt: "2026-12-01T06:00:00Z", jwksURI: "https://id.example.com/jwks"},
			status: metav1.ConditionTrue, reason: v1alpha1.AgentRuntimeReasonJWKSMirrored, msgHas: []string{"2026-12-01T06:00:00Z"}},
		{name: "refresh failed, last good kept", obs: oidcObservation{result: failed(oidcfetch.ClassHTTPStatus), secretExists: true, mirroredAt: "2026-12-01T06:00:00Z"},
			status: metav1.ConditionTrue, reason: v1alpha1.AgentRuntimeReasonJWKSStale, msgHas: []string{"HTTPStatus", "https://id.example.com/jwks", "2026-12-01T06:00:00Z"}},
		{name: "first fetch failed", obs: oidcObservation{result: failed(oidcfetch.ClassConnection)},
			status: metav1.ConditionFalse, reason: v1alpha1.AgentRuntimeReasonJWKSFetchFailed, msgHas: []string{"ConnectionFailed", "https://id.example.com/jwks"}},
		{name: "blocked address", obs: oidcObservation{result: failed(oidcfetch.ClassBlockedAddress)},
			status: metav1.ConditionFalse, reason: v1alpha1.AgentRuntimeReasonJWKSFetchFailed, msgHas: []string{"BlockedAddress"}},
		{name: "invalid JWKS", obs: oidcObservation{result: failed(oidcfetch.ClassInvalidJWKS)},
			status: metav1.ConditionFalse, reason: v1alpha1.AgentRuntimeReasonJWKSInvalid, msgHas: []string{"InvalidJWKS"}},
		{name: "discovery without jwks_uri", obs: oidcObservation{result: failed(oidcfetch.ClassBadDiscovery)},
			status: metav1.ConditionFalse, reason: v1alpha1.AgentRuntimeReasonJWKSInvalid},
		{name: "jwks_uri not https", obs: oidcObservation{result: failed(oidcfetch.ClassNotHTTPS)},
			status: metav1.ConditionFalse, reason: v1alpha1.AgentRuntimeReasonIssuerNotHTTPS},
		{name: "issuer not https: never fetched", obs: oidcObservation{refused: oidcfetch.CheckURL("http://id.example.com/.well-known/openid-configuration")},
			status: metav1.ConditionFalse, reason: v1alpha1.AgentRuntimeReasonIssuerNotHTTPS, msgHas: []string{"NotHTTPS"}},
		{name: "issuer on the metadata address: never fetched", obs: oidcObservation{refused: oidcfetch.CheckURL("https://169.254.169.254/.well-known/openid-configuration")},
			status: metav1.ConditionFalse, reason: v1alpha1.AgentRuntimeReasonJWKSFetchFailed, msgHas: []string{"BlockedAddress"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.obs.issuer = "https://id.example.com"
			c := oidcJWKSCondition(tc.obs, DefaultJWKSRefresh, 4)
			if c.Type != v1alpha1.AgentRuntimeConditionOIDCJWKSReady || c.Status != tc.status || c.Reason != tc.reason || c.ObservedGeneration != 4 {
				t.Fatalf("condition = %+v, want %s %s", c, tc.status, tc.reason)
			}
			for _, s := range tc.msgHas {
				if !strings.Contains(c.Message, s) {
					t.Errorf("message %q lacks %q", c.Message, s)
				}
			}
		})
	}
}

// OIDCJWKSReady is set only with externalAuth.oidc, and removed without it.
func TestSetExternalAuthStatusRemovesOIDCJWKSReady(t *testing.T) {
	ar := agent()
	st := v1alpha1.AgentRuntimeStatus{Conditions: []metav1.Condition{{Type: v1alpha1.AgentRuntimeConditionOIDCJWKSReady, Status: metav1.ConditionTrue, Reason: "JWKSMirrored"}}}
	setExternalAuthStatus(&st, ar, statusInput{now: metav1.Now()})
	for _, c := range st.Conditions {
		if c.Type == v1alpha1.AgentRuntimeConditionOIDCJWKSReady {
			t.Errorf("OIDCJWKSReady %+v kept without externalAuth.oidc", c)
		}
	}
	withExternalAuth(&v1alpha1.AgentRuntimeExternalAuth{OIDC: testOIDC})(ar)
	setExternalAuthStatus(&st, ar, statusInput{now: metav1.Now(), externalAuth: &externalAuthOutcome{oidc: &oidcObservation{issuer: "https://id.example.com"}}})
	var found bool
	for _, c := range st.Conditions {
		found = found || c.Type == v1alpha1.AgentRuntimeConditionOIDCJWKSReady && c.Reason == v1alpha1.AgentRuntimeReasonJWKSPending
	}
	if !found {
		t.Errorf("conditions %+v, want OIDCJWKSReady JWKSPending", st.Conditions)
	}
}
