package agentruntime

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/agentruntime/workload"
)

func sessionWorkspace(groups ...v1alpha1.WorkspaceServiceGroup) *v1alpha1.Workspace {
	ws := &v1alpha1.Workspace{ObjectMeta: metav1.ObjectMeta{Name: "ws"}}
	ws.Spec.Namespace.Name = "team-a"
	ws.Spec.Services = groups
	return ws
}

func TestSessionRecordingCondition(t *testing.T) {
	on := &v1alpha1.WorkspaceServiceBlock{Enabled: ptr.To(true)}
	cases := []struct {
		name   string
		group  string
		ws     *v1alpha1.Workspace
		status metav1.ConditionStatus
		reason string
	}{
		{"default group with a session-api", "", sessionWorkspace(v1alpha1.WorkspaceServiceGroup{Name: "default", Session: on}),
			metav1.ConditionTrue, v1alpha1.AgentRuntimeReasonSessionServiceFound},
		{"named group with an external session-api", "g", sessionWorkspace(v1alpha1.WorkspaceServiceGroup{Name: "g",
			Session: &v1alpha1.WorkspaceServiceBlock{Enabled: ptr.To(false), URL: "http://sessions"}}),
			metav1.ConditionTrue, v1alpha1.AgentRuntimeReasonSessionServiceFound},
		{"no Workspace", "", nil, metav1.ConditionFalse, v1alpha1.AgentRuntimeReasonWorkspaceNotFound},
		{"default group missing", "", sessionWorkspace(v1alpha1.WorkspaceServiceGroup{Name: "other", Session: on}),
			metav1.ConditionFalse, v1alpha1.AgentRuntimeReasonServiceGroupNotFound},
		{"named group missing", "g", sessionWorkspace(v1alpha1.WorkspaceServiceGroup{Name: "default", Session: on}),
			metav1.ConditionFalse, v1alpha1.AgentRuntimeReasonServiceGroupNotFound},
		{"group without session", "", sessionWorkspace(v1alpha1.WorkspaceServiceGroup{Name: "default"}),
			metav1.ConditionFalse, v1alpha1.AgentRuntimeReasonNoSessionService},
		{"session disabled", "", sessionWorkspace(v1alpha1.WorkspaceServiceGroup{Name: "default",
			Session: &v1alpha1.WorkspaceServiceBlock{Enabled: ptr.To(false)}}),
			metav1.ConditionFalse, v1alpha1.AgentRuntimeReasonNoSessionService},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ar := agent(func(a *v1alpha1.AgentRuntime) { a.Spec.ServiceGroup = tc.group; a.Generation = 3 })
			c := sessionRecordingCondition(ar, tc.ws, ar.Generation)
			if c.Type != v1alpha1.AgentRuntimeConditionSessionRecording || c.Status != tc.status || c.Reason != tc.reason ||
				c.ObservedGeneration != 3 || c.Message == "" {
				t.Errorf("got %+v, want %s %s", c, tc.status, tc.reason)
			}
		})
	}
}

func TestA2ATaskStoreCondition(t *testing.T) {
	withA2A := func(store *v1alpha1.AgentRuntimeA2ATaskStore) *v1alpha1.AgentRuntime {
		return agent(func(a *v1alpha1.AgentRuntime) {
			a.Spec.Facades = append(a.Spec.Facades, v1alpha1.AgentRuntimeFacade{Type: v1alpha1.AgentRuntimeFacadeTypeA2A,
				A2A: &v1alpha1.AgentRuntimeFacadeA2A{TaskStore: store}})
		})
	}
	redis := &v1alpha1.AgentRuntimeA2ATaskStore{Type: v1alpha1.AgentRuntimeA2ATaskStoreRedis}
	memory := &v1alpha1.AgentRuntimeA2ATaskStore{Type: v1alpha1.AgentRuntimeA2ATaskStoreMemory}
	cases := []struct {
		name     string
		ar       *v1alpha1.AgentRuntime
		replicas int32
		present  bool
		status   metav1.ConditionStatus
		reason   string
	}{
		{"no a2a facade", agent(), 5, false, "", ""},
		{"redis, many replicas", withA2A(redis), 5, true, metav1.ConditionTrue, v1alpha1.AgentRuntimeReasonRedisTaskStore},
		{"memory, one replica", withA2A(memory), 1, true, metav1.ConditionTrue, v1alpha1.AgentRuntimeReasonSingleReplica},
		{"memory, many replicas", withA2A(memory), 2, true, metav1.ConditionFalse, v1alpha1.AgentRuntimeReasonMemoryTaskStoreMultiReplica},
		{"default store, many replicas", withA2A(nil), 3, true, metav1.ConditionFalse, v1alpha1.AgentRuntimeReasonMemoryTaskStoreMultiReplica},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, ok := a2aTaskStoreCondition(tc.ar, tc.replicas, 1)
			if ok != tc.present {
				t.Fatalf("present %v, want %v", ok, tc.present)
			}
			if ok && (c.Type != v1alpha1.AgentRuntimeConditionA2ATaskStoreShared || c.Status != tc.status || c.Reason != tc.reason || c.Message == "") {
				t.Errorf("got %+v, want %s %s", c, tc.status, tc.reason)
			}
		})
	}
}

