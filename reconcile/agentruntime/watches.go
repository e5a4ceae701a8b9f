package agentruntime

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/enqueue"
)

// Field indexes on AgentRuntimes: the Providers and pack names they
// reference, so an edited Provider or PromptPack re-reconciles its agents.
const (
	indexProvider   = "spec.providers.providerRef.name"
	indexPromptPack = "spec.promptPackRef.name"
)

func providerNames(o client.Object) []string {
	ar := o.(*v1alpha1.AgentRuntime)
	out := make([]string, 0, len(ar.Spec.Providers))
	for _, e := range ar.Spec.Providers {
		out = append(out, e.ProviderRef.Name)
	}
	return out
}

func packNames(o client.Object) []string {
	ar := o.(*v1alpha1.AgentRuntime)
	if ar.Spec.PromptPackRef == nil {
		return nil
	}
	return []string{ar.Spec.PromptPackRef.Name}
}

// agentsBy maps an object to the AgentRuntimes in its namespace whose
// index entry equals key(obj).
func (r *Reconciler) agentsBy(index string, key func(client.Object) string) handler.MapFunc {
	return func(ctx context.Context, o client.Object) []reconcile.Request {
		k := key(o)
		if k == "" {
			return nil
		}
		return enqueue.Listed(ctx, r.client, &v1alpha1.AgentRuntimeList{}, "listing AgentRuntimes referencing "+o.GetName(),
			client.InNamespace(o.GetNamespace()), client.MatchingFields{index: k})
	}
}
