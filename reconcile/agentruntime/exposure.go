package agentruntime

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/conditions"
	"github.com/altairalabs/omnia/reconcile/agentruntime/workload"
	"github.com/altairalabs/omnia/reconcile/clusterfacts"
	"github.com/altairalabs/omnia/rules"
)

// External exposure (agentruntime.md § facades[].expose, § facades, the
// `expose` paragraph; status.facade.endpoints) and status.a2a's endpoints
// (a2a_status.go).
//
// With a default-exposure Gateway configured (ExposureOptions.Gateway, the
// operator's --default-exposure-gateway, Helm defaultExposure), every
// facade that sets expose.enabled with its data plane on gets one
// operator-owned HTTPRoute (workload/httproute.go): `<agent>-facade` for the
// primary, `<agent>-<type>` for a secondary one, on the host
// rules.AgentRuntimeExposedFacades gives, to the facade's Service port,
// matching the root path, with the Gateway as its parent. Routes of
// facades no longer exposed are deleted. status.facade.endpoints are
// derived from the routes as observed (exposure_endpoints.go): their
// status.parents written by the Gateway implementation say whether each URL
// is valid, the Gateway's listener gives the scheme and port.
//
// Without a Gateway configured, expose.enabled does nothing: no route (an
// earlier one is deleted) and the condition Exposed False with
// NoDefaultExposureGateway says so. Exposed is present only while a facade
// asks for exposure, and never gates Ready.

// RBAC: the operator's own routes, and the Gateway it reads listeners from.
// +kubebuilder:rbac:groups=gateway.networking.k8s.io,resources=httproutes,verbs=get;list;watch;create;patch;delete
// +kubebuilder:rbac:groups=gateway.networking.k8s.io,resources=gateways,verbs=get;list;watch

// HTTPRouteGroupKind and GatewayGroupKind are the Gateway API kinds the
// group needs served (clusterfacts.Installed's "group/Kind" form).
const (
	HTTPRouteGroupKind = gatewayv1.GroupName + "/HTTPRoute"
	GatewayGroupKind   = gatewayv1.GroupName + "/Gateway"
)

// httpRouteGVK is the typed HTTPRoute's kind, to know whether a scheme has
// the Gateway API's types.
var httpRouteGVK = schema.GroupVersionKind{Group: gatewayv1.GroupName, Version: gatewayv1.GroupVersion.Version, Kind: "HTTPRoute"}

// ExposureOptions configure the group (cmd/omnia-operator sets them).
type ExposureOptions struct {
	// Gateway is the platform's default-exposure Gateway; nil: exposure is
	// off and expose.enabled does nothing.
	Gateway *workload.GatewayRef
	// BaseDomain is the domain the default hosts are under
	// (`<agent>.<namespace>.<baseDomain>`); required with Gateway.
	BaseDomain string

	// routes is the group's own cache (setupExposure): the operator's
	// HTTPRoutes (by label) and the one configured Gateway (by name). Nil
	// when the cluster does not serve the HTTPRoute kind.
	routes cache.Cache
	// gatewayCached: the Gateway kind is served and the cache holds the
	// configured Gateway.
	gatewayCached bool
	// claims reads AgentRuntimes through the host index (indexExposeHost):
	// the manager's cache, set by setupExposure when a Gateway is
	// configured.
	claims client.Reader
	// setupErr is why the cache could not be set up; applyExposure
	// returns it (setupExposure cannot).
	setupErr error
}

// exposureOutcome is what the group's apply step did, for the status.
type exposureOutcome struct {
	// requested are the facades that ask for a route
	// (rules.AgentRuntimeExposedFacades).
	requested []rules.AgentRuntimeExposedFacade
	// noGateway: no default-exposure Gateway is configured.
	noGateway bool
	// notServed: the cluster does not serve the HTTPRoute kind.
	notServed bool
	// conflicts and rejected say which facades got no route, and why.
	conflicts, rejected []string
	// refused are the facades a host rule refused (wildcard, outside the
	// namespace's domain), with the first refusal's reason; inUse those
	// whose host another agent holds (exposure_hosts.go).
	refused       []string
	refusedReason string
	inUse         []string
	// endpoints are status.facade.endpoints, from the observed routes.
	endpoints []v1alpha1.AgentRuntimeFacadeEndpoint
}

// exposureWatches is what setupExposure prepared for SetupWithManager's
// watches.
type exposureWatches struct {
	// routes is the group's cache, holding the operator's HTTPRoutes (and
	// the Gateway, when gateway is true).
	routes cache.Cache
	// gateway is true when the configured Gateway is served and cached:
	// its changes are watched.
	gateway bool
	// hosts is true when a default Gateway is configured and the host
	// index is set up: host handovers are watched.
	hosts bool
}

