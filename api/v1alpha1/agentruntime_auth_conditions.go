package v1alpha1

// The AgentRuntime conditions ExternalAuth and OIDCJWKSReady and their
// reasons (agentruntime.md § externalAuth, § facades[].managementPlane,
// #conditions). The spec names neither condition's reasons, so these are
// the operator's own.

const (
	// AgentRuntimeConditionExternalAuth: the facades' effective external
	// authentication: which validators their external listeners run; False when
	// a facade can accept no callers.
	AgentRuntimeConditionExternalAuth = "ExternalAuth"
	// AgentRuntimeReasonExternalAuthConfigured (ExternalAuth=True, not named by
	// the spec): the facades' external listeners run the validators the message
	// lists, in the order clientKeys, oidc, edgeTrust.
	AgentRuntimeReasonExternalAuthConfigured = "ExternalAuthConfigured"
	// AgentRuntimeReasonManagementPlaneOnly (ExternalAuth=True, not named by the
	// spec): no externalAuth validator is configured, so every external listener
	// answers 401, and callers reach the agent only over the management plane,
	// which every facade keeps.
	AgentRuntimeReasonManagementPlaneOnly = "ManagementPlaneOnly"
	// AgentRuntimeReasonNoCallersAccepted (ExternalAuth=False, not named by the
	// spec): a facade has managementPlane: false and no data-plane validator is
	// configured, so it can accept no callers at all (rule
	// agentruntime/facade-accepts-callers).
	AgentRuntimeReasonNoCallersAccepted = "NoCallersAccepted"
)

const (
	// AgentRuntimeConditionOIDCJWKSReady: the OIDC issuer's JWKS is mirrored
	// into the Secret agent-<agent>-oidc-jwks, from which the facade validates
	// tokens. Present only while externalAuth.oidc is set.
	AgentRuntimeConditionOIDCJWKSReady = "OIDCJWKSReady"
	// AgentRuntimeReasonJWKSMirrored (OIDCJWKSReady=True, not named by the
	// spec): the issuer's JWKS is mirrored into the Secret
	// agent-<agent>-oidc-jwks and was fetched at the last refresh.
	AgentRuntimeReasonJWKSMirrored = "JWKSMirrored"
	// AgentRuntimeReasonJWKSStale (OIDCJWKSReady=True, not named by the spec):
	// the last refresh failed (the message names the URL and the error class)
	// and the Secret keeps the last good JWKS, which the facade goes on using.
	AgentRuntimeReasonJWKSStale = "JWKSStale"
	// AgentRuntimeReasonJWKSPending (OIDCJWKSReady=False, not named by the
	// spec): the JWKS has not been fetched yet (the fetch is queued or running
	// in the background).
	AgentRuntimeReasonJWKSPending = "JWKSPending"
	// AgentRuntimeReasonJWKSFetchFailed (OIDCJWKSReady=False, not named by the
	// spec): the discovery document or the JWKS could not be fetched and no JWKS
	// was ever mirrored; the message names the URL and the error class, never a
	// response body.
	AgentRuntimeReasonJWKSFetchFailed = "JWKSFetchFailed"
	// AgentRuntimeReasonJWKSInvalid (OIDCJWKSReady=False, not named by the
	// spec): the issuer answered with a document that is not a usable JWKS (no
	// keys array, no key, too many keys, a key without kty, private key
	// material) and no JWKS was ever mirrored.
	AgentRuntimeReasonJWKSInvalid = "JWKSInvalid"
	// AgentRuntimeReasonIssuerNotHTTPS (OIDCJWKSReady=False, not named by the
	// spec): the issuer or the discovery document's jwks_uri is not an https
	// URL; nothing is fetched from it.
	AgentRuntimeReasonIssuerNotHTTPS = "IssuerNotHTTPS"
)
