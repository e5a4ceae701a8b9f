package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ProviderType is a Provider's wire protocol (message/response format).
// Hyperscaler hosting is not a type: it is spec.platform on a claude, openai
// or gemini provider.
// +kubebuilder:validation:Enum=claude;openai;gemini;vllm;voyageai;cohere;cartesia;elevenlabs;imagen;huggingface;ollama;mock
type ProviderType string

const (
	// ProviderTypeClaude is the Anthropic Claude wire protocol.
	ProviderTypeClaude ProviderType = "claude"
	// ProviderTypeOpenAI is the OpenAI chat completions wire protocol.
	ProviderTypeOpenAI ProviderType = "openai"
	// ProviderTypeGemini is the Google Gemini wire protocol.
	ProviderTypeGemini ProviderType = "gemini"
	// ProviderTypeVLLM is a vLLM-served OpenAI-compatible endpoint (set baseURL).
	ProviderTypeVLLM ProviderType = "vllm"
	// ProviderTypeVoyageAI is Voyage AI (role embedding or rerank only).
	ProviderTypeVoyageAI ProviderType = "voyageai"
	// ProviderTypeCohere is Cohere rerank (role rerank only).
	ProviderTypeCohere ProviderType = "cohere"
	// ProviderTypeCartesia is Cartesia text-to-speech (role tts only).
	ProviderTypeCartesia ProviderType = "cartesia"
	// ProviderTypeElevenLabs is ElevenLabs text-to-speech (role tts only).
	ProviderTypeElevenLabs ProviderType = "elevenlabs"
	// ProviderTypeImagen is Google Imagen image generation (role image only).
	ProviderTypeImagen ProviderType = "imagen"
	// ProviderTypeHuggingFace is the HuggingFace Inference API / Endpoints (role inference only).
	ProviderTypeHuggingFace ProviderType = "huggingface"
	// ProviderTypeOllama is a local Ollama model server (for development).
	ProviderTypeOllama ProviderType = "ollama"
	// ProviderTypeMock is the mock provider (for testing).
	ProviderTypeMock ProviderType = "mock"
)

// ProviderRole is what kind of provider a Provider is. An AgentRuntime's
// providers[].role must match the referenced Provider's role.
// +kubebuilder:validation:Enum=llm;embedding;rerank;tts;stt;image;inference
type ProviderRole string

const (
	// ProviderRoleLLM is a chat/completion model (the default).
	ProviderRoleLLM ProviderRole = "llm"
	// ProviderRoleEmbedding is an embedding model.
	ProviderRoleEmbedding ProviderRole = "embedding"
	// ProviderRoleRerank is a rerank model. Reserved: accepted, but no Omnia
	// component consumes it.
	ProviderRoleRerank ProviderRole = "rerank"
	// ProviderRoleTTS is a text-to-speech model.
	ProviderRoleTTS ProviderRole = "tts"
	// ProviderRoleSTT is a speech-to-text model.
	ProviderRoleSTT ProviderRole = "stt"
	// ProviderRoleImage is an image generation model.
	ProviderRoleImage ProviderRole = "image"
	// ProviderRoleInference is a generic inference endpoint.
	ProviderRoleInference ProviderRole = "inference"
)

// ProviderCapability is a modality or feature a Provider supports.
// +kubebuilder:validation:Enum=text;streaming;vision;tools;json;audio;video;documents;duplex
type ProviderCapability string

const (
	// ProviderCapabilityText is text generation.
	ProviderCapabilityText ProviderCapability = "text"
	// ProviderCapabilityStreaming is streaming responses.
	ProviderCapabilityStreaming ProviderCapability = "streaming"
	// ProviderCapabilityVision is image/visual input.
	ProviderCapabilityVision ProviderCapability = "vision"
	// ProviderCapabilityTools is tool/function calling.
	ProviderCapabilityTools ProviderCapability = "tools"
	// ProviderCapabilityJSON is structured JSON output.
	ProviderCapabilityJSON ProviderCapability = "json"
	// ProviderCapabilityAudio is audio input/output.
	ProviderCapabilityAudio ProviderCapability = "audio"
	// ProviderCapabilityVideo is video input.
	ProviderCapabilityVideo ProviderCapability = "video"
	// ProviderCapabilityDocuments is document (PDF) input.
	ProviderCapabilityDocuments ProviderCapability = "documents"
	// ProviderCapabilityDuplex is full-duplex (bidirectional streaming).
	ProviderCapabilityDuplex ProviderCapability = "duplex"
)

