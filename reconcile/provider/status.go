package provider

import (
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/conditions"
	"github.com/altairalabs/omnia/reconcile/policycheck"
	"github.com/altairalabs/omnia/rules"
)

// observation is everything a Provider's status is computed from: the rule
// findings and what the controller saw outside the rules (the key chosen by
// rules.ProviderSecretKey, whether its value is a placeholder, the probe
// outcomes). It never holds the credential value.
type observation struct {
	// findings are every rule finding on the Provider (rules.Full: schema and
	// Go rules, admission and reconcile stages).
	findings []rules.Finding
	// policy is the verdict of the policy rules in force (policycheck): it
	// sets policy conditions only, never Ready or the phase.
	policy policycheck.Verdict
	// secretKey is the key of the credential Secret that holds the
	// credential; empty when there is none.
	secretKey string
	// credential is the vendor probe's outcome; nil when not probed.
	credential *ProbeOutcome
	// endpoint is the health check's outcome; nil when the provider has no
	// endpoint to check or it has not been probed yet.
	endpoint *ProbeOutcome
	// credentialPending and endpointPending are set while the probe has no
	// result for the current inputs (see setPendingCondition).
	credentialPending, endpointPending bool
	// probeWait is when a probe is next due (or its backoff ends); 0 when
	// none is scheduled.
	probeWait time.Duration
}

// waitAtMost lowers probeWait to d when d is positive and sooner.
func (o *observation) waitAtMost(d time.Duration) {
	if d > 0 && (o.probeWait == 0 || d < o.probeWait) {
		o.probeWait = d
	}
}

// findingGroups are the findings sorted by the condition they set.
type findingGroups struct {
	secretFound, credentialConfigured, modelValid, authConfigured []rules.Finding
	// other are findings of rules that name no Provider condition: they make
	// Ready False (phase Error) directly.
	other []rules.Finding
}

// groupFindings sorts findings by their rule's Condition. A finding whose rule
// names no condition goes to AuthConfigured when it is about spec.platform or
// spec.auth (the CRD's platform and auth rules, reported on an object stored
// before them), and to Ready otherwise — unless it is only a warning, which
// sets no condition.
func groupFindings(findings []rules.Finding) findingGroups {
	var g findingGroups
	for _, f := range findings {
		switch f.Condition {
		case v1alpha1.ProviderConditionSecretFound:
			g.secretFound = append(g.secretFound, f)
		case v1alpha1.ProviderConditionCredentialConfigured:
			g.credentialConfigured = append(g.credentialConfigured, f)
		case v1alpha1.ProviderConditionModelValid:
			g.modelValid = append(g.modelValid, f)
		case v1alpha1.ProviderConditionAuthConfigured:
			g.authConfigured = append(g.authConfigured, f)
		case "":
			if f.Severity == rules.SeverityWarn {
				// An advisory (e.g. provider/base-url-plain-http): reported
				// at admission and by omniactl; it does not make the
				// Provider unusable, so no condition turns False for it.
				continue
			}
			if underField(f.Field, "spec.platform") || underField(f.Field, "spec.auth") {
				g.authConfigured = append(g.authConfigured, f)
			} else {
				g.other = append(g.other, f)
			}
		default:
			g.other = append(g.other, f)
		}
	}
	return g
}

func underField(field, prefix string) bool {
	return field == prefix || strings.HasPrefix(field, prefix+".") || strings.HasPrefix(field, prefix+"[")
}

// secretCredentialUsable reports whether a secretRef credential can be sent
// to the vendor: its Secret and key were found, no rule objects to it, and
// the value is not a placeholder. The controller probes only such a
// credential.
func secretCredentialUsable(p *v1alpha1.Provider, g findingGroups, secretKey string) bool {
	return secretRefOf(p) != nil && secretKey != "" && len(g.secretFound) == 0 &&
		len(g.credentialConfigured) == 0
}

func secretRefOf(p *v1alpha1.Provider) *v1alpha1.ProviderSecretKeyRef {
	if p.Spec.Credential == nil {
		return nil
	}
	return p.Spec.Credential.SecretRef
}

