package agentruntime

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/agentruntime/workload"
)

func withRouting(tr *v1alpha1.AgentRuntimeRolloutTrafficRouting) func(*v1alpha1.AgentRuntime) {
	return func(a *v1alpha1.AgentRuntime) {
		a.Spec.Rollout = &v1alpha1.AgentRuntimeRollout{
			Steps:          []v1alpha1.AgentRuntimeRolloutStep{{SetWeight: ptr.To[int32](20)}},
			TrafficRouting: tr,
		}
	}
}

var externalIstio = &v1alpha1.AgentRuntimeRolloutIstio{
	VirtualService:  v1alpha1.AgentRuntimeRolloutVirtualService{Name: "vs", Routes: []string{"primary"}},
	DestinationRule: v1alpha1.AgentRuntimeRolloutDestinationRule{Name: "dr"},
}

func TestResolveTrafficMode(t *testing.T) {
	for _, tc := range []struct {
		name       string
		tr         *v1alpha1.AgentRuntimeRolloutTrafficRouting
		istio      bool
		requested  v1alpha1.AgentRuntimeTrafficRoutingMode
		mode       v1alpha1.AgentRuntimeTrafficRoutingMode
		reason     string
		enforced   bool
		isDegraded bool
	}{
		{"unset with the mesh", nil, true, "", TrafficModeMesh, v1alpha1.AgentRuntimeReasonMeshRouting, true, false},
		{"unset without the mesh", nil, false, "", TrafficModeReplicaWeighted, v1alpha1.AgentRuntimeReasonReplicaWeighted, false, false},
		{"empty block with the mesh", &v1alpha1.AgentRuntimeRolloutTrafficRouting{}, true, "", TrafficModeMesh, v1alpha1.AgentRuntimeReasonMeshRouting, true, false},
		{"replicaWeighted with the mesh", &v1alpha1.AgentRuntimeRolloutTrafficRouting{Mode: TrafficModeReplicaWeighted}, true, TrafficModeReplicaWeighted, TrafficModeReplicaWeighted, v1alpha1.AgentRuntimeReasonReplicaWeighted, false, false},
		{"mesh with the mesh", &v1alpha1.AgentRuntimeRolloutTrafficRouting{Mode: TrafficModeMesh}, true, TrafficModeMesh, TrafficModeMesh, v1alpha1.AgentRuntimeReasonMeshRouting, true, false},
		{"mesh without the mesh", &v1alpha1.AgentRuntimeRolloutTrafficRouting{Mode: TrafficModeMesh}, false, TrafficModeMesh, TrafficModeReplicaWeighted, v1alpha1.AgentRuntimeReasonMeshNotInstalled, false, true},
		{"istio without mode", &v1alpha1.AgentRuntimeRolloutTrafficRouting{Istio: externalIstio}, true, TrafficModeExternal, TrafficModeExternal, v1alpha1.AgentRuntimeReasonExternalRouting, true, false},
		{"istio without mode, no mesh", &v1alpha1.AgentRuntimeRolloutTrafficRouting{Istio: externalIstio}, false, TrafficModeExternal, TrafficModeReplicaWeighted, v1alpha1.AgentRuntimeReasonMeshNotInstalled, false, true},
		{"external without istio block", &v1alpha1.AgentRuntimeRolloutTrafficRouting{Mode: TrafficModeExternal}, true, TrafficModeExternal, TrafficModeReplicaWeighted, v1alpha1.AgentRuntimeReasonExternalObjectNotFound, false, true},
		{"mesh mode with an istio block", &v1alpha1.AgentRuntimeRolloutTrafficRouting{Mode: TrafficModeMesh, Istio: externalIstio}, true, TrafficModeMesh, TrafficModeMesh, v1alpha1.AgentRuntimeReasonMeshRouting, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ar := agent(withRouting(tc.tr))
			req := requestedTrafficMode(ar)
			if req != tc.requested {
				t.Errorf("requested %q, want %q", req, tc.requested)
			}
			got := resolveTrafficMode(req, tc.istio, tc.tr)
			if got.Mode != tc.mode || got.Reason != tc.reason || got.Enforced != tc.enforced || (got.Degraded != "") != tc.isDegraded {
				t.Errorf("got %+v, want mode %s reason %s enforced %v degraded %v", got, tc.mode, tc.reason, tc.enforced, tc.isDegraded)
			}
		})
	}
	if got := requestedTrafficMode(agent()); got != "" {
		t.Errorf("no rollout: requested %q", got)
	}
}

