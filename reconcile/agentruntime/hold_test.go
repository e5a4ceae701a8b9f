package agentruntime

import (
	"context"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules"
)

// readyDeps creates, in ns, a Ready PromptPack "prompts" and a Ready mock
// Provider "llm", so an agent naming them gets its workload.
func readyDeps(t *testing.T, ns string) {
	t.Helper()
	ctx := context.Background()
	pack := &v1alpha1.PromptPack{ObjectMeta: metav1.ObjectMeta{Name: "prompts-1", Namespace: ns, Labels: map[string]string{rules.PromptPackLabel: "prompts"}}}
	pack.Spec.PackName, pack.Spec.Version = "prompts", "1.0.0"
	pack.Spec.Source.ConfigMapRef = &v1alpha1.LocalObjectReference{Name: "prompts"}
	if err := k8s.Create(ctx, pack); err != nil {
		t.Fatal(err)
	}
	setPackPhase(t, pack, v1alpha1.PromptPackPhaseReady)
	p := provider("llm", "m")
	p.Namespace = ns
	if err := k8s.Create(ctx, p); err != nil {
		t.Fatal(err)
	}
	setProviderPhase(t, p, v1alpha1.ProviderPhaseReady)
}

// conditionOf is "Status/Reason" of the agent's condition typ, or "absent".
func conditionOf(ar *v1alpha1.AgentRuntime, typ string) string {
	c := meta.FindStatusCondition(ar.Status.Conditions, typ)
	if c == nil {
		return "absent"
	}
	return string(c.Status) + "/" + c.Reason
}

func hasDeployment(t *testing.T, key client.ObjectKey) bool {
	t.Helper()
	err := k8s.Get(context.Background(), key, &appsv1.Deployment{})
	if err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	return err == nil
}

// TestCrossNamespaceReferencesHold: the webhook refuses a cross-namespace
// Provider and warns on a cross-namespace ToolRegistry, but an object can
// arrive with the webhook off (or in warn mode), so the controller holds
// too. A ToolRegistry in another namespace holds the agent Pending with
// nothing created (agentruntime.md § toolRegistryRef); a Provider in
// another namespace fails it and stops the Deployment it had
// (provider.md § Cross-namespace references are refused). Each is undone
// when the reference is fixed.
func TestCrossNamespaceReferencesHold(t *testing.T) {
	ctx := context.Background()
	r, _ := newCountingReconciler(t)
	withDeps := func(a *v1alpha1.AgentRuntime) {
		a.Spec.PromptPackRef = &v1alpha1.AgentRuntimePromptPackRef{Name: "prompts"}
		a.Spec.Providers = []v1alpha1.AgentRuntimeProvider{{Name: "default", ProviderRef: v1alpha1.NamespacedObjectReference{Name: "llm"}}}
	}

	t.Run("ToolRegistry in another namespace: held Pending, nothing created", func(t *testing.T) {
		ar := createAgent(t, agent(withDeps, func(a *v1alpha1.AgentRuntime) {
			a.Spec.ToolRegistryRef = &v1alpha1.NamespacedObjectReference{Name: "tools", Namespace: "elsewhere"}
		}), "ar-xns-tools")
		readyDeps(t, ar.Namespace)
		key := client.ObjectKeyFromObject(ar)
		for range 3 { // held at every reconcile, not only the first
			got := reconcileAgent(t, r, key)
			if got.Status.Phase != v1alpha1.AgentRuntimePhasePending ||
				conditionOf(got, v1alpha1.AgentRuntimeConditionToolRegistryReady) != "False/"+v1alpha1.AgentRuntimeReasonToolRegistryCrossNamespace {
				t.Fatalf("phase %s, ToolRegistryReady %s; want Pending and False/%s", got.Status.Phase,
					conditionOf(got, v1alpha1.AgentRuntimeConditionToolRegistryReady), v1alpha1.AgentRuntimeReasonToolRegistryCrossNamespace)
			}
			if hasDeployment(t, key) {
				t.Fatal("a Deployment was created for an agent whose ToolRegistry is in another namespace")
			}
		}
		// Accepted: without the foreign registry the workload is applied.
		got := &v1alpha1.AgentRuntime{}
		if err := k8s.Get(ctx, key, got); err != nil {
			t.Fatal(err)
		}
		got.Spec.ToolRegistryRef = nil
		if err := k8s.Update(ctx, got); err != nil {
			t.Fatal(err)
		}
		reconcileAgent(t, r, key)
		if !hasDeployment(t, key) {
			t.Error("no Deployment once the ToolRegistry reference is gone")
		}
	})

	t.Run("Provider in another namespace: Failed, Deployment stopped", func(t *testing.T) {
		ar := createAgent(t, agent(withDeps), "ar-xns-provider")
		readyDeps(t, ar.Namespace)
		key := client.ObjectKeyFromObject(ar)
		got := reconcileAgent(t, r, key)
		if !hasDeployment(t, key) {
			t.Fatalf("no Deployment for an agent whose references resolve (phase %s)", got.Status.Phase)
		}

		got.Spec.Providers[0].ProviderRef.Namespace = "elsewhere"
		if err := k8s.Update(ctx, got); err != nil {
			t.Fatal(err)
		}
		for range 3 {
			got = reconcileAgent(t, r, key)
			if got.Status.Phase != v1alpha1.AgentRuntimePhaseFailed ||
				conditionOf(got, v1alpha1.AgentRuntimeConditionProviderReady) != "False/"+v1alpha1.AgentRuntimeReasonProviderCrossNamespace {
				t.Fatalf("phase %s, ProviderReady %s; want Failed and False/%s", got.Status.Phase,
					conditionOf(got, v1alpha1.AgentRuntimeConditionProviderReady), v1alpha1.AgentRuntimeReasonProviderCrossNamespace)
			}
			if hasDeployment(t, key) {
				t.Fatal("the Deployment still exists for an agent whose Provider is in another namespace")
			}
		}

		got.Spec.Providers[0].ProviderRef.Namespace = ""
		if err := k8s.Update(ctx, got); err != nil {
			t.Fatal(err)
		}
		got = reconcileAgent(t, r, key)
		if !hasDeployment(t, key) || got.Status.Phase == v1alpha1.AgentRuntimePhaseFailed {
			t.Errorf("phase %s after the fix; want the Deployment back and the agent no longer Failed", got.Status.Phase)
		}
	})
}

