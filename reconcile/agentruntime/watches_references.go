package agentruntime

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules"
)

// Field indexes on AgentRuntimes for the references of references.go, so
// creating, editing or deleting the referenced object re-reconciles the
// agents that name it: the ToolRegistry, the AgentRuntimes its A2A clients
// target, and the PersistentVolumeClaims its pod mounts.
const (
	indexToolRegistry = "spec.toolRegistryRef.name"
	indexA2ATarget    = "spec.a2aClients.agentRuntimeRef.name"
	indexClaim        = "pod.persistentVolumeClaims"
)

func toolRegistryNames(o client.Object) []string {
	ar := o.(*v1alpha1.AgentRuntime)
	if ref := ar.Spec.ToolRegistryRef; ref != nil && (ref.Namespace == "" || ref.Namespace == ar.Namespace) {
		return []string{ref.Name}
	}
	return nil
}

func a2aTargetNames(o client.Object) []string {
	ar := o.(*v1alpha1.AgentRuntime)
	clients, _ := rules.AgentRuntimeA2AClients(ar)
	var out []string
	for _, c := range clients {
		if c.AgentRuntimeRef != nil {
			out = append(out, c.AgentRuntimeRef.Name)
		}
	}
	return out
}

func claimNames(o client.Object) []string {
	return rules.AgentRuntimePersistentVolumeClaims(o.(*v1alpha1.AgentRuntime))
}

// indexReferences registers the indexes the reference watches
// (SetupWithManager) map through.
func indexReferences(ctx context.Context, idx client.FieldIndexer) error {
	for name, fn := range map[string]client.IndexerFunc{
		indexToolRegistry: toolRegistryNames,
		indexA2ATarget:    a2aTargetNames,
		indexClaim:        claimNames,
	} {
		if err := idx.IndexField(ctx, &v1alpha1.AgentRuntime{}, name, fn); err != nil {
			return err
		}
	}
	return nil
}
