package main

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/cache"
)

// TestCacheSyncedCheck: the readiness check fails while the cache has not
// started (and so not synced) and passes once its informers have synced.
func TestCacheSyncedCheck(t *testing.T) {
	needsAPIServer(t)
	c, err := cache.New(env.Config, cache.Options{Scheme: admin.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetInformer(context.Background(), &corev1.Namespace{}); err != nil {
		t.Fatal(err)
	}
	check := cacheSynced(c)
	req := httptest.NewRequest("GET", "/readyz", nil)
	if err := check(req); err == nil {
		t.Fatal("ready before the cache started")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _ = c.Start(ctx) }()
	eventually(t, time.Minute, "ready once the cache has synced", func() error { return check(req) })
}