// ProviderSecretKeyRef names a Secret in the Provider's namespace and,
// optionally, one key in it.
type ProviderSecretKeyRef struct {
	// name of the Secret, in the Provider's namespace.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +required
	Name string `json:"name"`

	// key within the Secret. When omitted the key is auto-detected from the
	// provider type (e.g. ANTHROPIC_API_KEY, CLAUDE_API_KEY, then api-key for
	// claude); an explicit key is used exactly, no other key is tried.
	// +optional
	Key string `json:"key,omitempty"`
}

// ProviderCredential says where the provider credential comes from. Exactly
// one of secretRef, envVar or filePath is set.
// +kubebuilder:validation:XValidation:rule="(has(self.secretRef) ? 1 : 0) + (has(self.envVar) ? 1 : 0) + (has(self.filePath) ? 1 : 0) == 1",message="[provider/credential-exactly-one] spec.credential must set exactly one of secretRef, envVar or filePath; omit spec.credential for a provider that needs no credential"
type ProviderCredential struct {
	// secretRef names a Kubernetes Secret (and optionally a key) holding the
	// credential.
	// +optional
	SecretRef *ProviderSecretKeyRef `json:"secretRef,omitempty"`

	// envVar is the name of an environment variable holding the credential, in
	// the pod that consumes the provider (runtime, memory-api or eval worker).
	// A missing or empty variable is an error at resolution.
	// +optional
	EnvVar string `json:"envVar,omitempty"`

	// filePath is the absolute, clean path of a file holding the credential,
	// mounted in the pod that consumes the provider. Trailing whitespace is
	// trimmed; an unreadable or empty file is an error at resolution.
	// +optional
	FilePath string `json:"filePath,omitempty"`
}

// ProviderPlatformType is a hyperscaler hosting platform.
// +kubebuilder:validation:Enum=bedrock;vertex;azure
type ProviderPlatformType string

const (
	// ProviderPlatformTypeBedrock is AWS Bedrock.
	ProviderPlatformTypeBedrock ProviderPlatformType = "bedrock"
	// ProviderPlatformTypeVertex is GCP Vertex AI.
	ProviderPlatformTypeVertex ProviderPlatformType = "vertex"
	// ProviderPlatformTypeAzure is Azure AI Foundry.
	ProviderPlatformTypeAzure ProviderPlatformType = "azure"
)

// ProviderPlatform is hyperscaler hosting for a claude, openai or gemini
// provider.
// +kubebuilder:validation:XValidation:rule="self.type != 'vertex' || (has(self.project) && size(self.project) > 0)",message="[provider/vertex-needs-project] spec.platform.project (the GCP project ID) is required when spec.platform.type is vertex",fieldPath=".project",reason=FieldValueRequired
// +kubebuilder:validation:XValidation:rule="self.type != 'azure' || (has(self.endpoint) && size(self.endpoint) > 0)",message="[provider/azure-needs-endpoint] spec.platform.endpoint (the Azure OpenAI resource URL) is required when spec.platform.type is azure",fieldPath=".endpoint",reason=FieldValueRequired
type ProviderPlatform struct {
	// type is the hosting platform: bedrock, vertex or azure. Supported pairs
	// with spec.type: claude on bedrock, vertex or azure; openai on azure or
	// bedrock; gemini on vertex.
	// +required
	Type ProviderPlatformType `json:"type"`

	// region is the cloud region (e.g. us-east-1, us-central1). Set it for
	// bedrock and vertex; for azure the region comes from the endpoint.
	// +optional
	Region string `json:"region,omitempty"`

	// project is the GCP project ID. Required when type is vertex.
	// +optional
	Project string `json:"project,omitempty"`

	// endpoint is the platform API endpoint. Required when type is azure (the
	// Azure OpenAI resource URL).
	// +optional
	Endpoint string `json:"endpoint,omitempty"`
}

// ProviderAuthType is the authentication method of a platform-hosted provider.
// +kubebuilder:validation:Enum=workloadIdentity;accessKey;serviceAccount;servicePrincipal
type ProviderAuthType string

