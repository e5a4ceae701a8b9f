package policycheck

import (
	"context"
	"maps"

	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// A policy selects objects by their labels (objectSelector) and their
// namespace's labels (namespaceSelector). Neither change bumps an object's
// generation, which is all most controllers react to, so without these
// watches an object relabelled into or out of a policy would keep its old
// policy conditions until its next spec change.

// Relabelled is a predicate for a controller's own kind: an update that
// changes the object's labels while a policy judges kind. Or it with the
// controller's predicate; with no policies it never fires.
func Relabelled(p Policies, kind string) predicate.Predicate {
	return predicate.Funcs{
		CreateFunc:  func(event.CreateEvent) bool { return false },
		DeleteFunc:  func(event.DeleteEvent) bool { return false },
		GenericFunc: func(event.GenericEvent) bool { return false },
		UpdateFunc: func(e event.UpdateEvent) bool {
			if p == nil || e.ObjectOld == nil || e.ObjectNew == nil {
				return false
			}
			return !maps.Equal(e.ObjectOld.GetLabels(), e.ObjectNew.GetLabels()) && Judges(Catalog(p), kind)
		},
	}
}

// NamespaceRelabelled handles a Namespace watch: when a Namespace's labels
// change while a policy judges kind, it enqueues every object of kind in it
// (list, from the cache). With no policies it enqueues nothing.
func NamespaceRelabelled(p Policies, kind string, list func(ctx context.Context, namespace string) []reconcile.Request) handler.EventHandler {
	return handler.Funcs{
		UpdateFunc: func(ctx context.Context, e event.UpdateEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			if p == nil || e.ObjectOld == nil || e.ObjectNew == nil ||
				maps.Equal(e.ObjectOld.GetLabels(), e.ObjectNew.GetLabels()) || !Judges(Catalog(p), kind) {
				return
			}
			for _, req := range list(ctx, e.ObjectNew.GetName()) {
				q.Add(req)
			}
		},
	}
}
