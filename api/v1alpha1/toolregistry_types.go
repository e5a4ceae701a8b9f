package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// ToolRegistryHandlerType is a handler's protocol. http, grpc and client are
// explicit (they declare their tool); mcp, openapi and platform are
// self-describing.
// +kubebuilder:validation:Enum=http;grpc;mcp;openapi;client;platform
type ToolRegistryHandlerType string

const (
	// ToolRegistryHandlerTypeHTTP is an HTTP REST endpoint (explicit).
	ToolRegistryHandlerTypeHTTP ToolRegistryHandlerType = "http"
	// ToolRegistryHandlerTypeGRPC is a gRPC service speaking the Omnia Tool protocol (explicit).
	ToolRegistryHandlerTypeGRPC ToolRegistryHandlerType = "grpc"
	// ToolRegistryHandlerTypeMCP is a Model Context Protocol server (self-describing).
	ToolRegistryHandlerTypeMCP ToolRegistryHandlerType = "mcp"
	// ToolRegistryHandlerTypeOpenAPI is an OpenAPI/Swagger-documented service (self-describing).
	ToolRegistryHandlerTypeOpenAPI ToolRegistryHandlerType = "openapi"
	// ToolRegistryHandlerTypeClient is a browser-executed tool (explicit).
	ToolRegistryHandlerTypeClient ToolRegistryHandlerType = "client"
	// ToolRegistryHandlerTypePlatform is served by the operator itself (self-describing).
	ToolRegistryHandlerTypePlatform ToolRegistryHandlerType = "platform"
)

// ToolRegistryMCPTransport is how the runtime reaches an MCP server. There is
// no stdio transport.
// +kubebuilder:validation:Enum=sse;streamable-http
type ToolRegistryMCPTransport string

const (
	// ToolRegistryMCPTransportSSE connects over Server-Sent Events.
	ToolRegistryMCPTransportSSE ToolRegistryMCPTransport = "sse"
	// ToolRegistryMCPTransportStreamableHTTP connects over Streamable HTTP.
	ToolRegistryMCPTransportStreamableHTTP ToolRegistryMCPTransport = "streamable-http"
)

// ToolRegistryAuthType is how the runtime authenticates to a tool backend.
// +kubebuilder:validation:Enum=none;bearer;basic;serviceAccount;workloadIdentity
type ToolRegistryAuthType string

const (
	// ToolRegistryAuthTypeNone sends no credential.
	ToolRegistryAuthTypeNone ToolRegistryAuthType = "none"
	// ToolRegistryAuthTypeBearer sends a Secret (or Connection) value as a bearer token.
	ToolRegistryAuthTypeBearer ToolRegistryAuthType = "bearer"
	// ToolRegistryAuthTypeBasic sends a "username:password" Secret (or Connection) value as basic auth.
	ToolRegistryAuthTypeBasic ToolRegistryAuthType = "basic"
	// ToolRegistryAuthTypeServiceAccount sends a projected, audience-bound ServiceAccount token.
	ToolRegistryAuthTypeServiceAccount ToolRegistryAuthType = "serviceAccount"
	// ToolRegistryAuthTypeWorkloadIdentity sends a token acquired under the pod's ambient cloud identity.
	ToolRegistryAuthTypeWorkloadIdentity ToolRegistryAuthType = "workloadIdentity"
)

// ToolRegistryLegacyAuthType is the deprecated per-config authType.
// +kubebuilder:validation:Enum=bearer;basic
type ToolRegistryLegacyAuthType string

const (
	// ToolRegistryLegacyAuthTypeBearer is a bearer token.
	ToolRegistryLegacyAuthTypeBearer ToolRegistryLegacyAuthType = "bearer"
	// ToolRegistryLegacyAuthTypeBasic is basic auth.
	ToolRegistryLegacyAuthTypeBasic ToolRegistryLegacyAuthType = "basic"
)

// ToolRegistryWorkloadIdentityCloud is the cloud whose ambient identity a
// workloadIdentity handler uses.
// +kubebuilder:validation:Enum=azure
type ToolRegistryWorkloadIdentityCloud string

const (
	// ToolRegistryWorkloadIdentityCloudAzure is Azure workload identity.
	ToolRegistryWorkloadIdentityCloudAzure ToolRegistryWorkloadIdentityCloud = "azure"
)

// ToolRegistryPlatformService is the operator service a platform handler exposes.
// +kubebuilder:validation:Enum=discovery;arena
type ToolRegistryPlatformService string

const (
	// ToolRegistryPlatformServiceDiscovery is the workspace catalog
	// (catalog_overview, catalog_search, catalog_get).
	ToolRegistryPlatformServiceDiscovery ToolRegistryPlatformService = "discovery"
	// ToolRegistryPlatformServiceArena is real-provider runs of the project
	// mounted in the caller's sandbox (arena_check_project, arena_start_run, arena_get_run).
	ToolRegistryPlatformServiceArena ToolRegistryPlatformService = "arena"
)

// ToolRegistrySandboxClassKind is the kind of class a sandbox is built from.
// +kubebuilder:validation:Enum=SandboxClass;ClusterSandboxClass
type ToolRegistrySandboxClassKind string

const (
	// ToolRegistrySandboxClassKindSandboxClass is a namespaced SandboxClass,
	// looked up in the claim's namespace.
	ToolRegistrySandboxClassKindSandboxClass ToolRegistrySandboxClassKind = "SandboxClass"
	// ToolRegistrySandboxClassKindClusterSandboxClass is a cluster-scoped ClusterSandboxClass.
	ToolRegistrySandboxClassKindClusterSandboxClass ToolRegistrySandboxClassKind = "ClusterSandboxClass"
)

// ToolRegistrySandboxAllocation is when a session claims a sandbox.
// +kubebuilder:validation:Enum=lazy;eager
type ToolRegistrySandboxAllocation string

