package main

import (
	"context"
	"errors"
	"net/http"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
)

// cacheSyncTimeout bounds one readiness check's wait for the informers.
const cacheSyncTimeout = time.Second

// cacheSynced is a readyz check: it fails until the manager's cache has
// started and every informer in it has synced, so a replica does not take
// webhook traffic while its facts would come from an empty cache.
func cacheSynced(c cache.Cache) healthz.Checker {
	return func(req *http.Request) error {
		ctx, cancel := context.WithTimeout(req.Context(), cacheSyncTimeout)
		defer cancel()
		if !c.WaitForCacheSync(ctx) {
			return errors.New("the informer caches have not synced")
		}
		return nil
	}
}
