package agentruntime

import (
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/agentruntime/workload"
)

// status.facade.endpoints (agentruntime.md § Other status fields): external
// URLs derived from the observed HTTPRoutes. Pure functions of the routes
// as the API server has them and of the Gateway as cached.
//
//   - protocol is the facade type the route exposes (LabelFacade);
//   - host is the route's hostname, path the root path it matches;
//   - scheme and port come from the Gateway's listener the route attaches
//     to: the reference's sectionName, else the HTTP/HTTPS listener whose
//     hostname matches the host (HTTPS preferred). HTTPS or TLS => https,
//     else http. Unknown listener (Gateway not found, no listener
//     matches): https on 443, the usual public edge;
//   - url is scheme://host[:port]path, the port left out when it is the
//     scheme's default (443, 80);
//   - valid is true when the Gateway implementation's status.parents entry
//     for our parentRef has Accepted and ResolvedRefs True for the route's
//     current generation; reason is otherwise the failing condition's
//     reason, or Pending when no controller has reported on it yet.

// facadeEndpoints are the routes' endpoints, in the routes' order.
func facadeEndpoints(routes []gatewayv1.HTTPRoute, gw *gatewayv1.Gateway, ref workload.GatewayRef) []v1alpha1.AgentRuntimeFacadeEndpoint {
	var out []v1alpha1.AgentRuntimeFacadeEndpoint
	for i := range routes {
		if e, ok := routeEndpoint(&routes[i], gw, ref); ok {
			out = append(out, e)
		}
	}
	return out
}

// routeEndpoint is one route's endpoint; false for a route with no
// hostname (the operator's always have one).
func routeEndpoint(rt *gatewayv1.HTTPRoute, gw *gatewayv1.Gateway, ref workload.GatewayRef) (v1alpha1.AgentRuntimeFacadeEndpoint, bool) {
	if len(rt.Spec.Hostnames) == 0 {
		return v1alpha1.AgentRuntimeFacadeEndpoint{}, false
	}
	host := string(rt.Spec.Hostnames[0])
	path := workload.RootPath
	if len(rt.Spec.Rules) > 0 && len(rt.Spec.Rules[0].Matches) > 0 {
		if m := rt.Spec.Rules[0].Matches[0].Path; m != nil && m.Value != nil {
			path = *m.Value
		}
	}
	scheme, port := "https", int32(443)
	if l := gatewayListener(gw, ref.SectionName, host); l != nil {
		scheme, port = listenerScheme(l.Protocol), l.Port
	}
	url := scheme + "://" + host
	if (scheme == "https" && port != 443) || (scheme == "http" && port != 80) {
		url += ":" + strconv.Itoa(int(port))
	}
	valid, reason := routeAccepted(rt, ref)
	return v1alpha1.AgentRuntimeFacadeEndpoint{
		Protocol: rt.Labels[workload.LabelFacade], URL: url + path, Scheme: scheme, Host: host, Path: path, Port: port,
		RouteName: rt.Name, RouteNamespace: rt.Namespace, Valid: valid, Reason: reason,
	}, true
}

func listenerScheme(p gatewayv1.ProtocolType) string {
	if p == gatewayv1.HTTPSProtocolType || p == gatewayv1.TLSProtocolType {
		return "https"
	}
	return "http"
}

// gatewayListener is the listener a route on host attaches to: the named
// one (sectionName), else the HTTP or HTTPS listener whose hostname
// matches host, HTTPS first, then in the Gateway's order. Nil when gw is
// nil or none matches.
func gatewayListener(gw *gatewayv1.Gateway, sectionName, host string) *gatewayv1.Listener {
	if gw == nil {
		return nil
	}
	ls := gw.Spec.Listeners
	if sectionName != "" {
		for i := range ls {
			if string(ls[i].Name) == sectionName {
				return &ls[i]
			}
		}
		return nil
	}
	var httpL *gatewayv1.Listener
	for i := range ls {
		l := &ls[i]
		if !listenerHostMatches(l.Hostname, host) {
			continue
		}
		switch l.Protocol {
		case gatewayv1.HTTPSProtocolType:
			return l
		case gatewayv1.HTTPProtocolType:
			if httpL == nil {
				httpL = l
			}
		}
	}
	return httpL
}

// listenerHostMatches follows the Gateway API: no hostname matches every
// host, `*.example.com` matches any host with at least one more label,
// otherwise the hosts are equal (case-insensitively).
func listenerHostMatches(h *gatewayv1.Hostname, host string) bool {
	if h == nil || *h == "" {
		return true
	}
	lh, host := strings.ToLower(string(*h)), strings.ToLower(host)
	if suffix, ok := strings.CutPrefix(lh, "*"); ok {
		return strings.HasSuffix(host, suffix) && len(host) > len(suffix)
	}
	return lh == host
}

// routeAccepted reads the route's status.parents entry for ref: valid when
// Accepted and ResolvedRefs are True for the route's generation. The
// entry is written by the Gateway implementation (a third-party
// controller), never by the operator.
func routeAccepted(rt *gatewayv1.HTTPRoute, ref workload.GatewayRef) (bool, string) {
	reason := string(gatewayv1.RouteReasonPending)
	for _, p := range rt.Status.Parents {
		if !parentRefIs(p.ParentRef, rt.Namespace, ref) {
			continue
		}
		ok, r := parentAccepted(p.Conditions, rt.Generation)
		if ok {
			return true, ""
		}
		if r != "" {
			reason = r
		}
	}
	return false, reason
}

// parentAccepted is whether Accepted and ResolvedRefs are True and
// current, else the first failing condition's reason ("" when both are
// missing or stale: still pending).
func parentAccepted(conds []metav1.Condition, gen int64) (bool, string) {
	for _, t := range []gatewayv1.RouteConditionType{gatewayv1.RouteConditionAccepted, gatewayv1.RouteConditionResolvedRefs} {
		c := meta.FindStatusCondition(conds, string(t))
		switch {
		case c == nil || (c.ObservedGeneration != 0 && c.ObservedGeneration < gen):
			return false, ""
		case c.Status != metav1.ConditionTrue:
			if c.Reason == "" {
				return false, string(t) + "Not" + string(c.Status)
			}
			return false, c.Reason
		}
	}
	return true, ""
}

// parentRefIs reports whether a status.parents entry's parentRef is the
// default-exposure Gateway (group and kind defaulted to the Gateway API's
// Gateway, namespace to the route's).
func parentRefIs(p gatewayv1.ParentReference, routeNamespace string, ref workload.GatewayRef) bool {
	if p.Group != nil && string(*p.Group) != gatewayv1.GroupName {
		return false
	}
	if p.Kind != nil && string(*p.Kind) != "Gateway" {
		return false
	}
	ns := routeNamespace
	if p.Namespace != nil {
		ns = string(*p.Namespace)
	}
	section := ""
	if p.SectionName != nil {
		section = string(*p.SectionName)
	}
	return ns == ref.Namespace && string(p.Name) == ref.Name && section == ref.SectionName
}
