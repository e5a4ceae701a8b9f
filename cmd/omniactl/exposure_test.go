package main

import (
	"slices"
	"strings"
	"testing"
)

// TestCheckExposeHosts: omniactl check judges expose.host as the operator's
// webhook does. --exposure-base-domain is the operator's setting: with it,
// another namespace's default host is denied
// (agentruntime/expose-host-outside-namespace-domain) unless a Workspace
// document given alongside grants the domain; without it that rule is
// silent, as with exposure off. A wildcard is denied either way.
func TestCheckExposeHosts(t *testing.T) {
	exposed := func(host string) string {
		return strings.Replace(agentOK, "  facades: [{type: websocket}]\n",
			"  facades: [{type: websocket, expose: {enabled: true, host: '"+host+"'}}]\n", 1)
	}
	workspace := `apiVersion: omnia.altairalabs.ai/v1alpha1
kind: Workspace
metadata: {name: agents}
spec:
  namespace: {name: agents}
  exposure: {allowedHostSuffixes: [billing.example.com]}
`
	const outside = "support agentruntime/expose-host-outside-namespace-domain spec.facades[0].expose.host"
	const wildcard = "support agentruntime/expose-host-wildcard spec.facades[0].expose.host"
	base := []string{providerClaude, secretCreds, packSupport, packSupportConfigMap}
	for _, tc := range []struct {
		name  string
		docs  []string
		flags []string
		code  int
		want  []string
	}{
		{"the namespace's own host", []string{exposed("chat.agents.example.com")}, []string{"--exposure-base-domain", "example.com"}, exitOK, nil},
		{"another namespace's default host", []string{exposed("support.billing.example.com")},
			[]string{"--exposure-base-domain", "example.com"}, exitDenied, []string{outside}},
		{"another namespace's host, granted by the Workspace", []string{exposed("support.billing.example.com"), workspace},
			[]string{"--exposure-base-domain", "example.com"}, exitOK, nil},
		{"no base domain: not judged", []string{exposed("support.billing.example.com")}, nil, exitOK, nil},
		{"a wildcard over the base domain", []string{exposed("*.example.com")}, []string{"--exposure-base-domain", "example.com"},
			exitDenied, []string{wildcard}},
		{"a wildcard without a base domain", []string{exposed("*.example.com")}, nil, exitDenied, []string{wildcard}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := writeFile(t, t.TempDir(), "a.yaml", docs(append(slices.Clone(base), tc.docs...)...))
			args := append([]string{"check", "-f", file, "-o", "json"}, tc.flags...)
			code, out, errOut := omniactl(t, "", args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr: %s", code, tc.code, errOut)
			}
			var got []string
			for _, k := range keyed(findingsJSON(t, out)) {
				if strings.Contains(k, "agentruntime/expose-host") {
					got = append(got, k)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("findings %v, want %v", got, tc.want)
			}
		})
	}
	if code, _, errOut := omniactl(t, "", "check", "-f", writeFile(t, t.TempDir(), "a.yaml", agentOK), "--exposure-base-domain", "Not_A_Domain"); code != exitInput ||
		!strings.Contains(errOut, "--exposure-base-domain") {
		t.Errorf("a bad --exposure-base-domain: exit %d, stderr %q; want exit %d naming the flag", code, errOut, exitInput)
	}
}