func TestMaxReplicas(t *testing.T) {
	cases := []struct {
		name string
		ar   *v1alpha1.AgentRuntime
		res  workload.Resolved
		want int32
	}{
		{"default", agent(), workload.Resolved{}, 1},
		{"static", agent(func(a *v1alpha1.AgentRuntime) {
			a.Spec.Runtime = &v1alpha1.AgentRuntimeRuntime{Replicas: ptr.To[int32](4)}
		}), workload.Resolved{}, 4},
		{"static capped", agent(func(a *v1alpha1.AgentRuntime) {
			a.Spec.Runtime = &v1alpha1.AgentRuntimeRuntime{Replicas: ptr.To[int32](4)}
		}), workload.Resolved{ReplicaCap: ptr.To[int32](1)}, 1},
		{"autoscaling default max", agent(func(a *v1alpha1.AgentRuntime) {
			a.Spec.Runtime = &v1alpha1.AgentRuntimeRuntime{Autoscaling: &v1alpha1.AgentRuntimeAutoscaling{Enabled: true}}
		}), workload.Resolved{}, workload.DefaultAutoscalingMaxReplicas},
		{"group autoscaling capped", agent(), workload.Resolved{
			DefaultAutoscaling: &v1alpha1.AgentRuntimeAutoscaling{Enabled: true, MaxReplicas: ptr.To[int32](8)},
			ReplicaCap:         ptr.To[int32](3)}, 3},
	}
	for _, tc := range cases {
		if got := maxReplicas(tc.ar, &tc.res); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
}

func TestPrivacyPolicyCondition(t *testing.T) {
	c := privacyPolicyCondition(agent(func(a *v1alpha1.AgentRuntime) {
		a.Spec.PrivacyPolicyRef = &v1alpha1.LocalObjectReference{Name: "strict"}
	}), 2)
	if c.Type != v1alpha1.AgentRuntimeConditionPrivacyPolicyResolved || c.Status != metav1.ConditionTrue ||
		c.Reason != v1alpha1.AgentRuntimeReasonAgentPolicy || c.Message != `SessionPrivacyPolicy "strict" (spec.privacyPolicyRef) applies` {
		t.Errorf("with a ref: %+v", c)
	}
	c = privacyPolicyCondition(agent(), 2)
	if c.Status != metav1.ConditionTrue || c.Reason != v1alpha1.AgentRuntimeReasonNoPolicy {
		t.Errorf("without a ref: %+v", c)
	}
}

// TestReconcileSessionConditions runs the controller against the suite's
// API server: the three conditions follow the agent's Workspace, facades
// and privacyPolicyRef, SessionRecording False leaves Ready and the phase
// as they were, and a second reconcile writes nothing.
func TestReconcileSessionConditions(t *testing.T) {
	ctx := context.Background()
	const ns = "ar-session-conds"
	r, writes := newCountingReconciler(t)
	key := runnableAgent(t, ns, func(a *v1alpha1.AgentRuntime) {
		a.Spec.Facades = append(a.Spec.Facades, v1alpha1.AgentRuntimeFacade{Type: v1alpha1.AgentRuntimeFacadeTypeA2A})
		a.Spec.Runtime = &v1alpha1.AgentRuntimeRuntime{Replicas: ptr.To[int32](2)}
		a.Spec.PrivacyPolicyRef = &v1alpha1.LocalObjectReference{Name: "strict"}
	})
	want := func(ar *v1alpha1.AgentRuntime, typ string, status metav1.ConditionStatus, reason string) {
		t.Helper()
		c := meta.FindStatusCondition(ar.Status.Conditions, typ)
		if c == nil || c.Status != status || c.Reason != reason {
			t.Errorf("%s = %+v, want %s %s", typ, c, status, reason)
		}
	}

	got := reconcileAgent(t, r, key)
	want(got, v1alpha1.AgentRuntimeConditionSessionRecording, metav1.ConditionFalse, v1alpha1.AgentRuntimeReasonWorkspaceNotFound)
	want(got, v1alpha1.AgentRuntimeConditionA2ATaskStoreShared, metav1.ConditionFalse, v1alpha1.AgentRuntimeReasonMemoryTaskStoreMultiReplica)
	want(got, v1alpha1.AgentRuntimeConditionPrivacyPolicyResolved, metav1.ConditionTrue, v1alpha1.AgentRuntimeReasonAgentPolicy)
	readyBefore := meta.FindStatusCondition(got.Status.Conditions, v1alpha1.AgentRuntimeConditionReady)
	phaseBefore := got.Status.Phase
	secondReconcileWritesNothing(t, r, writes, key)

	ws := &v1alpha1.Workspace{ObjectMeta: metav1.ObjectMeta{Name: ns}}
	ws.Spec.Namespace.Name = ns
	ws.Spec.Services = []v1alpha1.WorkspaceServiceGroup{{Name: "default", Session: &v1alpha1.WorkspaceServiceBlock{Enabled: ptr.To(true)}}}
	if err := k8s.Create(ctx, ws); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k8s.Delete(ctx, ws) })
	got = reconcileAgent(t, r, key)
	want(got, v1alpha1.AgentRuntimeConditionSessionRecording, metav1.ConditionTrue, v1alpha1.AgentRuntimeReasonSessionServiceFound)
	readyAfter := meta.FindStatusCondition(got.Status.Conditions, v1alpha1.AgentRuntimeConditionReady)
	if readyBefore == nil || readyAfter == nil || readyBefore.Status != readyAfter.Status || readyBefore.Reason != readyAfter.Reason ||
		got.Status.Phase != phaseBefore {
		t.Errorf("Ready %+v phase %s with a session-api, want %+v phase %s as without one", readyAfter, got.Status.Phase, readyBefore, phaseBefore)
	}

	// Redis task store, no privacy policy: A2ATaskStoreShared True,
	// NoPolicy; without the a2a facade the condition is gone.
	ar := &v1alpha1.AgentRuntime{}
	if err := k8s.Get(ctx, key, ar); err != nil {
		t.Fatal(err)
	}
	ar.Spec.Facades[1].A2A = &v1alpha1.AgentRuntimeFacadeA2A{TaskStore: &v1alpha1.AgentRuntimeA2ATaskStore{
		Type: v1alpha1.AgentRuntimeA2ATaskStoreRedis, RedisURL: "redis://redis:6379"}}
	ar.Spec.PrivacyPolicyRef = nil
	if err := k8s.Update(ctx, ar); err != nil {
		t.Fatal(err)
	}
	got = reconcileAgent(t, r, key)
	want(got, v1alpha1.AgentRuntimeConditionA2ATaskStoreShared, metav1.ConditionTrue, v1alpha1.AgentRuntimeReasonRedisTaskStore)
	want(got, v1alpha1.AgentRuntimeConditionPrivacyPolicyResolved, metav1.ConditionTrue, v1alpha1.AgentRuntimeReasonNoPolicy)

	ar = got.DeepCopy()
	ar.Spec.Facades = ar.Spec.Facades[:1]
	ar.Spec.ServiceGroup = "other"
	if err := k8s.Update(ctx, ar); err != nil {
		t.Fatal(err)
	}
	got = reconcileAgent(t, r, key)
	if c := meta.FindStatusCondition(got.Status.Conditions, v1alpha1.AgentRuntimeConditionA2ATaskStoreShared); c != nil {
		t.Errorf("A2ATaskStoreShared %+v on an agent without an a2a facade", c)
	}
	want(got, v1alpha1.AgentRuntimeConditionSessionRecording, metav1.ConditionFalse, v1alpha1.AgentRuntimeReasonServiceGroupNotFound)
	secondReconcileWritesNothing(t, r, writes, key)
}