const (
	// ProviderAuthTypeWorkloadIdentity uses the agent pod's own identity.
	ProviderAuthTypeWorkloadIdentity ProviderAuthType = "workloadIdentity"
	// ProviderAuthTypeAccessKey uses static AWS access keys (bedrock).
	ProviderAuthTypeAccessKey ProviderAuthType = "accessKey"
	// ProviderAuthTypeServiceAccount uses a GCP service account key (vertex).
	ProviderAuthTypeServiceAccount ProviderAuthType = "serviceAccount"
	// ProviderAuthTypeServicePrincipal uses an Azure service principal (azure).
	ProviderAuthTypeServicePrincipal ProviderAuthType = "servicePrincipal"
)

// ProviderAuth is the authentication of a platform-hosted provider.
// +kubebuilder:validation:XValidation:rule="self.type == 'workloadIdentity' || has(self.credentialsSecretRef)",message="[provider/auth-static-needs-secret] spec.auth.credentialsSecretRef is required when spec.auth.type is accessKey, serviceAccount or servicePrincipal",fieldPath=".credentialsSecretRef",reason=FieldValueRequired
// +kubebuilder:validation:XValidation:rule="self.type != 'workloadIdentity' || !has(self.credentialsSecretRef)",message="[provider/workload-identity-no-secret] spec.auth.credentialsSecretRef is not allowed when spec.auth.type is workloadIdentity (it uses the pod's identity); remove it",fieldPath=".credentialsSecretRef",reason=FieldValueForbidden
type ProviderAuth struct {
	// type is the authentication method: workloadIdentity (any platform),
	// accessKey (bedrock), serviceAccount (vertex) or servicePrincipal (azure).
	// +required
	Type ProviderAuthType `json:"type"`

	// credentialsSecretRef names the Secret holding static platform
	// credentials: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (optional
	// AWS_SESSION_TOKEN) for accessKey; credentials.json (or key) for
	// serviceAccount; AZURE_TENANT_ID, AZURE_CLIENT_ID and AZURE_CLIENT_SECRET
	// for servicePrincipal. Required for those types, forbidden for
	// workloadIdentity.
	// +optional
	CredentialsSecretRef *ProviderSecretKeyRef `json:"credentialsSecretRef,omitempty"`
}

// ProviderTruncationStrategy is how context overflow is handled.
// +kubebuilder:validation:Enum=sliding;summarize;custom
type ProviderTruncationStrategy string

const (
	// ProviderTruncationStrategySliding removes the oldest messages first (the default).
	ProviderTruncationStrategySliding ProviderTruncationStrategy = "sliding"
	// ProviderTruncationStrategySummarize summarizes old messages before removing them.
	ProviderTruncationStrategySummarize ProviderTruncationStrategy = "summarize"
	// ProviderTruncationStrategyCustom applies no truncation in the Omnia
	// runtime, for a custom runtime that implements its own.
	ProviderTruncationStrategyCustom ProviderTruncationStrategy = "custom"
)

// ProviderDefaults holds tuning parameters applied to every request using the
// provider; a PromptPack prompt's own parameters take precedence.
type ProviderDefaults struct {
	// temperature controls randomness, a decimal string from 0.0 to 2.0. Sent
	// when non-zero and the prompt sets none; when neither sets it an agent
	// runs at 0.7.
	// +kubebuilder:validation:Pattern=`^([01](\.[0-9]+)?|2(\.0+)?)$`
	// +optional
	Temperature string `json:"temperature,omitempty"`

	// topP is the nucleus sampling threshold, a decimal string from 0.0 to 1.0.
	// +kubebuilder:validation:Pattern=`^(0(\.[0-9]+)?|1(\.0+)?)$`
	// +optional
	TopP string `json:"topP,omitempty"`

	// maxTokens is the maximum number of tokens in a response. Sent when
	// non-zero and the prompt sets none; otherwise no limit is sent (claude
	// sends 4096).
	// +optional
	MaxTokens *int32 `json:"maxTokens,omitempty"`

	// contextWindow is the model's maximum context size in tokens; history
	// beyond it is truncated. Unset means no automatic truncation.
	// +optional
	ContextWindow *int32 `json:"contextWindow,omitempty"`

	// truncationStrategy is how context overflow is handled: sliding (default,
	// oldest messages first), summarize, or custom (no truncation by the Omnia
	// runtime).
	// +kubebuilder:default=sliding
	// +optional
	TruncationStrategy ProviderTruncationStrategy `json:"truncationStrategy,omitempty"`

	// thinkingBudgetTokens enables extended thinking and caps the reasoning
	// tokens (at least 1024). Unset means thinking is off. Honoured by claude.
	// +kubebuilder:validation:Minimum=1024
	// +optional
	ThinkingBudgetTokens *int32 `json:"thinkingBudgetTokens,omitempty"`

	// requestTimeout is a Go duration capping non-streaming provider calls
	// (predict, embeddings). Unset uses the provider's built-in default.
	// +optional
	RequestTimeout string `json:"requestTimeout,omitempty"`

	// streamIdleTimeout is a Go duration a streaming response may stay silent
	// between reads before it is aborted. Defaults to 30s.
	// +kubebuilder:default="30s"
	// +optional
	StreamIdleTimeout string `json:"streamIdleTimeout,omitempty"`

	// firstTokenTimeout is a Go duration a turn may go with no activity from
	// the provider (chiefly the wait for its first token) before it ends with
	// PROVIDER_TIMEOUT; time inside a tool call does not count. Defaults to 90s.
	// +kubebuilder:default="90s"
	// +optional
	FirstTokenTimeout string `json:"firstTokenTimeout,omitempty"`
}

