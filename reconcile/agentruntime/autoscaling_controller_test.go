package agentruntime

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/agentruntime/workload"
	"github.com/altairalabs/omnia/test/controlplane"
)

// runnableAgent stores the agent in a fresh namespace with the Ready
// PromptPack it references, so nothing holds its workload back.
func runnableAgent(t *testing.T, ns string, mut ...func(*v1alpha1.AgentRuntime)) client.ObjectKey {
	t.Helper()
	ar := agent(append([]func(*v1alpha1.AgentRuntime){func(a *v1alpha1.AgentRuntime) {
		a.Spec.PromptPackRef = &v1alpha1.AgentRuntimePromptPackRef{Name: "prompts"}
	}}, mut...)...)
	ar = createAgent(t, ar, ns)
	createPack(t, ns, "prompts", "1.0.0", v1alpha1.PromptPackPhaseReady)
	return client.ObjectKeyFromObject(ar)
}

// setAutoscaling replaces the agent's spec.runtime.autoscaling.
func setAutoscaling(t *testing.T, key client.ObjectKey, a *v1alpha1.AgentRuntimeAutoscaling) {
	t.Helper()
	ar := &v1alpha1.AgentRuntime{}
	if err := k8s.Get(context.Background(), key, ar); err != nil {
		t.Fatal(err)
	}
	if ar.Spec.Runtime == nil {
		ar.Spec.Runtime = &v1alpha1.AgentRuntimeRuntime{}
	}
	ar.Spec.Runtime.Autoscaling = a
	if err := k8s.Update(context.Background(), ar); err != nil {
		t.Fatal(err)
	}
}

// operatorOwnsReplicas reports whether the operator's field manager owns
// the live Deployment's spec.replicas (it must not while an autoscaler
// scales it).
func operatorOwnsReplicas(t *testing.T, key client.ObjectKey) bool {
	t.Helper()
	d := &appsv1.Deployment{}
	if err := k8s.Get(context.Background(), key, d); err != nil {
		t.Fatal(err)
	}
	return managerOwnsReplicas(d, FieldManager)
}

func autoscalingReady(t *testing.T, ar *v1alpha1.AgentRuntime, status metav1.ConditionStatus, reason string) {
	t.Helper()
	c := meta.FindStatusCondition(ar.Status.Conditions, v1alpha1.AgentRuntimeConditionAutoscalingReady)
	if c == nil || c.Status != status || c.Reason != reason {
		t.Errorf("AutoscalingReady %+v, want %s/%s", c, status, reason)
	}
}

func secondReconcileWritesNothing(t *testing.T, r *Reconciler, writes interface {
	Store(int32)
	Load() int32
}, key client.ObjectKey) {
	t.Helper()
	writes.Store(0)
	reconcileAgent(t, r, key)
	if n := writes.Load(); n != 0 {
		t.Errorf("a second reconcile with nothing changed made %d writes, want 0", n)
	}
}

