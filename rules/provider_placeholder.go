package rules

import (
	"regexp"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

// ProviderPlaceholderPattern is one shape of dev-sample credential value — the kind
// documentation, sample manifests and Helm values ship — that is never a
// real key. A Secret holding one makes CredentialConfigured False with reason
// PlaceholderCredential, and the value is not sent to the vendor.
type ProviderPlaceholderPattern struct {
	// Name identifies the pattern in the condition message. The message names
	// the pattern, never the value.
	Name string
	// Description says what the pattern matches, with examples.
	Description string
	// Match reports whether a value (already trimmed of surrounding
	// whitespace) is this kind of placeholder.
	Match func(v string) bool
}

var (
	providerPlaceholderAngle    = regexp.MustCompile(`<[^<>]*>`)
	providerPlaceholderTemplate = regexp.MustCompile(`\$\{[^}]*\}|\{\{[^}]*\}\}`)
	providerPlaceholderXs       = regexp.MustCompile(`(?i)x{6,}`)
	providerPlaceholderYour     = regexp.MustCompile(`(?i)^your[-_ ]`)
	// providerPlaceholderWords are matched case-insensitively after removing '-',
	// '_' and spaces, so REPLACE_ME, replace-me and ReplaceMe all match. Each
	// is long enough that a random key containing it is vanishingly unlikely.
	providerPlaceholderWords = []string{"changeme", "replaceme", "yourapikey", "yourkeyhere", "apikeyhere", "insertkeyhere", "placeholder"}
)

// ProviderPlaceholderPatterns are the placeholder shapes the controller recognises,
// checked in order on the credential value after trimming surrounding
// whitespace. The list is documentation as much as code: it is what the
// CredentialConfigured=False/PlaceholderCredential message refers to.
var ProviderPlaceholderPatterns = []ProviderPlaceholderPattern{
	{
		Name:        "empty",
		Description: "empty, or only whitespace",
		Match:       func(v string) bool { return v == "" },
	},
	{
		Name:        "ellipsis",
		Description: `contains "..." or "…" (e.g. sk-ant-api03-..., sk-...)`,
		Match:       func(v string) bool { return strings.Contains(v, "...") || strings.Contains(v, "…") },
	},
	{
		Name:        "angle-brackets",
		Description: "contains a <...> slot (e.g. <your-api-key>, <ANTHROPIC_API_KEY>)",
		Match:       providerPlaceholderAngle.MatchString,
	},
	{
		Name:        "unexpanded-template",
		Description: "contains an unexpanded ${VAR} or {{ .Values.x }} template",
		Match:       providerPlaceholderTemplate.MatchString,
	},
	{
		Name:        "placeholder-word",
		Description: "contains, ignoring case, '-', '_' and spaces, one of: changeme, replaceme, yourapikey, yourkeyhere, apikeyhere, insertkeyhere, placeholder (e.g. changeme, REPLACE_ME, your-api-key)",
		Match: func(v string) bool {
			folded := strings.ToLower(strings.NewReplacer("-", "", "_", "", " ", "").Replace(v))
			for _, w := range providerPlaceholderWords {
				if strings.Contains(folded, w) {
					return true
				}
			}
			return false
		},
	},
	{
		Name:        "your-prefix",
		Description: "starts with your-, your_ or 'your ' (e.g. your-anthropic-key)",
		Match:       providerPlaceholderYour.MatchString,
	},
	{
		Name:        "x-run",
		Description: "contains a run of six or more x or X (e.g. sk-xxxxxxxxxxxx, XXXXXX)",
		Match:       providerPlaceholderXs.MatchString,
	},
}

// MatchProviderPlaceholder reports the first of ProviderPlaceholderPatterns the credential
// value matches (after trimming surrounding whitespace), or nil. The value is
// only inspected; the caller must not log, store or emit it.
func MatchProviderPlaceholder(value []byte) *ProviderPlaceholderPattern {
	v := strings.TrimSpace(string(value))
	for i := range ProviderPlaceholderPatterns {
		if ProviderPlaceholderPatterns[i].Match(v) {
			return &ProviderPlaceholderPatterns[i]
		}
	}
	return nil
}

func init() {
	Default.Register(Rule{
		ID:        "provider/placeholder-credential",
		Kinds:     []string{kindProvider},
		Stage:     StageReconcile,
		Severity:  SeverityWarn,
		Condition: v1alpha1.ProviderConditionCredentialConfigured,
		Reason:    v1alpha1.ProviderReasonPlaceholderCredential,
		Doc: "The credential key of the Secret named by spec.credential.secretRef must not hold a dev-sample placeholder " +
			"(empty, sk-ant-api03-..., <your-api-key>, ${VAR}, changeme, REPLACE_ME, your-..., xxxxxx; see ProviderPlaceholderPatterns). " +
			"The value is matched through Facts and never reaches the rule or its message.",
		Spec:  "provider.md#conditions",
		Check: checkProviderPlaceholderCredential,
	})
}

// providerPlaceholderMatch labels a value with the placeholder pattern it
// matches; Facts applies it to the Secret value so the rule never sees it.
func providerPlaceholderMatch(value []byte) (string, bool) {
	if p := MatchProviderPlaceholder(value); p != nil {
		return p.Name, true
	}
	return "", false
}

func checkProviderPlaceholderCredential(in Input) field.ErrorList {
	p := providerOf(in)
	if p == nil || p.Spec.Credential == nil || p.Spec.Credential.SecretRef == nil {
		return nil
	}
	ref := p.Spec.Credential.SecretRef
	keys, found := in.Facts.SecretKeys(p.Namespace, ref.Name)
	if !found {
		return nil // provider/secret-found reports it
	}
	key, ok, _ := ProviderSecretKey(p, keys)
	if !ok {
		return nil // provider/secret-key-found reports it
	}
	name, matched := in.Facts.SecretValueMatches(p.Namespace, ref.Name, key, providerPlaceholderMatch)
	if !matched {
		return nil
	}
	var desc string
	for _, pat := range ProviderPlaceholderPatterns {
		if pat.Name == name {
			desc = pat.Description
		}
	}
	return field.ErrorList{field.Invalid(providerSecretRefPath, ref.Name,
		"key "+strconv.Quote(key)+" of Secret "+strconv.Quote(ref.Name)+" holds a dev-sample placeholder, not a credential (pattern "+name+": "+desc+
			"); put the real credential in the Secret")}
}