// ProviderPricing is custom per-token pricing for cost tracking.
type ProviderPricing struct {
	// inputCostPer1K is the cost per 1000 input tokens, a decimal string.
	// +optional
	InputCostPer1K string `json:"inputCostPer1K,omitempty"`

	// outputCostPer1K is the cost per 1000 output tokens, a decimal string.
	// +optional
	OutputCostPer1K string `json:"outputCostPer1K,omitempty"`

	// cachedCostPer1K is the cost per 1000 prompt-cache read tokens, applied
	// only when inputCostPer1K and outputCostPer1K are also set. Cache writes
	// are not costed.
	// +optional
	CachedCostPer1K string `json:"cachedCostPer1K,omitempty"`
}

// ProviderEmbedding is the embedding-role block.
type ProviderEmbedding struct {
	// dimensions is the embedding vector size to request, 1 to 4096. A model
	// that cannot shorten its output returns its native size. memory-api
	// refuses to start with a value above 4000.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=4096
	// +optional
	Dimensions *int32 `json:"dimensions,omitempty"`
}

// ProviderSTT is the stt-role block, read for cascaded voice calls.
type ProviderSTT struct {
	// language is the transcription language as an ISO 639-1 code. Defaults to en.
	// +kubebuilder:default=en
	// +optional
	Language string `json:"language,omitempty"`

	// sampleRate is the input sample rate in Hz (8000 to 48000) the client is
	// asked to capture at, unless the AgentRuntime's
	// spec.duplex.audio.recommendedSampleRate sets one.
	// +kubebuilder:validation:Minimum=8000
	// +kubebuilder:validation:Maximum=48000
	// +optional
	SampleRate *int32 `json:"sampleRate,omitempty"`
}

// ProviderTTS is the tts-role block, read for cascaded voice calls.
type ProviderTTS struct {
	// voice is the voice of the spoken reply. Defaults to alloy.
	// +kubebuilder:default=alloy
	// +optional
	Voice string `json:"voice,omitempty"`

	// sampleRate is not applied: cascaded voice replies are 16-bit PCM at
	// 24 kHz, and the runtime logs a warning when it is set.
	// +optional
	SampleRate *int32 `json:"sampleRate,omitempty"`

	// format is not applied: cascaded voice replies are 16-bit PCM at 24 kHz,
	// and the runtime logs a warning when it is set.
	// +optional
	Format string `json:"format,omitempty"`
}

