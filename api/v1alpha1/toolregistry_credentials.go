package v1alpha1

// A Secret a ToolRegistry handler reads its credential from
// (auth.secretRef, the deprecated authSecretRef, httpConfig.headersFromSecret)
// must opt in with this label: the operator copies the value into the
// agent's <agentruntime>-tool-secrets with its own read access, for the
// author of a ToolRegistry who may not read that Secret, and the runtime that
// receives it runs the tenant's image. Without the opt-in any Secret of the
// namespace (a database password) could be handed to a tool backend of the
// author's choosing. The value mirrors ArenaProjectGitCredentialsValue.
const (
	ToolCredentialsLabel = "omnia.altairalabs.ai/secret-type"
	ToolCredentialsValue = "tool-credentials"
)
