package agentruntime

import (
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/altairalabs/omnia/reconcile/clusterfacts"
)

// Every reconcile chooses each Provider's credential key over the key
// names its Secret holds (resolve.go, providerSecretKey). The operator does
// not cache Secrets with their data, so that was a Secret GET per Provider
// per reconcile; with the key names remembered by the Secret's
// resourceVersion, read from the cache of Secrets' metadata the manager
// already keeps (the Provider controller watches Secrets as metadata
// only), a Secret is read again only when it changed.
//
// The metadata informer lists and watches Secrets: the Provider
// controller's role already grants that (reconcile/provider).

// newSecretKeyCache is the controller's key-name cache over the manager's
// metadata cache.
func newSecretKeyCache(mgr ctrl.Manager) *clusterfacts.SecretKeyCache {
	return clusterfacts.NewSecretKeyCache(mgr.GetCache())
}

// +kubebuilder:rbac:groups="",resources=secrets,verbs=get;list;watch