// ProviderSpec is a reusable model provider configuration.
// +kubebuilder:validation:XValidation:rule="self.type in {'llm': ['claude', 'openai', 'gemini', 'ollama', 'mock', 'vllm'], 'embedding': ['openai', 'voyageai', 'gemini', 'ollama'], 'rerank': ['cohere', 'voyageai', 'mock'], 'tts': ['openai', 'cartesia', 'elevenlabs'], 'stt': ['openai'], 'image': ['imagen'], 'inference': ['huggingface']}[has(self.role) ? self.role : 'llm']",message="[provider/role-type] spec.type is not allowed for spec.role: llm admits claude, openai, gemini, ollama, mock, vllm; embedding admits openai, voyageai, gemini, ollama; rerank admits cohere, voyageai, mock; tts admits openai, cartesia, elevenlabs; stt admits openai; image admits imagen; inference admits huggingface",fieldPath=".type",reason=FieldValueInvalid
// +kubebuilder:validation:XValidation:rule="self.type == 'mock' || (has(self.model) && size(self.model) > 0)",message="[provider/model-required] spec.model is required for every spec.type except mock",fieldPath=".model",reason=FieldValueRequired
// +kubebuilder:validation:XValidation:rule="!has(self.messageMetadataTemplate) || (has(self.role) ? self.role : 'llm') == 'llm'",message="[provider/message-metadata-template-llm-only] spec.messageMetadataTemplate is only allowed when spec.role is llm",fieldPath=".messageMetadataTemplate",reason=FieldValueForbidden
// +kubebuilder:validation:XValidation:rule="!has(self.embedding) || (has(self.role) ? self.role : 'llm') == 'embedding'",message="[provider/embedding-role-only] spec.embedding is only allowed when spec.role is embedding",fieldPath=".embedding",reason=FieldValueForbidden
// +kubebuilder:validation:XValidation:rule="!has(self.platform) || self.type in ['claude', 'openai', 'gemini']",message="[provider/platform-type] spec.platform is only allowed when spec.type is claude, openai or gemini",fieldPath=".platform",reason=FieldValueForbidden
// +kubebuilder:validation:XValidation:rule="!has(self.platform) || (has(self.role) ? self.role : 'llm') in ['llm', 'embedding']",message="[provider/platform-role] spec.platform is only allowed when spec.role is llm or embedding",fieldPath=".platform",reason=FieldValueForbidden
// +kubebuilder:validation:XValidation:rule="!has(self.platform) || !(self.type in ['claude', 'openai', 'gemini']) || self.platform.type in {'claude': ['bedrock', 'vertex', 'azure'], 'openai': ['azure', 'bedrock'], 'gemini': ['vertex']}[self.type]",message="[provider/platform-pairing] spec.platform.type is not supported for spec.type: claude runs on bedrock, vertex or azure; openai on azure or bedrock; gemini on vertex",fieldPath=".platform.type",reason=FieldValueInvalid
// +kubebuilder:validation:XValidation:rule="!has(self.platform) || has(self.auth)",message="[provider/platform-requires-auth] spec.auth is required when spec.platform is set",fieldPath=".auth",reason=FieldValueRequired
// +kubebuilder:validation:XValidation:rule="!has(self.auth) || has(self.platform)",message="[provider/auth-requires-platform] spec.auth is only allowed together with spec.platform",fieldPath=".auth",reason=FieldValueForbidden
// +kubebuilder:validation:XValidation:rule="!has(self.platform) || !has(self.auth) || self.auth.type in {'bedrock': ['workloadIdentity', 'accessKey'], 'vertex': ['workloadIdentity', 'serviceAccount'], 'azure': ['workloadIdentity', 'servicePrincipal']}[self.platform.type]",message="[provider/platform-auth] spec.auth.type is not allowed for spec.platform.type: bedrock takes workloadIdentity or accessKey; vertex takes workloadIdentity or serviceAccount; azure takes workloadIdentity or servicePrincipal",fieldPath=".auth.type",reason=FieldValueInvalid
type ProviderSpec struct {
	// type is the provider wire protocol: claude, openai, gemini, vllm,
	// voyageai, cohere, cartesia, elevenlabs, imagen, huggingface, ollama or
	// mock. Each role admits only certain types.
	// +required
	Type ProviderType `json:"type"`

	// role is what kind of provider this is: llm (default), embedding, rerank
	// (reserved), tts, stt, image or inference. An AgentRuntime's
	// providers[].role must match it.
	// +kubebuilder:default=llm
	// +optional
	Role ProviderRole `json:"role,omitempty"`

	// model is the model identifier (e.g. claude-sonnet-4-20250514, gpt-4o,
	// an Azure deployment name). Required for every type except mock; Omnia
	// applies no default.
	// +optional
	Model string `json:"model,omitempty"`

	// credential says where the provider credential comes from: exactly one of
	// secretRef, envVar or filePath. Omit it for providers that need none
	// (e.g. mock, ollama, vllm) and for platform-hosted providers.
	// +optional
	Credential *ProviderCredential `json:"credential,omitempty"`

	// platform is hyperscaler hosting (bedrock, vertex, azure) for a claude,
	// openai or gemini provider with role llm or embedding. Always set
	// together with auth.
	// +optional
	Platform *ProviderPlatform `json:"platform,omitempty"`

	// auth is the authentication of a platform-hosted provider. Required when
	// platform is set, forbidden otherwise.
	// +optional
	Auth *ProviderAuth `json:"auth,omitempty"`

	// baseURL overrides the provider's default API endpoint (proxies,
	// gateways, self-hosted models such as vllm). An absolute https (or, with
	// a warning, http) URL with no user info, not naming a link-local or
	// cloud-metadata host. The operator sends a credential probe only to the
	// vendor's default host or a host it is configured to allow.
	// +optional
	BaseURL string `json:"baseURL,omitempty"`

	// headers are custom HTTP headers included on every provider request.
	// Collisions with built-in provider headers are rejected by PromptKit at
	// request time.
	// +optional
	Headers map[string]string `json:"headers,omitempty"`

	// messageMetadataTemplate is a text template rendered from a user
	// message's metadata ({{key}} placeholders) and appended to that message's
	// text in the request to the model. Only allowed when role is llm. Unset
	// means the model does not see the metadata.
	// +optional
	MessageMetadataTemplate string `json:"messageMetadataTemplate,omitempty"`

	// capabilities lists the modalities and features this provider supports:
	// text, streaming, vision, tools, json, audio, video, documents, duplex.
	// AgentRuntime providers[].requiredCapabilities are matched against it.
	// +optional
	Capabilities []ProviderCapability `json:"capabilities,omitempty"`

	// defaults are tuning parameters applied to all requests using this
	// provider.
	// +kubebuilder:default={}
	// +optional
	Defaults *ProviderDefaults `json:"defaults,omitempty"`

	// pricing is custom pricing for cost tracking. Unset uses PromptKit's
	// built-in pricing.
	// +optional
	Pricing *ProviderPricing `json:"pricing,omitempty"`

	// embedding is the embedding-role block; only allowed when role is
	// embedding.
	// +optional
	Embedding *ProviderEmbedding `json:"embedding,omitempty"`

	// stt is the stt-role block, read for cascaded voice calls.
	// +optional
	STT *ProviderSTT `json:"stt,omitempty"`

	// tts is the tts-role block, read for cascaded voice calls.
	// +optional
	TTS *ProviderTTS `json:"tts,omitempty"`
}

