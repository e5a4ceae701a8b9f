package provider

import (
	"regexp"
	"strings"
)

// PlaceholderPattern is one shape of dev-sample credential value — the kind
// documentation, sample manifests and Helm values ship — that is never a
// real key. A Secret holding one makes CredentialConfigured False with reason
// PlaceholderCredential, and the value is not sent to the vendor.
type PlaceholderPattern struct {
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
	placeholderAngle    = regexp.MustCompile(`<[^<>]*>`)
	placeholderTemplate = regexp.MustCompile(`\$\{[^}]*\}|\{\{[^}]*\}\}`)
	placeholderXs       = regexp.MustCompile(`(?i)x{6,}`)
	placeholderYour     = regexp.MustCompile(`(?i)^your[-_ ]`)
	// placeholderWords are matched case-insensitively after removing '-',
	// '_' and spaces, so REPLACE_ME, replace-me and ReplaceMe all match. Each
	// is long enough that a random key containing it is vanishingly unlikely.
	placeholderWords = []string{"changeme", "replaceme", "yourapikey", "yourkeyhere", "apikeyhere", "insertkeyhere", "placeholder"}
)

// PlaceholderPatterns are the placeholder shapes the controller recognises,
// checked in order on the credential value after trimming surrounding
// whitespace. The list is documentation as much as code: it is what the
// CredentialConfigured=False/PlaceholderCredential message refers to.
var PlaceholderPatterns = []PlaceholderPattern{
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
		Match:       placeholderAngle.MatchString,
	},
	{
		Name:        "unexpanded-template",
		Description: "contains an unexpanded ${VAR} or {{ .Values.x }} template",
		Match:       placeholderTemplate.MatchString,
	},
	{
		Name:        "placeholder-word",
		Description: "contains, ignoring case, '-', '_' and spaces, one of: changeme, replaceme, yourapikey, yourkeyhere, apikeyhere, insertkeyhere, placeholder (e.g. changeme, REPLACE_ME, your-api-key)",
		Match: func(v string) bool {
			folded := strings.ToLower(strings.NewReplacer("-", "", "_", "", " ", "").Replace(v))
			for _, w := range placeholderWords {
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
		Match:       placeholderYour.MatchString,
	},
	{
		Name:        "x-run",
		Description: "contains a run of six or more x or X (e.g. sk-xxxxxxxxxxxx, XXXXXX)",
		Match:       placeholderXs.MatchString,
	},
}

// MatchPlaceholder reports the first of PlaceholderPatterns the credential
// value matches (after trimming surrounding whitespace), or nil. The value is
// only inspected; the caller must not log, store or emit it.
func MatchPlaceholder(value []byte) *PlaceholderPattern {
	v := strings.TrimSpace(string(value))
	for i := range PlaceholderPatterns {
		if PlaceholderPatterns[i].Match(v) {
			return &PlaceholderPatterns[i]
		}
	}
	return nil
}
