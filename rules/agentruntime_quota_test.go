package rules

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

func TestAgentRuntimeQuota(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(sec int) metav1.Time { return metav1.NewTime(t0.Add(time.Duration(sec) * time.Second)) }
	entry := func(name string, sec int, hasDeployment bool) AgentRuntimeQuotaEntry {
		return AgentRuntimeQuotaEntry{Name: name, CreationTimestamp: at(sec), HasDeployment: hasDeployment}
	}
	workspace := func(maxAgents, maxReplicas *int32) *v1alpha1.Workspace {
		ws := &v1alpha1.Workspace{ObjectMeta: metav1.ObjectMeta{Name: "team-a"}}
		ws.Spec.Namespace.Name = "agents"
		ws.Spec.Quotas = &v1alpha1.WorkspaceQuotas{Agents: &v1alpha1.WorkspaceAgentQuota{MaxAgentRuntimes: maxAgents, MaxReplicasPerAgent: maxReplicas}}
		return ws
	}
	agentAt := func(name string, sec int, rt *v1alpha1.AgentRuntimeRuntime) *v1alpha1.AgentRuntime {
		return &v1alpha1.AgentRuntime{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "agents", CreationTimestamp: at(sec)},
			Spec: v1alpha1.AgentRuntimeSpec{Runtime: rt}}
	}
	for _, tc := range []struct {
		name     string
		ar       *v1alpha1.AgentRuntime
		ws       *v1alpha1.Workspace
		siblings []AgentRuntimeQuotaEntry
		// wantApplies false: no condition, admitted, no cap.
		wantApplies  bool
		wantAdmitted bool
		wantStatus   metav1.ConditionStatus
		wantReason   string
		wantCap      *int32
	}{
		{name: "no Workspace: no condition", ar: agentAt("a", 0, nil), wantAdmitted: true},
		{name: "Workspace without quotas: no condition", ar: agentAt("a", 0, nil),
			ws: &v1alpha1.Workspace{ObjectMeta: metav1.ObjectMeta{Name: "team-a"}}, wantAdmitted: true},
		{name: "empty agents quota: no condition", ar: agentAt("a", 0, nil), ws: workspace(nil, nil), wantAdmitted: true},
		{name: "QuotaSatisfied: first agent of two slots", ar: agentAt("a", 0, nil), ws: workspace(ptr.To[int32](2), nil),
			siblings:    []AgentRuntimeQuotaEntry{entry("a", 0, false), entry("b", 1, true)},
			wantApplies: true, wantAdmitted: true, wantStatus: metav1.ConditionTrue, wantReason: v1alpha1.AgentRuntimeReasonQuotaSatisfied},
		{name: "QuotaSatisfied: running agent within the quota", ar: agentAt("a", 0, nil), ws: workspace(ptr.To[int32](1), nil),
			siblings:    []AgentRuntimeQuotaEntry{entry("a", 0, true), entry("b", 1, false)},
			wantApplies: true, wantAdmitted: true, wantStatus: metav1.ConditionTrue, wantReason: v1alpha1.AgentRuntimeReasonQuotaSatisfied},
		{name: "AgentRuntimeQuotaExceeded: the older agent holds the only slot", ar: agentAt("b", 1, nil), ws: workspace(ptr.To[int32](1), nil),
			siblings:    []AgentRuntimeQuotaEntry{entry("a", 0, true), entry("b", 1, false)},
			wantApplies: true, wantAdmitted: false, wantStatus: metav1.ConditionFalse, wantReason: v1alpha1.AgentRuntimeReasonAgentRuntimeQuotaExceeded},
		{name: "AgentRuntimeQuotaExceeded: an older admitted agent without its Deployment yet keeps its slot", ar: agentAt("b", 1, nil),
			ws: workspace(ptr.To[int32](1), nil), siblings: []AgentRuntimeQuotaEntry{entry("b", 1, false), entry("a", 0, false)},
			wantApplies: true, wantAdmitted: false, wantStatus: metav1.ConditionFalse, wantReason: v1alpha1.AgentRuntimeReasonAgentRuntimeQuotaExceeded},
		{name: "same creation second: the name breaks the tie", ar: agentAt("b", 0, nil), ws: workspace(ptr.To[int32](1), nil),
			siblings:    []AgentRuntimeQuotaEntry{entry("b", 0, false), entry("a", 0, false)},
			wantApplies: true, wantAdmitted: false, wantStatus: metav1.ConditionFalse, wantReason: v1alpha1.AgentRuntimeReasonAgentRuntimeQuotaExceeded},
		{name: "a newer running agent takes a slot before an older waiting one", ar: agentAt("a", 0, nil), ws: workspace(ptr.To[int32](1), nil),
			siblings:    []AgentRuntimeQuotaEntry{entry("a", 0, false), entry("b", 1, true)},
			wantApplies: true, wantAdmitted: false, wantStatus: metav1.ConditionFalse, wantReason: v1alpha1.AgentRuntimeReasonAgentRuntimeQuotaExceeded},
		{name: "admitted once the older agent is gone", ar: agentAt("b", 1, nil), ws: workspace(ptr.To[int32](1), nil),
			siblings:    []AgentRuntimeQuotaEntry{entry("b", 1, false), entry("c", 2, false)},
			wantApplies: true, wantAdmitted: true, wantStatus: metav1.ConditionTrue, wantReason: v1alpha1.AgentRuntimeReasonQuotaSatisfied},
		{name: "not yet in the view: queues at its place", ar: agentAt("c", 2, nil), ws: workspace(ptr.To[int32](1), nil),
			siblings:    []AgentRuntimeQuotaEntry{entry("b", 1, false)},
			wantApplies: true, wantAdmitted: false, wantStatus: metav1.ConditionFalse, wantReason: v1alpha1.AgentRuntimeReasonAgentRuntimeQuotaExceeded},
		{name: "maxAgentRuntimes 0 admits nothing new", ar: agentAt("a", 0, nil), ws: workspace(ptr.To[int32](0), nil),
			siblings:    []AgentRuntimeQuotaEntry{entry("a", 0, false)},
			wantApplies: true, wantAdmitted: false, wantStatus: metav1.ConditionFalse, wantReason: v1alpha1.AgentRuntimeReasonAgentRuntimeQuotaExceeded},
		{name: "RunningOverAgentRuntimeQuota: quota lowered beneath a running agent", ar: agentAt("b", 1, nil), ws: workspace(ptr.To[int32](1), nil),
			siblings:    []AgentRuntimeQuotaEntry{entry("a", 0, true), entry("b", 1, true)},
			wantApplies: true, wantAdmitted: true, wantStatus: metav1.ConditionTrue, wantReason: v1alpha1.AgentRuntimeReasonRunningOverAgentRuntimeQuota},
		{name: "ReplicasClamped: static replicas above the cap", ar: agentAt("a", 0, &v1alpha1.AgentRuntimeRuntime{Replicas: ptr.To[int32](5)}),
			ws: workspace(nil, ptr.To[int32](2)), wantApplies: true, wantAdmitted: true, wantStatus: metav1.ConditionFalse,
			wantReason: v1alpha1.AgentRuntimeReasonReplicasClamped, wantCap: ptr.To[int32](2)},
		{name: "ReplicasClamped: autoscaling maxReplicas above the cap", ar: agentAt("a", 0, &v1alpha1.AgentRuntimeRuntime{
			Autoscaling: &v1alpha1.AgentRuntimeAutoscaling{Enabled: true, MaxReplicas: ptr.To[int32](10)}}),
			ws: workspace(nil, ptr.To[int32](4)), wantApplies: true, wantAdmitted: true, wantStatus: metav1.ConditionFalse,
			wantReason: v1alpha1.AgentRuntimeReasonReplicasClamped, wantCap: ptr.To[int32](4)},
		{name: "ReplicasClamped wins over RunningOverAgentRuntimeQuota", ar: agentAt("b", 1, &v1alpha1.AgentRuntimeRuntime{Replicas: ptr.To[int32](3)}),
			ws: workspace(ptr.To[int32](1), ptr.To[int32](2)), siblings: []AgentRuntimeQuotaEntry{entry("a", 0, true), entry("b", 1, true)},
			wantApplies: true, wantAdmitted: true, wantStatus: metav1.ConditionFalse, wantReason: v1alpha1.AgentRuntimeReasonReplicasClamped, wantCap: ptr.To[int32](2)},
		{name: "replicas at the cap: QuotaSatisfied with the cap", ar: agentAt("a", 0, &v1alpha1.AgentRuntimeRuntime{Replicas: ptr.To[int32](2)}),
			ws: workspace(nil, ptr.To[int32](2)), wantApplies: true, wantAdmitted: true, wantStatus: metav1.ConditionTrue,
			wantReason: v1alpha1.AgentRuntimeReasonQuotaSatisfied, wantCap: ptr.To[int32](2)},
		{name: "autoscaling disabled: static replicas count", ar: agentAt("a", 0, &v1alpha1.AgentRuntimeRuntime{Replicas: ptr.To[int32](1),
			Autoscaling: &v1alpha1.AgentRuntimeAutoscaling{Enabled: false, MaxReplicas: ptr.To[int32](10)}}),
			ws: workspace(nil, ptr.To[int32](2)), wantApplies: true, wantAdmitted: true, wantStatus: metav1.ConditionTrue,
			wantReason: v1alpha1.AgentRuntimeReasonQuotaSatisfied, wantCap: ptr.To[int32](2)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := AgentRuntimeQuota(tc.ar, tc.ws, tc.siblings)
			if v.Applies != tc.wantApplies || v.Admitted != tc.wantAdmitted || v.Status != tc.wantStatus || v.Reason != tc.wantReason {
				t.Errorf("got applies=%v admitted=%v %s/%s (%s), want applies=%v admitted=%v %s/%s",
					v.Applies, v.Admitted, v.Status, v.Reason, v.Message, tc.wantApplies, tc.wantAdmitted, tc.wantStatus, tc.wantReason)
			}
			if !ptr.Equal(v.ReplicaCap, tc.wantCap) {
				t.Errorf("ReplicaCap %v, want %v", ptr.Deref(v.ReplicaCap, -1), ptr.Deref(tc.wantCap, -1))
			}
			if v.Applies && v.Message == "" {
				t.Error("a verdict that applies has no message")
			}
			if got := AgentRuntimeQuotaCountsAgents(tc.ws); got != (tc.ws != nil && tc.ws.Spec.Quotas != nil && tc.ws.Spec.Quotas.Agents != nil &&
				tc.ws.Spec.Quotas.Agents.MaxAgentRuntimes != nil) {
				t.Errorf("AgentRuntimeQuotaCountsAgents = %v", got)
			}
		})
	}
}

