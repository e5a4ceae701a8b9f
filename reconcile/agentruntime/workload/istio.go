package workload

import (
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// Istio's routing kinds, built as unstructured: Istio's Go modules are not
// a dependency of the operator (the local cluster only reads its CRD
// file), and a cluster without Istio must still run the operator.
var (
	VirtualServiceGVK  = schema.GroupVersionKind{Group: "networking.istio.io", Version: "v1", Kind: "VirtualService"}
	DestinationRuleGVK = schema.GroupVersionKind{Group: "networking.istio.io", Version: "v1", Kind: "DestinationRule"}
)

// VirtualServiceGroupKind is the VirtualService's "group/Kind", as
// clusterfacts.Installed spells it: the mesh is available when it is served.
const VirtualServiceGroupKind = "networking.istio.io/VirtualService"

// Default DestinationRule subset names (mesh.* and istio.destinationRule.*).
const (
	DefaultStableSubset    = "stable"
	DefaultCandidateSubset = "canary"
)

// WaypointLabel is the Istio ambient label the agent Service carries when
// spec.rollout.trafficRouting.mesh.waypoint is set.
const WaypointLabel = "istio.io/use-waypoint"

// MeshRouteName is the one HTTP route of the operator-owned VirtualService.
const MeshRouteName = "omnia-rollout"

// TrafficRoutingOf is spec.rollout.trafficRouting, nil when unset.
func TrafficRoutingOf(ar *v1alpha1.AgentRuntime) *v1alpha1.AgentRuntimeRolloutTrafficRouting {
	if ar.Spec.Rollout == nil {
		return nil
	}
	return ar.Spec.Rollout.TrafficRouting
}

// NewVirtualService is an empty VirtualService to read into or watch.
func NewVirtualService() *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(VirtualServiceGVK)
	return u
}

// NewDestinationRule is an empty DestinationRule to read into or watch.
func NewDestinationRule() *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(DestinationRuleGVK)
	return u
}

// SubsetNames applies the subset defaults (stable / canary).
func SubsetNames(stable, canary string) (string, string) {
	if stable == "" {
		stable = DefaultStableSubset
	}
	if canary == "" {
		canary = DefaultCandidateSubset
	}
	return stable, canary
}

// meshOf is spec.rollout.trafficRouting.mesh, never nil.
func meshOf(ar *v1alpha1.AgentRuntime) v1alpha1.AgentRuntimeRolloutMesh {
	if tr := TrafficRoutingOf(ar); tr != nil && tr.Mesh != nil {
		return *tr.Mesh
	}
	return v1alpha1.AgentRuntimeRolloutMesh{}
}

// StickyHeader is spec.rollout.stickySession.hashOn; "" when unset.
func StickyHeader(ar *v1alpha1.AgentRuntime) string {
	if ar.Spec.Rollout == nil || ar.Spec.Rollout.StickySession == nil {
		return ""
	}
	return ar.Spec.Rollout.StickySession.HashOn
}

// WaypointOf is the ambient waypoint the agent Service is labelled with
// (WaypointLabel); "" when spec.rollout.trafficRouting.mesh.waypoint is unset.
func WaypointOf(ar *v1alpha1.AgentRuntime) string { return meshOf(ar).Waypoint }

// setChildMeta gives u the agent's child metadata: name, namespace,
// operator labels and the controlling owner reference.
func setChildMeta(u *unstructured.Unstructured, ar *v1alpha1.AgentRuntime, name string) {
	m := ObjectMeta(ar, name)
	u.SetName(m.Name)
	u.SetNamespace(m.Namespace)
	u.SetLabels(m.Labels)
	u.SetOwnerReferences(m.OwnerReferences)
}

// weightedRoute is the destinations of one HTTP route: stable at
// 100-weight and the candidate at weight, or stable alone at weight 0.
// template is a destination to copy (its port, say); its subset is set.
func weightedRoute(template map[string]any, stable, canary string, weight int32) []any {
	dest := func(subset string) map[string]any {
		d := make(map[string]any, len(template)+1)
		for k, v := range template {
			d[k] = v
		}
		d["subset"] = subset
		return d
	}
	if weight <= 0 {
		return []any{map[string]any{"destination": dest(stable), "weight": int64(100)}}
	}
	return []any{
		map[string]any{"destination": dest(stable), "weight": int64(100 - weight)},
		map[string]any{"destination": dest(canary), "weight": int64(weight)},
	}
}

// MeshVirtualService builds the operator-owned VirtualService of mode mesh:
// named after the agent, matching mesh.hosts (default the agent Service's
// DNS name), with one HTTP route splitting the agent Service between the
// stable and candidate subsets by weight.
func MeshVirtualService(ar *v1alpha1.AgentRuntime, weight int32) *unstructured.Unstructured {
	m := meshOf(ar)
	stable, canary := SubsetNames(m.StableSubset, m.CandidateSubset)
	hosts := make([]any, 0, max(len(m.Hosts), 1))
	for _, h := range m.Hosts {
		hosts = append(hosts, h)
	}
	if len(hosts) == 0 {
		hosts = append(hosts, ServiceHost(ar))
	}
	u := &unstructured.Unstructured{Object: map[string]any{
		"spec": map[string]any{
			"hosts": hosts,
			"http": []any{map[string]any{
				"name":  MeshRouteName,
				"route": weightedRoute(map[string]any{"host": ServiceHost(ar)}, stable, canary, min(weight, 100)),
			}},
		},
	}}
	u.SetGroupVersionKind(VirtualServiceGVK)
	setChildMeta(u, ar, ServiceName(ar))
	return u
}

