package rules

import "testing"

func TestMatchProviderPlaceholder(t *testing.T) {
	tests := []struct {
		value string
		want  string // pattern name, "" for none
	}{
		{"", "empty"},
		{"  \n\t", "empty"},
		{"sk-ant-api03-...", "ellipsis"},
		{"sk-...", "ellipsis"},
		{"sk-ant…", "ellipsis"},
		{"<your-api-key>", "angle-brackets"},
		{"<ANTHROPIC_API_KEY>", "angle-brackets"},
		{"${ANTHROPIC_API_KEY}", "unexpanded-template"},
		{"{{ .Values.apiKey }}", "unexpanded-template"},
		{"changeme", "placeholder-word"},
		{"CHANGE_ME", "placeholder-word"},
		{"REPLACE_ME", "placeholder-word"},
		{"replace-me-with-your-key", "placeholder-word"},
		{"your-api-key", "placeholder-word"},
		{"YOUR_API_KEY", "placeholder-word"},
		{"your-key-here", "placeholder-word"},
		{"placeholder", "placeholder-word"},
		{"your-anthropic-key", "your-prefix"},
		{"sk-xxxxxxxxxxxx", "x-run"},
		{"XXXXXX", "x-run"},
		{"changeme\n", "placeholder-word"},
		// Real-looking keys are not placeholders.
		{"sk-ant-api03-Zq8xVbT3kP0mW7rLs2NfYc4HdJ9eGu1A", ""},
		{"sk-proj-4f9a7Bc2XxYz8Lm3Qw6Er1Ty5Ui0Op", ""},
		{"AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY", ""},
		{"hf_abcdefghijklmnopqrstuvwxyz012345", ""},
		{"good-key\n", ""},
	}
	for _, tt := range tests {
		got := MatchProviderPlaceholder([]byte(tt.value))
		name := ""
		if got != nil {
			name = got.Name
		}
		if name != tt.want {
			t.Errorf("MatchProviderPlaceholder(%q) = %q, want %q", tt.value, name, tt.want)
		}
	}
}

func TestPlaceholderPatternsDocumented(t *testing.T) {
	seen := map[string]bool{}
	for _, p := range ProviderPlaceholderPatterns {
		if p.Name == "" || p.Description == "" || p.Match == nil {
			t.Errorf("pattern %+v needs a name, a description and a matcher", p)
		}
		if seen[p.Name] {
			t.Errorf("pattern name %q repeated", p.Name)
		}
		seen[p.Name] = true
	}
}
