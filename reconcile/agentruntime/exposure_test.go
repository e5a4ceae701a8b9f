package agentruntime

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/agentruntime/workload"
	"github.com/altairalabs/omnia/rules"
)

// parentStatus is what a Gateway implementation writes for one parent.
func parentStatus(ref gatewayv1.ParentReference, conds ...metav1.Condition) gatewayv1.RouteParentStatus {
	return gatewayv1.RouteParentStatus{ParentRef: ref, ControllerName: "example.com/gateway", Conditions: conds}
}

func routeCond(t gatewayv1.RouteConditionType, s metav1.ConditionStatus, reason string, gen int64) metav1.Condition {
	return metav1.Condition{Type: string(t), Status: s, Reason: reason, ObservedGeneration: gen}
}

// TestFacadeEndpoints: status.facade.endpoints from an observed route:
// valid from status.parents (Accepted and ResolvedRefs True for our
// parentRef and the current generation), scheme and port from the
// Gateway's listener.
func TestFacadeEndpoints(t *testing.T) {
	ar := agent(func(a *v1alpha1.AgentRuntime) {
		a.Spec.Facades = []v1alpha1.AgentRuntimeFacade{{Type: v1alpha1.AgentRuntimeFacadeTypeWebSocket, Expose: exposeOn("")}}
	})
	ours := gatewayv1.ParentReference{Namespace: ptr.To(gatewayv1.Namespace("edge")), Name: "public"}
	other := gatewayv1.ParentReference{Namespace: ptr.To(gatewayv1.Namespace("edge")), Name: "internal"}
	accepted := routeCond(gatewayv1.RouteConditionAccepted, metav1.ConditionTrue, "Accepted", 1)
	resolved := routeCond(gatewayv1.RouteConditionResolvedRefs, metav1.ConditionTrue, "ResolvedRefs", 1)
	listeners := func(ls ...gatewayv1.Listener) *gatewayv1.Gateway {
		return &gatewayv1.Gateway{Spec: gatewayv1.GatewaySpec{Listeners: ls}}
	}
	https := gatewayv1.Listener{Name: "https", Port: 443, Protocol: gatewayv1.HTTPSProtocolType, Hostname: ptr.To(gatewayv1.Hostname("*.team-a.example.com"))}
	http8080 := gatewayv1.Listener{Name: "http", Port: 8080, Protocol: gatewayv1.HTTPProtocolType}
	otherHost := gatewayv1.Listener{Name: "other", Port: 8443, Protocol: gatewayv1.HTTPSProtocolType, Hostname: ptr.To(gatewayv1.Hostname("*.example.org"))}
	for _, tc := range []struct {
		name    string
		parents []gatewayv1.RouteParentStatus
		gen     int64
		gw      *gatewayv1.Gateway
		ref     workload.GatewayRef
		valid   bool
		reason  string
		url     string
		scheme  string
		port    int32
	}{
		{"no status yet: pending", nil, 1, listeners(https), testGateway, false, "Pending", "https://support.team-a.example.com/", "https", 443},
		{"accepted and resolved", []gatewayv1.RouteParentStatus{parentStatus(ours, accepted, resolved)}, 1, listeners(http8080, https), testGateway,
			true, "", "https://support.team-a.example.com/", "https", 443},
		{"not allowed by the listeners", []gatewayv1.RouteParentStatus{parentStatus(ours,
			routeCond(gatewayv1.RouteConditionAccepted, metav1.ConditionFalse, "NotAllowedByListeners", 1), resolved)}, 1, listeners(https), testGateway,
			false, "NotAllowedByListeners", "https://support.team-a.example.com/", "https", 443},
		{"backend not found", []gatewayv1.RouteParentStatus{parentStatus(ours, accepted,
			routeCond(gatewayv1.RouteConditionResolvedRefs, metav1.ConditionFalse, "BackendNotFound", 1))}, 1, listeners(https), testGateway,
			false, "BackendNotFound", "https://support.team-a.example.com/", "https", 443},
		{"accepted by another Gateway only", []gatewayv1.RouteParentStatus{parentStatus(other, accepted, resolved)}, 1, listeners(https), testGateway,
			false, "Pending", "https://support.team-a.example.com/", "https", 443},
		{"status of an older generation", []gatewayv1.RouteParentStatus{parentStatus(ours, accepted, resolved)}, 2, listeners(https), testGateway,
			false, "Pending", "https://support.team-a.example.com/", "https", 443},
		{"HTTP listener on 8080: port in the URL", []gatewayv1.RouteParentStatus{parentStatus(ours, accepted, resolved)}, 1, listeners(otherHost, http8080), testGateway,
			true, "", "http://support.team-a.example.com:8080/", "http", 8080},
		{"named listener", []gatewayv1.RouteParentStatus{parentStatus(gatewayv1.ParentReference{Namespace: ours.Namespace, Name: "public", SectionName: ptr.To(gatewayv1.SectionName("other"))}, accepted, resolved)},
			1, listeners(https, otherHost), workload.GatewayRef{Namespace: "edge", Name: "public", SectionName: "other"}, true, "", "https://support.team-a.example.com:8443/", "https", 8443},
		{"Gateway not found: https on 443", []gatewayv1.RouteParentStatus{parentStatus(ours, accepted, resolved)}, 1, nil, testGateway,
			true, "", "https://support.team-a.example.com/", "https", 443},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rt := routesOf(ar, tc.ref, "example.com")[0]
			rt.Generation = tc.gen
			rt.Status.Parents = tc.parents
			got := facadeEndpoints([]gatewayv1.HTTPRoute{*rt}, tc.gw, tc.ref)
			want := v1alpha1.AgentRuntimeFacadeEndpoint{Protocol: "websocket", URL: tc.url, Scheme: tc.scheme, Host: "support.team-a.example.com", Path: "/",
				Port: tc.port, RouteName: "support-facade", RouteNamespace: "team-a", Valid: tc.valid, Reason: tc.reason}
			if len(got) != 1 || got[0] != want {
				t.Errorf("endpoints = %+v\nwant        %+v", got, want)
			}
		})
	}
}