const (
	// ToolRegistrySandboxAllocationLazy claims on the first tool call of a handler on the sandbox.
	ToolRegistrySandboxAllocationLazy ToolRegistrySandboxAllocation = "lazy"
	// ToolRegistrySandboxAllocationEager claims when the session starts (best-effort).
	ToolRegistrySandboxAllocationEager ToolRegistrySandboxAllocation = "eager"
)

// ToolRegistrySandboxWorkspace is where a sandbox's /workspace lives.
// +kubebuilder:validation:Enum=claim;session
type ToolRegistrySandboxWorkspace string

const (
	// ToolRegistrySandboxWorkspaceClaim gives every sandbox its own scratch directory.
	ToolRegistrySandboxWorkspaceClaim ToolRegistrySandboxWorkspace = "claim"
	// ToolRegistrySandboxWorkspaceSession gives each session handle one directory
	// that outlives its sandboxes.
	ToolRegistrySandboxWorkspaceSession ToolRegistrySandboxWorkspace = "session"
)

// ToolRegistryPhase is the lifecycle phase of a ToolRegistry.
// +kubebuilder:validation:Enum=Pending;Ready;Degraded;Failed
type ToolRegistryPhase string

const (
	// ToolRegistryPhasePending is the state before the first reconcile completes.
	ToolRegistryPhasePending ToolRegistryPhase = "Pending"
	// ToolRegistryPhaseReady means every discovered tool is Available.
	ToolRegistryPhaseReady ToolRegistryPhase = "Ready"
	// ToolRegistryPhaseDegraded means some tools are Available and some
	// Unavailable (only with probing enabled).
	ToolRegistryPhaseDegraded ToolRegistryPhase = "Degraded"
	// ToolRegistryPhaseFailed means a handler failed validation, no tools were
	// discovered, or (with probing) no tool is reachable.
	ToolRegistryPhaseFailed ToolRegistryPhase = "Failed"
)

// ToolRegistryToolStatus is the availability of one discovered tool.
// +kubebuilder:validation:Enum=Available;Unavailable;Unknown
type ToolRegistryToolStatus string

const (
	// ToolRegistryToolStatusAvailable means the handler config is valid and the
	// endpoint resolves (and, with probing, accepts a TCP connection).
	ToolRegistryToolStatusAvailable ToolRegistryToolStatus = "Available"
	// ToolRegistryToolStatusUnavailable means a probe could not reach the endpoint.
	ToolRegistryToolStatusUnavailable ToolRegistryToolStatus = "Unavailable"
	// ToolRegistryToolStatusUnknown means availability has not been determined.
	ToolRegistryToolStatusUnknown ToolRegistryToolStatus = "Unknown"
)

// ToolRegistrySecretKeyRef selects one key of a Secret in the namespace of the
// AgentRuntime that uses the registry.
type ToolRegistrySecretKeyRef struct {
	// name of the Secret, in the AgentRuntime's namespace.
	// +required
	Name string `json:"name"`

	// key of the Secret holding the value. For basic auth the value is "username:password".
	// +required
	Key string `json:"key"`
}

// ToolRegistryConnectionKeyRef selects one key of a Connection's Secret.
type ToolRegistryConnectionKeyRef struct {
	// name of the Connection, looked up in the AgentRuntime's namespace.
	// +required
	Name string `json:"name"`

	// key of the Connection's Secret holding the bearer/basic credential.
	// +required
	Key string `json:"key"`
}

// ToolRegistryToolDefinition declares the tool an explicit (http, grpc,
// client) handler exposes to the LLM.
type ToolRegistryToolDefinition struct {
	// name is the tool name exposed to the LLM: lowercase letters, digits and
	// underscores, starting with a letter, at most 64 characters.
	// +kubebuilder:validation:Pattern=`^[a-z][a-z0-9_]*$`
	// +kubebuilder:validation:MaxLength=64
	// +required
	Name string `json:"name"`

	// description is the human-readable description shown to the LLM.
	// +required
	Description string `json:"description"`

	// inputSchema is the JSON Schema of the tool's input parameters.
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:Type=object
	// +required
	InputSchema runtime.RawExtension `json:"inputSchema"`

	// outputSchema is the JSON Schema of the tool's output. Optional.
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:Type=object
	// +optional
	OutputSchema *runtime.RawExtension `json:"outputSchema,omitempty"`
}

// ToolRegistryHTTPRetryPolicy is the retry behaviour of an http or openapi
// handler. With no retryPolicy, a call is attempted once. Each delay grows by
// backoffMultiplier with about 10% jitter.
type ToolRegistryHTTPRetryPolicy struct {
	// maxAttempts is the total number of attempts including the first, 1 to
	// 10. 1 disables retries.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=10
	// +required
	MaxAttempts int32 `json:"maxAttempts"`

	// initialBackoff is the delay before the first retry. Defaults to 100ms.
	// +kubebuilder:default="100ms"
	// +optional
	InitialBackoff string `json:"initialBackoff,omitempty"`

	// backoffMultiplier is the decimal multiplier between retries (e.g. "2.0",
	// "1.5"), at least 1.0. Defaults to "2.0".
	// +kubebuilder:default="2.0"
	// +kubebuilder:validation:Pattern=`^[1-9][0-9]*(\.[0-9]+)?$`
	// +optional
	BackoffMultiplier *string `json:"backoffMultiplier,omitempty"`

	// maxBackoff is the upper bound on the delay. Defaults to 30s. It must be
	// at least initialBackoff; the controller rejects the handler otherwise.
	// +kubebuilder:default="30s"
	// +optional
	MaxBackoff string `json:"maxBackoff,omitempty"`

	// retryOn lists the HTTP status codes that trigger a retry. Defaults to
	// [408, 429, 500, 502, 503, 504]; an empty list disables status-based retry.
	// +kubebuilder:default={408,429,500,502,503,504}
	// +optional
	RetryOn []int32 `json:"retryOn"`

	// retryOnNetworkError retries connection, DNS and timeout errors, which
	// occur before a status code arrives. Defaults to true.
	// +kubebuilder:default=true
	// +optional
	RetryOnNetworkError *bool `json:"retryOnNetworkError,omitempty"`

	// respectRetryAfter makes a retried response wait at least its Retry-After
	// value (seconds or HTTP date), capped at maxBackoff. Defaults to true.
	// +kubebuilder:default=true
	// +optional
	RespectRetryAfter *bool `json:"respectRetryAfter,omitempty"`
}

