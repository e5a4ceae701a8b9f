package workload

import (
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules"
)

// LabelFacade is on every operator HTTPRoute: the type of the facade it
// exposes, status.facade.endpoints[].protocol.
const LabelFacade = "omnia.altairalabs.ai/facade"

// RootPath is the path every operator route matches (a PathPrefix match on
// /): each facade has the whole host.
const RootPath = "/"

// GatewayRef names the default-exposure Gateway and, optionally, the
// listener (sectionName) the routes attach to.
type GatewayRef struct {
	Namespace, Name, SectionName string
}

// ParseGatewayRef parses `<namespace>/<name>[/<sectionName>]`.
func ParseGatewayRef(s string) (GatewayRef, error) {
	parts := strings.Split(s, "/")
	if len(parts) < 2 || len(parts) > 3 || parts[0] == "" || parts[1] == "" || (len(parts) == 3 && parts[2] == "") {
		return GatewayRef{}, fmt.Errorf("gateway %q: want <namespace>/<name>[/<sectionName>]", s)
	}
	g := GatewayRef{Namespace: parts[0], Name: parts[1]}
	if len(parts) == 3 {
		g.SectionName = parts[2]
	}
	return g, nil
}

// String is the `<namespace>/<name>[/<sectionName>]` form.
func (g GatewayRef) String() string {
	s := g.Namespace + "/" + g.Name
	if g.SectionName != "" {
		s += "/" + g.SectionName
	}
	return s
}

// HTTPRouteName is a facade's route name (agentruntime.md § facades):
// `<agent>-facade` for the primary facade, `<agent>-<type>` for a
// secondary one.
func HTTPRouteName(ar *v1alpha1.AgentRuntime, t v1alpha1.AgentRuntimeFacadeType, primary bool) string {
	if primary {
		return ar.Name + "-facade"
	}
	return ar.Name + "-" + string(t)
}

// FacadeDataPort is the Service port of the facade of type t's data plane
// (FacadePorts: `facade` for the primary, `a2a`/`mcp` for a secondary);
// false when it has none (dataPlane: false).
func FacadeDataPort(ar *v1alpha1.AgentRuntime, t v1alpha1.AgentRuntimeFacadeType) (FacadePort, bool) {
	for _, p := range FacadePorts(ar) {
		if !p.Management && p.Type == t {
			return p, true
		}
	}
	return FacadePort{}, false
}

// HTTPRoute builds the route of one exposed facade: its host, the Gateway
// (and listener, when the reference names one) as its only parent, and one
// rule sending the root path to the facade's port on the agent's Service.
// Nil when the facade has no host (no expose.host and no base domain) or
// no data port. The route is owned by the agent and carries the operator's
// labels (so the group's cache selects it) and LabelFacade.
func HTTPRoute(ar *v1alpha1.AgentRuntime, e rules.AgentRuntimeExposedFacade, gw GatewayRef) *gatewayv1.HTTPRoute {
	port, ok := FacadeDataPort(ar, e.Type)
	if e.Host == "" || !ok {
		return nil
	}
	parent := gatewayv1.ParentReference{
		Namespace: ptr.To(gatewayv1.Namespace(gw.Namespace)),
		Name:      gatewayv1.ObjectName(gw.Name),
	}
	if gw.SectionName != "" {
		parent.SectionName = ptr.To(gatewayv1.SectionName(gw.SectionName))
	}
	meta := ObjectMeta(ar, HTTPRouteName(ar, e.Type, e.Primary))
	meta.Labels[LabelFacade] = string(e.Type)
	return &gatewayv1.HTTPRoute{
		TypeMeta:   metav1.TypeMeta{APIVersion: gatewayv1.GroupVersion.String(), Kind: "HTTPRoute"},
		ObjectMeta: meta,
		Spec: gatewayv1.HTTPRouteSpec{
			CommonRouteSpec: gatewayv1.CommonRouteSpec{ParentRefs: []gatewayv1.ParentReference{parent}},
			Hostnames:       []gatewayv1.Hostname{gatewayv1.Hostname(e.Host)},
			Rules: []gatewayv1.HTTPRouteRule{{
				Matches: []gatewayv1.HTTPRouteMatch{{Path: &gatewayv1.HTTPPathMatch{
					Type: ptr.To(gatewayv1.PathMatchPathPrefix), Value: ptr.To(RootPath),
				}}},
				BackendRefs: []gatewayv1.HTTPBackendRef{{BackendRef: gatewayv1.BackendRef{
					BackendObjectReference: gatewayv1.BackendObjectReference{
						Name: gatewayv1.ObjectName(ServiceName(ar)),
						Port: ptr.To(port.Port),
					},
				}}},
			}},
		},
	}
}
