package rules

import (
	"net/netip"
	"strings"
)

// The link-local and cloud-metadata addresses no Omnia component is made to
// reach on a tenant's behalf: a request from the operator or an agent pod to
// one of them can read the node's cloud credentials. The catalog's rules
// judge literal hosts with these (provider/base-url,
// toolregistry/mcp-endpoint-metadata-address); the operator's dialer
// (reconcile/netguard) applies MetadataAddr to every resolved address.

// metadataPrefixes are the link-local ranges and the cloud metadata
// addresses outside them. 169.254.169.254 (AWS, GCP, Azure, OCI,
// DigitalOcean), 169.254.170.2 (ECS task credentials), 169.254.170.23 (EKS
// Pod Identity), 169.254.0.23 (Tencent Cloud) and 169.254.42.42 (Scaleway)
// are inside 169.254.0.0/16.
var metadataPrefixes = []netip.Prefix{
	netip.MustParsePrefix("169.254.0.0/16"),     // IPv4 link-local
	netip.MustParsePrefix("fe80::/10"),          // IPv6 link-local
	netip.MustParsePrefix("100.100.100.200/32"), // Alibaba Cloud metadata
	netip.MustParsePrefix("fd00:ec2::254/128"),  // AWS IMDS, IPv6
	netip.MustParsePrefix("fd00:ec2::23/128"),   // AWS EKS Pod Identity agent, IPv6
	netip.MustParsePrefix("fd20:ce::254/128"),   // GCP metadata server, IPv6
	netip.MustParsePrefix("fd00:42::42/128"),    // Scaleway metadata, IPv6
}

// nat64Prefix is the well-known NAT64 prefix (RFC 6052): 64:ff9b::a9fe:a9fe
// reaches 169.254.169.254 through a NAT64 gateway.
var nat64Prefix = netip.MustParsePrefix("64:ff9b::/96")

// metadataHostnames are well-known names of cloud metadata services
// (compared lower-cased, without a trailing dot).
var metadataHostnames = map[string]bool{
	"metadata":                   true, // GCP short name
	"metadata.google.internal":   true, // GCP
	"metadata.goog":              true, // GCP
	"instance-data":              true, // AWS short name
	"instance-data.ec2.internal": true, // AWS
	"metadata.tencentyun.com":    true, // Tencent Cloud
}

// MetadataAddr reports whether ip is link-local or a cloud metadata service
// address, including the IPv4-mapped (::ffff:169.254.169.254) and NAT64
// (64:ff9b::a9fe:a9fe) forms of one.
func MetadataAddr(ip netip.Addr) bool {
	ip = ip.WithZone("").Unmap()
	if ip.Is6() && nat64Prefix.Contains(ip) {
		b := ip.As16()
		ip = netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
	}
	for _, p := range metadataPrefixes {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// MetadataHost reports whether a URL's host (as url.URL.Hostname returns
// it: no port, no brackets) is a literal link-local or metadata address or a
// well-known metadata host name. Other names are not resolved here: the
// operator's dialer checks what they resolve to.
func MetadataHost(host string) bool {
	if host == "" {
		return false
	}
	host = strings.TrimSuffix(host, ".")
	if addr, err := netip.ParseAddr(host); err == nil {
		return MetadataAddr(addr)
	}
	return metadataHostnames[strings.TrimSuffix(strings.ToLower(host), ".")]
}