// ToolRegistryGRPCRetryPolicy is the retry behaviour of a grpc handler, keyed
// by gRPC status code. With no retryPolicy, a call is attempted once.
type ToolRegistryGRPCRetryPolicy struct {
	// maxAttempts is the total number of attempts including the first, 1 to
	// 10. 1 disables retries.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=10
	// +required
	MaxAttempts int32 `json:"maxAttempts"`

	// initialBackoff is the delay before the first retry. Defaults to 100ms.
	// +kubebuilder:default="100ms"
	// +optional
	InitialBackoff string `json:"initialBackoff,omitempty"`

	// backoffMultiplier is the decimal multiplier between retries (e.g. "2.0",
	// "1.5"), at least 1.0. Defaults to "2.0".
	// +kubebuilder:default="2.0"
	// +kubebuilder:validation:Pattern=`^[1-9][0-9]*(\.[0-9]+)?$`
	// +optional
	BackoffMultiplier *string `json:"backoffMultiplier,omitempty"`

	// maxBackoff is the upper bound on the delay. Defaults to 30s. It must be
	// at least initialBackoff; the controller rejects the handler otherwise.
	// +kubebuilder:default="30s"
	// +optional
	MaxBackoff string `json:"maxBackoff,omitempty"`

	// retryableStatusCodes lists the gRPC status code names that trigger a
	// retry. Defaults to [UNAVAILABLE, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED];
	// an empty list disables status-based retry.
	// +kubebuilder:default={"UNAVAILABLE","DEADLINE_EXCEEDED","RESOURCE_EXHAUSTED"}
	// +optional
	RetryableStatusCodes []string `json:"retryableStatusCodes"`
}

// ToolRegistryMCPRetryPolicy is the retry behaviour of an mcp handler's
// CallTool failures. With no retryPolicy, a call is attempted once (a lost
// session is still re-dialled and the call retried once).
type ToolRegistryMCPRetryPolicy struct {
	// maxAttempts is the total number of attempts including the first, 1 to
	// 10. 1 disables retries.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=10
	// +required
	MaxAttempts int32 `json:"maxAttempts"`

	// initialBackoff is the delay before the first retry. Defaults to 100ms.
	// +kubebuilder:default="100ms"
	// +optional
	InitialBackoff string `json:"initialBackoff,omitempty"`

	// backoffMultiplier is the decimal multiplier between retries (e.g. "2.0",
	// "1.5"), at least 1.0. Defaults to "2.0".
	// +kubebuilder:default="2.0"
	// +kubebuilder:validation:Pattern=`^[1-9][0-9]*(\.[0-9]+)?$`
	// +optional
	BackoffMultiplier *string `json:"backoffMultiplier,omitempty"`

	// maxBackoff is the upper bound on the delay. Defaults to 30s. It must be
	// at least initialBackoff; the controller rejects the handler otherwise.
	// +kubebuilder:default="30s"
	// +optional
	MaxBackoff string `json:"maxBackoff,omitempty"`
}

// ToolRegistryHTTPConfig configures an http handler.
type ToolRegistryHTTPConfig struct {
	// endpoint is the HTTP endpoint URL, or, when the handler sets sandbox, a
	// path on the sandbox port starting with "/". Required.
	// +required
	Endpoint string `json:"endpoint"`

	// method is the HTTP method. Defaults to POST.
	// +kubebuilder:default="POST"
	// +optional
	Method string `json:"method,omitempty"`

	// headers are additional HTTP headers sent with every call.
	// +optional
	Headers map[string]string `json:"headers,omitempty"`

	// headersFromSecret maps an HTTP header name to a Secret key whose value is
	// resolved at call time and never stored in the CRD or the tools
	// ConfigMap. Not for a header the auth stanza owns: Authorization, or a
	// custom auth.workloadIdentity.header.
	// +optional
	HeadersFromSecret map[string]ToolRegistrySecretKeyRef `json:"headersFromSecret,omitempty"`

	// contentType is the Content-Type header. Defaults to application/json.
	// +kubebuilder:default="application/json"
	// +optional
	ContentType string `json:"contentType,omitempty"`

	// retryPolicy is the retry behaviour. With none, a call is attempted once.
	// +optional
	RetryPolicy *ToolRegistryHTTPRetryPolicy `json:"retryPolicy,omitempty"`

	// authType is deprecated: use the handler-level auth stanza. The auth type,
	// bearer or basic. Not together with a handler auth stanza.
	// +optional
	AuthType ToolRegistryLegacyAuthType `json:"authType,omitempty"`

	// authSecretRef is deprecated: use the handler-level auth stanza. The
	// Secret key holding the credential. Not together with a handler auth stanza.
	// +optional
	AuthSecretRef *ToolRegistrySecretKeyRef `json:"authSecretRef,omitempty"`

	// urlTemplate is a Go text/template evaluated against the tool arguments
	// to build the request path; endpoint is then the base URL. On a sandbox
	// handler it is a path starting with "/".
	// +optional
	URLTemplate string `json:"urlTemplate,omitempty"`

	// queryParams lists argument names sent as URL query parameters instead of
	// body fields.
	// +optional
	QueryParams []string `json:"queryParams,omitempty"`

	// headerParams maps an HTTP header name to a template over the tool
	// arguments, e.g. X-Customer-ID: "{{.customer_id}}".
	// +optional
	HeaderParams map[string]string `json:"headerParams,omitempty"`

	// staticQuery holds fixed query parameters added to every request,
	// invisible to the LLM.
	// +optional
	StaticQuery map[string]string `json:"staticQuery,omitempty"`

	// staticBody holds fixed JSON fields merged into every request body,
	// invisible to the LLM.
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:Type=object
	// +optional
	StaticBody *runtime.RawExtension `json:"staticBody,omitempty"`

	// bodyMapping is a JMESPath expression reshaping the request body before it is sent.
	// +optional
	BodyMapping string `json:"bodyMapping,omitempty"`

	// responseMapping is a JMESPath expression filtering and reshaping the
	// response before it is returned to the LLM.
	// +optional
	ResponseMapping string `json:"responseMapping,omitempty"`

	// redact lists response field names kept out of logs and traces (they are
	// still returned to the model).
	// +optional
	Redact []string `json:"redact,omitempty"`
}

