package policycheck

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/altairalabs/omnia/reconcile/enqueue"
)

// Watch adds to a controller of kind what it needs to answer policies in
// time: a change of the policies in force re-reconciles every object of
// kind (OnChange), and so does a relabelled Namespace its objects (a
// namespaceSelector may now select them or leave them out). newList makes
// the kind's list type; c lists from the cache. The controller's For
// predicate takes Relabelled for the objects' own labels. With no
// policies, it adds nothing.
func Watch(b *builder.Builder, p Policies, kind string, c client.Reader, newList func() client.ObjectList) *builder.Builder {
	if p == nil {
		return b
	}
	list := func(ctx context.Context, opts ...client.ListOption) []reconcile.Request {
		return enqueue.Listed(ctx, c, newList(), "listing "+kind+" objects for the policies in force", opts...)
	}
	return b.
		WatchesRawSource(OnChange(p, kind, func(ctx context.Context) []reconcile.Request { return list(ctx) })).
		Watches(&corev1.Namespace{}, NamespaceRelabelled(p, kind, func(ctx context.Context, ns string) []reconcile.Request {
			return list(ctx, client.InNamespace(ns))
		}))
}