// TestHeldAgentReportsReservedEnv: an agent held back (here: its PromptPack
// is missing) builds no Deployment, yet ReservedEnvClean still names the
// reserved key its extraEnv sets; True would be a condition that says
// nothing. Once nothing reserved is set it is True.
func TestHeldAgentReportsReservedEnv(t *testing.T) {
	ctx := context.Background()
	r, _ := newCountingReconciler(t)
	ar := createAgent(t, agent(func(a *v1alpha1.AgentRuntime) {
		a.Spec.PromptPackRef = &v1alpha1.AgentRuntimePromptPackRef{Name: "absent"}
		a.Spec.Runtime = &v1alpha1.AgentRuntimeRuntime{ExtraEnv: []corev1.EnvVar{{Name: "OMNIA_PACK_MODE", Value: "x"}}}
	}), "ar-held-env")
	key := client.ObjectKeyFromObject(ar)
	got := reconcileAgent(t, r, key)
	if hasDeployment(t, key) {
		t.Fatal("a Deployment was built for an agent without its PromptPack")
	}
	if c := conditionOf(got, v1alpha1.AgentRuntimeConditionReservedEnvClean); c != "False/"+v1alpha1.AgentRuntimeReasonReservedEnvKey {
		t.Errorf("held agent with a reserved key: ReservedEnvClean %s, want False/%s", c, v1alpha1.AgentRuntimeReasonReservedEnvKey)
	}
	got.Spec.Runtime.ExtraEnv = []corev1.EnvVar{{Name: "MY_SETTING", Value: "x"}}
	if err := k8s.Update(ctx, got); err != nil {
		t.Fatal(err)
	}
	got = reconcileAgent(t, r, key)
	if c := conditionOf(got, v1alpha1.AgentRuntimeConditionReservedEnvClean); c != "True/"+v1alpha1.AgentRuntimeReasonReservedEnvClean {
		t.Errorf("held agent without a reserved key: ReservedEnvClean %s, want True/%s", c, v1alpha1.AgentRuntimeReasonReservedEnvClean)
	}
}