// ToolRegistryGRPCConfig configures a grpc handler. The backend must implement
// the Omnia Tool protocol (ToolService).
type ToolRegistryGRPCConfig struct {
	// endpoint is the gRPC server address (host:port). Required unless the
	// handler sets sandbox, and left unset when it does (the runtime dials the
	// sandbox port's host:port).
	// +optional
	Endpoint string `json:"endpoint,omitempty"`

	// tls enables TLS. Defaults to false.
	// +kubebuilder:default=false
	// +optional
	TLS *bool `json:"tls,omitempty"`

	// tlsCertPath is the path, in the runtime container, to a client
	// certificate for mutual TLS; used only together with tlsKeyPath.
	// +optional
	TLSCertPath string `json:"tlsCertPath,omitempty"`

	// tlsKeyPath is the path to the client certificate's private key.
	// +optional
	TLSKeyPath string `json:"tlsKeyPath,omitempty"`

	// tlsCAPath is the path to a CA bundle for verifying the server.
	// +optional
	TLSCAPath string `json:"tlsCAPath,omitempty"`

	// tlsInsecureSkipVerify skips TLS verification. Defaults to false.
	// +kubebuilder:default=false
	// +optional
	TLSInsecureSkipVerify *bool `json:"tlsInsecureSkipVerify,omitempty"`

	// retryPolicy is the retry behaviour, per gRPC status code. With none, a
	// call is attempted once.
	// +optional
	RetryPolicy *ToolRegistryGRPCRetryPolicy `json:"retryPolicy,omitempty"`
}

// ToolRegistryMCPToolFilter restricts which of an MCP server's tools are exposed.
type ToolRegistryMCPToolFilter struct {
	// allowlist exposes only these tool names. Required (non-empty) on a
	// handler that sets sandbox, where it is the whole of what the model is offered.
	// +optional
	Allowlist []string `json:"allowlist,omitempty"`

	// blocklist hides these tool names.
	// +optional
	Blocklist []string `json:"blocklist,omitempty"`
}

// ToolRegistryMCPConfig configures an mcp handler.
type ToolRegistryMCPConfig struct {
	// transport is sse or streamable-http. Required.
	// +required
	Transport ToolRegistryMCPTransport `json:"transport"`

	// endpoint is the MCP server URL, or, when the handler sets sandbox, a path
	// on the sandbox port starting with "/". Required.
	// +required
	Endpoint string `json:"endpoint"`

	// toolFilter is an allowlist / blocklist of tool names to expose.
	// +optional
	ToolFilter *ToolRegistryMCPToolFilter `json:"toolFilter,omitempty"`

	// retryPolicy is the retry behaviour for CallTool failures.
	// +optional
	RetryPolicy *ToolRegistryMCPRetryPolicy `json:"retryPolicy,omitempty"`
}

// ToolRegistryOpenAPIConfig configures an openapi handler: each operation of
// the spec becomes a tool.
type ToolRegistryOpenAPIConfig struct {
	// specURL is the URL of an OpenAPI v2 or v3 spec in JSON (a YAML spec
	// fails to parse). On a sandbox handler it is read when the runtime
	// starts, so it must be reachable without a sandbox. Required.
	// +required
	SpecURL string `json:"specURL"`

	// baseURL overrides the base URL from the spec. On a sandbox handler it is
	// a path on the sandbox port starting with "/", defaulting to the port's root.
	// +optional
	BaseURL string `json:"baseURL,omitempty"`

	// operationFilter limits the tools to these operation IDs.
	// +optional
	OperationFilter []string `json:"operationFilter,omitempty"`

	// headers are additional HTTP headers sent with every request.
	// +optional
	Headers map[string]string `json:"headers,omitempty"`

	// retryPolicy is the retry behaviour (the HTTP retry policy shape).
	// +optional
	RetryPolicy *ToolRegistryHTTPRetryPolicy `json:"retryPolicy,omitempty"`

	// authType is deprecated: use the handler-level auth stanza. The auth type,
	// bearer or basic. Not together with a handler auth stanza.
	// +optional
	AuthType ToolRegistryLegacyAuthType `json:"authType,omitempty"`

	// authSecretRef is deprecated: use the handler-level auth stanza. The
	// Secret key holding the credential. Not together with a handler auth stanza.
	// +optional
	AuthSecretRef *ToolRegistrySecretKeyRef `json:"authSecretRef,omitempty"`
}

// ToolRegistryClientConfig configures a client (browser-executed) handler.
// Each field that is set replaces the value the PromptPack tool declares.
type ToolRegistryClientConfig struct {
	// consentMessage is sent on each tool_call as consent_message.
	// +optional
	ConsentMessage string `json:"consentMessage,omitempty"`

	// categories are sent on each tool_call as categories (e.g. location).
	// +optional
	Categories []string `json:"categories,omitempty"`
}

// ToolRegistryPlatformConfig configures a platform handler, served by the
// operator itself over its own REST API.
type ToolRegistryPlatformConfig struct {
	// service is the platform service this handler exposes: discovery (the
	// workspace catalog) or arena (real-provider runs of the mounted project).
	// +required
	Service ToolRegistryPlatformService `json:"service"`
}

// ToolRegistryServiceAccountAuth configures serviceAccount auth.
type ToolRegistryServiceAccountAuth struct {
	// audience the projected ServiceAccount token binds to. Required.
	// +required
	Audience string `json:"audience"`
}

