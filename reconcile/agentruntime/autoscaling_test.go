package agentruntime

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/agentruntime/workload"
)

// autoscalingFactsStub answers resolveAutoscaling's two questions.
type autoscalingFactsStub struct {
	ws         *v1alpha1.Workspace
	keda       bool
	askedCRDs  []string
	askedSpace int
}

func (f *autoscalingFactsStub) Workspace(ns string) (*v1alpha1.Workspace, bool) {
	f.askedSpace++
	if f.ws == nil || f.ws.Spec.Namespace.Name != ns {
		return nil, false
	}
	return f.ws, true
}

func (f *autoscalingFactsStub) CRDInstalled(gk string) bool {
	f.askedCRDs = append(f.askedCRDs, gk)
	return f.keda && gk == "keda.sh/ScaledObject"
}

func TestResolveAutoscaling(t *testing.T) {
	groupDefault := &v1alpha1.AgentRuntimeAutoscaling{Enabled: true, MaxReplicas: ptr.To[int32](5)}
	kedaDefault := &v1alpha1.AgentRuntimeAutoscaling{Enabled: true, Type: "keda"}
	ws := func(groups ...v1alpha1.WorkspaceServiceGroup) *v1alpha1.Workspace {
		w := &v1alpha1.Workspace{}
		w.Spec.Namespace.Name = "team-a"
		w.Spec.Services = groups
		return w
	}
	own := func(a *v1alpha1.AgentRuntimeAutoscaling) func(*v1alpha1.AgentRuntime) {
		return func(ar *v1alpha1.AgentRuntime) { ar.Spec.Runtime = &v1alpha1.AgentRuntimeRuntime{Autoscaling: a} }
	}
	for _, tc := range []struct {
		name        string
		ar          *v1alpha1.AgentRuntime
		facts       autoscalingFactsStub
		wantDefault *v1alpha1.AgentRuntimeAutoscaling
		wantKEDAOff bool
		wantType    v1alpha1.AgentRuntimeAutoscalingType // of EffectiveAutoscaling; "" = static replicas
		wantNoCRDQ  bool
	}{
		{name: "no Workspace: static", ar: agent(), wantNoCRDQ: true},
		{name: "default group's autoscaling applies", ar: agent(),
			facts:       autoscalingFactsStub{ws: ws(v1alpha1.WorkspaceServiceGroup{Name: "default", Autoscaling: groupDefault})},
			wantDefault: groupDefault, wantType: "hpa", wantNoCRDQ: true},
		{name: "the agent's serviceGroup is the one read", ar: agent(func(a *v1alpha1.AgentRuntime) { a.Spec.ServiceGroup = "voice" }),
			facts: autoscalingFactsStub{ws: ws(
				v1alpha1.WorkspaceServiceGroup{Name: "default", Autoscaling: groupDefault},
				v1alpha1.WorkspaceServiceGroup{Name: "voice"})},
			wantNoCRDQ: true},
		{name: "the agent's own block wins over the group's", ar: agent(own(&v1alpha1.AgentRuntimeAutoscaling{Enabled: false})),
			facts: autoscalingFactsStub{ws: ws(v1alpha1.WorkspaceServiceGroup{Name: "default", Autoscaling: groupDefault})}, wantNoCRDQ: true},
		{name: "group keda default, KEDA installed", ar: agent(),
			facts:       autoscalingFactsStub{keda: true, ws: ws(v1alpha1.WorkspaceServiceGroup{Name: "default", Autoscaling: kedaDefault})},
			wantDefault: kedaDefault, wantType: "keda"},
		{name: "own keda, KEDA absent: static replicas", ar: agent(own(&v1alpha1.AgentRuntimeAutoscaling{Enabled: true, Type: "keda"})),
			wantKEDAOff: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := resolved()
			f := tc.facts
			resolveAutoscaling(tc.ar, &f, &res)
			if res.DefaultAutoscaling != tc.wantDefault {
				t.Errorf("DefaultAutoscaling %+v, want %+v", res.DefaultAutoscaling, tc.wantDefault)
			}
			if res.KEDAUnavailable != tc.wantKEDAOff {
				t.Errorf("KEDAUnavailable %v, want %v", res.KEDAUnavailable, tc.wantKEDAOff)
			}
			var typ v1alpha1.AgentRuntimeAutoscalingType
			if a := workload.EffectiveAutoscaling(tc.ar, &res); a != nil {
				typ = a.Type
			}
			if typ != tc.wantType {
				t.Errorf("effective autoscaler %q, want %q", typ, tc.wantType)
			}
			if tc.wantNoCRDQ && len(f.askedCRDs) > 0 {
				t.Errorf("asked discovery %v for an agent not asking for KEDA", f.askedCRDs)
			}
			if own := tc.ar.Spec.Runtime != nil && tc.ar.Spec.Runtime.Autoscaling != nil; own && f.askedSpace > 0 {
				t.Errorf("looked up the Workspace for an agent with its own autoscaling")
			}
		})
	}
}