// TestExposureCondition: Exposed from what the apply step did, absent
// when no facade asks for exposure.
func TestExposureCondition(t *testing.T) {
	req := []rules.AgentRuntimeExposedFacade{{Index: 0, Type: v1alpha1.AgentRuntimeFacadeTypeWebSocket, Primary: true, Host: "h", ConflictsWith: -1}}
	valid := v1alpha1.AgentRuntimeFacadeEndpoint{RouteName: "support-facade", Valid: true}
	pending := v1alpha1.AgentRuntimeFacadeEndpoint{RouteName: "support-a2a", Reason: "Pending"}
	refused := v1alpha1.AgentRuntimeFacadeEndpoint{RouteName: "support-mcp", Reason: "NotAllowedByListeners"}
	for _, tc := range []struct {
		name    string
		o       exposureOutcome
		present bool
		status  metav1.ConditionStatus
		reason  string
	}{
		{"nothing asks", exposureOutcome{noGateway: true}, false, "", ""},
		{"no Gateway configured", exposureOutcome{requested: req, noGateway: true}, true, metav1.ConditionFalse, v1alpha1.AgentRuntimeReasonNoDefaultExposureGateway},
		{"HTTPRoute not served", exposureOutcome{requested: req, notServed: true}, true, metav1.ConditionFalse, v1alpha1.AgentRuntimeReasonGatewayAPINotInstalled},
		{"host conflict", exposureOutcome{requested: req, conflicts: []string{"x"}, endpoints: []v1alpha1.AgentRuntimeFacadeEndpoint{valid}}, true, metav1.ConditionFalse, v1alpha1.AgentRuntimeReasonExposeHostConflict},
		{"route refused", exposureOutcome{requested: req, rejected: []string{"x"}}, true, metav1.ConditionFalse, v1alpha1.AgentRuntimeReasonRouteRejected},
		{"host refused by a host rule", exposureOutcome{requested: req, refused: []string{"x"}, refusedReason: v1alpha1.AgentRuntimeReasonExposeHostNotAllowed,
			conflicts: []string{"y"}, inUse: []string{"z"}}, true, metav1.ConditionFalse, v1alpha1.AgentRuntimeReasonExposeHostNotAllowed},
		{"host held by another agent", exposureOutcome{requested: req, inUse: []string{"x"}, rejected: []string{"y"}, endpoints: []v1alpha1.AgentRuntimeFacadeEndpoint{valid}},
			true, metav1.ConditionFalse, v1alpha1.AgentRuntimeReasonExposeHostInUse},
		{"one route pending", exposureOutcome{requested: req, endpoints: []v1alpha1.AgentRuntimeFacadeEndpoint{valid, pending}}, true, metav1.ConditionFalse, v1alpha1.AgentRuntimeReasonRoutesPending},
		{"one route refused by the Gateway", exposureOutcome{requested: req, endpoints: []v1alpha1.AgentRuntimeFacadeEndpoint{pending, refused}}, true, metav1.ConditionFalse, v1alpha1.AgentRuntimeReasonRoutesNotAccepted},
		{"all accepted", exposureOutcome{requested: req, endpoints: []v1alpha1.AgentRuntimeFacadeEndpoint{valid}}, true, metav1.ConditionTrue, v1alpha1.AgentRuntimeReasonRoutesAccepted},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, ok := exposureCondition(tc.o, 3)
			if ok != tc.present {
				t.Fatalf("present %v, want %v", ok, tc.present)
			}
			if ok && (c.Type != v1alpha1.AgentRuntimeConditionExposed || c.Status != tc.status || c.Reason != tc.reason || c.ObservedGeneration != 3 || c.Message == "") {
				t.Errorf("condition %+v, want %s %s", c, tc.status, tc.reason)
			}
			if tc.reason == v1alpha1.AgentRuntimeReasonRoutesPending && !strings.Contains(c.Message, "support-a2a: Pending") {
				t.Errorf("message %q does not name the pending route", c.Message)
			}
			if tc.reason == v1alpha1.AgentRuntimeReasonRoutesNotAccepted && !strings.Contains(c.Message, "support-mcp: NotAllowedByListeners") {
				t.Errorf("message %q does not name the refused route", c.Message)
			}
		})
	}
}
