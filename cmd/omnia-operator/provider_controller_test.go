package main

import (
	"flag"
	"slices"
	"testing"
)

// TestCredentialProbeFlags: the egress flags reach the Provider controller's
// policy, and a bad value is refused at parsing.
func TestCredentialProbeFlags(t *testing.T) {
	saved := providerEgress
	t.Cleanup(func() { providerEgress = saved })

	if err := flag.CommandLine.Set("credential-probe", "off"); err != nil {
		t.Fatal(err)
	}
	if err := flag.CommandLine.Set("credential-probe-hosts", "OpenRouter.ai, gw.internal:8443"); err != nil {
		t.Fatal(err)
	}
	if !providerEgress.Off || !slices.Equal(providerEgress.CredentialHosts, []string{"openrouter.ai:443", "gw.internal:8443"}) {
		t.Fatalf("policy = %+v", providerEgress)
	}
	if err := flag.CommandLine.Set("credential-probe", "on"); err != nil || providerEgress.Off {
		t.Fatalf("--credential-probe=on: %v, off=%v", err, providerEgress.Off)
	}
	for name, value := range map[string]string{"credential-probe": "maybe", "credential-probe-hosts": "https://evil.example/"} {
		if err := flag.CommandLine.Set(name, value); err == nil {
			t.Errorf("--%s=%s accepted", name, value)
		}
	}
}