// setupExposure gives the group its own cache, started with the manager:
// only the operator's HTTPRoutes (LabelManagedBy) and only the configured
// Gateway (a field selector on its name, in its namespace), so the
// operator never caches the cluster's other routes and Gateways. It is set
// up only when the HTTPRoute kind is served at startup (a watch on a kind
// the API server does not serve fails the manager; a ByObject entry for
// one fails the manager's cache, which is why the manager's own
// CacheByObject does not list HTTPRoutes). Nil when the group has nothing
// to watch: the kind is not served, or a setup step failed (setupErr says
// which).
func (r *Reconciler) setupExposure(mgr ctrl.Manager) *exposureWatches {
	mapper := mgr.GetRESTMapper()
	if !clusterfacts.Installed(mapper, HTTPRouteGroupKind) {
		return nil
	}
	scheme := mgr.GetScheme()
	// The typed Gateway API in the manager's scheme, for the client's
	// applies and deletes (cmd/omnia-operator's scheme does not list it).
	if !scheme.Recognizes(httpRouteGVK) {
		if err := gatewayv1.Install(scheme); err != nil {
			r.opts.Exposure.setupErr = fmt.Errorf("exposure: registering the Gateway API types: %w", err)
			return nil
		}
	}
	gw := r.opts.Exposure.Gateway
	watchGateway := gw != nil && clusterfacts.Installed(mapper, GatewayGroupKind)
	var cachedGateway *workload.GatewayRef
	if watchGateway {
		cachedGateway = gw
	}
	c, err := newExposureCache(mgr.GetConfig(), cache.Options{Scheme: scheme, Mapper: mapper, HTTPClient: mgr.GetHTTPClient()}, cachedGateway)
	if err == nil {
		err = mgr.Add(c)
	}
	if err != nil {
		r.opts.Exposure.setupErr = fmt.Errorf("exposure: the HTTPRoute cache: %w", err)
		return nil
	}
	r.opts.Exposure.routes, r.opts.Exposure.gatewayCached = c, watchGateway
	if gw != nil {
		// Who holds a host (exposure_hosts.go): the manager's cache,
		// indexed by host; a change of an agent's hosts or of a
		// Workspace's grants re-reconciles the agents it hands a host to
		// or takes one from.
		if err := indexExposeHosts(context.Background(), mgr.GetFieldIndexer(), r.opts.Exposure.BaseDomain); err != nil {
			r.opts.Exposure.setupErr = fmt.Errorf("exposure: the AgentRuntime host index: %w", err)
			return nil
		}
		r.opts.Exposure.claims = mgr.GetClient()
	}
	return &exposureWatches{routes: c, gateway: watchGateway, hosts: gw != nil}
}

// newExposureCache is the group's cache (opts give its scheme, mapper and
// HTTP client): the operator's HTTPRoutes, selected by LabelManagedBy, and
// the Gateway gw names (nil: no Gateway), selected by name in its
// namespace. Managed fields are dropped, as in the manager's cache.
func newExposureCache(cfg *rest.Config, opts cache.Options, gw *workload.GatewayRef) (cache.Cache, error) {
	opts.ByObject = map[client.Object]cache.ByObject{
		&gatewayv1.HTTPRoute{}: {Label: labels.SelectorFromSet(labels.Set{workload.LabelManagedBy: workload.ManagedByValue})},
	}
	if gw != nil {
		opts.ByObject[&gatewayv1.Gateway{}] = cache.ByObject{
			Namespaces: map[string]cache.Config{gw.Namespace: {}},
			Field:      fields.OneTermEqualSelector("metadata.name", gw.Name),
		}
	}
	opts.DefaultTransform = cache.TransformStripManagedFields()
	return cache.New(cfg, opts)
}

// agentsWithRoutes maps the Gateway to every agent with an operator route
// (from the group's cache, which holds only the operator's routes).
func (r *Reconciler) agentsWithRoutes(ctx context.Context, _ *gatewayv1.Gateway) []reconcile.Request {
	var list gatewayv1.HTTPRouteList
	if err := r.opts.Exposure.routes.List(ctx, &list); err != nil {
		return nil
	}
	seen := map[client.ObjectKey]bool{}
	var out []reconcile.Request
	for i := range list.Items {
		rt := &list.Items[i]
		ref := metav1.GetControllerOf(rt)
		if ref == nil || ref.Kind != "AgentRuntime" {
			continue
		}
		k := client.ObjectKey{Namespace: rt.Namespace, Name: ref.Name}
		if !seen[k] {
			seen[k] = true
			out = append(out, reconcile.Request{NamespacedName: k})
		}
	}
	return out
}

