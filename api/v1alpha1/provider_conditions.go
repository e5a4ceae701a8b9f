package v1alpha1

// The conditions a Provider's status carries (provider.md#conditions) and
// their reasons: one const block per condition type, its reasons after it
// (hack/conditionsdoc generates docs/conditions.md from this file). The
// spec's strings are used exactly; a reason the spec does not name (mostly
// those of True conditions) is the controller's and its comment says so.
// The rules that report a condition use these constants, so a finding's
// condition and the condition the controller sets are the same string.

const (
	// ProviderConditionReady is the roll-up of CredentialValid, CredentialConfigured
	// and ModelValid (and AuthConfigured on a platform-hosted provider), with
	// the endpoint grace described on ProviderReasonEndpointProbeFailing.
	ProviderConditionReady = "Ready"
	// ProviderReasonProviderReady (Ready=True, not named by the spec): every
	// condition the roll-up checks holds and the endpoint answers.
	ProviderReasonProviderReady = "ProviderReady"
	// ProviderReasonEndpointProbeFailing (Ready=True, spec): the endpoint health
	// check is failing but has not yet failed for longer than the grace
	// (5 minutes by default); the message names the failure and when it
	// began.
	ProviderReasonEndpointProbeFailing = "EndpointProbeFailing"
	// ProviderReasonInvalidSpec (Ready=False, not named by the spec): a rule that
	// names no condition of its own found a problem in the spec (e.g. a
	// malformed spec.defaults duration that got in with the webhook off). A
	// rule's own reason is used when it has one.
	ProviderReasonInvalidSpec = "InvalidSpec"
)

const (
	// ProviderConditionSecretFound: the referenced Secret exists and holds a usable
	// key. Set only when spec.credential.secretRef is.
	ProviderConditionSecretFound = "SecretFound"
	// ProviderReasonSecretKeyFound (SecretFound=True, not named by the spec): the
	// Secret exists and holds the key rules.ProviderSecretKey chose; the
	// message names it.
	ProviderReasonSecretKeyFound = "SecretKeyFound"
)

const (
	// ProviderConditionCredentialConfigured: the credential source is configured and
	// usable. Set only when spec.credential is.
	//
	// CredentialConfigured is also False with ProviderReasonSecretNotFound or
	// ProviderReasonSecretKeyMissing, copied from SecretFound: a credential whose
	// Secret cannot be read is not configured.
	ProviderConditionCredentialConfigured = "CredentialConfigured"
	// ProviderReasonSecretRefConfigured (CredentialConfigured=True, not named by the
	// spec): a secretRef credential whose Secret holds a usable,
	// non-placeholder value; the message names the key.
	ProviderReasonSecretRefConfigured = "SecretRefConfigured"
	// ProviderReasonEnvVarConfigured (CredentialConfigured=True, spec).
	ProviderReasonEnvVarConfigured = "EnvVarConfigured"
	// ProviderReasonFilePathConfigured (CredentialConfigured=True, spec).
	ProviderReasonFilePathConfigured = "FilePathConfigured"
	// ProviderReasonPlaceholderCredential (CredentialConfigured=False, spec): the
	// Secret's value matches one of rules.ProviderPlaceholderPatterns.
	ProviderReasonPlaceholderCredential = "PlaceholderCredential"
	// ProviderReasonInvalidEnvVar (CredentialConfigured=False, rule
	// provider/credential-env-var-name).
	ProviderReasonInvalidEnvVar = "InvalidEnvVar"
	// ProviderReasonInvalidFilePath (CredentialConfigured=False, rule
	// provider/credential-file-path).
	ProviderReasonInvalidFilePath = "InvalidFilePath"
	// ProviderReasonCredentialMissing: the type needs a credential and
	// spec.credential is unset.
	ProviderReasonCredentialMissing = "CredentialMissing"
)

const (
	// ProviderConditionCredentialValid: the vendor's verdict on a secretRef
	// credential. Set only when spec.credential is.
	ProviderConditionCredentialValid = "CredentialValid"
	// ProviderReasonCredentialAccepted (CredentialValid=True, spec): the vendor
	// answered the probe with a 2xx status.
	ProviderReasonCredentialAccepted = "CredentialAccepted"
	// ProviderReasonCredentialRejected (CredentialValid=False, spec): the vendor
	// answered 401 or 403.
	ProviderReasonCredentialRejected = "CredentialRejected"
	// ProviderReasonCredentialValidationError (CredentialValid=Unknown, spec): the
	// probe failed transiently (no response, a timeout, or a status other
	// than 2xx, 401 and 403); it is retried on the next health interval.
	ProviderReasonCredentialValidationError = "CredentialValidationError"
	// ProviderReasonValidationNotSupported (CredentialValid=Unknown, spec): an envVar
	// or filePath credential (the operator cannot see the consuming pod), a
	// type with no vendor probe (see ProbeFor), or a platform-hosted
	// provider.
	ProviderReasonValidationNotSupported = "ValidationNotSupported"
	// ProviderReasonCredentialProbeDisabled (CredentialValid=Unknown, not named by
	// the spec): the operator runs with --credential-probe=off, so no
	// credential is sent to any vendor (Egress.Off).
	ProviderReasonCredentialProbeDisabled = "CredentialProbeDisabled"
	// ProviderReasonCredentialProbeInsecure (CredentialValid=Unknown, not named by
	// the spec): the URL the credential would go to (spec.baseURL) is not
	// https; a credential is never sent in clear text, so no request is made.
	// EndpointReachable is Unknown with the same reason (see Egress).
	ProviderReasonCredentialProbeInsecure = "CredentialProbeInsecure"
	// ProviderReasonCredentialProbeHostNotAllowed (CredentialValid=Unknown, not named
	// by the spec): spec.baseURL's host is neither the vendor's default host
	// for the type nor one the operator allows with --credential-probe-hosts,
	// so no request is made. EndpointReachable is Unknown with the same
	// reason (see Egress).
	ProviderReasonCredentialProbeHostNotAllowed = "CredentialProbeHostNotAllowed"
)

