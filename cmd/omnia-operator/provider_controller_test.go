package main

import (
	"slices"
	"testing"
)

// TestCredentialProbeFlags: the egress flags reach the Provider controller's
// policy, and a bad value is refused at parsing.
func TestCredentialProbeFlags(t *testing.T) {
	f, fs := parseFlags(t, "--credential-probe", "off", "--credential-probe-hosts", "OpenRouter.ai, gw.internal:8443")
	egress := &f.provider.egress
	if !egress.Off || !slices.Equal(egress.CredentialHosts, []string{"openrouter.ai:443", "gw.internal:8443"}) {
		t.Fatalf("policy = %+v", *egress)
	}
	if err := fs.Parse([]string{"--credential-probe", "on"}); err != nil || egress.Off {
		t.Fatalf("--credential-probe=on: %v, off=%v", err, egress.Off)
	}
	for name, value := range map[string]string{"credential-probe": "maybe", "credential-probe-hosts": "https://evil.example/"} {
		if _, err := tryParseFlags("--" + name + "=" + value); err == nil {
			t.Errorf("--%s=%s accepted", name, value)
		}
	}
}