// TestReconcileHPA: the spec's HPA example gets an HPA with its settings
// and the fixed behaviour, the Deployment's replicas are left to it, a
// second reconcile writes nothing, disabling autoscaling deletes the HPA
// and gives the Deployment static replicas back, and a Deployment held at
// zero replicas has no autoscaler.
func TestReconcileHPA(t *testing.T) {
	ctx := context.Background()
	r, writes := newCountingReconciler(t)
	key := runnableAgent(t, "ar-as-hpa", func(a *v1alpha1.AgentRuntime) {
		a.Spec.Runtime = &v1alpha1.AgentRuntimeRuntime{Replicas: ptr.To[int32](3), Autoscaling: autoscalingFrom(t, specHPAExample)}
	})

	got := reconcileAgent(t, r, key)
	autoscalingReady(t, got, metav1.ConditionTrue, v1alpha1.AgentRuntimeReasonAutoscalingScaling)
	hpa := &autoscalingv2.HorizontalPodAutoscaler{}
	if err := k8s.Get(ctx, key, hpa); err != nil {
		t.Fatalf("no HPA: %v", err)
	}
	want := wantHPASpec(2, 10, 70, 80, 300)
	want.ScaleTargetRef.Name = key.Name
	if !equalYAML(t, hpa.Spec, want) {
		t.Errorf("the API server's HPA differs from the spec's settings")
	}
	if refs := hpa.OwnerReferences; len(refs) != 1 || refs[0].UID != got.UID {
		t.Errorf("HPA owner references %+v, want the agent", refs)
	}
	if operatorOwnsReplicas(t, key) {
		t.Errorf("the operator sets the Deployment's replicas under an HPA")
	}
	secondReconcileWritesNothing(t, r, writes, key)

	setAutoscaling(t, key, &v1alpha1.AgentRuntimeAutoscaling{Enabled: false})
	got = reconcileAgent(t, r, key)
	autoscalingReady(t, got, metav1.ConditionTrue, v1alpha1.AgentRuntimeReasonAutoscalingDisabled)
	if err := k8s.Get(ctx, key, &autoscalingv2.HorizontalPodAutoscaler{}); !apierrors.IsNotFound(err) {
		t.Errorf("HPA after disabling autoscaling: %v, want NotFound", err)
	}
	d := &appsv1.Deployment{}
	if err := k8s.Get(ctx, key, d); err != nil {
		t.Fatal(err)
	}
	if !operatorOwnsReplicas(t, key) || d.Spec.Replicas == nil || *d.Spec.Replicas != 3 {
		t.Errorf("static replicas %v (owned by the operator: %v), want 3", d.Spec.Replicas, operatorOwnsReplicas(t, key))
	}
	secondReconcileWritesNothing(t, r, writes, key)

	// Re-enabled, then held at zero replicas (capabilities not satisfied):
	// no autoscaler may scale the Deployment back up.
	setAutoscaling(t, key, &v1alpha1.AgentRuntimeAutoscaling{Enabled: true})
	got = reconcileAgent(t, r, key)
	if err := k8s.Get(ctx, key, &autoscalingv2.HorizontalPodAutoscaler{}); err != nil {
		t.Fatalf("no HPA once re-enabled: %v", err)
	}
	res := workload.Resolved{ScaleToZero: true}
	if out, err := r.applyAutoscaling(ctx, got, &res); err != nil || !out.heldAtZero || out.applied != "" {
		t.Errorf("applyAutoscaling held at zero: %+v, %v", out, err)
	}
	if err := k8s.Get(ctx, key, &autoscalingv2.HorizontalPodAutoscaler{}); !apierrors.IsNotFound(err) {
		t.Errorf("HPA while held at zero: %v, want NotFound", err)
	}
}

// TestReconcileReplicasHandoff: turning autoscaling on for a running
// 3-replica agent leaves the Deployment at 3 (not the API server's default
// of 1) with spec.replicas no longer the operator's, and the transition
// write is not repeated.
func TestReconcileReplicasHandoff(t *testing.T) {
	ctx := context.Background()
	r, writes := newCountingReconciler(t)
	key := runnableAgent(t, "ar-as-handoff", func(a *v1alpha1.AgentRuntime) {
		a.Spec.Runtime = &v1alpha1.AgentRuntimeRuntime{Replicas: ptr.To[int32](3)}
	})
	reconcileAgent(t, r, key)
	if !operatorOwnsReplicas(t, key) {
		t.Fatal("static replicas are not the operator's")
	}
	setAutoscaling(t, key, &v1alpha1.AgentRuntimeAutoscaling{Enabled: true, MinReplicas: ptr.To[int32](2)})
	reconcileAgent(t, r, key)
	d := &appsv1.Deployment{}
	if err := k8s.Get(ctx, key, d); err != nil {
		t.Fatal(err)
	}
	if d.Spec.Replicas == nil || *d.Spec.Replicas != 3 {
		t.Errorf("replicas %d once the HPA takes over, want the running 3", ptr.Deref(d.Spec.Replicas, -1))
	}
	if operatorOwnsReplicas(t, key) {
		t.Errorf("the operator still owns spec.replicas under an HPA")
	}
	secondReconcileWritesNothing(t, r, writes, key)
}