func TestAutoscalingCondition(t *testing.T) {
	for _, tc := range []struct {
		name       string
		outcome    autoscalingOutcome
		wantStatus metav1.ConditionStatus
		wantReason string
	}{
		{"HPA applied", autoscalingOutcome{applied: "hpa"}, metav1.ConditionTrue, "Scaling"},
		{"ScaledObject applied", autoscalingOutcome{applied: "keda"}, metav1.ConditionTrue, "Scaling"},
		{"static replicas", autoscalingOutcome{}, metav1.ConditionTrue, "Disabled"},
		{"KEDA asked, CRDs absent", autoscalingOutcome{kedaNotInstalled: true}, metav1.ConditionFalse, "KEDANotInstalled"},
		{"held at zero", autoscalingOutcome{heldAtZero: true, kedaNotInstalled: true}, metav1.ConditionTrue, "Disabled"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := autoscalingCondition(tc.outcome, 7)
			if c.Type != v1alpha1.AgentRuntimeConditionAutoscalingReady || c.Status != tc.wantStatus || c.Reason != tc.wantReason || c.ObservedGeneration != 7 || c.Message == "" {
				t.Errorf("condition %+v, want %s/%s", c, tc.wantStatus, tc.wantReason)
			}
		})
	}
}

func TestCapAutoscaling(t *testing.T) {
	for _, tc := range []struct {
		name             string
		a                *v1alpha1.AgentRuntimeAutoscaling
		limit            *int32
		wantMin, wantMax int32
	}{
		{"no cap", &v1alpha1.AgentRuntimeAutoscaling{Enabled: true, MinReplicas: ptr.To[int32](2), MaxReplicas: ptr.To[int32](10)}, nil, 2, 10},
		{"max above the cap", &v1alpha1.AgentRuntimeAutoscaling{Enabled: true, MinReplicas: ptr.To[int32](2), MaxReplicas: ptr.To[int32](10)}, ptr.To[int32](3), 2, 3},
		{"default max (100) above the cap", &v1alpha1.AgentRuntimeAutoscaling{Enabled: true}, ptr.To[int32](4), 1, 4},
		{"min and max above the cap", &v1alpha1.AgentRuntimeAutoscaling{Enabled: true, MinReplicas: ptr.To[int32](5), MaxReplicas: ptr.To[int32](10)}, ptr.To[int32](3), 3, 3},
		{"within the cap", &v1alpha1.AgentRuntimeAutoscaling{Enabled: true, MaxReplicas: ptr.To[int32](3)}, ptr.To[int32](3), 1, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := tc.a.DeepCopy()
			got := capAutoscaling(tc.a, tc.limit)
			if gMin, gMax := ptr.Deref(got.MinReplicas, 1), ptr.Deref(got.MaxReplicas, 100); gMin != tc.wantMin || gMax != tc.wantMax {
				t.Errorf("min %d max %d, want %d %d", gMin, gMax, tc.wantMin, tc.wantMax)
			}
			if !equality.Semantic.DeepEqual(before, tc.a) {
				t.Errorf("capAutoscaling modified its input")
			}
		})
	}
	if capAutoscaling(nil, ptr.To[int32](1)) != nil {
		t.Errorf("nil autoscaling capped to non-nil")
	}
}
