package rules

import (
	"path"
	"regexp"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// Provider rules: the CEL rules of the Provider CRD (documented here, enforced
// by the API server) and the Go checks the schema cannot make. The Secret
// lookups (SecretFound) are in provider_secretkey.go.

const kindProvider = "Provider"

var (
	// providerEnvVarName is a POSIX-portable environment variable name.
	providerEnvVarName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	// providerDecimal is a plain non-negative decimal: digits, optionally a
	// point and more digits. No sign, exponent, NaN or Inf.
	providerDecimal = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?$`)
)

func init() {
	for _, r := range providerSchemaRules {
		r.Kinds = []string{kindProvider}
		r.Stage = StageAdmission
		r.Severity = SeverityDeny
		r.Source = SourceSchema
		Default.Register(r)
	}

	Default.Register(Rule{
		ID:        "provider/credential-env-var-name",
		Kinds:     []string{kindProvider},
		Stage:     StageAdmission,
		Severity:  SeverityWarn,
		Condition: v1alpha1.ProviderConditionCredentialConfigured,
		Reason:    v1alpha1.ProviderReasonInvalidEnvVar,
		Doc:       "spec.credential.envVar must be a valid environment variable name ([A-Za-z_][A-Za-z0-9_]*).",
		Spec:      "provider.md#using-an-environment-variable",
		Check:     checkProviderEnvVarName,
	})
	Default.Register(Rule{
		ID:        "provider/credential-file-path",
		Kinds:     []string{kindProvider},
		Stage:     StageAdmission,
		Severity:  SeverityWarn,
		Condition: v1alpha1.ProviderConditionCredentialConfigured,
		Reason:    v1alpha1.ProviderReasonInvalidFilePath,
		Doc:       "spec.credential.filePath must be an absolute, clean path.",
		Spec:      "provider.md#using-a-mounted-file",
		Check:     checkProviderFilePath,
	})
	Default.Register(Rule{
		ID:       "provider/defaults-timeout-duration",
		Kinds:    []string{kindProvider},
		Stage:    StageAdmission,
		Severity: SeverityDeny,
		Doc:      "spec.defaults.requestTimeout, streamIdleTimeout and firstTokenTimeout must parse as Go durations.",
		Spec:     "provider.md#defaults",
		Check:    checkProviderTimeouts,
	})
	Default.Register(Rule{
		ID:       "provider/pricing-decimal",
		Kinds:    []string{kindProvider},
		Stage:    StageAdmission,
		Severity: SeverityDeny,
		Doc:      "spec.pricing inputCostPer1K, outputCostPer1K and cachedCostPer1K must be non-negative decimal strings.",
		Spec:     "provider.md#pricing",
		Check:    checkProviderPricing,
	})
}

// providerSchemaRules document the CEL rules on the Provider CRD. Kinds,
// Stage, Severity and Source are filled in at registration.
var providerSchemaRules = []Rule{
	{
		ID:   "provider/role-type",
		Doc:  "spec.type must be one the spec.role admits (role × type matrix).",
		Spec: "provider.md#role",
	},
	{
		ID:        "provider/model-required",
		Doc:       "spec.model is required for every spec.type except mock.",
		Spec:      "provider.md#model",
		Condition: v1alpha1.ProviderConditionModelValid,
		Reason:    v1alpha1.ProviderReasonModelMissing,
	},
	{
		ID:   "provider/message-metadata-template-llm-only",
		Doc:  "spec.messageMetadataTemplate is only allowed when spec.role is llm.",
		Spec: "provider.md#messagemetadatatemplate",
	},
	{
		ID:   "provider/embedding-role-only",
		Doc:  "spec.embedding is only allowed when spec.role is embedding.",
		Spec: "provider.md#role",
	},
	{
		ID:   "provider/credential-exactly-one",
		Doc:  "spec.credential sets exactly one of secretRef, envVar or filePath.",
		Spec: "provider.md#credential",
	},
	{
		ID:   "provider/platform-type",
		Doc:  "spec.platform is only allowed when spec.type is claude, openai or gemini.",
		Spec: "provider.md#platform",
	},
	{
		ID:   "provider/platform-role",
		Doc:  "spec.platform is only allowed when spec.role is llm or embedding.",
		Spec: "provider.md#platform",
	},
	{
		ID:   "provider/platform-pairing",
		Doc:  "spec.platform.type must be supported for spec.type (platform × type matrix).",
		Spec: "provider.md#platform",
	},
	{
		ID:   "provider/platform-requires-auth",
		Doc:  "spec.auth is required when spec.platform is set.",
		Spec: "provider.md#auth",
	},
	{
		ID:   "provider/auth-requires-platform",
		Doc:  "spec.auth is only allowed together with spec.platform.",
		Spec: "provider.md#auth",
	},
	{
		ID:   "provider/platform-auth",
		Doc:  "spec.auth.type must be allowed for spec.platform.type (platform × auth matrix).",
		Spec: "provider.md#auth",
	},
	{
		ID:   "provider/vertex-needs-project",
		Doc:  "spec.platform.project is required when spec.platform.type is vertex.",
		Spec: "provider.md#platform",
	},
	{
		ID:   "provider/azure-needs-endpoint",
		Doc:  "spec.platform.endpoint is required when spec.platform.type is azure.",
		Spec: "provider.md#platform",
	},
	{
		ID:   "provider/auth-static-needs-secret",
		Doc:  "spec.auth.credentialsSecretRef is required for accessKey, serviceAccount and servicePrincipal.",
		Spec: "provider.md#auth",
	},
	{
		ID:   "provider/workload-identity-no-secret",
		Doc:  "spec.auth.credentialsSecretRef is forbidden for workloadIdentity.",
		Spec: "provider.md#auth",
	},
}

func providerOf(in Input) *v1alpha1.Provider {
	p, _ := in.Object.(*v1alpha1.Provider)
	return p
}

var providerCredentialPath = field.NewPath("spec", "credential")

func checkProviderEnvVarName(in Input) field.ErrorList {
	p := providerOf(in)
	if p == nil || p.Spec.Credential == nil || p.Spec.Credential.EnvVar == "" {
		return nil
	}
	v := p.Spec.Credential.EnvVar
	if providerEnvVarName.MatchString(v) {
		return nil
	}
	return field.ErrorList{field.Invalid(providerCredentialPath.Child("envVar"), v,
		"spec.credential.envVar must be an environment variable name: a letter or underscore followed by letters, digits or underscores (e.g. ANTHROPIC_API_KEY)")}
}

func checkProviderFilePath(in Input) field.ErrorList {
	p := providerOf(in)
	if p == nil || p.Spec.Credential == nil || p.Spec.Credential.FilePath == "" {
		return nil
	}
	v := p.Spec.Credential.FilePath
	fp := providerCredentialPath.Child("filePath")
	// The consuming pods are Linux containers: judge the path with the
	// slash-separated path package, not the host's filepath.
	if !path.IsAbs(v) {
		return field.ErrorList{field.Invalid(fp, v,
			"spec.credential.filePath must be an absolute path in the consuming pod (e.g. /var/secrets/api-key)")}
	}
	if clean := path.Clean(v); clean != v {
		return field.ErrorList{field.Invalid(fp, v,
			"spec.credential.filePath must be a clean path (no trailing slash, duplicate slashes, . or .. elements); use "+clean)}
	}
	return nil
}

func checkProviderTimeouts(in Input) field.ErrorList {
	p := providerOf(in)
	if p == nil || p.Spec.Defaults == nil {
		return nil
	}
	d := p.Spec.Defaults
	base := field.NewPath("spec", "defaults")
	var errs field.ErrorList
	for _, t := range [...]struct {
		name, value string
	}{
		{"requestTimeout", d.RequestTimeout},
		{"streamIdleTimeout", d.StreamIdleTimeout},
		{"firstTokenTimeout", d.FirstTokenTimeout},
	} {
		if t.value == "" {
			continue
		}
		if _, err := time.ParseDuration(t.value); err != nil {
			errs = append(errs, field.Invalid(base.Child(t.name), t.value,
				"spec.defaults."+t.name+" must be a Go duration: a number with a unit ns, us, ms, s, m or h (e.g. 30s, 2m, 1m30s)"))
		}
	}
	return errs
}

func checkProviderPricing(in Input) field.ErrorList {
	p := providerOf(in)
	if p == nil || p.Spec.Pricing == nil {
		return nil
	}
	pr := p.Spec.Pricing
	base := field.NewPath("spec", "pricing")
	var errs field.ErrorList
	for _, c := range [...]struct {
		name, value string
	}{
		{"inputCostPer1K", pr.InputCostPer1K},
		{"outputCostPer1K", pr.OutputCostPer1K},
		{"cachedCostPer1K", pr.CachedCostPer1K},
	} {
		if c.value == "" || providerDecimal.MatchString(c.value) {
			continue
		}
		errs = append(errs, field.Invalid(base.Child(c.name), c.value,
			"spec.pricing."+c.name+" must be a non-negative decimal string such as \"0.003\" (digits, optionally a point and more digits; no sign, exponent or currency)"))
	}
	return errs
}
