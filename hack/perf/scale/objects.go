package main

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/hack/perf/clusterbench"
)

// vendors are the local servers the objects point at: nothing leaves the
// machine.
type vendors struct {
	// providerURL is the plain-http vendor the Providers' health checks
	// reach.
	providerURL string
	// toolEndpoint is the HTTP tool endpoint of every ToolRegistry; a
	// probing registry dials its host:port.
	toolEndpoint string
}

// objectsOf are the objects item it creates, in the order a GitOps tool
// might apply them (an agent's pack before the agent).
func objectsOf(it Item, v vendors) []client.Object {
	meta := metav1.ObjectMeta{Namespace: it.Namespace, Name: it.Name}
	switch it.Kind {
	case KindProvider:
		return []client.Object{&v1alpha1.Provider{ObjectMeta: meta, Spec: clusterbench.ProviderSpec(v.providerURL)}}
	case KindToolRegistry:
		return []client.Object{&v1alpha1.ToolRegistry{ObjectMeta: meta, Spec: toolRegistrySpec(it.Probe, v.toolEndpoint)}}
	case KindAgentRuntime:
		return append(clusterbench.PromptPackObjects(it.Namespace, it.Pack),
			&v1alpha1.AgentRuntime{ObjectMeta: meta, Spec: clusterbench.AgentSpec(it.Pack, it.Provider)})
	case KindArenaJob:
		// A manual evaluation of the namespace's project: one run, one
		// trial of each scenario, one worker (the open-core limits).
		return []client.Object{&v1alpha1.ArenaJob{ObjectMeta: meta, Spec: v1alpha1.ArenaJobSpec{
			SourceRef: v1alpha1.LocalObjectReference{Name: clusterbench.ArenaProjectName}}}}
	}
	return nil
}

// toolRegistrySpec is a registry of one explicit HTTP tool at endpoint,
// probing it (TCP, the default 60 s interval) when probe is set.
func toolRegistrySpec(probe bool, endpoint string) v1alpha1.ToolRegistrySpec {
	spec := v1alpha1.ToolRegistrySpec{Handlers: []v1alpha1.ToolRegistryHandler{{
		Name: "lookup", Type: v1alpha1.ToolRegistryHandlerTypeHTTP,
		HTTPConfig: &v1alpha1.ToolRegistryHTTPConfig{Endpoint: endpoint},
		Tool: &v1alpha1.ToolRegistryToolDefinition{Name: "lookup", Description: "looks a record up",
			InputSchema: runtime.RawExtension{Raw: []byte(`{"type":"object"}`)}},
	}}}
	if probe {
		on := true
		spec.Probe = &v1alpha1.ToolRegistryProbe{Enabled: &on}
	}
	return spec
}

// createItem creates item it's objects.
func createItem(ctx context.Context, c client.Client, it Item, v vendors) error {
	for _, o := range objectsOf(it, v) {
		if err := c.Create(ctx, o); err != nil {
			return fmt.Errorf("%T %s/%s: %w", o, it.Namespace, o.GetName(), err)
		}
	}
	return nil
}
