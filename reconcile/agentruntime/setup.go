package agentruntime

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/source"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/reconcile/agentruntime/workload"
	"github.com/altairalabs/omnia/reconcile/policycheck"
	"github.com/altairalabs/omnia/rules"
)

// SetupWithManager registers the controller with mgr: the field indexes its
// map functions list agents by, each feature group's state, and every
// watch, all listed here. The map functions and predicates stay with their
// topic (watches*.go, quota_watches.go, composition_watch.go, exposure*.go,
// externalauth.go, async.go, rollout*.go). A watch on a kind the cluster
// may not serve (KEDA, the Gateway API) is added only when the kind is
// served at startup: a watch on a kind the API server does not serve fails
// the manager.
func SetupWithManager(mgr ctrl.Manager, opts Options) error {
	opts.Common = opts.Common.WithDefaults(DefaultMaxConcurrentReconciles)
	r := &Reconciler{client: mgr.GetClient(), mapper: mgr.GetRESTMapper(), recorder: mgr.GetEventRecorder(ControllerName), opts: opts,
		secretKeys: newSecretKeyCache(mgr)}
	ctx := context.Background()
	idx := mgr.GetFieldIndexer()
	if err := idx.IndexField(ctx, &v1alpha1.AgentRuntime{}, indexProvider, providerNames); err != nil {
		return err
	}
	if err := idx.IndexField(ctx, &v1alpha1.AgentRuntime{}, indexPromptPack, packNames); err != nil {
		return err
	}
	if err := indexToolCredentials(ctx, idx); err != nil {
		return err
	}
	if err := indexReferences(ctx, idx); err != nil {
		return err
	}
	keda := r.setupAutoscaling(mgr.GetRESTMapper())
	r.setupRollout(mgr)
	exposure := r.setupExposure(mgr)
	jwks := r.setupExternalAuth(mgr)
	r.setupAsync(mgr)
	analysis, err := r.setupAnalysis(mgr)
	if err != nil {
		return err
	}

	name := func(o client.Object) string { return o.GetName() }
	onSpec := builder.WithPredicates(predicate.GenerationChangedPredicate{})
	claim := &metav1.PartialObjectMetadata{}
	claim.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("PersistentVolumeClaim"))

	b := ctrl.NewControllerManagedBy(mgr).
		Named(ControllerName).
		WithOptions(opts.Controller()).
		// The agent itself: its spec, the idle inputs (lastUsedAt, the
		// idle-timeout annotation), the runtime's capability report, and
		// a relabelling that changes which policies select it.
		For(&v1alpha1.AgentRuntime{}, builder.WithPredicates(predicate.Or[client.Object](predicate.GenerationChangedPredicate{}, idleInputsChanged(), runtimeCapabilitiesChanged(),
			policycheck.Relabelled(opts.Policies, "AgentRuntime")))).
		// The stable and candidate Deployments: drift, and rollout progress
		// read from their status.
		Owns(&appsv1.Deployment{}).
		// The Service: drift.
		Owns(&corev1.Service{}).
		// A Provider the agent names: its spec becomes the runtime's env.
		Watches(&v1alpha1.Provider{}, handler.EnqueueRequestsFromMapFunc(r.agentsBy(indexProvider, name))).
		// A PromptPack the agent names (by its pack label): the mounted pack.
		Watches(&v1alpha1.PromptPack{}, handler.EnqueueRequestsFromMapFunc(r.agentsBy(indexPromptPack, func(o client.Object) string { return o.GetLabels()[rules.PromptPackLabel] }))).
		// A Workspace's spec: its quota, and the defaults it gives its
		// namespace's agents.
		Watches(&v1alpha1.Workspace{}, handler.EnqueueRequestsFromMapFunc(r.agentsOfWorkspace), onSpec).
		// A deleted agent frees a quota slot for the agents waiting for one.
		Watches(&v1alpha1.AgentRuntime{}, r.waitingAgentsOnDelete()).
		// The ToolRegistry the agent names: its identity and content digest
		// (toolRegistryIdentityChanged; the compositionDigest covers it).
		Watches(&v1alpha1.ToolRegistry{}, handler.EnqueueRequestsFromMapFunc(r.agentsBy(indexToolRegistry, name)),
			builder.WithPredicates(toolRegistryIdentityChanged())).
		// An A2A client's target agent: its facades decide the endpoint.
		Watches(&v1alpha1.AgentRuntime{}, handler.EnqueueRequestsFromMapFunc(r.agentsBy(indexA2ATarget, name)), onSpec).
		// A PersistentVolumeClaim the pod mounts, created or deleted (the
		// Volumes condition); metadata only, so no claim spec is cached.
		WatchesMetadata(claim, handler.EnqueueRequestsFromMapFunc(r.agentsBy(indexClaim, name)),
			builder.WithPredicates(predicate.Funcs{UpdateFunc: func(event.UpdateEvent) bool { return false }}))
	// The policies in force and Namespace relabels (policycheck: nothing
	// without policies): a change may select or release every agent.
	b = policycheck.Watch(b, opts.Policies, "AgentRuntime", r.client, func() client.ObjectList { return &v1alpha1.AgentRuntimeList{} })
	// The autoscalers: spec changes and deletions only, since the HPA and
	// KEDA controllers write their status every few seconds.
	b = b.Owns(&autoscalingv2.HorizontalPodAutoscaler{}, onSpec)
	if keda {
		b = b.Owns(workload.NewScaledObject(), onSpec)
	}
	// The promote annotation (the For predicate passes only generation
	// changes).
	b = b.Watches(&v1alpha1.AgentRuntime{}, &handler.EnqueueRequestForObject{}, builder.WithPredicates(promoteAnnotationChanged()))
	if exposure != nil {
		if exposure.hosts {
			// Who holds an exposed host: an agent's hosts or a Workspace's
			// grants changing hands one to, or takes one from, another agent.
			b = b.Watches(&v1alpha1.AgentRuntime{}, handler.EnqueueRequestsFromMapFunc(r.hostHandovers), onSpec).
				Watches(&v1alpha1.Workspace{}, handler.EnqueueRequestsFromMapFunc(r.hostHandoversOfWorkspace), onSpec)
		}
		// The agent's HTTPRoutes (from the group's cache): the Gateway
		// implementation writes their status.parents.
		b = b.WatchesRawSource(source.Kind(exposure.routes, &gatewayv1.HTTPRoute{},
			handler.TypedEnqueueRequestForOwner[*gatewayv1.HTTPRoute](mgr.GetScheme(), mgr.GetRESTMapper(), &v1alpha1.AgentRuntime{}, handler.OnlyControllerOwner())))
		if exposure.gateway {
			// The default Gateway: its listeners decide every route's
			// acceptance.
			b = b.WatchesRawSource(source.Kind(exposure.routes, &gatewayv1.Gateway{},
				handler.TypedEnqueueRequestsFromMapFunc(r.agentsWithRoutes)))
		}
	}
	// The JWKS Secrets (owned; metadata only, the cache never holds Secret
	// data), the JWKS fetches' results, and agent deletions (forgetting
	// their fetches).
	b = b.Watches(&corev1.Secret{}, jwksSecretHandler(jwks), builder.OnlyMetadata).
		WatchesRawSource(source.Channel(jwks.prober.Events(oidcProberKind), &handler.EnqueueRequestForObject{})).
		Watches(&v1alpha1.AgentRuntime{}, forgetJWKSOnDelete(jwks))
	// The async queue's source Secret and the agents' copies, as metadata
	// (the informer the Provider controller and the key-name cache already
	// use).
	b = b.Watches(&corev1.Secret{}, handler.EnqueueRequestsFromMapFunc(r.agentsForAsyncSecret), builder.OnlyMetadata)
	// The tool credentials' source Secrets and the agents' tool-secrets
	// copies (tools_watch.go), as metadata.
	b = b.Watches(&corev1.Secret{}, handler.EnqueueRequestsFromMapFunc(r.agentsForToolSecret), builder.OnlyMetadata)
	if analysis != nil {
		// A rollout analysis measurement stored for the agent.
		b = b.WatchesRawSource(source.Channel(analysis.Events(AnalysisProberKind), &handler.EnqueueRequestForObject{}))
	}
	return b.Complete(r)
}
