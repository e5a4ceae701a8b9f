package main

import (
	"testing"

	"github.com/altairalabs/omnia/reconcile/agentruntime/workload"
)

// TestExposureOptions: the default-exposure flags, each refusal named.
func TestExposureOptions(t *testing.T) {
	for _, tc := range []struct {
		name, gateway, domain string
		want                  *workload.GatewayRef
		err                   bool
	}{
		{"off", "", "", nil, false},
		{"gateway and domain", "edge/public", "example.com", &workload.GatewayRef{Namespace: "edge", Name: "public"}, false},
		{"a listener", "edge/public/https", "example.com", &workload.GatewayRef{Namespace: "edge", Name: "public", SectionName: "https"}, false},
		{"gateway without a domain", "edge/public", "", nil, true},
		{"domain without a gateway", "", "example.com", nil, true},
		{"no namespace", "public", "example.com", nil, true},
		{"not a domain", "edge/public", "Example_com", nil, true},
		{"not a namespace name", "Edge/public", "example.com", nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := exposureOptions(tc.gateway, tc.domain)
			if (err != nil) != tc.err {
				t.Fatalf("err = %v, want error: %v", err, tc.err)
			}
			if (got.Gateway == nil) != (tc.want == nil) || (tc.want != nil && *got.Gateway != *tc.want) {
				t.Errorf("gateway %+v, want %+v", got.Gateway, tc.want)
			}
			if tc.want != nil && got.BaseDomain != tc.domain {
				t.Errorf("base domain %q", got.BaseDomain)
			}
		})
	}
}

// TestExposureBaseDomainFact: the host rules judge with the base domain
// only while a Gateway is configured (exposure on); without one no route
// is made and no host is judged against a namespace's domain.
func TestExposureBaseDomainFact(t *testing.T) {
	f, _ := parseFlags(t, "--default-exposure-gateway", "edge/public", "--exposure-base-domain", "example.com")
	if got := f.agentRuntime.exposure.baseDomainFact(); got != "example.com" {
		t.Errorf("with a Gateway: %q, want example.com", got)
	}
	f, _ = parseFlags(t, "--exposure-base-domain", "example.com")
	if got := f.agentRuntime.exposure.baseDomainFact(); got != "" {
		t.Errorf("without a Gateway: %q, want empty", got)
	}
}
