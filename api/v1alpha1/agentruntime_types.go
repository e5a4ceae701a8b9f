package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// AgentRuntimeMode selects the runtime shape of an AgentRuntime.
// +kubebuilder:validation:Enum=agent;function
type AgentRuntimeMode string

const (
	// AgentRuntimeModeAgent is a long-lived conversational runtime.
	AgentRuntimeModeAgent AgentRuntimeMode = "agent"
	// AgentRuntimeModeFunction is a one-shot HTTP runtime served over POST /functions/{name}.
	AgentRuntimeModeFunction AgentRuntimeMode = "function"
)

// AgentRuntimeOutputFormat controls how a function-mode runtime constrains the model's response.
// +kubebuilder:validation:Enum=text;json;json_schema
type AgentRuntimeOutputFormat string

const (
	// AgentRuntimeOutputFormatText is free-form generation, still validated against outputSchema.
	AgentRuntimeOutputFormatText AgentRuntimeOutputFormat = "text"
	// AgentRuntimeOutputFormatJSON is provider JSON mode: a valid JSON object, shape not enforced.
	AgentRuntimeOutputFormatJSON AgentRuntimeOutputFormat = "json"
	// AgentRuntimeOutputFormatJSONSchema is provider structured output bound to outputSchema.
	AgentRuntimeOutputFormatJSONSchema AgentRuntimeOutputFormat = "json_schema"
)

// AgentRuntimePhase is the lifecycle phase of an AgentRuntime.
// +kubebuilder:validation:Enum=Pending;Running;Failed
type AgentRuntimePhase string

const (
	// AgentRuntimePhasePending means no replica is ready yet, or a reference is not usable yet.
	AgentRuntimePhasePending AgentRuntimePhase = "Pending"
	// AgentRuntimePhaseRunning means at least one replica is ready.
	AgentRuntimePhaseRunning AgentRuntimePhase = "Running"
	// AgentRuntimePhaseFailed means a configuration error that will not resolve on its own.
	AgentRuntimePhaseFailed AgentRuntimePhase = "Failed"
)