// computeStatus is the Provider's status from its observation, at now. It
// starts from the stored status so conditions keep their lastTransitionTime.
func computeStatus(p *v1alpha1.Provider, obs observation, now metav1.Time, grace time.Duration) v1alpha1.ProviderStatus {
	st := *p.Status.DeepCopy()
	g := groupFindings(obs.findings)
	gen := p.Generation
	setSecretFoundCondition(&st, p, g.secretFound, obs.secretKey, now)
	setCredentialConfiguredCondition(&st, p, g, obs.secretKey, now)
	if obs.credentialPending {
		setPendingCondition(&st, v1alpha1.ProviderConditionCredentialValid, gen, "the credential has not been probed yet: the vendor probe is queued", now)
	} else {
		setCredentialValidCondition(&st, p, secretCredentialUsable(p, g, obs.secretKey), obs.credential, now)
	}
	if obs.endpointPending {
		setPendingCondition(&st, v1alpha1.ProviderConditionEndpointReachable, gen, "the endpoint has not been probed yet: the health check is queued", now)
	} else {
		setEndpointReachableCondition(&st, gen, obs.endpoint, now)
	}
	setAuthConfiguredCondition(&st, p, g.authConfigured, now)
	setModelValidCondition(&st, p, g.modelValid, now)
	setReadyCondition(&st, gen, g.other, now, grace)
	setPhase(&st, gen, g.other, now, grace)
	// Policy conditions last, after Ready and the phase: they never feed them.
	obs.policy.Set(&st.Conditions, conditionTypes, gen, now)
	st.ObservedGeneration = gen
	return st
}

// setSecretFoundCondition: present only with a secretRef credential; False
// with the reason of the first provider/secret-found or
// provider/secret-key-found finding; True naming the key chosen.
func setSecretFoundCondition(st *v1alpha1.ProviderStatus, p *v1alpha1.Provider, findings []rules.Finding, key string, now metav1.Time) {
	ref := secretRefOf(p)
	if ref == nil {
		conditions.Remove(&st.Conditions, v1alpha1.ProviderConditionSecretFound)
		return
	}
	ok := fmt.Sprintf("Secret %q holds key %q", ref.Name, key)
	conditions.Set(&st.Conditions, conditions.FromFindings(v1alpha1.ProviderConditionSecretFound, findings, v1alpha1.ProviderReasonSecretKeyFound, ok, v1alpha1.ProviderReasonSecretNotFound, p.Generation), now)
}

// setCredentialConfiguredCondition: present only when spec.credential is set.
// False with the first finding about the credential source (InvalidEnvVar,
// InvalidFilePath), else the SecretFound findings (a credential whose Secret
// cannot be read is not configured), else PlaceholderCredential; True with
// the source's reason, the message naming the key found.
func setCredentialConfiguredCondition(st *v1alpha1.ProviderStatus, p *v1alpha1.Provider, g findingGroups, key string, now metav1.Time) {
	c := p.Spec.Credential
	if c == nil {
		// No credential: absent, unless the type needs one
		// (provider/credential-required).
		if len(g.credentialConfigured) == 0 {
			conditions.Remove(&st.Conditions, v1alpha1.ProviderConditionCredentialConfigured)
			return
		}
		conditions.Set(&st.Conditions, conditions.FromFindings(v1alpha1.ProviderConditionCredentialConfigured, g.credentialConfigured, "", "", v1alpha1.ProviderReasonInvalidSpec, p.Generation), now)
		return
	}
	findings := g.credentialConfigured
	if len(findings) == 0 {
		findings = g.secretFound
	}
	var cond metav1.Condition
	switch {
	case len(findings) > 0:
		cond = conditions.FromFindings(v1alpha1.ProviderConditionCredentialConfigured, findings, "", "", v1alpha1.ProviderReasonInvalidSpec, p.Generation)
	case c.SecretRef != nil:
		cond = trueCondition(v1alpha1.ProviderConditionCredentialConfigured, v1alpha1.ProviderReasonSecretRefConfigured,
			fmt.Sprintf("credential read from key %q of Secret %q", key, c.SecretRef.Name), p.Generation)
	case c.EnvVar != "":
		cond = trueCondition(v1alpha1.ProviderConditionCredentialConfigured, v1alpha1.ProviderReasonEnvVarConfigured,
			fmt.Sprintf("credential read from environment variable %s in the consuming pod", c.EnvVar), p.Generation)
	default:
		cond = trueCondition(v1alpha1.ProviderConditionCredentialConfigured, v1alpha1.ProviderReasonFilePathConfigured,
			fmt.Sprintf("credential read from file %s in the consuming pod", c.FilePath), p.Generation)
	}
	conditions.Set(&st.Conditions, cond, now)
}

