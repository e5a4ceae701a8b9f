package workload

import (
	"github.com/altairalabs/omnia/api/v1alpha1"
)

// Resolved is what the controller looked up for an agent before building its
// workload. Every field is a fact about the cluster or the operator's
// configuration; the builders never look anything up themselves. A zero
// field means "not resolved", and the builder leaves out what depends on it
// (documented per field), so the controller decides, from rules/ findings,
// whether to apply the result at all.
type Resolved struct {
	// RuntimeImage is the runtime container's image, resolved in the
	// spec's order: framework.image, the operator's --framework-image entry
	// for the type, the built-in image (promptkit only). The controller
	// does not build a Deployment while FrameworkReady is False.
	RuntimeImage string

	// FacadeImage is the operator's built-in facade image. The primary
	// facade's image field overrides it; a custom facade always brings its
	// own image.
	FacadeImage string

	// PolicyBrokerImage is the operator's policy-broker sidecar image.
	PolicyBrokerImage string

	// PromptPack is the PromptPack promptPackRef resolved to. Nil leaves the
	// runtime without a pack volume (the controller holds the Deployment
	// back while PromptPackReady is False).
	PromptPack *ResolvedPromptPack

	// Providers holds, by spec.providers[].name, the Provider each entry
	// resolved to. An entry absent here is left out of the runtime's
	// environment.
	Providers map[string]ResolvedProvider

	// ToolRegistryName is the ToolRegistry the agent uses, in its own
	// namespace. Empty means the agent runs without tools (no registry, a
	// missing one, or a cross-namespace reference).
	ToolRegistryName string

	// Tools is the agent's ToolRegistry and its handlers' credentials, set
	// with ToolRegistryName: the runtime gets the tools file, the
	// tool-secrets and the handlers' tokens (tools.go). Nil: no tools
	// volumes.
	Tools *ResolvedTools

	// A2AClients are the A2A clients that resolved (rules.
	// AgentRuntimeA2AClientResolutions), in spec order: only these are
	// wired into the runtime; an unresolved client is left out.
	A2AClients []ResolvedA2AClient

	// WorkspaceServiceAccountName is the Workspace's
	// spec.runtime.serviceAccountName, the pod's ServiceAccount when the
	// agent sets no podOverrides.serviceAccountName.
	WorkspaceServiceAccountName string

	// WorkspaceRuntimeClassName is the Workspace's
	// spec.runtime.runtimeClassName, the pod's RuntimeClass when the agent
	// sets no podOverrides.runtimeClassName.
	WorkspaceRuntimeClassName string

	// DefaultAutoscaling is the Workspace service group's autoscaling
	// default, in effect when the agent sets no spec.runtime.autoscaling.
	DefaultAutoscaling *v1alpha1.AgentRuntimeAutoscaling

	// KEDAUnavailable is true when the KEDA CRDs are absent: a type keda
	// request then runs at static replicas (AutoscalingReady
	// KEDANotInstalled).
	KEDAUnavailable bool

	// ReplicaCap is the Workspace's maxReplicasPerAgent, when set: static
	// replicas above it run at the cap (WithinWorkspaceQuota ReplicasClamped).
	ReplicaCap *int32

	// ScaleToZero holds the Deployment at zero replicas, whatever else the
	// spec asks: set while CapabilitiesSatisfied is False for the current
	// generation.
	ScaleToZero bool

	// SessionAPIURL is the agent's service group's session-api (its
	// external url), given to the facade and the runtime as SESSION_API_URL;
	// empty leaves it out (no recording).
	SessionAPIURL string
	// MemoryAPIURL is the service group's memory-api, given to the runtime
	// as MEMORY_API_URL when spec.memory.enabled; empty leaves it out.
	MemoryAPIURL string

	// SandboxAPIURL is the operator's sandbox API, given to the runtime as
	// OMNIA_SANDBOX_API_URL when spec.sandbox.enabled is true. Empty leaves
	// the variable out (the runtime then asks for no sandbox).
	SandboxAPIURL string

	// AsyncQueue is the operator's Redis for async invocation. Nil means no
	// queue backend: async stays off in the pod (AsyncInvocationReady
	// QueueBackendMissing) even where facades[].async.enabled is true.
	AsyncQueue *AsyncQueue

	// OIDCJWKSSecret is the agent's JWKS Secret (OIDCJWKSSecretName) once
	// it holds the current issuer's JWKS (the controller's externalauth.go
	// mirrors it); empty before, and without externalAuth.oidc: the facade
	// then runs without oidc.
	OIDCJWKSSecret string
	// PlatformTools are the agent's ToolRegistry's rendered platform tools
	// (rendered by the controller's platform_tools.go), given to the runtime
	// as OMNIA_PLATFORM_TOOLS.
	PlatformTools []PlatformTool
}

