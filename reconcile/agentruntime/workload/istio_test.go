package workload

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

func TestMeshBuilders(t *testing.T) {
	for _, tc := range []struct {
		name          string
		tr            *v1alpha1.AgentRuntimeRolloutTrafficRouting
		sticky        string
		weight        int32
		hosts         []any
		route         []any
		subsets       []any
		trafficPolicy any
		serviceWaypnt string
	}{
		{
			name: "defaults", weight: 30,
			hosts: []any{"support.team-a.svc.cluster.local"},
			route: []any{
				map[string]any{"destination": map[string]any{"host": "support.team-a.svc.cluster.local", "subset": "stable"}, "weight": int64(70)},
				map[string]any{"destination": map[string]any{"host": "support.team-a.svc.cluster.local", "subset": "canary"}, "weight": int64(30)},
			},
			subsets: []any{
				map[string]any{"name": "stable", "labels": map[string]any{LabelRolloutTrack: "stable"}},
				map[string]any{"name": "canary", "labels": map[string]any{LabelRolloutTrack: "candidate"}},
			},
		},
		{
			name: "hosts, subsets, sticky, waypoint", weight: 100, sticky: "x-user-id",
			tr: &v1alpha1.AgentRuntimeRolloutTrafficRouting{Mesh: &v1alpha1.AgentRuntimeRolloutMesh{
				Hosts: []string{"support.example.com"}, StableSubset: "v1", CandidateSubset: "v2", Waypoint: "waypoint",
			}},
			hosts: []any{"support.example.com"},
			route: []any{
				map[string]any{"destination": map[string]any{"host": "support.team-a.svc.cluster.local", "subset": "v1"}, "weight": int64(0)},
				map[string]any{"destination": map[string]any{"host": "support.team-a.svc.cluster.local", "subset": "v2"}, "weight": int64(100)},
			},
			subsets: []any{
				map[string]any{"name": "v1", "labels": map[string]any{LabelRolloutTrack: "stable"}},
				map[string]any{"name": "v2", "labels": map[string]any{LabelRolloutTrack: "candidate"}},
			},
			trafficPolicy: consistentHash("x-user-id"),
			serviceWaypnt: "waypoint",
		},
		{
			name: "weight 0 is stable alone", weight: 0,
			hosts: []any{"support.team-a.svc.cluster.local"},
			route: []any{
				map[string]any{"destination": map[string]any{"host": "support.team-a.svc.cluster.local", "subset": "stable"}, "weight": int64(100)},
			},
			subsets: []any{
				map[string]any{"name": "stable", "labels": map[string]any{LabelRolloutTrack: "stable"}},
				map[string]any{"name": "canary", "labels": map[string]any{LabelRolloutTrack: "candidate"}},
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ar := agent(withRouting(tc.tr), func(a *v1alpha1.AgentRuntime) {
				if tc.sticky != "" {
					a.Spec.Rollout.StickySession = &v1alpha1.AgentRuntimeRolloutStickySession{HashOn: tc.sticky}
				}
			})
			vs := MeshVirtualService(ar, tc.weight)
			if vs.GetName() != "support" || vs.GetNamespace() != "team-a" || vs.GetLabels()[LabelManagedBy] != ManagedByValue || !metav1.IsControlledBy(vs, ar) {
				t.Errorf("VirtualService meta %s/%s labels %v owners %v", vs.GetNamespace(), vs.GetName(), vs.GetLabels(), vs.GetOwnerReferences())
			}
			sameJSON(t, "hosts", vs.Object["spec"].(map[string]any)["hosts"], tc.hosts)
			http, _, _ := unstructured.NestedSlice(vs.Object, "spec", "http")
			if len(http) != 1 || http[0].(map[string]any)["name"] != MeshRouteName {
				t.Fatalf("http %v", http)
			}
			sameJSON(t, "route", http[0].(map[string]any)["route"], tc.route)
			dr := MeshDestinationRule(ar)
			if !metav1.IsControlledBy(dr, ar) || dr.Object["spec"].(map[string]any)["host"] != "support.team-a.svc.cluster.local" {
				t.Errorf("DestinationRule %v", dr.Object)
			}
			sameJSON(t, "subsets", dr.Object["spec"].(map[string]any)["subsets"], tc.subsets)
			tp, _, _ := unstructured.NestedFieldNoCopy(dr.Object, "spec", "trafficPolicy")
			if tc.trafficPolicy == nil && tp != nil {
				t.Errorf("trafficPolicy %v without stickySession", tp)
			} else if tc.trafficPolicy != nil {
				sameJSON(t, "trafficPolicy", tp, tc.trafficPolicy)
			}
			if got := Service(ar).Labels[WaypointLabel]; got != tc.serviceWaypnt {
				t.Errorf("Service label %s=%q, want %q", WaypointLabel, got, tc.serviceWaypnt)
			}
		})
	}
}

