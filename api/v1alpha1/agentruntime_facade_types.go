package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// AgentRuntimeFacadeType is the protocol a facade entry serves.
// +kubebuilder:validation:Enum=websocket;a2a;rest;mcp;custom
type AgentRuntimeFacadeType string

const (
	// AgentRuntimeFacadeTypeWebSocket is the WebSocket surface (agent mode).
	AgentRuntimeFacadeTypeWebSocket AgentRuntimeFacadeType = "websocket"
	// AgentRuntimeFacadeTypeA2A is the agent-to-agent surface (agent mode).
	AgentRuntimeFacadeTypeA2A AgentRuntimeFacadeType = "a2a"
	// AgentRuntimeFacadeTypeREST is the POST /functions/{name} surface (function mode).
	AgentRuntimeFacadeTypeREST AgentRuntimeFacadeType = "rest"
	// AgentRuntimeFacadeTypeMCP exposes a function as an MCP tool (function mode).
	AgentRuntimeFacadeTypeMCP AgentRuntimeFacadeType = "mcp"
	// AgentRuntimeFacadeTypeCustom is a bring-your-own facade container (agent mode).
	AgentRuntimeFacadeTypeCustom AgentRuntimeFacadeType = "custom"
)

// AgentRuntimeFacadeHandler is how a facade answers messages.
// +kubebuilder:validation:Enum=runtime;demo;echo
type AgentRuntimeFacadeHandler string

// AgentRuntimeFacade exposes the runtime over one protocol.
// +kubebuilder:validation:XValidation:rule="!has(self.type) || self.type != 'custom' || (has(self.image) && size(self.image) > 0)",message="[agentruntime/custom-facade-needs-image] a facade of type custom requires spec.facades[].image",fieldPath=".image",reason="FieldValueRequired"
// +kubebuilder:validation:XValidation:rule="!has(self.dataPlane) || self.dataPlane || !has(self.managementPlane) || self.managementPlane",message="[agentruntime/data-plane-needs-management-plane] spec.facades[].dataPlane false requires managementPlane not false on the same facade; a facade with both planes off is reachable by nothing",fieldPath=".dataPlane"
type AgentRuntimeFacade struct {
	// type is the protocol this entry serves: websocket, a2a or custom in
	// mode agent; rest or mcp in mode function. Defaults to websocket.
	// +kubebuilder:default=websocket
	// +optional
	Type AgentRuntimeFacadeType `json:"type,omitempty"`

	// port is the facade's listener port, 1 to 65535. Defaults to 8080.
	// +kubebuilder:default=8080
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	// +optional
	Port *int32 `json:"port,omitempty"`

	// handler is runtime (calls the runtime framework; default), demo
	// (simulated streaming responses) or echo (connectivity test). Read from
	// the primary facade.
	// +kubebuilder:default=runtime
	// +optional
	Handler AgentRuntimeFacadeHandler `json:"handler,omitempty"`

	// image overrides the facade container image. Required for type custom,
	// where it is your own container speaking the facade-runtime gRPC contract.
	// +optional
	Image string `json:"image,omitempty"`

	// extraEnv adds environment variables to the facade container. Only
	// allowed on the primary facade (websocket if present, else rest, else
	// a2a). Reserved OMNIA_* keys are dropped.
	// +kubebuilder:validation:MaxItems=128
	// +optional
	ExtraEnv []corev1.EnvVar `json:"extraEnv,omitempty"`

	// drainTimeout is how long the facade keeps serving active realtime
	// calls after SIGTERM, as a duration. Defaults to 30s. Read from the
	// primary facade; also sets terminationGracePeriodSeconds (drain + 30s).
	// +kubebuilder:default="30s"
	// +optional
	DrainTimeout string `json:"drainTimeout,omitempty"`

	// clientToolTimeout is the maximum wait for a client tool's result per
	// turn, as a duration; an unanswered call is denied. Defaults to 60s.
	// Read from the primary facade.
	// +kubebuilder:default="60s"
	// +optional
	ClientToolTimeout string `json:"clientToolTimeout,omitempty"`

	// managementPlane gives this facade an internal management-plane twin
	// listener (for the dashboard and in-cluster control-plane callers).
	// Defaults to true.
	// +kubebuilder:default=true
	// +optional
	ManagementPlane *bool `json:"managementPlane,omitempty"`

	// dataPlane gives this facade its external, data-plane listener.
	// Defaults to true. false requires managementPlane not false.
	// +kubebuilder:default=true
	// +optional
	DataPlane *bool `json:"dataPlane,omitempty"`

	// a2a configures a type a2a facade entry.
	// +optional
	A2A *AgentRuntimeFacadeA2A `json:"a2a,omitempty"`

	// mcp configures a type mcp facade entry.
	// +optional
	MCP *AgentRuntimeFacadeMCP `json:"mcp,omitempty"`

	// async configures fire-and-forget invocation of a function
	// (POST /functions/{name}?mode=async).
	// +optional
	Async *AgentRuntimeFacadeAsync `json:"async,omitempty"`

	// expose opts this facade into an operator-provisioned HTTPRoute.
	// +optional
	Expose *AgentRuntimeFacadeExpose `json:"expose,omitempty"`
}

