package provider

import (
	"slices"
	"testing"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

func TestParseCredentialProbeHosts(t *testing.T) {
	tests := []struct {
		in      string
		want    []string
		wantErr bool
	}{
		{in: "", want: nil},
		{in: "openrouter.ai", want: []string{"openrouter.ai:443"}},
		{in: " OpenRouter.AI. , gw.internal:8443 ,,", want: []string{"openrouter.ai:443", "gw.internal:8443"}},
		{in: "[2001:db8::1]:8443,2001:db8::2,[2001:db8::3]", want: []string{"[2001:db8::1]:8443", "[2001:db8::2]:443", "[2001:db8::3]:443"}},
		{in: "10.0.0.5:443", want: []string{"10.0.0.5:443"}},
		{in: "https://openrouter.ai", wantErr: true},
		{in: "openrouter.ai/api", wantErr: true},
		{in: "user@openrouter.ai", wantErr: true},
		{in: "gw.internal:http", wantErr: true},
		{in: "gw.internal:0", wantErr: true},
		{in: "gw.internal:70000", wantErr: true},
		{in: ":443", wantErr: true},
		{in: "a:b:c", wantErr: true},
	}
	for _, tt := range tests {
		got, err := ParseCredentialProbeHosts(tt.in)
		if (err != nil) != tt.wantErr {
			t.Errorf("ParseCredentialProbeHosts(%q) error = %v, want error %v", tt.in, err, tt.wantErr)
			continue
		}
		if !tt.wantErr && !slices.Equal(got, tt.want) {
			t.Errorf("ParseCredentialProbeHosts(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestParseCredentialProbeMode(t *testing.T) {
	for in, want := range map[string]bool{"on": false, "off": true, "OFF": true, " on ": false} {
		if off, err := ParseCredentialProbeMode(in); err != nil || off != want {
			t.Errorf("ParseCredentialProbeMode(%q) = %v, %v; want %v", in, off, err, want)
		}
	}
	for _, in := range []string{"", "false", "disabled", "yes"} {
		if _, err := ParseCredentialProbeMode(in); err == nil {
			t.Errorf("ParseCredentialProbeMode(%q) accepted", in)
		}
	}
}

// TestEgressDecide: which probes the policy withholds, and with what reason,
// for each kind of Provider. "" means the probe may be sent.
func TestEgressDecide(t *testing.T) {
	defaults := map[v1alpha1.ProviderType]string{
		v1alpha1.ProviderTypeClaude: "https://api.anthropic.com",
		v1alpha1.ProviderTypeOpenAI: "https://api.openai.com/v1",
	}
	secretRef := &v1alpha1.ProviderCredential{SecretRef: &v1alpha1.ProviderSecretKeyRef{Name: "creds"}}
	prov := func(t v1alpha1.ProviderType, base string, cred *v1alpha1.ProviderCredential) *v1alpha1.Provider {
		return &v1alpha1.Provider{Spec: v1alpha1.ProviderSpec{Type: t, Model: "m", BaseURL: base, Credential: cred}}
	}
	allow := Egress{CredentialHosts: []string{"openrouter.ai:443", "gw.internal:8443"}}
	tests := []struct {
		name   string
		egress Egress
		p      *v1alpha1.Provider
		want   string // reason for both withheld probes; "" none withheld
	}{
		{"vendor default", Egress{}, prov(v1alpha1.ProviderTypeClaude, "", secretRef), ""},
		{"vendor host as baseURL", Egress{}, prov(v1alpha1.ProviderTypeClaude, "https://API.anthropic.com./v1", secretRef), ""},
		{"vendor host with its explicit port", Egress{}, prov(v1alpha1.ProviderTypeOpenAI, "https://api.openai.com:443/v1", secretRef), ""},
		{"vendor host on another port", Egress{}, prov(v1alpha1.ProviderTypeOpenAI, "https://api.openai.com:8443/v1", secretRef), v1alpha1.ProviderReasonCredentialProbeHostNotAllowed},
		{"another vendor's host", Egress{}, prov(v1alpha1.ProviderTypeClaude, "https://api.openai.com/v1", secretRef), v1alpha1.ProviderReasonCredentialProbeHostNotAllowed},
		{"any other host", Egress{}, prov(v1alpha1.ProviderTypeOpenAI, "https://collector.attacker.example/v1", secretRef), v1alpha1.ProviderReasonCredentialProbeHostNotAllowed},
		{"plain http to the vendor's host", Egress{}, prov(v1alpha1.ProviderTypeOpenAI, "http://api.openai.com/v1", secretRef), v1alpha1.ProviderReasonCredentialProbeInsecure},
		{"plain http to an allowed host", allow, prov(v1alpha1.ProviderTypeOpenAI, "http://openrouter.ai/api/v1", secretRef), v1alpha1.ProviderReasonCredentialProbeInsecure},
		{"user info", allow, prov(v1alpha1.ProviderTypeOpenAI, "https://u:p@openrouter.ai/api/v1", secretRef), v1alpha1.ProviderReasonCredentialProbeHostNotAllowed},
		{"allowed host", allow, prov(v1alpha1.ProviderTypeOpenAI, "https://openrouter.ai/api/v1", secretRef), ""},
		{"allowed host:port", allow, prov(v1alpha1.ProviderTypeOpenAI, "https://gw.internal:8443/v1", secretRef), ""},
		{"allowed host on another port", allow, prov(v1alpha1.ProviderTypeOpenAI, "https://gw.internal/v1", secretRef), v1alpha1.ProviderReasonCredentialProbeHostNotAllowed},
		// No credential from a Secret is probed: the health check stays.
		{"envVar credential", Egress{}, prov(v1alpha1.ProviderTypeOpenAI, "http://collector.example/v1", &v1alpha1.ProviderCredential{EnvVar: "K"}), ""},
		{"type with no probe", Egress{}, prov(v1alpha1.ProviderTypeVLLM, "http://vllm:8000/v1", secretRef), ""},
		{"no credential", Egress{}, prov(v1alpha1.ProviderTypeVLLM, "http://vllm:8000/v1", nil), ""},
		// Off withholds everything.
		{"off: vendor default", Egress{Off: true}, prov(v1alpha1.ProviderTypeClaude, "", secretRef), "off"},
		{"off: vllm", Egress{Off: true}, prov(v1alpha1.ProviderTypeVLLM, "http://vllm:8000/v1", nil), "off"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := tt.egress.decide(tt.p, defaults)
			switch tt.want {
			case "":
				if w.credential != nil || w.endpoint != nil {
					t.Fatalf("withheld %+v / %+v, want nothing", w.credential, w.endpoint)
				}
			case "off":
				if w.credential == nil || w.credential.Withheld != v1alpha1.ProviderReasonCredentialProbeDisabled ||
					w.endpoint == nil || w.endpoint.Withheld != v1alpha1.ProviderReasonEndpointProbeDisabled {
					t.Fatalf("withheld %+v / %+v, want both disabled", w.credential, w.endpoint)
				}
			default:
				if w.credential == nil || w.credential.Withheld != tt.want || w.endpoint == nil || w.endpoint.Withheld != tt.want {
					t.Fatalf("withheld %+v / %+v, want both %s", w.credential, w.endpoint, tt.want)
				}
				if w.credential.Detail == "" || w.credential.StatusCode != 0 {
					t.Fatalf("withheld outcome %+v", w.credential)
				}
			}
		})
	}
}
