package rules

import (
	"net/netip"
	"net/url"
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Provider base URL rules: spec.baseURL is where the runtime, and the
// operator's probes, send requests carrying the Provider's credential, so it
// must be a plain absolute web URL that does not point at the node's cloud
// metadata service. The operator's credential-probe egress policy
// (reconcile/provider.Egress) and its dialer guard (reconcile/netguard) hold
// whatever got in before these rules.

func init() {
	Default.Register(Rule{
		ID:       "provider/base-url",
		Kinds:    []string{kindProvider},
		Stage:    StageAdmission,
		Severity: SeverityDeny,
		Doc: "spec.baseURL, when set, must be an absolute http or https URL with a host and no user info, and its host may not be a " +
			"link-local or cloud-metadata address (literal IPs in 169.254.0.0/16, fe80::/10, 100.100.100.200, fd00:ec2::254, " +
			"fd00:ec2::23, fd20:ce::254, fd00:42::42, their IPv4-mapped and NAT64 forms, or the names metadata, " +
			"metadata.google.internal, metadata.goog, instance-data, instance-data.ec2.internal, metadata.tencentyun.com). Names are " +
			"not resolved here: the operator checks resolved addresses when it dials.",
		Spec:  "provider.md#baseurl",
		Check: checkProviderBaseURL,
	})
	Default.Register(Rule{
		ID:       "provider/base-url-plain-http",
		Kinds:    []string{kindProvider},
		Stage:    StageAdmission,
		Severity: SeverityWarn,
		Doc: "spec.baseURL over plain http sends the prompts, and any credential, in clear text: use https. The operator never sends a " +
			"credential probe over http (CredentialValid is Unknown, reason CredentialProbeInsecure).",
		Spec:  "provider.md#baseurl",
		Check: checkProviderBaseURLPlainHTTP,
	})
}

var providerBaseURLPath = field.NewPath("spec", "baseURL")

// providerNumericHost matches a host made of numbers only (decimal, octal or
// hex parts): no DNS name looks like that (no top-level domain is numeric),
// and resolvers read such forms differently (2852039166 and 0251.0376.0251.0376
// are 169.254.169.254 to inet_aton), so only the canonical dotted quad is
// accepted.
var providerNumericHost = regexp.MustCompile(`(?i)^(0x[0-9a-f]*|[0-9]+)(\.(0x[0-9a-f]*|[0-9]*))*$`)

func validIP(host string) bool {
	_, err := netip.ParseAddr(host)
	return err == nil
}

// providerBaseURLProblem says what is wrong with a base URL, or "" when
// nothing is.
func providerBaseURLProblem(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "is not a URL (" + strings.TrimPrefix(err.Error(), "parse ") + ")"
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		if u.Scheme == "" {
			return "is not an absolute URL: it needs a scheme, https:// (or http://)"
		}
		return "has scheme " + u.Scheme + ": only https and http are sent to"
	}
	if u.Opaque != "" || u.Hostname() == "" {
		return "has no host: write it as " + u.Scheme + "://host[:port]/path"
	}
	if u.User != nil {
		return "carries user info (user@ or user:password@): put credentials in spec.credential, never in the URL"
	}
	if host := u.Hostname(); providerNumericHost.MatchString(host) && !validIP(host) {
		return "names host " + host + ", a number that is not a dotted-quad IP address; write the address as a.b.c.d or use a host name"
	}
	if MetadataHost(u.Hostname()) {
		return "names host " + u.Hostname() + ", a link-local or cloud-metadata address that would hand the node's cloud credentials to " +
			"whoever reads the responses"
	}
	return ""
}

func checkProviderBaseURL(in Input) field.ErrorList {
	p := providerOf(in)
	if p == nil || p.Spec.BaseURL == "" {
		return nil
	}
	if why := providerBaseURLProblem(p.Spec.BaseURL); why != "" {
		return field.ErrorList{field.Invalid(providerBaseURLPath, p.Spec.BaseURL,
			"spec.baseURL "+why+"; set an absolute https URL of the vendor's API, a gateway or a self-hosted server (e.g. "+
				"https://my-openai-proxy.internal/v1)")}
	}
	return nil
}

func checkProviderBaseURLPlainHTTP(in Input) field.ErrorList {
	p := providerOf(in)
	if p == nil || p.Spec.BaseURL == "" || providerBaseURLProblem(p.Spec.BaseURL) != "" {
		return nil // provider/base-url reports it
	}
	if u, _ := url.Parse(p.Spec.BaseURL); u.Scheme != "http" {
		return nil
	}
	return field.ErrorList{field.Invalid(providerBaseURLPath, p.Spec.BaseURL,
		"spec.baseURL is plain http: requests, and any credential sent with them, cross the network unencrypted, and the operator "+
			"does not probe a credential over http (CredentialValid stays Unknown); use https")}
}
