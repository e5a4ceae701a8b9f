package agentruntime

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// quotaWorkspace creates the cluster-scoped Workspace name owning namespace
// ns with the given agent quota, and deletes it when the test ends.
func quotaWorkspace(t *testing.T, name, ns string, q *v1alpha1.WorkspaceAgentQuota) *v1alpha1.Workspace {
	t.Helper()
	ws := &v1alpha1.Workspace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	ws.Spec.Namespace.Name = ns
	if q != nil {
		ws.Spec.Quotas = &v1alpha1.WorkspaceQuotas{Agents: q}
	}
	if err := k8s.Create(context.Background(), ws); err != nil {
		t.Fatalf("create Workspace: %v", err)
	}
	t.Cleanup(func() { _ = k8s.Delete(context.Background(), ws) })
	return ws
}

// setAgentQuota replaces the Workspace's agent quota (nil removes it).
func setAgentQuota(t *testing.T, ws *v1alpha1.Workspace, q *v1alpha1.WorkspaceAgentQuota) {
	t.Helper()
	ctx := context.Background()
	if err := k8s.Get(ctx, client.ObjectKeyFromObject(ws), ws); err != nil {
		t.Fatal(err)
	}
	ws.Spec.Quotas = nil
	if q != nil {
		ws.Spec.Quotas = &v1alpha1.WorkspaceQuotas{Agents: q}
	}
	if err := k8s.Update(ctx, ws); err != nil {
		t.Fatalf("update Workspace: %v", err)
	}
}

// addAgent creates a minimal agent named name in the existing namespace ns.
func addAgent(t *testing.T, ns, name string, mut ...func(*v1alpha1.AgentRuntime)) client.ObjectKey {
	t.Helper()
	ar := agent(mut...)
	ar.Namespace, ar.Name, ar.UID = ns, name, ""
	if err := k8s.Create(context.Background(), ar); err != nil {
		t.Fatalf("create AgentRuntime %s: %v", name, err)
	}
	return client.ObjectKeyFromObject(ar)
}

func createNamespace(t *testing.T, ns string) {
	t.Helper()
	if err := k8s.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
}

// quotaCondition is "Status/Reason" of WithinWorkspaceQuota, or "absent".
func quotaCondition(ar *v1alpha1.AgentRuntime) string {
	c := meta.FindStatusCondition(ar.Status.Conditions, v1alpha1.AgentRuntimeConditionWithinWorkspaceQuota)
	if c == nil {
		return "absent"
	}
	return string(c.Status) + "/" + c.Reason
}

// deploymentOf returns the agent's Deployment, or nil when there is none.
func deploymentOf(t *testing.T, key client.ObjectKey) *appsv1.Deployment {
	t.Helper()
	d := &appsv1.Deployment{}
	if err := k8s.Get(context.Background(), key, d); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		t.Fatal(err)
	}
	return d
}

