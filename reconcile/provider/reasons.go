package provider

import "github.com/altairalabs/omnia/rules"

// Condition types of a Provider (provider.md#conditions). The ones a rule
// reports carry the rule's constant, so a finding's Condition and the
// condition the controller sets are the same string.
const (
	// ConditionReady is the roll-up of CredentialValid, CredentialConfigured
	// and ModelValid (and AuthConfigured on a platform-hosted provider), with
	// the endpoint grace described on ReasonEndpointProbeFailing.
	ConditionReady = "Ready"
	// ConditionSecretFound: the referenced Secret exists and holds a usable
	// key. Set only when spec.credential.secretRef is.
	ConditionSecretFound = rules.ProviderConditionSecretFound
	// ConditionCredentialConfigured: the credential source is configured and
	// usable. Set only when spec.credential is.
	ConditionCredentialConfigured = rules.ProviderConditionCredentialConfigured
	// ConditionCredentialValid: the vendor's verdict on a secretRef
	// credential. Set only when spec.credential is.
	ConditionCredentialValid = "CredentialValid"
	// ConditionEndpointReachable: the health check of spec.baseURL or the
	// vendor's default endpoint. Not set for mock, platform-hosted providers,
	// the tts/stt/image roles, or a type with no endpoint to probe.
	ConditionEndpointReachable = "EndpointReachable"
	// ConditionAuthConfigured: the platform auth configuration is valid. Set
	// only on platform-hosted providers (spec.platform or spec.auth set).
	ConditionAuthConfigured = rules.ProviderConditionAuthConfigured
	// ConditionModelValid: spec.model is set where the type requires one.
	ConditionModelValid = rules.ProviderConditionModelValid
)

// conditionTypes are every condition type the controller sets: a policy
// rule naming one reports to PolicyCompliant instead (policycheck).
var conditionTypes = []string{ConditionReady, ConditionSecretFound, ConditionCredentialConfigured,
	ConditionCredentialValid, ConditionEndpointReachable, ConditionAuthConfigured, ConditionModelValid}

