package workload

import (
	"testing"

	"k8s.io/utils/ptr"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules"
)

var testGateway = GatewayRef{Namespace: "edge", Name: "public"}

func exposeOn(host string) *v1alpha1.AgentRuntimeFacadeExpose {
	return &v1alpha1.AgentRuntimeFacadeExpose{Enabled: true, Host: host}
}

// routesOf builds every exposed facade's route as applyExposure does.
func routesOf(ar *v1alpha1.AgentRuntime, gw GatewayRef, domain string) []*gatewayv1.HTTPRoute {
	var out []*gatewayv1.HTTPRoute
	for _, e := range rules.AgentRuntimeExposedFacades(ar, domain) {
		if e.ConflictsWith < 0 {
			if rt := HTTPRoute(ar, e, gw); rt != nil {
				out = append(out, rt)
			}
		}
	}
	return out
}

// TestHTTPRouteBuilder: route names, hosts (defaults and overrides),
// parent and backend port per facade (agentruntime.md § facades, the
// expose paragraph), and no route for a facade without its data plane.
func TestHTTPRouteBuilder(t *testing.T) {
	type want struct {
		name, host, facade string
		port               int32
	}
	for _, tc := range []struct {
		name    string
		facades []v1alpha1.AgentRuntimeFacade
		gw      GatewayRef
		want    []want
	}{
		{"primary websocket on the default host", []v1alpha1.AgentRuntimeFacade{{Type: v1alpha1.AgentRuntimeFacadeTypeWebSocket, Expose: exposeOn("")}},
			testGateway, []want{{"support-facade", "support.team-a.example.com", "websocket", 8080}}},
		{"websocket and a2a: secondary on <agent>-a2a, its own port", []v1alpha1.AgentRuntimeFacade{
			{Type: v1alpha1.AgentRuntimeFacadeTypeWebSocket, Port: ptr.To[int32](8000), Expose: exposeOn("")},
			{Type: v1alpha1.AgentRuntimeFacadeTypeA2A, A2A: &v1alpha1.AgentRuntimeFacadeA2A{Port: ptr.To[int32](9100)}, Expose: exposeOn("")},
		}, testGateway, []want{{"support-facade", "support.team-a.example.com", "websocket", 8000}, {"support-a2a", "support-a2a.team-a.example.com", "a2a", 9100}}},
		{"a2a alone is the primary, on the facade port", []v1alpha1.AgentRuntimeFacade{{Type: v1alpha1.AgentRuntimeFacadeTypeA2A, Expose: exposeOn("")}},
			testGateway, []want{{"support-facade", "support.team-a.example.com", "a2a", 8080}}},
		{"function rest + mcp, host override on mcp only", []v1alpha1.AgentRuntimeFacade{
			{Type: v1alpha1.AgentRuntimeFacadeTypeREST},
			{Type: v1alpha1.AgentRuntimeFacadeTypeMCP, Expose: exposeOn("Tools.Example.org")},
		}, testGateway, []want{{"support-mcp", "tools.example.org", "mcp", 9998}}},
		{"dataPlane false: expose.enabled ignored", []v1alpha1.AgentRuntimeFacade{
			{Type: v1alpha1.AgentRuntimeFacadeTypeWebSocket, Expose: exposeOn("")},
			{Type: v1alpha1.AgentRuntimeFacadeTypeA2A, DataPlane: ptr.To(false), Expose: exposeOn("")},
		}, testGateway, []want{{"support-facade", "support.team-a.example.com", "websocket", 8080}}},
		{"expose not enabled: no route", []v1alpha1.AgentRuntimeFacade{{Type: v1alpha1.AgentRuntimeFacadeTypeWebSocket, Expose: &v1alpha1.AgentRuntimeFacadeExpose{Host: "x.example.com"}}},
			testGateway, nil},
		{"a listener named", []v1alpha1.AgentRuntimeFacade{{Type: v1alpha1.AgentRuntimeFacadeTypeWebSocket, Expose: exposeOn("")}},
			GatewayRef{Namespace: "edge", Name: "public", SectionName: "https"}, []want{{"support-facade", "support.team-a.example.com", "websocket", 8080}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ar := agent(func(a *v1alpha1.AgentRuntime) { a.Spec.Facades = tc.facades })
			routes := routesOf(ar, tc.gw, "example.com")
			if len(routes) != len(tc.want) {
				t.Fatalf("%d routes, want %d", len(routes), len(tc.want))
			}
			for i, rt := range routes {
				w := tc.want[i]
				if rt.Name != w.name || rt.Namespace != "team-a" || len(rt.Spec.Hostnames) != 1 || string(rt.Spec.Hostnames[0]) != w.host || rt.Labels[LabelFacade] != w.facade {
					t.Errorf("route %s/%s hosts %v facade %q, want %s %s %s", rt.Namespace, rt.Name, rt.Spec.Hostnames, rt.Labels[LabelFacade], w.name, w.host, w.facade)
				}
				if rt.Labels[LabelManagedBy] != ManagedByValue || rt.Labels[LabelAgent] != "support" {
					t.Errorf("labels %v lack the operator's", rt.Labels)
				}
				if refs := rt.OwnerReferences; len(refs) != 1 || refs[0].UID != ar.UID || !*refs[0].Controller {
					t.Errorf("owner references %+v", refs)
				}
				p := rt.Spec.ParentRefs
				if len(p) != 1 || string(p[0].Name) != tc.gw.Name || string(*p[0].Namespace) != tc.gw.Namespace ||
					(tc.gw.SectionName == "") != (p[0].SectionName == nil) || (p[0].SectionName != nil && string(*p[0].SectionName) != tc.gw.SectionName) {
					t.Errorf("parentRefs %+v, want %s", p, tc.gw)
				}
				r := rt.Spec.Rules
				if len(r) != 1 || len(r[0].Matches) != 1 || *r[0].Matches[0].Path.Type != gatewayv1.PathMatchPathPrefix || *r[0].Matches[0].Path.Value != "/" {
					t.Fatalf("rules %+v, want one root-path match", r)
				}
				b := r[0].BackendRefs
				if len(b) != 1 || string(b[0].Name) != "support" || *b[0].Port != w.port {
					t.Errorf("backendRefs %+v, want the Service support port %d", b, w.port)
				}
			}
		})
	}
}

func TestParseGatewayRef(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want GatewayRef
		err  bool
	}{
		{"edge/public", GatewayRef{Namespace: "edge", Name: "public"}, false},
		{"edge/public/https", GatewayRef{Namespace: "edge", Name: "public", SectionName: "https"}, false},
		{"public", GatewayRef{}, true},
		{"edge/", GatewayRef{}, true},
		{"edge/public/", GatewayRef{}, true},
		{"a/b/c/d", GatewayRef{}, true},
	} {
		got, err := ParseGatewayRef(tc.in)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("ParseGatewayRef(%q) = %+v, %v", tc.in, got, err)
		}
		if err == nil && got.String() != tc.in {
			t.Errorf("String() = %q, want %q", got.String(), tc.in)
		}
	}
}