// TestAgentRuntimeQuotaAdmitsOldestFirst: with three waiting agents and two
// slots, the two oldest are admitted whatever order the view lists them in.
func TestAgentRuntimeQuotaAdmitsOldestFirst(t *testing.T) {
	t0 := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	ws := &v1alpha1.Workspace{ObjectMeta: metav1.ObjectMeta{Name: "team-a"}}
	ws.Spec.Quotas = &v1alpha1.WorkspaceQuotas{Agents: &v1alpha1.WorkspaceAgentQuota{MaxAgentRuntimes: ptr.To[int32](2)}}
	siblings := []AgentRuntimeQuotaEntry{
		{Name: "c", CreationTimestamp: metav1.NewTime(t0.Add(2 * time.Second))},
		{Name: "a", CreationTimestamp: t0},
		{Name: "b", CreationTimestamp: metav1.NewTime(t0.Add(time.Second))},
	}
	var admitted []string
	for _, e := range siblings {
		ar := &v1alpha1.AgentRuntime{ObjectMeta: metav1.ObjectMeta{Name: e.Name, CreationTimestamp: e.CreationTimestamp}}
		if AgentRuntimeQuota(ar, ws, siblings).Admitted {
			admitted = append(admitted, e.Name)
		}
	}
	if len(admitted) != 2 || admitted[0] != "a" || admitted[1] != "b" {
		t.Errorf("admitted %v, want [a b]", admitted)
	}
}

func TestAgentRuntimeRequestedReplicas(t *testing.T) {
	for _, tc := range []struct {
		name string
		rt   *v1alpha1.AgentRuntimeRuntime
		want int32
	}{
		{"no runtime: 1", nil, 1},
		{"static", &v1alpha1.AgentRuntimeRuntime{Replicas: ptr.To[int32](3)}, 3},
		{"autoscaling without maxReplicas: the default 100", &v1alpha1.AgentRuntimeRuntime{Autoscaling: &v1alpha1.AgentRuntimeAutoscaling{Enabled: true}}, 100},
		{"autoscaling maxReplicas", &v1alpha1.AgentRuntimeRuntime{Replicas: ptr.To[int32](1),
			Autoscaling: &v1alpha1.AgentRuntimeAutoscaling{Enabled: true, MaxReplicas: ptr.To[int32](7)}}, 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := AgentRuntimeRequestedReplicas(&v1alpha1.AgentRuntime{Spec: v1alpha1.AgentRuntimeSpec{Runtime: tc.rt}}); got != tc.want {
				t.Errorf("got %d, want %d", got, tc.want)
			}
		})
	}
}
