package netguard

import (
	"context"
	"crypto/x509"
	"errors"
	"net"
	"os"
	"strings"
	"syscall"
)

// Describe is a dial or request error's class, in the operator's words,
// for a condition or event message: the refused address, a name that does
// not resolve, no answer in time, a certificate not trusted, a connection
// refused or reset. Never the error's own text, which carries the
// network's layout (addresses, resolver replies) or a remote server's
// words, and which a tenant who wrote the URL should not read back
// through a status. The log keeps the whole error.
func Describe(err error) string {
	var (
		blocked *BlockedError
		dns     *net.DNSError
		op      *net.OpError
		unknown x509.UnknownAuthorityError
		invalid x509.CertificateInvalidError
		host    x509.HostnameError
		nerr    net.Error
	)
	switch {
	case err == nil:
		return ""
	case errors.As(err, &blocked):
		return "the address is refused by the operator's egress guard (link-local or cloud metadata)"
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded),
		errors.As(err, &nerr) && nerr.Timeout():
		return "no answer within the time bound"
	case errors.As(err, &unknown), errors.As(err, &invalid), errors.As(err, &host):
		return "the server's TLS certificate is not trusted for this host"
	case errors.As(err, &dns):
		return "the host name does not resolve"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "the connection could not be made (connection refused)"
	case errors.Is(err, syscall.ECONNRESET):
		return "the connection failed (connection reset)"
	case errors.As(err, &op) && op.Op == "dial":
		return "the connection could not be made"
	case errors.As(err, &op):
		return "the connection failed"
	case strings.Contains(err.Error(), "tls:"):
		return "the TLS handshake failed"
	default:
		return "the request failed"
	}
}
