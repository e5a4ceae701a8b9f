// Package netguard keeps the operator's outbound probes away from addresses
// no tenant may make it reach: link-local networks and cloud instance
// metadata services, where a request made with the operator's network
// identity can read node credentials.
//
// The check runs in a net.Dialer's Control hook, that is after DNS
// resolution and before the socket connects, for every connection the dialer
// opens: a host name that resolves to 169.254.169.254 is refused exactly like
// the literal address, and no packet is sent to a refused address. A literal
// check on the spec (the catalog's provider/base-url and
// toolregistry/mcp-endpoint-metadata-address rules) reports the mistake
// early; this guard is what holds when DNS says something else.
package netguard

import (
	"fmt"
	"net"
	"net/netip"
	"syscall"
)

// blockedPrefixes are never dialled.
var blockedPrefixes = []struct {
	prefix netip.Prefix
	why    string
}{
	// IPv4 link-local; holds 169.254.169.254, the instance metadata service
	// of AWS, GCP, Azure, Oracle, DigitalOcean, OpenStack and others, and
	// 169.254.0.23 (Tencent Cloud).
	{netip.MustParsePrefix("169.254.0.0/16"), "link-local"},
	// IPv6 link-local.
	{netip.MustParsePrefix("fe80::/10"), "link-local"},
	// AWS instance metadata service over IPv6.
	{netip.MustParsePrefix("fd00:ec2::254/128"), "cloud metadata service"},
	// Alibaba Cloud instance metadata service.
	{netip.MustParsePrefix("100.100.100.200/32"), "cloud metadata service"},
	// Oracle Cloud Infrastructure's legacy metadata address.
	{netip.MustParsePrefix("192.0.0.192/32"), "cloud metadata service"},
}

// nat64 is the well-known NAT64 prefix (RFC 6052): 64:ff9b::a9fe:a9fe
// reaches 169.254.169.254 through a NAT64 gateway.
var nat64 = netip.MustParsePrefix("64:ff9b::/96")

// Blocked reports whether ip is never dialled, and why ("link-local",
// "cloud metadata service"). IPv4-mapped IPv6 (::ffff:169.254.169.254) and
// NAT64 (64:ff9b::a9fe:a9fe) forms of a blocked IPv4 address are blocked
// too.
func Blocked(ip netip.Addr) (string, bool) {
	ip = ip.WithZone("").Unmap()
	if ip.Is6() && nat64.Contains(ip) {
		b := ip.As16()
		ip = netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
	}
	for _, p := range blockedPrefixes {
		if p.prefix.Contains(ip) {
			return p.why, true
		}
	}
	return "", false
}

// BlockedError is the error a guarded dial returns for a refused address.
type BlockedError struct {
	// Address is the resolved address the dialer was about to connect to.
	Address string
	// Why is "link-local", "cloud metadata service" or "unparseable".
	Why string
}

func (e *BlockedError) Error() string {
	return fmt.Sprintf("address %s is not dialled: %s addresses are refused by the operator's egress guard", e.Address, e.Why)
}

// Control is a net.Dialer Control hook refusing every blocked address. It is
// called with the resolved "ip:port" of each connection attempt; an address
// it cannot parse is refused (fail closed).
func Control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return &BlockedError{Address: address, Why: "unparseable"}
	}
	if why, blocked := Blocked(ap.Addr()); blocked {
		return &BlockedError{Address: address, Why: why}
	}
	return nil
}

// NewDialer returns a net.Dialer with Control installed. resolver may be nil
// (the default resolver).
func NewDialer(resolver *net.Resolver) *net.Dialer {
	return &net.Dialer{Control: Control, Resolver: resolver}
}