// TestReconcileWorkspaceDefaultAutoscaling: an agent setting no
// autoscaling inherits its Workspace service group's default.
func TestReconcileWorkspaceDefaultAutoscaling(t *testing.T) {
	ctx := context.Background()
	const ns = "ar-as-workspace"
	ws := &v1alpha1.Workspace{ObjectMeta: metav1.ObjectMeta{Name: ns}}
	ws.Spec.Namespace.Name = ns
	ws.Spec.Services = []v1alpha1.WorkspaceServiceGroup{
		{Name: "default", Autoscaling: &v1alpha1.AgentRuntimeAutoscaling{Enabled: true, MaxReplicas: ptr.To[int32](5)}},
		{Name: "static"},
	}
	if err := k8s.Create(ctx, ws); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k8s.Delete(ctx, ws) })
	r, _ := newCountingReconciler(t)
	key := runnableAgent(t, ns)
	got := reconcileAgent(t, r, key)
	autoscalingReady(t, got, metav1.ConditionTrue, v1alpha1.AgentRuntimeReasonAutoscalingScaling)
	hpa := &autoscalingv2.HorizontalPodAutoscaler{}
	if err := k8s.Get(ctx, key, hpa); err != nil {
		t.Fatalf("no HPA from the service group's default: %v", err)
	}
	if hpa.Spec.MaxReplicas != 5 || *hpa.Spec.MinReplicas != 1 {
		t.Errorf("HPA min %d max %d, want the group's 1..5", *hpa.Spec.MinReplicas, hpa.Spec.MaxReplicas)
	}

	// An agent of another group without a default runs static replicas.
	other := &v1alpha1.AgentRuntime{}
	if err := k8s.Get(ctx, key, other); err != nil {
		t.Fatal(err)
	}
	other.Spec.ServiceGroup = "static"
	if err := k8s.Update(ctx, other); err != nil {
		t.Fatal(err)
	}
	got = reconcileAgent(t, r, key)
	autoscalingReady(t, got, metav1.ConditionTrue, v1alpha1.AgentRuntimeReasonAutoscalingDisabled)
	if err := k8s.Get(ctx, key, &autoscalingv2.HorizontalPodAutoscaler{}); !apierrors.IsNotFound(err) {
		t.Errorf("HPA after moving to a group without a default: %v, want NotFound", err)
	}
}

// TestReconcileAutoscalingCappedByQuota: the Workspace's
// maxReplicasPerAgent bounds the HPA the agent asks for (it runs at the cap).
func TestReconcileAutoscalingCappedByQuota(t *testing.T) {
	ctx := context.Background()
	const ns = "ar-as-quota"
	ws := &v1alpha1.Workspace{ObjectMeta: metav1.ObjectMeta{Name: ns}}
	ws.Spec.Namespace.Name = ns
	ws.Spec.Quotas = &v1alpha1.WorkspaceQuotas{Agents: &v1alpha1.WorkspaceAgentQuota{MaxReplicasPerAgent: ptr.To[int32](3)}}
	if err := k8s.Create(ctx, ws); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = k8s.Delete(ctx, ws) })
	r, writes := newCountingReconciler(t)
	key := runnableAgent(t, ns, func(a *v1alpha1.AgentRuntime) {
		a.Spec.Runtime = &v1alpha1.AgentRuntimeRuntime{Autoscaling: autoscalingFrom(t, specHPAExample)}
	})
	got := reconcileAgent(t, r, key)
	autoscalingReady(t, got, metav1.ConditionTrue, v1alpha1.AgentRuntimeReasonAutoscalingScaling)
	hpa := &autoscalingv2.HorizontalPodAutoscaler{}
	if err := k8s.Get(ctx, key, hpa); err != nil {
		t.Fatal(err)
	}
	if hpa.Spec.MaxReplicas != 3 || *hpa.Spec.MinReplicas != 2 {
		t.Errorf("HPA min %d max %d, want 2..3 under maxReplicasPerAgent 3", *hpa.Spec.MinReplicas, hpa.Spec.MaxReplicas)
	}
	secondReconcileWritesNothing(t, r, writes, key)
}

