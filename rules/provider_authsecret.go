package rules

import (
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// providerServiceAccountKey is the key a serviceAccount Secret holds when
// credentialsSecretRef.key is unset.
const providerServiceAccountKey = "credentials.json"

// providerAuthSecretKeys is the spec's table of keys a static auth type's
// Secret must hold (provider.md, "Expected secret keys per static auth
// type"). AWS_SESSION_TOKEN is optional and so not listed; serviceAccount's
// key is credentialsSecretRef.key when set (ProviderAuthSecretKeys).
var providerAuthSecretKeys = map[v1alpha1.ProviderAuthType][]string{
	v1alpha1.ProviderAuthTypeAccessKey:        {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"},
	v1alpha1.ProviderAuthTypeServiceAccount:   {providerServiceAccountKey},
	v1alpha1.ProviderAuthTypeServicePrincipal: {"AZURE_TENANT_ID", "AZURE_CLIENT_ID", "AZURE_CLIENT_SECRET"},
}

// ProviderAuthSecretKeys returns the keys the Provider's
// spec.auth.credentialsSecretRef Secret must hold, in the spec's order:
// accessKey AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY; serviceAccount
// credentialsSecretRef.key, else credentials.json; servicePrincipal
// AZURE_TENANT_ID, AZURE_CLIENT_ID and AZURE_CLIENT_SECRET. Nil for
// workloadIdentity, or a Provider without spec.auth. It is the one list the
// Provider's AuthConfigured condition, omniactl and any component that reads
// the credentials use. The slice is the caller's own.
func ProviderAuthSecretKeys(p *v1alpha1.Provider) []string {
	if p == nil || p.Spec.Auth == nil {
		return nil
	}
	a := p.Spec.Auth
	if a.Type == v1alpha1.ProviderAuthTypeServiceAccount && a.CredentialsSecretRef != nil && a.CredentialsSecretRef.Key != "" {
		return []string{a.CredentialsSecretRef.Key}
	}
	return slices.Clone(providerAuthSecretKeys[a.Type])
}

func init() {
	Default.Register(Rule{
		ID:        "provider/auth-secret-found",
		Kinds:     []string{kindProvider},
		Stage:     StageReconcile,
		Severity:  SeverityWarn,
		Condition: v1alpha1.ProviderConditionAuthConfigured,
		Reason:    v1alpha1.ProviderReasonSecretNotFound,
		Doc:       "The Secret named by spec.auth.credentialsSecretRef.name (static platform auth: accessKey, serviceAccount, servicePrincipal) exists in the Provider's namespace.",
		Spec:      "provider.md#auth",
		Check:     checkProviderAuthSecretFound,
	})
	Default.Register(Rule{
		ID:        "provider/auth-secret-keys-found",
		Kinds:     []string{kindProvider},
		Stage:     StageReconcile,
		Severity:  SeverityWarn,
		Condition: v1alpha1.ProviderConditionAuthConfigured,
		Reason:    v1alpha1.ProviderReasonSecretKeyMissing,
		Doc: "The spec.auth.credentialsSecretRef Secret holds every key its auth type needs: accessKey AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY; " +
			"serviceAccount credentials.json (or credentialsSecretRef.key); servicePrincipal AZURE_TENANT_ID, AZURE_CLIENT_ID and AZURE_CLIENT_SECRET (ProviderAuthSecretKeys).",
		Spec:  "provider.md#auth",
		Check: checkProviderAuthSecretKeysFound,
	})
}

var providerAuthSecretRefPath = field.NewPath("spec", "auth", "credentialsSecretRef")

// providerAuthSecretRef returns the Provider and its static-auth Secret
// reference, or nil when the Provider reads no platform credentials Secret.
func providerAuthSecretRef(in Input) (*v1alpha1.Provider, *v1alpha1.ProviderSecretKeyRef) {
	p := providerOf(in)
	if p == nil || p.Spec.Auth == nil || p.Spec.Auth.Type == v1alpha1.ProviderAuthTypeWorkloadIdentity {
		return nil, nil
	}
	ref := p.Spec.Auth.CredentialsSecretRef
	if ref == nil || ref.Name == "" {
		return nil, nil // provider/auth-static-needs-secret (schema) reports it
	}
	return p, ref
}

func checkProviderAuthSecretFound(in Input) field.ErrorList {
	p, ref := providerAuthSecretRef(in)
	if ref == nil {
		return nil
	}
	if _, found := in.Facts.SecretKeys(p.Namespace, ref.Name); found {
		return nil
	}
	return field.ErrorList{field.Invalid(providerAuthSecretRefPath.Child("name"), ref.Name,
		"Secret "+strconv.Quote(ref.Name)+" named by spec.auth.credentialsSecretRef.name does not exist in "+namespaceText(p.Namespace)+
			"; create it there with the keys auth type "+string(p.Spec.Auth.Type)+" needs ("+strings.Join(ProviderAuthSecretKeys(p), ", ")+")")}
}

func checkProviderAuthSecretKeysFound(in Input) field.ErrorList {
	p, ref := providerAuthSecretRef(in)
	if ref == nil {
		return nil
	}
	keys, found := in.Facts.SecretKeys(p.Namespace, ref.Name)
	if !found {
		return nil // provider/auth-secret-found reports it
	}
	var missing []string
	for _, k := range ProviderAuthSecretKeys(p) {
		if !slices.Contains(keys, k) {
			missing = append(missing, k)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	fld := providerAuthSecretRefPath.Child("name")
	if ref.Key != "" && p.Spec.Auth.Type == v1alpha1.ProviderAuthTypeServiceAccount {
		fld = providerAuthSecretRefPath.Child("key")
	}
	return field.ErrorList{field.Invalid(fld, ref.Name,
		"Secret "+strconv.Quote(ref.Name)+" lacks the key(s) "+strings.Join(missing, ", ")+" that auth type "+string(p.Spec.Auth.Type)+
			" needs; add them to the Secret")}
}