// setCredentialValidCondition: present only when spec.credential is set.
// Unknown/ValidationNotSupported for envVar, filePath, a platform-hosted
// provider and a type with no vendor probe; for a secretRef credential
// Unknown with the egress policy's reason when it withheld the probe (see
// Egress), else the probe's verdict — True/CredentialAccepted on 2xx, False/CredentialRejected
// on 401 or 403, Unknown/CredentialValidationError otherwise. Absent while the
// secretRef credential is not usable (CredentialConfigured says why).
func setCredentialValidCondition(st *v1alpha1.ProviderStatus, p *v1alpha1.Provider, usable bool, outcome *ProbeOutcome, now metav1.Time) {
	c := p.Spec.Credential
	gen := p.Generation
	var cond metav1.Condition
	switch {
	case c == nil:
		conditions.Remove(&st.Conditions, v1alpha1.ProviderConditionCredentialValid)
		return
	case c.SecretRef == nil:
		cond = unknownCondition(v1alpha1.ProviderConditionCredentialValid, v1alpha1.ProviderReasonValidationNotSupported,
			"the operator cannot see the consuming pod's environment or files; the credential is read there at resolution", gen)
	case platformHosted(p):
		cond = unknownCondition(v1alpha1.ProviderConditionCredentialValid, v1alpha1.ProviderReasonValidationNotSupported,
			"a platform-hosted provider is not probed", gen)
	case !hasCredentialProbe(p.Spec.Type):
		cond = unknownCondition(v1alpha1.ProviderConditionCredentialValid, v1alpha1.ProviderReasonValidationNotSupported,
			fmt.Sprintf("there is no credential probe for type %s", p.Spec.Type), gen)
	case !usable || outcome == nil:
		conditions.Remove(&st.Conditions, v1alpha1.ProviderConditionCredentialValid)
		return
	case outcome.Withheld != "":
		cond = unknownCondition(v1alpha1.ProviderConditionCredentialValid, outcome.Withheld, outcome.Detail, gen)
	case outcome.StatusCode >= 200 && outcome.StatusCode < 300:
		cond = trueCondition(v1alpha1.ProviderConditionCredentialValid, v1alpha1.ProviderReasonCredentialAccepted, "the vendor accepted the credential: "+outcome.Detail, gen)
	case outcome.StatusCode == 401 || outcome.StatusCode == 403:
		cond = metav1.Condition{Type: v1alpha1.ProviderConditionCredentialValid, Status: metav1.ConditionFalse, Reason: v1alpha1.ProviderReasonCredentialRejected,
			Message: "the vendor rejected the credential: " + outcome.Detail, ObservedGeneration: gen}
	default:
		cond = unknownCondition(v1alpha1.ProviderConditionCredentialValid, v1alpha1.ProviderReasonCredentialValidationError,
			"the credential could not be validated (retried): "+outcome.Detail, gen)
	}
	conditions.Set(&st.Conditions, cond, now)
}

// setEndpointReachableCondition: absent when there is no endpoint to check;
// Unknown with the egress policy's reason when it withheld the check (see
// Egress); True/EndpointResponded on any HTTP response; False with the
// failure's reason otherwise. Its lastTransitionTime is when the failures began: the
// Ready grace is measured from it.
func setEndpointReachableCondition(st *v1alpha1.ProviderStatus, gen int64, outcome *ProbeOutcome, now metav1.Time) {
	if outcome == nil {
		conditions.Remove(&st.Conditions, v1alpha1.ProviderConditionEndpointReachable)
		return
	}
	var cond metav1.Condition
	switch {
	case outcome.Withheld != "":
		cond = unknownCondition(v1alpha1.ProviderConditionEndpointReachable, outcome.Withheld, outcome.Detail, gen)
	case outcome.StatusCode > 0:
		cond = trueCondition(v1alpha1.ProviderConditionEndpointReachable, v1alpha1.ProviderReasonEndpointResponded, outcome.Detail, gen)
	default:
		cond = metav1.Condition{Type: v1alpha1.ProviderConditionEndpointReachable, Status: metav1.ConditionFalse, Reason: outcome.Failure,
			Message: outcome.Detail, ObservedGeneration: gen}
	}
	conditions.Set(&st.Conditions, cond, now)
}

