package agentruntime

import (
	"context"
	"sync/atomic"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	clocktesting "k8s.io/utils/clock/testing"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/ctrlopts"
	"github.com/altairalabs/omnia/rules"
)

// testConfig is the suite's API server config (set in TestMain).
var testConfig *rest.Config

// newCountingReconciler builds a reconciler on a client that counts every
// write (Create, Update, Patch, status writes).
func newCountingReconciler(t *testing.T) (*Reconciler, *atomic.Int32) {
	t.Helper()
	base, err := client.NewWithWatch(testConfig, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	n := &atomic.Int32{}
	c := interceptor.NewClient(base, interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, o client.Object, opts ...client.CreateOption) error {
			n.Add(1)
			return c.Create(ctx, o, opts...)
		},
		Update: func(ctx context.Context, c client.WithWatch, o client.Object, opts ...client.UpdateOption) error {
			n.Add(1)
			return c.Update(ctx, o, opts...)
		},
		Patch: func(ctx context.Context, c client.WithWatch, o client.Object, p client.Patch, opts ...client.PatchOption) error {
			n.Add(1)
			return c.Patch(ctx, o, p, opts...)
		},
		SubResourcePatch: func(ctx context.Context, c client.Client, sub string, o client.Object, p client.Patch, opts ...client.SubResourcePatchOption) error {
			n.Add(1)
			return c.SubResource(sub).Patch(ctx, o, p, opts...)
		},
	})
	hc, err := rest.HTTPClientFor(testConfig)
	if err != nil {
		t.Fatal(err)
	}
	mapper, err := apiutil.NewDynamicRESTMapper(testConfig, hc)
	if err != nil {
		t.Fatal(err)
	}
	return &Reconciler{client: c, mapper: mapper, opts: Options{
		BuiltinRuntimeImage: "registry.local/runtime:1", FacadeImage: "registry.local/facade:1", PolicyBrokerImage: "registry.local/broker:1",
		Common: ctrlopts.Common{Clock: clocktesting.NewFakePassiveClock(metav1.Now().Time)},
	}}, n
}

func reconcileAgent(t *testing.T, r *Reconciler, key client.ObjectKey) *v1alpha1.AgentRuntime {
	t.Helper()
	if _, err := r.Reconcile(context.Background(), ctrl.Request{NamespacedName: key}); err != nil {
		t.Fatalf("reconcile: %v", err)
	}
	ar := &v1alpha1.AgentRuntime{}
	if err := k8s.Get(context.Background(), key, ar); err != nil {
		t.Fatal(err)
	}
	return ar
}

// TestReconcileResolvesAndAppliesOnce: a missing PromptPack fails the agent
// (PromptPackNotFound, no Deployment); once the pack exists the children are
// applied with owner references, DeploymentReady is False (no nodes), a
// reserved key is dropped and reported, and a second reconcile writes
// nothing.
func TestReconcileResolvesAndAppliesOnce(t *testing.T) {
	ctx := context.Background()
	ar := agent(func(a *v1alpha1.AgentRuntime) {
		a.Spec.PromptPackRef = &v1alpha1.AgentRuntimePromptPackRef{Name: "prompts"}
		a.Spec.Runtime = &v1alpha1.AgentRuntimeRuntime{ExtraEnv: []corev1.EnvVar{{Name: "OMNIA_PACK_MODE", Value: "x"}}}
	})
	ar = createAgent(t, ar, "ar-ctrl-resolve")
	key := client.ObjectKeyFromObject(ar)
	r, writes := newCountingReconciler(t)

	got := reconcileAgent(t, r, key)
	if got.Status.Phase != v1alpha1.AgentRuntimePhaseFailed {
		t.Errorf("phase %q without a PromptPack, want Failed", got.Status.Phase)
	}
	if c := meta.FindStatusCondition(got.Status.Conditions, v1alpha1.AgentRuntimeConditionPromptPackReady); c == nil || c.Reason != v1alpha1.AgentRuntimeReasonPromptPackNotFound {
		t.Errorf("PromptPackReady %+v, want reason %s", c, v1alpha1.AgentRuntimeReasonPromptPackNotFound)
	}
	if err := k8s.Get(ctx, key, &appsv1.Deployment{}); err == nil {
		t.Errorf("a Deployment was created for an agent without a PromptPack")
	}

	pack := &v1alpha1.PromptPack{ObjectMeta: metav1.ObjectMeta{Name: "prompts-1", Namespace: key.Namespace, Labels: map[string]string{rules.PromptPackLabel: "prompts"}}}
	pack.Spec.PackName, pack.Spec.Version = "prompts", "1.0.0"
	pack.Spec.Source.ConfigMapRef = &v1alpha1.LocalObjectReference{Name: "prompts"}
	if err := k8s.Create(ctx, pack); err != nil {
		t.Fatal(err)
	}
	setPackPhase(t, pack, v1alpha1.PromptPackPhaseReady) // as the PromptPack controller does
	got = reconcileAgent(t, r, key)
	if got.Status.Phase != v1alpha1.AgentRuntimePhasePending {
		t.Errorf("phase %q with no ready replica, want Pending", got.Status.Phase)
	}
	for typ, want := range map[string]metav1.ConditionStatus{
		v1alpha1.AgentRuntimeConditionPromptPackReady:  metav1.ConditionTrue,
		v1alpha1.AgentRuntimeConditionFrameworkReady:   metav1.ConditionTrue,
		v1alpha1.AgentRuntimeConditionServiceReady:     metav1.ConditionTrue,
		v1alpha1.AgentRuntimeConditionDeploymentReady:  metav1.ConditionFalse,
		v1alpha1.AgentRuntimeConditionReservedEnvClean: metav1.ConditionFalse,
	} {
		if c := meta.FindStatusCondition(got.Status.Conditions, typ); c == nil || c.Status != want {
			t.Errorf("%s: %+v, want %s", typ, c, want)
		}
	}
	if got.Status.ServiceEndpoint == "" || got.Status.ActiveVersion != "1.0.0" || got.Status.ObservedGeneration != got.Generation {
		t.Errorf("status endpoint %q activeVersion %q observedGeneration %d", got.Status.ServiceEndpoint, got.Status.ActiveVersion, got.Status.ObservedGeneration)
	}
	for _, o := range []client.Object{&appsv1.Deployment{}, &corev1.Service{}, &corev1.ServiceAccount{}, &rbacv1.Role{}, &rbacv1.RoleBinding{}} {
		name := key.Name
		switch o.(type) {
		case *corev1.ServiceAccount, *rbacv1.Role, *rbacv1.RoleBinding:
			name = key.Name + "-facade"
		}
		if err := k8s.Get(ctx, client.ObjectKey{Namespace: key.Namespace, Name: name}, o); err != nil {
			t.Errorf("%T %s: %v", o, name, err)
			continue
		}
		if refs := o.GetOwnerReferences(); len(refs) != 1 || refs[0].UID != got.UID {
			t.Errorf("%T owner references %+v, want the agent", o, refs)
		}
	}
	d := &appsv1.Deployment{}
	if err := k8s.Get(ctx, key, d); err == nil {
		for _, c := range d.Spec.Template.Spec.Containers {
			for _, e := range c.Env {
				if e.Name == "OMNIA_PACK_MODE" && e.Value == "x" {
					t.Errorf("container %s kept the reserved extraEnv value", c.Name)
				}
			}
		}
	}

	writes.Store(0)
	reconcileAgent(t, r, key)
	if n := writes.Load(); n != 0 {
		t.Errorf("a second reconcile with nothing changed made %d writes, want 0", n)
	}
}