// setExposureStatus sets status.facade.endpoints and the Exposed condition
// from what applyExposure did (left as they were when it did not run: the
// workload was held back), and status.a2a's agentCardURL and endpoint.
func setExposureStatus(st *v1alpha1.AgentRuntimeStatus, ar *v1alpha1.AgentRuntime, in statusInput) {
	if o := in.exposure; o != nil {
		st.Facade = nil
		if len(o.endpoints) > 0 {
			st.Facade = &v1alpha1.AgentRuntimeFacadeStatus{Endpoints: o.endpoints}
		}
		if c, ok := exposureCondition(*o, ar.Generation); ok {
			conditions.Set(&st.Conditions, c, in.now)
		} else {
			meta.RemoveStatusCondition(&st.Conditions, v1alpha1.AgentRuntimeConditionExposed)
		}
	}
	setA2AStatus(st, ar, in)
}

// applyExposure runs after the Service is applied: one HTTPRoute per
// exposed facade, and the agent's routes no facade asks for any more
// deleted. A route the API server refuses as built (an expose.host that is
// not a hostname) is reported, not returned: the workload still applies,
// and the route as it was (on the previous host) is deleted.
func (r *Reconciler) applyExposure(ctx context.Context, ar *v1alpha1.AgentRuntime, in *statusInput) error {
	opts := r.opts.Exposure
	if opts.setupErr != nil {
		return opts.setupErr
	}
	o := &exposureOutcome{}
	domain := r.exposureBaseDomain()
	o.requested = rules.AgentRuntimeExposedFacades(ar, domain)
	if opts.routes == nil {
		// The kind is not served: there is no route to build or delete.
		o.noGateway, o.notServed = opts.Gateway == nil, opts.Gateway != nil
		in.exposure = o
		return nil
	}
	desired := map[string]*gatewayv1.HTTPRoute{}
	if opts.Gateway == nil {
		o.noGateway = true
	} else if err := r.desiredRoutes(ctx, ar, in.findings, o, desired); err != nil {
		return err
	}
	var list gatewayv1.HTTPRouteList
	if err := opts.routes.List(ctx, &list, client.InNamespace(ar.Namespace), client.MatchingLabels{workload.LabelAgent: ar.Name}); err != nil {
		return fmt.Errorf("listing HTTPRoutes: %w", err)
	}
	live := map[string]*gatewayv1.HTTPRoute{}
	for i := range list.Items {
		rt := &list.Items[i]
		if !metav1.IsControlledBy(rt, ar) {
			continue
		}
		if desired[rt.Name] != nil {
			live[rt.Name] = rt
			continue
		}
		if err := r.deleteRoute(ctx, rt); err != nil {
			return err
		}
	}
	names := make([]string, 0, len(desired))
	for n := range desired {
		names = append(names, n)
	}
	slices.Sort(names)
	observed := make([]gatewayv1.HTTPRoute, 0, len(names))
	for _, n := range names {
		rt, err := r.applyRoute(ctx, desired[n], live[n])
		switch {
		case apierrors.IsInvalid(err):
			// The route as it was serves a host the spec no longer asks
			// for: it goes too.
			o.rejected = append(o.rejected, fmt.Sprintf("HTTPRoute %s: %s", n, routeRefusal(err)))
			if err := r.deleteRoute(ctx, live[n]); err != nil {
				return err
			}
			continue
		case err != nil:
			return err
		}
		observed = append(observed, *rt)
	}
	var gw *gatewayv1.Gateway
	if len(observed) > 0 && opts.gatewayCached {
		g := &gatewayv1.Gateway{}
		err := opts.routes.Get(ctx, client.ObjectKey{Namespace: opts.Gateway.Namespace, Name: opts.Gateway.Name}, g)
		switch {
		case err == nil:
			gw = g
		case !apierrors.IsNotFound(err):
			return fmt.Errorf("reading the Gateway %s: %w", opts.Gateway, err)
		}
	}
	if opts.Gateway != nil {
		o.endpoints = facadeEndpoints(observed, gw, *opts.Gateway)
	}
	in.exposure = o
	return nil
}

// deleteRoute deletes one of the agent's routes (nil: none); the UID
// precondition never deletes a successor created meanwhile.
func (r *Reconciler) deleteRoute(ctx context.Context, rt *gatewayv1.HTTPRoute) error {
	if rt == nil {
		return nil
	}
	uid := rt.UID
	if err := r.client.Delete(ctx, rt, client.Preconditions{UID: &uid}); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("deleting HTTPRoute %s: %w", rt.Name, err)
	}
	return nil
}