// ToolRegistryWorkloadIdentityAuth configures workloadIdentity auth: a token
// acquired per call under the pod's ambient cloud identity.
type ToolRegistryWorkloadIdentityAuth struct {
	// cloud whose identity is used; must be azure.
	// +optional
	Cloud ToolRegistryWorkloadIdentityCloud `json:"cloud,omitempty"`

	// audience the runtime acquires a token for. Required.
	// +required
	Audience string `json:"audience"`

	// header the token is set on. Defaults to Authorization.
	// +kubebuilder:default="Authorization"
	// +optional
	Header string `json:"header,omitempty"`
}

// ToolRegistryHandlerAuth is how the runtime authenticates to a handler's
// backend (http, openapi, grpc and mcp handlers).
// +kubebuilder:validation:XValidation:rule="!(has(self.connectionRef) && has(self.secretRef))",message="[toolregistry/auth-connectionref-secretref-exclusive] auth.connectionRef and auth.secretRef are mutually exclusive: read the credential from a Connection or from a Secret, not both",fieldPath=".connectionRef",reason=FieldValueForbidden
type ToolRegistryHandlerAuth struct {
	// type is the authentication mechanism: none, bearer, basic,
	// serviceAccount or workloadIdentity. Defaults to none.
	// +kubebuilder:default="none"
	// +optional
	Type ToolRegistryAuthType `json:"type,omitempty"`

	// secretRef is the Secret key holding the bearer/basic credential (for
	// basic, "username:password"). bearer/basic need this or connectionRef.
	// +optional
	SecretRef *ToolRegistrySecretKeyRef `json:"secretRef,omitempty"`

	// connectionRef reads the bearer/basic credential from key `key` of a
	// Connection's Secret instead. Not with secretRef, and not on a handler
	// that addresses a sandbox.
	// +optional
	ConnectionRef *ToolRegistryConnectionKeyRef `json:"connectionRef,omitempty"`

	// serviceAccount configures serviceAccount auth (required for that type).
	// +optional
	ServiceAccount *ToolRegistryServiceAccountAuth `json:"serviceAccount,omitempty"`

	// workloadIdentity configures workloadIdentity auth (required for that type).
	// +optional
	WorkloadIdentity *ToolRegistryWorkloadIdentityAuth `json:"workloadIdentity,omitempty"`
}

// ToolRegistryHandlerDelegation configures the X-Omnia-Delegation header.
type ToolRegistryHandlerDelegation struct {
	// enabled makes every call to this handler carry an X-Omnia-Delegation
	// header: a short-lived operator-signed JWT naming the end user, agent and
	// workspace. Defaults to false. Rejected on client handlers.
	// +kubebuilder:default=false
	// +optional
	Enabled *bool `json:"enabled,omitempty"`
}

// ToolRegistryHandlerSandbox names the sandbox a handler is served from and
// the class port it dials.
type ToolRegistryHandlerSandbox struct {
	// name of a sandbox in spec.sandboxes. The SandboxesValid condition reports
	// a name the registry does not declare.
	// +required
	Name string `json:"name"`

	// port is the class port this handler dials. The SandboxesValid condition
	// reports a port the class does not declare.
	// +required
	Port string `json:"port"`
}

