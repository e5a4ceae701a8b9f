package rules

import (
	"testing"

	"github.com/altairalabs/omnia/api/v1alpha1"
)

func providerBaseURL(u string) func(*v1alpha1.Provider) {
	return func(p *v1alpha1.Provider) { p.Spec.BaseURL = u }
}

// TestProviderBaseURLRules: provider/base-url denies what cannot be a
// vendor's URL or names a metadata host; provider/base-url-plain-http warns
// on http.
func TestProviderBaseURLRules(t *testing.T) {
	deny := []providerWant{{"provider/base-url", "spec.baseURL"}}
	warn := []providerWant{{"provider/base-url-plain-http", "spec.baseURL"}}
	cases := []ruleCase[*v1alpha1.Provider]{
		// Accepted.
		{name: "no baseURL: the vendor default"},
		{name: "https gateway with a path", mutate: providerBaseURL("https://openrouter.ai/api/v1")},
		{name: "https with a port", mutate: providerBaseURL("https://my-openai-proxy.internal:8443/v1")},
		{name: "https to a private IP", mutate: providerBaseURL("https://10.0.0.12/v1")},
		{name: "https to an IPv6 address", mutate: providerBaseURL("https://[2001:db8::1]:8443/")},
		{name: "upper-case scheme", mutate: providerBaseURL("HTTPS://api.openai.com/v1")},
		{name: "a host name starting with digits", mutate: providerBaseURL("https://1password-proxy.internal/")},
		{name: "update fixing a metadata baseURL", mutate: providerBaseURL("https://api.anthropic.com"),
			old: providerBaseURL("http://169.254.169.254/")},

		// Warned: plain http.
		{name: "in-cluster vllm over http", mutate: providerBaseURL("http://vllm.models.svc.cluster.local:8000/v1"), want: warn},
		{name: "http to loopback", mutate: providerBaseURL("http://127.0.0.1:11434"), want: warn},

		// Denied: not an absolute web URL.
		{name: "relative path", mutate: providerBaseURL("/v1"), want: deny},
		{name: "host without a scheme", mutate: providerBaseURL("api.openai.com/v1"), want: deny},
		{name: "host:port without a scheme", mutate: providerBaseURL("vllm:8000"), want: deny},
		{name: "ftp scheme", mutate: providerBaseURL("ftp://models.example.com/"), want: deny},
		{name: "file scheme", mutate: providerBaseURL("file:///etc/passwd"), want: deny},
		{name: "scheme without a host", mutate: providerBaseURL("https:///v1"), want: deny},
		{name: "opaque URL", mutate: providerBaseURL("https:api.openai.com"), want: deny},
		{name: "unparseable", mutate: providerBaseURL("https://api.openai.com:port/"), want: deny},
		{name: "control character", mutate: providerBaseURL("https://api.openai.com/\n"), want: deny},
		// Denied: user info.
		{name: "user info", mutate: providerBaseURL("https://user:secret@api.openai.com/v1"), want: deny},
		{name: "user name only", mutate: providerBaseURL("https://user@api.openai.com/v1"), want: deny},
		// Denied: link-local and metadata hosts, literal IPs.
		{name: "AWS/GCP/Azure metadata IP", mutate: providerBaseURL("http://169.254.169.254/latest/meta-data/"), want: deny},
		{name: "metadata IP over https", mutate: providerBaseURL("https://169.254.169.254"), want: deny},
		{name: "ECS task credentials IP", mutate: providerBaseURL("http://169.254.170.2/v2/credentials"), want: deny},
		{name: "IPv4 link-local", mutate: providerBaseURL("https://169.254.10.1:8443/"), want: deny},
		{name: "IPv6 link-local with a zone", mutate: providerBaseURL("http://[fe80::1%25eth0]/"), want: deny},
		{name: "AWS IMDS over IPv6", mutate: providerBaseURL("http://[fd00:ec2::254]/latest/"), want: deny},
		{name: "Alibaba metadata", mutate: providerBaseURL("http://100.100.100.200/latest/meta-data/"), want: deny},
		{name: "IPv4-mapped metadata IP", mutate: providerBaseURL("http://[::ffff:169.254.169.254]/"), want: deny},
		{name: "NAT64 metadata IP", mutate: providerBaseURL("http://[64:ff9b::a9fe:a9fe]/"), want: deny},
		{name: "metadata IP with a trailing dot", mutate: providerBaseURL("http://169.254.169.254./"), want: deny},
		// Denied: numeric hosts that are not a dotted quad (inet_aton forms).
		{name: "decimal IP", mutate: providerBaseURL("http://2852039166/"), want: deny},
		{name: "hex IP", mutate: providerBaseURL("http://0xa9fea9fe/"), want: deny},
		{name: "octal dotted IP", mutate: providerBaseURL("http://0251.0376.0251.0376/"), want: deny},
		{name: "short dotted IP", mutate: providerBaseURL("http://169.254.43518/"), want: deny},
		// Denied: metadata host names.
		{name: "GCP metadata name", mutate: providerBaseURL("http://metadata.google.internal/computeMetadata/v1/"), want: deny},
		{name: "GCP metadata name upper case with a trailing dot", mutate: providerBaseURL("https://METADATA.GOOGLE.INTERNAL./"), want: deny},
		{name: "GCP short name", mutate: providerBaseURL("http://metadata/computeMetadata/v1/"), want: deny},
		{name: "AWS instance-data", mutate: providerBaseURL("http://instance-data.ec2.internal/latest/"), want: deny},
	}
	ruleTable[*v1alpha1.Provider]{kind: "Provider", prefix: "provider/base-url", base: providerBase,
		facts: func() Facts { return providerBaseFacts() }}.run(t, cases)
}