// AgentRuntimeSpec is the desired state of an AgentRuntime.
//
// +kubebuilder:validation:XValidation:rule="(has(self.mode) && self.mode == 'function') ? (!has(self.facades) || self.facades.all(f, f.type in ['rest', 'mcp'])) : (!has(self.facades) || self.facades.all(f, f.type in ['websocket', 'a2a', 'custom']))",message="[agentruntime/facade-type-for-mode] spec.facades[].type must match spec.mode: mode agent allows websocket, a2a and custom facades; mode function allows rest and mcp facades",fieldPath=".facades"
// +kubebuilder:validation:XValidation:rule="!(has(self.mode) && self.mode == 'function') || (has(self.facades) && self.facades.filter(f, f.type == 'rest').size() == 1)",message="[agentruntime/function-needs-rest] mode function requires exactly one rest facade in spec.facades",fieldPath=".facades"
// +kubebuilder:validation:XValidation:rule="!(has(self.mode) && self.mode == 'function') || has(self.inputSchema)",message="[agentruntime/function-needs-input-schema] mode function requires spec.inputSchema",fieldPath=".inputSchema",reason="FieldValueRequired"
// +kubebuilder:validation:XValidation:rule="!(has(self.mode) && self.mode == 'function') || has(self.outputSchema)",message="[agentruntime/function-needs-output-schema] mode function requires spec.outputSchema",fieldPath=".outputSchema",reason="FieldValueRequired"
// +kubebuilder:validation:XValidation:rule="(has(self.mode) && self.mode == 'function') || !has(self.inputSchema)",message="[agentruntime/agent-forbids-input-schema] spec.inputSchema is only allowed with mode function; remove it or set spec.mode to function",fieldPath=".inputSchema",reason="FieldValueForbidden"
// +kubebuilder:validation:XValidation:rule="(has(self.mode) && self.mode == 'function') || !has(self.outputSchema)",message="[agentruntime/agent-forbids-output-schema] spec.outputSchema is only allowed with mode function; remove it or set spec.mode to function",fieldPath=".outputSchema",reason="FieldValueForbidden"
// +kubebuilder:validation:XValidation:rule="(has(self.mode) && self.mode == 'function') || !has(self.outputFormat)",message="[agentruntime/agent-forbids-output-format] spec.outputFormat is only allowed with mode function; remove it or set spec.mode to function",fieldPath=".outputFormat",reason="FieldValueForbidden"
// +kubebuilder:validation:XValidation:rule="!has(self.rollout) || !has(self.rollout.trigger) || (has(self.promptPackRef) && has(self.promptPackRef.version) && !has(self.promptPackRef.track))",message="[agentruntime/rollout-trigger-needs-pinned-version] spec.rollout.trigger requires spec.promptPackRef.version to be set and spec.promptPackRef.track to be unset",fieldPath=".rollout.trigger"
type AgentRuntimeSpec struct {
	// mode selects the runtime shape: agent (long-lived conversational
	// runtime; websocket, a2a and custom facades) or function (one-shot HTTP
	// runtime at POST /functions/{name}; rest and mcp facades, exactly one
	// rest). Defaults to agent.
	// +kubebuilder:default=agent
	// +optional
	Mode AgentRuntimeMode `json:"mode,omitempty"`

	// inputSchema is the JSON Schema (Draft 2020-12 unless its $schema says
	// otherwise) a function's request body is validated against, stored as a
	// raw JSON object. Required when mode is function; forbidden when mode is agent.
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:Schemaless
	// +kubebuilder:validation:Type=object
	// +optional
	InputSchema *runtime.RawExtension `json:"inputSchema,omitempty"`

	// outputSchema is the JSON Schema a function's response is validated
	// against before it is returned; a mismatch answers HTTP 502
	// output_invalid. Required when mode is function; forbidden when mode is agent.
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:Schemaless
	// +kubebuilder:validation:Type=object
	// +optional
	OutputSchema *runtime.RawExtension `json:"outputSchema,omitempty"`

	// outputFormat controls how a function-mode runtime constrains the
	// model's response: text, json or json_schema. Unset on a function-mode
	// runtime means json_schema. Forbidden when mode is agent. A provider
	// that cannot honour the format fails the invocation.
	// +optional
	OutputFormat AgentRuntimeOutputFormat `json:"outputFormat,omitempty"`

	// promptPackRef selects the PromptPack holding the agent's prompts, by
	// logical pack name, optionally pinned to a version or following a track.
	// +optional
	PromptPackRef *AgentRuntimePromptPackRef `json:"promptPackRef,omitempty"`

	// providers maps logical names (default, judge, or a name a PromptPack
	// eval references) to Provider objects. At most 32 entries; names are unique.
	// +optional
	Providers AgentRuntimeProviders `json:"providers,omitempty"`

	// framework selects the runtime framework and optionally its image.
	// Defaults to the promptkit framework.
	// +kubebuilder:default={}
	// +optional
	Framework *AgentRuntimeFramework `json:"framework,omitempty"`

	// facades lists the protocol surfaces the runtime is exposed on: 1 to 4
	// entries, no two of the same type, with types allowed by spec.mode.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=4
	// +kubebuilder:validation:XValidation:rule="self.all(f, self.exists_one(g, g.type == f.type))",message="[agentruntime/facade-types-unique] spec.facades must not list two entries of the same type"
	// +kubebuilder:validation:XValidation:rule="!self.exists(f, f.type == 'custom') || self.size() == 1",message="[agentruntime/custom-facade-alone] a custom facade must be the only entry in spec.facades"
	// +kubebuilder:validation:XValidation:rule="self.all(f, !has(f.extraEnv) || size(f.extraEnv) == 0 || f.type == 'websocket' || f.type == 'custom' || (f.type == 'rest' && !self.exists(g, g.type == 'websocket')) || (f.type == 'a2a' && !self.exists(g, g.type == 'websocket' || g.type == 'rest')))",message="[agentruntime/extra-env-primary-only] spec.facades[].extraEnv is only allowed on the primary facade (websocket if present, else rest, else a2a); move it to that entry"
	// +required
	Facades []AgentRuntimeFacade `json:"facades"`

	// toolRegistryRef names a ToolRegistry whose tools the agent may call.
	// namespace must be omitted or equal the AgentRuntime's own namespace.
	// +optional
	ToolRegistryRef *NamespacedObjectReference `json:"toolRegistryRef,omitempty"`

	// a2aClients lists other A2A agents this agent may call, at most 32,
	// with unique names. Replaces the deprecated spec.facades[].a2a.clients;
	// setting both is refused.
	// +kubebuilder:validation:MaxItems=32
	// +kubebuilder:validation:XValidation:rule="self.all(c, self.exists_one(d, d.name == c.name))",message="[agentruntime/a2a-client-names-unique] spec.a2aClients[].name must be unique"
	// +optional
	A2AClients []AgentRuntimeA2AClient `json:"a2aClients,omitempty"`

	// sandbox says whether, and within which limits, this runtime may hold
	// codegen sandboxes (SandboxClaims). It does not create one.
	// +optional
	Sandbox *AgentRuntimeSandbox `json:"sandbox,omitempty"`

	// context configures the runtime context store (working LLM context
	// across turns). Defaults to an in-memory store with a 24h TTL.
	// +kubebuilder:default={}
	// +optional
	Context *AgentRuntimeContext `json:"context,omitempty"`

	// media configures mock:// URL resolution and the media-storage backend.
	// +kubebuilder:default={}
	// +optional
	Media *AgentRuntimeMedia `json:"media,omitempty"`

	// rateLimit is a per-pod ceiling on how often this agent may be invoked,
	// shared by all its facades. Omitted means no limit.
	// +optional
	RateLimit *AgentRuntimeRateLimit `json:"rateLimit,omitempty"`

	// runtime holds the Deployment settings: replicas, resources,
	// scheduling, volumes, environment, telemetry and autoscaling.
	// +kubebuilder:default={}
	// +optional
	Runtime *AgentRuntimeRuntime `json:"runtime,omitempty"`

	// evals configures realtime eval execution for this agent.
	// +optional
	Evals *AgentRuntimeEvals `json:"evals,omitempty"`

	// memory configures cross-session memory for this agent. Disabled unless
	// memory.enabled is true.
	// +optional
	Memory *AgentRuntimeMemory `json:"memory,omitempty"`

	// rollout configures a progressive (canary) rollout of a candidate version.
	// +optional
	Rollout *AgentRuntimeRollout `json:"rollout,omitempty"`

	// externalAuth configures data-plane authentication for the facades'
	// external listeners. Unset means the external listener rejects every
	// request and only the management plane admits callers.
	// +optional
	ExternalAuth *AgentRuntimeExternalAuth `json:"externalAuth,omitempty"`

	// console holds dashboard console settings (attachments, file limits).
	// +optional
	Console *AgentRuntimeConsole `json:"console,omitempty"`

	// duplex configures realtime voice.
	// +optional
	Duplex *AgentRuntimeDuplex `json:"duplex,omitempty"`

	// serviceGroup is the Workspace service group (spec.services[].name)
	// whose session-api and memory-api the agent uses. Defaults to default;
	// a DNS label of at most 63 characters.
	// +kubebuilder:default=default
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +optional
	ServiceGroup string `json:"serviceGroup,omitempty"`

	// privacyPolicyRef names a SessionPrivacyPolicy in the agent's namespace
	// that overrides the service group's policy for this agent.
	// +optional
	PrivacyPolicyRef *LocalObjectReference `json:"privacyPolicyRef,omitempty"`

	// extraPodAnnotations are extra annotations on the agent pods;
	// podOverrides.annotations win on key collision.
	// +optional
	ExtraPodAnnotations map[string]string `json:"extraPodAnnotations,omitempty"`

	// podOverrides customises the agent pod: scheduling, service account,
	// labels, annotations, volumes, and extraEnv/extraEnvFrom/extraVolumeMounts
	// on the facade and runtime containers (not operator-injected sidecars).
	// +optional
	PodOverrides *PodOverrides `json:"podOverrides,omitempty"`
}