// ToolRegistryHandler connects to a tool source and exposes one or more tools.
// +kubebuilder:validation:XValidation:rule="self.type != 'platform' || !(has(self.tool) || has(self.httpConfig) || has(self.grpcConfig) || has(self.mcpConfig) || has(self.openAPIConfig) || has(self.clientConfig) || has(self.sandbox) || has(self.auth) || has(self.delegation))",message="[toolregistry/platform-handler-fields] a platform handler may not set tool, httpConfig, grpcConfig, mcpConfig, openAPIConfig, clientConfig, sandbox, auth or delegation: remove them (it has no address, no declared tool, and its delegation token is implied)",reason=FieldValueForbidden
// +kubebuilder:validation:XValidation:rule="!has(self.platform) || self.type == 'platform'",message="[toolregistry/platform-config-type] platform is only permitted when type is platform: remove it or set type: platform",fieldPath=".platform",reason=FieldValueForbidden
// +kubebuilder:validation:XValidation:rule="self.type != 'client' || !has(self.delegation) || !has(self.delegation.enabled) || !self.delegation.enabled",message="[toolregistry/delegation-not-on-client] delegation.enabled is rejected on a client handler: a browser-executed tool carries no delegation token",fieldPath=".delegation.enabled",reason=FieldValueForbidden
// +kubebuilder:validation:XValidation:rule="!has(self.sandbox) || !(self.type in ['client', 'platform'])",message="[toolregistry/sandbox-handler-type] sandbox is not permitted on a client or platform handler: only http, openapi, grpc and mcp handlers can address a sandbox",fieldPath=".sandbox",reason=FieldValueForbidden
// +kubebuilder:validation:XValidation:rule="self.type != 'mcp' || !has(self.sandbox) || !has(self.mcpConfig) || self.mcpConfig.endpoint.startsWith('/')",message="[toolregistry/sandbox-mcp-endpoint-path] mcpConfig.endpoint must be a path starting with / when the handler sets sandbox (it is joined to the sandbox port's address)",fieldPath=".mcpConfig.endpoint",reason=FieldValueInvalid
// +kubebuilder:validation:XValidation:rule="self.type != 'mcp' || !has(self.sandbox) || (has(self.mcpConfig) && has(self.mcpConfig.toolFilter) && has(self.mcpConfig.toolFilter.allowlist) && size(self.mcpConfig.toolFilter.allowlist) > 0)",message="[toolregistry/sandbox-mcp-allowlist] mcpConfig.toolFilter.allowlist is required on an mcp handler that sets sandbox: the sandbox's tools are not listed until a session claims one",fieldPath=".mcpConfig.toolFilter.allowlist",reason=FieldValueRequired
// +kubebuilder:validation:XValidation:rule="self.type != 'http' || !has(self.sandbox) || !has(self.httpConfig) || self.httpConfig.endpoint.startsWith('/')",message="[toolregistry/sandbox-http-endpoint-path] httpConfig.endpoint must be a path starting with / when the handler sets sandbox (it is joined to http:// and the sandbox port's address)",fieldPath=".httpConfig.endpoint",reason=FieldValueInvalid
// +kubebuilder:validation:XValidation:rule="self.type != 'http' || !has(self.sandbox) || !has(self.httpConfig) || !has(self.httpConfig.urlTemplate) || self.httpConfig.urlTemplate.startsWith('/')",message="[toolregistry/sandbox-http-urltemplate-path] httpConfig.urlTemplate must be a path starting with / when the handler sets sandbox",fieldPath=".httpConfig.urlTemplate",reason=FieldValueInvalid
// +kubebuilder:validation:XValidation:rule="self.type != 'openapi' || !has(self.sandbox) || !has(self.openAPIConfig) || !has(self.openAPIConfig.baseURL) || self.openAPIConfig.baseURL.startsWith('/')",message="[toolregistry/sandbox-openapi-baseurl-path] openAPIConfig.baseURL, if set, must be a path starting with / when the handler sets sandbox (it defaults to the port's root)",fieldPath=".openAPIConfig.baseURL",reason=FieldValueInvalid
// +kubebuilder:validation:XValidation:rule="self.type != 'grpc' || !has(self.sandbox) || !has(self.grpcConfig) || !has(self.grpcConfig.endpoint)",message="[toolregistry/sandbox-grpc-endpoint-unset] grpcConfig.endpoint must be left unset when the handler sets sandbox: the runtime dials the sandbox port's host:port",fieldPath=".grpcConfig.endpoint",reason=FieldValueForbidden
// +kubebuilder:validation:XValidation:rule="self.type != 'grpc' || !has(self.sandbox) || has(self.tool)",message="[toolregistry/sandbox-grpc-tool-required] tool is required on a grpc handler that sets sandbox: ListTools cannot be called before a sandbox exists",fieldPath=".tool",reason=FieldValueRequired
// +kubebuilder:validation:XValidation:rule="!has(self.auth) || ((!has(self.httpConfig) || (!has(self.httpConfig.authType) && !has(self.httpConfig.authSecretRef))) && (!has(self.openAPIConfig) || (!has(self.openAPIConfig.authType) && !has(self.openAPIConfig.authSecretRef))))",message="[toolregistry/auth-legacy-exclusive] a handler may not set both the auth stanza and the deprecated httpConfig/openAPIConfig authType or authSecretRef: move the credential into auth and remove the legacy fields",fieldPath=".auth",reason=FieldValueForbidden
// +kubebuilder:validation:XValidation:rule="!has(self.sandbox) || !has(self.auth) || !has(self.auth.connectionRef)",message="[toolregistry/auth-connectionref-sandbox] auth.connectionRef is not permitted on a handler that sets sandbox",fieldPath=".auth.connectionRef",reason=FieldValueForbidden
// +kubebuilder:validation:XValidation:rule="!has(self.httpConfig) || !has(self.httpConfig.headersFromSecret) || (!('Authorization' in self.httpConfig.headersFromSecret) && !('authorization' in self.httpConfig.headersFromSecret) && !(has(self.auth) && has(self.auth.workloadIdentity) && has(self.auth.workloadIdentity.header) && self.auth.workloadIdentity.header in self.httpConfig.headersFromSecret))",message="[toolregistry/headers-from-secret-auth-header] httpConfig.headersFromSecret may not set a header the auth stanza owns (Authorization, or the auth.workloadIdentity.header): configure that credential in auth instead",fieldPath=".httpConfig.headersFromSecret",reason=FieldValueForbidden
type ToolRegistryHandler struct {
	// name is the handler's unique name in the registry: a DNS label
	// (lowercase letters, digits and '-'), at most 63 characters.
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +kubebuilder:validation:MaxLength=63
	// +required
	Name string `json:"name"`

	// type is the handler type: http, grpc, mcp, openapi, client or platform.
	// +required
	Type ToolRegistryHandlerType `json:"type"`

	// tool is the tool definition, required for http, grpc and client
	// handlers. Not permitted on platform handlers.
	// +optional
	Tool *ToolRegistryToolDefinition `json:"tool,omitempty"`

	// httpConfig configures an http handler; required when type is http. Not
	// permitted on platform handlers.
	// +optional
	HTTPConfig *ToolRegistryHTTPConfig `json:"httpConfig,omitempty"`

	// grpcConfig configures a grpc handler; required when type is grpc. Not
	// permitted on platform handlers.
	// +optional
	GRPCConfig *ToolRegistryGRPCConfig `json:"grpcConfig,omitempty"`

	// mcpConfig configures an mcp handler; required when type is mcp. Not
	// permitted on platform handlers.
	// +optional
	MCPConfig *ToolRegistryMCPConfig `json:"mcpConfig,omitempty"`

	// openAPIConfig configures an openapi handler; required when type is
	// openapi. Not permitted on platform handlers.
	// +optional
	OpenAPIConfig *ToolRegistryOpenAPIConfig `json:"openAPIConfig,omitempty"`

	// clientConfig is the consent message and categories of a client handler.
	// +optional
	ClientConfig *ToolRegistryClientConfig `json:"clientConfig,omitempty"`

	// platform configures a platform handler; required when type is platform
	// and not permitted for any other type.
	// +optional
	Platform *ToolRegistryPlatformConfig `json:"platform,omitempty"`

	// sandbox serves the handler from one of spec.sandboxes, on a port its
	// class declares. Not permitted on client or platform handlers.
	// +optional
	Sandbox *ToolRegistryHandlerSandbox `json:"sandbox,omitempty"`

	// auth is how the runtime authenticates to the backend (http, openapi,
	// grpc and mcp handlers). Not permitted on platform handlers.
	// +optional
	Auth *ToolRegistryHandlerAuth `json:"auth,omitempty"`

	// delegation configures the X-Omnia-Delegation header. delegation.enabled
	// is rejected on client handlers; the whole field is rejected on platform
	// handlers.
	// +optional
	Delegation *ToolRegistryHandlerDelegation `json:"delegation,omitempty"`

	// timeout is the per-invocation wall-clock timeout. Defaults to 30s. The
	// runtime sizes each turn's ceiling to 2m plus the longest handler timeout.
	// +kubebuilder:default="30s"
	// +optional
	Timeout string `json:"timeout,omitempty"`
}