// AgentRuntimeFacadeA2A configures an A2A facade.
type AgentRuntimeFacadeA2A struct {
	// port is the A2A listener port when a websocket facade is also
	// present, 1 to 65535. Defaults to 9999. When a2a is the only agent-mode
	// facade it listens on the facade's own port.
	// +kubebuilder:default=9999
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	// +optional
	Port *int32 `json:"port,omitempty"`

	// agentCard is the Agent Card served without authentication at
	// /.well-known/agent-card.json and /.well-known/agent.json. Defaults to
	// a card with only a name.
	// +optional
	AgentCard *AgentRuntimeA2AAgentCard `json:"agentCard,omitempty"`

	// taskTTL is how long completed, failed and canceled tasks are
	// retained, as a duration. Defaults to 1h.
	// +kubebuilder:default="1h"
	// +optional
	TaskTTL string `json:"taskTTL,omitempty"`

	// conversationTTL is deprecated and ignored: the A2A facade holds no
	// conversations. Defaults to 30m.
	// +kubebuilder:default="30m"
	// +optional
	ConversationTTL string `json:"conversationTTL,omitempty"`

	// taskStore selects the task persistence backend. Defaults to memory;
	// use redis when the agent runs more than one replica.
	// +kubebuilder:default={}
	// +optional
	TaskStore *AgentRuntimeA2ATaskStore `json:"taskStore,omitempty"`

	// clients is deprecated: use spec.a2aClients, which takes the same
	// entries. Honoured only while spec.a2aClients is unset; setting both is refused.
	// +optional
	Clients []AgentRuntimeA2AClient `json:"clients,omitempty"`
}

// AgentRuntimeA2AAgentCard is the Agent Card an A2A facade serves.
type AgentRuntimeA2AAgentCard struct {
	// name is the agent's display name.
	// +required
	Name string `json:"name"`
	// description describes the agent.
	// +optional
	Description string `json:"description,omitempty"`
	// version is the agent's version string.
	// +optional
	Version string `json:"version,omitempty"`
	// organization is the agent provider's organization.
	// +optional
	Organization string `json:"organization,omitempty"`
	// skills are the skills the card advertises.
	// +optional
	Skills []AgentRuntimeA2ASkill `json:"skills,omitempty"`
	// defaultInputModes are the media types the agent accepts by default.
	// +optional
	DefaultInputModes []string `json:"defaultInputModes,omitempty"`
	// defaultOutputModes are the media types the agent produces by default.
	// +optional
	DefaultOutputModes []string `json:"defaultOutputModes,omitempty"`
	// capabilities is ignored: the card always advertises streaming and
	// never push notifications.
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:Schemaless
	// +kubebuilder:validation:Type=object
	// +optional
	Capabilities *runtime.RawExtension `json:"capabilities,omitempty"`
}

// AgentRuntimeA2ASkill is one skill on an Agent Card.
type AgentRuntimeA2ASkill struct {
	// id identifies the skill.
	// +optional
	ID string `json:"id,omitempty"`
	// name is the skill's display name.
	// +optional
	Name string `json:"name,omitempty"`
	// description describes the skill.
	// +optional
	Description string `json:"description,omitempty"`
	// tags classify the skill.
	// +optional
	Tags []string `json:"tags,omitempty"`
	// examples are example prompts for the skill.
	// +optional
	Examples []string `json:"examples,omitempty"`
}