// MeshDestinationRule builds the operator-owned DestinationRule of mode
// mesh: the agent Service's host, the stable and candidate subsets
// selecting LabelRolloutTrack, and, with stickySession, consistent hashing
// on its header.
func MeshDestinationRule(ar *v1alpha1.AgentRuntime) *unstructured.Unstructured {
	m := meshOf(ar)
	stable, canary := SubsetNames(m.StableSubset, m.CandidateSubset)
	spec := map[string]any{
		"host": ServiceHost(ar),
		"subsets": []any{
			map[string]any{"name": stable, "labels": map[string]any{LabelRolloutTrack: RolloutTrackStable}},
			map[string]any{"name": canary, "labels": map[string]any{LabelRolloutTrack: RolloutTrackCandidate}},
		},
	}
	if h := StickyHeader(ar); h != "" {
		spec["trafficPolicy"] = consistentHash(h)
	}
	u := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
	u.SetGroupVersionKind(DestinationRuleGVK)
	setChildMeta(u, ar, ServiceName(ar))
	return u
}

func consistentHash(header string) map[string]any {
	return map[string]any{"loadBalancer": map[string]any{"consistentHash": map[string]any{"httpHeaderName": header}}}
}

// PatchVirtualServiceRoutes returns a copy of the user's VirtualService
// whose HTTP routes named in routes send weight to the candidate subset
// and the rest to the stable one (weight 0: stable alone). Each managed
// route keeps its own destination host and port (its first destination's;
// host when it has none); every other route, and every other field, is
// untouched. missing lists the routes not found.
func PatchVirtualServiceRoutes(vs *unstructured.Unstructured, routes []string, host, stable, canary string, weight int32) (*unstructured.Unstructured, []string, error) {
	out := vs.DeepCopy()
	http, _, err := unstructured.NestedSlice(out.Object, "spec", "http")
	if err != nil {
		return nil, nil, fmt.Errorf("VirtualService %s: spec.http: %w", vs.GetName(), err)
	}
	found := map[string]bool{}
	for i, raw := range http {
		route, ok := raw.(map[string]any)
		if !ok {
			continue
		}
		name, _ := route["name"].(string)
		if !slices.Contains(routes, name) {
			continue
		}
		found[name] = true
		template := map[string]any{"host": host}
		if dests, ok := route["route"].([]any); ok && len(dests) > 0 {
			if d0, ok := dests[0].(map[string]any); ok {
				if d, ok := d0["destination"].(map[string]any); ok && d["host"] != nil {
					template = map[string]any{}
					for k, v := range d {
						if k != "subset" {
							template[k] = v
						}
					}
				}
			}
		}
		route["route"] = weightedRoute(template, stable, canary, min(weight, 100))
		http[i] = route
	}
	var missing []string
	for _, r := range routes {
		if !found[r] {
			missing = append(missing, r)
		}
	}
	if len(missing) > 0 {
		return vs, missing, nil
	}
	if err := unstructured.SetNestedSlice(out.Object, http, "spec", "http"); err != nil {
		return nil, nil, err
	}
	return out, nil, nil
}

// EnsureDestinationRuleSubsets returns a copy of the user's
// DestinationRule with the stable and candidate subsets selecting
// LabelRolloutTrack: an existing subset of that name gets those labels
// (its other fields kept), a missing one is appended. With header set, each
// of the two subsets hashes consistently on it. Other subsets and fields
// are untouched.
func EnsureDestinationRuleSubsets(dr *unstructured.Unstructured, stable, canary, header string) (*unstructured.Unstructured, error) {
	out := dr.DeepCopy()
	subsets, _, err := unstructured.NestedSlice(out.Object, "spec", "subsets")
	if err != nil {
		return nil, fmt.Errorf("DestinationRule %s: spec.subsets: %w", dr.GetName(), err)
	}
	for _, want := range []struct{ name, track string }{{stable, RolloutTrackStable}, {canary, RolloutTrackCandidate}} {
		idx := -1
		for i, raw := range subsets {
			if s, ok := raw.(map[string]any); ok && s["name"] == want.name {
				idx = i
				break
			}
		}
		s := map[string]any{"name": want.name}
		if idx >= 0 {
			s = subsets[idx].(map[string]any)
		}
		s["labels"] = map[string]any{LabelRolloutTrack: want.track}
		if header != "" {
			tp, _ := s["trafficPolicy"].(map[string]any)
			if tp == nil {
				tp = map[string]any{}
			}
			lb, _ := tp["loadBalancer"].(map[string]any)
			if lb == nil {
				lb = map[string]any{}
			}
			delete(lb, "simple") // simple and consistentHash are exclusive
			lb["consistentHash"] = map[string]any{"httpHeaderName": header}
			tp["loadBalancer"] = lb
			s["trafficPolicy"] = tp
		}
		if idx >= 0 {
			subsets[idx] = s
		} else {
			subsets = append(subsets, s)
		}
	}
	if err := unstructured.SetNestedSlice(out.Object, subsets, "spec", "subsets"); err != nil {
		return nil, err
	}
	return out, nil
}