// userVirtualService is a user's VirtualService with a managed route
// "primary", an unmanaged "admin" route and a gateway.
func userVirtualService() *unstructured.Unstructured {
	vs := workload.NewVirtualService()
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

func TestTrafficRoutingCondition(t *testing.T) {
	for _, tc := range []struct {
		name   string
		out    trafficOutcome
		status metav1.ConditionStatus
		reason string
	}{
		{"mesh", resolveTrafficMode("", true, nil), metav1.ConditionTrue, v1alpha1.AgentRuntimeReasonMeshRouting},
		{"replicaWeighted", resolveTrafficMode("", false, nil), metav1.ConditionTrue, v1alpha1.AgentRuntimeReasonReplicaWeighted},
		{"external", resolveTrafficMode(TrafficModeExternal, true, &v1alpha1.AgentRuntimeRolloutTrafficRouting{Istio: externalIstio}), metav1.ConditionTrue, v1alpha1.AgentRuntimeReasonExternalRouting},
		{"mesh degraded", resolveTrafficMode(TrafficModeMesh, false, nil), metav1.ConditionFalse, v1alpha1.AgentRuntimeReasonMeshNotInstalled},
		{"external objects missing", resolveTrafficMode(TrafficModeExternal, true, &v1alpha1.AgentRuntimeRolloutTrafficRouting{Istio: externalIstio}).
			degrade(v1alpha1.AgentRuntimeReasonExternalObjectNotFound, "VirtualService \"vs\" not found"), metav1.ConditionFalse, v1alpha1.AgentRuntimeReasonExternalObjectNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := trafficRoutingCondition(tc.out, 4)
			if c.Type != v1alpha1.AgentRuntimeConditionTrafficRouting || c.Status != tc.status || c.Reason != tc.reason || c.ObservedGeneration != 4 || c.Message == "" {
				t.Errorf("condition %+v, want %s %s", c, tc.status, tc.reason)
			}
		})
	}
}

func TestSetTrafficRoutingStatus(t *testing.T) {
	now := metav1.Now()
	ar := agent(withRouting(nil))
	st := &v1alpha1.AgentRuntimeStatus{Rollout: &v1alpha1.AgentRuntimeRolloutStatus{Active: true}}
	out := resolveTrafficMode(TrafficModeMesh, false, nil)
	setTrafficRoutingStatus(st, ar, &out, now)
	if st.Rollout.TrafficRoutingMode != TrafficModeReplicaWeighted || st.Rollout.TrafficWeightEnforced == nil || *st.Rollout.TrafficWeightEnforced {
		t.Errorf("status.rollout %+v", st.Rollout)
	}
	if len(st.Conditions) != 1 || st.Conditions[0].Reason != v1alpha1.AgentRuntimeReasonMeshNotInstalled {
		t.Errorf("conditions %+v", st.Conditions)
	}
	setTrafficRoutingStatus(st, ar, nil, now)
	if len(st.Conditions) != 1 {
		t.Errorf("a reconcile without routing changed the conditions: %+v", st.Conditions)
	}
	setTrafficRoutingStatus(st, agent(), nil, now)
	if len(st.Conditions) != 0 {
		t.Errorf("an agent without spec.rollout keeps TrafficRouting: %+v", st.Conditions)
	}
}

// sameJSON fails the test when got and want differ in their JSON form.
func sameJSON(t *testing.T, what string, got, want any) {
	t.Helper()
	if !equalYAML(t, got, want) {
		t.Errorf("%s differs", what)
	}
}