// applyRoute server-side applies rt unless live (from the group's cache)
// carries the same applied hash, and returns the route as the API server
// has it: live when unchanged, else the apply's answer. It is the
// controller's apply (apply.go) reading the group's cache instead of the
// manager's, which does not hold HTTPRoutes.
func (r *Reconciler) applyRoute(ctx context.Context, rt, live *gatewayv1.HTTPRoute) (*gatewayv1.HTTPRoute, error) {
	var have client.Object
	if live != nil {
		have = live
	}
	if err := r.applier().ApplyUnlessMatches(ctx, rt, have); err != nil {
		// A refusal is reported as the API server gave it (routeRefusal
		// reads its causes, or its message).
		if invalid := (*apierrors.StatusError)(nil); apierrors.IsInvalid(err) && errors.As(err, &invalid) {
			return nil, invalid
		}
		return nil, err
	}
	return rt, nil
}

// routeRefusal is the API server's causes for refusing a route, bounded.
func routeRefusal(err error) string {
	var se apierrors.APIStatus
	if errors.As(err, &se) {
		if d := se.Status().Details; d != nil && len(d.Causes) > 0 {
			parts := make([]string, 0, len(d.Causes))
			for _, c := range d.Causes {
				parts = append(parts, c.Field+": "+c.Message)
			}
			return conditions.Truncate(strings.Join(parts, "; "), 512)
		}
	}
	return conditions.Truncate(err.Error(), 512)
}

// exposureCondition is Exposed from what applyExposure did; false when no
// facade asks for exposure (the condition is then removed).
func exposureCondition(o exposureOutcome, gen int64) (metav1.Condition, bool) {
	if len(o.requested) == 0 {
		return metav1.Condition{}, false
	}
	c := metav1.Condition{Type: v1alpha1.AgentRuntimeConditionExposed, Status: metav1.ConditionFalse, ObservedGeneration: gen}
	var notAccepted []string
	pendingOnly := true
	for _, e := range o.endpoints {
		if !e.Valid {
			notAccepted = append(notAccepted, e.RouteName+": "+e.Reason)
			pendingOnly = pendingOnly && e.Reason == string(gatewayv1.RouteReasonPending)
		}
	}
	switch {
	case o.notServed:
		c.Reason = v1alpha1.AgentRuntimeReasonGatewayAPINotInstalled
		c.Message = "a default-exposure Gateway is configured but the cluster does not serve the Gateway API's HTTPRoute kind: no route is created"
	case o.noGateway:
		c.Reason = v1alpha1.AgentRuntimeReasonNoDefaultExposureGateway
		c.Message = "expose.enabled does nothing: the platform configures no default-exposure Gateway (Helm defaultExposure), so no HTTPRoute is created and the agent is in-cluster only"
	case len(o.refused) > 0:
		c.Reason, c.Message = o.refusedReason, conditions.Truncate(strings.Join(o.refused, "; "), 1024)
	case len(o.conflicts) > 0:
		c.Reason, c.Message = v1alpha1.AgentRuntimeReasonExposeHostConflict, conditions.Truncate(strings.Join(o.conflicts, "; "), 1024)
	case len(o.inUse) > 0:
		c.Reason, c.Message = v1alpha1.AgentRuntimeReasonExposeHostInUse, conditions.Truncate(strings.Join(o.inUse, "; "), 1024)
	case len(o.rejected) > 0:
		c.Reason, c.Message = v1alpha1.AgentRuntimeReasonRouteRejected, conditions.Truncate("the API server refused: "+strings.Join(o.rejected, "; "), 1024)
	case len(notAccepted) > 0 && pendingOnly:
		c.Reason = v1alpha1.AgentRuntimeReasonRoutesPending
		c.Message = conditions.Truncate("the Gateway has not reported on: "+strings.Join(notAccepted, ", "), 1024)
	case len(notAccepted) > 0:
		c.Reason = v1alpha1.AgentRuntimeReasonRoutesNotAccepted
		c.Message = conditions.Truncate("not accepted by the Gateway: "+strings.Join(notAccepted, ", "), 1024)
	default:
		c.Status, c.Reason = metav1.ConditionTrue, v1alpha1.AgentRuntimeReasonRoutesAccepted
		c.Message = "every exposed facade's HTTPRoute is accepted by the Gateway; the URLs are in status.facade.endpoints"
	}
	return c, true
}
