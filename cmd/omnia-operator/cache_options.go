package main

import (
	"sigs.k8s.io/controller-runtime/pkg/cache"

	"github.com/altairalabs/omnia/reconcile/agentruntime"
)

// cacheOptions bound what the manager's informers hold, the bulk of the
// operator's memory (make bench-agents prints its peak RSS):
//
//   - no managed fields on any cached object (they are often as large as
//     the rest of the object and no code reads them from the cache, but
//     the AgentRuntime controller's own entry on its Deployments: its
//     ByObject transform keeps that one);
//   - of the kinds the AgentRuntime controller builds, only the objects it
//     built (agentruntime.CacheByObject: a label selector).
//
// Secrets and ConfigMaps are still never cached with their data (the
// client's DisableFor in managerOptions); their metadata informers lose the
// managed fields too.
//
// watched are the namespaces of --watch-namespaces (nil: every namespace).
func cacheOptions(watched []string) cache.Options {
	return cache.Options{
		DefaultNamespaces: defaultNamespaces(watched),
		DefaultTransform:  cache.TransformStripManagedFields(),
		ByObject:          agentruntime.CacheByObject(),
	}
}
