// Package statuswrite is the one way a controller writes what it computed
// in memory: the status subresource, patched once per reconcile and only
// when it changed, so a steady state costs no API write.
package statuswrite

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Option changes how Patch writes.
type Option func(*options)

type options struct {
	optimisticLock bool
}

// WithOptimisticLock makes the patch carry the resourceVersion read: a
// reconcile that computed from a stale object (the cache behind an earlier
// write) gets a Conflict instead of overwriting what it did not see.
func WithOptimisticLock() Option {
	return func(o *options) { o.optimisticLock = true }
}

// Patch sets *status (the status field of obj) to updated and merge-patches
// obj's status subresource, when updated differs semantically from what obj
// holds. It reports whether it wrote. An object deleted meanwhile is not an
// error: nothing is written and there is nothing left to report on. On any
// other error obj keeps the status it was read with, so the caller's view
// stays what the API server holds.
func Patch[T any](ctx context.Context, c client.Client, obj client.Object, status *T, updated T, opts ...Option) (bool, error) {
	if equality.Semantic.DeepEqual(*status, updated) {
		return false, nil
	}
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	base := obj.DeepCopyObject().(client.Object)
	var patch client.Patch = client.MergeFrom(base)
	if o.optimisticLock {
		patch = client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{})
	}
	before := *status
	*status = updated
	if err := c.Status().Patch(ctx, obj, patch); err != nil {
		*status = before
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return false, fmt.Errorf("writing status: %w", err)
	}
	return true, nil
}