// Reasons. The spec's strings are used exactly; reasons the spec does not
// name (mostly those of True conditions) are the controller's and are marked
// so.
const (
	// ReasonProviderReady (Ready=True, not named by the spec): every
	// condition the roll-up checks holds and the endpoint answers.
	ReasonProviderReady = "ProviderReady"
	// ReasonEndpointProbeFailing (Ready=True, spec): the endpoint health
	// check is failing but has not yet failed for longer than the grace
	// (5 minutes by default); the message names the failure and when it
	// began.
	ReasonEndpointProbeFailing = "EndpointProbeFailing"
	// ReasonInvalidSpec (Ready=False, not named by the spec): a rule that
	// names no condition of its own found a problem in the spec (e.g. a
	// malformed spec.defaults duration that got in with the webhook off). A
	// rule's own reason is used when it has one.
	ReasonInvalidSpec = "InvalidSpec"

	// ReasonSecretKeyFound (SecretFound=True, not named by the spec): the
	// Secret exists and holds the key rules.ProviderSecretKey chose; the
	// message names it.
	ReasonSecretKeyFound = "SecretKeyFound"
	// ReasonSecretNotFound (SecretFound=False, rule provider/secret-found).
	ReasonSecretNotFound = rules.ProviderReasonSecretNotFound
	// ReasonSecretKeyMissing (SecretFound=False, rule provider/secret-key-found).
	ReasonSecretKeyMissing = rules.ProviderReasonSecretKeyMissing

	// ReasonSecretRefConfigured (CredentialConfigured=True, not named by the
	// spec): a secretRef credential whose Secret holds a usable,
	// non-placeholder value; the message names the key.
	ReasonSecretRefConfigured = "SecretRefConfigured"
	// ReasonEnvVarConfigured (CredentialConfigured=True, spec).
	ReasonEnvVarConfigured = "EnvVarConfigured"
	// ReasonFilePathConfigured (CredentialConfigured=True, spec).
	ReasonFilePathConfigured = "FilePathConfigured"
	// ReasonPlaceholderCredential (CredentialConfigured=False, spec): the
	// Secret's value matches one of rules.ProviderPlaceholderPatterns.
	ReasonPlaceholderCredential = rules.ProviderReasonPlaceholderCredential
	// ReasonInvalidEnvVar (CredentialConfigured=False, rule
	// provider/credential-env-var-name).
	ReasonInvalidEnvVar = rules.ProviderReasonInvalidEnvVar
	// ReasonInvalidFilePath (CredentialConfigured=False, rule
	// provider/credential-file-path).
	ReasonInvalidFilePath = rules.ProviderReasonInvalidFilePath
	// CredentialConfigured is also False with ReasonSecretNotFound or
	// ReasonSecretKeyMissing, copied from SecretFound: a credential whose
	// Secret cannot be read is not configured.

	// ReasonCredentialAccepted (CredentialValid=True, spec): the vendor
	// answered the probe with a 2xx status.
	ReasonCredentialAccepted = "CredentialAccepted"
	// ReasonCredentialRejected (CredentialValid=False, spec): the vendor
	// answered 401 or 403.
	ReasonCredentialRejected = "CredentialRejected"
	// ReasonCredentialValidationError (CredentialValid=Unknown, spec): the
	// probe failed transiently (no response, a timeout, or a status other
	// than 2xx, 401 and 403); it is retried on the next health interval.
	ReasonCredentialValidationError = "CredentialValidationError"
	// ReasonValidationNotSupported (CredentialValid=Unknown, spec): an envVar
	// or filePath credential (the operator cannot see the consuming pod), a
	// type with no vendor probe (see ProbeFor), or a platform-hosted
	// provider.
	ReasonValidationNotSupported = "ValidationNotSupported"
	// ReasonCredentialProbeDisabled (CredentialValid=Unknown, not named by
	// the spec): the operator runs with --credential-probe=off, so no
	// credential is sent to any vendor (Egress.Off).
	ReasonCredentialProbeDisabled = "CredentialProbeDisabled"
	// ReasonCredentialProbeInsecure (CredentialValid=Unknown, not named by
	// the spec): the URL the credential would go to (spec.baseURL) is not
	// https; a credential is never sent in clear text, so no request is made.
	// EndpointReachable is Unknown with the same reason (see Egress).
	ReasonCredentialProbeInsecure = "CredentialProbeInsecure"
	// ReasonCredentialProbeHostNotAllowed (CredentialValid=Unknown, not named
	// by the spec): spec.baseURL's host is neither the vendor's default host
	// for the type nor one the operator allows with --credential-probe-hosts,
	// so no request is made. EndpointReachable is Unknown with the same
	// reason (see Egress).
	ReasonCredentialProbeHostNotAllowed = "CredentialProbeHostNotAllowed"

	// ReasonProbePending (CredentialValid=Unknown and
	// EndpointReachable=Unknown, not named by the spec): the probe runs
	// asynchronously and has no result yet for the current spec and Secret
	// (a new Provider, an edited one, or a probe queued behind others); the
	// condition is set from the result when it arrives. It does not change
	// Ready.
	ReasonProbePending = "ProbePending"

	// ReasonEndpointResponded (EndpointReachable=True, not named by the
	// spec): the endpoint answered with an HTTP response, whatever its
	// status.
	ReasonEndpointResponded = "EndpointResponded"
	// ReasonConnectionFailed (EndpointReachable=False, not named by the
	// spec): the connection was refused, reset or closed before a response,
	// or TLS failed.
	ReasonConnectionFailed = "ConnectionFailed"
	// ReasonDNSLookupFailed (EndpointReachable=False, not named by the spec):
	// the endpoint's host name did not resolve.
	ReasonDNSLookupFailed = "DNSLookupFailed"
	// ReasonProbeTimeout (EndpointReachable=False, not named by the spec): no
	// response within the probe timeout.
	ReasonProbeTimeout = "ProbeTimeout"
	// ReasonInvalidEndpoint (EndpointReachable=False, not named by the spec):
	// spec.baseURL is not an absolute http(s) URL.
	ReasonInvalidEndpoint = "InvalidEndpoint"
	// ReasonAddressNotAllowed (EndpointReachable=False, not named by the
	// spec): the endpoint's host resolved to a link-local or cloud-metadata
	// address, which the operator never dials (package netguard); no packet
	// was sent.
	ReasonAddressNotAllowed = "AddressNotAllowed"
	// ReasonEndpointProbeDisabled (EndpointReachable=Unknown, not named by
	// the spec): the operator runs with --credential-probe=off, which turns
	// vendor egress off entirely, the health check included (Egress.Off).
	ReasonEndpointProbeDisabled = "EndpointProbeDisabled"
	// EndpointReachable is also Unknown with ReasonCredentialProbeInsecure or
	// ReasonCredentialProbeHostNotAllowed, copied from CredentialValid: a
	// Provider whose credential may not go to its URL makes no request there.

	// ReasonPlatformAuthConfigured (AuthConfigured=True, not named by the
	// spec): spec.platform and spec.auth are set and no rule objects.
	ReasonPlatformAuthConfigured = "PlatformAuthConfigured"
	// ReasonInvalidAuth (AuthConfigured=False, not named by the spec): the
	// fallback when a rule about spec.platform or spec.auth names no reason.
	ReasonInvalidAuth = "InvalidAuth"

	// ReasonModelSet (ModelValid=True, not named by the spec): spec.model is
	// set.
	ReasonModelSet = "ModelSet"
	// ReasonModelNotRequired (ModelValid=True, not named by the spec): a mock
	// provider without a model.
	ReasonModelNotRequired = "ModelNotRequired"
	// ReasonModelMissing (ModelValid=False, spec, rule
	// provider/model-required).
	ReasonModelMissing = rules.ProviderReasonModelMissing
)