// ProviderPhase is a Provider's lifecycle phase.
// +kubebuilder:validation:Enum=Ready;Error;Unavailable
type ProviderPhase string

const (
	// ProviderPhaseReady means the provider is usable: credentials are valid
	// and a model is set.
	ProviderPhaseReady ProviderPhase = "Ready"
	// ProviderPhaseError means a configuration error, invalid credentials or a
	// missing model.
	ProviderPhaseError ProviderPhase = "Error"
	// ProviderPhaseUnavailable means the endpoint health check has failed for
	// more than 5 minutes.
	ProviderPhaseUnavailable ProviderPhase = "Unavailable"
)

// ProviderStatus is the observed state of a Provider.
type ProviderStatus struct {
	// phase is Ready (usable), Error (configuration error, invalid credentials
	// or missing model) or Unavailable (endpoint unreachable for more than 5
	// minutes).
	// +optional
	Phase ProviderPhase `json:"phase,omitempty"`

	// observedGeneration is the last generation the controller observed.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`

	// conditions describe the provider's state: Ready, SecretFound,
	// CredentialConfigured, CredentialValid, EndpointReachable,
	// AuthConfigured and ModelValid.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// Provider is a reusable model provider configuration (wire protocol, model,
// credential, hosting and tuning) referenced by AgentRuntimes in its namespace.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=prov,categories=omnia
// +kubebuilder:printcolumn:name="TYPE",type=string,JSONPath=`.spec.type`
// +kubebuilder:printcolumn:name="ROLE",type=string,JSONPath=`.spec.role`
// +kubebuilder:printcolumn:name="MODEL",type=string,JSONPath=`.spec.model`
// +kubebuilder:printcolumn:name="PHASE",type=string,JSONPath=`.status.phase`
// +kubebuilder:printcolumn:name="AGE",type=date,JSONPath=`.metadata.creationTimestamp`
type Provider struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec is the provider configuration.
	// +required
	Spec ProviderSpec `json:"spec"`

	// status is the provider's observed state.
	// +optional
	Status ProviderStatus `json:"status,omitempty"`
}

// ProviderList is a list of Providers.
// +kubebuilder:object:root=true
type ProviderList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Provider `json:"items"`
}

func init() {
	SchemeBuilder.Register(&Provider{}, &ProviderList{})
}
