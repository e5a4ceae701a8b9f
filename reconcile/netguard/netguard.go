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
// toolregistry/mcp-endpoint-metadata-address rules, with the same address
// list: rules.MetadataAddr) reports the mistake early; this guard is what
// holds when DNS says something else.
package netguard

import (
	"fmt"
	"net"
	"net/netip"
	"syscall"

	"github.com/altairalabs/omnia/rules"
)

// Blocked reports whether ip is never dialled: a link-local or cloud
// metadata service address, in any form rules.MetadataAddr knows
// (IPv4-mapped, NAT64). The list is the rule catalog's, so the literal check
// on a spec and this check after DNS agree.
func Blocked(ip netip.Addr) bool {
	return rules.MetadataAddr(ip)
}

// BlockedError is the error a guarded dial returns for a refused address.
type BlockedError struct {
	// Address is the resolved address the dialer was about to connect to.
	Address string
	// Why is "link-local or cloud metadata" or "unparseable".
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
	if Blocked(ap.Addr()) {
		return &BlockedError{Address: address, Why: "link-local or cloud metadata"}
	}
	return nil
}

// NewDialer returns a net.Dialer with Control installed. resolver may be nil
// (the default resolver).
func NewDialer(resolver *net.Resolver) *net.Dialer {
	return &net.Dialer{Control: Control, Resolver: resolver}
}
