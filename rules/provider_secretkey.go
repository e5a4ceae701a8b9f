package rules

import (
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// providerAPIKey is the generic key every type tries last, and the only key
// a type without its own vendor keys tries.
const providerAPIKey = "api-key"

// providerSecretKeys is the spec's table of keys tried, in order, when
// credential.secretRef.key is unset (provider.md#using-a-kubernetes-secret).
// A type not listed tries api-key only: another vendor's key is never sent to
// it.
var providerSecretKeys = map[v1alpha1.ProviderType][]string{
	v1alpha1.ProviderTypeClaude:      {"ANTHROPIC_API_KEY", "CLAUDE_API_KEY", providerAPIKey},
	v1alpha1.ProviderTypeOpenAI:      {"OPENAI_API_KEY", "OPENAI_TOKEN", providerAPIKey},
	v1alpha1.ProviderTypeGemini:      {"GEMINI_API_KEY", "GOOGLE_API_KEY", providerAPIKey},
	v1alpha1.ProviderTypeVoyageAI:    {"VOYAGE_API_KEY", providerAPIKey},
	v1alpha1.ProviderTypeCohere:      {"COHERE_API_KEY", providerAPIKey},
	v1alpha1.ProviderTypeHuggingFace: {"HF_TOKEN", providerAPIKey},
}

var providerOtherSecretKeys = []string{providerAPIKey}

// ProviderSecretKey chooses the key of the Provider's credential Secret that
// holds the credential. It is the one choice the Provider's status, the
// admission webhook and every component that reads the credential (runtime,
// memory-api, eval worker, arena worker) make.
//
// keys are the data keys the Secret holds. With spec.credential.secretRef.key
// set, that key is the only candidate: it is used exactly, no other key is
// tried. Unset, the candidates are the type's keys from the spec's table
// (claude: ANTHROPIC_API_KEY, CLAUDE_API_KEY, api-key; …; any other type:
// api-key only) and the first one present in keys is chosen.
//
// It returns the chosen key and true, or "" and false when keys holds no
// candidate; candidates is always the list tried, in order, for messages.
// The returned slice is the caller's own.
func ProviderSecretKey(p *v1alpha1.Provider, keys []string) (key string, ok bool, candidates []string) {
	key, ok, candidates = providerSecretKey(p, keys)
	return key, ok, slices.Clone(candidates)
}

// providerSecretKey is ProviderSecretKey without the defensive copy: the
// candidates it returns may be the shared table and must not be modified.
func providerSecretKey(p *v1alpha1.Provider, keys []string) (string, bool, []string) {
	if p == nil {
		return "", false, nil
	}
	candidates := providerSecretKeyCandidates(p)
	for _, c := range candidates {
		if slices.Contains(keys, c) {
			return c, true, candidates
		}
	}
	return "", false, candidates
}

func providerSecretKeyCandidates(p *v1alpha1.Provider) []string {
	if c := p.Spec.Credential; c != nil && c.SecretRef != nil && c.SecretRef.Key != "" {
		return []string{c.SecretRef.Key}
	}
	if ks, ok := providerSecretKeys[p.Spec.Type]; ok {
		return ks
	}
	return providerOtherSecretKeys
}

func init() {
	Default.Register(Rule{
		ID:        "provider/secret-found",
		Kinds:     []string{kindProvider},
		Stage:     StageReconcile,
		Severity:  SeverityWarn,
		Condition: v1alpha1.ProviderConditionSecretFound,
		Reason:    v1alpha1.ProviderReasonSecretNotFound,
		Doc:       "The Secret named by spec.credential.secretRef.name exists in the Provider's namespace.",
		Spec:      "provider.md#using-a-kubernetes-secret",
		Check:     checkProviderSecretFound,
	})
	Default.Register(Rule{
		ID:        "provider/secret-key-found",
		Kinds:     []string{kindProvider},
		Stage:     StageReconcile,
		Severity:  SeverityWarn,
		Condition: v1alpha1.ProviderConditionSecretFound,
		Reason:    v1alpha1.ProviderReasonSecretKeyMissing,
		Doc:       "The credential Secret holds a usable key: spec.credential.secretRef.key exactly, or else one of the type's auto-detected keys (ProviderSecretKey).",
		Spec:      "provider.md#using-a-kubernetes-secret",
		Check:     checkProviderSecretKeyFound,
	})
}

var providerSecretRefPath = field.NewPath("spec", "credential", "secretRef")

// providerSecretRef returns the Provider and its credential secretRef, or nil
// when the Provider reads no credential Secret.
func providerSecretRef(in Input) (*v1alpha1.Provider, *v1alpha1.ProviderSecretKeyRef) {
	p := providerOf(in)
	if p == nil || p.Spec.Credential == nil || p.Spec.Credential.SecretRef == nil {
		return nil, nil
	}
	return p, p.Spec.Credential.SecretRef
}

func checkProviderSecretFound(in Input) field.ErrorList {
	p, ref := providerSecretRef(in)
	if ref == nil {
		return nil
	}
	if _, found := in.Facts.SecretKeys(p.Namespace, ref.Name); found {
		return nil
	}
	return field.ErrorList{field.Invalid(providerSecretRefPath.Child("name"), ref.Name,
		"Secret "+strconv.Quote(ref.Name)+" named by spec.credential.secretRef.name does not exist in "+namespaceText(p.Namespace)+
			"; create it there or name an existing Secret")}
}

func checkProviderSecretKeyFound(in Input) field.ErrorList {
	p, ref := providerSecretRef(in)
	if ref == nil {
		return nil
	}
	keys, found := in.Facts.SecretKeys(p.Namespace, ref.Name)
	if !found {
		return nil // provider/secret-found reports it
	}
	if _, ok, candidates := providerSecretKey(p, keys); !ok {
		if ref.Key != "" {
			return field.ErrorList{field.Invalid(providerSecretRefPath.Child("key"), ref.Key,
				"Secret "+strconv.Quote(ref.Name)+" has no key "+strconv.Quote(ref.Key)+"; spec.credential.secretRef.key is used exactly and no other key is tried: add the key to the Secret or correct spec.credential.secretRef.key")}
		}
		return field.ErrorList{field.Invalid(providerSecretRefPath.Child("key"), "",
			"Secret "+strconv.Quote(ref.Name)+" holds none of the keys tried for type "+string(p.Spec.Type)+" ("+strings.Join(candidates, ", ")+
				"); add one of them to the Secret or set spec.credential.secretRef.key to the key that holds the credential")}
	}
	return nil
}