// setPendingCondition is a probed condition while its probe has no result
// for the current inputs: the condition as stored when it was set for this
// generation (so a restart, a leader change or a Secret edit does not turn a
// rejected credential or a failing endpoint Unknown, nor restart the
// endpoint grace), else Unknown/ProbePending.
func setPendingCondition(st *v1alpha1.ProviderStatus, condType string, gen int64, msg string, now metav1.Time) {
	if c := meta.FindStatusCondition(st.Conditions, condType); c != nil && c.ObservedGeneration == gen {
		return
	}
	conditions.Set(&st.Conditions, unknownCondition(condType, v1alpha1.ProviderReasonProbePending, msg, gen), now)
}

// setAuthConfiguredCondition: present only on a platform-hosted provider;
// False with the first finding about its platform or auth.
func setAuthConfiguredCondition(st *v1alpha1.ProviderStatus, p *v1alpha1.Provider, findings []rules.Finding, now metav1.Time) {
	if !platformHosted(p) {
		conditions.Remove(&st.Conditions, v1alpha1.ProviderConditionAuthConfigured)
		return
	}
	ok := "platform auth configured"
	if p.Spec.Platform != nil && p.Spec.Auth != nil {
		ok = fmt.Sprintf("auth %s on platform %s", p.Spec.Auth.Type, p.Spec.Platform.Type)
	}
	conditions.Set(&st.Conditions, conditions.FromFindings(v1alpha1.ProviderConditionAuthConfigured, findings, v1alpha1.ProviderReasonPlatformAuthConfigured, ok, v1alpha1.ProviderReasonInvalidAuth, p.Generation), now)
}

// setModelValidCondition: False/ModelMissing from provider/model-required,
// its message followed by model IDs for the type; True otherwise.
func setModelValidCondition(st *v1alpha1.ProviderStatus, p *v1alpha1.Provider, findings []rules.Finding, now metav1.Time) {
	reason, ok := v1alpha1.ProviderReasonModelSet, fmt.Sprintf("model %q", p.Spec.Model)
	if p.Spec.Model == "" {
		reason, ok = v1alpha1.ProviderReasonModelNotRequired, fmt.Sprintf("type %s needs no model", p.Spec.Type)
	}
	cond := conditions.FromFindings(v1alpha1.ProviderConditionModelValid, findings, reason, ok, v1alpha1.ProviderReasonModelMissing, p.Generation)
	if cond.Status == metav1.ConditionFalse {
		if s := ModelSuggestions(p); s != "" {
			cond.Message += "; set spec.model, e.g. " + s
		}
	}
	conditions.Set(&st.Conditions, cond, now)
}

// readyOrder are the conditions the Ready roll-up checks, in order: the
// spec's three, then AuthConfigured on a platform-hosted provider. A False
// one makes Ready False with its reason and the phase Error. Unknown does not
// (CredentialValid is Unknown for every envVar and filePath credential).
var readyOrder = []string{v1alpha1.ProviderConditionCredentialValid, v1alpha1.ProviderConditionCredentialConfigured, v1alpha1.ProviderConditionModelValid, v1alpha1.ProviderConditionAuthConfigured}

// readiness is the Ready condition and phase.
func readiness(st *v1alpha1.ProviderStatus, gen int64, other []rules.Finding, now metav1.Time, grace time.Duration) (metav1.Condition, v1alpha1.ProviderPhase) {
	for _, t := range readyOrder {
		if c := meta.FindStatusCondition(st.Conditions, t); c != nil && c.Status == metav1.ConditionFalse {
			return metav1.Condition{Type: v1alpha1.ProviderConditionReady, Status: metav1.ConditionFalse, Reason: c.Reason,
				Message: t + ": " + c.Message, ObservedGeneration: gen}, v1alpha1.ProviderPhaseError
		}
	}
	if len(other) > 0 {
		return conditions.FromFindings(v1alpha1.ProviderConditionReady, other, "", "", v1alpha1.ProviderReasonInvalidSpec, gen), v1alpha1.ProviderPhaseError
	}
	if e := meta.FindStatusCondition(st.Conditions, v1alpha1.ProviderConditionEndpointReachable); e != nil && e.Status == metav1.ConditionFalse {
		since := e.LastTransitionTime
		if now.Sub(since.Time) > grace {
			return metav1.Condition{Type: v1alpha1.ProviderConditionReady, Status: metav1.ConditionFalse, Reason: e.Reason,
				Message:            fmt.Sprintf("EndpointReachable: failing since %s, more than %s: %s", since.UTC().Format(time.RFC3339), grace, e.Message),
				ObservedGeneration: gen}, v1alpha1.ProviderPhaseUnavailable
		}
		return trueCondition(v1alpha1.ProviderConditionReady, v1alpha1.ProviderReasonEndpointProbeFailing,
			fmt.Sprintf("endpoint health check failing since %s (%s: %s); the provider becomes Unavailable after %s of failures",
				since.UTC().Format(time.RFC3339), e.Reason, e.Message, grace), gen), v1alpha1.ProviderPhaseReady
	}
	return trueCondition(v1alpha1.ProviderConditionReady, v1alpha1.ProviderReasonProviderReady, "the provider is usable", gen), v1alpha1.ProviderPhaseReady
}

