package v1alpha1

// External exposure (agentruntime.md § facades[].expose): the condition the
// operator sets while a facade asks for an HTTPRoute, and its reasons. The
// spec names neither: it says only that without a default-exposure Gateway
// `expose.enabled` does nothing, and that the URLs appear under
// status.facade.endpoints. The condition says which of those holds, so an
// agent that asked for exposure and got none is told why.

const (
	// AgentRuntimeConditionExposed reports the facades' operator-managed
	// HTTPRoutes. Present only while at least one facade sets expose.enabled
	// with its data plane on; never gates Ready.
	AgentRuntimeConditionExposed = "Exposed"
	// AgentRuntimeReasonRoutesAccepted (Exposed=True, not named by the spec):
	// every exposed facade's HTTPRoute is Accepted with its references resolved
	// by the default-exposure Gateway.
	AgentRuntimeReasonRoutesAccepted = "RoutesAccepted"
	// AgentRuntimeReasonNoDefaultExposureGateway (Exposed=False, not named by
	// the spec): the platform configures no default-exposure Gateway (Helm
	// defaultExposure; the operator's --default-exposure-gateway), so
	// expose.enabled does nothing and no route exists.
	AgentRuntimeReasonNoDefaultExposureGateway = "NoDefaultExposureGateway"
	// AgentRuntimeReasonGatewayAPINotInstalled (Exposed=False, not named by the
	// spec): a Gateway is configured but the cluster does not serve the Gateway
	// API's HTTPRoute kind (checked when the operator starts).
	AgentRuntimeReasonGatewayAPINotInstalled = "GatewayAPINotInstalled"
	// AgentRuntimeReasonRoutesPending (Exposed=False, not named by the spec):
	// the Gateway implementation has not reported on a route (its current
	// generation) yet. Every exposed agent passes through it, so it raises no
	// Warning event.
	AgentRuntimeReasonRoutesPending = "RoutesPending"
	// AgentRuntimeReasonRoutesNotAccepted (Exposed=False, not named by the
	// spec): the Gateway implementation reported a route not accepted or its
	// backend not resolved; status.facade.endpoints carries each route's reason.
	AgentRuntimeReasonRoutesNotAccepted = "RoutesNotAccepted"
	// AgentRuntimeReasonRouteRejected (Exposed=False, not named by the spec):
	// the API server refused a route as built (e.g. an expose.host that is not a
	// valid hostname); the other facades' routes are still applied.
	AgentRuntimeReasonRouteRejected = "RouteRejected"
	// AgentRuntimeReasonExposeHostConflict (Exposed=False, not named by the
	// spec): two exposed facades resolve to the same host; only the first (the
	// primary, else the earlier entry) gets a route.
	AgentRuntimeReasonExposeHostConflict = "ExposeHostConflict"
	// AgentRuntimeReasonExposeHostWildcard (Exposed=False, not named by the
	// spec): a facade's expose.host holds a wildcard (rule
	// agentruntime/expose-host-wildcard); that facade gets no route.
	AgentRuntimeReasonExposeHostWildcard = "ExposeHostWildcard"
	// AgentRuntimeReasonExposeHostNotAllowed (Exposed=False, not named by the
	// spec): a facade's expose.host is outside the namespace's own domain and
	// every domain its Workspace grants (rule
	// agentruntime/expose-host-outside-namespace-domain); that facade gets no
	// route.
	AgentRuntimeReasonExposeHostNotAllowed = "ExposeHostNotAllowed"
	// AgentRuntimeReasonExposeHostInUse (Exposed=False, not named by the spec):
	// another AgentRuntime (in any namespace) claimed the facade's host first
	// (earlier creationTimestamp, then namespace/name); this facade gets no
	// route on it until that agent lets the host go.
	AgentRuntimeReasonExposeHostInUse = "ExposeHostInUse"
)
