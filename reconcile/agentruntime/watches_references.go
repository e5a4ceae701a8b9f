package agentruntime

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

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

// indexReferences registers the indexes watchReferences maps through.
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

// watchReferences adds the watches. A ToolRegistry counts when created,
// deleted, its spec changes or it publishes a new content digest (the
// agent's compositionDigest covers it; composition_watch.go); an A2A target
// when created, deleted or its spec changes (its facades decide its
// endpoint). A claim counts when created or deleted, through
// its metadata alone, so the operator never caches claim specs.
func (r *Reconciler) watchReferences(b *builder.Builder) *builder.Builder {
	name := func(o client.Object) string { return o.GetName() }
	claim := &metav1.PartialObjectMetadata{}
	claim.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("PersistentVolumeClaim"))
	return b.
		Watches(&v1alpha1.ToolRegistry{}, handler.EnqueueRequestsFromMapFunc(r.agentsBy(indexToolRegistry, name)),
			builder.WithPredicates(toolRegistryIdentityChanged())).
		Watches(&v1alpha1.AgentRuntime{}, handler.EnqueueRequestsFromMapFunc(r.agentsBy(indexA2ATarget, name)),
			builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		WatchesMetadata(claim, handler.EnqueueRequestsFromMapFunc(r.agentsBy(indexClaim, name)),
			builder.WithPredicates(predicate.Funcs{UpdateFunc: func(event.UpdateEvent) bool { return false }}))
}
