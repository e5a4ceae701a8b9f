package clusterfacts

import (
	"context"
	"slices"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// SecretKeyCache remembers the data keys of Secrets — their names, never
// their values — by the Secret's resourceVersion, so a controller that asks
// for the same Secret's keys on every reconcile (the AgentRuntime
// controller, for each Provider's credential key) reads the Secret from the
// API server only when it changed.
//
// Whether it changed is read from metadata, an informer cache of Secrets'
// metadata only (the operator already runs one: the Provider controller
// watches Secrets with builder.OnlyMetadata), so no Secret data is ever
// cached. A Secret the metadata cache does not have (not yet seen, or
// deleted) is read from the API server, as before: the metadata cache's lag
// never turns an existing Secret into a missing one. An entry lives until
// the Secret is read as absent; there is one per Secret a Provider names.
type SecretKeyCache struct {
	metadata client.Reader

	mu      sync.Mutex
	entries map[client.ObjectKey]secretKeysEntry
}

type secretKeysEntry struct {
	resourceVersion string
	keys            []string
}

// NewSecretKeyCache returns a cache that learns whether a Secret changed
// from metadata: a reader of the Secrets' metadata (the manager's cache,
// read with metav1.PartialObjectMetadata).
func NewSecretKeyCache(metadata client.Reader) *SecretKeyCache {
	return &SecretKeyCache{metadata: metadata, entries: map[client.ObjectKey]secretKeysEntry{}}
}

// WithSecretKeyCache makes SecretKeys answer through c (nil: every call
// reads the Secret). It returns f.
func (f *Facts) WithSecretKeyCache(c *SecretKeyCache) *Facts {
	f.secretKeys = c
	return f
}

// cached returns the keys remembered for key when the metadata cache holds
// the Secret at the same resourceVersion.
func (c *SecretKeyCache) cached(ctx context.Context, key client.ObjectKey) ([]string, bool) {
	m := &metav1.PartialObjectMetadata{}
	m.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("Secret"))
	if err := c.metadata.Get(ctx, key, m); err != nil {
		// Absent from the metadata cache, or it could not answer: the
		// Secret is read from the API server, which decides.
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok || e.resourceVersion != m.ResourceVersion {
		return nil, false
	}
	return slices.Clone(e.keys), true
}

// remember stores the keys of s (read from the API server).
func (c *SecretKeyCache) remember(key client.ObjectKey, s *corev1.Secret, keys []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries[key] = secretKeysEntry{resourceVersion: s.ResourceVersion, keys: slices.Clone(keys)}
}

// forget drops the entry of a Secret read as absent.
func (c *SecretKeyCache) forget(key client.ObjectKey, err error) {
	if !apierrors.IsNotFound(err) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.entries, key)
}