// AgentRuntimeA2ATaskStoreType is an A2A task persistence backend.
// +kubebuilder:validation:Enum=memory;redis
type AgentRuntimeA2ATaskStoreType string

const (
	// AgentRuntimeA2ATaskStoreMemory keeps tasks on the replica that created them.
	AgentRuntimeA2ATaskStoreMemory AgentRuntimeA2ATaskStoreType = "memory"
	// AgentRuntimeA2ATaskStoreRedis keeps tasks in Redis, shared by every replica.
	AgentRuntimeA2ATaskStoreRedis AgentRuntimeA2ATaskStoreType = "redis"
)

// AgentRuntimeA2ATaskStore selects where A2A tasks are kept.
type AgentRuntimeA2ATaskStore struct {
	// type is memory (default; tasks visible only on the replica that
	// created them) or redis (shared by every replica).
	// +kubebuilder:default=memory
	// +optional
	Type AgentRuntimeA2ATaskStoreType `json:"type,omitempty"`
	// redisURL is the Redis URL for type redis.
	// +optional
	RedisURL string `json:"redisURL,omitempty"`
	// redisSecretRef names a Secret whose url key holds the Redis URL;
	// takes precedence over redisURL.
	// +optional
	RedisSecretRef *LocalObjectReference `json:"redisSecretRef,omitempty"`
}

// AgentRuntimeFacadeMCP configures an MCP facade.
type AgentRuntimeFacadeMCP struct {
	// port is the MCP server's listener port, 1 to 65535. Defaults to 9998.
	// +kubebuilder:default=9998
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	// +optional
	Port *int32 `json:"port,omitempty"`
}

// AgentRuntimeFacadeAsync configures async invocation of a function.
type AgentRuntimeFacadeAsync struct {
	// enabled turns on the async routes. Defaults to false.
	// +kubebuilder:default=false
	// +optional
	Enabled bool `json:"enabled"`
	// workers is how many invocations each pod runs concurrently, 1 to 64.
	// Defaults to 1.
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=64
	// +optional
	Workers *int32 `json:"workers,omitempty"`
}

// AgentRuntimeFacadeExpose configures operator-provisioned external exposure.
type AgentRuntimeFacadeExpose struct {
	// enabled creates a host-based HTTPRoute to this facade's Service port
	// when the platform has a default-exposure Gateway. Defaults to false.
	// +kubebuilder:default=false
	// +optional
	Enabled bool `json:"enabled"`
	// host overrides the route hostname ({name}.{namespace}.{baseDomain} for
	// the primary facade, {name}-{type}.{namespace}.{baseDomain} otherwise);
	// it must be one the Gateway's listener accepts.
	// +optional
	Host string `json:"host,omitempty"`
}

// AgentRuntimeA2AClient is another A2A agent this agent may call.
type AgentRuntimeA2AClient struct {
	// name identifies the client, unique within the list; at most 253 characters.
	// +kubebuilder:validation:MaxLength=253
	// +required
	Name string `json:"name"`

	// agentRuntimeRef names an AgentRuntime with an a2a facade, resolved to
	// its A2A endpoint. namespace may only be the agent's own.
	// +optional
	AgentRuntimeRef *NamespacedObjectReference `json:"agentRuntimeRef,omitempty"`

	// url is an external agent's base URL, used instead of agentRuntimeRef.
	// +optional
	URL string `json:"url,omitempty"`

	// exposeAsTools turns each skill on the agent's card into an
	// a2a__<agent>__<skill> tool. Defaults to false.
	// +kubebuilder:default=false
	// +optional
	ExposeAsTools bool `json:"exposeAsTools"`

	// authentication sets the bearer token sent to the agent.
	// +optional
	Authentication *AgentRuntimeA2AClientAuthentication `json:"authentication,omitempty"`

	// timeout bounds fetching the agent's card (default 10s) and each call
	// (default 60s), as a duration.
	// +optional
	Timeout string `json:"timeout,omitempty"`
}

// AgentRuntimeA2AClientAuthentication is how an A2A client authenticates.
type AgentRuntimeA2AClientAuthentication struct {
	// secretRef names a Secret whose token key is the bearer token; it is
	// re-read on every call.
	// +optional
	SecretRef *LocalObjectReference `json:"secretRef,omitempty"`
}
