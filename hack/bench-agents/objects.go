package main

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules"
)

// What the benchmark creates: agentsPerNamespace agents per namespace
// bench-<k>, each with its own Provider and its own ConfigMap-sourced
// PromptPack (the objects a team would keep beside each agent), and one
// credential Secret per namespace. The Providers' baseURL is a local
// plain-http server: the Provider controller sends no credential probe
// over plain http, so they go Ready without a vendor and nothing leaves
// the machine.
const (
	agentsPerNamespace = 100
	credentialSecret   = "bench-credentials"
	packVersion        = "1.0.0"
)

// namespaceOf is the namespace of agent i.
func namespaceOf(i int) string { return fmt.Sprintf("bench-%d", i/agentsPerNamespace) }

// createNamespace creates the namespace of agent i (the first of each
// block) and its credential Secret.
func createNamespace(ctx context.Context, c client.Client, i int) error {
	ns := namespaceOf(i)
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		return fmt.Errorf("namespace %s: %w", ns, err)
	}
	return c.Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: credentialSecret},
		StringData: map[string]string{"ANTHROPIC_API_KEY": "sk-bench-not-a-key"},
	})
}

// createAgent creates agent i with its Provider, PromptPack and the
// PromptPack's ConfigMap, in the order a GitOps tool might apply them
// (the agent last, so it is not Failed for a missing pack first).
func createAgent(ctx context.Context, c client.Client, i int, baseURL string) error {
	ns := namespaceOf(i)
	name := fmt.Sprintf("agent-%d", i)
	pack := fmt.Sprintf("pack-%d", i)
	objs := []client.Object{
		&corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: pack},
			Data:       map[string]string{"pack.json": fmt.Sprintf(`{"id": %q, "version": %q}`, pack, packVersion)},
		},
		&v1alpha1.PromptPack{
			ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: pack, Labels: map[string]string{rules.PromptPackLabel: pack}},
			Spec: v1alpha1.PromptPackSpec{PackName: pack, Version: packVersion,
				Source: v1alpha1.PromptPackContentSource{ConfigMapRef: &v1alpha1.LocalObjectReference{Name: pack}}},
		},
		&v1alpha1.Provider{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: providerSpec(baseURL)},
		&v1alpha1.AgentRuntime{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: agentSpec(name, pack)},
	}
	for _, o := range objs {
		if err := c.Create(ctx, o); err != nil {
			return fmt.Errorf("%T %s/%s: %w", o, ns, o.GetName(), err)
		}
	}
	return nil
}

// providerSpec is every agent's Provider: Claude, at the benchmark's local
// plain-http vendor, with the namespace's credential Secret.
func providerSpec(baseURL string) v1alpha1.ProviderSpec {
	return v1alpha1.ProviderSpec{
		Type:       v1alpha1.ProviderTypeClaude,
		Model:      "claude-sonnet-4-20250514",
		BaseURL:    baseURL,
		Credential: &v1alpha1.ProviderCredential{SecretRef: &v1alpha1.ProviderSecretKeyRef{Name: credentialSecret}},
	}
}

// agentSpec is agent name's spec: its own Provider and pack, one websocket
// facade.
func agentSpec(name, pack string) v1alpha1.AgentRuntimeSpec {
	return v1alpha1.AgentRuntimeSpec{
		PromptPackRef: &v1alpha1.AgentRuntimePromptPackRef{Name: pack, Version: packVersion},
		Providers: []v1alpha1.AgentRuntimeProvider{{Name: "default",
			ProviderRef: v1alpha1.NamespacedObjectReference{Name: name}}},
		Facades: []v1alpha1.AgentRuntimeFacade{{Type: v1alpha1.AgentRuntimeFacadeTypeWebSocket}},
	}
}