// TestReconcileKEDA runs in order on the suite's API server: first without
// KEDA's CRDs (KEDANotInstalled, static replicas), then with them, installed
// from KEDA's own module (a ScaledObject the API server accepts, for the
// spec's example and for the default trigger), then switching to hpa
// (the ScaledObject is deleted), then the controller in a manager, whose
// watches apply a deleted autoscaler again. The CRDs are removed again at
// the end.
func TestReconcileKEDA(t *testing.T) {
	ctx := context.Background()
	key := runnableAgent(t, "ar-as-keda", func(a *v1alpha1.AgentRuntime) {
		a.Spec.Runtime = &v1alpha1.AgentRuntimeRuntime{Replicas: ptr.To[int32](2), Autoscaling: autoscalingFrom(t, specKEDAExample)}
	})
	defaultKey := runnableAgent(t, "ar-as-keda-default", func(a *v1alpha1.AgentRuntime) {
		a.Spec.Runtime = &v1alpha1.AgentRuntimeRuntime{Autoscaling: &v1alpha1.AgentRuntimeAutoscaling{Enabled: true, Type: "keda"}}
	})

	t.Run("without KEDA's CRDs", func(t *testing.T) {
		if kedaServed(t) {
			t.Fatal("KEDA's CRDs are already served on the suite's API server")
		}
		r, writes := newCountingReconciler(t)
		got := reconcileAgent(t, r, key)
		autoscalingReady(t, got, metav1.ConditionFalse, v1alpha1.AgentRuntimeReasonKEDANotInstalled)
		d := &appsv1.Deployment{}
		if err := k8s.Get(ctx, key, d); err != nil {
			t.Fatal(err)
		}
		if !operatorOwnsReplicas(t, key) || d.Spec.Replicas == nil || *d.Spec.Replicas != 2 {
			t.Errorf("replicas %v without KEDA, want the static 2", d.Spec.Replicas)
		}
		secondReconcileWritesNothing(t, r, writes, key)
	})

	files, err := controlplane.KEDACRDFiles()
	if err != nil {
		t.Fatal(err)
	}
	if err := controlplane.InstallKEDACRDs(testConfig); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { uninstallKEDA(t, files) })

	t.Run("with KEDA's CRDs", func(t *testing.T) {
		r, writes := newCountingReconciler(t)
		for _, tc := range []struct {
			key          client.ObjectKey
			min, max     int64
			poll, cool   int64
			triggerQuery string
		}{
			{key, 1, 20, 15, 60, `sum(omnia_agent_connections_active{agent="my-agent"})`},
			{defaultKey, 1, 100, 30, 300, `sum(omnia_agent_connections_active{agent="support",namespace="ar-as-keda-default"}) or vector(0)`},
		} {
			got := reconcileAgent(t, r, tc.key)
			autoscalingReady(t, got, metav1.ConditionTrue, v1alpha1.AgentRuntimeReasonAutoscalingScaling)
			so := workload.NewScaledObject()
			if err := k8s.Get(ctx, tc.key, so); err != nil {
				t.Fatalf("no ScaledObject for %s: %v", tc.key, err)
			}
			spec, _, _ := unstructured.NestedMap(so.Object, "spec")
			want := workload.ScaledObject(got, got.Spec.Runtime.Autoscaling).Object["spec"]
			if !equalYAML(t, spec, want) {
				t.Errorf("%s: the API server's ScaledObject differs from the one built", tc.key)
			}
			for field, v := range map[string]int64{"minReplicaCount": tc.min, "maxReplicaCount": tc.max, "pollingInterval": tc.poll, "cooldownPeriod": tc.cool} {
				if n, _, _ := unstructured.NestedInt64(spec, field); n != v {
					t.Errorf("%s: %s %d, want %d", tc.key, field, n, v)
				}
			}
			triggers, _, _ := unstructured.NestedSlice(spec, "triggers")
			if len(triggers) != 1 || triggers[0].(map[string]any)["metadata"].(map[string]any)["query"] != tc.triggerQuery {
				t.Errorf("%s: triggers %v, want query %s", tc.key, triggers, tc.triggerQuery)
			}
			if refs := so.GetOwnerReferences(); len(refs) != 1 || refs[0].UID != got.UID {
				t.Errorf("ScaledObject owner references %+v, want the agent", refs)
			}
			if operatorOwnsReplicas(t, tc.key) {
				t.Errorf("%s: the operator sets the Deployment's replicas under a ScaledObject", tc.key)
			}
			secondReconcileWritesNothing(t, r, writes, tc.key)
		}

		// Switching to hpa deletes the ScaledObject and applies an HPA.
		setAutoscaling(t, key, &v1alpha1.AgentRuntimeAutoscaling{Enabled: true, Type: "hpa"})
		got := reconcileAgent(t, r, key)
		autoscalingReady(t, got, metav1.ConditionTrue, v1alpha1.AgentRuntimeReasonAutoscalingScaling)
		if err := k8s.Get(ctx, key, workload.NewScaledObject()); !apierrors.IsNotFound(err) {
			t.Errorf("ScaledObject after switching to hpa: %v, want NotFound", err)
		}
		if err := k8s.Get(ctx, key, &autoscalingv2.HorizontalPodAutoscaler{}); err != nil {
			t.Errorf("no HPA after switching to hpa: %v", err)
		}
	})

	t.Run("in a manager", autoscalersRecreatedByWatches)
}

