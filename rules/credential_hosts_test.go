package rules

import (
	"net/url"
	"slices"
	"testing"
)

func TestParseCredentialHosts(t *testing.T) {
	tests := []struct {
		in      string
		want    []string
		wantErr bool
	}{
		{in: "", want: nil},
		{in: "github.com", want: []string{"github.com:443"}},
		{in: " GitHub.COM. , git.internal:8443 ,,", want: []string{"github.com:443", "git.internal:8443"}},
		{in: "[2001:db8::1]:8443,2001:db8::2,[2001:db8::3]", want: []string{"[2001:db8::1]:8443", "[2001:db8::2]:443", "[2001:db8::3]:443"}},
		{in: "127.0.0.1:39001", want: []string{"127.0.0.1:39001"}},
		{in: "https://github.com", wantErr: true},
		{in: "github.com/acme", wantErr: true},
		{in: "bot@github.com", wantErr: true},
		{in: "git.internal:https", wantErr: true},
		{in: "git.internal:0", wantErr: true},
		{in: "git.internal:70000", wantErr: true},
		{in: ":443", wantErr: true},
		{in: "a:b:c", wantErr: true},
	}
	for _, tt := range tests {
		got, err := ParseCredentialHosts(tt.in)
		if (err != nil) != tt.wantErr {
			t.Errorf("ParseCredentialHosts(%q) error = %v, want error %v", tt.in, err, tt.wantErr)
			continue
		}
		if !tt.wantErr && !slices.Equal(got, tt.want) {
			t.Errorf("ParseCredentialHosts(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestCredentialHostPort(t *testing.T) {
	for raw, want := range map[string]string{
		"https://GitHub.com./acme/evals.git": "github.com:443",
		"https://git.internal:8443/x.git":    "git.internal:8443",
		"http://git.internal/x.git":          "git.internal:80",
		"https://[2001:db8::1]/x.git":        "[2001:db8::1]:443",
	} {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		if got := CredentialHostPort(u); got != want {
			t.Errorf("CredentialHostPort(%s) = %s, want %s", raw, got, want)
		}
	}
}

func TestCredentialTarget(t *testing.T) {
	allowed := []string{"git.internal:8443", "github.com:443"}
	tests := []struct {
		raw     string
		problem CredentialTargetProblem
		target  string
	}{
		{raw: "https://GitHub.com./acme/evals.git", target: "github.com:443"},
		{raw: "https://git.internal:8443/x.git", target: "git.internal:8443"},
		{raw: "not a url", problem: CredentialTargetNotAbsolute},
		{raw: "/relative/path", problem: CredentialTargetNotAbsolute},
		{raw: "http://github.com/acme", problem: CredentialTargetNotHTTPS, target: "github.com:80"},
		{raw: "ssh://git@github.com/acme", problem: CredentialTargetNotHTTPS, target: "github.com:443"},
		{raw: "https://bot:pw@github.com/acme", problem: CredentialTargetUserInfo, target: "github.com:443"},
		{raw: "https://git.internal/x.git", problem: CredentialTargetHostNotAllowed, target: "git.internal:443"},
		{raw: "https://169.254.169.254/latest", problem: CredentialTargetHostNotAllowed, target: "169.254.169.254:443"},
	}
	for _, tt := range tests {
		got := CredentialTarget(tt.raw, allowed)
		if got.Problem != tt.problem || got.Target != tt.target {
			t.Errorf("CredentialTarget(%q) = {%q, %q}, want {%q, %q}", tt.raw, got.Problem, got.Target, tt.problem, tt.target)
		}
	}
}