// AgentRuntimePromptPackTrack is a PromptPack release channel.
// +kubebuilder:validation:Enum=stable;prerelease
type AgentRuntimePromptPackTrack string

const (
	// AgentRuntimePromptPackTrackStable selects the highest non-prerelease version.
	AgentRuntimePromptPackTrackStable AgentRuntimePromptPackTrack = "stable"
	// AgentRuntimePromptPackTrackPrerelease selects the highest version overall.
	AgentRuntimePromptPackTrackPrerelease AgentRuntimePromptPackTrack = "prerelease"
)

// AgentRuntimePromptPackRef selects a PromptPack by its logical pack name.
// +kubebuilder:validation:XValidation:rule="!(has(self.version) && has(self.track))",message="[agentruntime/promptpackref-version-track-exclusive] promptPackRef.version and promptPackRef.track are mutually exclusive; set at most one"
type AgentRuntimePromptPackRef struct {
	// name is the pack's logical spec.packName (not a PromptPack object
	// name); the operator picks among the PromptPacks labelled with it in
	// the agent's namespace.
	// +required
	Name string `json:"name"`

	// version pins an exact pack version, compared as a string with build
	// metadata included. Mutually exclusive with track.
	// +optional
	Version string `json:"version,omitempty"`

	// track follows a channel: stable (highest non-prerelease version) or
	// prerelease (highest version overall). Mutually exclusive with version;
	// with neither set the agent follows stable.
	// +optional
	Track AgentRuntimePromptPackTrack `json:"track,omitempty"`
}

