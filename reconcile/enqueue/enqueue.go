// Package enqueue turns a list of related objects into reconcile requests,
// for the map functions that re-reconcile objects when something they
// reference (a Secret, a ToolPolicy CRD) changes.
package enqueue

import (
	"context"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// Listed lists into list with opts and returns one request per item. A list
// error is logged with why and enqueues nothing: the watch will fire again.
func Listed(ctx context.Context, c client.Reader, list client.ObjectList, why string, opts ...client.ListOption) []reconcile.Request {
	if err := c.List(ctx, list, opts...); err != nil {
		logf.FromContext(ctx).Error(err, why)
		return nil
	}
	var reqs []reconcile.Request
	_ = meta.EachListItem(list, func(o runtime.Object) error {
		if obj, ok := o.(client.Object); ok {
			reqs = append(reqs, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(obj)})
		}
		return nil
	})
	return reqs
}