// autoscalersRecreatedByWatches runs the controller in a manager (KEDA's
// CRDs served at startup, so it watches ScaledObjects): an hpa and a keda
// agent get their autoscalers, and deleting either autoscaler re-reconciles
// its agent through the Owns watches, which applies it again.
func autoscalersRecreatedByWatches(t *testing.T) {
	ctx := context.Background()
	mgr, err := ctrl.NewManager(testConfig, ctrl.Options{
		Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
		// As cmd/omnia-operator: ScaledObjects are read from the cache.
		Client: client.Options{Cache: &client.CacheOptions{Unstructured: true}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := SetupWithManager(mgr, Options{BuiltinRuntimeImage: "r:1", FacadeImage: "f:1", PolicyBrokerImage: "b:1"}); err != nil {
		t.Fatal(err)
	}
	mctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); _ = mgr.Start(mctx) }()
	t.Cleanup(func() { cancel(); <-done })

	hpaKey := runnableAgent(t, "ar-as-mgr-hpa", func(a *v1alpha1.AgentRuntime) {
		a.Spec.Runtime = &v1alpha1.AgentRuntimeRuntime{Autoscaling: &v1alpha1.AgentRuntimeAutoscaling{Enabled: true}}
	})
	kedaKey := runnableAgent(t, "ar-as-mgr-keda", func(a *v1alpha1.AgentRuntime) {
		a.Spec.Runtime = &v1alpha1.AgentRuntimeRuntime{Autoscaling: &v1alpha1.AgentRuntimeAutoscaling{Enabled: true, Type: "keda"}}
	})
	g := gomega.NewWithT(t)
	for _, tc := range []struct {
		key client.ObjectKey
		obj func() client.Object
	}{
		{hpaKey, func() client.Object { return &autoscalingv2.HorizontalPodAutoscaler{} }},
		{kedaKey, func() client.Object { return workload.NewScaledObject() }},
	} {
		uid := func() string {
			o := tc.obj()
			if err := k8s.Get(ctx, tc.key, o); err != nil {
				return ""
			}
			return string(o.GetUID())
		}
		g.Eventually(uid, 30*time.Second, 100*time.Millisecond).ShouldNot(gomega.BeEmpty(), "autoscaler of %s", tc.key)
		first := uid()
		o := tc.obj()
		o.SetNamespace(tc.key.Namespace)
		o.SetName(tc.key.Name)
		if err := k8s.Delete(ctx, o); err != nil {
			t.Fatal(err)
		}
		g.Eventually(uid, 30*time.Second, 100*time.Millisecond).ShouldNot(gomega.Or(gomega.BeEmpty(), gomega.Equal(first)),
			"the deleted autoscaler of %s was not applied again", tc.key)
	}
}

// kedaServed asks the API server's discovery whether keda.sh/v1alpha1
// serves scaledobjects.
func kedaServed(t *testing.T) bool {
	t.Helper()
	dc := discovery.NewDiscoveryClientForConfigOrDie(testConfig)
	list, err := dc.ServerResourcesForGroupVersion("keda.sh/v1alpha1")
	if apierrors.IsNotFound(err) {
		return false
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range list.APIResources {
		if r.Name == "scaledobjects" {
			return true
		}
	}
	return false
}

// uninstallKEDA removes KEDA's CRDs and waits until they are no longer
// served, leaving the suite's API server as it found it.
func uninstallKEDA(t *testing.T, files []string) {
	if err := envtest.UninstallCRDs(testConfig, envtest.CRDInstallOptions{Paths: files}); err != nil {
		t.Errorf("uninstalling KEDA's CRDs: %v", err)
		return
	}
	err := wait.PollUntilContextTimeout(context.Background(), 200*time.Millisecond, 2*time.Minute, true,
		func(context.Context) (bool, error) { return !kedaServed(t), nil })
	if err != nil {
		t.Errorf("KEDA's CRDs still served: %v", err)
	}
}

// equalYAML compares two values by their JSON form (a typed value against
// the API server's, or unstructured), logging both when they differ.
func equalYAML(t *testing.T, got, want any) bool {
	t.Helper()
	norm := func(v any) string {
		var out any
		if err := json.Unmarshal(mustJSON(t, v), &out); err != nil {
			t.Fatal(err)
		}
		return string(mustJSON(t, out))
	}
	if g, w := norm(got), norm(want); g != w {
		t.Logf("got:  %s\nwant: %s", g, w)
		return false
	}
	return true
}