// AgentRuntimeProviderRole is the role a referenced Provider must have.
// +kubebuilder:validation:Enum=llm;embedding;rerank;tts;stt;image;inference
type AgentRuntimeProviderRole string

// AgentRuntimeProviderCapability is a capability a referenced Provider must advertise.
// +kubebuilder:validation:Enum=text;streaming;vision;tools;json;audio;video;documents;duplex
type AgentRuntimeProviderCapability string

// AgentRuntimeProviders is a list of named Provider references with unique names.
// +kubebuilder:validation:MaxItems=32
// +kubebuilder:validation:XValidation:rule="self.all(p, self.exists_one(q, q.name == p.name))",message="[agentruntime/provider-names-unique] providers[].name must be unique within the list"
type AgentRuntimeProviders []AgentRuntimeProvider

// AgentRuntimeProvider maps a logical provider name to a Provider object.
type AgentRuntimeProvider struct {
	// name is the logical name the provider is looked up by: default (the
	// primary LLM), judge (the eval judge) or a name a PromptPack eval
	// references. Lower-case alphanumerics and '-', at most 63 characters,
	// unique in the list.
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +required
	Name string `json:"name"`

	// providerRef names the Provider. namespace, if set, must equal the
	// AgentRuntime's own namespace (ProviderCrossNamespace otherwise).
	// +required
	ProviderRef NamespacedObjectReference `json:"providerRef"`

	// role is the role the referenced Provider must have (RoleMismatch and
	// phase Failed otherwise). Defaults to llm.
	// +kubebuilder:default=llm
	// +optional
	Role AgentRuntimeProviderRole `json:"role,omitempty"`

	// requiredCapabilities lists capabilities the Provider must advertise;
	// a missing one holds the agent Pending (CapabilityMismatch).
	// +optional
	RequiredCapabilities []AgentRuntimeProviderCapability `json:"requiredCapabilities,omitempty"`
}

// AgentRuntimeFrameworkType is an agent runtime framework.
// +kubebuilder:validation:Enum=promptkit;langchain;custom
type AgentRuntimeFrameworkType string

// AgentRuntimeFramework selects the runtime framework and image.
type AgentRuntimeFramework struct {
	// type is the runtime framework: promptkit (default; the only one with a
	// built-in image), langchain or custom (an image you supply implementing
	// the omnia.runtime.v1 contract).
	// +kubebuilder:default=promptkit
	// +optional
	Type AgentRuntimeFrameworkType `json:"type,omitempty"`

	// image overrides the runtime image. Resolution order: this field, the
	// operator's --framework-image entry for the type, the built-in image
	// (promptkit only).
	// +optional
	Image string `json:"image,omitempty"`
}

// AgentRuntimeContextType is a context store backend.
// +kubebuilder:validation:Enum=memory;redis
type AgentRuntimeContextType string

// AgentRuntimeContext configures the runtime context store.
// +kubebuilder:validation:XValidation:rule="!has(self.type) || self.type != 'redis' || has(self.storeRef)",message="[agentruntime/context-redis-needs-store-ref] spec.context.type redis requires spec.context.storeRef naming a Secret with key url",fieldPath=".storeRef",reason="FieldValueRequired"
type AgentRuntimeContext struct {
	// type is the context store backend: memory (default; not recommended
	// for production) or redis (lets a fresh pod resume a conversation).
	// +kubebuilder:default=memory
	// +optional
	Type AgentRuntimeContextType `json:"type,omitempty"`

	// ttl is how long a conversation's working context is kept, as a
	// duration. Defaults to 24h.
	// +kubebuilder:default="24h"
	// +optional
	TTL string `json:"ttl,omitempty"`

	// storeRef names a Secret holding the Redis connection string under key
	// url. Required when type is redis.
	// +optional
	StoreRef *LocalObjectReference `json:"storeRef,omitempty"`
}

