package main

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/hack/perf/clusterbench"
)

// What the benchmark creates: agentsPerNamespace agents per namespace
// bench-<k>, each with its own Provider and its own ConfigMap-sourced
// PromptPack, and one credential Secret per namespace (the objects are
// clusterbench's, shared with hack/perf/scale).
const (
	agentsPerNamespace = 100
	packVersion        = clusterbench.PackVersion
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
	return c.Create(ctx, clusterbench.CredentialSecretIn(ns))
}

// createAgent creates agent i with its Provider, PromptPack and the
// PromptPack's ConfigMap, in the order a GitOps tool might apply them
// (the agent last, so it is not Failed for a missing pack first).
func createAgent(ctx context.Context, c client.Client, i int, baseURL string) error {
	ns := namespaceOf(i)
	name := fmt.Sprintf("agent-%d", i)
	pack := fmt.Sprintf("pack-%d", i)
	objs := append(clusterbench.PromptPackObjects(ns, pack),
		&v1alpha1.Provider{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: providerSpec(baseURL)},
		&v1alpha1.AgentRuntime{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: agentSpec(name, pack)},
	)
	for _, o := range objs {
		if err := c.Create(ctx, o); err != nil {
			return fmt.Errorf("%T %s/%s: %w", o, ns, o.GetName(), err)
		}
	}
	return nil
}

// providerSpec is every agent's Provider.
func providerSpec(baseURL string) v1alpha1.ProviderSpec { return clusterbench.ProviderSpec(baseURL) }

// agentSpec is agent name's spec: its own Provider (of the same name) and
// pack.
func agentSpec(name, pack string) v1alpha1.AgentRuntimeSpec {
	return clusterbench.AgentSpec(pack, name)
}