const (
	// ProviderConditionEndpointReachable: the health check of spec.baseURL or the
	// vendor's default endpoint. Not set for mock, platform-hosted providers,
	// the tts/stt/image roles, or a type with no endpoint to probe.
	//
	// EndpointReachable is also Unknown with ProviderReasonCredentialProbeInsecure
	// or ProviderReasonCredentialProbeHostNotAllowed, copied from CredentialValid: a
	// Provider whose credential may not go to its URL makes no request there.
	ProviderConditionEndpointReachable = "EndpointReachable"
	// ProviderReasonEndpointResponded (EndpointReachable=True, not named by the
	// spec): the endpoint answered with an HTTP response, whatever its
	// status.
	ProviderReasonEndpointResponded = "EndpointResponded"
	// ProviderReasonConnectionFailed (EndpointReachable=False, not named by the
	// spec): the connection was refused, reset or closed before a response,
	// or TLS failed.
	ProviderReasonConnectionFailed = "ConnectionFailed"
	// ProviderReasonDNSLookupFailed (EndpointReachable=False, not named by the spec):
	// the endpoint's host name did not resolve.
	ProviderReasonDNSLookupFailed = "DNSLookupFailed"
	// ProviderReasonProbeTimeout (EndpointReachable=False, not named by the spec): no
	// response within the probe timeout.
	ProviderReasonProbeTimeout = "ProbeTimeout"
	// ProviderReasonInvalidEndpoint (EndpointReachable=False, not named by the spec):
	// spec.baseURL is not an absolute http(s) URL.
	ProviderReasonInvalidEndpoint = "InvalidEndpoint"
	// ProviderReasonAddressNotAllowed (EndpointReachable=False, not named by the
	// spec): the endpoint's host resolved to a link-local or cloud-metadata
	// address, which the operator never dials (package netguard); no packet
	// was sent.
	ProviderReasonAddressNotAllowed = "AddressNotAllowed"
	// ProviderReasonEndpointProbeDisabled (EndpointReachable=Unknown, not named by
	// the spec): the operator runs with --credential-probe=off, which turns
	// vendor egress off entirely, the health check included (Egress.Off).
	ProviderReasonEndpointProbeDisabled = "EndpointProbeDisabled"
)

const (
	// ProviderConditionAuthConfigured: the platform auth configuration is valid. Set
	// only on platform-hosted providers (spec.platform or spec.auth set).
	ProviderConditionAuthConfigured = "AuthConfigured"
	// ProviderReasonPlatformAuthConfigured (AuthConfigured=True, not named by the
	// spec): spec.platform and spec.auth are set and no rule objects.
	ProviderReasonPlatformAuthConfigured = "PlatformAuthConfigured"
	// ProviderReasonInvalidAuth (AuthConfigured=False, not named by the spec): the
	// fallback when a rule about spec.platform or spec.auth names no reason.
	ProviderReasonInvalidAuth = "InvalidAuth"
)

const (
	// ProviderConditionModelValid: spec.model is set where the type requires one.
	ProviderConditionModelValid = "ModelValid"
	// ProviderReasonModelSet (ModelValid=True, not named by the spec): spec.model is
	// set.
	ProviderReasonModelSet = "ModelSet"
	// ProviderReasonModelNotRequired (ModelValid=True, not named by the spec): a mock
	// provider without a model.
	ProviderReasonModelNotRequired = "ModelNotRequired"
	// ProviderReasonModelMissing (ModelValid=False, spec, rule
	// provider/model-required).
	ProviderReasonModelMissing = "ModelMissing"
)

const (
	// ProviderReasonProbePending (CredentialValid=Unknown and
	// EndpointReachable=Unknown, not named by the spec): the probe runs
	// asynchronously and has no result yet for the current spec and Secret
	// (a new Provider, an edited one, or a probe queued behind others); the
	// condition is set from the result when it arrives. It does not change
	// Ready.
	ProviderReasonProbePending = "ProbePending"
)

// Reasons of both SecretFound and AuthConfigured (the Secret of
// spec.credential.secretRef and that of the platform auth), which
// CredentialConfigured copies from SecretFound.
const (
	// ProviderReasonSecretNotFound: the Secret named by
	// credential.secretRef does not exist.
	ProviderReasonSecretNotFound = "SecretNotFound"
	// ProviderReasonSecretKeyMissing: the Secret exists but holds no usable
	// key (the explicit key, or none of the type's auto-detected keys).
	ProviderReasonSecretKeyMissing = "SecretKeyMissing"
)