// AgentRuntimeRateLimit is a per-pod invocation ceiling.
type AgentRuntimeRateLimit struct {
	// maxInvocationsPerMinute is the invocation ceiling per pod. Unset means unlimited.
	// +optional
	MaxInvocationsPerMinute *int32 `json:"maxInvocationsPerMinute,omitempty"`

	// burst is how many invocations may arrive at once before the ceiling
	// paces them. Unset means one minute's worth.
	// +optional
	Burst *int32 `json:"burst,omitempty"`
}

// AgentRuntimeStatus is the observed state of an AgentRuntime.
type AgentRuntimeStatus struct {
	// phase is Pending (no ready replica yet, or a reference not usable
	// yet), Running (at least one replica ready) or Failed (a configuration
	// error that will not resolve on its own).
	// +optional
	Phase AgentRuntimePhase `json:"phase,omitempty"`

	// replicas reports desired, ready and available replicas.
	// +optional
	Replicas *AgentRuntimeReplicaStatus `json:"replicas,omitempty"`

	// activeVersion is the deployed PromptPack version.
	// +optional
	ActiveVersion string `json:"activeVersion,omitempty"`

	// compositionDigest is sha256:<hex> over everything resolved for the
	// agent (pack content, skill manifest, tool registry, providers); empty
	// until every input has published its own identity.
	// +optional
	CompositionDigest string `json:"compositionDigest,omitempty"`

	// serviceEndpoint is the internal facade endpoint,
	// {name}.{namespace}.svc.cluster.local:{port}.
	// +optional
	ServiceEndpoint string `json:"serviceEndpoint,omitempty"`

	// managementEndpoints are the internal management-plane endpoints, one
	// per surface whose facade has managementPlane enabled.
	// +optional
	ManagementEndpoints *AgentRuntimeManagementEndpoints `json:"managementEndpoints,omitempty"`

	// a2a reports the A2A agent card URL and endpoint (with an a2a facade)
	// and the resolution of spec.a2aClients.
	// +optional
	A2A *AgentRuntimeA2AStatus `json:"a2a,omitempty"`

	// facade reports external URLs derived from observed HTTPRoutes.
	// +optional
	Facade *AgentRuntimeFacadeStatus `json:"facade,omitempty"`

	// runtimeCapabilities are the contract capabilities the running runtime advertises.
	// +optional
	RuntimeCapabilities []string `json:"runtimeCapabilities,omitempty"`

	// invocations are facade-reported invocation counters; throttled and approximate.
	// +optional
	Invocations *AgentRuntimeInvocationStatus `json:"invocations,omitempty"`

	// lastUsedAt is when the agent was last used, written by its facade;
	// only on an agent with the omnia.altairalabs.ai/idle-timeout annotation.
	// +optional
	LastUsedAt *metav1.Time `json:"lastUsedAt,omitempty"`

	// rollout reports the progress of a progressive rollout.
	// +optional
	Rollout *AgentRuntimeRolloutStatus `json:"rollout,omitempty"`

	// observedGeneration is the last generation the controller observed.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// conditions are the AgentRuntime's current conditions (Ready,
	// DeploymentReady, PromptPackReady, ProviderReady, ...).
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// AgentRuntimeReplicaStatus reports the agent's replica counts.
type AgentRuntimeReplicaStatus struct {
	// desired is the desired number of replicas.
	// +optional
	Desired int32 `json:"desired"`
	// ready is the number of ready replicas.
	// +optional
	Ready int32 `json:"ready"`
	// available is the number of available replicas.
	// +optional
	Available int32 `json:"available"`
}

// AgentRuntimeManagementEndpoints are the internal management-plane endpoints per surface.
type AgentRuntimeManagementEndpoints struct {
	// ws is the WebSocket / function surface's management endpoint (port 18080).
	// +optional
	WS string `json:"ws,omitempty"`
	// a2a is the A2A surface's management endpoint (port 19999).
	// +optional
	A2A string `json:"a2a,omitempty"`
	// mcp is the MCP surface's management endpoint (port 19998).
	// +optional
	MCP string `json:"mcp,omitempty"`
}

// AgentRuntimeA2AStatus reports A2A endpoints and client resolution.
type AgentRuntimeA2AStatus struct {
	// agentCardURL is the URL of the agent card (only with an a2a facade).
	// +optional
	AgentCardURL string `json:"agentCardURL,omitempty"`
	// endpoint is the A2A endpoint (only with an a2a facade).
	// +optional
	Endpoint string `json:"endpoint,omitempty"`
	// clients reports the resolution of each spec.a2aClients entry.
	// +optional
	Clients []AgentRuntimeA2AClientStatus `json:"clients,omitempty"`
}

// AgentRuntimeA2AClientStatus reports the resolution of one A2A client.
type AgentRuntimeA2AClientStatus struct {
	// name is the client's name from spec.a2aClients.
	Name string `json:"name"`
	// resolvedURL is the endpoint the client resolved to.
	// +optional
	ResolvedURL string `json:"resolvedURL,omitempty"`
	// ready is true when the client resolved and is wired into the runtime.
	// +optional
	Ready bool `json:"ready"`
	// error says why the client is unresolved.
	// +optional
	Error string `json:"error,omitempty"`
}

// AgentRuntimeFacadeStatus reports the facades' external endpoints.
type AgentRuntimeFacadeStatus struct {
	// endpoints are external URLs derived from observed Gateway API
	// HTTPRoutes. Empty means in-cluster only.
	// +optional
	Endpoints []AgentRuntimeFacadeEndpoint `json:"endpoints,omitempty"`
}

// AgentRuntimeFacadeEndpoint is one external URL of a facade.
type AgentRuntimeFacadeEndpoint struct {
	// protocol is the facade protocol served at this URL.
	// +optional
	Protocol string `json:"protocol,omitempty"`
	// url is the full external URL.
	// +optional
	URL string `json:"url,omitempty"`
	// scheme is the URL scheme.
	// +optional
	Scheme string `json:"scheme,omitempty"`
	// host is the URL host.
	// +optional
	Host string `json:"host,omitempty"`
	// path is the URL path.
	// +optional
	Path string `json:"path,omitempty"`
	// port is the URL port.
	// +optional
	Port int32 `json:"port,omitempty"`
	// routeName is the HTTPRoute the URL was derived from.
	// +optional
	RouteName string `json:"routeName,omitempty"`
	// routeNamespace is the HTTPRoute's namespace.
	// +optional
	RouteNamespace string `json:"routeNamespace,omitempty"`
	// valid is true when the route is accepted and resolves.
	// +optional
	Valid bool `json:"valid"`
	// reason says why the endpoint is not valid.
	// +optional
	Reason string `json:"reason,omitempty"`
}

// AgentRuntimeInvocationStatus holds facade-reported invocation counters.
type AgentRuntimeInvocationStatus struct {
	// total is the number of invocations.
	// +optional
	Total int64 `json:"total"`
	// succeeded is the number of successful invocations.
	// +optional
	Succeeded int64 `json:"succeeded"`
	// lastInvocationTime is when the agent was last invoked.
	// +optional
	LastInvocationTime *metav1.Time `json:"lastInvocationTime,omitempty"`
	// lastSuccessTime is when an invocation last succeeded.
	// +optional
	LastSuccessTime *metav1.Time `json:"lastSuccessTime,omitempty"`
	// lastError is the error of the last failed invocation (including rate-limit refusals).
	// +optional
	LastError string `json:"lastError,omitempty"`
}

// Short names are the spec's `agent` and `ar`, plus `agents` so the plural
// reads as the docs write it (`kubectl get agents`); kubectl does not
// pluralise short names itself.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=agent;ar;agents,categories=omnia
// +kubebuilder:printcolumn:name="PHASE",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="READY",type=integer,JSONPath=`.status.replicas.ready`
// +kubebuilder:printcolumn:name="VERSION",type=string,JSONPath=`.status.activeVersion`
// +kubebuilder:printcolumn:name="INVOCATIONS",type=integer,JSONPath=`.status.invocations.total`
// +kubebuilder:printcolumn:name="LAST-SUCCESS",type=date,JSONPath=`.status.invocations.lastSuccessTime`
// +kubebuilder:printcolumn:name="AGE",type=date,JSONPath=`.metadata.creationTimestamp`

// AgentRuntime is an AI agent deployment: a runtime serving a PromptPack
// through one or more protocol facades.
type AgentRuntime struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired state of the agent.
	// +required
	Spec AgentRuntimeSpec `json:"spec"`

	// status is the observed state of the agent.
	// +optional
	Status AgentRuntimeStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// AgentRuntimeList is a list of AgentRuntimes.
type AgentRuntimeList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []AgentRuntime `json:"items"`
}

func init() {
	SchemeBuilder.Register(&AgentRuntime{}, &AgentRuntimeList{})
}