// ToolRegistrySandboxClassRef names the class a sandbox is built from.
type ToolRegistrySandboxClassRef struct {
	// name of the SandboxClass or ClusterSandboxClass.
	// +required
	Name string `json:"name"`

	// kind is SandboxClass (default, looked up in the claim's namespace) or
	// ClusterSandboxClass.
	// +kubebuilder:default="SandboxClass"
	// +optional
	Kind ToolRegistrySandboxClassKind `json:"kind,omitempty"`
}

// ToolRegistrySandboxConnection binds a class role to a Connection.
type ToolRegistrySandboxConnection struct {
	// role is a connection role the class declares.
	// +required
	Role string `json:"role"`

	// connection is the name of the Connection bound to the role.
	// +required
	Connection string `json:"connection"`
}

// ToolRegistrySandbox declares a per-session codegen sandbox the registry's
// handlers are served from.
// +kubebuilder:validation:XValidation:rule="!has(self.targetPath) || size(self.targetPath) == 0 || !has(self.maxInstances) || self.maxInstances == 1",message="[toolregistry/sandbox-targetpath-single-instance] maxInstances must be 1 when targetPath is set: every instance would promote into the same project; declare a separate sandbox with its own targetPath instead",fieldPath=".maxInstances",reason=FieldValueInvalid
type ToolRegistrySandbox struct {
	// name is the sandbox's unique name: a DNS label, at most 63 characters.
	// Handlers name it in sandbox.name; it is the first part of each claim's
	// handle, <sandbox>/<instance>.
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	// +kubebuilder:validation:MaxLength=63
	// +required
	Name string `json:"name"`

	// class is the SandboxClass or ClusterSandboxClass each sandbox is built from.
	// +required
	Class ToolRegistrySandboxClassRef `json:"class"`

	// maxInstances is how many instances of this sandbox one session may hold.
	// Defaults to 1, minimum 1. Above 1, every tool on the sandbox gains an
	// optional `sandbox` argument naming the instance. Must be 1 when
	// targetPath is set.
	// +kubebuilder:default=1
	// +kubebuilder:validation:Minimum=1
	// +optional
	MaxInstances *int32 `json:"maxInstances,omitempty"`

	// allocation is lazy (default: claim on the first tool call of a handler
	// on the sandbox) or eager (claim, best-effort, when the session starts).
	// +kubebuilder:default="lazy"
	// +optional
	Allocation ToolRegistrySandboxAllocation `json:"allocation,omitempty"`

	// workspace is where each sandbox's /workspace lives: claim (default, a
	// scratch directory lost with the sandbox) or session (one directory per
	// session handle that outlives its sandboxes; needs a class with a
	// workspace mount).
	// +kubebuilder:default="claim"
	// +optional
	Workspace ToolRegistrySandboxWorkspace `json:"workspace,omitempty"`

	// targetPath is the project the sandboxes sync their work back into,
	// relative to the workspace content volume (e.g. projects/checkout-service).
	// At most 512 characters. Empty makes the sandboxes scratch space.
	// +kubebuilder:validation:MaxLength=512
	// +optional
	TargetPath string `json:"targetPath,omitempty"`

	// connections are the sandbox's default Connection for each role the
	// class declares, at most 16. An AgentRuntime's spec.sandbox.connections
	// overrides a role for that agent.
	// +kubebuilder:validation:MaxItems=16
	// +listType=atomic
	// +optional
	Connections []ToolRegistrySandboxConnection `json:"connections,omitempty"`
}

// ToolRegistryProbe turns on periodic TCP reachability probing of each
// tool's endpoint. interval and timeout are bounded so a probe neither spins
// nor holds the controller: a value that is not a Go duration is left to the
// catalog's toolregistry/duration-format rule (the regular expression guards
// CEL's duration()).
// +kubebuilder:validation:XValidation:rule="!has(self.interval) || !self.interval.matches('^[-+]?(0|(([0-9]+([.][0-9]*)?|[.][0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$') || (duration(self.interval) >= duration('5s') && duration(self.interval) <= duration('24h'))",message="[toolregistry/probe-interval-range] spec.probe.interval must be from 5s to 24h: a shorter interval re-dials every endpoint in a loop, a longer one leaves tool status stale for days",fieldPath=".interval",reason=FieldValueInvalid
// +kubebuilder:validation:XValidation:rule="!has(self.timeout) || !self.timeout.matches('^[-+]?(0|(([0-9]+([.][0-9]*)?|[.][0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$') || (duration(self.timeout) >= duration('100ms') && duration(self.timeout) <= duration('60s'))",message="[toolregistry/probe-timeout-range] spec.probe.timeout must be from 100ms to 60s: it is a TCP dial timeout, and a longer one holds the controller's probe for as long",fieldPath=".timeout",reason=FieldValueInvalid
// +kubebuilder:validation:XValidation:rule="!has(self.interval) || !has(self.timeout) || !self.interval.matches('^[-+]?(0|(([0-9]+([.][0-9]*)?|[.][0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$') || !self.timeout.matches('^[-+]?(0|(([0-9]+([.][0-9]*)?|[.][0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$') || duration(self.timeout) <= duration(self.interval)",message="[toolregistry/probe-timeout-within-interval] spec.probe.timeout may not be longer than spec.probe.interval: a probe round must end before the next is due",fieldPath=".timeout",reason=FieldValueInvalid
type ToolRegistryProbe struct {
	// enabled turns reachability probing on. Required within spec.probe;
	// omitting spec.probe entirely behaves as disabled.
	// +required
	Enabled *bool `json:"enabled"`

	// interval is how often endpoints are re-probed, a Go duration from 5s
	// to 24h. Defaults to 60s.
	// +kubebuilder:default="60s"
	// +kubebuilder:validation:MaxLength=32
	// +optional
	Interval string `json:"interval,omitempty"`

	// timeout is the per-endpoint TCP dial timeout, a Go duration from 100ms
	// to 60s and at most interval. Defaults to 5s.
	// +kubebuilder:default="5s"
	// +kubebuilder:validation:MaxLength=32
	// +optional
	Timeout string `json:"timeout,omitempty"`
}