// TestWorkspaceQuotaAdmitsOldestFirst: with maxAgentRuntimes 1 the older of
// two agents runs and the newer waits (AgentRuntimeQuotaExceeded, Ready
// WorkspaceQuotaExceeded, phase Pending, no Deployment); a second reconcile
// writes nothing; deleting the older admits the newer on its next
// reconcile; lowering the quota beneath the running agents keeps them
// running (RunningOverAgentRuntimeQuota for the one beyond it); removing
// the quota removes the condition.
func TestWorkspaceQuotaAdmitsOldestFirst(t *testing.T) {
	ctx := context.Background()
	const ns = "ar-quota-admit"
	createNamespace(t, ns)
	ws := quotaWorkspace(t, ns, ns, &v1alpha1.WorkspaceAgentQuota{MaxAgentRuntimes: ptr.To[int32](1)})
	// Created in order; in the same second the name breaks the tie, and
	// the names sort the same way.
	older := addAgent(t, ns, "a-older")
	newer := addAgent(t, ns, "b-newer")
	r, writes := newCountingReconciler(t)

	got := reconcileAgent(t, r, older)
	if q := quotaCondition(got); q != "True/"+v1alpha1.AgentRuntimeReasonQuotaSatisfied {
		t.Errorf("older agent: WithinWorkspaceQuota %s, want True/QuotaSatisfied", q)
	}
	if deploymentOf(t, older) == nil {
		t.Fatal("the older agent, within the quota, has no Deployment")
	}
	got = reconcileAgent(t, r, newer)
	if q := quotaCondition(got); q != "False/"+v1alpha1.AgentRuntimeReasonAgentRuntimeQuotaExceeded {
		t.Errorf("newer agent: WithinWorkspaceQuota %s, want False/AgentRuntimeQuotaExceeded", q)
	}
	if c := meta.FindStatusCondition(got.Status.Conditions, v1alpha1.AgentRuntimeConditionReady); c == nil ||
		c.Status != metav1.ConditionFalse || c.Reason != v1alpha1.AgentRuntimeReasonWorkspaceQuotaExceeded {
		t.Errorf("newer agent: Ready %+v, want False/WorkspaceQuotaExceeded", c)
	}
	if got.Status.Phase != v1alpha1.AgentRuntimePhasePending {
		t.Errorf("newer agent: phase %q, want Pending", got.Status.Phase)
	}
	for _, o := range []client.Object{&appsv1.Deployment{}, &corev1.Service{}, &corev1.ServiceAccount{}} {
		name := newer.Name
		if _, sa := o.(*corev1.ServiceAccount); sa {
			name += "-facade"
		}
		if err := k8s.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, o); !apierrors.IsNotFound(err) {
			t.Errorf("%T %s for the unadmitted agent: err %v, want NotFound (nothing is created)", o, name, err)
		}
	}

	writes.Store(0)
	reconcileAgent(t, r, older)
	reconcileAgent(t, r, newer)
	if n := writes.Load(); n != 0 {
		t.Errorf("second reconciles with nothing changed made %d writes, want 0", n)
	}

	// The deletion handler's mapping: only the waiting agent is re-reconciled.
	if reqs := r.waitingAgents(ctx, ns); len(reqs) != 1 || reqs[0].NamespacedName != newer {
		t.Errorf("waiting agents %v, want [%s]", reqs, newer)
	}
	if reqs := r.agentsOfWorkspace(ctx, ws); len(reqs) != 2 {
		t.Errorf("a Workspace change enqueues %v, want both agents", reqs)
	}

	// No garbage collector in this suite: the older agent's Deployment
	// outlives it, but it is controlled by a deleted UID and no longer
	// counts.
	if err := k8s.Delete(ctx, &v1alpha1.AgentRuntime{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: older.Name}}); err != nil {
		t.Fatal(err)
	}
	got = reconcileAgent(t, r, newer)
	if q := quotaCondition(got); q != "True/"+v1alpha1.AgentRuntimeReasonQuotaSatisfied {
		t.Errorf("newer agent after the older is deleted: WithinWorkspaceQuota %s, want True/QuotaSatisfied", q)
	}
	if deploymentOf(t, newer) == nil {
		t.Fatal("the newer agent, admitted once the older was deleted, has no Deployment")
	}
	if c := meta.FindStatusCondition(got.Status.Conditions, v1alpha1.AgentRuntimeConditionReady); c != nil && c.Reason == v1alpha1.AgentRuntimeReasonWorkspaceQuotaExceeded {
		t.Errorf("admitted agent: Ready still %s", c.Reason)
	}

	// Two running agents, then the quota is lowered to 1: both keep their
	// Deployment; the one beyond the quota says so.
	setAgentQuota(t, ws, &v1alpha1.WorkspaceAgentQuota{MaxAgentRuntimes: ptr.To[int32](2)})
	third := addAgent(t, ns, "c-third")
	reconcileAgent(t, r, third)
	if deploymentOf(t, third) == nil {
		t.Fatal("the third agent, within a quota of 2, has no Deployment")
	}
	setAgentQuota(t, ws, &v1alpha1.WorkspaceAgentQuota{MaxAgentRuntimes: ptr.To[int32](1)})
	if q := quotaCondition(reconcileAgent(t, r, newer)); q != "True/"+v1alpha1.AgentRuntimeReasonQuotaSatisfied {
		t.Errorf("first running agent after lowering the quota: %s, want True/QuotaSatisfied", q)
	}
	got = reconcileAgent(t, r, third)
	if q := quotaCondition(got); q != "True/"+v1alpha1.AgentRuntimeReasonRunningOverAgentRuntimeQuota {
		t.Errorf("second running agent after lowering the quota: %s, want True/RunningOverAgentRuntimeQuota", q)
	}
	if deploymentOf(t, third) == nil {
		t.Error("lowering the quota removed a running agent's Deployment")
	}
	if got.Status.Replicas == nil {
		t.Error("the agent running over the quota reports no replicas: its workload was not reconciled")
	}

	// Present only when the Workspace sets an agent quota.
	setAgentQuota(t, ws, nil)
	if q := quotaCondition(reconcileAgent(t, r, third)); q != "absent" {
		t.Errorf("without an agent quota: WithinWorkspaceQuota %s, want absent", q)
	}
}