func TestPatchVirtualServiceRoutes(t *testing.T) {
	vs := userVirtualService()
	orig := vs.DeepCopy()
	got, missing, err := PatchVirtualServiceRoutes(vs, []string{"primary"}, "fallback", "stable", "canary", 25)
	if err != nil || len(missing) != 0 {
		t.Fatalf("err %v missing %v", err, missing)
	}
	sameJSON(t, "input untouched", vs.Object, orig.Object)
	http, _, _ := unstructured.NestedSlice(got.Object, "spec", "http")
	sameJSON(t, "admin route", http[0], orig.Object["spec"].(map[string]any)["http"].([]any)[0])
	port := map[string]any{"number": int64(8080)}
	sameJSON(t, "primary route", http[1], map[string]any{"name": "primary", "timeout": "30s", "route": []any{
		map[string]any{"destination": map[string]any{"host": "support.team-a.svc.cluster.local", "port": port, "subset": "stable"}, "weight": int64(75)},
		map[string]any{"destination": map[string]any{"host": "support.team-a.svc.cluster.local", "port": port, "subset": "canary"}, "weight": int64(25)},
	}})
	sameJSON(t, "gateways", got.Object["spec"].(map[string]any)["gateways"], []any{"edge"})

	released, _, _ := PatchVirtualServiceRoutes(got, []string{"primary"}, "fallback", "stable", "canary", 0)
	http, _, _ = unstructured.NestedSlice(released.Object, "spec", "http")
	sameJSON(t, "released route", http[1].(map[string]any)["route"], []any{
		map[string]any{"destination": map[string]any{"host": "support.team-a.svc.cluster.local", "port": port, "subset": "stable"}, "weight": int64(100)},
	})

	_, missing, err = PatchVirtualServiceRoutes(vs, []string{"primary", "beta"}, "fallback", "stable", "canary", 25)
	if err != nil || len(missing) != 1 || missing[0] != "beta" {
		t.Errorf("missing %v err %v, want [beta]", missing, err)
	}
}

func TestEnsureDestinationRuleSubsets(t *testing.T) {
	dr := NewDestinationRule()
	dr.SetName("dr")
	dr.Object["spec"] = map[string]any{
		"host":          "support.team-a.svc.cluster.local",
		"trafficPolicy": map[string]any{"tls": map[string]any{"mode": "ISTIO_MUTUAL"}},
		"subsets": []any{
			map[string]any{"name": "legacy", "labels": map[string]any{"version": "v0"}},
			map[string]any{"name": "stable", "labels": map[string]any{"version": "v1"}, "trafficPolicy": map[string]any{"loadBalancer": map[string]any{"simple": "ROUND_ROBIN"}}},
		},
	}
	orig := dr.DeepCopy()
	for _, tc := range []struct {
		name   string
		header string
		want   []any
	}{
		{"no sticky", "", []any{
			map[string]any{"name": "legacy", "labels": map[string]any{"version": "v0"}},
			map[string]any{"name": "stable", "labels": map[string]any{LabelRolloutTrack: "stable"}, "trafficPolicy": map[string]any{"loadBalancer": map[string]any{"simple": "ROUND_ROBIN"}}},
			map[string]any{"name": "canary", "labels": map[string]any{LabelRolloutTrack: "candidate"}},
		}},
		{"sticky", "x-user-id", []any{
			map[string]any{"name": "legacy", "labels": map[string]any{"version": "v0"}},
			map[string]any{"name": "stable", "labels": map[string]any{LabelRolloutTrack: "stable"}, "trafficPolicy": consistentHash("x-user-id")},
			map[string]any{"name": "canary", "labels": map[string]any{LabelRolloutTrack: "candidate"}, "trafficPolicy": consistentHash("x-user-id")},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := EnsureDestinationRuleSubsets(dr, "stable", "canary", tc.header)
			if err != nil {
				t.Fatal(err)
			}
			sameJSON(t, "input untouched", dr.Object, orig.Object)
			sameJSON(t, "subsets", got.Object["spec"].(map[string]any)["subsets"], tc.want)
			sameJSON(t, "trafficPolicy", got.Object["spec"].(map[string]any)["trafficPolicy"], orig.Object["spec"].(map[string]any)["trafficPolicy"])
			again, _ := EnsureDestinationRuleSubsets(got, "stable", "canary", tc.header)
			sameJSON(t, "idempotent", again.Object, got.Object)
		})
	}
}

func withRouting(tr *v1alpha1.AgentRuntimeRolloutTrafficRouting) func(*v1alpha1.AgentRuntime) {
	return func(a *v1alpha1.AgentRuntime) {
		a.Spec.Rollout = &v1alpha1.AgentRuntimeRollout{
			Steps:          []v1alpha1.AgentRuntimeRolloutStep{{SetWeight: ptr.To[int32](20)}},
			TrafficRouting: tr,
		}
	}
}

// userVirtualService is a user's VirtualService with a managed route
// "primary", an unmanaged "admin" route and a gateway.
func userVirtualService() *unstructured.Unstructured {
	vs := NewVirtualService()
	vs.SetName("vs")
	vs.Object["spec"] = map[string]any{
		"hosts":    []any{"support.example.com"},
		"gateways": []any{"edge"},
		"http": []any{
			map[string]any{"name": "admin", "match": []any{map[string]any{"uri": map[string]any{"prefix": "/admin"}}},
				"route": []any{map[string]any{"destination": map[string]any{"host": "admin.team-a.svc.cluster.local"}}}},
			map[string]any{"name": "primary", "timeout": "30s",
				"route": []any{map[string]any{"destination": map[string]any{"host": "support.team-a.svc.cluster.local", "port": map[string]any{"number": int64(8080)}, "subset": "old"}}}},
		},
	}
	return vs
}
