package main

import (
	"context"
	"fmt"

	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/altairalabs/omnia/admission"
	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/clusterfacts"
)

// The webhook refuses a promptPackRef version or track on a live PromptPack
// (agentruntime.md, promptPackRef), so it reads PromptPacks from the cache;
// and an expose.host outside the namespace's domain and its Workspace's
// grants (agentruntime/expose-host-outside-namespace-domain), so it reads
// Workspaces from the cache and is handed the exposure base domain.
// +kubebuilder:rbac:groups=omnia.altairalabs.ai,resources=promptpacks,verbs=get;list;watch
// +kubebuilder:rbac:groups=omnia.altairalabs.ai,resources=workspaces,verbs=get;list;watch

// webhookClusterFacts gives the webhook facts from the manager's cache for
// the rules marked AdmissionFacts. It registers the PromptPack and
// Workspace informers up front, so the cache's sync (and /readyz) covers
// them; until the cache has synced, a lookup fails and the webhook refuses
// the request (fail closed).
func webhookClusterFacts(mgr ctrl.Manager, op *operator) (admission.ClusterFacts, error) {
	if _, err := mgr.GetCache().GetInformer(context.Background(), &v1alpha1.PromptPack{}); err != nil {
		return nil, fmt.Errorf("watching PromptPacks for the webhook: %w", err)
	}
	if _, err := mgr.GetCache().GetInformer(context.Background(), &v1alpha1.Workspace{}); err != nil {
		return nil, fmt.Errorf("watching Workspaces for the webhook: %w", err)
	}
	baseDomain := op.flags.agentRuntime.exposure.baseDomainFact()
	// Secrets, should a marked rule ever ask, are read uncached: reading
	// them through the cache would start an informer holding every Secret's
	// data.
	reader, secrets, mapper, license := mgr.GetCache(), mgr.GetAPIReader(), mgr.GetRESTMapper(), op.license
	return func(ctx context.Context) admission.CheckedFacts {
		return clusterfacts.New(ctx, reader, secrets, mapper, license).WithExposureBaseDomain(baseDomain)
	}, nil
}
