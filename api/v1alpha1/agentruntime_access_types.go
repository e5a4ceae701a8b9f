package v1alpha1

import (
	"k8s.io/apimachinery/pkg/runtime"
)

// AgentRuntimeExternalAuth configures the validators of the facades'
// external (data-plane) listeners. They run in the order clientKeys, oidc,
// edgeTrust; with none set the external listener answers 401 to every request.
type AgentRuntimeExternalAuth struct {
	// clientKeys enables per-caller client keys (Secrets in the agent's
	// namespace); an empty object enables the validator.
	// +optional
	ClientKeys *AgentRuntimeClientKeys `json:"clientKeys,omitempty"`

	// oidc verifies RS256 JWTs from your identity provider.
	// +optional
	OIDC *AgentRuntimeOIDC `json:"oidc,omitempty"`

	// edgeTrust trusts claim headers an upstream edge has already verified.
	// +optional
	EdgeTrust *AgentRuntimeEdgeTrust `json:"edgeTrust,omitempty"`
}

// AgentRuntimeClientKeys configures the client-key validator.
type AgentRuntimeClientKeys struct {
	// defaultRole is the role claim for a key whose Secret carries no
	// scopes. Any string is valid. Defaults to viewer.
	// +kubebuilder:default=viewer
	// +optional
	DefaultRole string `json:"defaultRole,omitempty"`

	// trustEndUserHeader takes the end user from the X-End-User-Id request
	// header; when false the end user is the key's own identity. Defaults to false.
	// +kubebuilder:default=false
	// +optional
	TrustEndUserHeader bool `json:"trustEndUserHeader"`
}

// AgentRuntimeOIDC configures the OIDC JWT validator.
type AgentRuntimeOIDC struct {
	// issuer must equal the token's iss claim exactly; the controller
	// fetches {issuer}/.well-known/openid-configuration (trailing slashes trimmed).
	// +required
	Issuer string `json:"issuer"`

	// audience is the expected aud claim.
	// +required
	Audience string `json:"audience"`

	// claimMapping names the claims read as subject and end user.
	// +kubebuilder:default={}
	// +optional
	ClaimMapping *AgentRuntimeOIDCClaimMapping `json:"claimMapping,omitempty"`

	// sessionClaim binds a token to one conversation: a token without the
	// claim is rejected (401 missing_session_claim) and can resume only a
	// session bound to the same value.
	// +optional
	SessionClaim string `json:"sessionClaim,omitempty"`
}

// AgentRuntimeOIDCClaimMapping names the token claims Omnia reads.
type AgentRuntimeOIDCClaimMapping struct {
	// subject is the claim used as the caller's subject. Defaults to sub.
	// +kubebuilder:default=sub
	// +optional
	Subject string `json:"subject,omitempty"`

	// endUser is the claim used as the end user, falling back to the
	// subject when absent. Defaults to sub.
	// +kubebuilder:default=sub
	// +optional
	EndUser string `json:"endUser,omitempty"`
}

// AgentRuntimeEdgeTrust configures trust of edge-verified claim headers.
type AgentRuntimeEdgeTrust struct {
	// headerMapping names the headers read as subject, end user and email.
	// +kubebuilder:default={}
	// +optional
	HeaderMapping *AgentRuntimeEdgeTrustHeaderMapping `json:"headerMapping,omitempty"`

	// claimsFromHeaders maps an inbound header name (case-insensitive) to the
	// claim name it is exposed as.
	// +optional
	ClaimsFromHeaders map[string]string `json:"claimsFromHeaders,omitempty"`
}

// AgentRuntimeEdgeTrustHeaderMapping names the edge headers Omnia reads.
type AgentRuntimeEdgeTrustHeaderMapping struct {
	// subject is the header read as the subject; a request is admitted
	// only when it is present. Defaults to x-user-id.
	// +kubebuilder:default=x-user-id
	// +optional
	Subject string `json:"subject,omitempty"`

	// endUser is the header read as the end user, falling back to the
	// subject. Defaults to x-user-id.
	// +kubebuilder:default=x-user-id
	// +optional
	EndUser string `json:"endUser,omitempty"`

	// email is the header read into the email claim. Defaults to x-user-email.
	// +kubebuilder:default=x-user-email
	// +optional
	Email string `json:"email,omitempty"`
}

// AgentRuntimeConsole holds dashboard console settings.
type AgentRuntimeConsole struct {
	// allowedAttachmentTypes are the MIME types the console accepts as
	// attachments. Unset uses the dashboard's built-in list.
	// +optional
	AllowedAttachmentTypes []string `json:"allowedAttachmentTypes,omitempty"`

	// allowedExtensions are the file extensions the console accepts.
	// +optional
	AllowedExtensions []string `json:"allowedExtensions,omitempty"`

	// maxFileSize is the largest attachment in bytes on the wire (after
	// base64). Defaults to 10485760.
	// +kubebuilder:default=10485760
	// +optional
	MaxFileSize *int64 `json:"maxFileSize,omitempty"`

	// maxFiles is the most attachments per message, 1 to 20. Defaults to 5.
	// +kubebuilder:default=5
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=20
	// +optional
	MaxFiles *int32 `json:"maxFiles,omitempty"`

	// mediaRequirements describes the media the agent expects, for the
	// console to check attachments against.
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:Schemaless
	// +kubebuilder:validation:Type=object
	// +optional
	MediaRequirements *runtime.RawExtension `json:"mediaRequirements,omitempty"`
}

// AgentRuntimeDuplexMode selects how realtime voice is served.
// +kubebuilder:validation:Enum=realtime;cascaded
type AgentRuntimeDuplexMode string

// AgentRuntimeDuplex configures realtime voice.
type AgentRuntimeDuplex struct {
	// enabled renders the dashboard's voice call console and makes the agent
	// require the duplex_audio and interruption runtime capabilities.
	// +optional
	Enabled bool `json:"enabled,omitempty"`

	// audio is the audio format the runtime counter-offers in RuntimeHello.
	// +optional
	Audio *AgentRuntimeDuplexAudio `json:"audio,omitempty"`

	// mode is realtime (audio streams to the model) or cascaded (audio runs
	// through the agent's stt and tts providers). Unset selects cascaded
	// when the default provider cannot stream audio and both speech
	// providers are usable, realtime otherwise.
	// +optional
	Mode AgentRuntimeDuplexMode `json:"mode,omitempty"`
}

// AgentRuntimeDuplexAudio is the audio format of a duplex session.
type AgentRuntimeDuplexAudio struct {
	// recommendedSampleRate is the sample rate in Hz.
	// +optional
	RecommendedSampleRate *int32 `json:"recommendedSampleRate,omitempty"`
	// channels is the number of audio channels.
	// +optional
	Channels *int32 `json:"channels,omitempty"`
	// format is the audio encoding.
	// +optional
	Format string `json:"format,omitempty"`
	// chunkDurationMs is the duration of one audio chunk in milliseconds.
	// +optional
	ChunkDurationMs *int32 `json:"chunkDurationMs,omitempty"`
}