// ResolvedPromptPack is the PromptPack an agent resolved to.
type ResolvedPromptPack struct {
	// PackName is the pack's logical spec.packName.
	PackName string
	// Version is the pack's spec.version.
	Version string
	// ConfigMapName is the ConfigMap holding pack.json
	// (spec.source.configMapRef.name), mounted read-only in the runtime.
	ConfigMapName string
}

// ResolvedA2AClient is one A2A client and the endpoint it resolved to.
type ResolvedA2AClient struct {
	// Name is spec.a2aClients[].name.
	Name string
	// URL is the target's in-cluster A2A URL, or the client's url.
	URL string
}

// ResolvedProvider is the Provider one spec.providers[] entry names.
type ResolvedProvider struct {
	// Provider is the Provider object.
	Provider *v1alpha1.Provider
	// SecretKey is the key of the credential Secret holding the
	// credential, chosen by rules.ProviderSecretKey over the Secret's keys.
	// Empty falls back to credential.secretRef.key; with neither, no
	// credential variable is set.
	SecretKey string
}

// AsyncQueue is where async invocations are queued.
type AsyncQueue struct {
	// URL is the Redis URL, when the chart gives it as url or host.
	URL string
	// SecretName names the Secret in the agent's namespace whose url key
	// holds the Redis URL (the operator's copy,
	// `agent-<name>-async-redis`); it wins over URL.
	SecretName string
	// Hash is the digest of the URL the copy holds (the controller's
	// asyncQueueDigest, never the URL), set with SecretName: the pod
	// template's AsyncQueueHashAnnotation, so a rewritten copy rolls the
	// pods.
	Hash string
	// KeyPrefix starts every key of the namespace's async queue
	// (redisacl.AsyncKeyPrefix: the keys the namespace's own Redis user
	// may touch), given to the facade as OMNIA_ASYNC_REDIS_KEY_PREFIX.
	KeyPrefix string
}

// AsyncRedisSecretName is the Secret the operator copies the async queue's
// Redis URL into, in the agent's namespace (key url).
func AsyncRedisSecretName(ar *v1alpha1.AgentRuntime) string {
	return "agent-" + ar.Name + "-async-redis"
}

// EffectiveAutoscaling is the autoscaling in effect for the agent:
// spec.runtime.autoscaling, else the Workspace service group's default; nil
// when neither enables it, or when it asks for KEDA and KEDA is not
// installed (static replicas). Type is defaulted to hpa.
func EffectiveAutoscaling(ar *v1alpha1.AgentRuntime, r *Resolved) *v1alpha1.AgentRuntimeAutoscaling {
	a := r.DefaultAutoscaling
	if rt := ar.Spec.Runtime; rt != nil && rt.Autoscaling != nil {
		a = rt.Autoscaling
	}
	if a == nil || !a.Enabled {
		return nil
	}
	out := a.DeepCopy()
	if out.Type == "" {
		out.Type = "hpa"
	}
	if out.Type == "keda" && r.KEDAUnavailable {
		return nil
	}
	return out
}