// ToolRegistrySpec is the desired state of a ToolRegistry.
type ToolRegistrySpec struct {
	// handlers are the tool handlers of this registry, from 1 to 64, each
	// with a unique name. Each connects to a tool source and exposes one or
	// more tools. The bound keeps one registry's probe round, status and CEL
	// cost small; more tools go in further registries.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=64
	// +listType=map
	// +listMapKey=name
	// +required
	Handlers []ToolRegistryHandler `json:"handlers"`

	// sandboxes are the per-session codegen sandboxes this registry's handlers
	// are served from, at most 16, keyed by name. The AgentRuntime that uses
	// the registry must set spec.sandbox.enabled.
	// +kubebuilder:validation:MaxItems=16
	// +listType=map
	// +listMapKey=name
	// +optional
	Sandboxes []ToolRegistrySandbox `json:"sandboxes,omitempty"`

	// probe turns on TCP reachability probing of each tool's endpoint.
	// Without it, a tool's status reflects configuration validity only.
	// +optional
	Probe *ToolRegistryProbe `json:"probe,omitempty"`
}

// ToolRegistryDiscoveredTool is one tool the controller resolved from a handler.
type ToolRegistryDiscoveredTool struct {
	// name is the tool name (for a self-describing handler at reconcile time,
	// a placeholder named after the handler).
	// +required
	Name string `json:"name"`

	// handlerName is the handler that provides the tool.
	// +required
	HandlerName string `json:"handlerName"`

	// description is the tool description shown to the LLM.
	// +optional
	Description string `json:"description,omitempty"`

	// inputSchema is the JSON Schema of the tool's input parameters.
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:Type=object
	// +optional
	InputSchema *runtime.RawExtension `json:"inputSchema,omitempty"`

	// outputSchema is the JSON Schema of the tool's output.
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:Type=object
	// +optional
	OutputSchema *runtime.RawExtension `json:"outputSchema,omitempty"`

	// endpoint is the resolved endpoint URL or address (client://browser for a client tool).
	// +optional
	Endpoint string `json:"endpoint,omitempty"`

	// status is Available, Unavailable or Unknown.
	// +required
	Status ToolRegistryToolStatus `json:"status"`

	// lastChecked is when a probe last changed this tool's result (status or
	// error), like a condition's lastTransitionTime: a probe that finds the
	// tool as before leaves it, so a registry whose tools keep their health
	// is not rewritten every interval. The time of the latest probe is kept
	// by the controller, which schedules the next one from it. Absent for a
	// tool that is not probed.
	// +optional
	LastChecked *metav1.Time `json:"lastChecked,omitempty"`

	// error says why the tool is Unavailable.
	// +optional
	Error string `json:"error,omitempty"`
}

// ToolRegistryStatus is the observed state of a ToolRegistry.
type ToolRegistryStatus struct {
	// phase is Pending, Ready, Degraded or Failed.
	// +optional
	Phase ToolRegistryPhase `json:"phase,omitempty"`

	// observedGeneration is the spec generation the status reflects.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// discoveredToolsCount is the total number of tools discovered across all handlers.
	// +optional
	DiscoveredToolsCount int32 `json:"discoveredToolsCount"`

	// discoveredTools lists the discovered tools with their status.
	// +listType=atomic
	// +optional
	DiscoveredTools []ToolRegistryDiscoveredTool `json:"discoveredTools,omitempty"`

	// lastDiscoveryTime is when the handlers last resolved to a different
	// tool set (contentDigest changed), first set at the first reconcile:
	// when an agent's view of the registry last changed. A spec edit that
	// resolves to the same tools moves observedGeneration only, and a probe
	// result never moves it.
	// +optional
	LastDiscoveryTime *metav1.Time `json:"lastDiscoveryTime,omitempty"`

	// contentDigest is sha256:<hex> over the resolved tool set (names,
	// descriptions, schemas and endpoints). It does not change when a probe
	// flips a tool's health.
	// +optional
	ContentDigest string `json:"contentDigest,omitempty"`

	// policyCount is how many ToolPolicies name this registry in
	// spec.selector.registry. Zero means the default-deny broker refuses every
	// call. Absent (not 0) on an install without the ToolPolicy CRD.
	// +optional
	PolicyCount *int32 `json:"policyCount,omitempty"`

	// conditions are Ready, Degraded, HandlersValid, ToolsDiscovered,
	// PolicyBound, SandboxesValid, SandboxConnectionsValid and HandlerConnectionsValid.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=tr,categories=omnia
// +kubebuilder:printcolumn:name="PHASE",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="TOOLS",type=integer,JSONPath=`.status.discoveredToolsCount`
// +kubebuilder:printcolumn:name="POLICIES",type=integer,JSONPath=`.status.policyCount`
// +kubebuilder:printcolumn:name="AGE",type=date,JSONPath=`.metadata.creationTimestamp`

// ToolRegistry defines the tool handlers available to AI agents. Each handler
// connects to a tool source (HTTP, gRPC, MCP, OpenAPI, the browser client or
// the operator itself) and exposes one or more tools.
type ToolRegistry struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is standard object metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the desired state of the ToolRegistry.
	// +required
	Spec ToolRegistrySpec `json:"spec"`

	// status is the observed state of the ToolRegistry.
	// +optional
	Status ToolRegistryStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// ToolRegistryList is a list of ToolRegistry.
type ToolRegistryList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ToolRegistry `json:"items"`
}

func init() {
	SchemeBuilder.Register(&ToolRegistry{}, &ToolRegistryList{})
}
