package agentruntime

import (
	"context"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/agentruntime/workload"
)

// TestProviderCredentialKeyIsTheProvidersChoice: a Provider whose
// secretRef names no key reads the key rules.ProviderSecretKey chooses over
// the Secret's keys (for claude, CLAUDE_API_KEY when ANTHROPIC_API_KEY is
// absent), so the pod reads the key the Provider's SecretFound reported;
// with no candidate key in the Secret, no credential variable is set.
func TestProviderCredentialKeyIsTheProvidersChoice(t *testing.T) {
	ctx := context.Background()
	ar := createAgent(t, agent(func(a *v1alpha1.AgentRuntime) {
		a.Spec.Providers = []v1alpha1.AgentRuntimeProvider{{Name: "default", ProviderRef: v1alpha1.NamespacedObjectReference{Name: "llm"}}}
		a.Spec.PromptPackRef = &v1alpha1.AgentRuntimePromptPackRef{Name: "prompts"}
	}), "ar-secret-key")
	key := client.ObjectKeyFromObject(ar)
	createPack(t, key.Namespace, "prompts", "1.0.0", v1alpha1.PromptPackPhaseReady)
	p := provider("llm", "m")
	p.Namespace = key.Namespace
	if err := k8s.Create(ctx, p); err != nil {
		t.Fatal(err)
	}
	setProviderPhase(t, p, v1alpha1.ProviderPhaseReady)
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "llm-key", Namespace: key.Namespace},
		Data: map[string][]byte{"unrelated": []byte("x")}}
	if err := k8s.Create(ctx, secret); err != nil {
		t.Fatal(err)
	}
	r, _ := newCountingReconciler(t)

	apiKeyRef := func() *corev1.SecretKeySelector {
		t.Helper()
		reconcileAgent(t, r, key)
		d := &appsv1.Deployment{}
		if err := k8s.Get(ctx, key, d); err != nil {
			t.Fatalf("Deployment: %v", err)
		}
		for _, c := range d.Spec.Template.Spec.Containers {
			if c.Name != workload.ContainerRuntime {
				continue
			}
			for _, e := range c.Env {
				if e.Name == "OMNIA_PROVIDER_DEFAULT_API_KEY" && e.ValueFrom != nil {
					return e.ValueFrom.SecretKeyRef
				}
			}
		}
		return nil
	}
	if ref := apiKeyRef(); ref != nil {
		t.Errorf("no candidate key in the Secret, yet the pod reads %s/%s", ref.Name, ref.Key)
	}
	secret.Data["CLAUDE_API_KEY"] = []byte("sk-test")
	if err := k8s.Update(ctx, secret); err != nil {
		t.Fatal(err)
	}
	if ref := apiKeyRef(); ref == nil || ref.Name != "llm-key" || ref.Key != "CLAUDE_API_KEY" {
		t.Errorf("API key from %+v, want llm-key/CLAUDE_API_KEY", ref)
	}
}