// setReadyCondition: False with the first failing condition's reason
// (readyOrder), or with the findings of rules that name no condition; else,
// while EndpointReachable is False, True/EndpointProbeFailing for the grace
// period and False with the endpoint failure's reason after it; else
// True/ProviderReady. Set it after the conditions it rolls up.
func setReadyCondition(st *v1alpha1.ProviderStatus, gen int64, other []rules.Finding, now metav1.Time, grace time.Duration) {
	cond, _ := readiness(st, gen, other, now, grace)
	conditions.Set(&st.Conditions, cond, now)
}

// setPhase: Ready while Ready is True (including the endpoint grace), Error
// for a failing condition or finding, Unavailable once the endpoint has
// failed for longer than the grace.
func setPhase(st *v1alpha1.ProviderStatus, gen int64, other []rules.Finding, now metav1.Time, grace time.Duration) {
	_, st.Phase = readiness(st, gen, other, now, grace)
}

func hasCredentialProbe(t v1alpha1.ProviderType) bool {
	_, ok := CredentialProbes[t]
	return ok
}

func trueCondition(t, reason, msg string, gen int64) metav1.Condition {
	return metav1.Condition{Type: t, Status: metav1.ConditionTrue, Reason: reason, Message: msg, ObservedGeneration: gen}
}

func unknownCondition(t, reason, msg string, gen int64) metav1.Condition {
	return metav1.Condition{Type: t, Status: metav1.ConditionUnknown, Reason: reason, Message: msg, ObservedGeneration: gen}
}

// modelSuggestions are example model IDs per type (and role, where the type
// serves several), from the spec's model table where it has one.
var modelSuggestions = map[v1alpha1.ProviderType]map[v1alpha1.ProviderRole]string{
	v1alpha1.ProviderTypeClaude: {"": "claude-sonnet-4-20250514, claude-opus-4-20250514"},
	v1alpha1.ProviderTypeOpenAI: {
		"":                             "gpt-4o, gpt-4-turbo, gpt-3.5-turbo (on Azure: your deployment name)",
		v1alpha1.ProviderRoleEmbedding: "text-embedding-3-small, text-embedding-3-large",
		v1alpha1.ProviderRoleTTS:       "tts-1, gpt-4o-mini-tts",
		v1alpha1.ProviderRoleSTT:       "whisper-1, gpt-4o-transcribe",
	},
	v1alpha1.ProviderTypeGemini: {
		"":                             "gemini-pro, gemini-1.5-pro, gemini-1.5-flash",
		v1alpha1.ProviderRoleEmbedding: "text-embedding-004",
	},
	v1alpha1.ProviderTypeVLLM:        {"": "the model name the endpoint serves (e.g. llama3:8b)"},
	v1alpha1.ProviderTypeOllama:      {"": "the model name the endpoint serves (e.g. llama3:8b)"},
	v1alpha1.ProviderTypeVoyageAI:    {"": "voyage-3, voyage-3-lite", v1alpha1.ProviderRoleRerank: "rerank-2"},
	v1alpha1.ProviderTypeCohere:      {"": "rerank-english-v3.0, rerank-multilingual-v3.0"},
	v1alpha1.ProviderTypeCartesia:    {"": "sonic-2"},
	v1alpha1.ProviderTypeElevenLabs:  {"": "eleven_multilingual_v2, eleven_turbo_v2_5"},
	v1alpha1.ProviderTypeImagen:      {"": "imagen-3.0-generate-002"},
	v1alpha1.ProviderTypeHuggingFace: {"": "a model repository ID (e.g. meta-llama/Llama-3.1-8B-Instruct)"},
}

// ModelSuggestions returns example model IDs for the provider's type and
// role, for the ModelValid=False message.
func ModelSuggestions(p *v1alpha1.Provider) string {
	byRole := modelSuggestions[p.Spec.Type]
	if s, ok := byRole[p.Spec.Role]; ok {
		return s
	}
	return byRole[""]
}
