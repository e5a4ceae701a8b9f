package agentruntime

import (
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// toolRegistryIdentityChanged passes the ToolRegistry events that can move
// an agent's compositionDigest: creation, deletion, and an update of the
// generation or status.contentDigest. A probe that flips a tool's health
// rewrites the registry's status (tool health, lastChecked) without touching
// its digest; those updates are dropped, so probing does not re-reconcile
// every agent.
func toolRegistryIdentityChanged() predicate.Predicate {
	return predicate.Funcs{
		UpdateFunc: func(e event.UpdateEvent) bool {
			o, okOld := e.ObjectOld.(*v1alpha1.ToolRegistry)
			n, okNew := e.ObjectNew.(*v1alpha1.ToolRegistry)
			return !okOld || !okNew || o.Generation != n.Generation ||
				o.Status.ContentDigest != n.Status.ContentDigest || o.Status.ObservedGeneration != n.Status.ObservedGeneration
		},
	}
}
