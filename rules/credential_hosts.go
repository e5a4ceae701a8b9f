package rules

import (
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// Credential host allow-lists: the operator sends a tenant's credential only
// to a host an operator flag lists (--credential-probe-hosts for Providers,
// --arena-git-hosts for ArenaProjects). Both flags and both controllers use
// these functions, so an entry means the same thing everywhere, and the
// decision whether a URL may receive a credential is made here once.

// ParseCredentialHosts parses a comma-separated list of "host" (port 443)
// or "host:port" entries; an IPv6 address is written in brackets with a
// port ("[2001:db8::1]:8443") or bare without ("2001:db8::1"). Empty entries
// are skipped. It returns the entries in the canonical form
// CredentialHostPort produces: lower-case host without a trailing dot,
// joined with its port.
func ParseCredentialHosts(s string) ([]string, error) {
	var out []string
	for _, entry := range strings.Split(s, ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		hp, err := parseCredentialHost(entry)
		if err != nil {
			return nil, fmt.Errorf("entry %q: %w", entry, err)
		}
		out = append(out, hp)
	}
	return out, nil
}

func parseCredentialHost(entry string) (string, error) {
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

// CredentialHostPort is the canonical "host:port" a URL connects to (port
// 443 for https, 80 for http when the URL names none), comparable with
// ParseCredentialHosts' entries.
func CredentialHostPort(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = "443"
		if u.Scheme == "http" {
			port = "80"
		}
	}
	return net.JoinHostPort(normalizeHost(u.Hostname()), port)
}

// CredentialTargetProblem is why a URL may not receive a tenant's
// credential; each controller turns it into its own kind's reason.
type CredentialTargetProblem string

// The problems CredentialTarget finds, in the order it looks for them.
const (
	// CredentialTargetNotAbsolute: the URL does not parse or names no host.
	CredentialTargetNotAbsolute CredentialTargetProblem = "NotAbsolute"
	// CredentialTargetNotHTTPS: a credential travels over https only.
	CredentialTargetNotHTTPS CredentialTargetProblem = "NotHTTPS"
	// CredentialTargetUserInfo: the URL carries credentials of its own.
	CredentialTargetUserInfo CredentialTargetProblem = "UserInfo"
	// CredentialTargetHostNotAllowed: the host:port is not in the list.
	CredentialTargetHostNotAllowed CredentialTargetProblem = "HostNotAllowed"
)

// CredentialTargetVerdict is CredentialTarget's answer.
type CredentialTargetVerdict struct {
	// Problem is "" when the credential may be sent.
	Problem CredentialTargetProblem
	// URL is the parsed URL (nil when it does not parse), for messages
	// (print it Redacted).
	URL *url.URL
	// Target is the canonical host:port the URL connects to ("" when it
	// does not parse).
	Target string
}

// CredentialTarget decides whether a tenant's credential may be sent to
// raw: only an absolute https URL without user info whose canonical
// host:port is one of allowed (ParseCredentialHosts' form). The caller
// makes no request at all when the verdict has a Problem.
func CredentialTarget(raw string, allowed []string) CredentialTargetVerdict {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return CredentialTargetVerdict{Problem: CredentialTargetNotAbsolute}
	}
	v := CredentialTargetVerdict{URL: u, Target: CredentialHostPort(u)}
	switch {
	case u.Scheme != "https":
		v.Problem = CredentialTargetNotHTTPS
	case u.User != nil:
		v.Problem = CredentialTargetUserInfo
	case !slices.Contains(allowed, v.Target):
		v.Problem = CredentialTargetHostNotAllowed
	}
	return v
}
