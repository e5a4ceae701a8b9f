package provider

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/altairalabs/omnia/api/v1alpha1"
	"github.com/altairalabs/omnia/rules"
)

// Egress is the operator's policy for the requests it makes to vendors: a
// Provider must not be a way to send a Secret's value anywhere.
//
// A credential is sent (the CredentialValid probe) only over https, and only
// to the vendor's default host for the Provider's type (DefaultEndpoints: the
// host and port of its URL) or to a host the operator lists in
// CredentialHosts (--credential-probe-hosts). Otherwise no request is made:
// CredentialValid is Unknown with v1alpha1.ProviderReasonCredentialProbeInsecure or
// v1alpha1.ProviderReasonCredentialProbeHostNotAllowed, and the EndpointReachable health check
// of that same URL is not made either (Unknown, same reason) — the operator
// does not contact, on a Provider's behalf, a host it would not trust with
// that Provider's credential, so such a Provider makes no request at all.
// Providers that send no credential from a Secret (no secretRef, a type with
// no vendor probe, platform-hosted) keep their health check.
//
// Off (--credential-probe=off) turns vendor egress off entirely: no
// credential probe and no endpoint health check for any Provider.
// CredentialValid is Unknown with v1alpha1.ProviderReasonCredentialProbeDisabled and
// EndpointReachable Unknown with v1alpha1.ProviderReasonEndpointProbeDisabled; neither makes
// Ready False.
type Egress struct {
	// Off turns every vendor request off.
	Off bool
	// CredentialHosts are the "host:port" entries (ParseCredentialProbeHosts'
	// canonical form) a credential may be sent to besides the vendor's
	// default host.
	CredentialHosts []string
}

// Values of --credential-probe.
const (
	CredentialProbeOn  = "on"
	CredentialProbeOff = "off"
)

// ParseCredentialProbeMode parses --credential-probe (on or off) into Off.
func ParseCredentialProbeMode(s string) (off bool, err error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case CredentialProbeOn:
		return false, nil
	case CredentialProbeOff:
		return true, nil
	}
	return false, fmt.Errorf("%q is neither %s nor %s", s, CredentialProbeOn, CredentialProbeOff)
}

// ParseCredentialProbeHosts parses --credential-probe-hosts: a comma-separated
// list of "host" (port 443) or "host:port" entries; an IPv6 address is
// written in brackets with a port ("[2001:db8::1]:8443") or bare without
// ("2001:db8::1"). Host names are compared case-insensitively, without a
// trailing dot. It returns the entries as canonical "host:port"
// (rules.ParseCredentialHosts, shared with --arena-git-hosts).
func ParseCredentialProbeHosts(s string) ([]string, error) {
	return rules.ParseCredentialHosts(s)
}

// withheld are the probes the policy does not let a Provider make: each
// non-nil outcome stands for the probe, with Withheld set and no request
// made.
type withheld struct {
	credential, endpoint *ProbeOutcome
}

// decide applies the policy to a Provider (see Egress).
func (e Egress) decide(p *v1alpha1.Provider, defaults map[v1alpha1.ProviderType]string) withheld {
	if e.Off {
		return withheld{
			credential: &ProbeOutcome{Withheld: v1alpha1.ProviderReasonCredentialProbeDisabled,
				Detail: "vendor egress is off (--credential-probe=off): the credential is not sent to the vendor"},
			endpoint: &ProbeOutcome{Withheld: v1alpha1.ProviderReasonEndpointProbeDisabled,
				Detail: "vendor egress is off (--credential-probe=off): the endpoint is not checked"},
		}
	}
	if secretRefOf(p) == nil {
		return withheld{}
	}
	_, base, ok := ProbeFor(p, defaults)
	if !ok {
		return withheld{}
	}
	reason, why := e.credentialTarget(p.Spec.Type, base, defaults)
	if reason == "" {
		return withheld{}
	}
	return withheld{
		credential: &ProbeOutcome{Withheld: reason, Detail: "the credential is not sent: " + why},
		endpoint: &ProbeOutcome{Withheld: reason,
			Detail: "not checked: the operator makes no request to a host it would not send this Provider's credential to; " + why},
	}
}

// credentialTarget says why a credential may not be sent to base: a reason
// and a message, or "" when it may. The decision is the catalog's
// (rules.CredentialTarget); the allowed hosts are the vendor's default host
// for the type and CredentialHosts.
func (e Egress) credentialTarget(t v1alpha1.ProviderType, base string, defaults map[v1alpha1.ProviderType]string) (string, string) {
	vendor := ""
	if d, err := url.Parse(defaults[t]); err == nil && d.Host != "" {
		vendor = rules.CredentialHostPort(d)
	}
	allowed := e.CredentialHosts
	if vendor != "" {
		allowed = append(slices.Clip(e.CredentialHosts), vendor)
	}
	v := rules.CredentialTarget(base, allowed)
	switch v.Problem {
	case "":
		return "", ""
	case rules.CredentialTargetNotAbsolute:
		return v1alpha1.ProviderReasonCredentialProbeHostNotAllowed, fmt.Sprintf("%q is not an absolute URL with a host", base)
	case rules.CredentialTargetNotHTTPS:
		return v1alpha1.ProviderReasonCredentialProbeInsecure, fmt.Sprintf("a credential is sent only over https, and %s://%s is %s", v.URL.Scheme, v.URL.Host, v.URL.Scheme)
	case rules.CredentialTargetUserInfo:
		return v1alpha1.ProviderReasonCredentialProbeHostNotAllowed, "the base URL carries user info"
	}
	if vendor == "" {
		vendor = "none"
	}
	return v1alpha1.ProviderReasonCredentialProbeHostNotAllowed, fmt.Sprintf(
		"a credential is sent only to the vendor's host for type %s (%s) or to a host the operator allows with --credential-probe-hosts, and %s is neither",
		t, vendor, v.Target)
}
