package clusterbench

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules"
)

// The agents the benchmarks create: a Claude Provider at a local plain-http
// vendor (the Provider controller sends no credential probe over plain
// http, so they go Ready without a vendor and nothing leaves the machine),
// a ConfigMap-sourced PromptPack per agent (the objects a team keeps beside
// each agent), and one websocket facade.
const (
	// CredentialSecret is each namespace's Provider credential Secret.
	CredentialSecret = "bench-credentials"
	// PackVersion is every benchmark PromptPack's version.
	PackVersion = "1.0.0"
)

// CredentialSecretIn is namespace ns's credential Secret.
func CredentialSecretIn(ns string) *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: CredentialSecret},
		StringData: map[string]string{"ANTHROPIC_API_KEY": "sk-bench-not-a-key"},
	}
}

// PromptPackObjects are pack's ConfigMap and its PromptPack in ns, in the
// order they are created.
func PromptPackObjects(ns, pack string) []client.Object {
	return []client.Object{
		&corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: pack},
			Data:       map[string]string{"pack.json": fmt.Sprintf(`{"id": %q, "version": %q}`, pack, PackVersion)},
		},
		&v1alpha1.PromptPack{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: pack, Labels: map[string]string{rules.PromptPackLabel: pack}},
			Spec: v1alpha1.PromptPackSpec{PackName: pack, Version: PackVersion,
				Source: v1alpha1.PromptPackContentSource{ConfigMapRef: &v1alpha1.LocalObjectReference{Name: pack}}},
		},
	}
}

// ProviderSpec is a benchmark Provider: Claude, at the local plain-http
// vendor baseURL, with the namespace's credential Secret.
func ProviderSpec(baseURL string) v1alpha1.ProviderSpec {
	return v1alpha1.ProviderSpec{
		Type:       v1alpha1.ProviderTypeClaude,
		Model:      "claude-sonnet-4-20250514",
		BaseURL:    baseURL,
		Credential: &v1alpha1.ProviderCredential{SecretRef: &v1alpha1.ProviderSecretKeyRef{Name: CredentialSecret}},
	}
}

// AgentSpec is a benchmark agent's spec: pack, the Provider provider, one
// websocket facade.
func AgentSpec(pack, provider string) v1alpha1.AgentRuntimeSpec {
	return v1alpha1.AgentRuntimeSpec{
		PromptPackRef: &v1alpha1.AgentRuntimePromptPackRef{Name: pack, Version: PackVersion},
		Providers: []v1alpha1.AgentRuntimeProvider{{Name: "default",
			ProviderRef: v1alpha1.NamespacedObjectReference{Name: provider}}},
		Facades: []v1alpha1.AgentRuntimeFacade{{Type: v1alpha1.AgentRuntimeFacadeTypeWebSocket}},
	}
}
