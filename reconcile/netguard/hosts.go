package netguard

import (
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// Host allow-lists: the operator sends a tenant's credential only to a host
// an operator flag lists (--credential-probe-hosts for Providers,
// --arena-git-hosts for ArenaProjects). Both flags and both checks use these
// two functions, so an entry means the same thing everywhere.

// ParseHostPorts parses a comma-separated list of "host" (port 443) or
// "host:port" entries; an IPv6 address is written in brackets with a port
// ("[2001:db8::1]:8443") or bare without ("2001:db8::1"). Empty entries are
// skipped. It returns the entries in the canonical form URLHostPort
// produces: lower-case host without a trailing dot, joined with its port.
func ParseHostPorts(s string) ([]string, error) {
	var out []string
	for _, entry := range strings.Split(s, ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		hp, err := parseHostEntry(entry)
		if err != nil {
			return nil, fmt.Errorf("entry %q: %w", entry, err)
		}
		out = append(out, hp)
	}
	return out, nil
}

func parseHostEntry(entry string) (string, error) {
	if strings.ContainsAny(entry, "/@?# \t") {
		return "", fmt.Errorf("want host or host:port, not a URL")
	}
	host, port := entry, "443"
	if _, err := netip.ParseAddr(entry); err != nil { // a bare IPv6 address has colons but no port
		if h, p, err := net.SplitHostPort(entry); err == nil {
			host, port = h, p
		} else if strings.HasPrefix(entry, "[") && strings.HasSuffix(entry, "]") {
			host = entry[1 : len(entry)-1]
		} else if strings.Contains(entry, ":") {
			return "", err
		}
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return "", fmt.Errorf("port %q is not a number from 1 to 65535", port)
	}
	host = normalizeHost(host)
	if host == "" {
		return "", fmt.Errorf("empty host")
	}
	return net.JoinHostPort(host, port), nil
}

func normalizeHost(h string) string {
	return strings.TrimSuffix(strings.ToLower(h), ".")
}

// URLHostPort is the canonical "host:port" a URL connects to (port 443 for
// https, 80 for http when the URL names none), comparable with
// ParseHostPorts' entries.
func URLHostPort(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = "443"
		if u.Scheme == "http" {
			port = "80"
		}
	}
	return net.JoinHostPort(normalizeHost(u.Hostname()), port)
}