// TestWorkspaceQuotaClampsReplicas: maxReplicasPerAgent 2 and
// runtime.replicas 5 run the Deployment at 2 with ReplicasClamped, the agent
// otherwise reconciled as usual, and a second reconcile writes nothing.
func TestWorkspaceQuotaClampsReplicas(t *testing.T) {
	const ns = "ar-quota-clamp"
	createNamespace(t, ns)
	quotaWorkspace(t, ns, ns, &v1alpha1.WorkspaceAgentQuota{MaxReplicasPerAgent: ptr.To[int32](2)})
	key := addAgent(t, ns, "wide", func(a *v1alpha1.AgentRuntime) {
		a.Spec.Runtime = &v1alpha1.AgentRuntimeRuntime{Replicas: ptr.To[int32](5)}
	})
	r, writes := newCountingReconciler(t)

	got := reconcileAgent(t, r, key)
	if q := quotaCondition(got); q != "False/"+v1alpha1.AgentRuntimeReasonReplicasClamped {
		t.Errorf("WithinWorkspaceQuota %s, want False/ReplicasClamped", q)
	}
	d := deploymentOf(t, key)
	if d == nil {
		t.Fatal("a clamped agent has no Deployment")
	}
	if d.Spec.Replicas == nil || *d.Spec.Replicas != 2 {
		t.Errorf("Deployment replicas %v, want the cap 2", ptr.Deref(d.Spec.Replicas, -1))
	}
	if got.Status.Replicas == nil || got.Status.Replicas.Desired != 2 {
		t.Errorf("status.replicas %+v, want desired 2", got.Status.Replicas)
	}
	if c := meta.FindStatusCondition(got.Status.Conditions, v1alpha1.AgentRuntimeConditionReady); c == nil || c.Reason == v1alpha1.AgentRuntimeReasonWorkspaceQuotaExceeded {
		t.Errorf("Ready %+v: a clamped agent is admitted", c)
	}

	writes.Store(0)
	reconcileAgent(t, r, key)
	if n := writes.Load(); n != 0 {
		t.Errorf("a second reconcile with nothing changed made %d writes, want 0", n)
	}
}

// TestWorkspaceQuotaWatches: with the controller running in a manager, the
// waiting agent is admitted without being touched — once by raising the
// Workspace's quota (the Workspace watch), once by deleting the running agent
// (the AgentRuntime deletion watch).
func TestWorkspaceQuotaWatches(t *testing.T) {
	startManager(t, Options{})

	const ns = "ar-quota-watch"
	createNamespace(t, ns)
	ws := quotaWorkspace(t, ns, ns, &v1alpha1.WorkspaceAgentQuota{MaxAgentRuntimes: ptr.To[int32](1)})
	first := addAgent(t, ns, "a-first")
	second := addAgent(t, ns, "b-second")
	third := addAgent(t, ns, "c-third")
	g := gomega.NewWithT(t)
	states := func() []string {
		var out []string
		for _, key := range []client.ObjectKey{first, second, third} {
			ar := &v1alpha1.AgentRuntime{}
			if err := k8s.Get(context.Background(), key, ar); err != nil {
				out = append(out, key.Name+" "+err.Error())
				continue
			}
			out = append(out, key.Name+" "+quotaCondition(ar))
		}
		return out
	}
	exceeded := "False/" + v1alpha1.AgentRuntimeReasonAgentRuntimeQuotaExceeded
	ok := "True/" + v1alpha1.AgentRuntimeReasonQuotaSatisfied
	g.Eventually(states, 30*time.Second, 100*time.Millisecond).Should(gomega.Equal([]string{
		"a-first " + ok, "b-second " + exceeded, "c-third " + exceeded}))

	setAgentQuota(t, ws, &v1alpha1.WorkspaceAgentQuota{MaxAgentRuntimes: ptr.To[int32](2)})
	g.Eventually(states, 30*time.Second, 100*time.Millisecond).Should(gomega.Equal([]string{
		"a-first " + ok, "b-second " + ok, "c-third " + exceeded}))

	if err := k8s.Delete(context.Background(), &v1alpha1.AgentRuntime{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: first.Name}}); err != nil {
		t.Fatal(err)
	}
	g.Eventually(func() []string { return slices.Clone(states()[1:]) }, 30*time.Second, 100*time.Millisecond).Should(gomega.Equal([]string{
		"b-second " + ok, "c-third " + ok}))
}
